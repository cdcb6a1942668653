"""A database connection kept by one writer, rather than taken from the pool
for each transaction.

A pool checks a connection each time it hands it out (one round trip), and
on a busy machine each round trip waits for a core; a writer that runs one
batch at a time -- the journal, a batcher of forwarded requests, the relay
of watchers' messages -- keeps its connection instead.  The connection is
opened on first use, can be looked at after it sat idle (as the pool looks
at every one), and is opened anew after it failed.

>>> from sqlalchemy import create_engine, text
>>> kept = KeptConnection(create_engine("sqlite://"), autocommit=True)
>>> kept.run(lambda conn: conn.execute(text("SELECT 41 + 1")).scalar_one())
42
>>> kept.get() is kept.get()
True
>>> kept.drop()
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

__all__ = ["KeptConnection"]

T = TypeVar("T")


class KeptConnection:
    """One connection of ``engine``, kept for one user at a time.

    ``autocommit``: each statement its own transaction (one round trip for a
    statement that writes and announces, say).  ``idle_seconds``: look at the
    connection before using it again after that long unused (None: never).
    ``prepare``: run on each new connection (its execution options)."""

    def __init__(
        self,
        engine: Engine,
        *,
        autocommit: bool = False,
        idle_seconds: float | None = 30.0,
        prepare: Callable[[Connection], None] | None = None,
    ) -> None:
        self.engine = engine
        self._autocommit = autocommit
        self._idle_seconds = idle_seconds
        self._prepare = prepare
        self._conn: Connection | None = None
        self._used = 0.0  # time.monotonic() of the last get()

    def get(self) -> Connection:
        """The connection, opened if there is none (or the idle one was gone)."""
        now = time.monotonic()
        if (
            self._conn is not None
            and self._idle_seconds is not None
            and now - self._used > self._idle_seconds
            and not self._alive(self._conn)
        ):
            self.drop()
        if self._conn is None:
            conn = self.engine.connect()
            if self._autocommit:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            if self._prepare is not None:
                self._prepare(conn)
            self._conn = conn
        self._used = now
        return self._conn

    def drop(self) -> None:
        """Let the connection go (after a failure: the next :meth:`get` opens another)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.invalidate()
            with contextlib.suppress(Exception):
                conn.close()

    def run(self, work: Callable[[Connection], T], *, again: bool = True) -> T:
        """``work`` on the connection; dropped if it fails.  With ``again``,
        ``work`` -- which must be safe to repeat -- is tried once more on a new
        connection when the old one was found gone."""
        for attempt in (1, 2):
            conn = self.get()
            try:
                return work(conn)
            except DBAPIError as error:
                self.drop()
                if not (again and attempt == 1 and error.connection_invalidated):
                    raise
            except BaseException:
                self.drop()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _alive(self, conn: Connection) -> bool:
        try:
            dbapi = conn.connection.dbapi_connection
            if dbapi is None:
                return False
            return bool(self.engine.dialect.do_ping(dbapi))
        except Exception:
            return False
