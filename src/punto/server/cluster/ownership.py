"""Which tables this server process runs: their leases, kept (:mod:`punto.store.leases`).

On PostgreSQL several ``punto serve`` processes share one database; each
table is run by exactly one of them, the holder of its lease.  A process
claims a table's lease before it restores the table and starts its dealer,
renews its leases every :attr:`LeaseSettings.renew_seconds` (a background
task), and releases them when it stops.  Every journal group checks, in its
transaction, that the process still holds the lease of each table it writes
for (:meth:`Ownership.check`, the journal's ``checks``): a process that lost
a lease (paused or cut off longer than the lease) writes nothing more for
that table, and stops it when it notices.  The same task takes over the
tables no live process holds -- new, expired, or left by a process on this
machine that is gone (a restart right after a crash need not wait out the
lease) -- and starts them as a restart would: the open round resumes under
the game's power failure clause.

On SQLite one process serves the file (:mod:`punto.server.cluster.sqlite_lock`), so
leases are off there unless asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Collection

from sqlalchemy.engine import Connection, Engine

from punto.errors import PuntoError
from punto.server.cluster.leases import LeaseSettings
from punto.store import db, leases
from punto.store.leases import Lease

log = logging.getLogger("punto.server.cluster.ownership")

#: How long who holds another process's table is taken as known (seconds).
HOLDER_SECONDS = 1.0


class TableElsewhereError(PuntoError):
    """The table is run by another server process (it holds the table's lease),
    or is being started by this one: a retry soon is answered."""

    #: seconds a client should wait before retrying (the ``Retry-After`` header)
    retry_after = 1


def elsewhere(table_id: str, lease: Lease | None) -> TableElsewhereError:
    """The refusal of a request for ``table_id``, which ``lease``'s holder runs."""
    pid = (
        ""
        if lease is None
        else f" (pid {lease.owner.split('/')[1]} on {lease.owner.split('/')[0]})"
    )
    return TableElsewhereError(
        f"table {table_id} is run by another server process{pid}; retry",
        hint="retry in a moment, or send the request to the process that runs the table; "
        "if that process died, this one takes the table over when its lease runs out",
    )


def lease_settings(leases: LeaseSettings | bool | None, *, sqlite: bool) -> LeaseSettings | None:
    """The lease settings asked for (``None``: the default, on unless on SQLite)."""
    if isinstance(leases, LeaseSettings):
        return leases
    if leases is True or (leases is None and not sqlite):
        return LeaseSettings()
    return None


def process_owner() -> str:
    """This process's name in the lease table: ``host/pid/instance`` (a random
    instance: two servers in one process, or a pid reused, are not the same owner)."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(6)}"


def owner_gone(owner: str) -> bool:
    """Whether ``owner`` was a process of this machine that no longer exists.

    Only a process of this host can be looked up; any other owner's lease is
    waited out.  A pid reused since is taken for alive (the lease is then
    waited out too): this errs only towards waiting."""
    host, _, rest = owner.partition("/")
    pid_text = rest.partition("/")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False  # another server in this very process: alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # it exists, under another user
    return False


class Ownership:
    """This process's table leases (thread-safe: the journal's thread checks
    them, worker threads claim them, the event loop renews them)."""

    def __init__(
        self, engine: Engine, settings: LeaseSettings | None = None, owner: str | None = None
    ) -> None:
        self.engine = engine
        self.settings = settings or LeaseSettings()
        self.owner = owner or process_owner()
        self._held: dict[str, int] = {}  # table id -> fencing token
        self._holders: dict[str, tuple[float, Lease | None]] = {}  # see holder()
        self._new: set[str] = set()  # active tables seen without a lease (see _free)
        self._lock = threading.Lock()
        self._task: asyncio.Task[None] | None = None

    # -- leases ------------------------------------------------------------------------------

    def claim(self, table_id: str) -> bool:
        """Take ``table_id``'s lease (True), or find another live process holds it."""
        with db.write_transaction(self.engine) as conn:
            lease = leases.acquire(
                conn, table_id, self.owner, self.settings.seconds, dead=owner_gone
            )
        if lease is None:
            return False
        with self._lock:
            self._held[table_id] = lease.token
            self._holders.pop(table_id, None)
        return True

    def holds(self, table_id: str) -> bool:
        with self._lock:
            return table_id in self._held

    def held(self) -> dict[str, int]:
        """The tables this process holds, with their tokens."""
        with self._lock:
            return dict(self._held)

    def holder(self, table_id: str) -> Lease | None:
        """Who holds ``table_id``'s lease, as the database said at most
        :data:`HOLDER_SECONDS` ago (requests for another process's tables come
        in a stream: one read a second each, not one per request)."""
        known, lease = self.holder_known(table_id)
        if known:
            return lease
        now = time.monotonic()
        with self.engine.connect() as conn:
            lease = leases.holders(conn, [table_id]).get(table_id)
        with self._lock:
            self._holders[table_id] = (now, lease)
        return lease

    def holder_known(self, table_id: str) -> tuple[bool, Lease | None]:
        """:meth:`holder`'s answer if the database gave it lately, without a
        read: ``(True, lease)``; else ``(False, None)``."""
        with self._lock:
            seen = self._holders.get(table_id)
        if seen is not None and time.monotonic() - seen[0] < HOLDER_SECONDS:
            return True, seen[1]
        return False, None

    def refuse_if_elsewhere(self, table_id: str) -> None:
        """Refuse (:class:`TableElsewhereError`) a request for ``table_id`` if another
        process holds its lease -- or held it and has not released it (it may be
        dead: the table is taken over when the lease runs out)."""
        lease = self.holder(table_id)
        if lease is None or lease.expires_at <= 0:
            return
        if lease.owner != self.owner:
            raise elsewhere(table_id, lease)
        if self.holds(table_id):  # claimed, and being restored from its log right now
            raise TableElsewhereError(
                f"table {table_id} is starting on this server process; retry",
                hint="retry in a moment: the table is restored from its log",
            )

    def renew(self) -> set[str]:
        """Renew every lease held; the tables lost (taken over meanwhile), now forgotten."""
        held = self.held()
        if not held:
            return set()
        with db.write_transaction(self.engine) as conn:
            kept = leases.renew(conn, self.owner, held, self.settings.seconds)
        lost = set(held) - kept
        with self._lock:
            for table_id in lost:
                self._held.pop(table_id, None)
        return lost

    def release(self, table_ids: Collection[str] | None = None) -> None:
        """Give up the leases of ``table_ids`` (all with None): another process
        may take them at once.  Only once nothing more is written for them."""
        with self._lock:
            gone = list(self._held) if table_ids is None else list(table_ids)
            for table_id in gone:
                self._held.pop(table_id, None)
        if gone:
            with db.write_transaction(self.engine) as conn:
                leases.release(conn, self.owner, gone)

    def check(self, conn: Connection, table_ids: frozenset[str]) -> None:
        """The journal's fencing check (in its transaction): refuse the group unless
        this process holds every table's lease with its token."""
        leases.check(conn, self.owner, self.held(), table_ids)

    # -- the background task --------------------------------------------------------------------

    def start(
        self,
        *,
        wanted: Callable[[], list[str]],
        take_over: Callable[[str], Awaitable[None]],
        lose: Callable[[str], Awaitable[None]],
    ) -> None:
        """Renew the leases every ``renew_seconds``; ``lose`` each table lost
        (stop it), and ``take_over`` each table of ``wanted()`` (the active
        tables, read in a worker thread) that this process does not run."""
        self._task = asyncio.get_running_loop().create_task(
            self._keep(wanted, take_over, lose), name="punto-leases"
        )

    async def _keep(
        self,
        wanted: Callable[[], list[str]],
        take_over: Callable[[str], Awaitable[None]],
        lose: Callable[[str], Awaitable[None]],
    ) -> None:
        while True:
            await asyncio.sleep(self.settings.renew_seconds)
            try:
                for table_id in sorted(await asyncio.to_thread(self.renew)):
                    log.error(
                        "table %s: this process lost its lease (another took the table "
                        "over); the table stops here",
                        table_id,
                    )
                    await lose(table_id)
                held = set(self.held())  # before the read: see below
                active = await asyncio.to_thread(wanted)
                for table_id in await asyncio.to_thread(self._free, active):
                    await take_over(table_id)
                # A table made inactive (by any process) is let go here -- of those
                # held before the read (one claimed since, a new one, is not in it).
                for table_id in sorted(held - set(active)):
                    await lose(table_id)
                    await asyncio.to_thread(self.release, [table_id])
            except asyncio.CancelledError:
                raise
            except Exception:
                # The database is away: try again at the next turn (the leases
                # run out meanwhile if it stays away, and the fence holds).
                log.warning("table leases: renewal failed", exc_info=True)

    def _free(self, active: list[str]) -> list[str]:
        """The tables of ``active`` this process may take over: not held here,
        and whose lease ran out, was released, or is a dead local process's.
        A table never leased is left one turn to the process that created it
        (it claims the lease just after saving the table), then taken."""
        wanted = [t for t in active if not self.holds(t)]
        if not wanted:
            self._new.clear()
            return []
        with self.engine.connect() as conn:
            found = leases.holders(conn, wanted)
            now = leases.db_now(conn)
        free = []
        for table_id in wanted:
            lease = found.get(table_id)
            if lease is None and table_id not in self._new:
                self._new.add(table_id)
                continue
            if lease is None or lease.expires_at <= now or owner_gone(lease.owner):
                free.append(table_id)
        self._new &= {t for t in wanted if t not in found}
        return free

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
