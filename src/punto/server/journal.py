"""The server's one writer: table events and ledger postings, committed in groups.

Every table of the server writes through one :class:`Journal`: a thread that
takes whatever is waiting -- the events the tables append, the postings of
their bets, settlements and returns -- and commits it in **one transaction**,
then wakes each writer.  A caller is answered only after the commit (the
group's fsync), so nothing is acknowledged that is not durable; many callers
share one commit, and the tables never fight over the database lock (on
SQLite a second writer would wait in its busy handler, on PostgreSQL for row
locks).

A bet is **one unit**: its ``BetPlaced`` event, the ledger posting of its
stake (wallet to the table's holding account, ``ledger_bets`` row) and the
idempotency reservation of its request commit together or not at all.

Postings follow :class:`punto.store.ledger.Ledger` exactly -- the same rows,
keys, request hashes (a key posted here and retried through ``Ledger`` is a
replay) and checks: no player or holding wallet below zero, every posting
summing to zero, a bet settled or returned once.  They are checked in memory
against the rows read at the start of the group (on PostgreSQL the bets to
settle or return are locked), so a posting the ledger would refuse is refused
here without writing anything, and the rest of the group commits.  Balances
are written as differences (``balance = balance + d``), so money paid in
meanwhile through the ledger itself is never overwritten, and the schema's
own check (no player or holding wallet below zero) has the last word.  If the
group fails as a whole (a constraint, a lost connection), its units are
committed one by one so that one bad unit fails alone; a transient conflict
(deadlock, busy database) is retried.

The group is written with a handful of multi-row statements however large it
is: that, and the one commit, is what lets a server on two cores take more
than a thousand bets a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from punto.money import CENT, format_money, format_units
from punto.store import db
from punto.store.bounds import check_balance
from punto.store.db import (
    wallets,
)
from punto.store.eventlog import StoredEvent, StoreError
from punto.store.ledger import (
    SCOPE,
    BetStateError,
    BetStatus,
    IdempotencyConflictError,
    InsufficientFundsError,
    Ledger,
    LedgerError,
    PostingKind,
    WalletKind,
    _request_hash,
)
from punto.table.events import Event, event_to_json

__all__ = [
    "EventAppend",
    "Journal",
    "JournalEventLog",
    "PlaceBet",
    "Posted",
    "Reader",
    "RequestKeyTakenError",
    "ReturnBet",
    "SettleBet",
]

log = logging.getLogger("punto.server.journal")

T = TypeVar("T")

#: The most units one group takes, and (roughly) the most postings: a group is
#: one transaction, and everyone in it waits for all of it.
MAX_GROUP = 1000
MAX_POSTINGS = 300
#: Ledger transaction ids taken from PostgreSQL's sequence at once.
ID_BLOCK = 1000
#: Rows per statement (SQLite allows 32,766 bound values; PostgreSQL 65,535).
_CHUNK = 500


class RequestKeyTakenError(IdempotencyConflictError):
    """A bet request's Idempotency-Key has a reservation already (a retry)."""


# -- what can be written ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceBet:
    """``amount`` from ``wallet`` (a code, ``player:NAME``) into ``table_id``'s holding
    account, as :meth:`Ledger.place_bet` with ``key``, ``bet_id`` and ``round_id``."""

    wallet: str
    table_id: str
    bet_id: str
    round_id: str | None
    amount: int
    key: str

    def content(self) -> dict[str, Any]:
        return {
            "op": "place_bet",
            "wallet": self.wallet,
            "table": self.table_id,
            "amount": self.amount,
            "bet": self.bet_id,
            "round": self.round_id,
        }

    @functools.cached_property
    def request_hash(self) -> str:
        return _request_hash(self.content())


@dataclass(frozen=True)
class SettleBet:
    """As :meth:`Ledger.settle_bet`: the player gets ``payout`` of an open bet."""

    table_id: str
    bet_id: str
    payout: int
    key: str

    def content(self) -> dict[str, Any]:
        return {
            "op": "settle_bet",
            "table": self.table_id,
            "bet": self.bet_id,
            "payout": self.payout,
        }

    @functools.cached_property
    def request_hash(self) -> str:
        return _request_hash(self.content())


@dataclass(frozen=True)
class ReturnBet:
    """As :meth:`Ledger.return_bet`: ``amount`` (all it holds if None) of an open bet back."""

    table_id: str
    bet_id: str
    key: str
    amount: int | None = None

    def content(self) -> dict[str, Any]:
        return {
            "op": "return_bet",
            "table": self.table_id,
            "bet": self.bet_id,
            "amount": self.amount,
        }

    @functools.cached_property
    def request_hash(self) -> str:
        return _request_hash(self.content())


PostingSpec = PlaceBet | SettleBet | ReturnBet


@dataclass(frozen=True)
class Posted:
    """A posting made (or found made before: ``replayed``), and the balance of the
    player's wallet after it (None for a replay)."""

    key: str
    replayed: bool = False
    player_balance: int | None = None


@dataclass
class EventAppend:
    """An event for a table's log, and what must commit with it."""

    table_id: str
    round_id: str
    event: Event
    postings: Sequence[PostingSpec] = ()
    #: a ``server_requests`` row (the idempotency reservation) to insert with it
    request: Mapping[str, Any] | None = None
    #: the event as stored (made by the caller, off the journal's thread)
    body: str = field(init=False)

    def __post_init__(self) -> None:
        self.body = json.dumps(event_to_json(self.event), sort_keys=True)
        for spec in self.postings:
            _ = spec.request_hash  # hashed here, not on the journal's thread


# -- the writer thread ----------------------------------------------------------------------------


@dataclass
class _Unit:
    kind: str  # "event", "postings", "response", "work"
    payload: Any
    future: Future[Any] | None = field(default_factory=Future)
    #: an event loop's future to settle too (all of a group's in one call into the loop)
    notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None


