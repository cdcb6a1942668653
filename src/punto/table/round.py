"""A round of play at a live table, from "Place your bets, please" to the
last payment -- or to a void.

Each action comes as a trio, the way pokerkit models a table: ``check_x``
raises a typed error that says why the action is not allowed now (with the
clause), ``can_x`` answers yes or no, and ``x`` performs it by appending one
immutable event.  The round's state is a fold over its events: replaying the
same events gives the same round, which is how a crash is recovered and a
round audited.  The procedures for irregularities (sections 5 and 6 of the
rules) are built from these actions in :mod:`punto.table.irregularities`.

>>> from punto.rules.games import get_game
>>> from punto.table.limits import TableLimits
>>> limits = TableLimits(Decimal(10), Decimal(1000))
>>> r = Round(get_game("tiger-baccarat"), limits=limits)
>>> r.open()
>>> r.place_bet("ann", 1, "banker", Decimal(100))
'b1'
>>> r.close_betting()
>>> for card in parse_cards("QH 2C 2D KS 3H 4D"):
...     r.deal_card(card)
>>> r.can_deal_card(), r.phase
(False, <Phase.RESULT: 'result'>)
>>> r.settle()
>>> [(s.bet.player, s.outcome, str(s.net)) for s in r.results()]
[('ann', 'win', '95.00')]
>>> r.nets(), r.house_net()
({'ann': Decimal('95.00')}, Decimal('-95.00'))
>>> Round.replay(r.game, r.events, limits=limits).results() == r.results()
True
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from decimal import Decimal

from punto.errors import (
    ActionError,
    BettingClosedError,
    DealError,
    InsuranceError,
    LimitError,
    PhaseError,
    can,
)
from punto.money import CENT, format_money
from punto.rules.cards import Card, format_cards, parse_cards
from punto.rules.coup import Coup, Deal
from punto.rules.settlement import Bet, settle
from punto.table.bet_limits import (
    box_excess,
    check_bet_limits,
    check_position,
    excess_cuts,
    newly_under_minimum,
    settled_stakes,
)
from punto.table.events import (
    BetPlaced,
    BetReduced,
    BetsClosed,
    BettingReopened,
    BetWithdrawn,
    CardDealt,
    CardsHeld,
    CardsReconstructed,
    RoundOpened,
    RoundSettled,
    WithdrawalOffered,
)
from punto.table.grants import check_grant
from punto.table.roles import Role
from punto.table.round_insurance import RoundInsurance
from punto.table.round_irregular import RoundIrregular
from punto.table.round_state import (
    IN_PLAY,
    ORIGINAL_BETS,
    BetSettlement,
    Phase,
    TableBet,
    deal_after,
)

__all__ = [
    "IN_PLAY",
    "ORIGINAL_BETS",
    "BetSettlement",
    "Phase",
    "Round",
    "TableBet",
    "deal_after",
    "parse_cards",
]


class Round(RoundInsurance, RoundIrregular):
    """One round of play of ``game`` at a table with ``limits``.

    ``on_event`` is called with each new event *before* the state changes;
    a store that persists events there makes every acknowledged action
    durable.  ``check_events``, if given, is called before that with the
    round and the events about to be written, and may refuse them (a live
    table checks there that cards said to come out of its dealing device
    are its next cards); an irregularity procedure gives it all its events
    at once.  ``under_minimum_settled`` names players whose under-minimum
    wager was already paid or collected once at this table (MBS 5.14).
    """

    # -- opening ------------------------------------------------------------------

    def check_open(self, role: Role = Role.DEALER) -> None:
        self._check_role(role, Role.DEALER, "open betting", self._clause("place_bets"))
        if self.phase is not Phase.NEW:
            raise PhaseError("this round is already open", clause=self._clause("place_bets"))

    def can_open(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_open(role))

    def open(self, role: Role = Role.DEALER) -> None:
        """'Place your bets, please' (3.1)."""
        self.check_open(role)
        self._emit(RoundOpened(self.round_id, role))

    # -- bets -----------------------------------------------------------------------

    def check_place_bet(
        self,
        player: str,
        position: int,
        wager: str,
        stake: Decimal,
        *,
        seated: bool = True,
        enforce_limits: bool = True,
    ) -> None:
        """Why this bet cannot be placed now, if it cannot.

        ``enforce_limits=False`` records a bet as it lies on the layout even
        when it is outside the limits (a bet the dealer did not notice); the
        game's limit policies then settle it (MBS 5.14, 5.15; RWS 5.1, 5.2).
        """
        if self.phase is not Phase.BETTING:
            raise BettingClosedError(
                "no wager may be placed or increased after 'No more bets'"
                if self.phase is not Phase.NEW
                else "betting is not open yet",
                clause=self._clause("late_bet")
                if self.phase is not Phase.NEW
                else self._clause("place_bets"),
                hint="wait for 'Place your bets, please'",
            )
        self._check_no_option_open()
        chosen = self.game.wager(wager, self.layout)
        if chosen.insures is not None:
            raise InsuranceError(
                f"{wager} is placed when offered, after the cards are out, not while betting",
                clause="3.12",
            )
        self._check_position(position)
        if stake <= 0 or stake % CENT:
            raise LimitError(f"stake {stake} is not a positive amount of whole cents")
        if not seated:
            self._check_standing(position, wager)
        check_bet_limits(
            self.game,
            self.limits,
            self.area_bets(position, wager),
            player=player,
            position=position,
            wager=wager,
            stake=stake,
            seated=seated,
            enforce_limits=enforce_limits,
        )

    def _check_position(self, position: int) -> None:
        check_position(self.game, self.layout, position)

    def _check_standing(self, position: int, wager: str) -> None:
        clause = self._clause("standing_player")
        if clause is None:
            return
        if not any(b.seated and b.position == position for b in self.active_bets):
            raise ActionError(
                f"a Standing Player bets on a Seated Player's betting box, and position "
                f"{position} has no seated bet",
                clause=clause,
                hint="bet on a box where a seated player has a bet",
            )

    def can_place_bet(
        self, player: str, position: int, wager: str, stake: Decimal, **options: bool
    ) -> bool:
        return can(lambda: self.check_place_bet(player, position, wager, stake, **options))

    def place_bet(
        self,
        player: str,
        position: int,
        wager: str,
        stake: Decimal,
        *,
        seated: bool = True,
        enforce_limits: bool = True,
        role: Role = Role.PLAYER,
        bet_id: str | None = None,
    ) -> str:
        """Place a bet; returns its id.  A role other than the player's own is
        a Pit Employee placing it on the player's behalf (MBS 3.8; RWS 5.18)."""
        self.check_place_bet(
            player, position, wager, stake, seated=seated, enforce_limits=enforce_limits
        )
        bet_id = bet_id or f"b{self._s.orders + 1}"
        if bet_id in self._s.bets:
            raise ActionError(f"bet id {bet_id!r} is taken")
        self._emit(BetPlaced(bet_id, player, position, wager, stake, seated, role))
        return bet_id

    def check_withdraw_bet(self, bet_id: str) -> None:
        bet = self._bet(bet_id)
        option = self._s.withdrawal
        if option is not None:
            grant = self.game.grant("withdrawal", option.clause)
            which = (
                "all their wagers"
                if grant and grant.returns == "every"
                else "all their remaining wagers"
            )
            covered = option.clause[:1].isdigit()  # else the Shift Manager's (not covered)
            under = f"option of {option.clause}" if covered else "Shift Manager's option"
            raise ActionError(
                f"under the {under} a player withdraws {which} or none, not one wager ({bet_id})",
                clause=self._option_clause(),
                hint=f"take the option for {bet.player} (withdraw_player), or play on",
            )
        if self.phase is not Phase.BETTING:
            after_power_failure = self._clause("power_failure_withdraw")
            if after_power_failure is not None and any(
                isinstance(e, WithdrawalOffered) and e.clause == after_power_failure
                for e in self.events
            ):
                # MBS 5.17.1: after a power failure with no outcome established
                # the player withdraws all their wagers or none, while offered.
                raise ActionError(
                    f"after the power failure a player withdraws all their wagers or none, "
                    f"not one wager ({bet_id}), and only while the option is open",
                    clause=after_power_failure,
                    hint="the option has closed: the wagers win or lose on the outcome",
                )
            raise BettingClosedError(
                "no wager may be withdrawn after 'No more bets'",
                clause=self._clause("late_withdrawal"),
                hint="the wager wins or loses on the outcome of the round",
            )
        if bet.status != "active":
            raise ActionError(
                f"bet {bet_id} is already {bet.status}", clause=self._clause("place_bets")
            )

    def can_withdraw_bet(self, bet_id: str) -> bool:
        return can(lambda: self.check_withdraw_bet(bet_id))

    def withdraw_bet(self, bet_id: str, role: Role = Role.PLAYER) -> None:
        self.check_withdraw_bet(bet_id)
        self._emit(BetWithdrawn(bet_id, role))

    # -- the differential ----------------------------------------------------------

    def differential_exceeded(self) -> bool:
        limit = self.limits.differential
        return limit is not None and self.differential() > limit

    def excess_over_limits(self) -> bool:
        """Whether the table differential or a betting box's maximum is
        exceeded: what the House rejects where the game says so (RWS 5.1)."""
        return self.differential_exceeded() or bool(
            box_excess(self.game, self.limits, self.active_bets)
        )

    def check_reduce_bet(self, bet_id: str, stake: Decimal, role: Role = Role.PLAYER) -> None:
        bet = self._bet(bet_id)
        if self.phase is not Phase.BETTING:
            raise BettingClosedError("bets are closed", clause=self._clause("late_bet"))
        if bet.status != "active" or not 0 <= stake < bet.stake or stake % CENT:
            raise ActionError(
                f"bet {bet_id} of {format_money(bet.stake)} cannot be reduced to {stake}"
            )
        if role is not Role.PLAYER and stake == 0:
            role.check_acts_as(
                Role.PIT_MANAGER, "remove a wager", self._clause("differential_remove")
            )

    def can_reduce_bet(self, bet_id: str, stake: Decimal, role: Role = Role.PLAYER) -> bool:
        return can(lambda: self.check_reduce_bet(bet_id, stake, role))

    def reduce_bet(self, bet_id: str, stake: Decimal, role: Role = Role.PLAYER) -> None:
        """Decrease a wager (MBS 5.18.1) or, as Pit Manager, remove it (5.18.3)."""
        self.check_reduce_bet(bet_id, stake, role)
        if role is not Role.PLAYER and stake == 0:
            clause = self._clause("differential_remove") or self._clause("differential") or ""
        else:
            clause = self._clause("differential") or ""
        self._emit(BetReduced(bet_id, stake, role, clause))

    def check_reject_excess(self, role: Role = Role.DEALER) -> None:
        clause = self._clause("differential")
        self._check_role(role, Role.DEALER, "reject excess bets", clause)
        if self.game.limit_policy("differential") != "reject-excess-seated-first-else-pro-rata":
            raise ActionError(
                f"{self.game.title} does not reject the excess over the differential",
                clause=clause,
                hint="ask the heavier side to decrease, the lighter to increase "
                "(the Pit Manager removes wagers if that is not enough)",
            )
        if self.phase is not Phase.BETTING:
            raise BettingClosedError(
                "the excess is rejected before the bets are closed",
                clause=clause,
                hint="an excess not rejected settles pro rata (5.1.1)",
            )

    def can_reject_excess(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_reject_excess(role))

    def reject_excess(self, role: Role = Role.DEALER) -> list[str]:
        """RWS 5.1: reject the bets over a box's maximum and then over the
        table differential, standing players' latest bets first, then seated
        players' latest, never leaving a bet under the minimum
        (:func:`punto.table.bet_limits.excess_cuts`).  Returns the bets cut,
        in the order cut (one ``BetReduced`` event each; none when nothing is
        over)."""
        self.check_reject_excess(role)
        cut = []
        for bet_id, stake in excess_cuts(self.game, self.limits, self.active_bets):
            self._emit(BetReduced(bet_id, stake, role, self._clause("differential") or ""))
            cut.append(bet_id)
        return cut

    # -- no more bets ----------------------------------------------------------------

    def check_close_betting(
        self, role: Role = Role.DEALER, *, differential_noticed: bool = True
    ) -> None:
        self._check_role(role, Role.DEALER, "close betting", self._clause("no_more_bets"))
        if self.phase is not Phase.BETTING:
            raise PhaseError("betting is not open", clause=self._clause("no_more_bets"))
        self._check_no_option_open()
        if differential_noticed and self.differential_exceeded():
            assert self.limits.differential is not None
            raise LimitError(
                f"the table differential of {format_money(self.limits.differential)} is exceeded "
                f"({format_money(self.differential())})",
                clause=self._clause("differential"),
                hint="ask the heavier side to decrease, the lighter to increase, or remove wagers"
                if self.game.limit_policy("differential") == "ask-decrease-increase-remove"
                else "reject the excess bets, standing players first",
            )
        boxes = box_excess(self.game, self.limits, self.active_bets) if differential_noticed else {}
        if boxes:
            (position, wager), excess = next(iter(boxes.items()))
            raise LimitError(
                f"the {wager} box of position {position} is {format_money(excess)} over its "
                "maximum",
                clause=self._clause("differential"),
                hint="reject the excess bets, standing players first",
            )

    def can_close_betting(
        self, role: Role = Role.DEALER, *, differential_noticed: bool = True
    ) -> bool:
        return can(
            lambda: self.check_close_betting(role, differential_noticed=differential_noticed)
        )

    def close_betting(self, role: Role = Role.DEALER, *, differential_noticed: bool = True) -> None:
        """'No more bets' (3.2).  An unnoticed differential excess settles pro
        rata where the game says so (RWS 5.1.1)."""
        self.check_close_betting(role, differential_noticed=differential_noticed)
        self._emit(BetsClosed(role))

    # -- cards --------------------------------------------------------------------------

    def check_deal_card(self) -> None:
        if self.phase is not Phase.DEALING:
            raise PhaseError(
                "cards are dealt after 'No more bets' and until the coup is complete",
                clause=self._clause("no_more_bets"),
            )
        self._check_no_option_open()

    def can_deal_card(self) -> bool:
        return can(self.check_deal_card)

    def deal_card(self, card: Card, source: str = "shoe") -> None:
        """The next card, to the hand the Table of Play gives it.  The next
        card closes any Insurance offer (RWS 5.3)."""
        self.check_deal_card()
        self.deal.check_add()
        self._emit(CardDealt(card, source))

    def check_reconstruct(
        self,
        cards: Sequence[Card],
        clause: str,
        role: Role = Role.DEALER,
        *,
        drawn: Sequence[Card] = (),
        required: Role = Role.DEALER,
    ) -> None:
        """Why ``cards`` cannot be put on the table as the coup's cards in
        shoe order: the cards already dealt (and ``drawn``, cards out of the
        device that were never dealt as such), each where the Table of Play
        says.  Only a clause of this game's ``[grants.reconstruct]`` puts
        cards back (MBS 5.7; No Commission and Tournament 5.2, 5.4; RWS 5.8,
        5.9)."""
        check_grant(self, "reconstruct", clause, role, required=required)
        self._check_no_option_open()
        Deal(tuple(cards))  # the Table of Play must accept them (raises otherwise)
        if Counter(cards) != Counter((*self.deal.cards, *drawn)):
            raise DealError(
                "a reconstruction puts the same cards back in their intended order",
                clause=clause,
                hint=f"the cards on the table are "
                f"{format_cards((*self.deal.cards, *drawn)) or 'none'}",
            )
        # what the record says of the order comes first: it decides wherever it can
        self.consult_record(CardsReconstructed(tuple(cards), clause, role))
        if self.phase is Phase.RESULT:
            self._check_decided_stand(cards, clause, role)

    def _check_decided_stand(self, cards: Sequence[Card], clause: str, role: Role) -> None:
        """Once the coup is complete every wager is decided: a reconstruction
        then may put cards right only where no wager's outcome changes (the
        cards are reconstructed "before play continues", MBS 5.7; RWS 5.9)."""
        after = type(self).replay(
            self.game,
            [*self.events, CardsReconstructed(tuple(cards), clause, role)],
            **self.options,
        )
        now, then = self.decided_bets(), after.decided_bets()
        changed = sorted(b for b, outcome in now.items() if then.get(b) != outcome)
        if changed:
            raise PhaseError(
                f"the coup is complete and the reconstruction would change the outcome of "
                f"{', '.join(changed)}: decided wagers stand on the cards dealt",
                clause=clause,
                hint="settle the round on the cards dealt; a reconstruction is made while "
                "the round is dealt",
            )

    def can_reconstruct(
        self,
        cards: Sequence[Card],
        clause: str,
        role: Role = Role.DEALER,
        *,
        drawn: Sequence[Card] = (),
        required: Role = Role.DEALER,
    ) -> bool:
        return can(
            lambda: self.check_reconstruct(cards, clause, role, drawn=drawn, required=required)
        )

    def reconstruct(
        self,
        cards: Sequence[Card],
        clause: str,
        role: Role = Role.DEALER,
        *,
        drawn: Sequence[Card] = (),
        required: Role = Role.DEALER,
    ) -> None:
        """Put the dealt cards back in their intended order (MBS 5.7, 5.8;
        RWS 1.24, 5.8, 5.9)."""
        self.check_reconstruct(cards, clause, role, drawn=drawn, required=required)
        self._emit(CardsReconstructed(tuple(cards), clause, role))

    def check_hold_for_next_round(
        self, cards: Sequence[Card], clause: str, role: Role = Role.DEALER
    ) -> None:
        """Why ``cards`` cannot be held for the next round now: they are cards
        out of the device during this coup's deal, by a Dealer or above."""
        self._check_role(role, Role.DEALER, "hold cards for the next round", clause)
        if self.phase not in (Phase.DEALING, Phase.RESULT):
            raise PhaseError(
                "cards are held for the next round when they come out of the device "
                "during the deal",
                clause=clause,
            )
        if not cards:
            raise ActionError("no card to hold for the next round", clause=clause)

    def can_hold_for_next_round(
        self, cards: Sequence[Card], clause: str, role: Role = Role.DEALER
    ) -> bool:
        return can(lambda: self.check_hold_for_next_round(cards, clause, role))

    def hold_for_next_round(
        self, cards: Sequence[Card], clause: str, role: Role = Role.DEALER
    ) -> None:
        """Cards out of the device that this coup does not use are "used in
        the next Round of play" (RWS 5.8): recorded here, in the order they
        came out, and dealt first in the next round by the live table."""
        self.check_hold_for_next_round(cards, clause, role)
        self._emit(CardsHeld(tuple(cards), clause, role))

    def check_reopen_betting(self, clause: str, role: Role = Role.DEALER) -> None:
        """Why betting may not be reopened under ``clause`` now: only a clause
        of this game's ``[grants.reopen_betting]`` reopens it (MBS 5.9)."""
        check_grant(self, "reopen_betting", clause, role)
        self._check_no_option_open()

    def can_reopen_betting(self, clause: str, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_reopen_betting(clause, role))

    def reopen_betting(self, clause: str, role: Role = Role.DEALER) -> None:
        """After a dealing-device reset (MBS 5.9): betting opens again and the
        cards of the interrupted deal are set aside."""
        self.check_reopen_betting(clause, role)
        self._emit(BettingReopened(clause, role))

    # -- settlement -------------------------------------------------------------------------

    def check_settle(self, role: Role = Role.DEALER) -> None:
        self._check_role(role, Role.DEALER, "settle the round", None)
        if self.phase is not Phase.RESULT:
            raise PhaseError(
                "the round is settled once the coup is complete"
                if self.phase is not Phase.SETTLED
                else "the round is already settled",
            )
        self._check_no_option_open()

    def can_settle(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_settle(role))

    def settle(self, role: Role = Role.DEALER) -> None:
        """Announce the outcome; collect and pay."""
        self.check_settle(role)
        self._emit(RoundSettled(role))

    def results(self) -> list[BetSettlement]:
        """Every bet's end: settled (win, lose, push), returned, withdrawn
        before 'No more bets', or void.  Available once the round is settled
        or void."""
        if self.phase is Phase.VOID:
            assert self._s.void is not None
            return [
                BetSettlement(
                    b,
                    "void" if b.status == "active" else b.status,
                    None,
                    Decimal(0),
                    Decimal(0),
                    self._s.void.clause if b.status == "active" else b.clause,
                )
                for b in self.bets
            ]
        if self.phase is not Phase.SETTLED:
            raise PhaseError("the round is not settled yet")
        coup = self.deal.to_coup()
        out = [
            BetSettlement(b, b.status, None, Decimal(0), Decimal(0), b.clause)
            for b in self.bets
            if b.status != "active"
        ]
        out.extend(self._settle_active(coup))
        out.sort(key=lambda s: s.bet.order)
        return out

    def nets(self) -> dict[str, Decimal]:
        """Each player's net money this round (sum of their bets' nets)."""
        out: dict[str, Decimal] = {p: Decimal(0) for p in self.players}
        for s in self.results():
            out[s.bet.player] += s.net
        return out

    def house_net(self) -> Decimal:
        """The house's net this round: what the players lost, less what they won."""
        return -sum(self.nets().values(), Decimal(0))

    def newly_under_minimum(self) -> set[str]:
        """Players whose under-minimum wager this round was paid or collected
        once (MBS 5.14); a push does not count."""
        if self.phase is not Phase.SETTLED:
            return set()
        return newly_under_minimum(
            self.game, ((s.bet.player, s.outcome, s.clause) for s in self.results())
        )

    def _settle_active(self, coup: Coup) -> list[BetSettlement]:
        stakes, clauses, returned = self._settled_stakes()
        out = []
        by_player: dict[str, list[TableBet]] = defaultdict(list)
        for bet in self.active_bets:
            if bet.bet_id in returned:
                out.append(
                    BetSettlement(
                        bet, "returned", None, Decimal(0), Decimal(0), returned[bet.bet_id]
                    )
                )
            else:
                by_player[bet.player].append(bet)
        for player_bets in by_player.values():
            bets = [Bet(b.wager, stakes[b.bet_id], b.moment) for b in player_bets]
            # Each Insurance bet was held to 3.11 and 3.12.2 when it was placed
            # (check_place_insurance), and its stake is now cut to the Original
            # Bet that stands (settled_stakes; docs/interpretations.md).
            settlement = settle(
                self.game,
                coup,
                bets,
                layout=self.layout,
                pair_rule=self.pair_rule,
                insurance_placed=True,
            )
            for bet, result in zip(player_bets, settlement.results, strict=True):
                out.append(
                    BetSettlement(
                        bet,
                        result.outcome.value,
                        result.event,
                        stakes[bet.bet_id],
                        result.net,
                        clauses.get(bet.bet_id),
                        result.pays,
                    )
                )
        return out

    def _settled_stakes(self) -> tuple[dict[str, Decimal], dict[str, str], dict[str, str]]:
        """The stake each active bet settles on, after the game's limit policies."""
        return settled_stakes(
            self.game,
            self.limits,
            self.active_bets,
            under_minimum_settled=self.under_minimum_settled,
        )
