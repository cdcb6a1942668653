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
from typing import Any

from fastapi import APIRouter, WebSocket

from punto.errors import PuntoError
from punto.server.auth import is_staff, optional_user
from punto.server.hub import Subscriber
from punto.server.services import Server
from punto.server.streams import Opening, refuse, stream
from punto.store.accounts import User, UserRole

router = APIRouter()


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
    await stream(websocket, server.hub, subscriber, opening, reauth)
