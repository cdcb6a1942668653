"""Logins under load: rate limits, a bound on password hashing, and the route.

A login costs an Argon2id hash (about 19 MiB and tens of milliseconds, see
:mod:`punto.store.passwords`); a flood of them with random names once took
the server from 92 MiB to 1.7 GiB and made bets wait 13 s.  So, in front of
:meth:`punto.store.accounts.Accounts.login`:

- **Failed logins per client address**: at most :data:`PER_ADDRESS` a
  minute (a moving window, ``limits``); past that the address is refused
  with 429 and ``Retry-After`` before any password is checked.  Only
  failures count, so the players of one casino behind one address are not
  kept out by each other's logins; and a name that logged in successfully
  from an address lately is not held by either limit there (only by its
  lockout), so a flood from a shared address keeps out only the names
  nobody has logged in under from it.
- **Failed logins per user name**: at most :data:`PER_ACCOUNT` a minute from
  all addresses together -- except from an address the account logged in
  from successfully lately, so that a stranger guessing from elsewhere
  cannot keep the user out.
- **Password hashing**: at most :data:`HASH_SLOTS` at a time, in threads of
  their own (never the event loop's, nor the worker threads the tables'
  handlers wait in) and at a lower priority (:data:`HASH_NICE`), and at
  most :data:`HASH_QUEUE` more waiting; a login
  beyond that is refused at once with 429 and ``Retry-After: 1``.
- **A password longer than** :data:`punto.store.passwords.MAX_PASSWORD_LENGTH`
  is refused (422) before hashing, and counts as a failure of its address.
- **A refusal for too many failures or logins waits** :data:`TARPIT` seconds
  (give or take half, at random, so that the flood does not come back in
  step) before it is sent: a flooding client that sends its next login as soon as
  the last is answered would otherwise keep the event loop busy refusing it
  (measured: over a thousand refusals a second, and the bettor's p99 at
  270 ms); held this way, 64 of them cost a few requests a second.

The limits are counted in this process (one process serves every table);
the lockout after repeated failures (per name *and* client) is in the
database, see :class:`punto.store.accounts.Accounts`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, TypeVar

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from pydantic import BaseModel, ConfigDict, Field

from punto.server import errors
from punto.server.auth import COOKIE
from punto.server.models import LoginOut, documented
from punto.store.accounts import (
    LoginFailedError,
    LoginLockedError,
    LoginThrottledError,
    PasswordPolicyError,
    Session,
    UserRole,
    normalize_username,
)
from punto.store.passwords import MAX_PASSWORD_LENGTH

if TYPE_CHECKING:
    from punto.server.app import Server

T = TypeVar("T")

#: Failed logins a client address may make a minute.
PER_ADDRESS = "30/minute"
#: Failed logins a user name may take a minute from addresses it has not logged in from.
PER_ACCOUNT = "10/minute"
#: Password hashes at a time: half the cores (the other half serve the tables).
HASH_SLOTS = max(1, (os.cpu_count() or 2) // 2)
#: Logins waiting for a hash slot before more are refused.
HASH_QUEUE = 8
#: The hashing threads' niceness (Linux): a table's bet wins the core from a hash.
HASH_NICE = 10
#: Seconds a throttled login's answer is held back (see the module's docstring).
TARPIT = 1.0
#: The longest password a login's body may carry (longer is refused before hashing
#: too, with the policy's message; this only bounds the request).
LONGEST_SENT = 4096
#: How long a successful login makes its address known for its user name.
KNOWN_FOR = 12 * 3600.0

router = APIRouter(prefix="/api", responses=errors.RESPONSES)


class LoginIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=LONGEST_SENT)]


class LoginGuard:
    """The rate limits and the hashing bound of the module's docstring."""

    def __init__(
        self,
        *,
        per_address: str = PER_ADDRESS,
        per_account: str = PER_ACCOUNT,
        slots: int = HASH_SLOTS,
        queue: int = HASH_QUEUE,
        tarpit: float = TARPIT,
    ) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._per_address: RateLimitItem = parse(per_address)
        self._per_account: RateLimitItem = parse(per_account)
        self.slots = slots
        self.queue = queue
        self.tarpit = tarpit
        self._executor = ThreadPoolExecutor(
            max_workers=slots, thread_name_prefix="punto-login", initializer=_lower_priority
        )
        self._in_flight = 0
        self._known: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def admit(self, name: str, client: str) -> None:
        """Refuse (:class:`LoginThrottledError`) a login the limits do not let through."""
        if self._is_known(name, client):
            return  # this name logged in from here lately: only its lockout holds it
        if not self._limiter.test(self._per_address, "address", client):
            self._refuse(self._per_address, ("address", client), "from this address")
        if not self._limiter.test(self._per_account, "account", name):
            self._refuse(self._per_account, ("account", name), "under this name")

    def failed(self, name: str, client: str) -> None:
        self._limiter.hit(self._per_address, "address", client)
        if not self._is_known(name, client):
            self._limiter.hit(self._per_account, "account", name)

    def succeeded(self, name: str, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._known) >= 100_000:  # forget the oldest half rather than grow
                for key, _ in sorted(self._known.items(), key=lambda kv: kv[1])[:50_000]:
                    del self._known[key]
            self._known[(name, client)] = now + KNOWN_FOR

    async def hash(self, work: Callable[[], T]) -> T:
        """Run ``work`` (a login: its password hash) in a hashing slot, or refuse
        (:class:`LoginThrottledError`) if the slots and the queue are full."""
        if self._in_flight >= self.slots + self.queue:
            raise LoginThrottledError(
                "the server is checking too many passwords at once",
                until=datetime.now(UTC) + timedelta(seconds=1),
                hint="try again in a second",
            )
        self._in_flight += 1  # on the event loop only: no lock needed
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work)
        finally:
            self._in_flight -= 1

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _is_known(self, name: str, client: str) -> bool:
        until = self._known.get((name, client))
        return until is not None and until > time.monotonic()

    def _refuse(self, item: RateLimitItem, ids: tuple[str, str], where: str) -> None:
        reset = self._limiter.get_window_stats(item, *ids).reset_time
        until = datetime.fromtimestamp(max(reset, time.time() + 1), UTC)
        raise LoginThrottledError(
            f"too many failed logins {where}: refused until {until:%Y-%m-%d %H:%M:%S} UTC",
            until=until,
            hint="wait, then check the user name and password",
        )


