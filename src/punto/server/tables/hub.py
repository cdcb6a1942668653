"""WebSocket fan-out: messages from the tables to the people watching them.

Table actions run in worker threads; :meth:`Hub.publish` may be called from
any thread and hands the message to the event loop, which puts it on each
subscriber's queue.  A message goes to everyone at the table, to the staff
only, or to one user (their bets and balance).  A subscriber that does not
keep up (its queue is full) is dropped rather than slow the table down; its
page reconnects and gets a fresh snapshot.

With several server processes, a table's watchers may be on any of them:
the hub's :class:`Beyond` (:class:`punto.server.cluster.relay.Relay`) counts the
watchers elsewhere and carries each message there.  A watcher waiting for
its opening snapshot from another process is not :attr:`Subscriber.ready`:
it gets nothing until :meth:`Hub.open` gives it that snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from punto.jsontext import dumps

#: Messages waiting for one subscriber before it is dropped.
QUEUE_SIZE = 1000

#: Audiences: everyone at the table, the staff (dealer or higher), or one user name.
EVERYONE = "*"
STAFF = "@staff"

_ids = itertools.count(1)


@dataclass(eq=False)
class Subscriber:
    table_id: str
    username: str | None
    staff: bool
    #: the JSON text of each message for it (a message is written once for all)
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: bool = False
    #: a table's watcher (``/ws/tables``), which may be served from another process
    watcher: bool = False
    #: it has had its opening snapshot: messages go to it (see :meth:`Hub.open`)
    ready: bool = True
    #: which opening it waits for (one asked for again makes the earlier one stale)
    nonce: int = 0
    #: who it is, for its ``state`` (``{"id", "username", "role"}``), if logged in
    user: dict[str, Any] | None = None
    #: this process's number for it (an opening from another process names it)
    id: int = field(default_factory=lambda: next(_ids))

    def wants(self, audience: str) -> bool:
        if audience == EVERYONE:
            return True
        if audience == STAFF:
            return self.staff
        return self.username == audience


class Beyond(Protocol):
    """The watchers on other server processes (:class:`punto.server.cluster.relay.Relay`)."""

    def count(self, table_id: str, audience: str) -> int:
        """How many watchers elsewhere of a table this process runs are in ``audience``."""
        ...

    def publish(self, table_id: str, message: dict[str, Any], audience: str) -> None:
        """Carry a message of a table this process runs to the watchers elsewhere."""
        ...

    def watch(self, subscriber: Subscriber) -> None:
        """Ask the process that runs ``subscriber``'s table for its opening."""
        ...


class Hub:
    """Subscribers per table, and delivery of published messages to them."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscriber]] = defaultdict(set)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        #: the watchers on other processes (PostgreSQL, several processes), or None
        self.beyond: Beyond | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def subscribe(
        self,
        table_id: str,
        username: str | None,
        staff: bool,
        *,
        watcher: bool = False,
        ready: bool = True,
        user: dict[str, Any] | None = None,
    ) -> Subscriber:
        subscriber = Subscriber(table_id, username, staff, watcher=watcher, ready=ready, user=user)
        with self._lock:
            self._subscribers[table_id].add(subscriber)
        return subscriber

    def watchers(self) -> dict[str, list[Subscriber]]:
        """The tables' watchers (:attr:`Subscriber.watcher`), by table."""
        with self._lock:
            found = {
                table_id: [s for s in subscribers if s.watcher]
                for table_id, subscribers in self._subscribers.items()
            }
        return {table_id: subs for table_id, subs in found.items() if subs}

    def watching(self, table_id: str) -> list[Subscriber]:
        """One table's watchers (:attr:`Subscriber.watcher`)."""
        with self._lock:
            return [s for s in self._subscribers.get(table_id, ()) if s.watcher]

    def open(self, subscriber: Subscriber, messages: list[dict[str, Any]], nonce: int) -> None:
        """Give a subscriber waiting for it (with ``nonce``) its opening messages;
        from then on it gets what is published (thread-safe: called with the
        table's lock held, it comes between the messages published before and after)."""
        self._in_loop(self._open, subscriber, messages, nonce)

    def _open(self, subscriber: Subscriber, messages: list[dict[str, Any]], nonce: int) -> None:
        if subscriber.ready or subscriber.dropped or subscriber.nonce != nonce:
            return
        subscriber.ready = True
        for message in messages:
            self._put(subscriber, dumps(message))

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            subscribers = self._subscribers.get(subscriber.table_id)
            if subscribers is not None:
                subscribers.discard(subscriber)
                if not subscribers:  # a table watched once is not kept for ever
                    del self._subscribers[subscriber.table_id]

    def count(self, table_id: str, audience: str = EVERYONE) -> int:
        """How many subscribers of the table are in ``audience`` (here and,
        for a table this process runs, on the other processes)."""
        beyond = self.beyond
        elsewhere = beyond.count(table_id, audience) if beyond is not None else 0
        with self._lock:
            subscribers = self._subscribers.get(table_id)
            if not subscribers:
                return elsewhere
            if audience == EVERYONE:
                return len(subscribers) + elsewhere
            return sum(1 for s in subscribers if s.wants(audience)) + elsewhere

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
        """Send ``message`` to the table's subscribers in ``audience`` (thread-safe),
        here and on the other processes."""
        beyond = self.beyond
        if beyond is not None:
            beyond.publish(table_id, message, audience)
        self._in_loop(self.deliver, table_id, message, audience)

    def _in_loop(self, call: Callable[..., None], *args: Any) -> None:
        """``call(*args)`` in the hub's event loop: at once from it, soon from
        another thread; not at all once the loop is closed."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            call(*args)
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(call, *args)

    def deliver(self, table_id: str, message: dict[str, Any], audience: str) -> None:
        """The event loop: put ``message`` on the queue of each ready subscriber
        of the table in ``audience`` (a message published here, or relayed)."""
        with self._lock:
            subscribers = self._subscribers.get(table_id)
            targets = [s for s in subscribers if s.wants(audience)] if subscribers else []
        text: str | None = None
        for subscriber in targets:
            if subscriber.ready and not subscriber.dropped:
                if text is None:
                    text = dumps(message)
                self._put(subscriber, text)

    def _put(self, subscriber: Subscriber, text: str) -> None:
        try:
            subscriber.queue.put_nowait(text)
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
