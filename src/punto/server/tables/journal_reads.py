"""Quick reads beside the journal: a few connections kept open for the hot path's lookups.

:class:`Reader` answers one-row reads without a pool checkout or a transaction
left open; :class:`RequestLookup` reads a bet request's stored answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Engine
from sqlalchemy.sql import Select

from punto.store.db import server_requests, wallets
from punto.store.listed import listed
from punto.store.requests import STORED_COLUMNS

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
        #: each statement's driver text and parameter order, by statement and list lengths
        self._compiled: dict[
            tuple[int, tuple[int, ...]], tuple[str, tuple[str, ...], dict[str, Any]]
        ] = {}
        #: each statement's expanding (list) parameters
        self._lists: dict[int, tuple[str, ...]] = {}

    def one(self, query: Select[Any], params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row of ``query`` with ``params``, or None."""
        row = self._query(query, params, lambda cursor: cursor.fetchone())
        return None if row is None else tuple(row)

    def rows(self, query: Select[Any], params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of ``query`` with ``params`` (a list parameter is expanded
        into its values: a statement compiled for each length of list)."""
        return self._query(query, params, lambda cursor: [tuple(r) for r in cursor.fetchall()])

    def _driver(self, query: Select[Any], params: Mapping[str, Any]) -> tuple[str, Any]:
        """``query`` compiled once for the driver (for each length of its lists),
        and ``params`` (with the statement's own values) as the driver takes them."""
        lists = self._lists.get(id(query))
        if lists is None:
            binds = query.compile(dialect=self.engine.dialect).binds
            lists = self._lists[id(query)] = tuple(n for n, b in binds.items() if b.expanding)
        key = (id(query), tuple(len(params[n]) for n in lists))
        compiled = self._compiled.get(key)
        if compiled is None:
            expanded = query.params({n: params[n] for n in lists}) if lists else query
            done = expanded.compile(
                dialect=self.engine.dialect, compile_kwargs={"render_postcompile": True}
            )
            own = {n: b.effective_value for n, b in done.binds.items() if n not in params}
            compiled = self._compiled[key] = (done.string, tuple(done.positiontup or ()), own)
        text, order, own = compiled
        flat = {**own, **params}
        for name in lists:
            flat.update({f"{name}_{i}": v for i, v in enumerate(params[name], 1)})
        if order:  # positional marks (SQLite's)
            return text, tuple(flat[n] for n in order)
        return text, flat

    def _query(self, query: Select[Any], params: Mapping[str, Any], fetch: Callable[[Any], T]) -> T:
        """``fetch`` of a cursor that ran ``query`` on an idle connection (a new one
        if none is idle; one that fails is dropped, not put back)."""
        text, bound = self._driver(query, params)
        with self._slots:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._connect()
            try:
                cursor = conn.cursor()
                try:
                    cursor.execute(text, bound)
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
    """The stored reservations of bet requests, looked up on the reader's kept
    connections.  (The event loop never waits for one: a table reads the keys
    it may be asked again when it comes to the process, see
    :meth:`punto.server.tables.intake.BetIntake.place_bet_async`.)"""

    COLUMNS = (server_requests.c.key, *STORED_COLUMNS)
    ONE = select(*COLUMNS).where(server_requests.c.key == bindparam("key"))

    def __init__(self, reader: Reader) -> None:
        self.reader = reader

    def one(self, key: str) -> tuple[Any, ...] | None:
        """The reservation of ``key`` (request hash, table, round, bet, status,
        response), or None -- waiting for it."""
        row = self.reader.one(self.ONE, {"key": key})
        return None if row is None else row[1:]


#: The balances of player wallets, by code (:meth:`punto.server.tables.journal.Journal.prime`).
PLAYER_BALANCES = select(wallets.c.code, wallets.c.balance).where(
    wallets.c.kind == "player", listed(wallets.c.code, "codes")
)
