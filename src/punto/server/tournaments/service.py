"""The server's tournaments (:class:`Tournaments`): each one in the process,
opened from its log, its live clock, and the actions the routes ask of it.

Each tournament is one :class:`~punto.tournament.Tournament` in the process,
on :class:`~punto.store.sql_log.SQLEventLog` in the server's database
(table ``tournament_events``, migration 0003), opened from its log at start
-- so a server killed mid-session carries on exactly where the log stopped.
Every action takes the tournament's lock (:attr:`Entry.lock`), as the clock's
steps do; the routes never take it themselves.  The money each action moves
is :class:`punto.server.tournaments.money.Cashier`'s.

**Live tournaments** run by :class:`punto.tournament.clock.Clock`, one
asyncio task each (:class:`LiveTimer`), started with the app
(:meth:`Tournaments.start`) and stopped with it (:meth:`Tournaments.stop`),
as the automatic table dealers are.  Every change is published on the hub
(:func:`punto.server.tournaments.entry.channel`) for the pages watching.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any

from sqlalchemy.engine import Engine

from punto.server.tables.hub import Hub
from punto.server.tables.journal import Journal
from punto.server.tables.tasks import finish
from punto.server.tournaments import views
from punto.server.tournaments.entry import Entry, channel, windows
from punto.server.tournaments.errors import TournamentExistsError, UnknownTournamentError
from punto.server.tournaments.money import Cashier
from punto.server.tournaments.views import EntrantBets, StaffEntry, TiebreakChoice
from punto.store.accounts import Accounts
from punto.store.ledger import Ledger
from punto.store.sql_log import SQLEventLog
from punto.tournament import (
    TOURNAMENT_STREAM,
    Tournament,
    TournamentPhaseError,
    get_format,
)
from punto.tournament.clock import Clock, Window
from punto.tournament.events import (
    BettingClosed,
    EntrantReentered,
    EntrantRegistered,
    EntrantWithdrawn,
    HandIrregularityNoted,
    HandOpened,
    HandSettled,
    HandVoided,
    SessionEnded,
    SessionStarted,
    TiebreakDealt,
    TiebreakLots,
    TiebreakOpened,
    TiebreakVoided,
    TournamentCancelled,
    TournamentEvent,
    TournamentFinished,
)
from punto.tournament.runner import Runner
from punto.tournament.views import event_view

log = logging.getLogger("punto.server.tournaments")

#: How long a live tournament's clock waits after a step that failed.
RETRY_SECONDS = 1.0
#: Events after which the leaderboard is pushed.
PUSHED = (
    HandOpened,
    BettingClosed,
    HandSettled,
    SessionStarted,
    SessionEnded,
    TiebreakOpened,
    TiebreakDealt,
    TiebreakLots,
    TournamentFinished,
    EntrantRegistered,
    EntrantReentered,
    EntrantWithdrawn,
    TournamentCancelled,
    HandVoided,
    HandIrregularityNoted,
    TiebreakVoided,
)


class LiveTimer:
    """The asyncio task that runs a live tournament's clock (as
    :class:`punto.server.tables.dealer.AutoDealer` runs a table): a step in a worker
    thread, then a sleep until the next is due or something happens."""

    def __init__(self, service: Tournaments, entry: Entry) -> None:
        self.service = service
        self.entry = entry
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        self._unsubscribe: Any = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        wake = self._wake

        def changed(_seq: int, _event: TournamentEvent) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(wake.set)

        self._unsubscribe = self.entry.tournament.subscribe(changed)
        self._task = loop.create_task(self._run(), name=f"tournament-{self.entry.tournament.id}")

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopping:
            self._wake.clear()
            try:
                delay = await asyncio.to_thread(self.service.tick, self.entry)
            except asyncio.CancelledError:
                raise
            except Exception:
                # a person's action in between, or the database is busy: look again shortly
                log.warning(
                    "tournament %s: clock step failed", self.entry.tournament.id, exc_info=True
                )
                delay = RETRY_SECONDS
            if self.entry.tournament.stage.over and self.entry.paid:
                return
            if delay is not None and delay <= 0:
                await asyncio.sleep(0)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop after the step in progress (a step is never cut in half)."""
        self._stopping = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._wake is not None:
            self._wake.set()
        task, self._task = self._task, None
        await finish(task, timeout)


