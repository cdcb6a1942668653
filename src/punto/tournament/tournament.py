"""A live tournament: a fold over its events, with check/can/act for every action.

Every action is checked (a typed :class:`~punto.tournament.errors.TournamentError`
citing the competition rule says why not), written to the tournament's log,
and only then applied and announced to listeners.  Opening the tournament
again from the same log replays the events and resumes exactly where it
stood, mid-hand if need be.  Anything random (seats, shoes, lots) is drawn
once and recorded in its event, so a replay never draws again.

Each hand at a table is dealt from that table's shoe with
:func:`punto.rules.coup.deal` and every entrant's bets are settled with
:func:`punto.rules.settlement.settle` on the format's game (Baccarat Tournament),
in whole tournament chips.

>>> from punto.tournament.formats import get_format
>>> from punto.eventlog import MemoryEventLog
>>> from punto.tournament.events import TOURNAMENT_STREAM
>>> log = MemoryEventLog(TOURNAMENT_STREAM)
>>> t = Tournament.create(log, "doc", get_format("turbo"), seed="doc")
>>> for name in ("Ann", "Bo", "Cy", "Di"):
...     _ = t.register(name)
>>> t.start_session(); t.open_hand(1)
>>> t.place_bets("e1", [("banker", 1000)]); t.pass_hand("e2")
>>> t.place_bets("e3", [("player", 200)]); t.place_bets("e4", [("tie", 200)])
>>> t.close_betting(1)
()
>>> settled = t.deal_hand(1)
>>> again = Tournament.open(log, "doc")
>>> again.entrants["e1"].chips == t.entrants["e1"].chips == 20000 + settled.results[0].net
True
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from decimal import Decimal

from punto.errors import PuntoError
from punto.money import format_money
from punto.rules.settlement import Bet, check_bets
from punto.tournament.core import Listener
from punto.tournament.errors import (
    BetLimitError,
    MinHandsError,
    RegistrationError,
    TiebreakError,
    TournamentPhaseError,
    can,
)
from punto.tournament.events import (
    BetLine,
    BetsPlaced,
    BetsWithdrawn,
    BettingClosed,
    HandOpened,
    HandPassed,
    HandResult,
    HandSettled,
    HandVoided,
    Penalty,
    Placing,
    SeatDraw,
    SessionEnded,
    SessionStarted,
    Stack,
    TournamentFinished,
)
from punto.tournament.format import ChipPolicy, Format, Session, balanced_sizes
from punto.tournament.standings import (
    Entry,
    advancement,
    places,
    table_scope,
)
from punto.tournament.state import (
    SUDDEN_DEATH_WAGERS,
    EntrantState,
    Phase,
    Stage,
    TableState,
    TiebreakState,
    announcement,
    chips_text,
)
from punto.tournament.tiebreaks import TournamentTiebreaks
from punto.tournament.views import TournamentViews

__all__ = [
    "SUDDEN_DEATH_WAGERS",
    "EntrantState",
    "Listener",
    "Phase",
    "Stage",
    "TableState",
    "TiebreakState",
    "Tournament",
    "announcement",
    "bet_lines",
]


class Tournament(TournamentTiebreaks, TournamentViews):
    """One tournament, its entrants and tables, kept in a :class:`~punto.eventlog.EventLog`.

    Build one with :meth:`create` or :meth:`open`.  The attributes are the
    state as of the last event; change it only through the actions.
    """

    # -- sessions (T3, T6) ---------------------------------------------------------------

    def check_start_session(self) -> None:
        fmt = self.fmt
        if self.stage is Stage.REGISTRATION:
            n = len(self.entrants)
            if n < fmt.registration.min_entrants:
                raise RegistrationError(
                    f"{n} entrants registered; the format needs at least "
                    f"{fmt.registration.min_entrants}",
                    clause=fmt.rule("registration"),
                )
            fmt.plan(n, self.first_tables or None)
            return
        if self.stage is not Stage.BETWEEN:
            raise TournamentPhaseError(
                f"a session starts before the first or after another ends; the tournament is "
                f"{self.stage.value}"
            )

    def can_start_session(self) -> bool:
        return can(self.check_start_session)

    def start_session(self) -> None:
        """Draw the seats (T3.1, T3.2) and start the next session."""
        with self._lock:
            self.check_start_session()
            fmt = self.fmt
            number = self.session_number + 1
            s = fmt.session(number)
            if number == 1:
                who = list(self.entrants)
                tables = fmt.plan(len(who), self.first_tables or None)[0].tables
            else:
                who = list(self.advanced)
                tables = 1 if s.final else max(1, -(-len(who) // s.seats))
            rng = random.Random(f"punto-tournament:{self.seed}:seating:{number}")
            order = list(who)
            rng.shuffle(order)
            seats: list[SeatDraw] = []
            start = 0
            for table, size in enumerate(balanced_sizes(len(order), tables), start=1):
                numbers = rng.sample(range(1, s.seats + 1), size)
                for entrant, seat in zip(order[start : start + size], numbers, strict=True):
                    seats.append(SeatDraw(entrant, table, seat))
                start += size
            seats.sort(key=lambda d: (d.table, d.seat))
            chips = tuple(
                Stack(
                    d.entrant,
                    self.entrants[d.entrant].chips
                    if s.chips is ChipPolicy.CARRY
                    else s.starting_chips,
                )
                for d in seats
            )
            self._emit(SessionStarted(number, tables, tuple(seats), chips))

    # -- hands (T4, T5) ------------------------------------------------------------------

    def check_open_hand(self, table: int) -> None:
        s = self._current()
        t = self.table(table)
        if t.phase is Phase.DONE:
            raise TournamentPhaseError(
                f"table {table} has dealt all {s.hands} hands of {s.name}",
                clause=self.fmt.rule("hands"),
            )
        if t.phase is not Phase.IDLE:
            raise TournamentPhaseError(
                f"hand {t.hand} at table {table} is still {t.phase.value}",
                hint="close betting and deal it first",
            )

    def can_open_hand(self, table: int) -> bool:
        return can(self.check_open_hand, table)

    def open_hand(self, table: int) -> None:
        """'Place your bets, please' for the next hand at ``table`` (a new shoe
        first when the cut card has come out)."""
        with self._lock:
            self.check_open_hand(table)
            s = self._current()
            t = self.tables[table]
            self._shoe_for(t)
            hand = t.settled + 1
            self._emit(HandOpened(self.session_number, table, hand, s.hands - hand))

    def _betting_table(self, entrant: str) -> tuple[EntrantState, TableState, Session]:
        s = self._current()
        e = self.entrant(entrant)
        if e.table is None or e.table not in self.tables or not e.active:
            raise TournamentPhaseError(f"{e.name} is not seated in {s.name}")
        t = self.tables[e.table]
        if t.phase is not Phase.BETTING:
            raise TournamentPhaseError(
                f"betting is not open at table {t.number}",
                clause=self.fmt.game.clause("late_bet") if t.phase is Phase.CLOSED else None,
                hint="wait for 'Place your bets, please'",
            )
        return e, t, s

    def check_place_bets(
        self, entrant: str, bets: Sequence[tuple[str, int]]
    ) -> tuple[BetLine, ...]:
        """The bets as they will be recorded, or why they are refused (T4)."""
        fmt = self.fmt
        e, t, s = self._betting_table(entrant)
        if entrant in t.bets:
            raise TournamentPhaseError(
                f"{e.name} has already bet on hand {t.hand}",
                clause=fmt.rule("withdraw"),
                hint="withdraw the bets first to change them",
            )
        if entrant in t.passed:
            raise TournamentPhaseError(f"{e.name} has passed hand {t.hand}")
        if self.out_of_chips(entrant):
            raise BetLimitError(
                f"{e.name} has {chips_text(e.chips)} chips, under the minimum bet of "
                f"{chips_text(s.min_bet)}: out of chips",
                clause=fmt.rule("out_of_chips"),
                hint="re-enter if the format allows it" if fmt.registration.reentries else None,
            )
        return self._lines(e, s, bets)

    def _lines(
        self, e: EntrantState, s: Session, bets: Sequence[tuple[str, int]]
    ) -> tuple[BetLine, ...]:
        fmt = self.fmt
        lines = bet_lines(fmt, s, e.chips, bets, e.name)
        try:  # the game itself must take them (wagers offered, rules 3.5)
            check_bets(fmt.game, [Bet(x.wager, Decimal(x.stake)) for x in lines])
        except PuntoError as error:
            raise BetLimitError(error.message, clause=error.clause, hint=error.hint) from None
        return lines

    def can_place_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> bool:
        return can(self.check_place_bets, entrant, bets)

    def place_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> None:
        """An entrant's bets on the hand being bet at their table, placed together."""
        with self._lock:
            lines = self.check_place_bets(entrant, bets)
            e = self.entrants[entrant]
            t = self.tables[e.table or 0]
            self._emit(BetsPlaced(self.session_number, t.number, t.hand, entrant, lines))

    def check_withdraw_bets(self, entrant: str) -> None:
        e, t, _ = self._betting_table(entrant)
        if entrant not in t.bets:
            raise TournamentPhaseError(f"{e.name} has no bets on hand {t.hand}")

    def can_withdraw_bets(self, entrant: str) -> bool:
        return can(self.check_withdraw_bets, entrant)

    def withdraw_bets(self, entrant: str) -> None:
        """Take back an entrant's bets before 'No more bets' (T4.6)."""
        with self._lock:
            self.check_withdraw_bets(entrant)
            t = self.tables[self.entrants[entrant].table or 0]
            self._emit(BetsWithdrawn(self.session_number, t.number, t.hand, entrant))

    def check_replace_bets(
        self, entrant: str, bets: Sequence[tuple[str, int]]
    ) -> tuple[BetLine, ...]:
        """The new bets as they will be recorded, or why the entrant's bets
        cannot be replaced by them (T4.6: withdrawn and placed again)."""
        self.check_withdraw_bets(entrant)
        e, _, s = self._betting_table(entrant)
        return self._lines(e, s, bets)

    def can_replace_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> bool:
        return can(self.check_replace_bets, entrant, bets)

    def replace_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> None:
        """Withdraw an entrant's bets and place ``bets`` instead (T4.6), both
        checked before either is written."""
        with self._lock:
            lines = self.check_replace_bets(entrant, bets)
            t = self.tables[self.entrants[entrant].table or 0]
            self._emit(BetsWithdrawn(self.session_number, t.number, t.hand, entrant))
            self._emit(BetsPlaced(self.session_number, t.number, t.hand, entrant, lines))

    def check_pass_hand(self, entrant: str) -> None:
        fmt = self.fmt
        e, t, s = self._betting_table(entrant)
        if entrant in t.bets:
            raise TournamentPhaseError(
                f"{e.name} has bet on hand {t.hand}", hint="withdraw the bets to pass"
            )
        if entrant in t.passed:
            raise TournamentPhaseError(f"{e.name} has already passed hand {t.hand}")
        if self.must_bet(entrant):
            still = e.required - e.hands_bet
            raise MinHandsError(
                f"{e.name} must bet: {still} more hand(s) to reach the minimum of "
                f"{e.required}, and {t.remaining + 1} left including this one",
                clause=fmt.rule("min_hands"),
                hint=f"bet at least {chips_text(s.min_bet)}",
            )

    def can_pass_hand(self, entrant: str) -> bool:
        return can(self.check_pass_hand, entrant)

    def pass_hand(self, entrant: str) -> None:
        """Sit this hand out (refused when the minimum hands would become unreachable)."""
        with self._lock:
            self.check_pass_hand(entrant)
            t = self.tables[self.entrants[entrant].table or 0]
            self._emit(HandPassed(self.session_number, t.number, t.hand, entrant))

    def check_close_betting(self, table: int) -> None:
        self._current()
        t = self.table(table)
        if t.phase is not Phase.BETTING:
            raise TournamentPhaseError(f"betting is not open at table {table}")

    def can_close_betting(self, table: int) -> bool:
        return can(self.check_close_betting, table)

    def close_betting(self, table: int) -> tuple[Penalty, ...]:
        """'No more bets'.  Entrants who have not bet sit the hand out; one who
        had to bet loses the minimum bet as a penalty (T5.3)."""
        with self._lock:
            self.check_close_betting(table)
            s = self._current()
            t = self.tables[table]
            penalties = tuple(
                Penalty(e, min(s.min_bet, self.entrants[e].chips))
                for e in self.awaiting(table)
                if self.must_bet(e)
            )
            self._emit(BettingClosed(self.session_number, table, t.hand, penalties))
            return penalties

    def check_deal_hand(self, table: int) -> None:
        self._current()
        t = self.table(table)
        if t.phase is not Phase.CLOSED:
            raise TournamentPhaseError(
                f"the hand at table {table} is {t.phase.value}",
                clause=self.fmt.game.clause("no_more_bets"),
                hint="deal once betting is closed",
            )

    def can_deal_hand(self, table: int) -> bool:
        return can(self.check_deal_hand, table)

    def deal_hand(self, table: int) -> HandSettled | HandVoided:
        """Deal the coup from the table's shoe and settle every bet on it; a
        shoe that cannot complete the coup voids the hand (rules 5.5)."""
        with self._lock:
            self.check_deal_hand(table)
            t = self.tables[table]
            short = self.shoe_short(table)
            if short is not None:
                self._emit(short)
                return short
            coup = self._next_coup(t)
            results = []
            for eid in t.entrants:
                e = self.entrants[eid]
                lines = t.bets.get(eid, ())
                net = self._settle(coup, lines)
                results.append(HandResult(eid, sum(x.stake for x in lines), net, e.chips + net))
            event = HandSettled(
                self.session_number, table, t.hand, str(coup), coup.winner.value, tuple(results)
            )
            self._emit(event)
            return event

    # -- the end of a session (T6, T8) ---------------------------------------------------

    def check_end_session(self) -> None:
        s = self._current()
        if not self.all_tables_done:
            left = [str(n) for n, t in sorted(self.tables.items()) if t.phase is not Phase.DONE]
            raise TournamentPhaseError(
                f"tables {', '.join(left)} have hands of {s.name} still to play",
                clause=self.fmt.rule("hands"),
            )
        if self.tiebreak is not None:
            raise TournamentPhaseError("a sudden-death hand is open", hint="deal it first")
        tie = self.pending_tie()
        if tie is not None:
            names = ", ".join(self.entrants[e].name for e in tie.entrants)
            raise TiebreakError(
                f"{names} are tied on chips {self._tie_reason(tie)}",
                clause=self.fmt.rule("tiebreak"),
                hint="open a sudden-death hand",
            )

    def can_end_session(self) -> bool:
        return can(self.check_end_session)

    def end_session(self) -> None:
        """Rank the session: who advances (T6.2), or the final places and prizes (T8)."""
        with self._lock:
            self.check_end_session()
            s = self._current()
            seated = [e for t in self.tables.values() for e in t.entrants]
            if not s.final:
                adv = advancement(
                    {n: self._entries(t) for n, t in self.tables.items()},
                    advance=s.advance,
                    wildcards=s.wildcards,
                    keys=self.keys,
                ).advancing
                out = tuple(e for e in seated if e not in adv)
                self._emit(SessionEnded(self.session_number, adv, out))
                return
            (only,) = self.tables.values()
            final_entries = [dataclasses.replace(x, eligible=True) for x in self._entries(only)]
            eliminated = [
                (e.eliminated_in or 0, Entry(e.id, 0, e.session_chips.get(e.eliminated_in or 0, 0)))
                for e in self.entrants.values()
                if e.eliminated_in is not None
            ]
            rows = places(
                final_entries,
                self.keys.get(table_scope(only.number), {}),
                eliminated,
                self.fmt.prize,
                s.number,
            )
            self._emit(
                TournamentFinished(
                    tuple(Placing(p.entrant, p.place, format_money(p.prize)) for p in rows)
                )
            )


