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

Watchers on any process: on PostgreSQL a table is run by one server process
(its lease), and a socket for it may be opened on any of them; one opened
on another process gets the same messages in the same order, relayed
through the database (:mod:`punto.server.cluster.relay`), and keeps its connection
when another process takes the table over (it gets a fresh ``state``).

Refusals: an unknown (or stopped) table is accepted and closed at once with
code 4404 and the reason; a handshake from a page of another origin is
refused with HTTP 403, and one over the cap of WebSockets per client address
with HTTP 429 (:mod:`punto.server.security.guard`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, WebSocket

from punto.errors import PuntoError
from punto.server.cluster.ownership import TableElsewhereError
from punto.server.cluster.relay import table_opening
from punto.server.routes.streams import Opening, refuse, stream
from punto.server.security.auth import is_staff, optional_user
from punto.server.services import Server
from punto.server.tables.config import UnknownTableError
from punto.server.tables.hub import Subscriber
from punto.server.tables.runtime import TableRuntime
from punto.store.accounts import User, UserRole

router = APIRouter()


async def _nothing() -> list[dict[str, Any]]:
    return []  # the opening comes from the process that runs the table


def _active(server: Server, table_id: str) -> bool:
    return server.store.exists(table_id) and server.store.get(table_id).active


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    server: Server = websocket.app.state.server
    user = await asyncio.to_thread(optional_user, server.accounts, websocket, server.sessions)
    beyond = server.hub.beyond  # the other processes (PostgreSQL), or None
    runtime: TableRuntime | None = server.tables.get(table_id)
    if runtime is None:
        try:
            runtime = await asyncio.to_thread(server.table, table_id)
        except TableElsewhereError as error:  # another process runs it
            if beyond is None:
                await refuse(websocket, error)
                return
        except UnknownTableError as error:  # or none does yet (a take-over to come)
            if beyond is None or not await asyncio.to_thread(_active, server, table_id):
                await refuse(websocket, error)
                return
        except PuntoError as error:
            await refuse(websocket, error)
            return
    await websocket.accept()

    def watch(who: User | None) -> tuple[Subscriber, Opening]:
        staff = is_staff(who)
        player = who.username if who is not None and who.role is UserRole.PLAYER else None
        me = (
            None
            if who is None
            else {"id": who.id, "username": who.username, "role": who.role.value}
        )
        here = server.tables.get(table_id) or (runtime if beyond is None else None)
        if here is None:
            assert beyond is not None
            subscriber = server.hub.subscribe(
                table_id, player, staff, watcher=True, ready=False, user=me
            )
            beyond.watch(subscriber)
            return subscriber, _nothing
        subscriber = server.hub.subscribe(table_id, player, staff, watcher=True, user=me)

        async def opening() -> list[dict[str, Any]]:
            return await asyncio.to_thread(table_opening, here, player, staff, me)

        return subscriber, opening

    async def reauth(token: str) -> tuple[Subscriber, Opening]:
        who = await asyncio.to_thread(server.sessions.authenticate, server.accounts, token)
        return watch(who)

    subscriber, opening = watch(user)
    await stream(websocket, server.hub, subscriber, opening, reauth)
