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

Postings are decided by the ledger's own rules (:mod:`punto.store.postings`,
the same :class:`punto.store.ledger.Ledger` uses: the same rows, keys, request
hashes -- a key posted here and retried through ``Ledger`` is a replay -- and
refusals), in memory against the rows read at the start of the group (on
PostgreSQL the bets to settle or return are locked), so a posting the ledger
would refuse is refused here without writing anything, and the rest of the
group commits (:mod:`punto.server.tables.journal_group`).  **The database is the
authority for balances**: they are written as differences, and a debit only
where the wallet still covers it at commit (:mod:`punto.store.ledger_sql`),
so two journals in two processes sharing one database never overdraw a
wallet; a group the database refuses so is read and decided again, and the
posting the wallet cannot cover is then refused alone.  The balances the
journal keeps (:meth:`Journal.available`) are only a fast first refusal.  If
the group fails as a whole (a constraint, a lost connection), its units are
committed one by one so that one bad unit fails alone; a transient conflict
(deadlock, busy database) is retried.

The group is written with a handful of multi-row statements however large it
is: that, and the one commit, is what lets a server on two cores take more
than a thousand bets a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from punto.eventlog import Stored
from punto.server.batching import next_batch
from punto.server.tables.journal_group import (
    EventAppend,
    Group,
    Posted,
    PostingSpec,
    Refused,
    RequestKeyTakenError,
    StaleWalletsError,
    Unit,
)
from punto.server.tables.journal_reads import PLAYER_BALANCES, Reader, RequestLookup, settle
from punto.store import db
from punto.store.errors import StoreError
from punto.store.kept import KeptConnection
from punto.store.ledger import LedgerError
from punto.store.ledger_sql import BalanceChangedError, WalletRow, chunks
from punto.store.postings import BetStateError, PlaceBet, ReturnBet, SettleBet
from punto.store.sql_log import read_stream, stream_ids
from punto.table.events import TABLE_STREAM, Event

__all__ = [
    "EventAppend",
    "Journal",
    "JournalEventLog",
    "PlaceBet",
    "Posted",
    "PostingSpec",
    "Reader",
    "RequestKeyTakenError",
    "RequestLookup",
    "ReturnBet",
    "SettleBet",
]

log = logging.getLogger("punto.server.tables.journal")

T = TypeVar("T")

#: The most units one group takes, and (roughly) the most postings: a group is
#: one transaction, and everyone in it waits for all of it.
MAX_GROUP = 1000
MAX_POSTINGS = 300
#: A hook run in every write transaction before it commits (a lease's fencing
#: check, say): it raises to refuse the commit.
#: The fencing check of the table leases (:mod:`punto.server.cluster.ownership`): run in
#: every group's transaction with the tables whose events or money it writes,
#: before it commits; raising refuses the group's writes.
Checks = Callable[[Connection, frozenset[str]], None]


# -- the writer thread ----------------------------------------------------------------------------