def bet_lines(
    fmt: Format, s: Session, chips: int, bets: Sequence[tuple[str, int]], who: str = "the entrant"
) -> tuple[BetLine, ...]:
    """An entrant's bets for a hand as they will be recorded (one line per
    wager), or why the format refuses them (T4.1-T4.5).

    >>> from punto.tournament.formats import get_format
    >>> daily = get_format("daily")
    >>> bet_lines(daily, daily.sessions[0], 100000, [("banker", 500), ("banker", 500)])
    (BetLine(wager='banker', stake=1000),)
    >>> bet_lines(daily, daily.sessions[0], 100000, [("banker", 500)])
    Traceback (most recent call last):
    ...
    punto.tournament.errors.BetLimitError: bets of 500 are under the minimum bet of 1,000 (T4.2, format daily); bet at least 1,000 in all
    """
    if not bets:
        raise BetLimitError("no bets given", hint="pass the hand instead")
    merged: dict[str, int] = {}
    for wager, stake in bets:
        if wager not in fmt.wagers:
            raise BetLimitError(
                f"{wager!r} is not a wager of this tournament",
                clause=fmt.rule("wagers"),
                hint=f"bet on {', '.join(fmt.wagers)}",
            )
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            raise BetLimitError(f"a stake must be a positive number of chips, not {stake!r}")
        if stake % fmt.chip_unit:
            raise BetLimitError(
                f"{chips_text(stake)} is not a whole number of {chips_text(fmt.chip_unit)} chips",
                clause=fmt.rule("chip_unit"),
                hint=f"bet in multiples of {chips_text(fmt.chip_unit)}",
            )
        merged[wager] = merged.get(wager, 0) + stake
    total = sum(merged.values())
    if total < s.min_bet:
        raise BetLimitError(
            f"bets of {chips_text(total)} are under the minimum bet of {chips_text(s.min_bet)}",
            clause=fmt.rule("min_bet"),
            hint=f"bet at least {chips_text(s.min_bet)} in all",
        )
    if s.max_bet is not None and total > s.max_bet:
        raise BetLimitError(
            f"bets of {chips_text(total)} are over the maximum bet of {chips_text(s.max_bet)}",
            clause=fmt.rule("max_bet"),
            hint=f"bet at most {chips_text(s.max_bet)} in all",
        )
    if total > chips:
        raise BetLimitError(
            f"bets of {chips_text(total)} are more than the {chips_text(chips)} chips {who} has",
            clause=fmt.rule("chips_held"),
        )
    if not fmt.opposing_bets and "banker" in merged and "player" in merged:
        raise BetLimitError(
            "Banker and Player may not both be bet in one hand",
            clause=fmt.rule("opposing"),
            hint="choose one side",
        )
    return tuple(BetLine(w, st) for w, st in merged.items())