class Tournaments:
    """Every tournament of the server's database, opened from its log."""

    def __init__(
        self,
        engine: Engine,
        *,
        hub: Hub,
        ledger: Ledger,
        accounts: Accounts,
        journal: Journal,
    ) -> None:
        self.hub = hub
        self.log = SQLEventLog(engine, TOURNAMENT_STREAM)
        self.money = Cashier(
            engine, log=self.log, ledger=ledger, accounts=accounts, journal=journal
        )
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()
        self._timers: dict[str, LiveTimer] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        for tournament_id in self.log.streams():
            self._add(Tournament.open(self.log, tournament_id))

    def _add(self, t: Tournament) -> Entry:
        entry = Entry(t, Runner(t))
        if t.live:
            entry.clock = Clock(t, entry.runner, on_window=lambda w: self._window(t, w))
        t.subscribe(lambda _seq, event: self._publish(entry, event))
        self._entries[t.id] = entry
        return entry

    def _publish(self, entry: Entry, event: TournamentEvent) -> None:
        t = entry.tournament
        name = channel(t.id)
        if isinstance(event, PUSHED) and self.hub.count(name):
            self.hub.publish(
                name,
                {
                    "type": "leaderboard",
                    "event": event_view(event),
                    "leaderboard": t.leaderboard(),
                    "windows": windows(entry),
                    "server_time": time.time(),
                },
            )

    def _window(self, t: Tournament, window: Window) -> None:
        name = channel(t.id)
        if self.hub.count(name):
            self.hub.publish(
                name, {"type": "window", **window.to_json(), "server_time": time.time()}
            )

    def get(self, tournament_id: str) -> Entry:
        entry = self._entries.get(tournament_id)
        if entry is None:
            raise UnknownTournamentError(
                f"there is no tournament {tournament_id!r}",
                hint="GET /api/tournaments lists them",
            )
        return entry

    def all(self) -> list[Entry]:
        with self._lock:
            return [self._entries[k] for k in sorted(self._entries)]

    def create(
        self,
        tournament_id: str,
        format_id: str,
        seed: int | str | None,
        tables: int | None,
        *,
        betting_ms: int = 0,
        pause_ms: int = 0,
    ) -> Entry:
        fmt = get_format(format_id)
        with self._lock:
            if tournament_id in self._entries:
                raise TournamentExistsError(
                    f"tournament {tournament_id!r} already exists", hint="choose another id"
                )
            t = Tournament.create(
                self.log,
                tournament_id,
                fmt,
                seed=seed,
                tables=tables,
                betting_ms=betting_ms,
                pause_ms=pause_ms,
            )
            entry = self._add(t)
        if t.live:
            self._start_timer(entry)
        return entry

    def advance(self, tournament_id: str, steps: int) -> int:
        """Take up to ``steps`` actions; how many were taken (fewer once finished)."""
        entry = self.get(tournament_id)
        if entry.clock is not None:
            raise TournamentPhaseError(
                f"tournament {tournament_id!r} is live: its clock deals the hands, "
                "and nobody is played for",
                hint="watch it on its page; advance is for tournaments created without live",
            )
        done = 0
        with entry.lock:
            for _ in range(steps):
                if not entry.runner.step():
                    break
                done += 1
        if entry.tournament.stage.over:
            self.money.pay_out(entry)  # a payout that fails is finished at the next start
        return done

    # -- the live clock ------------------------------------------------------------------

    def tick(self, entry: Entry) -> float | None:
        """One step of a live tournament's clock (a worker thread's job)."""
        assert entry.clock is not None
        with entry.lock:
            delay = entry.clock.step()
        if entry.tournament.stage.over and not self.money.pay_out(entry):
            return RETRY_SECONDS
        return delay

    def _start_timer(self, entry: Entry) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # not started yet: start() starts it

        def begin() -> None:
            if entry.tournament.id not in self._timers:
                timer = LiveTimer(self, entry)
                self._timers[entry.tournament.id] = timer
                timer.start()

        try:
            if _running_loop() is loop:
                begin()
            else:
                loop.call_soon_threadsafe(begin)
        except RuntimeError:  # the loop closed meanwhile
            pass

    async def start(self) -> None:
        """With the app: finish any payout a crash cut short, start the clocks."""
        self._loop = asyncio.get_running_loop()
        for entry in self.all():
            if entry.tournament.stage.over:
                await asyncio.to_thread(self.money.pay_out, entry)
            elif entry.clock is not None:
                self._start_timer(entry)

    async def stop(self) -> None:
        """With the app: stop every clock after the step it is taking."""
        self._loop = None
        timers, self._timers = self._timers, {}
        for timer in timers.values():
            await timer.stop()

    def cancel(self, entry: Entry, reason: str) -> dict[str, Any]:
        """Call the tournament off (T8.4), then give every entry fee back: its
        line of the list, with the refunds (``cancelled``)."""
        with entry.lock:
            entry.tournament.cancel(reason)
        self.money.pay_out(entry)  # a payout that fails is finished by the clock or the next start
        with entry.lock:
            return {
                **views.summary(entry.tournament),
                "cancelled": self._results(entry.tournament)["cancelled"],
            }

    # -- what the routes read and do, each under the tournament's lock ----------------

    def summary(self, entry: Entry) -> dict[str, Any]:
        """The tournament's line of the list, read without its lock: it never
        waits behind an ``advance`` of thousands of steps (and may be a step
        behind it)."""
        return views.summary(entry.tournament)

    def snapshot(self, entry: Entry) -> dict[str, Any]:
        with entry.lock:
            return views.snapshot(entry)

    def leaderboard(self, entry: Entry) -> dict[str, Any]:
        with entry.lock:
            return entry.tournament.leaderboard()

    def results(self, entry: Entry) -> dict[str, Any]:
        with entry.lock:
            return self._results(entry.tournament)

    def _results(self, t: Tournament) -> dict[str, Any]:
        return views.results(t, self.money.payments(t) if t.stage.over else {})

    def register_entrant(
        self, entry: Entry, name: str, controller: str, entrant: str | None
    ) -> StaffEntry:
        """The staff enter someone for free (a person or an automated entrant)."""
        t = entry.tournament
        with entry.lock:
            new_id = t.register(name, controller, entrant=entrant)
            return StaffEntry(new_id, t.entrants[new_id].name, controller)

    def start_session(self, entry: Entry) -> dict[str, Any]:
        """The next session, its seats drawn: the tournament's line of the list."""
        with entry.lock:
            entry.tournament.start_session()
            return views.summary(entry.tournament)

    def place_bets(
        self,
        entry: Entry,
        username: str,
        lines: list[tuple[str, int]],
        *,
        pass_hand: bool = False,
        replace: bool = False,
    ) -> EntrantBets:
        """A player's bets on the hand being bet at their table, or a pass; with
        ``replace``, the bets already placed on the hand are withdrawn first (T4.6)."""
        t = entry.tournament
        with entry.lock:
            e = t.entrant(username)
            table = t.tables.get(e.table) if e.table is not None else None
            if pass_hand:
                t.pass_hand(e.id)
            elif replace and table is not None and e.id in table.bets:
                t.replace_bets(e.id, lines)
            else:
                t.place_bets(e.id, lines)
            return EntrantBets.of(t, e.id)

    def withdraw_bets(self, entry: Entry, username: str) -> EntrantBets:
        t = entry.tournament
        with entry.lock:
            e = t.entrant(username)
            t.withdraw_bets(e.id)
            return EntrantBets.of(t, e.id)

    def choose_tiebreak(self, entry: Entry, username: str, side: str) -> TiebreakChoice:
        t = entry.tournament
        with entry.lock:
            e = t.entrant(username)
            t.choose_tiebreak(e.id, side)
            tb = t.tiebreak
            return TiebreakChoice(
                entrant=e.id,
                side=side,
                open_sides=tuple(t.tiebreak_sides()),
                chosen=() if tb is None else tuple(sorted(tb.choices)),
            )


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
