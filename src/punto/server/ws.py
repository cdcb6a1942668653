"""``/ws/tables/{id}``: the table's events pushed to a page.

On connecting, the page gets a ``state`` snapshot (with ``me`` for a
logged-in player, ``staff`` for the dealer and above) and the ``scoreboard``;
then, as they happen: ``betting_open`` (with the deadline), ``bet_totals``,
``betting_closed``, ``card`` (each card, the hand it went to, the totals),
``results``, ``round_void``, ``power_failure``, ``withdrawal_offered`` /
``withdrawal_closed``, ``scoreboard`` (roads JSON), a fresh ``state`` after
every action, ``me`` (the player's bets and balance) to that player alone,
and ``event`` (each engine event) and ``staff`` to the staff.  The session
token comes from the cookie, ``Authorization: Bearer``, or ``?token=``.
A page may send ``{"type": "ping"}``; the answer is ``{"type": "pong"}``.
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
from punto.server.auth import is_staff, optional_user
from punto.server.hub import Subscriber
from punto.store.accounts import UserRole

router = APIRouter()

#: The largest message a page may send (bytes).
MAX_INCOMING = 4096


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    server: Server = websocket.app.state.server
    user = await asyncio.to_thread(optional_user, server.accounts, websocket, server.sessions)
    try:
        runtime = server.table(table_id)
    except PuntoError as error:
        await websocket.close(code=4404, reason=str(error)[:120])
        return
    await websocket.accept()
    staff = is_staff(user)
    player = user.username if user is not None and user.role is UserRole.PLAYER else None
    subscriber = server.hub.subscribe(table_id, player, staff)

    async def opening() -> list[dict[str, Any]]:
        state = await asyncio.to_thread(runtime.state, player, staff=staff)
        if user is not None:
            state["user"] = {"id": user.id, "username": user.username, "role": user.role.value}
        board = await asyncio.to_thread(lambda: runtime.scoreboard.to_dict())
        return [state, {"type": "scoreboard", "scoreboard": board}]

    await stream(websocket, server, subscriber, opening)


async def stream(
    websocket: WebSocket,
    server: Server,
    subscriber: Subscriber,
    opening: Callable[[], Awaitable[list[dict[str, Any]]]],
) -> None:
    """Send ``opening()``'s messages, then each message for ``subscriber`` as it
    comes, until the page goes away or the hub ends the subscription; then
    unsubscribe and close, whatever happened."""
    try:
        for first in await opening():
            await websocket.send_json(first)
        reader = asyncio.create_task(_read(websocket))
        try:
            while True:
                getter = asyncio.create_task(subscriber.queue.get())
                done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if reader in done:
                    getter.cancel()
                    break
                message = getter.result()
                if message is None:
                    break
                await websocket.send_json(message)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        server.hub.unsubscribe(subscriber)
        with contextlib.suppress(Exception):
            await websocket.close()


async def _read(websocket: WebSocket) -> None:
    """Answer pings; return when the page goes away or sends nonsense."""
    while True:
        try:
            text = await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError, KeyError):
            return
        if len(text) > MAX_INCOMING:
            await websocket.close(code=1009, reason="message too big")
            return
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("type") == "ping":
            await websocket.send_json({"type": "pong"})
