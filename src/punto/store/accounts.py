"""User accounts, passwords and sessions for the table server.

- **Roles**: player, dealer, pit supervisor, pit manager, shift manager,
  assistant casino manager (the table positions of :class:`punto.table.roles.Role`, in the same order) and
  admin, who manages accounts.
- **Passwords** are hashed with Argon2id (``argon2-cffi``) at OWASP's
  parameters (:mod:`punto.store.passwords`); a hash made with other parameters
  still verifies and is made again at the next login.  A new password must pass
  the policy there (length, staff length, not a common password).
- **Sessions**: a login returns a random token (256 bits).  Only its SHA-256
  is stored, so a copy of the database lets nobody log in.  A session ends at
  its expiry, at logout, when the password changes, when the admin ends the
  account's sessions, or when the account is disabled; each ending is also
  written to ``session_invalidations``, which every server process's session
  cache reads a few times a second (:meth:`Accounts.invalidations_after`).
- **Lockout**: after ``max_failures`` (default 5) wrong passwords in a row for
  a user name *from one client* (its address; the server's login route says
  which), logins under that name from that client are refused for ``lockout``
  (default 15 minutes), even with the right password; each further failure
  after a lock locks again for twice as long (at most ``max_lockout``).  A
  stranger's failures lock out the stranger, not the user logging in from
  elsewhere.  Failures are counted whether or not the user exists, and an
  unknown name costs the same password check as a known one, so neither the
  errors nor their timing say whether a user exists.  Failures long past are
  pruned (:mod:`punto.store.lockout`), so unknown names do not pile up.

>>> from punto.store.db import connect
>>> accounts = Accounts(connect("sqlite://"), hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
>>> ann = accounts.create_user("Ann", "correct horse", UserRole.DEALER)
>>> session = accounts.login("ann", "correct horse")
>>> accounts.authenticate(session.token).username
'ann'
>>> accounts.login("ann", "wrong password")
Traceback (most recent call last):
...
punto.store.accounts.LoginFailedError: the user name or password is wrong; check both and try again
"""

from __future__ import annotations

import enum
import hashlib
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine, RowMapping
from sqlalchemy.exc import IntegrityError

from punto.errors import PuntoError
from punto.store import db
from punto.store.account_names import UsernameError, account_name, normalize_username
from punto.store.db import accounts as accounts_table
from punto.store.db import session_invalidations, sessions
from punto.store.lockout import STRANGERS, FailedLogins, device_cookie, device_ok
from punto.store.passwords import (
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    MIN_STAFF_PASSWORD_LENGTH,
    default_hasher,
    policy_problem,
)
from punto.table.roles import Role
from punto.words import a

__all__ = [
    "MAX_PASSWORD_LENGTH",
    "MIN_PASSWORD_LENGTH",
    "MIN_STAFF_PASSWORD_LENGTH",
    "AccountDisabledError",
    "Accounts",
    "AccountsError",
    "AuthError",
    "LoginFailedError",
    "LoginLockedError",
    "LoginThrottledError",
    "PasswordHasher",
    "PasswordPolicyError",
    "PermissionDeniedError",
    "Session",
    "SessionInvalidError",
    "UnknownUserError",
    "User",
    "UserExistsError",
    "UserRole",
    "UsernameError",
    "normalize_username",
]

#: The longest client description kept with failed logins.
MAX_CLIENT = 80
#: A session token's digest as ``sessions`` keeps it (SHA-256, hex).
_DIGEST = re.compile(r"[0-9a-f]{64}")


class AccountsError(PuntoError):
    """Base of the errors about accounts, logins and sessions."""


class AuthError(AccountsError):
    """A login or session that is refused."""


class LoginFailedError(AuthError):
    """The user name or the password is wrong (never says which)."""


class LoginLockedError(AuthError):
    """Too many failed logins under this name; refused until ``until``.
    ``client``: who is locked out (an address, or :data:`STRANGERS`); ``new``:
    this failure made the lock (the server audits it)."""

    def __init__(
        self,
        message: str,
        *,
        until: datetime,
        hint: str | None = None,
        client: str = "",
        new: bool = False,
    ) -> None:
        self.until = until
        self.client = client
        self.new = new
        super().__init__(message, hint=hint)


class LoginThrottledError(LoginLockedError):
    """Too many logins at once, from one address or for one name, or too many
    password checks waiting: refused before any password is checked, until
    ``until`` (a 429 with ``Retry-After``)."""


class AccountDisabledError(AuthError):
    """The password was right, but the account is disabled."""


class SessionInvalidError(AuthError):
    """A session token that is unknown, expired or logged out."""


