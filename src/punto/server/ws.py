"""``/ws/tables/{id}``: the table's events pushed to a page.

On connecting, the page gets a ``state`` snapshot (with ``me`` for a
logged-in player, ``staff`` for the dealer and above) and the ``scoreboard``;
then, as they happen: ``betting_open`` (with the deadline), ``bet_totals``,
``betting_closed``, ``card`` (each card, the hand it went to, the totals),
``results``, ``round_void``, ``power_failure``, ``withdrawal_offered`` /
``withdrawal_closed``, ``scoreboard`` (roads JSON), a fresh ``state`` after
every action, ``me`` (the player's bets and balance) to that player alone,
and ``event`` (each engine event) and ``staff`` to the staff.

Who is watching: the session cookie (the pages) or ``Authorization: Bearer``
on the handshake; a client that can set neither sends ``{"type": "auth",
"token": "..."}`` as its first message, and gets a fresh ``state`` (and from
then on ``me`` or ``staff``) as that user, or ``{"type": "error", ...}`` if
the token is no good (it keeps watching as before).  Never a token in the
URL: URLs are written to access logs.  A page may send ``{"type": "ping"}``;
the answer is ``{"type": "pong"}``.

Refusals: an unknown (or stopped) table is accepted and closed at once with
code 4404 and the reason; a handshake from a page of another origin is
refused with HTTP 403, and one over the cap of WebSockets per client address
with HTTP 429 (:mod:`punto.server.guard`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from punto.errors import PuntoError
from punto.server.app import Server
from punto.server.auth import MAX_TOKEN, is_staff, optional_user
from punto.server.hub import Subscriber
from punto.store.accounts import User, UserRole

router = APIRouter()

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


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    server: Server = websocket.app.state.server
    user = await asyncio.to_thread(optional_user, server.accounts, websocket, server.sessions)
    try:
        runtime = server.table(table_id)
    except PuntoError as error:
        await refuse(websocket, error)
        return
    await websocket.accept()

    def watch(who: User | None) -> tuple[Subscriber, Opening]:
        staff = is_staff(who)
        player = who.username if who is not None and who.role is UserRole.PLAYER else None
        subscriber = server.hub.subscribe(table_id, player, staff)

        async def opening() -> list[dict[str, Any]]:
            state = await asyncio.to_thread(runtime.state, player, staff=staff)
            if who is not None:
                state["user"] = {"id": who.id, "username": who.username, "role": who.role.value}
            board = await asyncio.to_thread(lambda: dict(runtime.snapshot().scoreboard))
            return [state, {"type": "scoreboard", "scoreboard": board}]

        return subscriber, opening

    async def reauth(token: str) -> tuple[Subscriber, Opening]:
        who = await asyncio.to_thread(server.sessions.authenticate, server.accounts, token)
        return watch(who)

    subscriber, opening = watch(user)
    await stream(websocket, server, subscriber, opening, reauth)


async def stream(
    websocket: WebSocket,
    server: Server,
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
            server.hub.unsubscribe(subscriber)
            subscriber = fresh
            for first in await opening():
                await websocket.send_json(first)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        server.hub.unsubscribe(subscriber)
        with contextlib.suppress(Exception):
            await websocket.close()


def _error(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}}


async def _pump(websocket: WebSocket, subscriber: Subscriber) -> str | None:
    """Forward the subscriber's messages until the page goes away or the hub
    ends it (None), or the page sends a token to watch as (the token)."""
    reader = asyncio.create_task(_read(websocket))
    try:
        while True:
            getter = asyncio.create_task(subscriber.queue.get())
            done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
            if reader in done:
                getter.cancel()
                return reader.result()
            message = getter.result()
            if message is None:
                return None
            await websocket.send_json(message)
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
