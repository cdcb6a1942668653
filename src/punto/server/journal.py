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
against rows read (and on PostgreSQL locked, bets then wallets in id order)
at the start of the group, so a posting the ledger would refuse is refused
here without writing anything, and the rest of the group commits.  If the
group fails as a whole (a constraint, a lost connection), its units are
committed one by one so that one bad unit fails alone; a transient conflict
(deadlock, busy database) is retried.

The group is written with a handful of multi-row statements however large it
is: that, and the one commit, is what lets a server on two cores take more
than a thousand bets a second.
"""

from __future__ import annotations

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
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from punto.store import db
from punto.store.db import (
    table_events,
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
from punto.table.events import Event, event_from_json, event_to_json

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

#: The most units one group takes.
MAX_GROUP = 1000
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


class _Refused(Exception):  # noqa: N818 - internal: a unit refused, carrying the error
    def __init__(self, error: BaseException) -> None:
        self.error = error


class Journal:
    """One writer thread for one database (see the module's docstring)."""

    def __init__(self, engine: Engine, *, max_group: int = MAX_GROUP) -> None:
        self.engine = engine
        self.max_group = max_group
        self._queue: queue.SimpleQueue[_Unit | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        #: player wallet balances as of the journal's last commit that read them
        self.balances: dict[str, int] = {}
        #: stakes submitted but not yet committed, per player wallet
        self._pending: dict[str, int] = {}
        self._money_lock = threading.Lock()
        #: quick reads for the requests (see :class:`Reader`)
        self.reader = Reader(engine)
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

    def submit(self, item: EventAppend) -> Future[tuple[int, list[Posted]]]:
        """:meth:`append` without waiting: the future has what it would return."""
        future = self._submit(_Unit("event", item)).future
        assert future is not None
        return future

    def barrier(self) -> None:
        """Wait until everything submitted so far is written (or refused)."""
        self.run(lambda _conn: None)

    # -- money in flight ------------------------------------------------------------------

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
            while len(group) < self.max_group:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                group.append(more)
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
        for unit, outcome in zip(group, outcomes, strict=True):
            if unit.future is None:
                if isinstance(outcome, BaseException):
                    log.warning("a background write failed: %s", outcome)
                continue
            if isinstance(outcome, _Refused):
                unit.future.set_exception(outcome.error)
            elif isinstance(outcome, BaseException):
                unit.future.set_exception(outcome)
            else:
                unit.future.set_result(outcome)

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
                written = _Group(conn, group)
                with conn.begin():
                    outcomes = written.write()
                with self._money_lock:
                    self.balances.update(written.player_balances())
                return outcomes
            except DBAPIError as error:
                if error.connection_invalidated:
                    self._drop_connection()
                if not db.is_transient(error) or attempt == attempts:
                    raise
            except BaseException:
                if conn.invalidated:
                    self._drop_connection()
                raise
            time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.1)))
        raise AssertionError("unreachable")  # pragma: no cover


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
    placed_key: str | None = None
    closed_by_key: str | None = None
    changed: bool = False


