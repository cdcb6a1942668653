"""The fold of a round: its events, the state built from them, and what that
state shows (:class:`punto.table.round.Round` is built on it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from decimal import Decimal
from typing import Any, Self

from punto.errors import (
    ActionError,
    PhaseError,
    PuntoError,
)
from punto.rules.cards import Card
from punto.rules.coup import Deal
from punto.rules.established import decided
from punto.rules.game import Game
from punto.rules.insurance import InsuranceOffer, Moment, completions, insurance_event, moment_of
from punto.rules.wagers import PairRule
from punto.table.bet_limits import (
    check_table_limits,
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
    ClaimConfirmed,
    ClaimRejected,
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
    RulingClaimed,
    WithdrawalClosed,
    WithdrawalOffered,
)
from punto.table.facts import facts_of
from punto.table.grants import check_grant
from punto.table.limits import TableLimits, differential_of
from punto.table.roles import Role
from punto.table.round_state import (
    IN_PLAY,
    ORIGINAL_BETS,
    Phase,
    RoundState,
    TableBet,
    deal_after,
)


class RoundCore:
    """A round's events and the state folded from them, with what the state
    shows; :class:`punto.table.round.Round` adds the actions."""

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
        check_events: Callable[[Self, Sequence[Event]], None] | None = None,
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
        #: the table's record, asked of each event as it is made, copies included
        #: (:mod:`punto.table.record`): a claim it contradicts is refused first
        self.check_claim: Callable[[Self, Event], None] | None = None
        self.events: list[Event] = []
        self._s = RoundState(round_id=round_id)
        self._checked = False

    # -- the fold -------------------------------------------------------------

    @classmethod
    def replay(cls, game: Game, events: Sequence[Event], **options: Any) -> Self:
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

    def fork(self) -> Self:
        """A copy of this round that persists nothing: try a procedure on it
        first, and only if it goes through, on the round itself.  The copy asks
        the table's record of each claim as the round would."""
        copy = type(self).replay(self.game, self.events, **self.options)
        copy.check_claim = self.check_claim
        return copy

    def consult_record(self: Self, event: Event) -> None:
        """Refuse ``event`` if the table's record contradicts the claim it makes."""
        if self.check_claim is not None:
            self.check_claim(self, event)

    def vet(self: Self, events: Sequence[Event]) -> None:
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

    def record_claim(self, event: RulingClaimed | ClaimConfirmed | ClaimRejected) -> None:
        """Append a claim, its confirmation or its rejection.  The checks are
        :mod:`punto.table.claims`'s, which calls this once they pass; here
        only that a claim is filed while none is pending, and confirmed or
        rejected while it is."""
        pending = self._s.claim
        if isinstance(event, RulingClaimed):
            self.check_no_claim_pending()
        elif pending is None or pending.claim_id != event.claim_id:
            raise PhaseError(f"claim {event.claim_id} is not pending in this round")
        self._emit(event)

    def _emit(self, event: Event) -> None:
        if self._s.claim is not None and not isinstance(event, ClaimConfirmed | ClaimRejected):
            # Nothing else happens in a round while a ruling waits for its second
            # person, whatever path the act came by (MBS 6.2).
            self.check_no_claim_pending()
        self.consult_record(event)
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
                s.areas.setdefault((event.position, event.wager), []).append(event.bet_id)
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
            case RulingClaimed():
                s.claim = event
            case ClaimConfirmed() | ClaimRejected():
                s.claim = None
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

    def area_bets(self, position: int, wager: str) -> list[TableBet]:
        """The active bets of one playing area (``wager`` at ``position``), in order."""
        bets = self._s.bets
        ids = self._s.areas.get((position, wager), ())
        return [bet for bet in map(bets.__getitem__, ids) if bet.status == "active"]

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

    def _insurance_offer_at(self, wager: str, moment: Moment) -> InsuranceOffer | None:
        if self.game.insurance is None or len(self.deal.cards) < moment.cards:
            return None
        side = self.game.wager(wager, self.layout).insures
        then = Deal(self.deal.cards[: moment.cards])
        return next((o for o in self.game.insurance.offers(then) if o.insures is side), None)

    def bet(self, bet_id: str) -> TableBet:
        """One bet of the round (:class:`ActionError` if there is none by that id)."""
        return self._bet(bet_id)

    def _bet(self, bet_id: str) -> TableBet:
        try:
            return self._s.bets[bet_id]
        except KeyError:
            raise ActionError(f"no bet {bet_id!r} in this round") from None

    @property
    def pending_claim(self) -> RulingClaimed | None:
        """The ruling filed and waiting for a second person, if any
        (:mod:`punto.table.claims`)."""
        return self._s.claim

    def check_no_claim_pending(self) -> None:
        """Refuse while a ruling waits for its second person."""
        claim = self._s.claim
        if claim is not None:
            raise PhaseError(
                f"a ruling is pending: claim {claim.claim_id} ({claim.procedure.replace('_', ' ')}, "
                f"filed by {claim.by}) waits for a {claim.confirming.words}'s confirmation",
                clause=claim.clause,
                hint="a second person confirms or rejects it first; the round waits",
            )

    def _check_no_option_open(self) -> None:
        self.check_no_claim_pending()
        if self._s.withdrawal is not None:
            raise PhaseError(
                "players are being given the option to withdraw",
                clause=self._s.withdrawal.clause,
                hint="close the withdrawal option first",
            )


#: What the cards decide, by game, layout, pair rule and cards: the search
#: takes a quarter of a second on the first cards of a coup, and the fold of
#: a withdrawal, the grants and the live table ask it again and again.  The
#: game is kept in the value so that its id is not reused while cached.
_DECIDED: dict[
    tuple[int, str | None, PairRule, tuple[Card, ...]], tuple[Game, dict[str, str | None]]
] = {}
_DECIDED_SIZE = 4096