class Journal:
    """One writer thread for one database (see the module's docstring)."""

    def __init__(
        self, engine: Engine, *, max_group: int = MAX_GROUP, checks: Checks | None = None
    ) -> None:
        self.engine = engine
        #: run in every group's transaction before it commits
        self.checks = checks
        self.max_group = max_group
        self._queue: queue.SimpleQueue[Unit | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        # Its own connection: no pool's ping a group (never looked at when idle:
        # a group that finds it gone fails, and the next opens another).
        self._kept = KeptConnection(engine, idle_seconds=None, prepare=_immediate_on_sqlite)
        #: each table's next log sequence number, as of the last group written
        self._next_seq: dict[str, int] = {}
        #: ledger transaction ids from PostgreSQL's sequence, not used yet
        self._spare_ids: list[int] = []
        #: player wallet balances as of the journal's last commit that read them
        self.balances: dict[str, int] = {}
        #: every wallet as the last group that read or wrote it left it (PostgreSQL:
        #: a group decides on these and checks them at its write, see Group)
        self._wallets: dict[str, WalletRow] = {}
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

    def _submit(self, unit: Unit) -> Unit:
        with self._lock:
            if self._closed:
                raise StoreError("the server is stopping: nothing more is written")
            self._queue.put(unit)
        return unit

    def append(self, item: EventAppend) -> tuple[int, list[Posted]]:
        """Write an event and its postings; returns its sequence number and the postings
        made, once committed.  A refused posting raises its ledger error (nothing written)."""
        result: tuple[int, list[Posted]] = self._wait(self._submit(Unit("event", item)))
        return result

    def submit(
        self,
        item: EventAppend,
        notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None,
    ) -> Future[tuple[int, list[Posted]]]:
        """:meth:`append` without waiting: the future has what it would return
        (and so, set in its loop, does ``notify``'s)."""
        future = self._submit(Unit("event", item, notify=notify)).future
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
        so this errs low -- unless money leaves the wallet elsewhere (another
        process, the cage): it is only a fast first refusal, and the database
        refuses at commit a bet the wallet no longer covers."""
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
            self._wallets.pop(wallet, None)
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
        for chunk in chunks(wanted):
            # On the reader's kept connections: a login's read takes no pool checkout.
            rows += self.reader.rows(PLAYER_BALANCES, {"codes": list(chunk)})
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
            self._submit(Unit("postings", list(postings)))
        )
        return result

    def store_response(self, key: str, status: int, response: str) -> None:
        """Keep a bet request's answer with its reservation (in the next group;
        not waited for)."""
        self._submit(Unit("response", (status, response, key), None))

    def run(self, work: Callable[[Connection], T], *, wait: bool = True) -> T | None:
        """Run ``work`` in the next group, after the group's events and postings
        (it must not depend on their order).  ``wait=False``: do not wait for it."""
        unit = Unit("work", work, Future() if wait else None)
        self._submit(unit)
        if not wait:
            return None
        result: T = self._wait(unit)
        return result

    @staticmethod
    def _wait(unit: Unit) -> Any:
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
            self._kept.drop()
            self.reader.close()
            log.info(
                "journal: %d groups, %d units, %.1f s writing", self.groups, self.units, self.busy
            )

    def _loop(self) -> None:
        while True:
            taken = next_batch(
                self._queue, self.max_group, weight=_weight, most_weight=MAX_POSTINGS
            )
            if taken is None:
                return
            group, stop = taken
            self._commit(group)
            if stop:
                return

    def _commit(self, group: list[Unit]) -> None:
        outcomes: list[Any]
        started = time.perf_counter()
        try:
            outcomes = self._transaction(group)
        except Exception as error:
            if len(group) == 1:
                outcomes = [_as_store_error(error, group[0])]
            else:
                log.warning("a group of %d failed (%s); writing one by one", len(group), error)
                outcomes = []
                for unit in group:
                    try:
                        outcomes += self._transaction([unit])
                    except Exception as alone:
                        outcomes.append(_as_store_error(alone, unit))
        self.groups += 1
        self.units += len(group)
        self.busy += time.perf_counter() - started
        notices: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
        for unit, outcome in zip(group, outcomes, strict=True):
            if isinstance(outcome, Refused):
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
                loop.call_soon_threadsafe(settle, settled)

    def _checks_for(self, written: Group) -> Callable[[Connection], None] | None:
        """The fencing check, told which tables this group writes for."""
        checks = self.checks
        if checks is None:
            return None
        return lambda conn: checks(conn, written.tables())

    def _transaction(self, group: list[Unit]) -> list[Any]:
        """Write the group in one transaction (retrying transient conflicts)."""
        attempts = 30
        read_keys = False
        for attempt in range(1, attempts + 1):
            conn = self._kept.get()
            try:
                written = Group(
                    conn, group, self._next_seq, self._spare_ids, self._wallets, read_keys=read_keys
                )
                with conn.begin():
                    outcomes = written.write(self._checks_for(written))
                with self._money_lock:
                    self.balances.update(written.player_balances())
                    self._wallets.update(written.wallets())
                self._next_seq = written.next_seq
                self._spare_ids = written.free_ids
                return outcomes
            except IntegrityError as error:
                self._forget_all()
                if not _request_key_taken(error) or attempt == attempts:
                    raise
                read_keys = True  # a request's key was taken: read them, decide again
                continue
            except StaleWalletsError as stale:
                # Changed elsewhere since kept: read them, decide again (no wait).
                with self._money_lock:
                    for code in stale.codes:
                        self._wallets.pop(code, None)
                if attempt == attempts:
                    raise
                continue
            except BalanceChangedError:
                # Another writer took money the group counted on: read and decide again
                # (the posting the wallet cannot cover is then refused alone).
                self._forget_all()
                if attempt == attempts:
                    raise
            except DBAPIError as error:
                self._forget_all()  # read them again: someone else may have written
                if error.connection_invalidated:
                    self._kept.drop()
                if not db.is_transient(error) or attempt == attempts:
                    raise
            except BaseException:
                self._forget_all()
                if conn.invalidated:
                    self._kept.drop()
                raise
            time.sleep(random.uniform(0, min(0.002 * 2**attempt, 0.1)))
        raise AssertionError("unreachable")  # pragma: no cover

    def _forget_all(self) -> None:
        """Read everything again in the next group (after a failed one)."""
        self._next_seq = {}
        with self._money_lock:
            self._wallets.clear()


def _weight(unit: Unit) -> int:
    """Roughly how much writing a unit is (its postings, at least 1)."""
    if unit.kind == "postings":
        return max(1, len(unit.payload))
    if unit.kind == "event":
        return max(1, len(unit.payload.postings))
    return 1


def _immediate_on_sqlite(conn: Connection) -> None:
    """A group writes: on SQLite it takes the write lock as it begins."""
    if db.is_sqlite(conn):
        conn.execution_options(sqlite_begin="IMMEDIATE")


def _request_key_taken(error: IntegrityError) -> bool:
    """Whether the database refused a request's key as taken (``server_requests``' primary key)."""
    text = str(error.orig)
    return "pk_server_requests" in text or "server_requests.key" in text


def _as_store_error(error: BaseException, unit: Unit) -> BaseException:
    placed = _bets_placed(unit)
    if (
        isinstance(error, IntegrityError)
        and placed
        and any(t in str(error.orig) for t in ("ledger_bets", "idempotency_key"))
    ):
        # A bet id placed before (the group reads neither bets placed nor their
        # keys: see Group._load); the ledger's own refusal, as Ledger.post gives it.
        table_id, bet_id = placed[0]
        return BetStateError(
            f"bet {bet_id!r} at table {table_id!r} was already placed",
            hint="give each bet at a table its own bet id",
        )
    if (
        isinstance(error, IntegrityError)
        and unit.kind == "event"
        and "table_events" in str(error.orig)
    ):
        item: EventAppend = unit.payload
        if item.expected is not None:
            # another writer (another journal) took the number this event expected
            return TABLE_STREAM.conflicting(item.table_id, item.expected)
    if isinstance(error, DBAPIError):
        wrapped = StoreError(f"the database refused the write: {error.orig}")
        wrapped.__cause__ = error
        return wrapped
    return error


def _bets_placed(unit: Unit) -> list[tuple[str, str]]:
    """The bets a table's event places (the ones a group does not read)."""
    if unit.kind != "event":
        return []
    return [(s.table_id, s.bet_id) for s in unit.payload.postings if isinstance(s, PlaceBet)]


# -- the event log of a table on the journal ---------------------------------------------------------------


class JournalEventLog:
    """:class:`punto.eventlog.EventLog` of the tables, writing through a :class:`Journal`.

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

    def append(
        self, stream_id: str, event: Event, *, round_id: str = "", expected: int | None = None
    ) -> int:
        """The event's number once committed; 0 for an event attached with
        ``wait=False`` (its number is in :attr:`submitted`'s result then)."""
        postings, request, wait = self._attached or ((), None, True)
        self._attached = None
        item = EventAppend(stream_id, round_id, event, postings, request, expected)
        if not wait:
            notify, self._notify = self._notify, None
            self.submitted = self.journal.submit(item, notify)
            self.posted = []
            return 0
        seq, self.posted = self.journal.append(item)
        return seq

    def read(self, stream_id: str) -> list[Stored[Event]]:
        return read_stream(self.journal.engine, TABLE_STREAM, stream_id)

    def streams(self) -> list[str]:
        return stream_ids(self.journal.engine, TABLE_STREAM)
