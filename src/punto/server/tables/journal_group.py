"""One group of the journal's writes: read what it needs, decide every unit, write the lot.

A group reads (PostgreSQL: locking the bets it settles or returns) the state
its units' postings need, decides each posting in order with the ledger's own
rules (:func:`punto.store.postings.plan`, against the state as the units
before it left it), and writes everything with a handful of executemany
statements through the Core tables (:mod:`punto.store.ledger_sql` for the
ledger's rows).  The balances it read are only its first refusal: the
database refuses a debit the wallet cannot cover at commit
(:class:`~punto.store.ledger_sql.BalanceChangedError`), and the journal then
reads and decides the group again.

On PostgreSQL a group need not read the wallets at all: the journal keeps
each wallet as its last group left it, and the write returns every balance it
shifted, as the database has it.  A group decides on the kept wallets and
checks them against those balances before its commit; one that another
writer (the cage, another process) changed meanwhile -- or a posting refused
on a kept balance -- has the group read those wallets and decide again
(:class:`StaleWalletsError`).  So a balance an answer gives is always the
database's, and one round trip of every group's few is saved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from punto.jsontext import dumps
from punto.money import CENT, format_money
from punto.server import forwarded
from punto.server.notices import notify
from punto.store import db, ledger_sql, postings
from punto.store.db import server_requests, table_events
from punto.store.listed import listed
from punto.store.postings import (
    BetState,
    IdempotencyConflictError,
    LedgerError,
    PlaceBet,
    Plan,
    PostingKind,
    ReturnBet,
    SettleBet,
    WalletKind,
    WalletState,
)
from punto.table.events import TABLE_STREAM, Event

#: Ledger transaction ids taken from PostgreSQL's sequence at once.
ID_BLOCK = 1000

PostingSpec = PlaceBet | SettleBet | ReturnBet
#: The headers of a bet's answer, as the application sends them.
_JSON = [["content-type", "application/json"]]

# Built once: a statement built anew for every group costs more than its answer.
_TAKEN = select(server_requests.c.key).where(listed(server_requests.c.key, "keys"))
_LAST_SEQ = (
    select(table_events.c.table_id, func.max(table_events.c.seq))
    .where(listed(table_events.c.table_id, "tables"))
    .group_by(table_events.c.table_id)
)


class RequestKeyTakenError(IdempotencyConflictError):
    """A bet request's Idempotency-Key has a reservation already (a retry)."""


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
    #: the sequence number the writer expects the event to get (None: the next)
    expected: int | None = None
    #: the event as stored (made by the caller, off the journal's thread)
    body: str = field(init=False)

    def __post_init__(self) -> None:
        self.body = TABLE_STREAM.encode(self.table_id, self.event, self.round_id)
        for spec in self.postings:
            _ = spec.request_hash  # hashed here, not on the journal's thread


@dataclass
class Unit:
    """What one caller gave the journal: ``kind`` is "event", "postings", "response" or "work"."""

    kind: str
    payload: Any
    future: Future[Any] | None = field(default_factory=Future)
    #: an event loop's future to settle too (all of a group's in one call into the loop)
    notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None


class Refused(Exception):  # noqa: N818 - a unit refused, carrying the error
    def __init__(self, error: BaseException) -> None:
        self.error = error


class StaleWalletsError(Exception):
    """Wallets the group decided on as the journal kept them that the database
    holds otherwise (or that refused a posting): read them and decide again."""

    def __init__(self, codes: Iterable[str]) -> None:
        self.codes = frozenset(codes)
        super().__init__(f"wallets changed elsewhere: {', '.join(sorted(self.codes))}")