class PermissionDeniedError(AuthError):
    """A user whose role may not do what was asked."""


class PasswordPolicyError(AccountsError, ValueError):
    """A new password that is too short or too long."""


class UserExistsError(AccountsError):
    """A new user under a name that is taken (an admin's operation: it may say so)."""


class UnknownUserError(AccountsError, KeyError):
    """No user with that id (an admin's operation: it may say so)."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return PuntoError.__str__(self)


class UserRole(enum.Enum):
    """Who a user is: the table positions of MBS 6.2, and the admin."""

    PLAYER = "player"
    DEALER = "dealer"
    PIT_SUPERVISOR = "pit_supervisor"
    PIT_MANAGER = "pit_manager"
    SHIFT_MANAGER = "shift_manager"
    #: allows Method C and a draw without a wager (MBS 3.9.2, 3.12.2); above the
    #: Gaming Shift Manager, as :class:`Role` ranks it (revision 0011)
    ASSISTANT_CASINO_MANAGER = "assistant_casino_manager"
    ADMIN = "admin"

    @property
    def table_role(self) -> Role | None:
        """The position at the table, or None for the admin (who manages accounts)."""
        return None if self is UserRole.ADMIN else Role(self.value)

    def may_act_as(self, required: UserRole) -> bool:
        """Table positions as in :meth:`Role.may_act_as` (6.2: or any higher
        position); the admin acts only as the admin, and only the admin does."""
        mine, theirs = self.table_role, required.table_role
        if mine is None or theirs is None:
            return self is required
        return mine.may_act_as(theirs)

    @property
    def words(self) -> str:
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class User:
    id: int
    username: str
    role: UserRole
    disabled: bool
    created_at: datetime

    def require(self, role: UserRole, action: str) -> None:
        """Raise :class:`PermissionDeniedError` unless this user may act as ``role``."""
        if not self.role.may_act_as(role):
            higher = "" if role in (UserRole.PLAYER, UserRole.ADMIN) else " or higher"
            raise PermissionDeniedError(
                f"{a(self.role.words)} may not {action}",
                clause="6.2" if role.table_role is not None else None,
                hint=f"it takes {a(role.words)}{higher}",
            )


@dataclass(frozen=True, slots=True)
class Session:
    """A logged-in session: give ``token`` back to :meth:`Accounts.authenticate`."""

    token: str = field(repr=False)
    user: User
    expires_at: datetime
    #: the device cookie for this browser (see :mod:`punto.store.lockout`)
    device: str | None = field(default=None, repr=False)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _user_from_row(row: RowMapping) -> User:
    return User(
        id=int(row["id"]),
        username=str(row["username"]),
        role=UserRole(row["role"]),
        disabled=bool(row["disabled"]),
        created_at=row["created_at"],
    )


def _check_password(password: str, role: UserRole, username: str = "") -> str:
    problem = policy_problem(password, staff=role is not UserRole.PLAYER, username=username)
    if problem is not None:
        raise PasswordPolicyError(problem[0], hint=problem[1])
    return password


class Accounts:
    """Users, passwords and sessions in one database (see the module's docstring).

    ``clock`` gives the current time (timezone-aware); tests move it forward to
    expire sessions and lockouts.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        hasher: PasswordHasher | None = None,
        max_failures: int = 5,
        lockout: timedelta = timedelta(minutes=15),
        max_lockout: timedelta = timedelta(hours=24),
        strangers_failures: int = 10,
        strangers_lockout: timedelta = timedelta(minutes=1),
        strangers_max_lockout: timedelta = timedelta(hours=1),
        session_ttl: timedelta = timedelta(hours=12),
        clock: Callable[[], datetime] = db.utc_now,
    ) -> None:
        if max_failures < 1:
            raise ValueError("max_failures must be at least 1")
        self._engine = engine
        self._hasher = hasher or default_hasher()
        self.max_failures = max_failures
        self.lockout = lockout
        self.max_lockout = max_lockout
        self._failures = FailedLogins(
            engine,
            max_failures=max_failures,
            lockout=lockout,
            max_lockout=max_lockout,
            clock=clock,
        )
        self._strangers = FailedLogins(
            engine,
            max_failures=strangers_failures,
            lockout=strangers_lockout,
            max_lockout=strangers_max_lockout,
            clock=clock,
            strangers=True,
        )
        self.session_ttl = session_ttl
        self._clock = clock
        # What an unknown user's password is checked against (made now, so the
        # first unknown name costs no more than any other).
        self._dummy_hash = self._hasher.hash(secrets.token_urlsafe(16))

    # --- users -----------------------------------------------------------------------

    def create_user(self, username: str, password: str, role: UserRole) -> User:
        """A new user; :class:`UserExistsError` if the name is taken."""
        role = UserRole(role)
        with self._engine.connect() as conn:
            taken = [str(n) for n in conn.execute(select(accounts_table.c.username)).scalars()]
        name = account_name(username, player=role is UserRole.PLAYER, taken=taken)
        password_hash = self._hasher.hash(_check_password(password, role, name))
        now = self._clock()
        try:
            with db.write_transaction(self._engine) as conn:
                user_id = conn.execute(
                    insert(accounts_table)
                    .values(
                        username=name,
                        role=role.value,
                        password_hash=password_hash,
                        disabled=False,
                        created_at=now,
                        password_changed_at=now,
                    )
                    .returning(accounts_table.c.id)
                ).scalar_one()
        except IntegrityError:
            raise UserExistsError(
                f"there is already a user {name!r}", hint="choose another user name"
            ) from None
        return User(int(user_id), name, role, False, now)

    def get_user(self, user_id: int) -> User:
        with self._engine.connect() as conn:
            row = (
                conn.execute(select(accounts_table).where(accounts_table.c.id == user_id))
                .mappings()
                .first()
            )
        if row is None:
            raise UnknownUserError(f"there is no user with id {user_id}")
        return _user_from_row(row)

    def find_user(self, username: str) -> User | None:
        """The user called ``username`` (for admins; logins never say)."""
        with self._engine.connect() as conn:
            row = (
                conn.execute(
                    select(accounts_table).where(
                        accounts_table.c.username == normalize_username(username)
                    )
                )
                .mappings()
                .first()
            )
        return None if row is None else _user_from_row(row)

    def users(self) -> list[User]:
        with self._engine.connect() as conn:
            rows = conn.execute(select(accounts_table).order_by(accounts_table.c.id)).mappings()
            return [_user_from_row(row) for row in rows]

    def set_role(self, user_id: int, role: UserRole) -> User:
        """A new role; every process's session cache reads the account again."""
        self._update_user(user_id, role=UserRole(role).value)
        with db.write_transaction(self._engine) as conn:
            conn.execute(insert(session_invalidations).values(account_id=user_id, at=self._clock()))
        return self.get_user(user_id)

    def set_disabled(self, user_id: int, disabled: bool = True) -> User:
        """Disable (or enable) an account; disabling ends its sessions."""
        self._update_user(user_id, disabled=disabled)
        if disabled:
            self.logout_all(user_id)
        return self.get_user(user_id)

    def set_password(self, user_id: int, new_password: str) -> None:
        """An admin's reset: a new password, every session of the user ended."""
        user = self.get_user(user_id)
        password_hash = self._hasher.hash(_check_password(new_password, user.role, user.username))
        self._update_user(user_id, password_hash=password_hash, password_changed_at=self._clock())
        self.logout_all(user_id)

    def change_password(self, user_id: int, old_password: str, new_password: str) -> None:
        """The user's own change: needs the old password; ends every session."""
        user = self.get_user(user_id)
        with self._engine.connect() as conn:
            stored = conn.execute(
                select(accounts_table.c.password_hash).where(accounts_table.c.id == user_id)
            ).scalar_one()
        if not self._verify(str(stored), old_password):
            raise LoginFailedError(
                "the current password is wrong", hint="give the password you log in with"
            )
        self.set_password(user.id, new_password)

    def unlock(self, username: str) -> int:
        """Forget the failed logins under ``username`` from every client (an
        admin's action); returns how many clients were locked out."""
        return self._failures.unlock(normalize_username(username))

    def locks(self, username: str) -> list[tuple[str, datetime, int]]:
        """The clients locked out of ``username`` now (:data:`STRANGERS`: every
        address it has not used), until when, and the how-many-th lock in a row
        (for the admin)."""
        return self._failures.locks(normalize_username(username))

    def prune_login_attempts(self) -> int:
        """Delete the failed logins that are forgotten anyway; returns how many."""
        return self._failures.prune() + self._strangers.prune()

    def _update_user(self, user_id: int, **values: object) -> None:
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                update(accounts_table).where(accounts_table.c.id == user_id).values(**values)
            )
            if result.rowcount == 0:
                raise UnknownUserError(f"there is no user with id {user_id}")

    # --- logging in ------------------------------------------------------------------

    def login(
        self,
        username: str,
        password: str,
        *,
        client: str = "",
        trusted: bool = False,
        device: str | None = None,
    ) -> Session:
        """A new session for the user, if the password is right and the name not
        locked for ``client`` (who asks: the server gives the address).
        ``trusted``: the name logged in from ``client`` lately, or ``device``
        is its device cookie: strangers' failures under the name do not hold
        it, and its own do not count against the name (:mod:`punto.store.lockout`).

        Raises :class:`LoginFailedError` (wrong name or password: never says
        which), :class:`LoginLockedError` (too many failures under this name,
        known or not) or :class:`AccountDisabledError` (right password, disabled
        account).
        """
        name = normalize_username(username)
        client = client[:MAX_CLIENT]
        now = self._clock()
        with self._engine.connect() as conn:
            row = (
                conn.execute(select(accounts_table).where(accounts_table.c.username == name))
                .mappings()
                .first()
            )
            if row is not None and device_ok(device, name, str(row["password_hash"])):
                trusted = True
            locked_until = self._failures.locked_until(conn, name, client, now)
            strangers_until = (
                None if trusted else self._strangers.locked_until(conn, name, STRANGERS, now)
            )
        if locked_until is not None:
            raise self._locked(locked_until, client)
        if strangers_until is not None:
            raise self._locked(strangers_until, STRANGERS)
        # The same work whether or not the user exists: the timing tells nothing.
        stored = str(row["password_hash"]) if row is not None else self._dummy()
        if not self._verify(stored, password) or row is None:
            locked_until = self._failures.record(name, client, now)
            if locked_until is not None:
                raise self._locked(locked_until, client, new=True)
            if not trusted:
                strangers_until = self._strangers.record(name, STRANGERS, now)
                if strangers_until is not None:
                    raise self._locked(strangers_until, STRANGERS, new=True)
            raise LoginFailedError(
                "the user name or password is wrong", hint="check both and try again"
            )
        user = _user_from_row(row)
        token = secrets.token_urlsafe(32)
        expires_at = now + self.session_ttl
        new_hash = self._rehash(stored, password)

        def work(conn: Connection) -> None:
            # Checked again under the write lock: a failure racing this login
            # may have locked the name since we looked.
            until = self._failures.locked_until(conn, name, client, now)
            if until is not None:
                raise self._locked(until, client)
            if user.disabled:
                raise AccountDisabledError(
                    "this account is disabled", hint="ask an admin to enable it"
                )
            self._failures.clear(conn, name, client)
            if new_hash is not None:
                conn.execute(
                    update(accounts_table)
                    .where(
                        accounts_table.c.id == user.id,
                        accounts_table.c.password_hash == stored,
                    )
                    .values(password_hash=new_hash)
                )
            conn.execute(
                insert(sessions).values(
                    token_hash=_token_hash(token),
                    account_id=user.id,
                    created_at=now,
                    expires_at=expires_at,
                )
            )

        db.run_transaction(self._engine, work)
        device = device_cookie(name, new_hash or stored)
        return Session(token, user, expires_at, device)

    def authenticate(self, token: str) -> User:
        """The user whose session ``token`` is; :class:`SessionInvalidError` if it
        is unknown, expired or ended, or the account was disabled."""
        return self.session_of(token)[0]

    def session_of(self, token: str) -> tuple[User, datetime]:
        """:meth:`authenticate`, with the session's expiry."""
        if not isinstance(token, str) or not token or len(token) > 200:
            raise SessionInvalidError("this session is unknown", hint="log in")
        return self.session_of_digest(_token_hash(token))

    def session_of_digest(self, digest: str) -> tuple[User, datetime]:
        """:meth:`session_of` by the token's digest (what ``sessions`` keeps): a
        request forwarded between processes carries the digest, not the token."""
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise SessionInvalidError("this session is unknown", hint="log in")
        now = self._clock()
        with self._engine.connect() as conn:
            row = (
                conn.execute(
                    select(
                        sessions.c.expires_at,
                        sessions.c.revoked_at,
                        *accounts_table.c,
                    )
                    .join(accounts_table, accounts_table.c.id == sessions.c.account_id)
                    .where(sessions.c.token_hash == digest)
                )
                .mappings()
                .first()
            )
        if row is None:
            raise SessionInvalidError("this session is unknown", hint="log in")
        if row["revoked_at"] is not None:
            raise SessionInvalidError(
                "this session has ended (logged out, password changed or account disabled)",
                hint="log in again",
            )
        if row["expires_at"] <= now:
            raise SessionInvalidError(
                f"this session expired at {row['expires_at']:%Y-%m-%d %H:%M} UTC",
                hint="log in again",
            )
        user = _user_from_row(row)
        if user.disabled:  # pragma: no cover - disabling ends the sessions
            raise AccountDisabledError("this account is disabled", hint="ask an admin")
        return user, row["expires_at"]

    def open_sessions(self, most: int) -> list[tuple[str, User, datetime]]:
        """The sessions that are open now -- (token hash, user, expiry) -- at most
        ``most`` of them, the latest to expire first (for a cache warmed at start-up)."""
        now = self._clock()
        with self._engine.connect() as conn:
            rows = (
                conn.execute(
                    select(sessions.c.token_hash, sessions.c.expires_at, *accounts_table.c)
                    .join(accounts_table, accounts_table.c.id == sessions.c.account_id)
                    .where(
                        sessions.c.revoked_at.is_(None),
                        sessions.c.expires_at > now,
                        accounts_table.c.disabled.is_(False),
                    )
                    .order_by(sessions.c.expires_at.desc())
                    .limit(most)
                )
                .mappings()
                .all()
            )
        return [(str(r["token_hash"]), _user_from_row(r), r["expires_at"]) for r in rows]

    def logout(self, token: str) -> None:
        """End the session ``token`` (nothing happens if it is unknown or ended)."""
        if not isinstance(token, str) or not token:
            return
        now = self._clock()
        digest = _token_hash(token)
        with db.write_transaction(self._engine) as conn:
            ended = conn.execute(
                update(sessions)
                .where(sessions.c.token_hash == digest, sessions.c.revoked_at.is_(None))
                .values(revoked_at=now)
            ).rowcount
            if ended:
                conn.execute(insert(session_invalidations).values(token_hash=digest, at=now))

    def logout_all(self, user_id: int) -> int:
        """End every session of the user; returns how many were open."""
        now = self._clock()
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                update(sessions)
                .where(
                    sessions.c.account_id == user_id,
                    sessions.c.revoked_at.is_(None),
                    sessions.c.expires_at > now,
                )
                .values(revoked_at=now)
            )
            # Written even when none was open: a cache may still hold one just ended.
            conn.execute(insert(session_invalidations).values(account_id=user_id, at=now))
        return int(result.rowcount)

    def last_invalidation(self) -> int:
        """The id of the newest session invalidation (0: none yet)."""
        with self._engine.connect() as conn:
            last = conn.execute(select(func.max(session_invalidations.c.id))).scalar_one()
        return int(last or 0)

    def invalidations_after(self, after: int) -> tuple[int, set[str], set[int]]:
        """The sessions (token hashes) and accounts invalidated since id ``after``,
        and the newest id: what a session cache must forget."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(
                    session_invalidations.c.id,
                    session_invalidations.c.token_hash,
                    session_invalidations.c.account_id,
                )
                .where(session_invalidations.c.id > after)
                .order_by(session_invalidations.c.id)
            ).all()
        tokens = {str(r.token_hash) for r in rows if r.token_hash is not None}
        account_ids = {int(r.account_id) for r in rows if r.account_id is not None}
        return (int(rows[-1].id) if rows else after), tokens, account_ids

    def prune_invalidations(self, older_than: timedelta = timedelta(hours=1)) -> int:
        """Delete invalidations every cache has long read; returns how many."""
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                delete(session_invalidations).where(
                    session_invalidations.c.at < self._clock() - older_than
                )
            )
        return int(result.rowcount)

    def purge_sessions(self) -> int:
        """Delete expired and ended sessions; returns how many."""
        now = self._clock()
        with db.write_transaction(self._engine) as conn:
            result = conn.execute(
                delete(sessions).where(
                    (sessions.c.expires_at <= now) | sessions.c.revoked_at.is_not(None)
                )
            )
        return int(result.rowcount)

    # --- the machinery ---------------------------------------------------------------

    def _dummy(self) -> str:
        return self._dummy_hash

    def _verify(self, stored: str, password: str) -> bool:
        if not isinstance(password, str) or len(password) > MAX_PASSWORD_LENGTH:
            return False
        try:
            return bool(self._hasher.verify(stored, password))
        except (VerificationError, InvalidHashError):
            return False

    def _rehash(self, stored: str, password: str) -> str | None:
        try:
            needs = self._hasher.check_needs_rehash(stored)
        except InvalidHashError:  # pragma: no cover - we wrote every hash
            needs = True
        return self._hasher.hash(password) if needs else None

    def _locked(self, until: datetime, client: str, *, new: bool = False) -> LoginLockedError:
        where = "from addresses it has not logged in from" if client == STRANGERS else ""
        return LoginLockedError(
            f"too many failed logins under this name{' ' + where if where else ''}: "
            f"refused until {until:%Y-%m-%d %H:%M:%S} UTC",
            until=until,
            hint="wait, log in from an address or browser you used before, "
            "or ask an admin to unlock it",
            client=client,
            new=new,
        )
