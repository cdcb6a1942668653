"""Logins under load: the rate limits and the bound on password hashing
(:class:`LoginGuard`); the route is :mod:`punto.server.routes.logins`.

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
- **Failed logins per user name** from strangers (addresses the name has
  not logged in from lately, without its device cookie) are bounded in the
  database, with an exponential back-off (:mod:`punto.store.lockout`): in
  every process, lifted by the admin's unlock; an address the name logged in
  from lately (:meth:`LoginGuard.known`, this process's memory) or the
  browser's device cookie is never held by it, so a stranger guessing from
  elsewhere cannot keep the user out.
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
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from punto.store.accounts import LoginThrottledError

T = TypeVar("T")

#: Failed logins a client address may make a minute.
PER_ADDRESS = "30/minute"
#: Password hashes at a time: half the cores (the other half serve the tables).
HASH_SLOTS = max(1, (os.cpu_count() or 2) // 2)
#: Logins waiting for a hash slot before more are refused.
HASH_QUEUE = 8
#: The hashing threads' niceness (Linux): a table's bet wins the core from a hash.
HASH_NICE = 10
#: Seconds a throttled login's answer is held back (see the module's docstring).
TARPIT = 1.0
#: How long a successful login makes its address known for its user name.
KNOWN_FOR = 12 * 3600.0


class LoginGuard:
    """The rate limits and the hashing bound of the module's docstring."""

    def __init__(
        self,
        *,
        per_address: str = PER_ADDRESS,
        slots: int = HASH_SLOTS,
        queue: int = HASH_QUEUE,
        tarpit: float = TARPIT,
    ) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._per_address: RateLimitItem = parse(per_address)
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
        if self.known(name, client):
            return  # this name logged in from here lately: only its lockout holds it
        if not self._limiter.test(self._per_address, "address", client):
            self._refuse(self._per_address, ("address", client), "from this address")

    def failed(self, name: str, client: str) -> None:
        self._limiter.hit(self._per_address, "address", client)

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

    def known(self, name: str, client: str) -> bool:
        """Whether ``name`` logged in from ``client`` lately (see :data:`KNOWN_FOR`)."""
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