class Group:
    """Reads what a group needs, decides every unit in order against it in
    memory, then writes the lot with a few multi-row statements."""

    def __init__(
        self,
        conn: Connection,
        units: list[Unit],
        next_seq: dict[str, int] | None = None,
        spare_ids: list[int] | None = None,
        kept: Mapping[str, ledger_sql.WalletRow] | None = None,
        *,
        read_keys: bool = False,
    ) -> None:
        self.conn = conn
        #: read which of the units' request keys are taken (after a write the
        #: database refused for one: see :meth:`_load`)
        self.read_keys = read_keys
        self.sqlite = db.is_sqlite(conn)
        #: wallets as the journal's last group left them (PostgreSQL only: only
        #: there does the write return the balances to check them against)
        self.kept: Mapping[str, ledger_sql.WalletRow] = {} if self.sqlite else (kept or {})
        #: the wallets this group took from ``kept``, not read
        self.from_kept: set[str] = set()
        self.units = units
        #: transaction ids handed out before and not used (PostgreSQL only)
        self.spare_ids = [] if self.sqlite else list(spare_ids or [])
        self.ids: dict[str, int] = {}  # wallet code -> row id
        self.states: dict[str, WalletState] = {}
        self.bets: dict[tuple[str, str], BetState] = {}
        self.keys: dict[str, str] = {}  # key -> request hash, posted
        #: the next sequence number of each table's log (as the journal last wrote it)
        self.next_seq: dict[str, int] = dict(next_seq or {})
        self.request_keys: set[str] = set()  # server_requests keys taken
        #: ledger_transactions ids handed out for this group, not used yet (largest first)
        self.free_ids: list[int] = []
        # rows to write
        self.plans: list[tuple[int, Plan]] = []
        self.events: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.responses: list[dict[str, Any]] = []
        #: answers to forwarded requests, announced when the group commits
        self.announcements: list[str] = []

    # -- reading ------------------------------------------------------------------------------

    def _postings(self) -> Iterable[PostingSpec]:
        for unit in self.units:
            if unit.kind == "event":
                yield from unit.payload.postings
            elif unit.kind == "postings":
                yield from unit.payload

    def _load(self) -> None:
        """Read what the group's units touch (PostgreSQL: locking the bets first)."""
        conn = self.conn
        specs = list(self._postings())
        # A table's bet is placed under an id the table drew for it (at random):
        # new, so not read -- a locking read of every bet placed was the largest
        # part of a group's time on PostgreSQL.  Its key (read below) finds a
        # retry, and were the id ever taken the ledger's primary key refuses
        # the write (the bet alone, as the ledger would: Journal._commit).
        # Postings given as such are read as the ledger reads them.
        drawn = {
            (spec.table_id, spec.bet_id)
            for unit in self.units
            if unit.kind == "event"
            for spec in unit.payload.postings
            if isinstance(spec, PlaceBet)
        }
        refs = {ref for spec in specs if (ref := postings.bet_ref(spec)) is not None} - drawn
        self.bets = ledger_sql.load_bets(conn, refs, lock=True)
        # Nor is such a bet's key (``bet:<table>:<bet id>``, new with its id; a
        # retried request is answered from its stored answer, never placed
        # again): were it taken, its unique key on the transactions refuses
        # the write, as the bet's primary key does.
        self.keys = ledger_sql.load_keys(
            conn,
            {
                spec.key
                for spec in specs
                if not (
                    isinstance(spec, PlaceBet)
                    and (spec.table_id, spec.bet_id) in drawn
                    and spec.key == f"bet:{spec.table_id}:{spec.bet_id}"
                )
            },
        )
        codes: set[str] = set()
        for spec in specs:
            ref = postings.bet_ref(spec)
            codes.update(postings.wallets_needed(spec, None if ref is None else self.bets.get(ref)))
        # The balances are shifted, not set, and the database refuses a debit they
        # cannot cover: no lock to take.
        rows = {code: kept for code in codes if (kept := self.kept.get(code)) is not None}
        self.from_kept = set(rows)
        unread = codes - self.from_kept
        if unread:
            rows.update(ledger_sql.load_wallets(conn, unread, lock=False))
            missing = [c for c in unread if c not in rows]
            if any(postings.unopened(c).kind is not WalletKind.PLAYER for c in missing):
                ledger_sql.open_wallets(conn, missing)
                rows.update(ledger_sql.load_wallets(conn, missing, lock=False))
        self.ids = {code: row.id for code, row in rows.items()}
        self.states = {code: row.state for code, row in rows.items()}
        # A request's key taken already (elsewhere, or before the table came
        # here) refuses its unit.  Not read first: a key is new but for a retry
        # that the table's answers missed (rare), and then its primary key
        # refuses the whole write; the journal writes the group again, reading
        # the keys in its own transaction (``read_keys``).
        requested = sorted(
            str(u.payload.request["key"])
            for u in self.units
            if self.read_keys and u.kind == "event" and u.payload.request is not None
        )
        for chunk in ledger_sql.chunks(requested):
            found = conn.execute(_TAKEN, {"keys": list(chunk)})
            self.request_keys.update(str(key) for key in found.scalars())
        tables = sorted(
            {u.payload.table_id for u in self.units if u.kind == "event"} - set(self.next_seq)
        )
        if tables:
            last: dict[str, int] = {
                row[0]: row[1] for row in conn.execute(_LAST_SEQ, {"tables": tables})
            }
            self.next_seq.update({t: int(last.get(t) or 0) + 1 for t in tables})
        # Transaction ids: PostgreSQL's sequence hands them out in blocks kept by the
        # journal (unique whoever else inserts); SQLite's come past the largest.
        need = len(specs) - len(self.spare_ids)
        fresh = (
            ledger_sql.new_transaction_ids(conn, need if self.sqlite else max(need, ID_BLOCK))
            if need > 0
            else []
        )
        # Largest first: pop() hands them out in ascending order.
        self.free_ids = sorted(self.spare_ids + fresh, reverse=True)

    # -- deciding, in memory ------------------------------------------------------------------------

    def _stage(self, spec: PostingSpec) -> Posted:
        """Decide one posting (the ledger's rules) and stage it; a refusal raises."""
        if postings.check_key(spec, self.keys.get(spec.key)):
            return Posted(spec.key, replayed=True)
        ref = postings.bet_ref(spec)
        bet = None if ref is None else self.bets.get(ref)
        try:
            made = postings.plan(spec, self.states, bet)
        except LedgerError:
            # Refused on a kept balance: the database may hold more (a deposit
            # by another process).  Read it and decide again.
            kept = self.from_kept.intersection(postings.wallets_needed(spec, bet))
            if kept:
                raise StaleWalletsError(kept) from None
            raise
        for code, after in made.balances.items():
            before = self.states.get(code) or postings.unopened(code)
            self.states[code] = WalletState(code, before.kind, after)
        if ref is not None and made.bet is not None and made.kind is not PostingKind.RESETTLEMENT:
            self.bets[ref] = made.bet
        self.keys[spec.key] = made.request_hash
        self.plans.append((self.free_ids.pop(), made))
        return Posted(spec.key, player_balance=made.player_balance)

    def _stage_unit(self, unit: Unit) -> Any:
        """Decide one unit and stage its rows; a refusal stages nothing of it."""
        if unit.kind == "postings":
            out: list[Posted | LedgerError] = []
            for spec in unit.payload:
                try:
                    out.append(self._stage(spec))
                except LedgerError as refused:
                    out.append(refused)
            return out
        if unit.kind == "response":
            status, text, key = unit.payload
            self.responses.append({"key": key, "status_code": status, "response": text})
            return None
        item: EventAppend = unit.payload
        if item.request is not None and item.request["key"] in self.request_keys:
            return Refused(
                RequestKeyTakenError(
                    "this Idempotency-Key is in use by another request",
                    hint="use a new key for a new bet; repeat a key only to retry the same request",
                )
            )
        seq = self.next_seq[item.table_id]
        if item.expected is not None and item.expected != seq:
            return Refused(TABLE_STREAM.conflicting(item.table_id, item.expected))
        saved = (len(self.plans), dict(self.states), dict(self.bets), dict(self.keys))
        try:
            posted = [self._stage(spec) for spec in item.postings]
        except LedgerError as refused:
            plans_n, self.states, self.bets, self.keys = saved
            del self.plans[plans_n:]
            return Refused(refused)
        self.next_seq[item.table_id] = seq + 1
        self.events.append(
            {
                "table_id": item.table_id,
                "seq": seq,
                "round_id": item.round_id,
                "type": item.event.type,
                "body": item.body,
            }
        )
        if item.request is not None:
            self.request_keys.add(str(item.request["key"]))
            status, text = None, None
            answer = item.request.get("answer")
            if answer is not None and posted and posted[0].player_balance is not None:
                # The answer the request gets, stored with it (no second write).
                balance = format_money(Decimal(posted[0].player_balance) * CENT)
                status, text = 201, dumps({**answer, "balance": balance}, sort_keys=True)
                answering = item.request.get("announce")
                if answering is not None:  # a forwarded request's, announced on commit
                    answering.announced = True
                    self.announcements.append(
                        forwarded.notice(
                            answering.request_id, forwarded.pack(201, _JSON, text.encode())
                        )
                    )
            self.requests.append(
                {
                    "key": item.request["key"],
                    "account_id": item.request["account_id"],
                    "request_hash": item.request["request_hash"],
                    "table_id": item.request["table_id"],
                    "round_id": item.request["round_id"],
                    "bet_id": item.request["bet_id"],
                    "status_code": status,
                    "response": text,
                }
            )
        return seq, posted

    def wallets(self) -> dict[str, ledger_sql.WalletRow]:
        """Every wallet the group read or kept, as it left them (to be kept)."""
        return {
            code: ledger_sql.WalletRow(self.ids[code], state)
            for code, state in self.states.items()
            if code in self.ids
        }

    def player_balances(self) -> dict[str, int]:
        """The balance of every player wallet the group read, as it wrote them."""
        return {
            code: state.balance
            for code, state in self.states.items()
            if state.kind is WalletKind.PLAYER and code in self.ids
        }

    # -- writing ----------------------------------------------------------------------------------

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

    def write(self, checks: Callable[[Connection], None] | None = None) -> list[Any]:
        """Decide and write the group in the connection's transaction; the outcome
        of each unit.  ``checks`` runs last, before the caller commits."""
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
        notify(self.conn, forwarded.ANSWERS, self.announcements)
        for i, run in work:
            try:
                with self.conn.begin_nested():
                    outcomes[i] = run(self.conn)
            except Exception as error:  # it alone fails
                outcomes[i] = Refused(error)
        if checks is not None:
            checks(self.conn)
        return outcomes

    def _flush(self) -> None:
        """Write the staged rows (on PostgreSQL in one statement); a refused debit
        stops it, and so does a kept wallet the database holds otherwise."""
        after = ledger_sql.write_plans(
            self.conn,
            self.plans,
            self.ids,
            db.utc_now(),
            more=[
                ledger_sql.Rows(table_events, self.events, stamp="recorded_at"),
                ledger_sql.Rows(server_requests, self.requests, stamp="created_at"),
                ledger_sql.Rows(server_requests, self.responses, keys=("key",)),
            ],
        )
        if not after:
            return
        codes = {wallet_id: code for code, wallet_id in self.ids.items()}
        stale = set()
        for wallet_id, balance in after.items():
            code = codes[wallet_id]
            state = self.states[code]
            if state.balance != balance:
                # Another writer shifted it since it was read or kept: decide again,
                # so that a balance an answer gives is the database's.  The
                # house's decides nothing (it may go below zero) and every
                # process's settlements shift it: taken as the database has it.
                if state.kind is not WalletKind.HOUSE:
                    stale.add(code)
                self.states[code] = WalletState(code, state.kind, balance)
        if stale:
            raise StaleWalletsError(stale)


__all__ = [
    "EventAppend",
    "Group",
    "Posted",
    "PostingSpec",
    "Refused",
    "RequestKeyTakenError",
    "StaleWalletsError",
    "Unit",
]
