"""Who is asking: session tokens (Bearer header or cookie) and role checks.

A player acts only for themselves and only as a player ("a dealer cannot
bet"); a table action needs a table position at least as high as the one
the rules name (MBS 6.2: or any higher position); the admin manages
accounts and tables and holds no table position.
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import Request, WebSocket

from punto.store.accounts import (
    Accounts,
    PermissionDeniedError,
    Session,
    SessionInvalidError,
    User,
    UserRole,
)
from punto.table.roles import Role
from punto.words import a

log = logging.getLogger("punto.server")

#: The session cookie set at login.
COOKIE = "punto_session"
#: Longest token accepted (a real one is 43 characters).
MAX_TOKEN = 200


#: The ASGI scope key a forwarded request's :class:`Identity` rides in: set
#: only by :mod:`punto.server.cluster.forwarding` on the process that runs the table
#: (no header, cookie or body can set a scope key).
FORWARDED_IDENTITY = "punto.identity"


def token_digest(token: str) -> str:
    """What a session token is kept and looked up by (its SHA-256): the
    ``sessions`` table holds this, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Identity:
    """Who a forwarded request comes from, as the process that took it from
    the client found: the session's digest -- never the bearer token or the
    cookie's value, so that the request at rest in ``table_requests`` grants
    nothing to whoever reads it (the digest is no token: a client that sends
    it is hashed again) -- and the account and role it authenticated, which
    the process that answers checks the session against.  ``device``: the
    table whose device token the first process checked, for a card read by
    that table's shoe."""

    session: str | None = None
    account: int | None = None
    role: str | None = None
    device: str | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "session": self.session,
            "account": self.account,
            "role": self.role,
            "device": self.device,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Identity:
        account = data.get("account")
        return cls(
            session=_text(data.get("session")),
            account=account if isinstance(account, int) else None,
            role=_text(data.get("role")),
            device=_text(data.get("device")),
        )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def token_in(authorization: str, cookies: Mapping[str, str]) -> str | None:
    """The session token of an ``Authorization: Bearer`` header, else of the cookie."""
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()[:MAX_TOKEN]
    cookie = cookies.get(COOKIE)
    return cookie[:MAX_TOKEN] if cookie else None


def token_from(request: Request | WebSocket) -> str | None:
    """The session token of a request: ``Authorization: Bearer``, else the cookie.

    Never the URL: a token in a query string lands in access logs, proxies'
    logs and browser history.  A WebSocket client that can set neither
    header nor cookie sends the token in its first message instead
    (:mod:`punto.server.routes.ws`).
    """
    return token_in(request.headers.get("authorization", ""), request.cookies)


def session_digest(request: Request | WebSocket) -> str | None:
    """The digest of the request's session: of its token (:func:`token_from`),
    or, for a request forwarded from another process, the one it carries."""
    identity = request.scope.get(FORWARDED_IDENTITY)
    if isinstance(identity, Identity):
        return identity.session
    token = token_from(request)
    return token_digest(token) if token else None


