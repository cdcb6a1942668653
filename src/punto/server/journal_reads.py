"""Quick reads beside the journal: a few connections kept open for the hot path's lookups.

:class:`Reader` answers one-row reads without a pool checkout or a transaction
left open; :class:`RequestLookup` gathers the bet requests' idempotency
lookups so the event loop never waits on a round trip of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.engine import Engine

from punto.store.ledger_sql import chunks

T = TypeVar("T")


def settle(settled: list[tuple[asyncio.Future[Any], Any]]) -> None:
    """In the event loop: the outcomes of a group's units to their waiters."""
    for waiter, outcome in settled:
        if waiter.done():
            continue
        if isinstance(outcome, BaseException):
            waiter.set_exception(outcome)
        else:
            waiter.set_result(outcome)


class Reader:
    """Plain one-row reads on connections kept open for the purpose (at most
    ``size`` at once), for the reads a request makes on the hot path: no pool
    checkout, no transaction left open (SQLite's connections here commit on
    their own; PostgreSQL's are set to autocommit)."""

    def __init__(self, engine: Engine, size: int = 16) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._open: list[Any] = []
        self._lock = threading.Lock()
        self._closed = False

    def one(self, sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        """The first row of ``sql`` (written with ``?`` marks), or None."""
        row = self._query(sql, params, lambda cursor: cursor.fetchone())
        return None if row is None else tuple(row)

    def rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Every row of ``sql`` (written with ``?`` marks)."""
        return self._query(sql, params, lambda cursor: [tuple(r) for r in cursor.fetchall()])

    def _query(self, sql: str, params: Sequence[Any], fetch: Callable[[Any], T]) -> T:
        """``fetch`` of a cursor that ran ``sql`` on an idle connection (a new one
        if none is idle; one that fails is dropped, not put back)."""
        text = sql if self.sqlite else sql.replace("?", "%s")
        with self._slots:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._connect()
            try:
                cursor = conn.cursor()
                try:
                    cursor.execute(text, tuple(params))
                    result = fetch(cursor)
                finally:
                    cursor.close()
            except Exception:
                self._discard(conn)
                raise
            self._idle.put(conn)
        return result

    def _connect(self) -> Any:
        fairy = self.engine.raw_connection()
        if not self.sqlite:
            fairy.driver_connection.autocommit = True  # type: ignore[union-attr]
        with self._lock:
            self._open.append(fairy)
        return fairy

    def _discard(self, conn: Any) -> None:
        with self._lock:
            if conn in self._open:
                self._open.remove(conn)
        with contextlib.suppress(Exception):
            conn.invalidate()

    def close(self) -> None:
        with self._lock:
            conns, self._open = self._open, []
        for conn in conns:
            with contextlib.suppress(Exception):
                if not self.sqlite:
                    conn.driver_connection.autocommit = False
                conn.close()


class RequestLookup:
    """The stored reservations of bet requests, looked up for the event loop.

    On SQLite a lookup is a read in the process, done on the spot.  On
    PostgreSQL it is a round trip, which the event loop must not sit through:
    the keys asked for meanwhile are looked up together, by one thread, in one
    query, and the answers handed back to the loop in one call.
    """

    SQL = (
        "SELECT key, request_hash, table_id, round_id, bet_id, status_code, response "
        "FROM server_requests WHERE "
    )

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self._waiting: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def one(self, key: str) -> tuple[Any, ...] | None:
        """The reservation of ``key`` (request hash, table, round, bet, status,
        response), or None -- waiting for it."""
        row = self.reader.one(self.SQL + "key = ?", (key,))
        return None if row is None else row[1:]

    async def find(self, key: str) -> tuple[Any, ...] | None:
        """:meth:`one`, for the event loop."""
        if self.reader.sqlite or self._closed:
            return self.one(key)
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            self._waiting.setdefault(key, []).append((loop, waiter))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="punto-lookups", daemon=True)
                self._thread.start()
        self._wake.set()
        found: tuple[Any, ...] | None = await waiter
        return found

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(1.0)
            self._wake.clear()
            with self._lock:
                waiting, self._waiting = self._waiting, {}
            if not waiting:
                continue
            found: dict[str, tuple[Any, ...]] = {}
            error: BaseException | None = None
            try:
                for chunk in chunks(sorted(waiting)):
                    for row in self.reader.rows(self.SQL + "key = ANY(?)", ([list(chunk)])):
                        found[str(row[0])] = tuple(row[1:])
            except Exception as failed:
                error = failed
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
            for key, waiters in waiting.items():
                for loop, waiter in waiters:
                    by_loop.setdefault(loop, []).append(
                        (waiter, error if error is not None else found.get(key))
                    )
            for loop, settled in by_loop.items():
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(settle, settled)

    def close(self) -> None:
        self._closed = True
        self._wake.set()
