"""A round of play at a live table, from "Place your bets, please" to the
last payment -- or to a void.

Each action comes as a trio, the way pokerkit models a table: ``check_x``
raises a typed error that says why the action is not allowed now (with the
clause), ``can_x`` answers yes or no, and ``x`` performs it by appending one
immutable event.  The round's state is a fold over its events: replaying the
same events gives the same round, which is how a crash is recovered and a
round audited.  The procedures for irregularities (sections 5 and 6 of the
rules) are built from these actions in :mod:`punto.table.irregularities`.

>>> from punto.games import get_game
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

import enum
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from decimal import ROUND_DOWN, Decimal
from typing import Any

from punto.cards import Card, format_cards, parse_cards
from punto.coup import Coup, Deal, Side
from punto.errors import (
    ActionError,
    BettingClosedError,
    DealError,
    InsuranceError,
    LimitError,
    PhaseError,
    PuntoError,
    can,
)
from punto.established import decided
from punto.game import Game
from punto.insurance import InsuranceOffer, Moment, completions, insurance_event, moment_of
from punto.money import CENT, format_money
from punto.settlement import Bet, settle
from punto.table.bet_limits import (
    box_excess,
    check_bet_limits,
    check_position,
    check_table_limits,
    excess_cuts,
    newly_under_minimum,
    settled_stakes,
)
from punto.table.events import (
    BetPlaced,
    BetReduced,
    BetReturned,
    BetsClosed,
    BettingReopened,
    BetWithdrawn,
    CardDealt,
    CardsHeld,
    CardsReconstructed,
    Event,
    HandlingEvent,
    InsurancePlaced,
    InsuranceReoffered,
    InsuranceWaived,
    IrregularityNoted,
    PlayerWithdrew,
    PowerFailed,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    WithdrawalClosed,
    WithdrawalOffered,
)
from punto.table.facts import facts_of
from punto.table.grants import check_grant
from punto.table.insurance_rules import check_waiver, no_offer_refusal
from punto.table.limits import TableLimits, differential_of
from punto.table.roles import Role
from punto.wagers import PairRule

__all__ = [
    "ORIGINAL_BETS",
    "BetSettlement",
    "Phase",
    "Round",
    "TableBet",
    "deal_after",
    "parse_cards",
]


class Phase(enum.Enum):
    NEW = "new"
    BETTING = "betting"
    DEALING = "dealing"
    RESULT = "result"
    SETTLED = "settled"
    VOID = "void"


#: The wagers of the Original Bet (RWS 1.16): the Player and Banker hands.
ORIGINAL_BETS = frozenset({Side.PLAYER.value, Side.BANKER.value})

#: The phases in which a round is in play (opened, not yet settled or void).
IN_PLAY = (Phase.BETTING, Phase.DEALING, Phase.RESULT)


@dataclass(frozen=True, slots=True)
class TableBet:
    """A wager on the layout: whose, where, and what became of it."""

    bet_id: str
    player: str
    position: int
    wager: str
    stake: Decimal
    seated: bool = True
    moment: Moment | None = None
    order: int = 0
    #: "active", "withdrawn" (before No more bets), "returned" (an option or a void)
    status: str = "active"
    #: the clause under which it was withdrawn, reduced away or returned
    clause: str | None = None
    #: an Insurance bet placed on a neglected offer made again (RWS 5.14.1)
    late: bool = False


@dataclass(frozen=True, slots=True)
class BetSettlement:
    """How one bet ended.  ``settled_stake`` is the stake it won or lost on
    after the limit policies (5.14, 5.15; RWS 5.1)."""

    bet: TableBet
    outcome: str  # win / lose / push / returned / withdrawn / void
    event: str | None
    settled_stake: Decimal
    net: Decimal
    clause: str | None = None


@dataclass
class _State:
    phase: Phase = Phase.NEW
    round_id: str = ""
    bets: dict[str, TableBet] = field(default_factory=dict)
    deal: Deal = field(default_factory=Deal)
    withdrawal: WithdrawalOffered | None = None
    withdrawn_players: set[str] = field(default_factory=set)
    insurance_waived: bool = False
    late_insurance: InsuranceReoffered | None = None
    power_failed: bool = False
    irregularities: list[IrregularityNoted] = field(default_factory=list)
    void: RoundVoided | None = None
    orders: int = 0
    held: tuple[Card, ...] = ()


def deal_after(deal: Deal, event: Event) -> Deal:
    """The cards of a round once ``event`` is applied to ``deal``: a card dealt,
    the cards reconstructed (MBS 5.7, 5.8; RWS 5.8), or the deal set aside when
    betting reopens (MBS 5.9); any other event leaves them as they are."""
    match event:
        case CardDealt(card=card):
            return deal.add(card)
        case CardsReconstructed(cards=cards):
            return Deal(cards)
        case BettingReopened():
            return Deal()
        case _:
            return deal


class Round:
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

    def __init__(
        self,
        game: Game,
        *,
        limits: TableLimits,
        layout: str | None = None,
        pair_rule: PairRule | None = None,
        insurance_offered: bool = True,
        electronic_device: bool = False,
        face_down: bool = False,
        under_minimum_settled: Iterable[str] = (),
        on_event: Callable[[Event], None] | None = None,
        round_id: str = "",
        check_events: Callable[[Round, Sequence[Event]], None] | None = None,
    ) -> None:
        self.game = game
        self.layout = game.check_layout(layout)
        check_table_limits(game, limits)
        self.limits = limits
        self.pair_rule = pair_rule or game.pair_rule
        #: False at a private table that displays the no-insurance notice (RWS 4.2.2)
        self.insurance_offered = insurance_offered and game.insurance is not None
        #: the facts of the table some clauses are conditioned on (MBS 5.9: an
        #: electronic dealing device in use; RWS 5.10: cards dealt face down)
        self.table_facts = facts_of(electronic_device=electronic_device, face_down=face_down)
        self.under_minimum_settled = frozenset(under_minimum_settled)
        self.on_event = on_event
        self.check_events = check_events
        self.events: list[Event] = []
        self._s = _State(round_id=round_id)
        self._checked = False

    # -- the fold -------------------------------------------------------------

    @classmethod
    def replay(cls, game: Game, events: Sequence[Event], **options: Any) -> Round:
        """The round these events describe, folded again from the start."""
        round_ = cls(game, **options)
        for event in events:
            round_._apply(event)
            round_.events.append(event)
        return round_

    @property
    def options(self) -> dict[str, Any]:
        """The table options this round was made with (for :meth:`replay`)."""
        return {
            "limits": self.limits,
            "layout": self.layout,
            "pair_rule": self.pair_rule,
            "insurance_offered": self.insurance_offered,
            "electronic_device": "electronic_device" in self.table_facts,
            "face_down": "face_down" in self.table_facts,
            "under_minimum_settled": self.under_minimum_settled,
            "round_id": self.round_id,
        }

    def fork(self) -> Round:
        """A copy of this round that persists nothing: try a procedure on it
        first, and only if it goes through, on the round itself."""
        return Round.replay(self.game, self.events, **self.options)

    def vet(self, events: Sequence[Event]) -> None:
        """Refuse ``events`` (about to be written, in order) if the table the
        round is played at does; nothing is written either way."""
        if self.check_events is not None and events:
            self.check_events(self, events)

    @contextmanager
    def checked(self) -> Iterator[None]:
        """Emit events already vetted as a whole (:meth:`vet`), without
        vetting them one by one again."""
        before, self._checked = self._checked, True
        try:
            yield
        finally:
            self._checked = before

    def record_handling(self, event: HandlingEvent) -> None:
        """Append a card-handling event (MBS 3.9-3.12).  The checks of its
        clause are :mod:`punto.table.handling`'s, which calls this once they
        pass; the event changes no money and no phase."""
        self._emit(event)

    def _emit(self, event: Event) -> None:
        if not self._checked:
            self.vet((event,))
        if self.on_event is not None:
            self.on_event(event)  # persist first: a failure leaves the state unchanged
        self._apply(event)
        self.events.append(event)

    def _apply(self, event: Event) -> None:
        s = self._s
        match event:
            case RoundOpened(round_id=round_id):
                s.phase, s.round_id = Phase.BETTING, round_id or s.round_id
            case BetPlaced() | InsurancePlaced():
                s.orders += 1
                moment = event.moment if isinstance(event, InsurancePlaced) else None
                late = (
                    moment is not None
                    and s.late_insurance is not None
                    and s.late_insurance.moment is moment
                    and moment_of(s.deal) is not moment
                )
                s.bets[event.bet_id] = TableBet(
                    event.bet_id,
                    event.player,
                    event.position,
                    event.wager,
                    event.stake,
                    event.seated,
                    moment,
                    s.orders,
                    late=late,
                )
            case BetWithdrawn(bet_id=bet_id):
                s.bets[bet_id] = replace(s.bets[bet_id], status="withdrawn")
            case BetReduced(bet_id=bet_id, stake=stake, clause=clause):
                bet = s.bets[bet_id]
                s.bets[bet_id] = (
                    replace(bet, stake=stake)
                    if stake
                    else replace(bet, status="withdrawn", clause=clause)
                )
            case BetReturned(bet_id=bet_id, clause=clause):
                s.bets[bet_id] = replace(s.bets[bet_id], status="returned", clause=clause)
            case BetsClosed():
                s.phase = Phase.DEALING
            case CardDealt():
                s.deal = deal_after(s.deal, event)
                s.late_insurance = None  # the next card closes any offer (RWS 5.3)
                if s.deal.is_complete:
                    s.phase = Phase.RESULT
            case CardsHeld(cards=cards):
                s.held += cards
            case CardsReconstructed():
                s.deal = deal_after(s.deal, event)
                s.late_insurance = None
                s.phase = Phase.RESULT if s.deal.is_complete else Phase.DEALING
            case BettingReopened():
                s.phase, s.deal, s.withdrawal = Phase.BETTING, deal_after(s.deal, event), None
                s.late_insurance = None
            case InsuranceWaived():
                s.insurance_waived = True
            case InsuranceReoffered():
                s.late_insurance = event
            case PowerFailed():
                s.power_failed = True
            case IrregularityNoted():
                s.irregularities.append(event)
            case WithdrawalOffered():
                s.withdrawal = event
            case PlayerWithdrew(player=player):
                s.withdrawn_players.add(player)
                option = s.withdrawal.clause if s.withdrawal is not None else None
                # Only wagers still undecided come back: one the cards have
                # won or lost stays and settles (docs/interpretations.md, "Grants").
                for bet in self.undecided_bets(player):
                    s.bets[bet.bet_id] = replace(bet, status="returned", clause=option)
            case WithdrawalClosed():
                s.withdrawal = None
            case RoundVoided():
                s.void, s.phase, s.withdrawal, s.late_insurance = event, Phase.VOID, None, None
            case RoundSettled():
                s.phase = Phase.SETTLED
            case HandlingEvent():
                pass  # who handles the cards moves no money: folded by punto.table.handling
            case _:
                raise ActionError(f"unknown event {event!r}")

    # -- what the state shows ----------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._s.phase

    @property
    def round_id(self) -> str:
        return self._s.round_id

    @property
    def deal(self) -> Deal:
        return self._s.deal

    @property
    def bets(self) -> list[TableBet]:
        return list(self._s.bets.values())

    @property
    def active_bets(self) -> list[TableBet]:
        return [b for b in self._s.bets.values() if b.status == "active"]

    @property
    def players(self) -> list[str]:
        """Everyone who has placed a bet this round, in order of first bet."""
        return list(dict.fromkeys(b.player for b in self._s.bets.values()))

    @property
    def withdrawal_open(self) -> WithdrawalOffered | None:
        return self._s.withdrawal

    @property
    def late_insurance(self) -> InsuranceReoffered | None:
        """A neglected Insurance offer made again, while it is open (RWS 5.14.1)."""
        return self._s.late_insurance

    @property
    def insurance_waived(self) -> bool:
        return self._s.insurance_waived

    @property
    def power_failed(self) -> bool:
        return self._s.power_failed

    @property
    def irregularities(self) -> list[IrregularityNoted]:
        return list(self._s.irregularities)

    @property
    def void(self) -> RoundVoided | None:
        return self._s.void

    @property
    def held(self) -> tuple[Card, ...]:
        """Cards out of the device this round that the coup does not use,
        held for the next round (RWS 5.8), in the order they came out."""
        return self._s.held

    def totals(self) -> dict[str, Decimal]:
        """Active stakes per wager."""
        out: dict[str, Decimal] = defaultdict(Decimal)
        for bet in self.active_bets:
            out[bet.wager] += bet.stake
        return dict(out)

    def differential(self) -> Decimal:
        return differential_of(self.totals())

    def decided(self) -> dict[str, str | None]:
        """Every wager offered at this table that the cards so far have decided."""
        key = (id(self.game), self.layout, self.pair_rule, self.deal.cards)
        cached = _DECIDED.get(key)
        if cached is None or cached[0] is not self.game:
            if len(_DECIDED) >= _DECIDED_SIZE:
                _DECIDED.clear()
            found = decided(self.game, self.deal, layout=self.layout, pair_rule=self.pair_rule)
            cached = _DECIDED[key] = (self.game, found)
        return dict(cached[1])

    def decided_bets(self) -> dict[str, str | None]:
        """The bets in play whose result the cards so far already tell:
        bet id -> event (None: it has lost)."""
        wagers = self.decided()
        out: dict[str, str | None] = {}
        for bet in self.active_bets:
            if bet.moment is None:
                if bet.wager in wagers:
                    out[bet.bet_id] = wagers[bet.wager]
                continue
            offer = self._insurance_offer_at(bet.wager, bet.moment)
            if offer is None:
                continue
            events = {insurance_event(coup, offer) for coup in completions(self.deal)}
            if len(events) == 1:
                out[bet.bet_id] = events.pop()
        return out

    def outcome_established(self, wagers: Collection[str] | None = None) -> bool:
        """Whether any of the wagers in play this round has conclusively won
        or lost, computed from the cards (MBS 5.17; RWS 5.4, 5.8.1, 5.10).
        ``wagers``: only bets on these wagers count (RWS 5.14: the Original
        Bets on the Player and Banker hands).

        "The available wagers" are read as the wagers the players have on
        the layout: a wager nobody placed can neither win nor lose anything.
        """
        found = self.decided_bets()
        if wagers is None:
            return bool(found)
        return any(self._s.bets[bet_id].wager in wagers for bet_id in found)

    def insured_outcome_established(self) -> bool:
        """RWS 5.14: whether the cards have decided the Original Bets on the
        Player and Banker hands -- what Insurance insures -- so that a
        neglected offer is remedied by 5.14.2, not made again (5.14.1).
        Other wagers (a pair decided by the fourth card) do not count."""
        return self.outcome_established(ORIGINAL_BETS)

    def undecided_bets(self, player: str) -> list[TableBet]:
        """``player``'s bets in play whose result the cards do not tell yet:
        what a withdrawal option returns."""
        found = self.decided_bets()
        return [b for b in self.active_bets if b.player == player and b.bet_id not in found]

    def granted(self, procedure: str, role: Role) -> list[str]:
        """The clauses of this game under which ``role`` may take
        ``procedure`` (``withdrawal``, ``void``, ``return_bet``,
        ``reopen_betting``) now, their conditions met: what a console or a
        server offers, instead of a free-text clause."""
        out = []
        for clause in self.game.granting(procedure):
            try:
                check_grant(self, procedure, clause, role)
            except PuntoError:
                continue
            out.append(clause)
        return out

    def _clause(self, name: str) -> str | None:
        return self.game.clause(name)

    def _check_role(self, role: Role, required: Role, action: str, clause: str | None) -> None:
        role.check_acts_as(required, action, clause)

    def _check_in_play(self, action: str, clause: str | None = None) -> None:
        if self.phase not in IN_PLAY:
            raise PhaseError(
                f"cannot {action}: the round is {self.phase.value}"
                + ("; previous rounds stand" if self.phase is not Phase.NEW else ""),
                clause=clause,
            )

    def _check_no_option_open(self) -> None:
        if self._s.withdrawal is not None:
            raise PhaseError(
                "players are being given the option to withdraw",
                clause=self._s.withdrawal.clause,
                hint="close the withdrawal option first",
            )

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
            self.active_bets,
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
            raise ActionError(
                f"under the option of {option.clause} a player withdraws {which} or none, "
                f"not one wager ({bet_id})",
                clause=option.clause,
                hint=f"take the option for {bet.player} (withdraw_player), or play on",
            )
        if self.phase is not Phase.BETTING:
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

    def _bet(self, bet_id: str) -> TableBet:
        try:
            return self._s.bets[bet_id]
        except KeyError:
            raise ActionError(f"no bet {bet_id!r} in this round") from None

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

    # -- Insurance Plus --------------------------------------------------------------------

    def insurance_offers(self) -> list[InsuranceOffer]:
        """The Insurance Plus offers open now (RWS 3.12, 4.1.15)."""
        if not self.insurance_offered or self.phase is not Phase.DEALING:
            return []
        moment = moment_of(self.deal)
        if moment is None or (moment is Moment.PLAYER_THIRD_CARD and self._s.insurance_waived):
            return []
        assert self.game.insurance is not None
        return self.game.insurance.offers(self.deal)

    def missed_insurance_offers(self, moment: Moment) -> list[InsuranceOffer]:
        """The offers that were open at ``moment``, if that moment has passed
        (the next card is out): what a Dealer who neglected to offer Insurance
        left out (RWS 5.14)."""
        if not self.insurance_offered or len(self.deal.cards) <= moment.cards:
            return []
        then = Deal(self.deal.cards[: moment.cards])
        if moment_of(then) is not moment:
            return []
        if moment is Moment.PLAYER_THIRD_CARD and self._s.insurance_waived:
            return []
        assert self.game.insurance is not None
        return self.game.insurance.offers(then)

    def _insurance_offer_at(self, wager: str, moment: Moment) -> InsuranceOffer | None:
        if self.game.insurance is None or len(self.deal.cards) < moment.cards:
            return None
        side = self.game.wager(wager, self.layout).insures
        then = Deal(self.deal.cards[: moment.cards])
        return next((o for o in self.game.insurance.offers(then) if o.insures is side), None)

    def original_bet(self, player: str, side: Side) -> Decimal:
        """The player's Original Bet on ``side`` (RWS 1.16), active stakes."""
        return sum(
            (b.stake for b in self.active_bets if b.player == player and b.wager == side.value),
            Decimal(0),
        )

    def insurance_cap(self, player: str, offer: InsuranceOffer) -> Decimal:
        """What ``player`` may still stake on ``offer`` (3.12.2)."""
        assert self.game.insurance is not None
        already = sum(
            (
                b.stake
                for b in self.active_bets
                if b.player == player
                and b.moment is offer.moment
                and b.wager == f"{offer.insures.value}_insurance"
            ),
            Decimal(0),
        )
        return self.game.insurance.max_stake(
            offer, self.original_bet(player, offer.insures), already, self.limits.maximum
        )

    def late_insurance_cap(self, player: str, offer: InsuranceOffer) -> Decimal:
        """What ``player`` may still stake on a neglected offer made again
        (RWS 5.14.1): the total *payout* of the Insurance bets so placed on a
        hand may not exceed the Original Bet on it -- stricter than the stake
        cap of 3.12.2, which applies as well."""
        original = self.original_bet(player, offer.insures)
        paid = Decimal(0)
        for b in self.active_bets:
            if b.player == player and b.late and b.wager == f"{offer.insures.value}_insurance":
                assert b.moment is not None
                late_offer = self._insurance_offer_at(b.wager, b.moment)
                assert late_offer is not None
                paid += _payout(b.stake, late_offer)
        room = max(Decimal(0), original - paid)
        by_payout = (room * offer.odds.denominator / offer.odds.numerator).quantize(
            CENT, rounding=ROUND_DOWN
        )
        return min(by_payout, self.insurance_cap(player, offer))

    def check_place_insurance(
        self, player: str, wager: str, stake: Decimal, moment: Moment | None = None
    ) -> None:
        if not self.insurance_offered:
            raise InsuranceError(
                "no Insurance is offered at this table",
                # a private table's notice (RWS 4.2.2), or a game without Insurance
                clause=self._clause("no_insurance_notice") or self.game.layout_clause,
            )
        chosen = self.game.wager(wager, self.layout)
        if chosen.insures is None:
            raise InsuranceError(
                f"{wager} is not an Insurance Plus bet",
                clause=self._clause("insurance_moments"),
                hint="place it while betting is open; Insurance is player_insurance or "
                "banker_insurance",
            )
        self._check_no_option_open()
        current = moment_of(self.deal) if self.phase is Phase.DEALING else None
        if moment is not None and moment is not current:
            self._check_late_insurance(player, chosen.insures, stake, moment)
            return
        offers = [o for o in self.insurance_offers() if o.insures is chosen.insures]
        if not offers:
            raise InsuranceError(
                f"no {chosen.name} is offered now", **no_offer_refusal(self, chosen.insures)
            )
        cap = self.insurance_cap(player, offers[0])
        if stake <= 0 or stake > cap or stake % CENT:
            raise InsuranceError(
                f"{player} may stake at most {format_money(cap)} on {chosen.name} now",
                clause="3.11, 3.12.2",
                hint="Insurance needs an Original Bet on the hand and may not exceed it "
                "(nor, at 10 to 1, a quarter of the table maximum)",
            )

    def _check_late_insurance(self, player: str, side: Side, stake: Decimal, when: Moment) -> None:
        late = self._s.late_insurance
        if late is None or late.moment is not when or self.phase is not Phase.DEALING:
            raise InsuranceError(
                f"Insurance {when.words} is no longer offered",
                clause=self._clause("insurance_forfeit") or "5.3",
                hint="a player who has not bet before the next card is drawn has forgone it; "
                "an offer the Dealer neglected is made again only by a Pit Manager (5.14.1)",
            )
        if player not in late.players:
            raise InsuranceError(
                f"the neglected offer {when.words} is made again to "
                f"{', '.join(late.players)}, not to {player}",
                clause=late.clause,
            )
        offer = next((o for o in self.missed_insurance_offers(when) if o.insures is side), None)
        if offer is None:
            raise InsuranceError(
                f"no {side.value} insurance was offered {when.words}", clause=late.clause
            )
        cap = self.late_insurance_cap(player, offer)
        if stake <= 0 or stake > cap or stake % CENT:
            raise InsuranceError(
                f"{player} may stake at most {format_money(cap)} on {side.value} insurance "
                f"{when.words} now",
                clause=late.clause,
                hint="the total payout on Insurance bets offered again may not exceed the "
                "Original Bet",
            )

    def can_place_insurance(
        self, player: str, wager: str, stake: Decimal, moment: Moment | None = None
    ) -> bool:
        return can(lambda: self.check_place_insurance(player, wager, stake, moment))

    def place_insurance(
        self,
        player: str,
        wager: str,
        stake: Decimal,
        *,
        moment: Moment | None = None,
        role: Role = Role.PLAYER,
        bet_id: str | None = None,
    ) -> str:
        """An Insurance Plus bet on the open offer; a player who has not
        answered before the next card is drawn has forgone it (RWS 5.3).
        ``moment``: the neglected moment of an offer made again (5.14.1)."""
        self.check_place_insurance(player, wager, stake, moment)
        moment = moment or moment_of(self.deal)
        assert moment is not None
        position, seated = next(
            ((b.position, b.seated) for b in self.active_bets if b.player == player), (1, True)
        )
        bet_id = bet_id or f"b{self._s.orders + 1}"
        if bet_id in self._s.bets:
            raise ActionError(f"bet id {bet_id!r} is taken")
        self._emit(InsurancePlaced(bet_id, player, position, wager, stake, moment, seated, role))
        return bet_id

    def check_waive_insurance(
        self, role: Role = Role.DEALER, *, requester: str | None = None
    ) -> None:
        """Why the House may not consent now to the highest bettor squeezing
        (or having exposed) the Banker's third card first (RWS 3.14); see
        :func:`punto.table.insurance_rules.check_waiver`."""
        check_waiver(self, role, requester)

    def can_waive_insurance(
        self, role: Role = Role.DEALER, *, requester: str | None = None
    ) -> bool:
        return can(lambda: self.check_waive_insurance(role, requester=requester))

    def waive_insurance(
        self, reason: str, role: Role = Role.DEALER, *, requester: str | None = None
    ) -> None:
        """RWS 3.14: the highest bettor squeezes the Banker's third card first,
        or has it exposed first -- Insurance after the Player's third card is
        waived for everyone this round."""
        self.check_waive_insurance(role, requester=requester)
        if requester is not None:
            reason = f"{reason} (requested by {requester})"
        self._emit(InsuranceWaived(reason, role))

    def check_reoffer_insurance(
        self, moment: Moment, players: Sequence[str], role: Role = Role.PIT_MANAGER
    ) -> None:
        clause = self._clause("insurance_forgotten_open")
        if clause is None or self.game.insurance is None:
            raise ActionError(
                f"{self.game.title} has no Insurance",
                clause=self.game.layout_clause,  # the wagers it offers
            )
        self._check_role(role, Role.PIT_MANAGER, "offer a neglected Insurance again", clause)
        if not self.insurance_offered:
            raise InsuranceError(
                "no Insurance is offered at this table",
                clause=self._clause("no_insurance_notice"),
                hint="players at a table with the notice accepted that none is offered",
            )
        if self.phase is not Phase.DEALING:
            raise PhaseError("Insurance is offered again while the coup is dealt", clause=clause)
        self._check_no_option_open()
        if self.insured_outcome_established():
            raise PhaseError(
                "an outcome is established (the Player and Banker hands are decided): "
                "a neglected Insurance is not offered again",
                clause=clause,
                hint="return the Original Bet of players whose Insurance would have won "
                f"({self._clause('insurance_forgotten_established')})",
            )
        offers = self.missed_insurance_offers(moment)
        if not offers:
            raise InsuranceError(
                f"no Insurance offer {moment.words} was missed",
                clause=clause,
                hint="an open offer is taken as it stands; only a moment that has passed "
                "is offered again",
            )
        sides = {o.insures for o in offers}
        affected = [p for p in self.players if any(self.original_bet(p, side) for side in sides)]
        if not players or any(p not in affected for p in players):
            raise InsuranceError(
                f"the players affected by the neglected offer {moment.words} are "
                f"{', '.join(affected) or 'none'}",
                clause=clause,
                hint="Insurance insures an Original Bet on the hand offered",
            )

    def can_reoffer_insurance(
        self, moment: Moment, players: Sequence[str], role: Role = Role.PIT_MANAGER
    ) -> bool:
        return can(lambda: self.check_reoffer_insurance(moment, players, role))

    def reoffer_insurance(
        self, moment: Moment, players: Sequence[str], role: Role = Role.PIT_MANAGER
    ) -> None:
        """RWS 5.14.1: a Pit Manager offers a neglected Insurance to the
        affected players before play continues; they bet with
        ``place_insurance(..., moment=moment)``."""
        self.check_reoffer_insurance(moment, players, role)
        clause = self._clause("insurance_forgotten_open") or ""
        self._emit(InsuranceReoffered(moment, tuple(players), clause, role))

    # -- withdrawal options ------------------------------------------------------------------

    def check_offer_withdrawal(self, clause: str, role: Role = Role.DEALER) -> None:
        """Why players may not be given the option to withdraw under
        ``clause`` now: only a clause of this game's ``[grants.withdrawal]``
        gives it, with its conditions met (:mod:`punto.table.grants`)."""
        check_grant(self, "withdrawal", clause, role)
        if self._s.withdrawal is not None:
            raise PhaseError(
                "a withdrawal option is already open", clause=self._s.withdrawal.clause
            )

    def can_offer_withdrawal(self, clause: str, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_offer_withdrawal(clause, role))

    def offer_withdrawal(self, clause: str, reason: str, role: Role = Role.DEALER) -> None:
        """Give every player the option to withdraw their wagers still
        undecided (all of them, where the clause applies only when none is)."""
        self.check_offer_withdrawal(clause, role)
        self._emit(WithdrawalOffered(clause, reason, role))

    def check_withdraw_player(self, player: str) -> None:
        if self._s.withdrawal is None:
            raise BettingClosedError(
                "no withdrawal option is open",
                clause=self._clause("late_withdrawal"),
                hint="after 'No more bets' wagers win or lose on the outcome",
            )
        if not self.undecided_bets(player):
            decided = any(b.player == player for b in self.active_bets)
            raise ActionError(
                f"the cards have decided every wager of {player}: they win or lose on the outcome"
                if decided
                else f"{player} has no wager to withdraw",
                clause=self._s.withdrawal.clause,
                hint="a withdrawal option returns only wagers still undecided",
            )

    def can_withdraw_player(self, player: str) -> bool:
        return can(lambda: self.check_withdraw_player(player))

    def withdraw_player(self, player: str, role: Role = Role.PLAYER) -> None:
        """The player takes the option: all their wagers still undecided are
        returned; those the cards have decided settle."""
        self.check_withdraw_player(player)
        self._emit(PlayerWithdrew(player, role))

    def check_close_withdrawal(self, role: Role = Role.DEALER) -> None:
        self._check_role(role, Role.DEALER, "close the withdrawal option", None)
        if self._s.withdrawal is None:
            raise PhaseError("no withdrawal option is open")

    def can_close_withdrawal(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_close_withdrawal(role))

    def close_withdrawal(self, role: Role = Role.DEALER) -> None:
        self.check_close_withdrawal(role)
        self._emit(WithdrawalClosed(role))

    # -- irregularities that end, interrupt or mark the round ---------------------------------

    def check_note_irregularity(
        self, clause: str, role: Role = Role.DEALER, *, required: Role = Role.DEALER
    ) -> None:
        self._check_role(role, required, "deal with this irregularity", clause)
        self._check_in_play("record an irregularity", clause)

    def can_note_irregularity(
        self, clause: str, role: Role = Role.DEALER, *, required: Role = Role.DEALER
    ) -> bool:
        return can(lambda: self.check_note_irregularity(clause, role, required=required))

    def note_irregularity(
        self, clause: str, reason: str, role: Role = Role.DEALER, *, required: Role = Role.DEALER
    ) -> None:
        """Record an irregularity and what was done about it."""
        self.check_note_irregularity(clause, role, required=required)
        self._emit(IrregularityNoted(clause, reason, role))

    def check_return_bet(self, bet_id: str, clause: str, role: Role = Role.PIT_MANAGER) -> None:
        """Why bet ``bet_id`` may not be returned under ``clause`` now: only a
        clause of this game's ``[grants.return_bet]`` returns one, with its
        conditions met."""
        bet = self._bet(bet_id)
        check_grant(self, "return_bet", clause, role, bet=bet)
        if bet.status != "active":
            raise ActionError(f"bet {bet_id} is already {bet.status}", clause=clause)
        insured = [
            b.bet_id
            for b in self.active_bets
            if b.player == bet.player and b.wager == f"{bet.wager}_insurance"
        ]
        # Insurance insures an Original Bet (RWS 3.11): returning the Original
        # Bet alone would leave an Insurance bet with nothing to insure.  RWS
        # 5.14.2 says what to return itself, and an Insurance bet placed before
        # it settles as placed (docs/interpretations.md, limits by area and box).
        if insured and clause != self._clause("insurance_forgotten_established"):
            raise ActionError(
                f"{bet.player}'s Insurance {', '.join(insured)} insures bet {bet_id}",
                clause=self._clause("insurance_original") or clause,
                hint="return the Insurance bets on that hand first",
            )

    def can_return_bet(self, bet_id: str, clause: str, role: Role = Role.PIT_MANAGER) -> bool:
        return can(lambda: self.check_return_bet(bet_id, clause, role))

    def return_bet(
        self, bet_id: str, clause: str, reason: str, role: Role = Role.PIT_MANAGER
    ) -> None:
        """Return one bet in play (RWS 5.14.2, or a Shift Manager's decision:
        MBS 6.1, RWS 5.19)."""
        self.check_return_bet(bet_id, clause, role)
        self._emit(BetReturned(bet_id, clause, reason, role))

    def check_void(
        self,
        role: Role,
        clause: str,
        *,
        required: Role = Role.DEALER,
        settled: bool = False,
    ) -> None:
        """Why the round may not be voided under ``clause`` now: only a clause
        of this game's ``[grants.void]`` voids it, with its conditions met;
        ``required`` is a higher position the caller asks for.  ``settled``:
        the caller means to void a round already settled, which only a clause
        granting it in the settled phase does, if it is noticed before the
        next round commences (MBS 5.2 of No Commission and Tournament; RWS
        5.5.3)."""
        if self.phase is Phase.SETTLED and not settled and self.game.grant("void", clause):
            self._check_role(role, required, "void the round", clause)
            raise PhaseError("the round is settled; previous rounds stand", clause=clause)
        check_grant(self, "void", clause, role, required=required)

    def can_void(
        self, role: Role, clause: str, *, required: Role = Role.DEALER, settled: bool = False
    ) -> bool:
        return can(lambda: self.check_void(role, clause, required=required, settled=settled))

    def void_round(
        self,
        reason: str,
        clause: str,
        role: Role = Role.DEALER,
        *,
        required: Role = Role.DEALER,
        settled: bool = False,
    ) -> None:
        """Void the round: every bet is returned; previous rounds stand."""
        self.check_void(role, clause, required=required, settled=settled)
        self._emit(RoundVoided(reason, clause, role))

    def check_power_failure(self, role: Role = Role.DEALER) -> None:
        clause = self._clause("power_failure")
        self._check_role(role, Role.DEALER, "declare a power failure", clause)
        if self.phase not in IN_PLAY:
            raise PhaseError("no round is in play", clause=clause)

    def can_power_failure(self, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_power_failure(role))

    def power_failure(self, role: Role = Role.DEALER) -> str:
        """A power failure (MBS 5.17; RWS 5.4): ``PowerFailed``, then its
        consequence.  With an outcome established play continues; without
        one, MBS gives each player the option to withdraw all their wagers
        (``WithdrawalOffered``; an option already open serves) and RWS voids
        the round (``RoundVoided``).  Rules with no such clause (Tiger No
        Commission, Baccarat Tournament) change nothing: play continues.
        Returns what followed: ``continue``, ``withdrawal`` or ``void``."""
        self.check_power_failure(role)
        established = self.phase is Phase.RESULT or self.outcome_established()
        self._emit(PowerFailed(role))
        policy = self.game.limit_policy("power_failure")
        if established or policy is None:
            return "continue"
        clause = self._clause("power_failure") or ""
        reason = "power failure with no outcome established"
        if policy == "void-unless-established":
            self._emit(RoundVoided(reason, self._clause("power_failure_void") or clause, role))
            return "void"
        if self._s.withdrawal is None:
            self._emit(
                WithdrawalOffered(self._clause("power_failure_withdraw") or clause, reason, role)
            )
        return "withdrawal"

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
            # (check_place_insurance); it settles as placed (docs/interpretations.md).
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


#: What the cards decide, by game, layout, pair rule and cards: the search
#: takes a quarter of a second on the first cards of a coup, and the fold of
#: a withdrawal, the grants and the live table ask it again and again.  The
#: game is kept in the value so that its id is not reused while cached.
_DECIDED: dict[
    tuple[int, str | None, PairRule, tuple[Card, ...]], tuple[Game, dict[str, str | None]]
] = {}
_DECIDED_SIZE = 4096


def _payout(stake: Decimal, offer: InsuranceOffer) -> Decimal:
    """What an Insurance bet of ``stake`` on ``offer`` pays if it wins."""
    return stake * offer.odds.numerator / offer.odds.denominator