class SessionCache:
    """Sessions recently checked, so that a request costs a SHA-256 and a dict
    lookup, not a database query.

    An entry is never trusted past the session's expiry, and a logout
    through this server forgets it at once.  A session ended elsewhere (a
    logout or the admin's revocation through another process, an account
    disabled or its role changed) is forgotten here as soon as
    :meth:`watch`'s thread reads it from ``session_invalidations``: every
    ``poll`` seconds (0.25), one indexed query for the rows after the last
    one seen -- so the bets' path (:meth:`peek`, on the event loop) never
    asks the database.  While that thread has read them within ``fresh``
    seconds an entry stands until its session ends; should it stall (the
    database out of reach), or without it, an entry is trusted for between
    half of ``ttl`` and ``ttl`` seconds after it was checked (at random, so
    that sessions checked together are not all checked again together).  A login
    through this server puts its session in (:meth:`remember`), and at
    start-up the sessions open then are read in at once (:meth:`warm`): a
    restart does not send every player's next request to the database.
    """

    def __init__(
        self,
        ttl: float = 20.0,
        size: int = 100_000,
        poll: float = 0.25,
        fresh: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.size = size
        self.poll = poll
        self.fresh = fresh
        self._clock = clock
        #: when the watcher last read the invalidations (time.monotonic); None: not watching
        self._read_at: float | None = None
        self._entries: dict[str, tuple[User, float, float]] = {}
        self._lock = threading.Lock()
        self._seen = 0  # the newest session invalidation read
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def watch(self, accounts: Accounts) -> None:
        """Start reading the sessions ended and accounts changed by any process
        (call before :meth:`warm`, so that nothing ended in between is missed)."""
        read_at = self._clock()
        self._seen = accounts.last_invalidation()
        self._read_at = read_at
        self._stop.clear()
        self._watcher = threading.Thread(
            target=self._watch, args=(accounts,), name="punto-session-watch", daemon=True
        )
        self._watcher.start()

    def stop(self) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(5)
            self._watcher = None
        self._read_at = None  # nobody reads them now: entries stand for ``ttl``

    def _watch(self, accounts: Accounts) -> None:
        pruned = time.monotonic()
        while not self._stop.wait(self.poll):
            try:
                self.catch_up(accounts)
                if time.monotonic() - pruned > 60:
                    pruned = time.monotonic()
                    accounts.prune_invalidations()
                    accounts.prune_login_attempts()
            except Exception:  # a database blip: the next poll tries again
                log.warning("cannot read the session invalidations", exc_info=True)

    def catch_up(self, accounts: Accounts) -> None:
        """Forget what was invalidated since the last look (the watcher's step)."""
        read_at = self._clock()  # before the read: what ends after it is read next time
        self._seen, tokens, account_ids = accounts.invalidations_after(self._seen)
        if tokens or account_ids:
            with self._lock:
                for digest in tokens:
                    self._entries.pop(digest, None)
                if account_ids:
                    gone = [d for d, e in self._entries.items() if e[0].id in account_ids]
                    for digest in gone:
                        del self._entries[digest]
        self._read_at = read_at

    def forget_account(self, account_id: int) -> None:
        """Forget every session of an account (this process; others read it from the log)."""
        with self._lock:
            gone = [d for d, e in self._entries.items() if e[0].id == account_id]
            for digest in gone:
                del self._entries[digest]

    def authenticate(self, accounts: Accounts, token: str) -> User:
        return self.authenticate_digest(accounts, token_digest(token))

    def authenticate_digest(self, accounts: Accounts, digest: str) -> User:
        """The user of the session whose token's digest is ``digest``."""
        now = self._clock()
        entry = self._entries.get(digest)
        if entry is not None and self._trusted(entry, now):
            return entry[0]
        seen = self._seen
        user, expires = accounts.session_of_digest(digest)  # one query: the user and the expiry
        if self._seen == seen:  # else it may have ended since it was read: not kept
            self._keep(digest, user, expires)
        return user

    def remember(self, session: Session) -> None:
        """A session just opened (a login): its first request need not ask the database."""
        self._keep(token_digest(session.token), session.user, session.expires_at)

    def warm(self, accounts: Accounts) -> list[User]:
        """Fill the cache with the sessions open now (at start-up: after a restart
        every player's next request would otherwise ask the database, all at once).
        Returns their users."""
        found = accounts.open_sessions(self.size)
        for digest, user, expires in found:
            self._keep(digest, user, expires)
        return [user for _, user, _ in found]

    def _keep(self, digest: str, user: User, expires: datetime) -> None:
        now = self._clock()
        with self._lock:
            if len(self._entries) >= self.size:
                self._entries.clear()
            # the expiry as a POSIX time: compared on every request, and a datetime's now is dear
            until = (expires if expires.tzinfo else expires.replace(tzinfo=UTC)).timestamp()
            self._entries[digest] = (user, now + self.ttl * random.uniform(0.5, 1.0), until)

    def peek(self, token: str) -> User | None:
        """The user of ``token`` if its entry stands (no database), else None."""
        return self.peek_digest(token_digest(token))

    def peek_digest(self, digest: str) -> User | None:
        """:meth:`peek` by the token's digest."""
        entry = self._entries.get(digest)
        if entry is not None and self._trusted(entry, self._clock()):
            return entry[0]
        return None

    def _trusted(self, entry: tuple[User, float, float], now: float) -> bool:
        """Whether a kept entry stands (see the class): its session not ended,
        and either the watcher reading lately or the entry checked lately."""
        if entry[2] <= time.time():
            return False
        read_at = self._read_at
        return entry[1] > now or (read_at is not None and now - read_at < self.fresh)

    def forget(self, token: str) -> None:
        with self._lock:
            self._entries.pop(token_digest(token), None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def authenticate(
    accounts: Accounts, request: Request | WebSocket, cache: SessionCache | None = None
) -> User:
    digest = session_digest(request)
    if not digest:
        raise SessionInvalidError(
            "you are not logged in", hint="log in: POST /api/auth/login, then send the token"
        )
    if cache is not None:
        user = cache.authenticate_digest(accounts, digest)
    else:
        user = accounts.session_of_digest(digest)[0]
    identity = request.scope.get(FORWARDED_IDENTITY)
    if isinstance(identity, Identity) and identity.account is not None:
        check_identity(identity, user)
    return user


def check_identity(identity: Identity, user: User) -> None:
    """A forwarded request acts as the account and role it was sent as, or not at all."""
    if identity.account != user.id or identity.role != user.role.value:
        raise SessionInvalidError(
            "this session's account changed while the request was on its way",
            hint="log in again and retry",
        )


def optional_user(
    accounts: Accounts, request: Request | WebSocket, cache: SessionCache | None = None
) -> User | None:
    if not session_digest(request):
        return None
    try:
        return authenticate(accounts, request, cache)
    except SessionInvalidError:
        return None


def table_role(user: User, required: Role, action: str) -> Role:
    """The table position ``user`` acts in, if it may ``action`` (which takes ``required``)."""
    role = user.role.table_role
    if role is None:
        raise PermissionDeniedError(
            f"an admin may not {action}",
            hint="the admin manages accounts and tables; log in with a table position",
        )
    if not role.may_act_as(required):
        higher = "" if required is Role.PLAYER else " or higher"
        raise PermissionDeniedError(
            f"{a(role.words)} may not {action}",
            clause="6.2",
            hint=f"it takes {a(required.words)}{higher}",
        )
    return role


def require_player(user: User, action: str) -> None:
    """Only a player bets, and only from their own account."""
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"{a(user.role.words)} may not {action}",
            hint="only players bet, each from their own account",
        )


def require_manager_or_admin(user: User, action: str) -> None:
    """Setting up tables and money at the cage: a pit manager or higher, or the admin."""
    if user.role is UserRole.ADMIN:
        return
    table_role(user, Role.PIT_MANAGER, action)


def is_staff(user: User | None) -> bool:
    return user is not None and user.role is not UserRole.PLAYER
