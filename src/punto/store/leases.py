"""Table leases: each table run by one server process at a time (revision 0012).

A process *acquires* a table's lease (free, expired, or left by a process
known dead), *renews* it well before it ends, and *releases* it when it stops.
Every change of holder adds one to the lease's **fencing token**; a write of
the table's events or money checks, in its own transaction, that the writer
still holds the lease with the token it acquired (:func:`check`), so a
process that lost its lease -- paused, cut off, presumed dead -- cannot
write after another took the table over.  On PostgreSQL the check locks the
lease rows it reads (``FOR KEY SHARE``) until the write commits: a take-over,
which locks the row ``FOR UPDATE`` before it changes the holder, waits for a
write in progress, and then the write is in the log it restores.  The
holder's own renewals and release change only when the lease ends, which
that lock lets through: a write never waits for a renewal, nor a renewal
for a write (``FOR SHARE`` made each wait for the other, and the next write
behind both).

Times are seconds since the epoch by the database's clock, so processes on
machines whose clocks disagree still agree on when a lease ends.  Every
function here runs in the caller's transaction (``db.write_transaction``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.engine import Connection, Row
from sqlalchemy.exc import IntegrityError

from punto.store.db import is_sqlite, table_leases, table_requests
from punto.store.errors import StoreError
from punto.store.listed import listed

__all__ = [
    "Lease",
    "LeaseLostError",
    "acquire",
    "check",
    "db_now",
    "holders",
    "release",
    "renew",
    "table_leases",
    "table_requests",
]


class LeaseLostError(StoreError):
    """A write for a table whose lease this process does not hold (any more)."""


@dataclass(frozen=True, slots=True)
class Lease:
    """Who runs ``table_id`` (``owner``: ``host/pid/instance``), under which
    fencing token, until when (epoch seconds, the database's clock)."""

    table_id: str
    owner: str
    token: int
    expires_at: float


def db_now(conn: Connection) -> float:
    """The database's clock, in seconds since the epoch."""
    if is_sqlite(conn):
        # julianday() has millisecond precision: plenty for leases of seconds.
        clock: Any = literal_column("(julianday('now') - 2440587.5) * 86400.0")
    else:
        clock = func.extract("epoch", func.clock_timestamp())
    return float(conn.execute(select(clock)).scalar_one())


def _lease(row: Row[Any]) -> Lease:
    return Lease(str(row.table_id), str(row.owner), int(row.token), float(row.expires_at))


def acquire(
    conn: Connection,
    table_id: str,
    owner: str,
    seconds: float,
    *,
    dead: Callable[[str], bool] = lambda _owner: False,
) -> Lease | None:
    """Take ``table_id``'s lease for ``owner`` for ``seconds`` if it is free,
    expired, already ``owner``'s, or held by an owner ``dead`` says is gone;
    None if another process holds it.  A new holder gets the next token."""
    now = db_now(conn)
    # FOR UPDATE, not just the UPDATE below: changing no key, that would not
    # wait for a write in progress, which holds the row FOR KEY SHARE (check).
    query = select(table_leases).where(table_leases.c.table_id == table_id).with_for_update()
    row = conn.execute(query).first()
    if row is None:
        try:
            with conn.begin_nested():  # two processes may open a new table at once
                conn.execute(
                    insert(table_leases).values(
                        table_id=table_id, owner=owner, token=1, expires_at=now + seconds
                    )
                )
        except IntegrityError:
            return None  # the other one has it
        return Lease(table_id, owner, 1, now + seconds)
    held = _lease(row)
    if held.owner == owner:
        token = held.token
    elif held.expires_at <= now or dead(held.owner):
        token = held.token + 1
    else:
        return None
    conn.execute(
        update(table_leases)
        .where(table_leases.c.table_id == table_id)
        .values(owner=owner, token=token, expires_at=now + seconds)
    )
    return Lease(table_id, owner, token, now + seconds)


def renew(conn: Connection, owner: str, table_ids: Collection[str], seconds: float) -> set[str]:
    """Extend ``owner``'s leases of ``table_ids`` by ``seconds`` from now; the
    tables whose lease ``owner`` still holds (the others were taken over).

    A lease that ran out but that nobody took is still ``owner``'s (its token
    did not change, so nobody else wrote): it is renewed."""
    if not table_ids:
        return set()
    now = db_now(conn)
    done = conn.execute(
        update(table_leases)
        .where(table_leases.c.owner == owner, table_leases.c.table_id.in_(list(table_ids)))
        .values(expires_at=now + seconds)
        .returning(table_leases.c.table_id)
    )
    return {str(table_id) for (table_id,) in done}


def release(conn: Connection, owner: str, table_ids: Collection[str]) -> None:
    """End ``owner``'s leases of ``table_ids`` now (another process may take them at
    once).  The rows stay, so the next holder's token is still the next one."""
    if not table_ids:
        return
    conn.execute(
        update(table_leases)
        .where(table_leases.c.owner == owner, table_leases.c.table_id.in_(list(table_ids)))
        .values(expires_at=0.0)
    )


def holders(conn: Connection, table_ids: Collection[str] | None = None) -> dict[str, Lease]:
    """The leases of ``table_ids`` (all with None), expired or not, by table."""
    query = select(table_leases)
    if table_ids is not None:
        query = query.where(table_leases.c.table_id.in_(list(table_ids)))
    return {lease.table_id: lease for lease in map(_lease, conn.execute(query))}


# Built once: the check runs in every write, and building it costs more than its answer.
_HOLDERS = select(table_leases.c.table_id, table_leases.c.owner, table_leases.c.token).where(
    listed(table_leases.c.table_id, "tables")
)
_HOLDERS_LOCKED = _HOLDERS.with_for_update(read=True, key_share=True)


def check(
    conn: Connection, owner: str, held: Mapping[str, int], table_ids: Collection[str]
) -> None:
    """Refuse (:class:`LeaseLostError`) unless ``owner`` holds the lease of every
    table of ``table_ids`` with the token ``held`` has for it.

    Run inside the write transaction, before its commit.  On PostgreSQL the
    rows read stay locked (``FOR KEY SHARE``) until the commit, so no process
    can take one of these tables over between this check and the commit
    (:func:`acquire` locks the row ``FOR UPDATE`` first, which waits); the
    holder's renewals go on meanwhile (see the module)."""
    if not table_ids:
        return
    query = _HOLDERS if is_sqlite(conn) else _HOLDERS_LOCKED
    found = {row[0]: (row[1], row[2]) for row in conn.execute(query, {"tables": sorted(table_ids)})}
    lost = sorted(
        table_id for table_id in table_ids if found.get(table_id) != (owner, held.get(table_id))
    )
    if lost:
        raise LeaseLostError(
            f"this server process no longer runs table(s) {', '.join(lost)}: "
            "another process holds the lease; nothing was written",
            hint="retry: the process that runs the table now takes the request",
        )
