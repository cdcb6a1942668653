"""One contract for every event log (one event-log abstraction): the
log in memory, the SQL log on SQLite and PostgreSQL and the server's journal
(a table's log) number, keep, list and refuse alike, for both streams."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from punto.errors import PuntoError
from punto.eventlog import EventLog, LogConflictError, MemoryEventLog, Stored, Stream
from punto.rules.cards import Card
from punto.server.tables.journal import Journal, JournalEventLog
from punto.store import db
from punto.store.errors import StoreError
from punto.store.eventlog import open_event_log
from punto.store.sql_log import SQLEventLog
from punto.table.events import TABLE_STREAM, BetPlaced, BetsClosed, CardDealt, RoundOpened
from punto.tournament.errors import TournamentLogError
from punto.tournament.events import (
    TOURNAMENT_STREAM,
    BetLine,
    BetsPlaced,
    TournamentEvent,
    TournamentFinished,
)
from tests.db_fixtures import fresh_database

#: Where a log is kept: in memory, in the database through SQLEventLog, or
#: through the server's journal (a table's log only), on each backend.
WHERE = [
    ("memory", ""),
    ("sql", "sqlite"),
    ("sql", "postgresql"),
    ("journal", "sqlite"),
    ("journal", "postgresql"),
]

#: Three records of each stream, with what their stored form must keep
#: (amounts as decimals, cards, nested records).
RECORDS: dict[str, list[Any]] = {
    "table": [
        RoundOpened("r1"),
        BetPlaced("b1", "ann", 3, "banker", Decimal("100.50")),
        CardDealt(Card.parse("QH"), source="reader"),
    ],
    "tournament": [
        BetsPlaced(1, 2, 7, "e3", (BetLine("banker", 5000),)),
        BetsPlaced(1, 2, 8, "e4", (BetLine("tie", 100), BetLine("player", 900))),
        TournamentFinished(()),
    ],
}
STREAMS: dict[str, Stream[Any]] = {"table": TABLE_STREAM, "tournament": TOURNAMENT_STREAM}
#: What a conflicting append raises, by stream.
CONFLICT: dict[str, type[PuntoError]] = {
    "table": LogConflictError,
    "tournament": TournamentLogError,
}

Opener = Callable[[], EventLog[Any]]


#: Every log of every stream (the journal keeps the tables' logs only).
KINDS = [(w, b, s) for w, b in WHERE for s in STREAMS if w != "journal" or s == "table"]


def _marked(kinds: list[tuple[str, str, str]]) -> list[Any]:
    """``kinds`` as parameters, those on PostgreSQL marked so."""
    return [
        pytest.param(k, id="-".join(k), marks=pytest.mark.postgres if k[1] == "postgresql" else ())
        for k in kinds
    ]


@pytest.fixture(params=_marked(KINDS))
def kind(request: pytest.FixtureRequest) -> tuple[str, str, str]:
    """(where, backend, stream)"""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def opener(kind: tuple[str, str, str], tmp_path: Path) -> Iterator[Opener]:
    """Opens another handle on one log: another process, as far as the log can tell."""
    where, backend, name = kind
    stream = STREAMS[name]
    if where == "memory":
        log = MemoryEventLog(stream)
        yield lambda: log
        return
    closers: list[Callable[[], None]] = []
    with fresh_database(backend, tmp_path) as url:
        db.migrate(url)

        def open_log() -> EventLog[Any]:
            engine = db.connect(url, migrate=False)
            closers.append(engine.dispose)
            if where == "sql":
                return SQLEventLog(engine, stream)
            journal = Journal(engine)
            closers.append(journal.close)
            return JournalEventLog(journal)

        try:
            yield open_log
        finally:
            for close in reversed(closers):
                close()


def test_every_log_numbers_each_stream_from_one_and_gives_back_what_it_was_given(
    kind: tuple[str, str, str], opener: Opener
) -> None:
    name = kind[2]
    log, records = opener(), RECORDS[name]
    rounds = name == "table"
    numbers = [log.append("s1", r, round_id="r1" if rounds else "") for r in records]
    assert numbers == [1, 2, 3]
    assert log.append("s2", records[0]) == 1  # numbered per stream
    expected = [Stored(n, "r1" if rounds else "", r) for n, r in enumerate(records, 1)]
    assert log.read("s1") == expected
    assert opener().read("s1") == expected  # as any other reader sees it
    assert log.read("s2") == [Stored(1, "", records[0])]
    assert log.read("nowhere") == []
    assert log.streams() == ["s1", "s2"]


def test_every_log_refuses_a_conflicting_append_and_writes_nothing(
    kind: tuple[str, str, str], opener: Opener
) -> None:
    name = kind[2]
    log, records = opener(), RECORDS[name]
    assert log.append("s1", records[0], expected=1) == 1
    assert log.append("s1", records[1], expected=2) == 2
    before = log.read("s1")
    for taken_or_ahead in (1, 2, 4):
        with pytest.raises(CONFLICT[name], match=f"event {taken_or_ahead} of {name} 's1'"):
            log.append("s1", records[2], expected=taken_or_ahead)
    assert log.read("s1") == before
    assert log.append("s1", records[2], expected=3) == 3
    assert opener().append("s1", records[0]) == 4  # without a number: the next


def test_two_writers_expecting_the_same_number_one_is_refused(
    kind: tuple[str, str, str], opener: Opener
) -> None:
    """The optimistic append across processes: both read the log at n, both
    write n + 1; exactly one record is written, the other writer is told."""
    name = kind[2]
    records = RECORDS[name]
    writers = [opener(), opener()]
    writers[0].append("s1", records[0], expected=1)
    barrier = threading.Barrier(2)
    outcomes: list[object] = [None, None]

    def write(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = writers[i].append("s1", records[i + 1], expected=2)
        except PuntoError as refused:
            outcomes[i] = refused

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(o == 2 for o in outcomes) == [False, True], outcomes
    (refused,) = [o for o in outcomes if o != 2]
    assert isinstance(refused, CONFLICT[name])
    stored = writers[0].read("s1")
    assert [s.seq for s in stored] == [1, 2]
    assert stored[1].event == records[1 + outcomes.index(2)]


@pytest.mark.parametrize("kind", _marked([k for k in KINDS if k[2] == "tournament"]))
def test_a_stream_without_rounds_refuses_a_round_id(opener: Opener) -> None:
    log = opener()
    with pytest.raises(TournamentLogError, match="belong to no round"):
        log.append("s1", TournamentFinished(()), round_id="r1")
    assert log.read("s1") == []


# -- opening a log by URL -------------------------------------------------------------


def test_open_event_log_in_memory_in_a_migrated_file_or_refused(tmp_path: Path) -> None:
    assert isinstance(open_event_log("memory:", TABLE_STREAM), MemoryEventLog)
    path = tmp_path / "cli.db"
    log = open_event_log(str(path), TABLE_STREAM)
    assert isinstance(log, SQLEventLog)
    log.append("t1", BetsClosed(), round_id="r1")
    assert db.current_revision(log.engine) == db.head_revision()  # the migrations' schema
    log.close()
    again = open_event_log(f"sqlite:///{path}", TABLE_STREAM)
    assert [s.event for s in again.read("t1")] == [BetsClosed()]
    with pytest.raises(StoreError, match="unsupported event log URL") as refused:
        open_event_log("mysql://db/punto", TABLE_STREAM)
    assert refused.value.hint is not None


#: The table the stdlib tournament log (``SQLiteTournamentLog``, raw SQL, before
#: the one event log) made in a SQLite file of ``punto tournament --database``.
_STDLIB_TOURNAMENT_EVENTS = """
CREATE TABLE tournament_events (
    tournament_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
    body TEXT NOT NULL, recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (tournament_id, seq)
)
"""


def test_a_stdlib_tournament_log_file_is_adopted_with_its_events(tmp_path: Path) -> None:
    path = tmp_path / "cup.db"
    first: TournamentEvent = RECORDS["tournament"][0]
    old = sqlite3.connect(path)
    old.execute(_STDLIB_TOURNAMENT_EVENTS)
    old.execute(
        "INSERT INTO tournament_events (tournament_id, seq, type, body) VALUES (?, ?, ?, ?)",
        ("cup", 1, first.type, TOURNAMENT_STREAM.encode("cup", first, "")),
    )
    old.commit()
    old.close()
    log = open_event_log(str(path), TOURNAMENT_STREAM)
    assert log.read("cup") == [Stored(1, "", first)]
    assert log.append("cup", TournamentFinished(()), expected=2) == 2
    with pytest.raises(TournamentLogError, match="written by someone else"):
        log.append("cup", TournamentFinished(()), expected=2)