class _Sql:
    """Plain SQL on the group's connection: the journal's statements are few
    and fixed, and this is the hot path (no statement compiling per group)."""

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

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        if self.sqlite:
            return list(self.conn.exec_driver_sql(sql, tuple(params)).fetchall())
        with self._cursor() as cursor:
            cursor.execute(self._text(sql), tuple(params), binary=True)
            return list(cursor.fetchall())

    def _execute(self, sql: str, params: Sequence[Any]) -> None:
        """One statement on PostgreSQL, its parameters sent in binary (no quoting)."""
        with self._cursor() as cursor:
            cursor.execute(sql, tuple(params), binary=True)

    def _cursor(self) -> Any:
        # The driver's own connection, inside the transaction SQLAlchemy began.
        return self.conn.connection.driver_connection.cursor()  # type: ignore[union-attr]

    def many(self, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """``sql`` once per row (nothing for no rows)."""
        for chunk in _chunks(rows):
            if len(chunk) == 1:
                self.conn.exec_driver_sql(self._text(sql), chunk[0])
            else:
                self.conn.exec_driver_sql(self._text(sql), list(chunk))

    def insert(
        self, table: str, columns: str, rows: Sequence[tuple[Any, ...]], types: tuple[str, ...]
    ) -> None:
        """Insert ``rows``: multi-row ``VALUES`` on SQLite; on PostgreSQL one
        ``INSERT ... SELECT FROM unnest(...)`` with a typed array per column
        (one round trip, and one statement text however many rows)."""
        if not rows:
            return
        if self.sqlite:
            one = "(" + ", ".join("?" * len(rows[0])) + ")"
            for chunk in _chunks(rows):
                self.conn.exec_driver_sql(
                    f"INSERT INTO {table} ({columns}) VALUES " + ", ".join([one] * len(chunk)),
                    tuple(value for row in chunk for value in row),
                )
            return
        arrays = ", ".join(f"%b::{t}[]" for t in types)
        self._execute(
            f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays})",
            [list(column) for column in zip(*rows, strict=True)],
        )

    def update(
        self,
        table: str,
        key: tuple[str, ...],
        columns: tuple[str, ...],
        rows: Sequence[tuple[Any, ...]],
        types: tuple[str, ...],
    ) -> None:
        """Set ``columns`` of the row named by ``key`` to each row's values (the
        values, then the key): executemany on SQLite, one ``UPDATE ... FROM
        unnest(...)`` on PostgreSQL (``types``: of the values, then the key)."""
        if not rows:
            return
        if self.sqlite:
            sets = ", ".join(f"{c} = ?" for c in columns)
            where = " AND ".join(f"{k} = ?" for k in key)
            self.many(f"UPDATE {table} SET {sets} WHERE {where}", rows)
            return
        names = (*columns, *key)
        arrays = ", ".join(f"%b::{t}[]" for t in types)
        sets = ", ".join(f"{c} = v.{c}" for c in columns)
        where = " AND ".join(f"{table}.{k} = v.{k}" for k in key)
        self._execute(
            f"UPDATE {table} SET {sets} FROM unnest({arrays}) AS v({', '.join(names)}) "
            f"WHERE {where}",
            [list(column) for column in zip(*rows, strict=True)],
        )

    def now(self) -> Any:
        """The current time as the schema stores it (see :class:`punto.store.db.UTCDateTime`)."""
        now = db.utc_now()
        if self.sqlite:
            return now.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")
        return now


