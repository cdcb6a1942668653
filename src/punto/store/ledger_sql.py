"""Reading and writing the ledger's rows, through the SQLAlchemy Core tables.

The one place the ledger's tables (``wallets``, ``ledger_transactions``,
``ledger_entries``, ``ledger_bets``) are read for a
posting and written with one: :class:`punto.store.ledger.Ledger` (one posting a
transaction) and the server's group commit (:mod:`punto.server.tables.journal`, many)
both load the state here, decide with :mod:`punto.store.postings`, and write
the plans with :func:`write_plans` -- one executemany a table on SQLite, one
statement (a data-modifying ``WITH`` part a table) on PostgreSQL, however many
plans there are.

**The database is the authority for balances.**  A balance is never written
as a value read earlier: it is shifted (``balance = balance + d``), and only
where the result stays at or above zero for every wallet but the house's
(``WHERE id = :id AND (kind = 'house' OR balance + :d >= 0)``), the condition
evaluated on the row as it stands when the update takes its lock.  A shift
the database refuses leaves the count of rows shifted short, and
:func:`write_plans` raises :class:`BalanceChangedError` (an
:class:`InsufficientFundsError`): the caller's transaction rolls back, so two
processes posting against one wallet from stale reads can never overdraw it.
(The schema's own CHECK, no such wallet below zero, stands behind it.)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    String,
    Table,
    Text,
    and_,
    bindparam,
    cast,
    column,
    func,
    insert,
    null,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from punto.jsontext import dumps
from punto.store import db
from punto.store.db import (
    ledger_bets,
    ledger_entries,
    ledger_transactions,
    wallets,
)
from punto.store.listed import listed
from punto.store.postings import (
    HOUSE,
    BetState,
    BetStatus,
    InsufficientFundsError,
    Plan,
    PostingKind,
    WalletKind,
    WalletState,
)

T = TypeVar("T")

#: Values per IN list (SQLite allows 32,766 bound values; PostgreSQL 65,535).
CHUNK = 500


class BalanceChangedError(InsufficientFundsError):
    """The database refused a debit: the wallet holds less, at commit, than the
    posting was decided on (another writer took it meanwhile)."""


@dataclass(frozen=True, slots=True)
class WalletRow:
    """A wallet's row id and its state."""

    id: int
    state: WalletState


