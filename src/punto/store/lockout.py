"""Failed logins and the locks they make, per user name *and* client.

After ``max_failures`` wrong passwords in a row for a name from one client,
that client is locked out of that name for ``lockout``; each failure right
after a lock ends (within ``lockout`` of it) locks it again for twice as
long as the last lock, up to ``max_lockout``.  Failures and a lock that
ended ``lockout`` ago or more are forgotten: the count starts afresh, and
the row is pruned (at most once a minute, at a failure, and by
:meth:`FailedLogins.prune`), so that a flood of unknown names does not fill
the table.  A stranger's failures lock out the stranger, not the user
logging in from elsewhere.  Used by :class:`punto.store.accounts.Accounts`.

**Strangers** (:data:`STRANGERS`): the failures under a name from every
address it has not logged in from lately and without its device cookie are
counted together too, in a row of their own, so that guesses at one account
from many addresses are bounded: ``strangers_failures`` of them lock out
every stranger for a while, twice as long after each lock (an exponential
back-off, not a flat lock), while the user, from an address they used or
with the device cookie their browser got at their last login (OWASP's
device cookies, :func:`device_cookie`), is not held by it.  The admin's
unlock forgets both kinds, in every process (they are rows, not memory).

>>> cookie = device_cookie("pit", "$argon2id$...hash", nonce="n0")
>>> device_ok(cookie, "pit", "$argon2id$...hash"), device_ok(cookie, "ann", "$argon2id$...hash")
(True, False)
>>> device_ok(cookie, "pit", "$argon2id$...another hash")  # the password changed since
False
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine, RowMapping

from punto.store import db
from punto.store.db import login_attempts

#: The ``client`` of the row that counts a name's failures from strangers
#: (no address is written so).
STRANGERS = "*"


def device_cookie(name: str, key: str, *, nonce: str | None = None) -> str:
    """A device cookie for ``name`` (OWASP): a nonce and its HMAC under ``key``,
    the account's stored password hash -- nothing new is kept, and a new
    password ends every device cookie of the account.  It lets no one in: it
    only says "this browser logged in as ``name`` before"."""
    nonce = nonce or secrets.token_urlsafe(16)
    return f"{nonce}.{_mac(name, nonce, key)}"


def device_ok(cookie: str | None, name: str, key: str) -> bool:
    """Whether ``cookie`` is a device cookie :func:`device_cookie` made for ``name``."""
    if not cookie or len(cookie) > 200:
        return False
    nonce, _, mac = cookie.partition(".")
    return bool(nonce) and hmac.compare_digest(mac, _mac(name, nonce, key))


def _mac(name: str, nonce: str, key: str) -> str:
    message = f"punto-device:{name}:{nonce}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


class FailedLogins:
    """The ``login_attempts`` table (see the module's docstring); with
    ``strangers``, its rows of :data:`STRANGERS` only, else every other."""

    def __init__(
        self,
        engine: Engine,
        *,
        max_failures: int,
        lockout: timedelta,
        max_lockout: timedelta,
        clock: Callable[[], datetime],
        strangers: bool = False,
    ) -> None:
        self._engine = engine
        self.strangers = strangers
        self.max_failures = max_failures
        self.lockout = lockout
        self.max_lockout = max_lockout
        self._clock = clock
        self._pruned_at: datetime | None = None

    @staticmethod
    def locked_until(conn: Connection, name: str, client: str, now: datetime) -> datetime | None:
        """When the lock of ``client`` out of ``name`` ends, if it holds at ``now``."""
        until = conn.execute(
            select(login_attempts.c.locked_until).where(
                login_attempts.c.username == name, login_attempts.c.client == client
            )
        ).scalar_one_or_none()
        return until if until is not None and until > now else None

    @staticmethod
    def clear(conn: Connection, name: str, client: str) -> None:
        """A successful login: ``client``'s failures under ``name`` are forgotten."""
        conn.execute(
            delete(login_attempts).where(
                login_attempts.c.username == name, login_attempts.c.client == client
            )
        )

    def record(self, name: str, client: str, now: datetime) -> datetime | None:
        """Count a failed login under ``name`` from ``client``; returns the lock's
        end if it is now locked."""
        key = (login_attempts.c.username == name) & (login_attempts.c.client == client)

        def work(conn: Connection) -> datetime | None:
            row = (
                conn.execute(select(login_attempts).where(key).with_for_update()).mappings().first()
            )
            locks = 0 if row is None else int(row["locks"])
            if row is None or self._forgotten(row, now):
                failures, locks = 1, 0  # none yet, or all long ago: count afresh
            elif row["locked_until"] is not None and row["locked_until"] > now:
                return row["locked_until"]  # type: ignore[no-any-return]
            elif row["locked_until"] is not None:
                failures = self.max_failures  # just after a lock: locked again, for longer
            else:
                failures = int(row["failures"]) + 1
            locked_until = None
            if failures >= self.max_failures:
                locks += 1
                locked_until = now + min(self.lockout * 2 ** (locks - 1), self.max_lockout)
            values = {
                "failures": failures,
                "locks": locks,
                "last_failure_at": now,
                "locked_until": locked_until,
            }
            if row is None:
                conn.execute(insert(login_attempts).values(username=name, client=client, **values))
            else:
                conn.execute(update(login_attempts).where(key).values(**values))
            return locked_until

        until = db.run_transaction(self._engine, work, retry_integrity=True)
        if self._pruned_at is None or self._pruned_at <= now - timedelta(minutes=1):
            self._pruned_at = now
            self.prune()
        return until

    def unlock(self, name: str) -> int:
        """Forget the failures under ``name`` from every client; returns how many
        clients were locked out."""
        now = self._clock()
        with db.write_transaction(self._engine) as conn:
            locked = conn.execute(
                select(func.count())
                .select_from(login_attempts)
                .where(login_attempts.c.username == name, login_attempts.c.locked_until > now)
            ).scalar_one()
            conn.execute(delete(login_attempts).where(login_attempts.c.username == name))
        return int(locked)

    def locks(self, name: str) -> list[tuple[str, datetime, int]]:
        """The clients locked out of ``name`` now (:data:`STRANGERS` for every
        stranger), until when, and how many locks in a row that is."""
        now = self._clock()
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(
                    login_attempts.c.client, login_attempts.c.locked_until, login_attempts.c.locks
                ).where(login_attempts.c.username == name, login_attempts.c.locked_until > now)
            ).all()
        return [(str(client), until, int(locks)) for client, until, locks in rows]

    def prune(self) -> int:
        """Delete the failures that are forgotten anyway (see :meth:`_forgotten`);
        returns how many rows."""
        cutoff = self._clock() - self.lockout
        kind = (
            login_attempts.c.client == STRANGERS
            if self.strangers
            else login_attempts.c.client != STRANGERS
        )
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                delete(login_attempts).where(
                    kind,
                    login_attempts.c.last_failure_at <= cutoff,
                    login_attempts.c.locked_until.is_(None)
                    | (login_attempts.c.locked_until <= cutoff),
                )
            )
        return int(result.rowcount)

    def _forgotten(self, row: RowMapping, now: datetime) -> bool:
        """Failures (and any lock) that ended ``lockout`` ago or more are forgotten."""
        last = max(row["last_failure_at"], row["locked_until"] or row["last_failure_at"])
        return bool(last <= now - self.lockout)