def _lower_priority() -> None:
    """Make the calling (hashing) thread nicer than the rest of the server: on
    Linux a thread is scheduled on its own, so the event loop and the journal
    keep their share of the cores while logins wait a little longer."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not allowed
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICE)


def client_of(request: Request) -> str:
    """The address a request comes from (the socket's peer: no proxy header is trusted)."""
    return request.client.host if request.client is not None else ""


def retry_after(error: LoginLockedError) -> str:
    seconds = (error.until - datetime.now(UTC)).total_seconds()
    return str(max(1, math.ceil(seconds)))


@router.post("/auth/login", tags=["accounts"], **documented(LoginOut))
async def login(body: LoginIn, request: Request) -> Response:
    """A password login; returns a session token (also set as an HttpOnly cookie).
    Five wrong passwords in a row from one address lock the name there for a
    while, longer each time (429); too many failures from one address or under
    one name, or too many logins at once, are refused with 429 and
    ``Retry-After`` before the password is checked."""
    server: Server = request.app.state.server
    guard = server.logins
    name = normalize_username(body.username)
    client = client_of(request)
    try:
        guard.admit(name, client)
        if len(body.password) > MAX_PASSWORD_LENGTH:
            guard.failed(name, client)  # no password that long was ever set
            raise PasswordPolicyError(
                "that password is too long to be anyone's",
                hint=f"passwords have at most {MAX_PASSWORD_LENGTH} characters",
            )

        def work() -> Session:
            try:
                return server.accounts.login(body.username, body.password, client=client)
            except (LoginFailedError, LoginLockedError):
                guard.failed(name, client)
                raise

        session = await guard.hash(work)
    except LoginLockedError as error:
        if isinstance(error, LoginThrottledError):
            # held back (see TARPIT), each for its own while: refusals sent together
            # come back together, and a burst of them would stall the loop at once
            await asyncio.sleep(guard.tarpit * random.uniform(0.5, 1.5))
        answer = errors.punto_error_response(error)
        answer.headers["Retry-After"] = retry_after(error)
        return answer
    guard.succeeded(name, client)
    server.sessions.remember(session)
    if session.user.role is UserRole.PLAYER:  # their first bet then goes in flight
        await asyncio.to_thread(server.journal.prime, [f"player:{session.user.username}"])
    await asyncio.to_thread(server.audit.record, "login", user=session.user)
    answer = JSONResponse(
        {
            "token": session.token,
            "token_type": "bearer",
            "expires_at": session.expires_at.isoformat(),
            "user": {
                "id": session.user.id,
                "username": session.user.username,
                "role": session.user.role.value,
            },
        }
    )
    answer.set_cookie(
        COOKIE,
        session.token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=int(server.accounts.session_ttl.total_seconds()),
        path="/",
    )
    return answer