def chunks(items: Sequence[T]) -> Iterable[Sequence[T]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


# -- reading ---------------------------------------------------------------------------------------


# The reads, built once: the group commit runs them for every group, and a
# statement built anew costs more than the database's answer.
_WALLETS = (
    select(wallets.c.id, wallets.c.code, wallets.c.kind, wallets.c.balance)
    .where(listed(wallets.c.code, "codes"))
    .order_by(wallets.c.id)
)
_WALLETS_LOCKED = _WALLETS.with_for_update()
_BETS_READ = select(
    ledger_bets.c.table_id,
    ledger_bets.c.bet_id,
    wallets.c.code,
    ledger_bets.c.round_id,
    ledger_bets.c.placed,
    ledger_bets.c.held,
    ledger_bets.c.status,
).join(wallets, wallets.c.id == ledger_bets.c.wallet_id)
_BETS = _BETS_READ.where(
    tuple_(ledger_bets.c.table_id, ledger_bets.c.bet_id).in_(bindparam("refs", expanding=True))
).order_by(ledger_bets.c.table_id, ledger_bets.c.bet_id)
_KEYS = select(ledger_transactions.c.idempotency_key, ledger_transactions.c.request_hash).where(
    listed(ledger_transactions.c.idempotency_key, "keys")
)
_LAST_ID = select(func.coalesce(func.max(ledger_transactions.c.id), 0))
_NEXT_IDS = select(
    func.nextval(func.pg_get_serial_sequence("ledger_transactions", "id"))
).select_from(func.generate_series(1, bindparam("count")))


_read_texts: dict[tuple[int, int], str] = {}


def _read(
    conn: Connection, query: Any, name: str = "", values: Sequence[Any] = ()
) -> Iterable[Sequence[Any]]:
    """The rows of ``query``, its one list parameter ``name`` bound to ``values``
    (plain values or tuples).  On SQLite through the driver, the statement
    compiled once for each length of list: a group commit makes these reads
    for every group, and SQLAlchemy's work on a statement costs more than
    SQLite's answer."""
    if not db.is_sqlite(conn):
        return conn.execute(query, {name: list(values)} if name else {})
    key = (id(query), len(values))
    text = _read_texts.get(key)
    if text is None:
        # the list's marks spelt out; a query without one has only its own
        # constants, written in as they are
        options = {"render_postcompile": True} if name else {"literal_binds": True}
        bound = query.params({name: list(values)}) if name else query
        text = _read_texts[key] = bound.compile(dialect=conn.dialect, compile_kwargs=options).string
    flat = [x for v in values for x in v] if values and isinstance(values[0], tuple) else values
    return conn.exec_driver_sql(text, tuple(flat)).fetchall()


def load_wallets(conn: Connection, codes: Collection[str], *, lock: bool) -> dict[str, WalletRow]:
    """The wallets named ``codes`` that exist; with ``lock``, locked (PostgreSQL:
    ``FOR UPDATE`` in id order, the order every posting keeps: no deadlocks)."""
    query = _WALLETS_LOCKED if lock and not db.is_sqlite(conn) else _WALLETS
    found: dict[str, WalletRow] = {}
    for chunk in chunks(sorted(codes)):
        for wallet_id, code, kind, balance in _read(conn, query, "codes", chunk):
            found[str(code)] = WalletRow(
                int(wallet_id), WalletState(str(code), WalletKind(kind), int(balance))
            )
    return found


def open_wallets(conn: Connection, codes: Iterable[str]) -> None:
    """Open the house's, holding and pool wallets among ``codes`` that are not
    open yet (a player's wallet is opened at the cage, never here)."""
    rows = []
    now = db.utc_now()
    for code in sorted(set(codes)):
        if code == HOUSE:
            kind, table_id = WalletKind.HOUSE, None
        elif code.startswith("holding:"):
            kind, table_id = WalletKind.HOLDING, code.removeprefix("holding:")
        elif code.startswith("tournament:"):
            kind, table_id = WalletKind.TOURNAMENT, None
        else:
            continue
        rows.append(
            {
                "code": code,
                "kind": kind.value,
                "table_id": table_id,
                "balance": 0,
                "created_at": now,
            }
        )
    if rows:
        dialect_insert = sqlite_insert if db.is_sqlite(conn) else pg_insert
        conn.execute(dialect_insert(wallets).on_conflict_do_nothing(index_elements=["code"]), rows)


def load_bets(
    conn: Connection, refs: Collection[tuple[str, str]], *, lock: bool
) -> dict[tuple[str, str], BetState]:
    """The bets (table, bet id) of ``refs`` that exist; with ``lock``, locked (PostgreSQL)."""
    sqlite = db.is_sqlite(conn)
    joined = _BETS_JOINED_LOCKED if lock else _BETS_JOINED
    found: dict[tuple[str, str], BetState] = {}
    for chunk in chunks(sorted(set(refs))):
        rows = (
            _read(conn, _BETS, "refs", chunk)
            if sqlite
            else conn.execute(
                joined,
                {"refs_table_id": [t for t, _ in chunk], "refs_bet_id": [b for _, b in chunk]},
            )
        )
        for table, bet_id, code, round_id, placed, held, status in rows:
            found[(str(table), str(bet_id))] = BetState(
                str(table),
                str(bet_id),
                str(code),
                round_id,
                int(placed),
                int(held),
                BetStatus(status),
            )
    return found


def load_keys(conn: Connection, keys: Collection[str]) -> dict[str, str]:
    """The idempotency keys among ``keys`` already posted: key -> request hash."""
    found: dict[str, str] = {}
    for chunk in chunks(sorted(keys)):
        for key, request_hash in _read(conn, _KEYS, "keys", chunk):
            found[str(key)] = str(request_hash)
    return found


def new_transaction_ids(conn: Connection, count: int) -> list[int]:
    """``count`` new ``ledger_transactions`` ids, ascending: from the sequence on
    PostgreSQL (unique whoever else inserts); past the largest on SQLite, whose
    write lock the caller's transaction holds."""
    if count <= 0:
        return []
    if db.is_sqlite(conn):
        last = int(next(iter(_read(conn, _LAST_ID)))[0])
        return list(range(last + 1, last + 1 + count))
    return sorted(int(value) for value in conn.execute(_NEXT_IDS, {"count": count}).scalars())


# -- writing ----------------------------------------------------------------------------------------

# The debit the database refuses rather than take a wallet (but the house's) below zero.
_SHIFT = (
    update(wallets)
    .where(
        and_(
            wallets.c.id == bindparam("wallet_id"),
            or_(
                wallets.c.kind == WalletKind.HOUSE.value,
                wallets.c.balance + bindparam("delta") >= 0,
            ),
        )
    )
    .values(balance=wallets.c.balance + bindparam("delta"))
)

#: Every table a group writes, by name.
_TABLES = wallets.metadata.tables


@dataclass(frozen=True)
class Rows:
    """Rows to insert into ``table`` (or, with ``keys``, to update: the row named
    by the ``keys`` columns gets the other values); ``stamp``: a column every
    row gets the group's time in; ``skip_taken``: a row whose primary key is
    taken already is left out (the first one written stays)."""

    table: Table
    rows: list[dict[str, Any]]
    keys: tuple[str, ...] = ()
    stamp: str | None = None
    skip_taken: bool = False


def plan_rows(
    plans: Sequence[tuple[int, Plan]], wallet_ids: Mapping[str, int]
) -> tuple[list[Rows], list[dict[str, int]]]:
    """The rows ``plans`` (each with its transaction id, in order) write -- their
    transactions (each with its key), entries and bets -- and the balance shifts
    (wallet id, delta)."""
    out = [
        Rows(
            ledger_transactions,
            [
                {
                    "id": tid,
                    "idempotency_key": p.key,
                    "request_hash": p.request_hash,
                    "kind": p.kind.value,
                    "table_id": p.table_id,
                    "round_id": p.round_id,
                    "bet_id": p.bet_id,
                    "memo": p.memo,
                }
                for tid, p in plans
            ],
            stamp="created_at",
        ),
        Rows(
            ledger_entries,
            [
                {"transaction_id": tid, "wallet_id": wallet_ids[e.wallet], "amount": e.amount}
                for tid, p in plans
                for e in sorted(p.entries, key=lambda e: wallet_ids[e.wallet])
            ],
        ),
        *_bet_rows(plans, wallet_ids),
    ]
    shifts: dict[int, int] = {}
    for _, p in plans:
        for e in p.entries:
            wallet_id = wallet_ids[e.wallet]
            shifts[wallet_id] = shifts.get(wallet_id, 0) + e.amount
    return out, [{"wallet_id": w, "delta": d} for w, d in sorted(shifts.items()) if d != 0]


def write_plans(
    conn: Connection,
    plans: Sequence[tuple[int, Plan]],
    wallet_ids: Mapping[str, int],
    now: datetime,
    more: Sequence[Rows] = (),
) -> dict[int, int] | None:
    """Write ``plans`` (each with its transaction id, in order) and ``more`` rows
    of the caller's, and shift the balances -- a refused debit raises
    :class:`BalanceChangedError` (roll the transaction back).

    SQLite: one executemany a table.  PostgreSQL: everything in **one
    statement** (a data-modifying ``WITH`` part a table, each table's rows
    sent as one JSON document): one round trip, however many tables and rows;
    it returns the balance of each wallet shifted, as the database left it
    (wallet id -> balance), so that a caller who decided on balances it kept
    can check them (SQLite: None)."""
    parts, shifts = plan_rows(plans, wallet_ids) if plans else ([], [])
    parts = [part for part in (*parts, *more) if part.rows]
    if not parts and not shifts:
        return None if db.is_sqlite(conn) else {}
    after: dict[int, int] | None = None
    if db.is_sqlite(conn):
        for part in parts:
            _many(
                conn,
                _statement(part),
                part.rows if not part.keys else _keyed(part, part.rows),
                None if part.stamp is None else {part.stamp: now},
            )
        shifted = _many(conn, _SHIFT, shifts) if shifts else 0
    else:
        statement, params = _together(parts, shifts, now)
        after = {int(i): int(b) for i, b in conn.execute(statement, params) if i is not None}
        shifted = len(after)
    if shifted != len(shifts):
        raise BalanceChangedError(
            "the database refused the debit: a wallet holds less than the posting "
            "was decided on (money left it meanwhile)",
            hint="nothing was written; try again, or stake less",
        )
    return after


_Shape = tuple[str, tuple[str, ...], tuple[str, ...], str | None, bool]


def write_rows(conn: Connection, parts: Sequence[Rows]) -> None:
    """Write ``parts`` (PostgreSQL: in one statement, as :func:`write_plans` does)."""
    write_plans(conn, (), {}, db.utc_now(), more=parts)


def _shape(part: Rows) -> _Shape:
    return (part.table.name, tuple(part.rows[0]), part.keys, part.stamp, part.skip_taken)


@functools.cache
def _built(shape: _Shape) -> Any:
    """SQLite: the executemany statement of a shape of rows (built once)."""
    name, columns, keys, _stamp, skip_taken = shape
    table = _TABLES[name]
    if not keys:
        return sqlite_insert(table).on_conflict_do_nothing() if skip_taken else insert(table)
    return (
        update(table)
        .where(and_(*(table.c[k] == bindparam(f"k_{k}") for k in keys)))
        .values({c: bindparam(f"v_{c}") for c in columns if c not in keys})
    )


@dataclass(frozen=True)
class _Driver:
    """A statement compiled once for the driver: its text, the parameter each
    ``?`` takes, and the conversions the column types ask of a row's values."""

    text: str
    names: tuple[str, ...]
    #: each ``?``'s value from a row (a C-level getter), if no value needs converting
    plain: Callable[[Mapping[str, Any]], Any] | None
    processors: tuple[Callable[[Any], Any] | None, ...]
    #: the statement's own values (a literal in its WHERE, say)
    fixed: Mapping[str, Any]


_drivers: dict[tuple[int, tuple[str, ...], tuple[str, ...]], _Driver] = {}


def _driver(
    conn: Connection, statement: Any, names: tuple[str, ...], same: Mapping[str, Any]
) -> _Driver:
    key = (id(statement), names, tuple(same))
    driver = _drivers.get(key)
    if driver is None:
        compiled = statement.compile(dialect=conn.dialect, column_keys=[*names, *same])
        order = tuple(compiled.positiontup or ())
        processors = tuple(compiled.binds[n].type.bind_processor(conn.dialect) for n in order)
        fixed = {
            n: compiled.binds[n].effective_value for n in order if n not in names and n not in same
        }
        converted = any(p is not None for n, p in zip(order, processors, strict=True) if n in names)
        driver = _Driver(
            compiled.string,
            order,
            None if converted or len(order) < 2 else operator.itemgetter(*order),
            processors,
            fixed,
        )
        _drivers[key] = driver
    return driver


def _many(
    conn: Connection,
    statement: Any,
    rows: Sequence[Mapping[str, Any]],
    same: Mapping[str, Any] | None = None,
) -> int:
    """SQLite: ``statement`` for each of ``rows`` (and the values ``same`` for
    every row), handed to the driver as it is -- compiled once, a value
    converted by its column's type only where the type asks -- : the group
    commit's rows, many a transaction, without SQLAlchemy's work per row.
    Returns the rows the statement changed."""
    same = same or {}
    driver = _driver(conn, statement, tuple(rows[0]), same)
    once = {
        n: v if convert is None else convert(v)
        for n, convert in zip(driver.names, driver.processors, strict=True)
        if n in same or n in driver.fixed
        for v in [same[n] if n in same else driver.fixed[n]]
    }
    if driver.plain is not None:
        pick = driver.plain
        params = [pick({**row, **once}) for row in rows] if once else [pick(r) for r in rows]
    else:
        params = [
            tuple(
                once[n] if n in once else row[n] if convert is None else convert(row[n])
                for n, convert in zip(driver.names, driver.processors, strict=True)
            )
            for row in rows
        ]
    return int(conn.exec_driver_sql(driver.text, params).rowcount)


def _statement(part: Rows) -> Any:
    return _built(_shape(part))


def _keyed(part: Rows, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {(f"k_{c}" if c in part.keys else f"v_{c}"): value for c, value in row.items()}
        for row in rows
    ]


@functools.cache
def _together_built(shapes: tuple[_Shape, ...], shift: bool) -> Any:
    """PostgreSQL: the one statement writing rows of ``shapes`` (built once a shape).

    Rows to insert come as one JSON document a table (:mod:`punto.jsontext`, in C;
    the driver would dump an array element by element in Python).  Rows that
    update others by key come as an array a column: an update joins them to
    its table, and the planner reads an array's length, where it takes any
    JSON document for 100 rows -- and so, below ~50,000 rows in the table,
    chose a sequential scan of the whole table for every group's few
    settlements (a cost growing with the table's history, on the one write
    path)."""
    ctes = []
    for i, (name, columns, keys, stamp, skip_taken) in enumerate(shapes):
        table = _TABLES[name]
        if keys:
            source = _arrays(f"p{i}", [(c, table.c[c].type) for c in columns], f"v{i}")
            dml: Any = (
                update(table)
                .where(and_(*(table.c[k] == source.c[k] for k in keys)))
                .values({c: source.c[c] for c in columns if c not in keys})
            )
        else:
            source = (
                func.json_to_recordset(cast(bindparam(f"p{i}", type_=Text), JSON))
                .table_valued(*(column(c, table.c[c].type) for c in columns))
                .render_derived(name=f"v{i}", with_types=True)
            )
            chosen = [source.c[c] for c in columns]
            names = list(columns)
            if stamp is not None:
                chosen.append(bindparam("now", type_=table.c[stamp].type))
                names.append(stamp)
            dml = pg_insert(table).from_select(names, select(*chosen))
            if skip_taken:
                dml = dml.on_conflict_do_nothing()
        ctes.append(dml.cte(f"w{i}"))
    if not shift:
        return select(null(), null()).add_cte(*ctes)
    v = _arrays("shifts", [("id", wallets.c.id.type), ("delta", wallets.c.balance.type)], "s")
    shifted = (
        update(wallets)
        .where(
            wallets.c.id == v.c.id,
            or_(wallets.c.kind == WalletKind.HOUSE.value, wallets.c.balance + v.c.delta >= 0),
        )
        .values(balance=wallets.c.balance + v.c.delta)
        .returning(wallets.c.id, wallets.c.balance)
        .cte("shifted")
    )
    return select(shifted.c.id, shifted.c.balance).add_cte(*ctes)


def _arrays(prefix: str, columns: Sequence[tuple[str, Any]], name: str) -> Any:
    """``unnest`` of one array parameter a column (``<prefix>_<column>``) as the
    rows of ``name``."""
    arrays = [cast(bindparam(f"{prefix}_{c}", type_=ARRAY(t)), ARRAY(t)) for c, t in columns]
    return func.unnest(*arrays).table_valued(*(c for c, _ in columns)).render_derived(name=name)


# PostgreSQL: the bets' references as two arrays joined to the bets, one
# statement text however many there are (as :func:`punto.store.listed.listed`
# does for one column; a pair has no array type of its own).
_REFS = _arrays("refs", [("table_id", String()), ("bet_id", String())], "refs")
_BETS_JOINED = (
    _BETS_READ.join(
        _REFS,
        and_(ledger_bets.c.table_id == _REFS.c.table_id, ledger_bets.c.bet_id == _REFS.c.bet_id),
    )
).order_by(ledger_bets.c.table_id, ledger_bets.c.bet_id)
_BETS_JOINED_LOCKED = _BETS_JOINED.with_for_update(of=ledger_bets)


def _together(
    parts: Sequence[Rows], shifts: Sequence[Mapping[str, int]], now: datetime
) -> tuple[Any, dict[str, Any]]:
    params: dict[str, Any] = {"now": now}
    for i, part in enumerate(parts):
        if part.keys:
            params.update({f"p{i}_{c}": [row[c] for row in part.rows] for c in part.rows[0]})
        else:
            params[f"p{i}"] = dumps(part.rows, default=_json_value)
    if shifts:
        params["shifts_id"] = [r["wallet_id"] for r in shifts]
        params["shifts_delta"] = [r["delta"] for r in shifts]
    return _together_built(tuple(_shape(part) for part in parts), bool(shifts)), params


def _json_value(value: Any) -> str:
    """A row's value that JSON has no type for, as PostgreSQL reads its column from text."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"no JSON form for a {type(value).__name__} in a ledger row")


def _bet_rows(plans: Sequence[tuple[int, Plan]], wallet_ids: Mapping[str, int]) -> list[Rows]:
    """The bets placed (as they stand after every plan) to insert, and the
    others settled or returned to update."""
    placed: dict[tuple[str, str], tuple[int, BetState, int | None]] = {}
    closed: dict[tuple[str, str], tuple[BetState, int]] = {}
    for tid, p in plans:
        if p.bet is None or p.kind not in (
            PostingKind.BET,
            PostingKind.SETTLEMENT,
            PostingKind.RETURN,
        ):
            continue
        ref = (p.bet.table_id, p.bet.bet_id)
        if p.kind is PostingKind.BET:
            placed[ref] = (tid, p.bet, None)
        elif ref in placed:  # placed and closed in one go: insert it as it ends
            placed[ref] = (placed[ref][0], p.bet, tid)
        else:
            closed[ref] = (p.bet, tid)
    inserted = [
        {
            "table_id": bet.table_id,
            "bet_id": bet.bet_id,
            "wallet_id": wallet_ids[bet.wallet],
            "round_id": bet.round_id,
            "placed": bet.placed,
            "held": bet.held,
            "status": bet.status.value,
            "placed_by": tid,
            "closed_by": None if bet.status is BetStatus.OPEN else last,
        }
        for tid, bet, last in placed.values()
    ]
    updated = [
        {
            "table_id": bet.table_id,
            "bet_id": bet.bet_id,
            "held": bet.held,
            "status": bet.status.value,
            "closed_by": None if bet.status is BetStatus.OPEN else tid,
        }
        for bet, tid in closed.values()
    ]
    return [Rows(ledger_bets, inserted), Rows(ledger_bets, updated, keys=("table_id", "bet_id"))]
