"""A fair share of the server's attention for each client address.

One event loop serves every request.  A client that keeps many requests in
flight -- a terminal sending the same refused void as fast as it is answered,
a script -- would otherwise have them all queued in front of a player's bet,
and the bet would wait behind each of them.  While one address alone is
sending, it may have every request it likes in the application (a load
balancer, a test, a lone client lose nothing).  Once several addresses have
been seen within :data:`RECENT` seconds, each may have only its share of
:data:`RUNNING` requests in the application at once (at least
:data:`FLOOR`); the rest wait their turn, first come first served within an
address, the address with the fewest running first among addresses.  A
request is never refused here: :class:`~punto.server.security.guard.Guard` caps how
many one address may have in progress at all.

>>> import asyncio
>>> async def demo() -> list[str]:
...     share = FairShare(running=4, floor=1, recent=60)
...     order: list[str] = []
...     async def request(address: str, name: str) -> None:
...         async with share.turn(address):
...             order.append(name)
...             await asyncio.sleep(0.01)
...     await request("10.0.0.1", "bet 1")  # a player at the table
...     flood = [asyncio.create_task(request("10.0.0.9", f"f{i}")) for i in range(6)]
...     await asyncio.sleep(0.001)  # two of the flood run, four wait
...     await request("10.0.0.1", "bet 2")  # in at once, ahead of the four
...     await asyncio.gather(*flood)
...     return order
>>> asyncio.run(demo())
['bet 1', 'f0', 'f1', 'bet 2', 'f2', 'f3', 'f4', 'f5']
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["FLOOR", "RECENT", "RUNNING", "FairShare"]

#: Requests in the application at once, shared among the addresses seen lately.
RUNNING = 16
#: No address's share is smaller: a page loads a few things at a time.
FLOOR = 2
#: Seconds an address counts as present after its last request: a player
#: between two bets is still at the table.
RECENT = 2.0


class FairShare:
    """The shares of one server process (see the module)."""

    def __init__(
        self, *, running: int = RUNNING, floor: int = FLOOR, recent: float = RECENT
    ) -> None:
        self.running = running
        self.floor = floor
        self.recent = recent
        self.inside: Counter[str] = Counter()
        self.waiting: dict[str, deque[asyncio.Future[None]]] = {}
        #: address -> when it was last seen, oldest first
        self.seen: OrderedDict[str, float] = OrderedDict()

    def share(self) -> int | None:
        """How many requests each address may have running now; None: no limit
        (one address alone)."""
        now = time.monotonic()
        for _ in range(len(self.seen)):
            address, when = next(iter(self.seen.items()))
            if now - when <= self.recent:
                break
            if address in self.inside or address in self.waiting:
                self.see(address)  # still here: a request of its own runs or waits
            else:
                del self.seen[address]
        present = len(self.seen)
        return None if present <= 1 else max(self.floor, self.running // present)

    def see(self, address: str) -> None:
        """Count ``address`` as present from now."""
        self.seen[address] = time.monotonic()
        self.seen.move_to_end(address)

    def _room(self, address: str, share: int | None) -> bool:
        return share is None or self.inside[address] < share

    @asynccontextmanager
    async def turn(self, address: str) -> AsyncIterator[None]:
        """Wait for ``address``'s turn, and hold a place while the request runs."""
        self.see(address)
        if address in self.waiting or not self._room(address, self.share()):
            ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.waiting.setdefault(address, deque()).append(ticket)
            try:
                await ticket
            except asyncio.CancelledError:
                if ticket.done() and not ticket.cancelled():
                    self._leave(address)  # admitted as it was cancelled
                else:
                    self._forget(address, ticket)
                raise
        else:
            self.inside[address] += 1
        try:
            yield
        finally:
            self.see(address)
            self._leave(address)

    def _forget(self, address: str, ticket: asyncio.Future[None]) -> None:
        queue = self.waiting.get(address)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self.waiting[address]

    def _leave(self, address: str) -> None:
        self.inside[address] -= 1
        if self.inside[address] <= 0:
            del self.inside[address]
        self._admit()

    def _admit(self) -> None:
        """Let waiting requests in, the addresses with the fewest running first."""
        if not self.waiting:  # the common case: every request that ends, nobody waiting
            return
        share = self.share()
        for address in sorted(self.waiting, key=lambda a: self.inside[a]):
            queue = self.waiting[address]
            while queue and self._room(address, share):
                ticket = queue.popleft()
                if not ticket.done():
                    self.inside[address] += 1
                    ticket.set_result(None)
            if not queue:
                del self.waiting[address]
