"""The irregularities of a tournament hand: Baccarat Tournament 5.1-5.5.

:meth:`Tournament.deal_hand` deals and settles a hand in one event, but at a
real table things go wrong while a hand is in play, and the rules say what
then happens.  The procedures are not written a second time here: the hand
is folded into a :class:`~punto.table.round.Round` as it stands -- its bets,
"No more bets", the cards already out of the shoe, or the coup it settled --
the table engine's procedure (:mod:`punto.table.irregularities`) is applied
to that round, and what the round became decides the tournament's event:

* **void** -- :class:`~punto.tournament.events.HandVoided`: every bet on the
  hand is returned (tournament chips: nothing was taken from them before the
  settlement, so a hand in play leaves every entrant's chips as they are),
  any penalty for not betting on it too (T5.3), and the hand is dealt again
  under the same number, so that a session is its number of hands *that
  stand* and standings and eliminations count only those;
* **continue** -- :class:`~punto.tournament.events.HandIrregularityNoted`:
  recorded, and the hand is dealt on from the shoe as it is (the cards drawn
  together are the shoe's own, in its order).

Every card of a tournament hand comes out of the shoe the engine shuffled,
one at a time by the Table of Play: that shoe is the hand's record
(:mod:`punto.table.record`).  A claim it disproves is refused, whoever makes
it, with :class:`~punto.tournament.errors.IrregularityRecordError` naming the
shoe and the hand's cards, and nothing is written: a foreign card (5.1), a
hand dealt an incorrect number of cards (5.2, in play or settled), cards
drawn together whose order cannot be ascertained (5.3: they came out in the
shoe's order, which the record holds), the shoe's order altered (5.4,
reconstructable or not), or insufficient cards while the shoe holds enough
(5.5).  What can happen is cards drawn together in their known order (5.3,
noted; the hand is dealt on) and a shoe that really runs out, which
:meth:`shoe_short` finds when a hand is dealt (5.5, by
:func:`punto.table.irregularities.insufficient_cards`, never a crash) --
the only void of a tournament hand, and the record's own: no person's word
voids one.

``dealt`` is how many cards of the hand came out of the shoe before the
irregularity was noticed (after "No more bets" only); the engine's shoe
says which.  Who may act: a Dealer or above, as at the table
(docs/interpretations.md, "Tournament hands and the engine's shoe").

>>> from punto.tournament.formats import get_format
>>> from punto.eventlog import MemoryEventLog
>>> from punto.tournament.events import TOURNAMENT_STREAM
>>> from punto.tournament.tournament import Tournament
>>> t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "doc", get_format("turbo"), seed="doc")
>>> for name in ("Ann", "Bo", "Cy", "Di"):
...     _ = t.register(name)
>>> t.start_session(); t.open_hand(1)
>>> t.place_bets("e1", [("banker", 1000)])
>>> t.foreign_card(1)
Traceback (most recent call last):
...
punto.tournament.errors.IrregularityRecordError: round 1 of session 1 at table 1 was dealt by the table from shoe 1 of table 1, no card out yet: a shoe the table shuffled itself holds the cards of its decks and no other, shuffled, and they came out in its order (clause 5.1); apply the procedure for what did happen, or settle the round on the cards dealt
>>> penalties = t.close_betting(1)
>>> t.simultaneous_draw(1, 2, order_known=False, dealt=1, role=Role.PIT_MANAGER)
Traceback (most recent call last):
...
punto.tournament.errors.IrregularityRecordError: round 1 of session 1 at table 1 was dealt by the table from shoe 1 of table 1, cards 1-3: cards drawn together from the table's own shoe came out in the shoe's order, one after another, and the record holds that order: it is ascertained (clause 5.3); apply the procedure with the order known (the shoe's), and deal on
>>> noted = t.simultaneous_draw(1, 2, order_known=True, dealt=1)
>>> noted.clause, t.tables[1].hand, t.tables[1].phase.value, t.entrants["e1"].chips
('5.3', 1, 'closed', 20000)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from punto.errors import DealError, PuntoError, RoleError
from punto.rules.cards import Card, format_cards, parse_cards
from punto.rules.coup import deal
from punto.table import irregularities as table_procedures
from punto.table.events import CardsHeld, CardsReconstructed, IrregularityNoted
from punto.table.irregularities import Ruling
from punto.table.limits import TableLimits
from punto.table.record import RecordError, ShoeRecord, check_claim
from punto.table.roles import Role
from punto.table.round import Phase as RoundPhase
from punto.table.round import Round
from punto.tournament.errors import (
    IrregularityError,
    IrregularityRecordError,
    IrregularityRoleError,
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
    can,
)
from punto.tournament.events import (
    HandIrregularityNoted,
    HandVoided,
    Stack,
    TiebreakVoided,
    TournamentEvent,
)
from punto.tournament.state import EntrantState, Phase, Stage, TableState, TiebreakState

if TYPE_CHECKING:
    from punto.tournament.format import Format, Session

__all__ = ["HandIrregularities", "HandOutcome"]

#: What a procedure writes: the hand void, or the irregularity recorded.
HandOutcome = HandVoided | HandIrregularityNoted

#: The procedure to apply to the folded round.
_Procedure = Callable[[Round, tuple[Card, ...]], Ruling]


class HandIrregularities:
    """Tournament 5.1-5.5 as check/can/act trios of :class:`Tournament` (a
    base class of it; the tournament provides the state named below)."""

    if TYPE_CHECKING:  # what the tournament provides
        id: str
        stage: Stage
        session_number: int
        entrants: dict[str, EntrantState]
        tables: dict[int, TableState]
        tiebreak: TiebreakState | None
        keys: dict[str, dict[str, tuple[int, ...]]]
        _lock: threading.RLock

        @property
        def fmt(self) -> Format: ...

        @property
        def session(self) -> Session | None: ...

        def table(self, table: int) -> TableState: ...

        def _emit(self, event: TournamentEvent) -> None: ...

    # -- 5.1 a foreign card ----------------------------------------------------------

    def check_foreign_card(
        self, table: int, *, dealt: int = 0, role: Role = Role.DEALER
    ) -> HandVoided:
        """The event :meth:`foreign_card` would write, or why not: a foreign
        card found in the course of a game voids the round (5.1.1); the
        results of previous games stand (5.1.2), so a settled hand is refused."""
        event = self._procedure(
            table,
            dealt,
            role,
            lambda r, _cards: table_procedures.foreign_card(r, role=role),
            new_shoe=True,
        )
        assert isinstance(event, HandVoided)
        return event

    def can_foreign_card(self, table: int, *, dealt: int = 0, role: Role = Role.DEALER) -> bool:
        return can(lambda: self.check_foreign_card(table, dealt=dealt, role=role))

    def foreign_card(self, table: int, *, dealt: int = 0, role: Role = Role.DEALER) -> HandVoided:
        """A foreign card found in the hand in play at ``table``: void (5.1),
        and the shoe it was found in ends.  The engine's own shoe holds none:
        refused by the record (:class:`IrregularityRecordError`)."""
        with self._lock:
            event = self.check_foreign_card(table, dealt=dealt, role=role)
            self._emit(event)
            return event

    # -- 5.2 an incorrect number of cards --------------------------------------------

    def check_incorrect_number_of_cards(
        self, table: int, *, reconstructable: bool, dealt: int = 0, role: Role = Role.DEALER
    ) -> HandOutcome:
        """The event :meth:`incorrect_number_of_cards` would write, or why not.
        ``dealt``: every card out of the shoe for the hand in play; for a hand
        just settled, none (its cards are the coup it settled)."""

        def procedure(r: Round, cards: tuple[Card, ...]) -> Ruling:
            return table_procedures.incorrect_number_of_cards(
                r,
                cards,
                reconstructable=reconstructable,
                next_round_commenced=r.phase is RoundPhase.SETTLED and self._next_game_commenced(),
                role=role,
            )

        return self._procedure(table, 0, role, procedure, out=dealt)

    def can_incorrect_number_of_cards(
        self, table: int, *, reconstructable: bool, dealt: int = 0, role: Role = Role.DEALER
    ) -> bool:
        return can(
            lambda: self.check_incorrect_number_of_cards(
                table, reconstructable=reconstructable, dealt=dealt, role=role
            )
        )

    def incorrect_number_of_cards(
        self, table: int, *, reconstructable: bool, dealt: int = 0, role: Role = Role.DEALER
    ) -> HandOutcome:
        """The Player or Banker hand at ``table`` was dealt an incorrect number
        of cards (5.2).  Not reconstructable: void -- also a hand already
        settled, provided no next game has commenced at the table (its
        results are undone; a Pit Manager's decision).  Reconstructable: the
        cards go where the Table of Play says, and the hand is dealt on.  The
        engine deals every card by the Table of Play: refused by the record
        (:class:`IrregularityRecordError`) either way, in play or settled."""
        with self._lock:
            event = self.check_incorrect_number_of_cards(
                table, reconstructable=reconstructable, dealt=dealt, role=role
            )
            self._emit(event)
            return event

    # -- 5.3 cards drawn simultaneously ----------------------------------------------

    def check_simultaneous_draw(
        self,
        table: int,
        cards: int,
        *,
        order_known: bool,
        dealt: int = 0,
        role: Role = Role.DEALER,
    ) -> HandOutcome:
        """The event :meth:`simultaneous_draw` would write, or why not.
        ``cards``: how many came out together, after the ``dealt`` before them."""

        def procedure(r: Round, together: tuple[Card, ...]) -> Ruling:
            return table_procedures.simultaneous_draw(
                r, together, order_known=order_known, role=role
            )

        return self._procedure(table, dealt, role, procedure, out=cards)

    def can_simultaneous_draw(
        self,
        table: int,
        cards: int,
        *,
        order_known: bool,
        dealt: int = 0,
        role: Role = Role.DEALER,
    ) -> bool:
        return can(
            lambda: self.check_simultaneous_draw(
                table, cards, order_known=order_known, dealt=dealt, role=role
            )
        )

    def simultaneous_draw(
        self,
        table: int,
        cards: int,
        *,
        order_known: bool,
        dealt: int = 0,
        role: Role = Role.DEALER,
    ) -> HandOutcome:
        """Two or more cards drawn from the shoe at once (5.3).  Known order:
        they are the shoe's next cards in that order, and the hand is dealt
        on.  Their order not ascertainable during the initial deal would void
        the hand; but they came out of the engine's shoe in its order, which
        the record holds: refused by the record
        (:class:`IrregularityRecordError`), whoever claims it.  After the
        initial deal the rules have no procedure (refused, for the Gaming
        Shift Manager)."""
        with self._lock:
            event = self.check_simultaneous_draw(
                table, cards, order_known=order_known, dealt=dealt, role=role
            )
            self._emit(event)
            return event

    # -- 5.4 the order of the cards in the shoe altered ------------------------------

    def check_order_altered(
        self, table: int, *, reconstructable: bool, dealt: int = 0, role: Role = Role.DEALER
    ) -> HandOutcome:
        """The event :meth:`order_altered` would write, or why not."""
        return self._procedure(
            table,
            dealt,
            role,
            lambda r, _cards: table_procedures.order_altered(
                r, reconstructable=reconstructable, role=role
            ),
            new_shoe=not reconstructable,
        )

    def can_order_altered(
        self, table: int, *, reconstructable: bool, dealt: int = 0, role: Role = Role.DEALER
    ) -> bool:
        return can(
            lambda: self.check_order_altered(
                table, reconstructable=reconstructable, dealt=dealt, role=role
            )
        )

    def order_altered(
        self, table: int, *, reconstructable: bool, dealt: int = 0, role: Role = Role.DEALER
    ) -> HandOutcome:
        """The order of the cards in the shoe was altered (5.4).  Not
        reconstructable: void, whether or not cards were exposed, and the
        shoe ends (its recorded order is no longer the cards').
        Reconstructable: restored, and the hand is dealt on.  Nobody handles
        the engine's shoe: refused by the record (:class:`IrregularityRecordError`)."""
        with self._lock:
            event = self.check_order_altered(
                table, reconstructable=reconstructable, dealt=dealt, role=role
            )
            self._emit(event)
            return event

    # -- 5.5 insufficient cards --------------------------------------------------------

    def shoe_short(self, table: int) -> HandVoided | None:
        """When the shoe at ``table`` cannot complete the hand whose betting is
        closed: the void 5.5 decides (every card left comes out, and the next
        hand opens a new shoe); None when it can."""
        t = self.table(table)
        if t.shoe is None:
            return None
        left = t.shoe.order[t.shoe.position :]
        try:
            deal(iter(left))
        except DealError:
            pass
        else:
            return None
        event = self._procedure(
            table,
            len(left),
            Role.DEALER,
            lambda r, _cards: table_procedures.insufficient_cards(r, remaining=0, role=Role.DEALER),
            new_shoe=True,
        )
        assert isinstance(event, HandVoided)
        return event

    def tiebreak_shoe_short(self) -> TiebreakVoided | None:
        """When the shoe cannot complete the open sudden-death hand (T7.2, a
        round of play like any other): void by 5.5, as a hand; None when it can."""
        tb = self.tiebreak
        s = self.session
        assert tb is not None  # check_deal_tiebreak: one is open
        assert s is not None
        t = self.table(tb.table)
        assert t.shoe is not None  # open_tiebreak saw to it
        left = tuple(t.shoe.order[t.shoe.position :])
        try:
            deal(iter(left))
        except DealError:
            pass
        else:
            return None
        r = Round(self.fmt.game, limits=TableLimits(Decimal(s.min_bet), Decimal(s.min_bet)))
        r.open()
        for entrant, side in tb.choices.items():
            r.place_bet(entrant, 1, side, Decimal(s.min_bet), enforce_limits=False)
        r.close_betting()
        for card in left:
            r.deal_card(card)
        table_procedures.insufficient_cards(r, remaining=0)
        assert r.void is not None
        return TiebreakVoided(
            self.session_number,
            tb.scope,
            t.number,
            r.void.clause,
            r.void.reason,
            format_cards(left),
        )

    # -- the fold ----------------------------------------------------------------------

    def _procedure(
        self,
        table: int,
        dealt: int,
        role: Role,
        procedure: _Procedure,
        *,
        out: int = 0,
        new_shoe: bool = False,
    ) -> HandOutcome:
        """Fold the hand at ``table`` into a round with ``dealt`` cards dealt,
        apply ``procedure`` to it with the cards out of the shoe (``out``
        after the dealt ones; a settled hand's own coup), and say what the
        tournament writes.  Nothing is written here."""
        t = self.table(table)
        settled = self._hand_state(t, dealt, out)
        try:
            r = self._round(t, dealt, settled)
            cards = r.deal.cards if settled else self._next_cards(t, dealt, out)
            before = len(r.events)
            ruling = procedure(r, cards)
            self._check_record(t, r, before, settled, len(cards) if settled else dealt + out)
            if settled and r.phase is RoundPhase.VOID:
                # Undoing what a hand paid is a pit manager's, as on a table.
                role.check_acts_as(Role.PIT_MANAGER, "void a hand already settled", ruling.clause)
        except RoleError as error:
            raise IrregularityRoleError(
                error.message, clause=error.clause, hint=error.hint
            ) from None
        except RecordError as error:
            raise IrregularityRecordError(
                error.message, clause=error.clause, hint=error.hint
            ) from None
        except TournamentError:
            raise
        except PuntoError as error:
            raise IrregularityError(error.message, clause=error.clause, hint=error.hint) from None
        if r.phase is not RoundPhase.VOID:
            return HandIrregularityNoted(
                self.session_number,
                t.number,
                t.hand,
                ruling.clause,
                _note(r, ruling),
                role.value,
            )
        assert r.void is not None
        return HandVoided(
            self.session_number,
            t.number,
            t.hand,
            r.void.clause,
            r.void.reason,
            role.value,
            self._chips_after_void(t, settled, r.void.clause),
            "" if settled else format_cards(self._next_cards(t, 0, dealt + out)),
            settled,
            new_shoe,
        )

    def _check_record(self, t: TableState, r: Round, before: int, settled: bool, out: int) -> None:
        """Refuse what the engine's own shoe disproves (:mod:`punto.table.record`):
        it shuffled the shoe and deals every card of a hand by the Table of
        Play, so a foreign card, an altered order, a hand dealt a wrong number
        of cards, cards drawn together in an order nobody can ascertain (it is
        the shoe's), or a shoe run dry while it holds cards enough did not
        happen, whoever claims it.  ``out``: the hand's cards out of the shoe (a
        settled hand's coup was drawn already; a hand in play's are not yet)."""
        if t.shoe is None:  # no card out: betting on the first hand of a shoe
            first = last = 0
        elif settled:
            first, last = t.shoe.position - out + 1, t.shoe.position
        else:
            first, last = t.shoe.position + 1, t.shoe.position + out
        record = ShoeRecord(
            f"{t.hand} of session {self.session_number} at table {t.number}",
            f"{t.shoes} of table {t.number}",
            shuffled_by_table=True,
            own=True,
            first=first if out else 0,
            last=last if out else 0,
            left=None if t.shoe is None else len(t.shoe) - (0 if settled else out),
            sealed=True,
        )
        replay = Round.replay(r.game, r.events[:before], **r.options)
        for event in r.events[before:]:
            check_claim(r.game, record, event, replay.deal)
            if isinstance(event, CardsReconstructed | CardsHeld):
                # A reconstruction is made under the clause of what went wrong
                # (5.2 reconstructable writes no other event): it claims that.
                claimed = IrregularityNoted(event.clause, "cards reconstructed", event.role)
                check_claim(r.game, record, claimed, replay.deal)
            replay._apply(event)
            replay.events.append(event)

    def _hand_state(self, t: TableState, dealt: int, out: int) -> bool:
        """Whether the procedure is for the hand just settled (else for the
        hand in play), or why there is no hand for it."""
        if self.stage is not Stage.PLAYING:
            raise TournamentPhaseError(
                f"no session is being played (the tournament is {self.stage.value})"
            )
        if dealt < 0 or out < 0:
            raise IrregularityError("a number of cards is never negative")
        if t.phase is Phase.BETTING and dealt:
            raise IrregularityError(
                f"betting is open at table {t.number}: no card of hand {t.hand} is out yet",
                clause=self.fmt.game.clause("no_more_bets"),
                hint="cards come out after 'No more bets'; send dealt=0",
            )
        if t.phase in (Phase.BETTING, Phase.CLOSED):
            left = 0 if t.shoe is None else len(t.shoe)
            if dealt + out > left:
                raise IrregularityError(
                    f"the shoe at table {t.number} holds {left} cards, not {dealt + out}",
                    hint="count only the cards of this hand that came out of the shoe",
                )
            return False
        if t.last is None or t.last.hand != t.settled or t.last.session != self.session_number:
            raise TournamentPhaseError(
                f"no hand is in play at table {t.number}, and none has just settled",
                clause=self.fmt.game.clause("previous_rounds_stand"),
                hint="the procedures apply from 'Place your bets, please' until the next "
                "hand opens",
            )
        if dealt or out:
            raise IrregularityError(
                f"hand {t.hand} at table {t.number} has settled: its cards are its coup",
                hint="send dealt=0 for a hand already settled",
            )
        return True

    def _round(self, t: TableState, dealt: int, settled: bool) -> Round:
        """The hand at ``t`` as a round of the table engine, as it stands."""
        s = self.session
        assert s is not None
        game = self.fmt.game
        # The format's limits are the tournament's to check (T4); the round
        # takes the bets as they lie, as a table takes a bet outside its limits.
        limits = TableLimits(Decimal(s.min_bet), Decimal(s.max_bet or 10**12))
        r = Round(game, limits=limits, round_id=f"{self.id}:{s.number}:{t.number}:{t.hand}")
        r.open()
        bets = t.settled_bets if settled else t.bets
        for entrant, lines in bets.items():
            for line in lines:
                # Tournament seats are not the layout's positions: every bet
                # goes in one; nothing the rules decide depends on which.
                r.place_bet(entrant, 1, line.wager, Decimal(line.stake), enforce_limits=False)
        if t.phase is Phase.BETTING:
            return r
        r.close_betting()
        cards = parse_cards(t.last.cards) if settled and t.last else self._next_cards(t, 0, dealt)
        for n, card in enumerate(cards):
            if r.phase is not RoundPhase.DEALING:
                raise IrregularityError(
                    f"the coup at table {t.number} takes {n} cards, not {len(cards)}",
                    hint="give only the cards dealt before the irregularity",
                )
            r.deal_card(card)
        if settled:
            r.settle()
        return r

    def _next_cards(self, t: TableState, after: int, n: int) -> tuple[Card, ...]:
        """The shoe's next ``n`` cards after the first ``after``, left in it."""
        assert t.shoe is not None
        start = t.shoe.position + after
        return tuple(t.shoe.order[start : start + n])

    def _next_game_commenced(self) -> bool:
        """For the hand just settled (5.2): whether the session's ties have
        started being broken since -- a sudden-death hand, the next game at
        its table, or lots on the standings it left.  The next hand opening
        commences one too, but then that hand is the one in play."""
        return self.tiebreak is not None or any(self.keys.values())

    def _chips_after_void(self, t: TableState, settled: bool, clause: str) -> tuple[Stack, ...]:
        """Every entrant's chips once the hand is void: as before it, the
        penalty for not betting on it returned."""
        penalty = {p.entrant: p.chips for p in t.penalties}
        before: dict[str, int] = {}
        if settled:
            assert t.last is not None
            for r in t.last.results:
                e = self.entrants[r.entrant]
                if e.chips != r.chips:
                    raise IrregularityError(
                        f"{e.name} has re-entered since hand {t.last.hand} settled: their "
                        f"chips can no longer be put back as the hand found them",
                        clause=clause,
                        hint="a new stack was bought on the hand's result; the hand stands",
                    )
                before[r.entrant] = r.chips - r.net
        return tuple(
            Stack(e, before.get(e, self.entrants[e].chips) + penalty.get(e, 0)) for e in t.entrants
        )

    # -- applying the events -----------------------------------------------------------

    def _on_hand_voided(self, ev: HandVoided) -> None:
        t = self.tables[ev.table]
        self._discard(t, ev.cards, "hand")
        for stack in ev.chips:
            self.entrants[stack.entrant].chips = stack.chips
        for p in t.penalties:
            self.entrants[p.entrant].penalties -= 1
        if ev.settled and t.last is not None:
            for r in t.last.results:
                if r.staked:
                    self.entrants[r.entrant].hands_bet -= 1
        t.settled = ev.hand - 1
        t.phase = Phase.IDLE
        t.bets, t.passed, t.penalties, t.settled_bets = {}, set(), (), {}
        t.last = None
        t.voided = ev
        if ev.new_shoe:
            t.shoe = None

    def _on_tiebreak_voided(self, ev: TiebreakVoided) -> None:
        t = self.tables[ev.table]
        self._discard(t, ev.cards, "sudden-death hand")
        self.tiebreak = None
        t.shoe = None

    @staticmethod
    def _discard(t: TableState, cards: str, what: str) -> None:
        """Draw the cards a void discards, checked against the shoe (a replay
        of a log whose void does not match its shoe is refused)."""
        if not cards:
            return
        assert t.shoe is not None
        for card in parse_cards(cards):
            drawn = t.shoe.draw()
            if drawn != card:
                raise TournamentLogError(
                    f"table {t.number}: the void {what} discards {card} where the shoe has {drawn}"
                )

    def _on_hand_irregularity_noted(self, ev: HandIrregularityNoted) -> None:
        self.tables[ev.table].noted = ev


def _note(r: Round, ruling: Ruling) -> str:
    if r.irregularities:
        return r.irregularities[-1].reason
    return f"the cards reconstructed as the Table of Play places them; play {ruling.consequence}s"
