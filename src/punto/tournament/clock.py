"""A live tournament run by the clock: betting windows, and nobody played for.

A tournament created with a betting window (``Tournament.create(...,
betting_ms=...)``) is *live*: once the first session has been started, a
:class:`Clock` takes every dealer's action itself, one at a time, when it is
due -- and people act for themselves, through the server, in the windows it
gives them:

1. at every table whose hand is between deals, after the pause
   (``pause_ms``) that lets the last result be seen, "Place your bets,
   please" (:meth:`~punto.tournament.Tournament.open_hand`) opens a
   **betting window** of ``betting_ms``, announced with its deadline;
   automated entrants decide at once (and re-enter, when out of chips,
   while the format allows, before the hand opens);
2. people bet, withdraw and bet again until the deadline (T4.6); whoever has
   not bet when it passes sits the hand out (T5.3: with the minimum bet as a
   penalty if they had to bet).  A table with no person who can still bet
   does not wait for its window to run out;
3. "No more bets", the coup is dealt and settled;
4. when every table has dealt its hands: sudden-death hands (T7.2) give each
   tied person a window to choose Banker or Player, after which the default
   choice is made for them (the catch-up bettor's, as for anyone who does not
   act at a terminal); then the session ends, and after a pause the next
   one starts.

The clock never plays a person's hand.  Its deadlines are kept in memory only:
a clock started again on a tournament resumed from its log (after a restart)
opens a fresh, full window for a hand whose betting was open -- the people
could not bet while the server was down.

>>> from punto.tournament.formats import get_format
>>> from punto.tournament.runner import Runner, bot_controller
>>> from punto.eventlog import MemoryEventLog
>>> from punto.tournament.events import TOURNAMENT_STREAM
>>> t = Tournament.create(MemoryEventLog(TOURNAMENT_STREAM), "doc", get_format("turbo"), seed=1,
...                       betting_ms=500, pause_ms=0)
>>> for i in range(4):
...     _ = t.register(f"Bot {i}", bot_controller("flat"))
>>> t.start_session()
>>> now = [1000.0]
>>> clock = Clock(t, Runner(t), now=lambda: now[0])
>>> while clock.step() == 0:
...     pass                     # no person to wait for: the tournament plays on
>>> t.stage.value
'finished'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from punto.tournament.runner import Runner
from punto.tournament.tournament import Phase, Stage, Tournament

#: The key of the sudden-death hand's window among the tables' windows.
TIEBREAK = 0


@dataclass(frozen=True, slots=True)
class Window:
    """A betting window (``table`` > 0) or a sudden-death choice (``table`` = 0)."""

    table: int
    hand: int
    #: when it closes, in seconds since the epoch
    deadline: float
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "table": self.table if self.table else None,
            "tiebreak": self.table == TIEBREAK,
            "hand": self.hand,
            "deadline": self.deadline,
            "seconds": self.seconds,
        }


class Clock:
    """Drives a live :class:`Tournament` by the clock (see the module's docstring).

    ``runner`` makes the automated entrants' decisions; ``on_window`` is
    called with each window opened; ``now`` is the time in seconds since the
    epoch (a test may pass its own).  Not thread-safe: call :meth:`step`
    under the lock that serialises the tournament's actions.
    """

    def __init__(
        self,
        tournament: Tournament,
        runner: Runner,
        *,
        on_window: Callable[[Window], None] | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.t = tournament
        self.runner = runner
        self.on_window = on_window
        self.now = now
        self.betting = tournament.betting_ms / 1000
        self.pause = tournament.pause_ms / 1000
        self._windows: dict[int, Window] = {}
        self._open_at: dict[int, float] = {}
        self._session_at: float | None = None

    def windows(self) -> list[Window]:
        """The windows open now."""
        return [self._windows[k] for k in sorted(self._windows)]

    def step(self) -> float | None:
        """Take the next action that is due.  Returns 0 after an action (call
        again), else the seconds until one falls due, or None when nothing
        will until someone acts (registration) or ever (finished, cancelled)."""
        t = self.t
        now = self.now()
        if t.stage is Stage.REGISTRATION or t.stage.over:
            self._windows.clear()
            return None
        if t.stage is Stage.BETWEEN:
            if self._session_at is None:
                self._session_at = now + self.pause
            if now < self._session_at:
                return self._session_at - now
            self._session_at = None
            t.start_session()
            self._open_at.clear()
            return 0
        if not t.all_tables_done:
            return self._tables(now)
        if t.tiebreak is not None:
            return self._tiebreak(now)
        if t.pending_tie() is not None:
            t.open_tiebreak()
            return 0
        t.end_session()
        return 0

    def _tables(self, now: float) -> float:
        t = self.t
        waits: list[float] = []
        for n, table in sorted(t.tables.items()):
            if table.phase is Phase.DONE:
                continue
            if table.phase is Phase.IDLE:
                if self.runner.reenter_automated(n):
                    return 0
                due = self._open_at.get(n, 0.0)
                if now < due:
                    waits.append(due - now)
                    continue
                t.open_hand(n)
                self._open(n, table.hand, now)
                return 0
            if table.phase is Phase.BETTING:
                window = self._windows.get(n) or self._open(n, table.hand, now)
                automated = [e for e in t.awaiting(n) if self.runner.automated(e)]
                if automated:
                    self.runner.act(automated[0])
                    return 0
                if now >= window.deadline or not self._people_at(n):
                    del self._windows[n]
                    t.close_betting(n)
                    return 0
                waits.append(window.deadline - now)
                continue
            t.deal_hand(n)  # betting closed: the coup
            self._open_at[n] = now + self.pause
            return 0
        return max(0.0, min(waits)) if waits else 0

    def _people_at(self, table: int) -> bool:
        """Whether a person at ``table`` can still bet, change or withdraw a bet."""
        t = self.t
        return any(
            not self.runner.automated(e) and not t.out_of_chips(e) for e in t.tables[table].entrants
        )

    def _tiebreak(self, now: float) -> float:
        t = self.t
        tb = t.tiebreak
        assert tb is not None
        window = self._windows.get(TIEBREAK) or self._open(TIEBREAK, tb.attempt, now)
        missing = [e for e in tb.entrants if e not in tb.choices]
        automated = [e for e in missing if self.runner.automated(e)]
        if automated:
            self.runner.choose_side(automated[0])
            return 0
        if not missing:
            del self._windows[TIEBREAK]
            t.deal_tiebreak()
            return 0
        if now >= window.deadline:
            self.runner.choose_side(missing[0])  # the default, for whoever did not choose
            return 0
        return window.deadline - now

    def _open(self, table: int, hand: int, now: float) -> Window:
        window = Window(table, hand, now + self.betting, self.betting)
        self._windows[table] = window
        if self.on_window is not None:
            self.on_window(window)
        return window
