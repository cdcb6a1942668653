"""Tie-breaks (T7): a tie found, sudden death chosen and dealt, or lots drawn
(a part of :class:`punto.tournament.tournament.Tournament`).
"""

from __future__ import annotations

import random

from punto.tournament.core import TournamentCore
from punto.tournament.errors import (
    TiebreakError,
    TournamentPhaseError,
    can,
)
from punto.tournament.events import (
    BetLine,
    TiebreakChosen,
    TiebreakDealt,
    TiebreakLots,
    TiebreakOpened,
    TiebreakResult,
    TiebreakVoided,
)
from punto.tournament.standings import (
    WILDCARDS,
    Tie,
    advancement,
    final_tie,
    rank,
    table_scope,
)
from punto.tournament.state import (
    SUDDEN_DEATH_WAGERS,
    Stage,
    TiebreakState,
)


class TournamentTiebreaks(TournamentCore):
    """The tie-break trios."""

    # -- tie-breaks (T7) -----------------------------------------------------------------

    def pending_tie(self) -> Tie | None:
        """The tie that must be broken before the session can end, if any (T7.1)."""
        s = self.session
        if self.stage is not Stage.PLAYING or s is None or not self.all_tables_done:
            return None
        if s.final:
            (only,) = self.tables.values()
            scope = table_scope(only.number)
            group = final_tie(self._entries(only), self.keys.get(scope, {}), self.fmt.prize)
            return None if group is None else Tie(scope, only.number, group)
        return advancement(
            {n: self._entries(t) for n, t in self.tables.items()},
            advance=s.advance,
            wildcards=s.wildcards,
            keys=self.keys,
        ).tie

    def check_open_tiebreak(self) -> Tie:
        self._current()
        if not self.all_tables_done:
            raise TournamentPhaseError("ties are broken once every table has dealt its hands")
        if self.tiebreak is not None:
            raise TournamentPhaseError("a sudden-death hand is already open")
        tie = self.pending_tie()
        if tie is None:
            raise TiebreakError("no tie needs breaking", clause=self.fmt.rule("tiebreak"))
        return tie

    def can_open_tiebreak(self) -> bool:
        return can(self.check_open_tiebreak)

    def open_tiebreak(self) -> TiebreakState | None:
        """Open a sudden-death hand for the pending tie (T7.2); once the tied
        entrants have played the format's sudden-death hands, draw lots
        instead (T7.3) and return None."""
        with self._lock:
            tie = self.check_open_tiebreak()
            fmt = self.fmt
            played = len(self.keys.get(tie.scope, {}).get(tie.entrants[0], ()))
            if played >= fmt.sudden_death_hands:
                order = list(tie.entrants)
                rng = random.Random(
                    f"punto-tournament:{self.seed}:lots:{self.session_number}:{tie.scope}:"
                    + ",".join(order)
                )
                rng.shuffle(order)
                self._emit(TiebreakLots(self.session_number, tie.scope, tuple(order)))
                return None
            self._shoe_for(self.tables[tie.table])
            self._emit(
                TiebreakOpened(
                    self.session_number,
                    tie.scope,
                    tie.table,
                    tie.entrants,
                    played + 1,
                    self._tie_reason(tie),
                )
            )
            return self.tiebreak

    def _tie_reason(self, tie: Tie) -> str:
        s = self.session
        assert s is not None
        if tie.scope == WILDCARDS:
            return "for a wild card"
        if s.final:
            scope_keys = self.keys.get(tie.scope, {})
            ranked = rank(self._entries(self.tables[tie.table]), scope_keys)
            first = min(r.rank for r in ranked if r.entry.entrant in tie.entrants)
            last = first + len(tie.entrants) - 1
            return f"for places {first}-{last} of the final"
        return f"for the last advancing place at table {tie.table}"

    def check_choose_tiebreak(self, entrant: str, wager: str) -> None:
        tb = self.tiebreak
        e = self.entrant(entrant)
        if tb is None:
            raise TournamentPhaseError("no sudden-death hand is open")
        if entrant not in tb.entrants:
            raise TiebreakError(
                f"{e.name} is not in this sudden-death hand", clause=self.fmt.rule("sudden_death")
            )
        if entrant in tb.choices:
            raise TiebreakError(
                f"{e.name} has already chosen {tb.choices[entrant]}",
                clause=self.fmt.rule("sudden_death"),
            )
        if wager not in SUDDEN_DEATH_WAGERS:
            raise TiebreakError(
                f"a sudden-death hand is bet on Banker or Player, not {wager!r}",
                clause=self.fmt.rule("sudden_death"),
                hint="choose banker or player",
            )
        sides = self.tiebreak_sides()
        if wager not in sides:
            raise TiebreakError(
                f"{wager} is taken: while a side is still open, the next tied entrant takes it",
                clause=self.fmt.rule("sudden_death"),
                hint=f"choose {sides[0]}",
            )

    def tiebreak_sides(self) -> tuple[str, ...]:
        """The sides the next tied entrant may choose: the one not yet taken,
        while there is one, so that the sudden-death hand can separate them (T7.2)."""
        tb = self.tiebreak
        if tb is None:
            return ()
        taken = set(tb.choices.values())
        open_sides = tuple(w for w in SUDDEN_DEATH_WAGERS if w not in taken)
        return open_sides or SUDDEN_DEATH_WAGERS

    def can_choose_tiebreak(self, entrant: str, wager: str) -> bool:
        return can(self.check_choose_tiebreak, entrant, wager)

    def choose_tiebreak(self, entrant: str, wager: str) -> None:
        """A tied entrant's side for the sudden-death hand."""
        with self._lock:
            self.check_choose_tiebreak(entrant, wager)
            self._emit(TiebreakChosen(self.session_number, entrant, wager))

    def check_deal_tiebreak(self) -> None:
        tb = self.tiebreak
        if tb is None:
            raise TournamentPhaseError("no sudden-death hand is open")
        missing = [e for e in tb.entrants if e not in tb.choices]
        if missing:
            names = ", ".join(self.entrants[e].name for e in missing)
            raise TiebreakError(
                f"still to choose a side: {names}",
                clause=self.fmt.rule("sudden_death"),
                hint="each tied entrant chooses banker or player",
            )

    def can_deal_tiebreak(self) -> bool:
        return can(self.check_deal_tiebreak)

    def deal_tiebreak(self) -> TiebreakDealt | TiebreakVoided:
        """Deal the sudden-death coup; each tied entrant's minimum bet on their
        side is settled, which orders them (their chips do not change).  A
        shoe that cannot complete it voids it (rules 5.5): it opens again."""
        with self._lock:
            self.check_deal_tiebreak()
            short = self.tiebreak_shoe_short()
            if short is not None:
                self._emit(short)
                return short
            tb = self.tiebreak
            assert tb is not None
            s = self._current()
            t = self.tables[tb.table]
            coup = self._next_coup(t)
            results = tuple(
                TiebreakResult(
                    e, tb.choices[e], self._settle(coup, [BetLine(tb.choices[e], s.min_bet)])
                )
                for e in tb.entrants
            )
            event = TiebreakDealt(
                self.session_number, tb.scope, tb.table, str(coup), coup.winner.value, results
            )
            self._emit(event)
            return event
