"""A WebSocket stream of a hub's messages to a page: shared by the tables'
sockets (:mod:`punto.server.routes.ws`) and the tournaments'.

A stream opens with its snapshot messages, then forwards each message the
hub has for its subscriber; it answers ``{"type": "ping"}`` with ``pong``, and
an ``{"type": "auth", "token": ...}`` message switches it to that user's
subscription where the socket allows it.  A socket to something that is not
there is accepted, then closed with :data:`NOT_FOUND` and the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from punto.errors import PuntoError
from punto.server.security.auth import MAX_TOKEN
from punto.server.tables.hub import Hub, Subscriber

#: The largest message a page may send (bytes).
MAX_INCOMING = 4096


#: The close code of a WebSocket to a table (or tournament) that is not there.
NOT_FOUND = 4404

#: The messages a stream opens with, and the subscription they go with.
Opening = Callable[[], Awaitable[list[dict[str, Any]]]]
#: Who a token is, and the fresh subscription and opening for them (first-message auth).
Reauth = Callable[[str], Awaitable[tuple[Subscriber, Opening]]]


async def refuse(websocket: WebSocket, error: PuntoError) -> None:
    """Close a WebSocket whose table is not there with :data:`NOT_FOUND` and the
    reason -- after accepting it: a close before the handshake is answered
    with a bare HTTP 403, which says nothing a page can show."""
    await websocket.accept()
    await websocket.close(code=NOT_FOUND, reason=str(error)[:120])


async def stream(
    websocket: WebSocket,
    hub: Hub,
    subscriber: Subscriber,
    opening: Opening,
    reauth: Reauth | None = None,
) -> None:
    """Send ``opening()``'s messages, then each message for ``subscriber`` as it
    comes, until the page goes away or the hub ends the subscription; then
    unsubscribe and close, whatever happened.  An ``auth`` message switches
    to ``reauth(token)``'s subscription (where there is one)."""
    try:
        for first in await opening():
            await websocket.send_json(first)
        while True:
            token = await _pump(websocket, subscriber)
            if token is None:
                break
            if reauth is None:
                await websocket.send_json(_error("AuthError", "this stream is the same for all"))
                continue
            try:
                fresh, opening = await reauth(token)
            except PuntoError as error:
                await websocket.send_json(_error(type(error).__name__, str(error)))
                continue
            hub.unsubscribe(subscriber)
            subscriber = fresh
            for first in await opening():
                await websocket.send_json(first)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.unsubscribe(subscriber)
        with contextlib.suppress(Exception):
            await websocket.close()


def _error(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}}


async def _pump(websocket: WebSocket, subscriber: Subscriber) -> str | None:
    """Forward the subscriber's messages until the page goes away or the hub
    ends it (None), or the page sends a token to watch as (the token)."""
    reader = asyncio.create_task(_read(websocket))
    queue = subscriber.queue
    try:
        while True:
            if queue.empty():  # wait for the next message (or the page)
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if reader in done:
                    getter.cancel()
                    return reader.result()
                text = getter.result()
            elif reader.done():
                return reader.result()
            else:  # messages waiting: no task and no wait for each
                text = queue.get_nowait()
            if text is None:
                return None
            await websocket.send_text(text)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader


async def _read(websocket: WebSocket) -> str | None:
    """Answer pings; return a token the page sends to watch as, or None when the
    page goes away or sends nonsense."""
    while True:
        try:
            text = await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError, KeyError):
            return None
        if len(text) > MAX_INCOMING:
            await websocket.close(code=1009, reason="message too big")
            return None
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if message.get("type") == "ping":
            await websocket.send_json({"type": "pong"})
        elif message.get("type") == "auth":
            token = message.get("token")
            if isinstance(token, str) and token:
                return token[:MAX_TOKEN]
            await websocket.send_json(
                _error("SessionInvalidError", "the auth message has no token")
            )
