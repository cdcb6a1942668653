"""Where a tournament's events are kept: append-only, written before acknowledged.

Each event is stored with its tournament and a sequence number; the writer
says which number it expects to write, and the store refuses a number that
is taken, so two processes driving one tournament can never interleave
events (the second is told to reload).  An append commits whole or not at
all: a process killed at any instant leaves a prefix of the log.

Three stores share the :class:`TournamentLog` protocol:

* :class:`MemoryTournamentLog` -- for tests and throwaway runs;
* :class:`SQLiteTournamentLog` -- a ``tournament_events`` table in a SQLite
  file (WAL, fully synchronous commits), which may be the same file as the
  table event log of :class:`punto.store.eventlog.SQLiteEventLog`;
* :class:`SQLTournamentLog` -- the same table through SQLAlchemy, for the
  server's database (SQLite or PostgreSQL).

>>> from punto.tournament.events import TournamentFinished
>>> log = SQLiteTournamentLog(":memory:")
>>> log.append("t1", 1, TournamentFinished(()))
1
>>> [(e.seq, e.event.type) for e in log.read("t1")]
[(1, 'tournament_finished')]
>>> log.append("t1", 1, TournamentFinished(()))
Traceback (most recent call last):
...
punto.tournament.errors.TournamentLogError: event 1 of tournament 't1' was written by someone else; reload the tournament from its log
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from punto.tournament.errors import TournamentLogError
from punto.tournament.events import TournamentEvent, event_from_json, event_to_json

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine


@dataclass(frozen=True, slots=True)
class StoredTournamentEvent:
    seq: int
    event: TournamentEvent


class TournamentLog(Protocol):
    def append(self, tournament_id: str, seq: int, event: TournamentEvent) -> int:
        """Store ``event`` durably as number ``seq`` (the next one); returns ``seq``."""
        ...

    def read(self, tournament_id: str) -> list[StoredTournamentEvent]:
        """Every event of the tournament, in order."""
        ...

    def tournaments(self) -> list[str]:
        """The tournaments in the log, by id."""
        ...


def _conflict(tournament_id: str, seq: int) -> TournamentLogError:
    return TournamentLogError(
        f"event {seq} of tournament {tournament_id!r} was written by someone else",
        hint="reload the tournament from its log",
    )


class MemoryTournamentLog:
    """A tournament log in memory."""

    def __init__(self) -> None:
        self._events: dict[str, list[StoredTournamentEvent]] = {}
        self._lock = threading.Lock()

    def append(self, tournament_id: str, seq: int, event: TournamentEvent) -> int:
        with self._lock:
            events = self._events.setdefault(tournament_id, [])
            if seq != len(events) + 1:
                raise _conflict(tournament_id, seq)
            # store the JSON round trip, as a database would
            events.append(StoredTournamentEvent(seq, event_from_json(event_to_json(event))))
        return seq

    def read(self, tournament_id: str) -> list[StoredTournamentEvent]:
        with self._lock:
            return list(self._events.get(tournament_id, []))

    def tournaments(self) -> list[str]:
        with self._lock:
            return sorted(k for k, v in self._events.items() if v)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament_events (
    tournament_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (tournament_id, seq)
)
"""