class _Refused(Exception):  # noqa: N818 - internal: a unit refused, carrying the error
    def __init__(self, error: BaseException) -> None:
        self.error = error


class Journal:
    """One writer thread for one database (see the module's docstring)."""

    def __init__(
        self,
        engine: Engine,
        *,
        max_group: int = MAX_GROUP,
        checks: Callable[[Connection, frozenset[str]], None] | None = None,
    ) -> None:
        self.engine = engine
        self.max_group = max_group
        #: run in every group's transaction with the tables it writes for, before
        #: anything is written (the table leases' fencing check); raising fails it
        self.checks = checks
        self._queue: queue.SimpleQueue[_Unit | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        #: each table's next log sequence number, as of the last group written
        self._next_seq: dict[str, int] = {}
        #: ledger transaction ids from PostgreSQL's sequence, not used yet
        self._spare_ids: list[int] = []
        #: player wallet balances as of the journal's last commit that read them
        self.balances: dict[str, int] = {}
        #: how many times a balance was forgotten (see :meth:`prime`)
        self._forgotten = 0
        #: stakes submitted but not yet committed, per player wallet
        self._pending: dict[str, int] = {}
        self._money_lock = threading.Lock()
        #: bet request keys in flight, claimed by their requests (see :meth:`claim`)
        self._claimed: set[str] = set()
        #: quick reads for the requests (see :class:`Reader`, :class:`RequestLookup`)
        self.reader = Reader(engine)
        self.requests = RequestLookup(self.reader)
        #: groups committed and units in them (for the curious and the benchmarks)
        self.groups = 0
        self.units = 0
        self.busy = 0.0  # seconds spent writing groups
        self._thread = threading.Thread(target=self._run, name="punto-journal", daemon=True)
        self._thread.start()

    # -- submitting ------------------------------------------------------------------------

    def _submit(self, unit: _Unit) -> _Unit:
        with self._lock:
            if self._closed:
                raise StoreError("the server is stopping: nothing more is written")
            self._queue.put(unit)
        return unit

    def append(self, item: EventAppend) -> tuple[int, list[Posted]]:
        """Write an event and its postings; returns its sequence number and the postings
        made, once committed.  A refused posting raises its ledger error (nothing written)."""
        result: tuple[int, list[Posted]] = self._wait(self._submit(_Unit("event", item)))
        return result

    def submit(
        self,
        item: EventAppend,
        notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None,
    ) -> Future[tuple[int, list[Posted]]]:
        """:meth:`append` without waiting: the future has what it would return
        (and so, set in its loop, does ``notify``'s)."""
        future = self._submit(_Unit("event", item, notify=notify)).future
        assert future is not None
        return future

    def barrier(self) -> None:
        """Wait until everything submitted so far is written (or refused)."""
        self.run(lambda _conn: None)

    # -- money in flight ------------------------------------------------------------------

    def claim(self, key: str) -> bool:
        """Take a bet request's key for one request in flight (False: another has it)."""
        with self._money_lock:
            if key in self._claimed:
                return False
            self._claimed.add(key)
            return True

    def unclaim(self, key: str) -> None:
        with self._money_lock:
            self._claimed.discard(key)

    def available(self, wallet: str) -> int | None:
        """What ``wallet`` (a player's) has left once the stakes submitted for it are
        written, as far as the journal knows (None: it has not read it yet).  Money
        paid in by other means is not seen until the journal next reads the wallet,
        so this errs low, never high -- unless money leaves the wallet elsewhere."""
        with self._money_lock:
            balance = self.balances.get(wallet)
            if balance is None:
                return None
            return balance - self._pending.get(wallet, 0)

    def reserve(self, wallet: str, amount: int) -> None:
        with self._money_lock:
            self._pending[wallet] = self._pending.get(wallet, 0) + amount

    def release(self, wallet: str, amount: int) -> None:
        with self._money_lock:
            left = self._pending.get(wallet, 0) - amount
            if left > 0:
                self._pending[wallet] = left
            else:
                self._pending.pop(wallet, None)

    def forget_balance(self, wallet: str) -> None:
        """``wallet`` changed outside the journal (a deposit at the cage)."""
        with self._money_lock:
            self.balances.pop(wallet, None)
            self._forgotten += 1

    def prime(self, codes: Iterable[str]) -> int:
        """Read the balances of the player wallets ``codes`` the journal does not
        know yet (at a login; at start-up for the sessions open); how many it
        learnt.  A player's first bet is otherwise not taken in flight: it
        waits, holding its table, for a commit of its own -- 20 players
        sitting down at once hold a table for 20 commits.

        The read is plain (no lock), so it is kept only if no balance was
        forgotten meanwhile (money that left a wallet by the cage or a
        tournament fee while it was read); and never over a balance the
        journal learnt meanwhile from its own commits, which is newer."""
        with self._money_lock:
            wanted = [c for c in dict.fromkeys(codes) if c not in self.balances]
            forgotten = self._forgotten
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            marks = ", ".join(["?"] * len(chunk))
            rows += self.reader.rows(
                f"SELECT code, balance FROM wallets WHERE kind = 'player' AND code IN ({marks})",
                chunk,
            )
        with self._money_lock:
            if self._forgotten != forgotten:
                return 0
            learnt = 0
            for code, balance in rows:
                if code not in self.balances:
                    self.balances[code] = int(balance)
                    learnt += 1
            return learnt

    def post(self, postings: Sequence[PostingSpec]) -> list[Posted | LedgerError]:
        """Make ``postings`` (all in one group); each is done, or refused with its error."""
        if not postings:
            return []
        result: list[Posted | LedgerError] = self._wait(
            self._submit(_Unit("postings", list(postings)))
        )
        return result

    def store_response(self, key: str, status: int, response: str) -> None:
        """Keep a bet request's answer with its reservation (in the next group;
        not waited for)."""
        self._submit(_Unit("response", (status, response, key), None))

    def run(self, work: Callable[[Connection], T], *, wait: bool = True) -> T | None:
        """Run ``work`` in the next group, after the group's events and postings
        (it must not depend on their order).  ``wait=False``: do not wait for it."""
        unit = _Unit("work", work, Future() if wait else None)
        self._submit(unit)
        if not wait:
            return None
        result: T = self._wait(unit)
        return result

    @staticmethod
    def _wait(unit: _Unit) -> Any:
        assert unit.future is not None
        return unit.future.result()

    def close(self, timeout: float = 30.0) -> None:
        """Write what is waiting, then stop."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        self._thread.join(timeout)

    # -- the thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            self._drop_connection()
            self.requests.close()
            self.reader.close()
            log.info(
                "journal: %d groups, %d units, %.1f s writing", self.groups, self.units, self.busy
            )

    def _loop(self) -> None:
        while True:
            unit = self._queue.get()
            if unit is None:
                return
            group = [unit]
            stop = False
            weight = _weight(unit)
            while len(group) < self.max_group and weight < MAX_POSTINGS:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                group.append(more)
                weight += _weight(more)
            self._commit(group)
            if stop:
                return

    def _commit(self, group: list[_Unit]) -> None:
        outcomes: list[Any]
        started = time.perf_counter()
        try:
            outcomes = self._transaction(group)
        except Exception as error:
            if len(group) == 1:
                outcomes = [_as_store_error(error)]
            else:
                if not isinstance(error, _Retry):
                    log.warning("a group of %d failed (%s); writing one by one", len(group), error)
                outcomes = []
                for unit in group:
                    try:
                        outcomes += self._transaction([unit])
                    except Exception as alone:
                        outcomes.append(_as_store_error(alone))
        self.groups += 1
        self.units += len(group)
        self.busy += time.perf_counter() - started
        notices: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
        for unit, outcome in zip(group, outcomes, strict=True):
            if isinstance(outcome, _Refused):
                outcome = outcome.error
            if unit.notify is not None:
                loop, waiter = unit.notify
                notices.setdefault(loop, []).append((waiter, outcome))
            if unit.future is None:
                if isinstance(outcome, BaseException):
                    log.warning("a background write failed: %s", outcome)
                continue
            if isinstance(outcome, BaseException):
                unit.future.set_exception(outcome)
            else:
                unit.future.set_result(outcome)
        for loop, settled in notices.items():
            with contextlib.suppress(RuntimeError):  # the loop is closed
                loop.call_soon_threadsafe(_settle, settled)

    def _connection(self) -> Connection:
        """The journal's own connection (kept; a new one after a failure)."""
        if self._conn is None:
            conn = self.engine.connect()
            if db.is_sqlite(conn):
                conn.execution_options(sqlite_begin="IMMEDIATE")
            self._conn = conn
        return self._conn

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _transaction(self, group: list[_Unit]) -> list[Any]:
        """Write the group in one transaction (retrying transient conflicts)."""
        attempts = 30
        for attempt in range(1, attempts + 1):
            conn = self._connection()
            try:
                written = _Group(conn, group, self._next_seq, self._spare_ids)
                with conn.begin():
                    if self.checks is not None:
                        self.checks(conn, written.tables())
                    outcomes = written.write()
                with self._money_lock:
                    self.balances.update(written.player_balances())
                self._next_seq = written.next_seq
                self._spare_ids = written.free_ids
                return outcomes
            except DBAPIError as error:
                self._next_seq = {}  # read them again: someone else may have written
                if error.connection_invalidated:
                    self._drop_connection()
                if not db.is_transient(error) or attempt == attempts:
                    raise
            except BaseException:
                self._next_seq = {}
                if conn.invalidated:
                    self._drop_connection()
                raise
            time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.1)))
        raise AssertionError("unreachable")  # pragma: no cover


