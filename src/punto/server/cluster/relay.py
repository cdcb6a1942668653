"""A table's watchers on any server process: its messages relayed through PostgreSQL.

The process that runs a table (:mod:`punto.server.cluster.ownership`) publishes its
messages to its own hub; a WebSocket for that table opened on another
process is a watcher there, served by this relay:

- **Who watches what.** Every :data:`HEARTBEAT_SECONDS` each process
  announces, for each table it does not run, how many of its watchers are
  in each audience (everyone, the staff, each player); a process that runs
  the table relays a message only to an audience someone elsewhere is in
  (the hub's :meth:`~punto.server.tables.hub.Hub.count` includes them, so
  snapshots and each player's ``me`` are built as for watchers of its own).
  An announcement not renewed within :data:`INTEREST_SECONDS` lapses.
- **The table's stream.** Each relayed message carries its table's next
  sequence number; all of a process's notices go out from one thread, one
  transaction a batch, so they arrive in the order they were published.
- **A new watcher** waits (not :attr:`~punto.server.tables.hub.Subscriber.ready`)
  while its process asks the table's; that one counts it at once and, with
  the table's lock held (no message published meanwhile), builds its
  opening ``state`` (``me``, ``staff`` as the watcher's rights say) and
  ``scoreboard`` and puts them in the table's stream, addressed to it.  The
  watcher gets that, then every message after it: what a watcher on the
  owner gets.
- **A gap, a new owner.** A sequence number skipped (a notice lost), a
  message from another process than before, a process saying it now runs
  the table (a take-over), or this process starting or stopping it: the
  table's watchers here keep their sockets, wait again, and get a fresh
  opening from whichever process runs it.  A request unanswered (no process
  runs the table yet) is asked again each heartbeat.

The user is authenticated, and each message filtered for its audience, by
the process the watcher is connected to, exactly as on the owner
(:meth:`punto.server.tables.hub.Subscriber.wants`).  Messages are notices
(:mod:`punto.server.notices`: longer ones in several frames), sent without
waiting for the disk (``synchronous_commit`` off): they are not records, and
a watcher that misses one is given a fresh opening.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import queue
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

from punto.server.batching import next_batch
from punto.server.notices import Frames, Notices, frames, notify
from punto.server.tables.hub import EVERYONE, STAFF, Hub, Subscriber
from punto.store.kept import KeptConnection

if TYPE_CHECKING:
    from punto.server.tables.runtime import TableRuntime

log = logging.getLogger("punto.server.cluster.relay")

#: The notice channel of the watchers' messages.
CHANNEL = "punto_table_watchers"
#: How often a process says what it watches, and looks for tables it started or stopped.
HEARTBEAT_SECONDS = 1.0
#: How long a process's announcement of its watchers holds without renewal.
INTEREST_SECONDS = 10.0
#: Messages sent in one transaction at most.
BATCH = 200


def table_opening(
    runtime: TableRuntime, username: str | None, staff: bool, user: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """What a table's watcher gets first: the ``state`` (``me`` for a player,
    ``staff`` for the staff; ``user``: who is watching) and the ``scoreboard``."""
    state = runtime.state(username, staff=staff)
    if user is not None:
        state["user"] = dict(user)
    board = dict(runtime.snapshot().scoreboard)
    return [state, {"type": "scoreboard", "scoreboard": board}]


def audiences(watchers: list[Subscriber]) -> dict[str, int]:
    """How many of ``watchers`` are in each audience (everyone, the staff, each player)."""
    counts = {EVERYONE: len(watchers)}
    staff = sum(1 for w in watchers if w.staff)
    if staff:
        counts[STAFF] = staff
    for w in watchers:
        if w.username is not None:
            counts[w.username] = counts.get(w.username, 0) + 1
    return counts


def _with_user(messages: list[dict[str, Any]], user: dict[str, Any] | None) -> list[dict[str, Any]]:
    if user is None:
        return messages
    return [{**m, "user": dict(user)} if m.get("type") == "state" else m for m in messages]


class Relay:
    """One process's side of the relay, both ways (see the module); the hub's
    :class:`~punto.server.tables.hub.Beyond` while it runs."""

    def __init__(self, hub: Hub, tables: Mapping[str, TableRuntime]) -> None:
        self.hub = hub
        self.tables = tables  # the server's: the tables this process runs
        self.me = ""
        self.engine: Engine | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        #: process -> (when its announcement lapses, table -> audience -> watchers)
        self._interest: dict[str, tuple[float, dict[str, dict[str, int]]]] = {}
        self._wanted: dict[str, dict[str, int]] = {}  # the sum of the above, by table
        self._seq: dict[str, int] = {}  # the next number of each table's stream, less one
        self._out: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._frames = Frames()
        # the event loop's alone:
        self._source: dict[str, tuple[str, int]] = {}  # table -> its stream's sender, number
        self._local: set[str] = set()  # the tables run here at the last heartbeat
        self._waiting: set[int] = set()  # watchers waiting at the last heartbeat
        self._announced = False
        self._sender: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, engine: Engine, me: str, notices: Notices) -> None:
        """Relay through ``engine``'s notices as process ``me`` (``notices`` is
        started after)."""
        self.engine, self.me = engine, me
        self._loop = asyncio.get_running_loop()
        notices.listen(CHANNEL, self._noticed)
        notices.on_connect(self._reconnected)
        self._sender = threading.Thread(target=self._send, name="punto-relay", daemon=True)
        self._sender.start()
        self._task = self._loop.create_task(self._keep(), name="punto-relay")
        self.hub.beyond = self

    async def stop(self) -> None:
        self.hub.beyond = None
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._sender is not None:
            self._out.put(None)
            await asyncio.to_thread(self._sender.join, 5)
            self._sender = None

    # -- the process that runs the table (Beyond) ------------------------------------------------

    def count(self, table_id: str, audience: str) -> int:
        with self._lock:
            wanted = self._wanted.get(table_id)
            return wanted.get(audience, 0) if wanted else 0

    def publish(self, table_id: str, message: dict[str, Any], audience: str) -> None:
        if self.count(table_id, audience):
            body = json.dumps(message, separators=(",", ":"))
            self._stream(table_id, {"k": "m", "f": self.me, "t": table_id, "a": audience}, body)

    def _stream(self, table_id: str, head: dict[str, Any], body: str) -> None:
        """Put a message in ``table_id``'s stream: numbered, in order."""
        with self._lock:
            seq = self._seq[table_id] = self._seq.get(table_id, 0) + 1
            head = {**head, "s": seq}
            self._out.put(json.dumps(head, separators=(",", ":"))[:-1] + f',"m":{body}}}')

    def _announce(self, envelope: dict[str, Any]) -> None:
        self._out.put(json.dumps({**envelope, "f": self.me}, separators=(",", ":")))

    def _asked(self, sender: str, envelope: dict[str, Any]) -> None:
        """The loop: another process's watcher wants a table's opening."""
        table_id = str(envelope["t"])
        self._interested(sender, {table_id: envelope["w"]}, merge=True)  # before the opening
        runtime = self.tables.get(table_id)
        if runtime is not None and self._loop is not None:
            self._loop.run_in_executor(None, self._answer, runtime, sender, envelope)

    def _answer(self, runtime: TableRuntime, sender: str, envelope: dict[str, Any]) -> None:
        """A worker thread: the opening, in the table's stream where it was built."""
        try:
            with runtime.lock:  # nothing is published between the opening and its place
                if runtime.stopped:
                    return
                opening = table_opening(runtime, envelope.get("u"), bool(envelope.get("st")))
                head = {"k": "o", "f": self.me, "t": runtime.id, "to": sender}
                head |= {"id": envelope["id"], "n": envelope["n"]}
                self._stream(runtime.id, head, json.dumps(opening, separators=(",", ":")))
        except Exception:
            log.exception("table %s: the opening for a watcher elsewhere failed", runtime.id)

    def _interested(
        self, sender: str, tables: dict[str, dict[str, int]], *, merge: bool = False
    ) -> None:
        with self._lock:
            if merge and sender in self._interest:
                tables = {**self._interest[sender][1], **tables}
            self._interest[sender] = (time.monotonic() + INTEREST_SECONDS, tables)
            self._sum()

    def _sum(self) -> None:
        """Lock held: :attr:`_wanted` from the announcements that hold."""
        now = time.monotonic()
        wanted: dict[str, dict[str, int]] = {}
        for sender, (until, tables) in list(self._interest.items()):
            if until < now:
                del self._interest[sender]
                continue
            for table_id, counts in tables.items():
                into = wanted.setdefault(table_id, {})
                for audience, n in counts.items():
                    into[audience] = into.get(audience, 0) + int(n)
        self._wanted = wanted

    # -- the process a watcher is connected to ----------------------------------------------------

    def watch(self, subscriber: Subscriber) -> None:
        """The loop: a new watcher (not ready) of a table this process does not run."""
        self._ask(subscriber.table_id, [subscriber])

    def _ask(self, table_id: str, watchers: list[Subscriber]) -> None:
        """The loop: openings for ``watchers`` (waiting), from this process if it
        runs the table, else from the one that does."""
        runtime = self.tables.get(table_id)
        if runtime is not None:
            asked = [(w, w.nonce) for w in watchers]
            assert self._loop is not None
            self._loop.run_in_executor(None, self._open_here, runtime, asked)
            return
        counts = audiences(self.hub.watching(table_id))
        for w in watchers:
            request = {"k": "q", "t": table_id, "id": w.id, "n": w.nonce, "w": counts}
            self._announce(request | {"u": w.username, "st": w.staff})

    def _open_here(self, runtime: TableRuntime, asked: list[tuple[Subscriber, int]]) -> None:
        try:
            with runtime.lock:
                for watcher, nonce in asked:
                    opening = table_opening(runtime, watcher.username, watcher.staff, watcher.user)
                    self.hub.open(watcher, opening, nonce)
        except Exception:
            log.exception("table %s: a watcher's opening failed", runtime.id)

    def _resync(self, table_id: str, watchers: list[Subscriber]) -> None:
        """The loop: ``watchers`` wait for a fresh opening (those waiting already
        have one asked for)."""
        ready = [w for w in watchers if w.ready]
        for w in ready:
            w.ready = False
            w.nonce += 1
        if ready:
            self._ask(table_id, ready)

    def _relayed(self, sender: str, envelope: dict[str, Any]) -> None:
        """The loop: a message (or an opening) of a table's stream from another process."""
        table_id, seq = str(envelope["t"]), int(envelope["s"])
        if table_id in self.tables:
            return  # run here: its watchers are told here
        watchers = self.hub.watching(table_id)
        if not watchers:
            self._source.pop(table_id, None)
            return
        last = self._source.get(table_id)
        self._source[table_id] = (sender, seq)
        if last is not None and last != (sender, seq - 1):
            # Another process runs it now, or notices were lost: start again.
            self._resync(table_id, watchers)
        if envelope["k"] == "m":
            self.hub.deliver(table_id, envelope["m"], str(envelope["a"]))
        elif envelope.get("to") == self.me:
            for w in watchers:
                if w.id == envelope["id"]:
                    self.hub.open(w, _with_user(envelope["m"], w.user), int(envelope["n"]))

    # -- both: the notices ---------------------------------------------------------------------

    def _noticed(self, payload: str) -> None:
        """The listener's thread: a frame; a whole envelope goes to the loop."""
        whole = self._frames.feed(payload)
        if whole is None or whole[0] == self.me or self._loop is None:
            return
        sender, body = whole
        envelope = json.loads(body)
        with contextlib.suppress(RuntimeError):  # the loop closed
            self._loop.call_soon_threadsafe(self._received, sender, envelope)

    def _received(self, sender: str, envelope: dict[str, Any]) -> None:
        kind = envelope.get("k")
        try:
            if kind in ("m", "o"):
                self._relayed(sender, envelope)
            elif kind == "q":
                self._asked(sender, envelope)
            elif kind == "w":
                self._interested(sender, envelope["w"])
            elif kind == "r":  # a process took these tables: their watchers here start again
                watchers = self.hub.watchers()
                for table_id in envelope["tables"]:
                    if table_id in watchers and table_id not in self.tables:
                        self._source.pop(table_id, None)
                        self._resync(table_id, watchers[table_id])
        except (KeyError, TypeError, ValueError):
            log.warning("relay: a malformed %r message from %s", kind, sender)

    def _reconnected(self) -> None:
        """The listener's thread, (re)connected: what was sent meanwhile is lost."""
        self._frames.clear()
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._start_again)

    def _start_again(self) -> None:
        self._source.clear()
        for table_id, watchers in self.hub.watchers().items():
            if table_id not in self.tables:
                self._resync(table_id, watchers)

    def _send(self) -> None:
        """The sender's thread: the envelopes, a batch a transaction, in order."""
        assert self.engine is not None
        sending = KeptConnection(self.engine, autocommit=True)
        try:
            self._send_with(sending)
        finally:
            sending.drop()

    def _send_with(self, sending: KeptConnection) -> None:
        number = 0
        while True:
            taken = next_batch(self._out, BATCH)
            if taken is None:
                return
            batch, stop = taken
            payloads = []
            for envelope in batch:
                number += 1
                payloads += frames(self.me, number, envelope)
            try:
                # one statement, its own transaction: a message's frames go together
                sending.run(
                    functools.partial(notify, channel=CHANNEL, payloads=payloads, unhurried=True),
                    again=False,
                )
            except Exception:  # the watchers elsewhere see the gap and start again
                log.warning("relay: %d messages not sent", len(batch), exc_info=True)
            if stop:
                return

    async def _keep(self) -> None:
        """Every heartbeat: the tables started or stopped here, the watchers
        still waiting, and what this process watches, said."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                self._turn()
            except Exception:
                log.warning("relay: a heartbeat failed", exc_info=True)

    def _turn(self) -> None:
        local = set(self.tables)
        gained, changed = local - self._local, local ^ self._local
        self._local = local
        if gained:
            self._announce({"k": "r", "tables": sorted(gained)})
        watchers = self.hub.watchers()
        for table_id in changed & set(watchers):
            self._source.pop(table_id, None)
            self._resync(table_id, watchers[table_id])
        waiting = {w.id: (t, w) for t, ws in watchers.items() for w in ws if not w.ready}
        again: dict[str, list[Subscriber]] = {}
        for key in waiting.keys() & self._waiting:  # waiting since the last turn: ask again
            table_id, w = waiting[key]
            again.setdefault(table_id, []).append(w)
        for table_id, ws in again.items():
            self._ask(table_id, ws)
        self._waiting = set(waiting)
        interest = {t: audiences(ws) for t, ws in watchers.items() if t not in local}
        if interest or self._announced:
            self._announce({"k": "w", "w": interest})
        self._announced = bool(interest)
        with self._lock:
            self._sum()
