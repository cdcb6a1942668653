"""The event log in the database: :class:`punto.eventlog.EventLog` on SQLite or PostgreSQL.

A stream's records are rows of the table the migrations made for its family
(``table_events``, ``tournament_events``), keyed by the stream's id and its
number; an append reads the stream's last number and inserts the next in one
transaction, so a process killed at any instant leaves a prefix of the log,
never half a record.  Two appenders that read the same last number both try
to insert the next: the primary key takes the first.  The second is tried
again (an append without ``expected``: it gets the number after) or refused
with the stream's conflict error (with ``expected``: it was behind).

>>> from punto.store.db import connect
>>> from punto.table.events import TABLE_STREAM, RoundOpened
>>> log = SQLEventLog(connect("sqlite://"), TABLE_STREAM)   # in memory
>>> log.append("t1", RoundOpened("r1"), round_id="r1")
1
>>> [(e.seq, e.round_id, e.event.type) for e in log.read("t1")]
[(1, 'r1', 'round_opened')]
>>> log.append("t1", RoundOpened("r2"), round_id="r2", expected=1)
Traceback (most recent call last):
...
punto.eventlog.LogConflictError: event 1 of table 't1' was written by someone else; reload the table from its log
"""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar

from sqlalchemy import Table, func, insert, literal, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from punto.eventlog import Stored, Stream
from punto.store import db
from punto.store.columns import UTCDateTime, utc_now
from punto.store.errors import StoreError

__all__ = ["SQLEventLog", "read_stream", "stream_ids"]

R = TypeVar("R")

#: Each family's table, as the migrations make it.
_TABLES = {"table": db.table_events, "tournament": db.tournament_events}


def _table(stream: Stream[Any]) -> Table:
    try:
        return _TABLES[stream.name]
    except KeyError:
        raise StoreError(
            f"the database keeps no {stream.name} events",
            hint=f"a stream is one of {', '.join(_TABLES)}",
        ) from None


def read_stream(
    bind: Engine | Connection, stream: Stream[R], stream_id: str, *, after: int = 0
) -> list[Stored[R]]:
    """Every record of a stream after number ``after``, in order, whoever wrote
    it (on an engine, or in the caller's open transaction ``bind``)."""
    t = _table(stream)
    key = t.c[f"{stream.name}_id"]
    rounds = t.c.round_id if stream.rounds else literal("")
    query = (
        select(t.c.seq, rounds, t.c.body).where(key == stream_id, t.c.seq > after).order_by(t.c.seq)
    )
    try:
        if isinstance(bind, Connection):
            rows = bind.execute(query).all()
        else:
            with bind.connect() as conn:
                rows = conn.execute(query).all()
    except DBAPIError as error:
        raise StoreError(f"cannot read the {stream.name} log: {error.orig}") from error
    decode = stream.decode
    return [Stored(int(seq), str(round_id), decode(body)) for seq, round_id, body in rows]


def stream_ids(engine: Engine, stream: Stream[Any]) -> list[str]:
    """The ids of the streams of ``stream``'s family that have records, in order."""
    key = _table(stream).c[f"{stream.name}_id"]
    try:
        with engine.connect() as conn:
            return [str(v) for v in conn.execute(select(key).distinct().order_by(key)).scalars()]
    except DBAPIError as error:
        raise StoreError(f"cannot read the {stream.name} log: {error.orig}") from error


class SQLEventLog(Generic[R]):
    """One family of streams in the database whose schema the migrations keep
    (:func:`punto.store.db.connect` brings it to the newest revision)."""

    def __init__(self, engine: Engine, stream: Stream[R], *, attempts: int = 100) -> None:
        self.engine = engine
        self.stream = stream
        self._attempts = attempts
        self._table = _table(stream)
        self._key = self._table.c[f"{stream.name}_id"]
        # the tables' recorded_at differ: an aware UTC time here, the database's text there
        self._stamped = isinstance(self._table.c.recorded_at.type, UTCDateTime)
        # Appends from one process queue here rather than fight in the database.
        self._lock = threading.Lock()

    def append(
        self, stream_id: str, event: R, *, round_id: str = "", expected: int | None = None
    ) -> int:
        body = self.stream.encode(stream_id, event, round_id)

        def work(conn: Connection) -> int:
            return self._insert(conn, stream_id, event, round_id, body, expected)

        try:
            with self._lock:
                return db.run_transaction(
                    self.engine, work, attempts=self._attempts, retry_integrity=expected is None
                )
        except IntegrityError as error:
            if expected is None:
                raise StoreError(
                    f"cannot append to the {self.stream.name} log: {error.orig}"
                ) from error
            raise self.stream.conflicting(stream_id, expected) from None
        except DBAPIError as error:
            raise StoreError(
                f"cannot append to the {self.stream.name} log: {error.orig}"
            ) from error

    def append_within(
        self,
        conn: Connection,
        stream_id: str,
        event: R,
        *,
        round_id: str = "",
        expected: int | None = None,
    ) -> int:
        """:meth:`append` in the caller's open write transaction (with the money
        an entry costs, say): it commits or rolls back with the rest.  A number
        taken raises the stream's conflict error (or, if another writer took it
        meanwhile, the database's ``IntegrityError`` at the insert)."""
        body = self.stream.encode(stream_id, event, round_id)
        return self._insert(conn, stream_id, event, round_id, body, expected)

    def _insert(
        self,
        conn: Connection,
        stream_id: str,
        event: R,
        round_id: str,
        body: str,
        expected: int | None,
    ) -> int:
        t = self._table
        last = conn.execute(
            select(func.coalesce(func.max(t.c.seq), 0)).where(self._key == stream_id)
        ).scalar_one()
        seq = int(last) + 1
        if expected is not None and expected != seq:
            raise self.stream.conflicting(stream_id, expected)
        values: dict[str, Any] = {
            self._key.name: stream_id,
            "seq": seq,
            "type": getattr(event, "type"),  # noqa: B009 - every record's registered name
            "body": body,
        }
        if self.stream.rounds:
            values["round_id"] = round_id
        if self._stamped:
            values["recorded_at"] = utc_now()
        conn.execute(insert(t).values(**values))
        return seq

    def read(self, stream_id: str) -> list[Stored[R]]:
        return read_stream(self.engine, self.stream, stream_id)

    def streams(self) -> list[str]:
        return stream_ids(self.engine, self.stream)

    def close(self) -> None:
        """Let go of the database (the engine's connections)."""
        self.engine.dispose()