def _weight(unit: _Unit) -> int:
    """Roughly how much writing a unit is (its postings, at least 1)."""
    if unit.kind == "postings":
        return max(1, len(unit.payload))
    if unit.kind == "event":
        return max(1, len(unit.payload.postings))
    return 1


def _settle(settled: list[tuple[asyncio.Future[Any], Any]]) -> None:
    """In the event loop: the outcomes of a group's units to their waiters."""
    for waiter, outcome in settled:
        if waiter.done():
            continue
        if isinstance(outcome, BaseException):
            waiter.set_exception(outcome)
        else:
            waiter.set_result(outcome)


def _as_store_error(error: BaseException) -> BaseException:
    if isinstance(error, DBAPIError):
        wrapped = StoreError(f"the database refused the write: {error.orig}")
        wrapped.__cause__ = error
        return wrapped
    return error


# -- one group ---------------------------------------------------------------------------------


@dataclass
class _Wallet:
    id: int
    code: str
    kind: str
    balance: int
    changed: bool = False
    #: the balance read; the group writes the difference (so that nothing paid in
    #: meanwhile through the ledger is lost, and the schema's check has the last word)
    read: int = 0

    def __post_init__(self) -> None:
        self.read = self.balance


@dataclass
class _Bet:
    table_id: str
    bet_id: str
    wallet: str
    round_id: str | None
    placed: int
    held: int
    status: str
    new: bool = False
    placed_by: int | None = None
    closed_by: int | None = None
    changed: bool = False


Statement = tuple[str, Sequence[Any]]


