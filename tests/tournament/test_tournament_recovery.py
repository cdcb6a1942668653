"""Crash and restart: a tournament resumed from its log ends exactly as an
uninterrupted one.

A tournament of 20 entrants at 3 tables (format ``daily``: a 30-hand
qualifying session and a 30-hand final) is run to the end through the
public API with automated entrants.  The same tournament is then run again
and "killed" -- every in-memory object dropped, the SQLite file closed -- at
awkward moments (bets half placed, betting closed before the deal, a
sudden-death hand half chosen, between sessions, in the final), reopened
from the same file and run on.  The final standings and the whole event log
must be those of the uninterrupted run.

The killed runs keep their log with SQLite's ``synchronous=NORMAL``, which
survives the process dying at any instant (what is simulated here) and is
fast; one run writes with the default ``FULL`` (which also survives a power
cut) up to its kill.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from punto.eventlog import EventLog, MemoryEventLog, Stored
from punto.store import db
from punto.store.sql_log import SQLEventLog
from punto.tournament import (
    Stage,
    Tournament,
    TournamentLogError,
    get_format,
)
from punto.tournament.events import (
    TOURNAMENT_STREAM,
    HandSettled,
    SessionStarted,
    TiebreakOpened,
    TournamentEvent,
    event_to_json,
)
from punto.tournament.runner import Runner
from punto.tournament.tournament import Phase

SEED = "recovery-3"
ENTRANTS = 20
TABLES = 3


def start(log: EventLog[TournamentEvent]) -> Runner:
    t = Tournament.create(log, "cup", get_format("daily"), seed=SEED, tables=TABLES)
    runner = Runner(t)
    runner.enter(bots=ENTRANTS)
    return runner


def outcome(
    log: EventLog[TournamentEvent],
) -> tuple[list[tuple[str, int, str, int | None]], list[dict[str, Any]]]:
    """Final standings (entrant, place, prize, chips) and every event, as JSON."""
    t = Tournament.open(log, "cup")
    assert t.stage is Stage.FINISHED
    standings = [
        (p.entrant, p.place, p.prize, r["chips"])
        for p, r in zip(t.results, t.result_rows(), strict=True)
    ]
    return standings, [event_to_json(e.event) for e in log.read("cup")]


def sqlite(path: Path, synchronous: str = "NORMAL") -> SQLEventLog[TournamentEvent]:
    """The log in a SQLite file, as ``punto tournament --database`` opens it
    (migrated, fully synchronous).  ``NORMAL`` (with the write-ahead log)
    still survives the process being killed at any moment -- all most of
    these tests need -- at a fraction of the cost."""
    engine = db.connect(f"sqlite:///{path}")
    if synchronous != "FULL":

        @event.listens_for(engine, "connect")
        def _relaxed(connection: Any, _record: Any) -> None:
            connection.execute(f"PRAGMA synchronous={synchronous}")

        engine.dispose()  # the connection the migration used was fully synchronous
    return SQLEventLog(engine, TOURNAMENT_STREAM)


@pytest.fixture(scope="module")
def uninterrupted() -> tuple[Any, Any]:
    log = MemoryEventLog(TOURNAMENT_STREAM)
    runner = start(log)
    assert runner.run() == 0
    t = runner.t
    assert len(t.entrants) == ENTRANTS
    events = [e.event for e in log.read("cup")]
    # the run had what the kills below need: 3 tables, a sudden-death hand, a final
    assert [len(x.seats) for x in events if isinstance(x, SessionStarted)] == [20, 6]
    assert any(isinstance(x, TiebreakOpened) for x in events)
    return outcome(log)


Predicate = Callable[[Tournament], bool]


def bets_half_placed(t: Tournament) -> bool:
    return t.session_number == 1 and any(
        x.phase is Phase.BETTING and x.settled >= 12 and len(x.bets) >= 2 and t.awaiting(x.number)
        for x in t.tables.values()
    )


def betting_closed(t: Tournament) -> bool:
    return t.session_number == 1 and any(
        x.phase is Phase.CLOSED and x.settled == 19 for x in t.tables.values()
    )


def sudden_death_half_chosen(t: Tournament) -> bool:
    return t.tiebreak is not None and len(t.tiebreak.choices) == 1


def between_sessions(t: Tournament) -> bool:
    return t.stage is Stage.BETWEEN


def in_the_final(t: Tournament) -> bool:
    s = t.session
    return (
        s is not None and s.final and t.tables[1].phase is Phase.BETTING and t.tables[1].hand == 17
    )


def run_with_kill(
    path: Path, kill: Predicate, synchronous: str = "NORMAL"
) -> tuple[int, dict[str, Any]]:
    """Run until ``kill`` holds, drop everything, reopen and finish; the step
    at which it died and the state it died in."""
    log = sqlite(path, synchronous)
    runner = start(log)
    steps = 0
    while not kill(runner.t):
        assert runner.step(), "the tournament ended before the kill point"
        steps += 1
    before = runner.t.snapshot()
    del runner
    log.close()  # the process is gone; only the file remains

    log = sqlite(path)
    t = Tournament.open(log, "cup")
    assert t.snapshot() == before  # resumed exactly where it stood
    assert Runner(t).run() == 0
    log.close()
    return steps, before


@pytest.mark.parametrize(
    "kill",
    [bets_half_placed, betting_closed, sudden_death_half_chosen, between_sessions, in_the_final],
)
def test_killed_and_restarted_ends_as_uninterrupted(
    tmp_path: Path, uninterrupted: tuple[Any, Any], kill: Predicate
) -> None:
    path = tmp_path / "cup.db"
    steps, _ = run_with_kill(path, kill)
    assert steps > 0
    standings, events = outcome(sqlite(path))
    assert standings == uninterrupted[0]
    assert events == uninterrupted[1]


def test_killed_with_full_durability(tmp_path: Path, uninterrupted: tuple[Any, Any]) -> None:
    path = tmp_path / "cup.db"
    run_with_kill(
        path,
        lambda t: t.session_number == 1 and t.tables[2].settled == 8 and bets_half_placed_at(t, 2),
        synchronous="FULL",
    )
    assert outcome(sqlite(path)) == uninterrupted


def bets_half_placed_at(t: Tournament, table: int) -> bool:
    x = t.tables[table]
    return x.phase is Phase.BETTING and len(x.bets) >= 1 and bool(t.awaiting(table))


def test_killed_again_and_again(tmp_path: Path, uninterrupted: tuple[Any, Any]) -> None:
    """Restart after every 97 actions, from the first to the last."""
    path = tmp_path / "cup.db"
    log = sqlite(path)
    runner = start(log)
    restarts = 0
    while True:
        for _ in range(97):
            if not runner.step():
                break
        else:
            log.close()
            log = sqlite(path)
            runner = Runner(Tournament.open(log, "cup"))
            restarts += 1
            continue
        break
    assert restarts > 10
    assert outcome(log) == uninterrupted


class FailingLog:
    """A log whose disk is full from the n-th append."""

    def __init__(self, inner: EventLog[TournamentEvent], fail_from: int) -> None:
        self.inner = inner
        self.fail_from = fail_from

    def append(
        self,
        stream_id: str,
        event: TournamentEvent,
        *,
        round_id: str = "",
        expected: int | None = None,
    ) -> int:
        if expected is None or expected >= self.fail_from:
            raise TournamentLogError("cannot append to the tournament log: disk full")
        return self.inner.append(stream_id, event, round_id=round_id, expected=expected)

    def read(self, stream_id: str) -> list[Stored[TournamentEvent]]:
        return self.inner.read(stream_id)

    def streams(self) -> list[str]:
        return self.inner.streams()


def test_nothing_changes_unless_the_event_is_stored() -> None:
    memory = MemoryEventLog(TOURNAMENT_STREAM)
    runner = start(memory)
    for _ in range(40):
        runner.step()
    t = Tournament.open(FailingLog(memory, memory.read("cup")[-1].seq + 1), "cup")
    before = json.dumps(t.snapshot(), sort_keys=True)
    with pytest.raises(TournamentLogError, match="disk full"):
        Runner(t).step()
    assert json.dumps(t.snapshot(), sort_keys=True) == before
    assert Runner(Tournament.open(memory, "cup")).run() == 0


def test_two_writers_cannot_interleave(tmp_path: Path) -> None:
    path = tmp_path / "cup.db"
    runner = start(sqlite(path))
    stale = Tournament.open(sqlite(path), "cup")
    runner.step()  # the first writer moves on
    with pytest.raises(TournamentLogError, match="written by someone else"):
        Runner(stale).step()
    fresh = Tournament.open(sqlite(path), "cup")
    assert fresh.seq == runner.t.seq


def test_sqlalchemy_store_resumes_too(tmp_path: Path, uninterrupted: tuple[Any, Any]) -> None:
    runner = start(sqlite(tmp_path / "server.db"))
    for _ in range(700):
        runner.step()
    log = sqlite(tmp_path / "server.db")
    assert log.streams() == ["cup"]
    assert Runner(Tournament.open(log, "cup")).run() == 0
    assert outcome(log) == uninterrupted


def test_open_refuses_a_log_that_does_not_replay(tmp_path: Path) -> None:
    memory = MemoryEventLog(TOURNAMENT_STREAM)
    runner = start(memory)
    for _ in range(30):
        runner.step()
    events = memory.read("cup")
    tampered = MemoryEventLog(TOURNAMENT_STREAM)
    for item in events:
        event = item.event
        if isinstance(event, HandSettled):
            event = dataclasses.replace(event, cards="9H 9D 9C 9S")
        tampered.append("cup", event, expected=item.seq)
    with pytest.raises(TournamentLogError, match=r"event \d+ \(hand_settled\) cannot be replayed"):
        Tournament.open(tampered, "cup")
    with pytest.raises(TournamentLogError, match="no tournament 'nope'"):
        Tournament.open(memory, "nope")