class _Group:
    """Reads what a group needs, checks every unit in order against it in
    memory, then writes the lot with a few multi-row statements."""

    def __init__(self, conn: Connection, units: list[_Unit]) -> None:
        self.sql = _Sql(conn)
        self.conn = conn
        self.units = units
        self.wallets: dict[str, _Wallet] = {}
        self.bets: dict[tuple[str, str], _Bet] = {}
        self.keys: dict[str, tuple[str, str]] = {}  # key -> (scope, request hash), known
        self.next_seq: dict[str, int] = {}
        self.request_keys: set[str] = set()  # server_requests keys taken
        # rows to write
        self.new_keys: list[tuple[str, str]] = []  # (key, request hash)
        self.transactions: list[tuple[str, str, str | None, str | None, str | None]] = []
        self.entries: list[tuple[str, str, int]] = []  # (transaction key, wallet code, amount)
        self.events: list[tuple[str, int, str, str, str]] = []
        self.requests: list[Mapping[str, Any]] = []
        self.responses: list[tuple[int, str, str]] = []  # (status, response, key)

    # -- reading ----------------------------------------------------------------------------

    def _postings(self) -> Iterable[PostingSpec]:
        for unit in self.units:
            if unit.kind == "event":
                yield from unit.payload.postings
            elif unit.kind == "postings":
                yield from unit.payload

    def _load(self) -> None:
        sql = self.sql
        postings = list(self._postings())
        by_table: dict[str, set[str]] = {}
        for p in postings:
            if not isinstance(p, PlaceBet):
                by_table.setdefault(p.table_id, set()).add(p.bet_id)
        lock = "" if sql.sqlite else " ORDER BY b.bet_id FOR UPDATE OF b"
        for table_id, ids in sorted(by_table.items()):
            for chunk in _chunks(sorted(ids)):
                among, params = sql.among("b.bet_id", chunk)
                for row in sql.rows(
                    "SELECT b.table_id, b.bet_id, w.code, b.round_id, b.placed, b.held, b.status "
                    "FROM ledger_bets b JOIN wallets w ON w.id = b.wallet_id "
                    f"WHERE b.table_id = ? AND {among}{lock}",
                    [table_id, *params],
                ):
                    table, bet_id, code, round_id, placed, held, status = row
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
        self._load_wallets(codes)
        missing = [code for code in codes if code not in self.wallets]
        if any(code.startswith("holding:") or code == Ledger.HOUSE for code in missing):
            self._open_wallets(missing)
        # A bet's key names a new bet id (the primary keys would refuse a repeat anyway).
        keys = sorted({p.key for p in postings if not isinstance(p, PlaceBet)})
        for chunk in _chunks(keys):
            among, params = sql.among("key", chunk)
            for key, scope, request_hash in sql.rows(
                f"SELECT key, scope, request_hash FROM idempotency_keys WHERE {among}", params
            ):
                self.keys[key] = (scope, request_hash)
        requested = sorted(
            str(u.payload.request["key"])
            for u in self.units
            if u.kind == "event" and u.payload.request is not None
        )
        for chunk in _chunks(requested):
            among, params = sql.among("key", chunk)
            self.request_keys.update(
                key for (key,) in sql.rows(f"SELECT key FROM server_requests WHERE {among}", params)
            )
        tables = sorted({u.payload.table_id for u in self.units if u.kind == "event"})
        if tables:
            among, params = sql.among("table_id", tables)
            found = dict(
                sql.rows(
                    f"SELECT table_id, MAX(seq) FROM table_events WHERE {among} GROUP BY table_id",
                    params,
                )
            )
            self.next_seq = {t: int(found.get(t) or 0) + 1 for t in tables}

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
                    f"wallet {code} has 0, nothing to bet with", hint="deposit at the cage"
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
                    f"wallet {wallet.code} has {wallet.balance}, not the "
                    f"{wallet.balance - after[wallet.code]} asked for",
                    hint="deposit more or stake less",
                )
            if after[wallet.code] < 0 and wallet.kind == WalletKind.HOLDING.value:
                raise LedgerError(f"wallet {wallet.code} would go below zero")  # pragma: no cover
        player = None
        for wallet, _ in changes:
            if wallet.balance != after[wallet.code]:
                wallet.balance = after[wallet.code]
                wallet.changed = True
            if wallet.kind == WalletKind.PLAYER.value:
                player = wallet.balance
        request_hash = spec.request_hash
        self.keys[spec.key] = (SCOPE, request_hash)
        self.new_keys.append((spec.key, request_hash))
        self.transactions.append((spec.key, kind.value, spec.table_id, round_id, spec.bet_id))
        merged: dict[str, int] = {}
        for wallet, delta in changes:
            merged[wallet.code] = merged.get(wallet.code, 0) + delta
        self.entries += [(spec.key, code, delta) for code, delta in merged.items() if delta]
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
                placed_key=spec.key,
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
                    f"cannot return {back} of bet {spec.bet_id!r}: it holds {bet.held}",
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
        bet.closed_by_key = spec.key
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
            self.requests.append(item.request)
        return seq, posted

    # Staging is undone by truncating the row lists and restoring the touched state.
    def _snapshot(self) -> tuple[Any, ...]:
        return (
            len(self.new_keys),
            len(self.transactions),
            len(self.entries),
            {c: (w.balance, w.changed) for c, w in self.wallets.items()},
            {k: (b.held, b.status, b.changed, b.closed_by_key) for k, b in self.bets.items()},
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
            bet.held, bet.status, bet.changed, bet.closed_by_key = held, status, changed, closed_by
        self.keys = keys

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
        sql = self.sql
        now = sql.now()
        if self.transactions:
            sql.insert(
                "idempotency_keys",
                "key, scope, request_hash, created_at",
                [(key, SCOPE, request_hash, now) for key, request_hash in self.new_keys],
                ("varchar", "varchar", "varchar", "timestamptz"),
            )
            sql.insert(
                "ledger_transactions",
                "idempotency_key, kind, table_id, round_id, bet_id, memo, created_at",
                [(*row, None, now) for row in self.transactions],
                ("varchar", "varchar", "varchar", "varchar", "varchar", "text", "timestamptz"),
            )
            ids: dict[str, int] = {}
            for chunk in _chunks([row[0] for row in self.transactions]):
                among, params = sql.among("idempotency_key", chunk)
                ids.update(
                    (str(key), int(tid))
                    for tid, key in sql.rows(
                        f"SELECT id, idempotency_key FROM ledger_transactions WHERE {among}",
                        params,
                    )
                )
            sql.insert(
                "ledger_entries",
                "transaction_id, wallet_id, amount",
                [(ids[key], self.wallets[code].id, amount) for key, code, amount in self.entries],
                ("bigint", "bigint", "bigint"),
            )
            sql.insert(
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
                        ids[str(b.placed_key)],
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
            sql.update(
                "ledger_bets",
                ("table_id", "bet_id"),
                ("held", "status", "closed_by"),
                [
                    (
                        b.held,
                        b.status,
                        None
                        if b.status == BetStatus.OPEN.value or b.closed_by_key is None
                        else ids[b.closed_by_key],
                        b.table_id,
                        b.bet_id,
                    )
                    for b in self.bets.values()
                    if b.changed and not b.new
                ],
                ("bigint", "varchar", "bigint", "varchar", "varchar"),
            )
            sql.update(
                "wallets",
                ("id",),
                ("balance",),
                [
                    (w.balance, w.id)
                    for w in sorted(self.wallets.values(), key=lambda w: w.id)
                    if w.changed
                ],
                ("bigint", "bigint"),
            )
        sql.insert(
            "table_events",
            "table_id, seq, round_id, type, body, recorded_at",
            [(*row, now) for row in self.events],
            ("varchar", "bigint", "varchar", "varchar", "text", "timestamptz"),
        )
        sql.insert(
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
                    None,
                    None,
                    now,
                )
                for r in self.requests
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
        sql.update(
            "server_requests",
            ("key",),
            ("status_code", "response"),
            self.responses,
            ("integer", "text", "varchar"),
        )


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
                    row = cursor.fetchone()
                finally:
                    cursor.close()
            except Exception:
                self._discard(conn)
                raise
            self._idle.put(conn)
        return None if row is None else tuple(row)

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

    def attach(
        self,
        postings: Sequence[PostingSpec],
        request: Mapping[str, Any] | None = None,
        *,
        wait: bool = True,
    ) -> None:
        """What commits with the next event; ``wait=False``: do not wait for the
        commit (the engine takes the event at once; :attr:`submitted` says how
        the write went, and the caller must undo the table if it failed)."""
        self._attached = (postings, request, wait)

    def detach(self) -> None:
        self._attached = None

    def append(self, table_id: str, round_id: str, event: Event) -> int:
        postings, request, wait = self._attached or ((), None, True)
        self._attached = None
        item = EventAppend(table_id, round_id, event, postings, request)
        if not wait:
            self.submitted = self.journal.submit(item)
            self.posted = []
            return 0
        seq, self.posted = self.journal.append(item)
        return seq

    def read(self, table_id: str) -> list[StoredEvent]:
        try:
            with self.journal.engine.connect() as conn:
                rows = conn.execute(
                    select(table_events.c.seq, table_events.c.round_id, table_events.c.body)
                    .where(table_events.c.table_id == table_id)
                    .order_by(table_events.c.seq)
                ).all()
        except DBAPIError as error:
            raise StoreError(f"cannot read the event log: {error.orig}") from error
        return [
            StoredEvent(int(seq), str(round_id), event_from_json(json.loads(body)))
            for seq, round_id, body in rows
        ]