class _Sql:
    """Plain SQL on the group's connection: the journal's statements are few
    and fixed, and this is the hot path (no statement compiling per group).

    Statements are written with ``?`` marks.  :meth:`batch` runs several in
    one round trip on PostgreSQL (psycopg's pipeline mode), their array
    parameters sent in binary; on SQLite, in the process, one after another.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.sqlite = db.is_sqlite(conn)

    def _text(self, sql: str) -> str:
        return sql if self.sqlite else sql.replace("?", "%s")

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """``column`` is one of ``values``: the condition and its parameters (one
        array parameter on PostgreSQL, so the statement's text never changes)."""
        if self.sqlite:
            return f"{column} IN ({', '.join('?' * len(values))})", list(values)
        return f"{column} = ANY(?)", [list(values)]

    def batch(self, statements: Sequence[Statement]) -> list[list[Any]]:
        """Run ``statements`` in order; the rows each returned (empty for none)."""
        if not statements:
            return []
        if self.sqlite:
            out: list[list[Any]] = []
            for sql, params in statements:
                if isinstance(params, list) and params and isinstance(params[0], tuple):
                    self.conn.exec_driver_sql(sql, params)  # one statement, many rows
                    out.append([])
                    continue
                result = self.conn.exec_driver_sql(sql, tuple(params))
                out.append(list(result.fetchall()) if result.returns_rows else [])
            return out
        driver: Any = self.conn.connection.driver_connection
        cursors = []
        with driver.pipeline():
            for sql, params in statements:
                cursor = driver.cursor()
                cursor.execute(self._text(sql), tuple(params))
                cursors.append(cursor)
        out = []
        for cursor in cursors:
            out.append(list(cursor.fetchall()) if cursor.description is not None else [])
            cursor.close()
        return out

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.batch([(sql, params)])[0]

    def insert(
        self, table: str, columns: str, rows: Sequence[tuple[Any, ...]], types: tuple[str, ...]
    ) -> list[Statement]:
        """The statements inserting ``rows``: multi-row ``VALUES`` on SQLite; on
        PostgreSQL one ``INSERT ... SELECT FROM unnest(...)`` with a typed array
        per column (one statement text however many rows)."""
        if not rows:
            return []
        if self.sqlite:
            one = "(" + ", ".join("?" * len(rows[0])) + ")"
            return [
                (
                    f"INSERT INTO {table} ({columns}) VALUES " + ", ".join([one] * len(chunk)),
                    tuple(value for row in chunk for value in row),
                )
                for chunk in _chunks(rows)
            ]
        arrays = ", ".join(f"%b::{t}[]" for t in types)
        return [
            (
                f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays})",
                [list(column) for column in zip(*rows, strict=True)],
            )
        ]

    def update(
        self,
        table: str,
        key: tuple[str, ...],
        columns: tuple[str, ...],
        rows: Sequence[tuple[Any, ...]],
        types: tuple[str, ...],
    ) -> list[Statement]:
        """The statements setting ``columns`` of the row named by ``key`` to each
        row's values (the values, then the key): one per row on SQLite, one
        ``UPDATE ... FROM unnest(...)`` on PostgreSQL (``types``: of the values,
        then the key)."""
        if not rows:
            return []
        if self.sqlite:  # executemany: a list of rows as the parameters
            sets = ", ".join(f"{c} = ?" for c in columns)
            where = " AND ".join(f"{k} = ?" for k in key)
            return [(f"UPDATE {table} SET {sets} WHERE {where}", list(rows))]
        names = (*columns, *key)
        arrays = ", ".join(f"%b::{t}[]" for t in types)
        sets = ", ".join(f"{c} = v.{c}" for c in columns)
        where = " AND ".join(f"{table}.{k} = v.{k}" for k in key)
        return [
            (
                f"UPDATE {table} SET {sets} FROM unnest({arrays}) AS v({', '.join(names)}) "
                f"WHERE {where}",
                [list(column) for column in zip(*rows, strict=True)],
            )
        ]

    def shift_balances(self, rows: Sequence[tuple[int, int]]) -> list[Statement]:
        """Add each row's amount to the balance of the wallet it names (amount, id)."""
        if not rows:
            return []
        if self.sqlite:
            return [("UPDATE wallets SET balance = balance + ? WHERE id = ?", list(rows))]
        return [
            (
                "UPDATE wallets SET balance = wallets.balance + v.delta "
                "FROM unnest(%b::bigint[], %b::bigint[]) AS v(delta, id) WHERE wallets.id = v.id",
                [[delta for delta, _ in rows], [wallet for _, wallet in rows]],
            )
        ]

    def together(self, statements: Sequence[Statement]) -> list[Statement]:
        """PostgreSQL: the group's writes as one statement (each a data-modifying
        ``WITH`` part): one parse and one execution instead of one per table --
        what costs the database most when groups are small.  The parts see the
        same snapshot, and the foreign keys are checked when all are done."""
        if len(statements) <= 1:
            return list(statements)
        parts = ",\n".join(f"w{i} AS ({text})" for i, (text, _) in enumerate(statements))
        params = [value for _, values in statements for value in values]
        return [(f"WITH {parts}\nSELECT 1", params)]

    def new_ids(self, count: int) -> Statement:
        """The statement that hands out ``count`` new ``ledger_transactions`` ids
        (the sequence on PostgreSQL; past the largest on SQLite, whose write lock
        the group holds)."""
        if self.sqlite:
            return ("SELECT COALESCE(MAX(id), 0) FROM ledger_transactions", ())
        return (
            "SELECT nextval(pg_get_serial_sequence('ledger_transactions', 'id')) "
            "FROM generate_series(1, ?)",
            (count,),
        )

    def ids_from(self, rows: list[Any], count: int) -> list[int]:
        if self.sqlite:
            start = int(rows[0][0]) + 1
            return list(range(start, start + count))
        return sorted(int(row[0]) for row in rows)

    def now(self) -> Any:
        """The current time as the schema stores it (see :class:`punto.store.db.UTCDateTime`)."""
        now = db.utc_now()
        if self.sqlite:
            return now.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")
        return now


