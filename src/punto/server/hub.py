"""WebSocket fan-out: messages from the tables to the people watching them.

Table actions run in worker threads; :meth:`Hub.publish` may be called from
any thread and hands the message to the event loop, which puts it on each
subscriber's queue.  A message goes to everyone at the table, to the staff
only, or to one user (their bets and balance).  A subscriber that does not
keep up (its queue is full) is dropped rather than slow the table down; its
page reconnects and gets a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Messages waiting for one subscriber before it is dropped.
QUEUE_SIZE = 1000

#: Audiences: everyone at the table, the staff (dealer or higher), or one user name.
EVERYONE = "*"
STAFF = "@staff"


@dataclass(eq=False)
class Subscriber:
    table_id: str
    username: str | None
    staff: bool
    queue: asyncio.Queue[dict[str, Any] | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_SIZE)
    )
    dropped: bool = False

    def wants(self, audience: str) -> bool:
        if audience == EVERYONE:
            return True
        if audience == STAFF:
            return self.staff
        return self.username == audience


class Hub:
    """Subscribers per table, and delivery of published messages to them."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscriber]] = defaultdict(set)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def subscribe(self, table_id: str, username: str | None, staff: bool) -> Subscriber:
        subscriber = Subscriber(table_id, username, staff)
        with self._lock:
            self._subscribers[table_id].add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            self._subscribers[subscriber.table_id].discard(subscriber)

    def count(self, table_id: str, audience: str = EVERYONE) -> int:
        """How many subscribers of the table are in ``audience``."""
        with self._lock:
            subscribers = self._subscribers.get(table_id)
            if not subscribers:
                return 0
            if audience == EVERYONE:
                return len(subscribers)
            return sum(1 for s in subscribers if s.wants(audience))

    def later(self, delay: float, work: Callable[[], None]) -> None:
        """Run ``work`` in a worker thread after ``delay`` seconds (thread-safe);
        nothing happens once the loop is closed."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def due() -> None:
            if not loop.is_closed():
                loop.run_in_executor(None, work)

        try:
            loop.call_soon_threadsafe(loop.call_later, max(delay, 0.0), due)
        except RuntimeError:  # the loop closed meanwhile
            return

    def publish(self, table_id: str, message: dict[str, Any], audience: str = EVERYONE) -> None:
        """Send ``message`` to the table's subscribers in ``audience`` (thread-safe)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._deliver(table_id, message, audience)
        else:
            try:
                loop.call_soon_threadsafe(self._deliver, table_id, message, audience)
            except RuntimeError:  # the loop closed meanwhile
                return

    def _deliver(self, table_id: str, message: dict[str, Any], audience: str) -> None:
        with self._lock:
            targets = [s for s in self._subscribers[table_id] if s.wants(audience)]
        for subscriber in targets:
            if subscriber.dropped:
                continue
            try:
                subscriber.queue.put_nowait(message)
            except asyncio.QueueFull:
                subscriber.dropped = True
                self.unsubscribe(subscriber)
                # Make room for the end marker so the writer stops.
                while not subscriber.queue.empty():
                    subscriber.queue.get_nowait()
                subscriber.queue.put_nowait(None)

    def close_all(self) -> None:
        """End every subscription (the server is stopping)."""
        with self._lock:
            everyone = [s for subs in self._subscribers.values() for s in subs]
            self._subscribers.clear()
        for subscriber in everyone:
            with contextlib.suppress(asyncio.QueueFull):
                subscriber.queue.put_nowait(None)