class SQLiteTournamentLog:
    """The tournament log in a SQLite file.

    ``synchronous`` is SQLite's setting: ``FULL`` (the default) makes every
    append survive a power cut; ``NORMAL`` (with the write-ahead log) still
    survives the process being killed at any moment, at a fraction of the cost.
    """

    def __init__(self, path: str, *, synchronous: str = "FULL") -> None:
        self.path = path
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise TournamentLogError(
                f"synchronous must be FULL, NORMAL or EXTRA, not {synchronous!r}"
            )
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as error:
            raise TournamentLogError(f"cannot open the tournament log {path!r}: {error}") from None
        self._lock = threading.Lock()

    def append(self, tournament_id: str, seq: int, event: TournamentEvent) -> int:
        body = json.dumps(event_to_json(event), sort_keys=True)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM tournament_events WHERE tournament_id = ?",
                    (tournament_id,),
                ).fetchone()
                if int(last) != seq - 1:
                    self._db.execute("ROLLBACK")
                    raise _conflict(tournament_id, seq)
                self._db.execute(
                    "INSERT INTO tournament_events (tournament_id, seq, type, body) "
                    "VALUES (?, ?, ?, ?)",
                    (tournament_id, seq, event.type, body),
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as error:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise TournamentLogError(f"cannot append to the tournament log: {error}") from None
        return seq

    def read(self, tournament_id: str) -> list[StoredTournamentEvent]:
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT seq, body FROM tournament_events WHERE tournament_id = ? ORDER BY seq",
                    (tournament_id,),
                ).fetchall()
            except sqlite3.Error as error:
                raise TournamentLogError(f"cannot read the tournament log: {error}") from None
        return [
            StoredTournamentEvent(int(seq), event_from_json(json.loads(body))) for seq, body in rows
        ]

    def tournaments(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT tournament_id FROM tournament_events ORDER BY tournament_id"
            ).fetchall()
        return [str(r[0]) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class SQLTournamentLog:
    """The tournament log through SQLAlchemy Core (SQLite or PostgreSQL).

    The ``tournament_events`` table is created when missing (``create``);
    a server whose schema is managed by Alembic adds it in a migration
    instead (its columns are those of :data:`_SCHEMA`).
    """

    def __init__(self, engine: Engine, *, create: bool = True) -> None:
        from sqlalchemy import Column, Integer, MetaData, String, Table, Text, func

        self._engine = engine
        self._metadata = MetaData()
        self._table = Table(
            "tournament_events",
            self._metadata,
            Column("tournament_id", String(200), primary_key=True),
            Column("seq", Integer, primary_key=True, autoincrement=False),
            Column("type", String(64), nullable=False),
            Column("body", Text, nullable=False),
            Column("recorded_at", String(40), nullable=False, server_default=func.now()),
        )
        if create:
            self._metadata.create_all(engine, checkfirst=True)
        self._lock = threading.Lock()

    def append(self, tournament_id: str, seq: int, event: TournamentEvent) -> int:
        from sqlalchemy import func, insert, select
        from sqlalchemy.exc import DBAPIError, IntegrityError

        body = json.dumps(event_to_json(event), sort_keys=True)
        t = self._table
        with self._lock:
            try:
                with self._engine.begin() as conn:
                    last = conn.execute(
                        select(func.coalesce(func.max(t.c.seq), 0)).where(
                            t.c.tournament_id == tournament_id
                        )
                    ).scalar_one()
                    if int(last) != seq - 1:
                        raise _conflict(tournament_id, seq)
                    conn.execute(
                        insert(t).values(
                            tournament_id=tournament_id, seq=seq, type=event.type, body=body
                        )
                    )
            except IntegrityError:
                raise _conflict(tournament_id, seq) from None
            except DBAPIError as error:
                raise TournamentLogError(
                    f"cannot append to the tournament log: {error.orig}"
                ) from None
        return seq

    def append_within(
        self, conn: Connection, tournament_id: str, seq: int, event: TournamentEvent
    ) -> int:
        """:meth:`append` in the caller's open write transaction (with the
        money an entry costs, say): it commits or rolls back with the rest.
        A number already taken raises :class:`TournamentLogError` (or, if
        another writer took it meanwhile, the database's ``IntegrityError``)."""
        from sqlalchemy import func, insert, select

        body = json.dumps(event_to_json(event), sort_keys=True)
        t = self._table
        last = conn.execute(
            select(func.coalesce(func.max(t.c.seq), 0)).where(t.c.tournament_id == tournament_id)
        ).scalar_one()
        if int(last) != seq - 1:
            raise _conflict(tournament_id, seq)
        conn.execute(
            insert(t).values(tournament_id=tournament_id, seq=seq, type=event.type, body=body)
        )
        return seq

    def read(self, tournament_id: str) -> list[StoredTournamentEvent]:
        from sqlalchemy import select
        from sqlalchemy.exc import DBAPIError

        t = self._table
        try:
            with self._engine.connect() as conn:
                rows = conn.execute(
                    select(t.c.seq, t.c.body)
                    .where(t.c.tournament_id == tournament_id)
                    .order_by(t.c.seq)
                ).all()
        except DBAPIError as error:
            raise TournamentLogError(f"cannot read the tournament log: {error.orig}") from None
        return [
            StoredTournamentEvent(int(seq), event_from_json(json.loads(body))) for seq, body in rows
        ]

    def tournaments(self) -> list[str]:
        from sqlalchemy import select

        t = self._table
        with self._engine.connect() as conn:
            return [
                str(v)
                for v in conn.execute(
                    select(t.c.tournament_id).distinct().order_by(t.c.tournament_id)
                ).scalars()
            ]