class _Group:
    """Reads what a group needs, checks every unit in order against it in
    memory, then writes the lot with a few multi-row statements."""

    def __init__(
        self,
        conn: Connection,
        units: list[_Unit],
        next_seq: dict[str, int] | None = None,
        spare_ids: list[int] | None = None,
    ) -> None:
        self.sql = _Sql(conn)
        #: transaction ids handed out before and not used (PostgreSQL only)
        self.spare_ids = [] if self.sql.sqlite else list(spare_ids or [])
        self.conn = conn
        self.units = units
        self.wallets: dict[str, _Wallet] = {}
        self.bets: dict[tuple[str, str], _Bet] = {}
        self.keys: dict[str, tuple[str, str]] = {}  # key -> (scope, request hash), known
        #: the next sequence number of each table's log (as the journal last wrote it)
        self.next_seq: dict[str, int] = dict(next_seq or {})
        self.request_keys: set[str] = set()  # server_requests keys taken
        #: ledger_transactions ids handed out for this group, not used yet (largest first)
        self.free_ids: list[int] = []
        self.last_id = 0  # the id of the last posting staged
        # rows to write
        self.new_keys: list[tuple[str, str]] = []  # (key, request hash)
        # (id, key, kind, table, round, bet)
        self.transactions: list[tuple[int, str, str, str | None, str | None, str | None]] = []
        self.entries: list[tuple[int, str, int]] = []  # (transaction id, wallet code, amount)
        self.events: list[tuple[str, int, str, str, str]] = []
        self.requests: list[tuple[Mapping[str, Any], int | None, str | None]] = []
        self.responses: list[tuple[int, str, str]] = []  # (status, response, key)

    # -- reading ----------------------------------------------------------------------------

    def _postings(self) -> Iterable[PostingSpec]:
        for unit in self.units:
            if unit.kind == "event":
                yield from unit.payload.postings
            elif unit.kind == "postings":
                yield from unit.payload

    def _load(self) -> None:
        """Read (and on PostgreSQL lock: bets, then wallets in id order) what the
        group's units touch, in one round trip -- two when bets are settled or
        returned, whose owners' wallets are known only from the bets."""
        sql = self.sql
        postings = list(self._postings())
        by_table: dict[str, set[str]] = {}
        for p in postings:
            if not isinstance(p, PlaceBet):
                by_table.setdefault(p.table_id, set()).add(p.bet_id)
        lock = "" if sql.sqlite else " ORDER BY b.bet_id FOR UPDATE OF b"
        bet_reads: list[Statement] = []
        for table_id, ids in sorted(by_table.items()):
            for chunk in _chunks(sorted(ids)):
                among, params = sql.among("b.bet_id", chunk)
                bet_reads.append(
                    (
                        "SELECT b.table_id, b.bet_id, w.code, b.round_id, b.placed, b.held, "
                        "b.status FROM ledger_bets b JOIN wallets w ON w.id = b.wallet_id "
                        f"WHERE b.table_id = ? AND {among}{lock}",
                        [table_id, *params],
                    )
                )
        for rows in sql.batch(bet_reads):
            for table, bet_id, code, round_id, placed, held, status in rows:
                self.bets[(table, bet_id)] = _Bet(
                    table, bet_id, code, round_id, int(placed), int(held), status
                )
        codes: set[str] = set()
        for p in postings:
            codes.add(f"holding:{p.table_id}")
            if isinstance(p, PlaceBet):
                codes.add(p.wallet)
            elif isinstance(p, SettleBet):
                codes.add(Ledger.HOUSE)
        codes.update(bet.wallet for bet in self.bets.values())
        reads: list[Statement] = []
        wallet_lock = ""  # the balances are shifted, not set: no lock to take
        wallet_chunks = list(_chunks(sorted(codes)))
        for chunk in wallet_chunks:
            among, params = sql.among("code", chunk)
            reads.append(
                (f"SELECT id, code, kind, balance FROM wallets WHERE {among}{wallet_lock}", params)
            )
        # A bet's key names a new bet id (the primary keys would refuse a repeat anyway).
        keys = sorted({p.key for p in postings if not isinstance(p, PlaceBet)})
        key_chunks = list(_chunks(keys))
        for chunk in key_chunks:
            among, params = sql.among("key", chunk)
            reads.append(
                (f"SELECT key, scope, request_hash FROM idempotency_keys WHERE {among}", params)
            )
        # (A key claimed in the journal was looked up by its request, and no other
        # request of this process can take it meanwhile: no need to look again.)
        requested = sorted(
            str(u.payload.request["key"])
            for u in self.units
            if u.kind == "event"
            and u.payload.request is not None
            and not u.payload.request.get("claimed")
        )
        request_chunks = list(_chunks(requested))
        for chunk in request_chunks:
            among, params = sql.among("key", chunk)
            reads.append((f"SELECT key FROM server_requests WHERE {among}", params))
        tables = sorted(
            {u.payload.table_id for u in self.units if u.kind == "event"} - set(self.next_seq)
        )
        if tables:
            among, params = sql.among("table_id", tables)
            reads.append(
                (
                    f"SELECT table_id, MAX(seq) FROM table_events WHERE {among} GROUP BY table_id",
                    params,
                )
            )
        # Transaction ids: PostgreSQL's sequence hands them out in blocks kept by the
        # journal (unique whoever else inserts); SQLite's come past the largest.
        need = len(postings) - len(self.spare_ids)
        if need > 0:
            reads.append(sql.new_ids(need if sql.sqlite else max(need, ID_BLOCK)))
        results = iter(sql.batch(reads))
        for _ in wallet_chunks:
            for wallet_id, code, kind, balance in next(results):
                self.wallets[code] = _Wallet(int(wallet_id), code, kind, int(balance))
        for _ in key_chunks:
            for key, scope, request_hash in next(results):
                self.keys[key] = (scope, request_hash)
        for _ in request_chunks:
            self.request_keys.update(key for (key,) in next(results))
        if tables:
            found = dict(next(results))
            self.next_seq.update({t: int(found.get(t) or 0) + 1 for t in tables})
        fresh = sql.ids_from(next(results), need) if need > 0 else []
        # Largest first: pop() hands them out in ascending order.
        self.free_ids = sorted(self.spare_ids + fresh, reverse=True)
        missing = [code for code in codes if code not in self.wallets]
        if any(code.startswith("holding:") or code == Ledger.HOUSE for code in missing):
            self._open_wallets(missing)

    def _load_wallets(self, codes: Iterable[str]) -> None:
        sql = self.sql
        lock = "" if sql.sqlite else " ORDER BY id FOR UPDATE"
        for chunk in _chunks(sorted(codes)):
            among, params = sql.among("code", chunk)
            for wallet_id, code, kind, balance in sql.rows(
                f"SELECT id, code, kind, balance FROM wallets WHERE {among}{lock}", params
            ):
                self.wallets[code] = _Wallet(int(wallet_id), code, kind, int(balance))

    def _open_wallets(self, codes: list[str]) -> None:
        """Open the house and the holding accounts the group needs (as the ledger does)."""
        dialect_insert = sqlite_insert if self.sql.sqlite else pg_insert
        now = db.utc_now()
        for code in codes:
            if code == Ledger.HOUSE:
                kind, table_id = WalletKind.HOUSE.value, None
            elif code.startswith("holding:"):
                kind, table_id = WalletKind.HOLDING.value, code.removeprefix("holding:")
            else:
                continue
            self.conn.execute(
                dialect_insert(wallets)
                .values(code=code, kind=kind, table_id=table_id, balance=0, created_at=now)
                .on_conflict_do_nothing(index_elements=["code"])
            )
        self._load_wallets(codes)

    # -- checking, in memory ------------------------------------------------------------------------

    def _wallet(self, code: str, kind: WalletKind) -> _Wallet:
        wallet = self.wallets.get(code)
        if wallet is None:
            if kind is WalletKind.PLAYER:
                raise InsufficientFundsError(
                    f"wallet {code} has 0.00, nothing to bet with", hint="deposit at the cage"
                )
            raise LedgerError(f"there is no wallet {code!r}")  # pragma: no cover
        return wallet

    def _check_key(self, spec: PostingSpec) -> bool:
        """False to go ahead; True when the posting was made before (a replay)."""
        known = self.keys.get(spec.key)
        if known is None:
            return False
        if known != (SCOPE, spec.request_hash):
            raise IdempotencyConflictError(
                f"idempotency key {spec.key!r} was already used for a different request",
                hint="use a new key for a new posting; repeat a key only to retry the same one",
            )
        return True

    def _posting(
        self,
        spec: PostingSpec,
        kind: PostingKind,
        changes: list[tuple[_Wallet, int]],
        *,
        round_id: str | None,
    ) -> int | None:
        """Check and stage one posting; returns the player's balance after it.
        Everything is checked before anything is staged."""
        after: dict[str, int] = {}
        total = 0
        for wallet, delta in changes:
            total += delta
            after[wallet.code] = after.get(wallet.code, wallet.balance) + delta
        if total != 0:  # pragma: no cover - every posting below balances
            raise LedgerError(f"a {kind.value} posting that does not sum to zero")
        for wallet, _ in changes:
            if after[wallet.code] < 0 and wallet.kind == WalletKind.PLAYER.value:
                raise InsufficientFundsError(
                    f"wallet {wallet.code} has {format_units(wallet.balance)}, not the "
                    f"{format_units(wallet.balance - after[wallet.code])} asked for",
                    hint="deposit more or stake less",
                )
            if after[wallet.code] < 0 and wallet.kind == WalletKind.HOLDING.value:
                raise LedgerError(f"wallet {wallet.code} would go below zero")  # pragma: no cover
            check_balance(wallet.code, wallet.balance, after[wallet.code])
        player = None
        for wallet, _ in changes:
            if wallet.balance != after[wallet.code]:
                wallet.balance = after[wallet.code]
                wallet.changed = True
            if wallet.kind == WalletKind.PLAYER.value:
                player = wallet.balance
        request_hash = spec.request_hash
        transaction_id = self.free_ids.pop()
        self.last_id = transaction_id
        self.keys[spec.key] = (SCOPE, request_hash)
        self.new_keys.append((spec.key, request_hash))
        self.transactions.append(
            (transaction_id, spec.key, kind.value, spec.table_id, round_id, spec.bet_id)
        )
        merged: dict[str, int] = {}
        for wallet, delta in changes:
            merged[wallet.code] = merged.get(wallet.code, 0) + delta
        self.entries += [(transaction_id, code, delta) for code, delta in merged.items() if delta]
        return player

    def _bet(self, spec: SettleBet | ReturnBet) -> _Bet:
        bet = self.bets.get((spec.table_id, spec.bet_id))
        if bet is None:
            raise BetStateError(
                f"there is no bet {spec.bet_id!r} at table {spec.table_id!r}",
                hint="settle or return only a bet the ledger placed",
            )
        if bet.status != BetStatus.OPEN.value:
            raise BetStateError(
                f"bet {spec.bet_id!r} at table {spec.table_id!r} is already {bet.status}",
                hint="a bet is settled or returned once",
            )
        if bet.new:
            # Placed in this very group: write it alone (the one-by-one path).
            raise _Retry()
        return bet

    def _stage(self, spec: PostingSpec) -> Posted:
        if self._check_key(spec):
            return Posted(spec.key, replayed=True)
        holding = self._wallet(f"holding:{spec.table_id}", WalletKind.HOLDING)
        if isinstance(spec, PlaceBet):
            if spec.amount <= 0:
                raise LedgerError(f"stake {spec.amount} must be positive")
            if (spec.table_id, spec.bet_id) in self.bets:
                raise BetStateError(
                    f"bet {spec.bet_id!r} at table {spec.table_id!r} was already placed",
                    hint="give each bet at a table its own bet id",
                )
            player = self._wallet(spec.wallet, WalletKind.PLAYER)
            balance = self._posting(
                spec,
                PostingKind.BET,
                [(player, -spec.amount), (holding, spec.amount)],
                round_id=spec.round_id,
            )
            self.bets[(spec.table_id, spec.bet_id)] = _Bet(
                spec.table_id,
                spec.bet_id,
                spec.wallet,
                spec.round_id,
                spec.amount,
                spec.amount,
                BetStatus.OPEN.value,
                new=True,
                placed_by=self.last_id,
            )
            return Posted(spec.key, player_balance=balance)
        bet = self._bet(spec)
        player = self._wallet(bet.wallet, WalletKind.PLAYER)
        if isinstance(spec, SettleBet):
            if spec.payout < 0:
                raise LedgerError(f"payout {spec.payout} must be zero or positive")
            house = self._wallet(Ledger.HOUSE, WalletKind.HOUSE)
            balance = self._posting(
                spec,
                PostingKind.SETTLEMENT,
                [(holding, -bet.held), (player, spec.payout), (house, bet.held - spec.payout)],
                round_id=bet.round_id,
            )
            bet.held, bet.status = 0, BetStatus.SETTLED.value
        else:
            back = bet.held if spec.amount is None else spec.amount
            if back <= 0 or back > bet.held:
                raise LedgerError(
                    f"cannot return {format_units(back)} of bet {spec.bet_id!r}: "
                    f"it holds {format_units(bet.held)}",
                    hint="return at most what the bet still holds",
                )
            balance = self._posting(
                spec,
                PostingKind.RETURN,
                [(holding, -back), (player, back)],
                round_id=bet.round_id,
            )
            bet.held -= back
            bet.status = BetStatus.OPEN.value if bet.held else BetStatus.RETURNED.value
        bet.changed = True
        bet.closed_by = self.last_id
        return Posted(spec.key, player_balance=balance)

    def _stage_unit(self, unit: _Unit) -> Any:
        """Check one unit and stage its rows; a refusal stages nothing of it.

        A single posting is checked whole before anything of it is staged;
        only an event with several postings needs a snapshot to undo.
        """
        if unit.kind == "postings":
            out: list[Posted | LedgerError] = []
            for spec in unit.payload:
                try:
                    out.append(self._stage(spec))
                except LedgerError as refused:
                    out.append(refused)
            return out
        if unit.kind == "response":
            self.responses.append(unit.payload)
            return None
        item: EventAppend = unit.payload
        if item.request is not None and item.request["key"] in self.request_keys:
            return _Refused(
                RequestKeyTakenError(
                    "this Idempotency-Key is in use by another request",
                    hint="use a new key for a new bet; repeat a key only to retry the same request",
                )
            )
        saved = self._snapshot() if len(item.postings) > 1 else None
        try:
            posted = [self._stage(spec) for spec in item.postings]
        except LedgerError as refused:
            if saved is not None:
                self._restore(saved)
            return _Refused(refused)
        seq = self.next_seq[item.table_id]
        self.next_seq[item.table_id] = seq + 1
        self.events.append((item.table_id, seq, item.round_id, item.event.type, item.body))
        if item.request is not None:
            self.request_keys.add(str(item.request["key"]))
            answer = item.request.get("answer")
            if answer is not None and posted and posted[0].player_balance is not None:
                # The answer the request gets, stored with it (no second write).
                balance = format_money(Decimal(posted[0].player_balance) * CENT)
                text = json.dumps({**answer, "balance": balance}, sort_keys=True)
                self.requests.append((item.request, 201, text))
            else:
                self.requests.append((item.request, None, None))
        return seq, posted

    # Staging is undone by truncating the row lists and restoring the touched state.
    def _snapshot(self) -> tuple[Any, ...]:
        return (
            len(self.new_keys),
            len(self.transactions),
            len(self.entries),
            {c: (w.balance, w.changed) for c, w in self.wallets.items()},
            {k: (b.held, b.status, b.changed, b.closed_by) for k, b in self.bets.items()},
            dict(self.keys),
        )

    def _restore(self, saved: tuple[Any, ...]) -> None:
        keys_n, tx_n, entries_n, wallet_state, bet_state, keys = saved
        del self.new_keys[keys_n:]
        del self.transactions[tx_n:]
        del self.entries[entries_n:]
        for code, (balance, changed) in wallet_state.items():
            self.wallets[code].balance, self.wallets[code].changed = balance, changed
        for key in [k for k in self.bets if k not in bet_state]:
            del self.bets[key]
        for key, (held, status, changed, closed_by) in bet_state.items():
            bet = self.bets[key]
            bet.held, bet.status, bet.changed, bet.closed_by = held, status, changed, closed_by
        self.keys = keys

    def tables(self) -> frozenset[str]:
        """The tables whose events or money this group writes."""
        out: set[str] = set()
        for unit in self.units:
            if unit.kind == "event":
                out.add(unit.payload.table_id)
                out.update(spec.table_id for spec in unit.payload.postings)
            elif unit.kind == "postings":
                out.update(spec.table_id for spec in unit.payload)
        return frozenset(out)

    def player_balances(self) -> dict[str, int]:
        """The balance of every player wallet the group read, as it wrote them."""
        return {
            code: w.balance for code, w in self.wallets.items() if w.kind == WalletKind.PLAYER.value
        }

    # -- writing ----------------------------------------------------------------------------------

    def write(self) -> list[Any]:
        self._load()
        outcomes: list[Any] = []
        work: list[tuple[int, Callable[[Connection], Any]]] = []
        for i, unit in enumerate(self.units):
            if unit.kind == "work":
                outcomes.append(None)
                work.append((i, unit.payload))
            else:
                outcomes.append(self._stage_unit(unit))
        self._flush()
        for i, run in work:
            try:
                with self.conn.begin_nested():
                    outcomes[i] = run(self.conn)
            except Exception as error:  # it alone fails
                outcomes[i] = _Refused(error)
        return outcomes

    def _flush(self) -> None:
        """Write the staged rows: every statement in one round trip on PostgreSQL."""
        sql = self.sql
        now = sql.now()
        out: list[Statement] = []
        out += sql.insert(
            "idempotency_keys",
            "key, scope, request_hash, created_at",
            [(key, SCOPE, request_hash, now) for key, request_hash in self.new_keys],
            ("varchar", "varchar", "varchar", "timestamptz"),
        )
        out += sql.insert(
            "ledger_transactions",
            "id, idempotency_key, kind, table_id, round_id, bet_id, memo, created_at",
            [(*row, None, now) for row in self.transactions],
            (
                "bigint",
                "varchar",
                "varchar",
                "varchar",
                "varchar",
                "varchar",
                "text",
                "timestamptz",
            ),
        )
        out += sql.insert(
            "ledger_entries",
            "transaction_id, wallet_id, amount",
            [(tid, self.wallets[code].id, amount) for tid, code, amount in self.entries],
            ("bigint", "bigint", "bigint"),
        )
        out += sql.insert(
            "ledger_bets",
            "table_id, bet_id, wallet_id, round_id, placed, held, status, placed_by, closed_by",
            [
                (
                    b.table_id,
                    b.bet_id,
                    self.wallets[b.wallet].id,
                    b.round_id,
                    b.placed,
                    b.held,
                    b.status,
                    b.placed_by,
                    None,
                )
                for b in self.bets.values()
                if b.new
            ],
            (
                "varchar",
                "varchar",
                "bigint",
                "varchar",
                "bigint",
                "bigint",
                "varchar",
                "bigint",
                "bigint",
            ),
        )
        out += sql.update(
            "ledger_bets",
            ("table_id", "bet_id"),
            ("held", "status", "closed_by"),
            [
                (
                    b.held,
                    b.status,
                    None if b.status == BetStatus.OPEN.value else b.closed_by,
                    b.table_id,
                    b.bet_id,
                )
                for b in self.bets.values()
                if b.changed and not b.new
            ],
            ("bigint", "varchar", "bigint", "varchar", "varchar"),
        )
        out += sql.shift_balances(
            [
                (w.balance - w.read, w.id)
                for w in sorted(self.wallets.values(), key=lambda w: w.id)
                if w.balance != w.read
            ]
        )
        out += sql.insert(
            "table_events",
            "table_id, seq, round_id, type, body, recorded_at",
            [(*row, now) for row in self.events],
            ("varchar", "bigint", "varchar", "varchar", "text", "timestamptz"),
        )
        out += sql.insert(
            "server_requests",
            "key, account_id, request_hash, table_id, round_id, bet_id, status_code, "
            "response, created_at",
            [
                (
                    r["key"],
                    r["account_id"],
                    r["request_hash"],
                    r["table_id"],
                    r["round_id"],
                    r["bet_id"],
                    status,
                    text,
                    now,
                )
                for r, status, text in self.requests
            ],
            (
                "varchar",
                "bigint",
                "varchar",
                "varchar",
                "varchar",
                "varchar",
                "integer",
                "text",
                "timestamptz",
            ),
        )
        out += sql.update(
            "server_requests",
            ("key",),
            ("status_code", "response"),
            self.responses,
            ("integer", "text", "varchar"),
        )
        sql.batch(out if sql.sqlite else sql.together(out))


