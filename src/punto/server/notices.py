"""PostgreSQL notices between server processes: one ``LISTEN`` connection per
process (:class:`Notices`), and messages of any length sent as notices
(:func:`frames`, :class:`Frames`).

A notice's payload must be shorter than 8,000 bytes; a longer message is cut
into frames, all sent in one transaction, and put together again on the
other side.  PostgreSQL delivers the notices of one transaction together,
and those of one sender's transactions in the order they committed.

Channels are a database's, but a deployment is a schema: a channel's name
carries its schema's mark (:data:`SCOPE`), so that two deployments in one
database -- two casinos, or staging beside production -- never hear each
other's requests, answers or watchers' messages.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import ColumnElement, func, literal, literal_column, text
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger("punto.server.notices")

#: The longest text in one frame (characters; frames are ASCII: bytes too),
#: under PostgreSQL's 8,000-byte payload with room for the frame's header.
FRAME = 7000
#: How long the listener waits for a notice before looking at its stop flag.
WAIT_SECONDS = 0.5
#: Messages being put together at once, at most (a sender that died half-way
#: through a transaction cannot have sent part of one: this bounds the rest).
PARTS_KEPT = 256

#: The mark of the connection's schema, which a channel's name ends with.
SCOPE = "left(md5(coalesce(current_schema(), '')), 16)"
# One statement for any number of notices, sent in the payloads' order (a
# volatile function is evaluated after the sort): a statement a notice cost
# more than the notices themselves.
_EACH = f"pg_notify(:c || '_' || {SCOPE}, p)"
_PAYLOADS = "FROM unnest(CAST(:ps AS text[])) WITH ORDINALITY AS notices(p, n) ORDER BY n"
_NOTIFY = text(f"SELECT {_EACH} {_PAYLOADS}")
_UNHURRIED = text("SET LOCAL synchronous_commit TO OFF")
#: The setting a transaction commits under is the one in effect at its commit:
#: set with the last statement, it saves a round trip of its own.
UNHURRIED_TOO = func.set_config("synchronous_commit", "off", True)
_NOTIFY_UNHURRIED = text(
    f"SELECT {_EACH}, set_config('synchronous_commit', 'off', true) {_PAYLOADS}"
)


def notifying(channel: str, payload: ColumnElement[str]) -> ColumnElement[Any]:
    """``pg_notify`` of ``payload`` on ``channel`` (of the connection's schema), as
    a column of a statement: notices sent by the statement that makes them."""
    return func.pg_notify(literal(channel) + "_" + literal_column(SCOPE), payload)


def unhurried(conn: Connection) -> None:
    """Commit ``conn``'s transaction without waiting for its flush to disk: for
    what a crash may lose because someone retries it (a message to watchers,
    a forwarded request or its answer), never for money or events."""
    conn.execute(_UNHURRIED)


def frames(sender: str, number: int, message: str) -> list[str]:
    """``message`` (ASCII) as the payloads of one or more notices: each
    ``"<sender> <number> <i> <count> <part>"``."""
    parts = [message[i : i + FRAME] for i in range(0, len(message), FRAME)] or [""]
    return [f"{sender} {number} {i} {len(parts)} {part}" for i, part in enumerate(parts)]


def notify(conn: Connection, channel: str, payloads: list[str], *, unhurried: bool = False) -> None:
    """Send ``payloads`` on ``channel`` (of ``conn``'s schema) when ``conn``'s
    transaction commits; with ``unhurried``, commit it as :func:`unhurried`
    does (in the same statement)."""
    if payloads:
        statement = _NOTIFY_UNHURRIED if unhurried else _NOTIFY
        conn.execute(statement, {"c": channel, "ps": payloads})
    elif unhurried:
        conn.execute(_UNHURRIED)


class Frames:
    """Frames put together again, by sender and number (one listener thread)."""

    def __init__(self) -> None:
        self._parts: OrderedDict[tuple[str, str], list[str | None]] = OrderedDict()

    def feed(self, payload: str) -> tuple[str, str] | None:
        """The sender and the whole message once ``payload`` completes it, else None
        (a payload that is no frame is dropped)."""
        try:
            sender, number, index, count, part = payload.split(" ", 4)
            i, n = int(index), int(count)
        except ValueError:
            return None
        if not 0 <= i < n:
            return None
        if n == 1:
            return sender, part
        key = (sender, number)
        parts = self._parts.get(key)
        if parts is None:
            parts = self._parts[key] = [None] * n
            while len(self._parts) > PARTS_KEPT:
                self._parts.popitem(last=False)
        if len(parts) != n:
            return None
        parts[i] = part
        if any(p is None for p in parts):
            return None
        del self._parts[key]
        return sender, "".join(p for p in parts if p is not None)

    def clear(self) -> None:
        self._parts.clear()


class Notices:
    """The process's one ``LISTEN`` connection, in a thread of its own: each
    notice is handed to its channel's handler (in that thread; a handler
    hands work on, it does not wait).  After each (re)connection the
    ``connected`` callbacks run: notices sent while it was away are lost."""

    def __init__(self) -> None:
        self._handlers: dict[str, Callable[[str], None]] = {}
        self._connected: list[Callable[[], None]] = []
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def listen(self, channel: str, handler: Callable[[str], None]) -> None:
        """Call ``handler(payload)`` for each notice on ``channel`` of the
        engine's schema (before :meth:`start`)."""
        self._handlers[channel] = handler

    def on_connect(self, callback: Callable[[], None]) -> None:
        self._connected.append(callback)

    def start(self, engine: Engine) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._listen, args=(engine,), name="punto-notices", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _listen(self, engine: Engine) -> None:
        while not self._stopping.is_set():
            try:
                raw = engine.raw_connection()
                try:
                    pg: Any = raw.driver_connection
                    pg.autocommit = True
                    (scope,) = pg.execute(f"SELECT {SCOPE}").fetchone()
                    handlers = {f"{c}_{scope}": h for c, h in self._handlers.items()}
                    for channel in handlers:
                        pg.execute(f"LISTEN {channel}")
                    for callback in self._connected:
                        callback()
                    while not self._stopping.is_set():
                        for notice in pg.notifies(timeout=WAIT_SECONDS):
                            handler = handlers.get(notice.channel)
                            if handler is None:
                                continue
                            try:
                                handler(notice.payload)
                            except Exception:  # one notice lost, not the connection
                                log.exception("notices: a %s notice failed", notice.channel)
                finally:
                    raw.invalidate()  # never back to the pool: it listens
            except Exception:
                if self._stopping.is_set():
                    return
                log.warning("notices: listening failed; again shortly", exc_info=True)
                self._stopping.wait(WAIT_SECONDS)