class _Retry(Exception):  # noqa: N818 - internal: write this group one unit at a time
    pass


def _chunks(items: Sequence[T]) -> Iterable[Sequence[T]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


# -- quick reads -----------------------------------------------------------------------------------


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
                for chunk in _chunks(sorted(waiting)):
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
                    loop.call_soon_threadsafe(_settle, settled)

    def close(self) -> None:
        self._closed = True
        self._wake.set()


# -- the event log of a table on the journal ---------------------------------------------------------------


class JournalEventLog:
    """:class:`punto.store.eventlog.EventLog` writing through a :class:`Journal`.

    ``attach`` sets what must commit with the next event appended (a bet's
    posting and request reservation); the table's lock makes "next" exact.
    """

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._attached: tuple[Sequence[PostingSpec], Mapping[str, Any] | None, bool] | None = None
        #: the postings made with the last event appended
        self.posted: list[Posted] = []
        #: the last event appended without waiting: its future
        self.submitted: Future[tuple[int, list[Posted]]] | None = None
        self._notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None

    def attach(
        self,
        postings: Sequence[PostingSpec],
        request: Mapping[str, Any] | None = None,
        *,
        wait: bool = True,
        notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None,
    ) -> None:
        """What commits with the next event; ``wait=False``: do not wait for the
        commit (the engine takes the event at once; :attr:`submitted` says how
        the write went, and the caller must undo the table if it failed;
        ``notify``, an event loop's future, is told too)."""
        self._attached = (postings, request, wait)
        self._notify = notify

    def detach(self) -> None:
        self._attached = None
        self._notify = None

    def append(self, table_id: str, round_id: str, event: Event) -> int:
        postings, request, wait = self._attached or ((), None, True)
        self._attached = None
        item = EventAppend(table_id, round_id, event, postings, request)
        if not wait:
            notify, self._notify = self._notify, None
            self.submitted = self.journal.submit(item, notify)
            self.posted = []
            return 0
        seq, self.posted = self.journal.append(item)
        return seq

    def read(self, table_id: str) -> list[StoredEvent]:
        return db.read_table_events(self.journal.engine, table_id)
