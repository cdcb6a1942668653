"""A fast lane for the request that matters most under load: a player's bet.

``POST /api/tables/{table_id}/bets`` from a player whose session was checked
lately, with a JSON body that parses, at a running table, is answered here,
a thin layer of plain ASGI in front of the application -- the same checks,
the same :meth:`TableRuntime.place_bet_async`, the same answers (status,
body, errors) as the route in :mod:`punto.server.routes.bets`, without the router
and the dependency machinery that cost more than the bet itself.  Anything
else -- no session or one not seen lately, another role, an unknown table, a
body that does not parse -- goes on to the application untouched, so every
refusal of the route stays exactly what it was (and what the OpenAPI
description says).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from punto.errors import PuntoError
from punto.server.http_errors import replaying
from punto.server.routes.bets import take_bet
from punto.server.routes.common import BetIn
from punto.server.routes.errors import punto_error_response
from punto.server.security.auth import FORWARDED_IDENTITY, Identity, token_in
from punto.store.accounts import User, UserRole

_BETS = re.compile(r"/api/tables/([^/]+)/bets")


class FastLane:
    """Pure ASGI: bets taken here, everything else passed on (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        match = _BETS.fullmatch(scope["path"])
        if match is None:
            await self.app(scope, receive, send)
            return
        body = scope.get("punto.body")
        if body is None:
            body, receive = await _read(receive)
        answer = await self._bet(scope, match.group(1), body)
        if answer is None:
            await self.app(scope, receive, send)
            return
        await answer(scope, receive, send)

    @staticmethod
    async def _bet(scope: Scope, table_id: str, body: bytes) -> JSONResponse | None:
        server = getattr(getattr(scope.get("app"), "state", None), "server", None)
        if server is None:
            return None
        headers = _headers(scope)
        content_type = headers.get("content-type", "")
        if not content_type.startswith("application/json"):
            return None
        user = _user(server, scope, headers)
        if user is None or user.role is not UserRole.PLAYER:
            return None
        runtime = server.tables.get(table_id)
        key = headers.get("idempotency-key")
        if runtime is None or (key is not None and len(key) > 200):
            return None
        try:  # as the route reads it: json, then the model (so the same bodies pass)
            bet = BetIn.model_validate(json.loads(body))
        except (ValidationError, ValueError, RecursionError):
            return None
        try:
            return await take_bet(runtime, user, bet, key)
        except PuntoError as error:
            return punto_error_response(error)


async def _read(receive: Receive) -> tuple[bytes, Receive]:
    """The whole body, and a ``receive`` that gives it again to whoever comes next."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    return body, replaying(body, receive)


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        text = name.decode("latin-1")
        if text in ("authorization", "cookie", "content-type", "idempotency-key"):
            out[text] = value.decode("latin-1")
    return out


def _user(server: Any, scope: Scope, headers: dict[str, str]) -> User | None:
    """The user of the request's session if it was checked lately, else None
    (the route then asks): by the token in its headers, or by the identity a
    forwarded request carries (:func:`punto.server.security.auth.session_digest`)."""
    identity = scope.get(FORWARDED_IDENTITY)
    if isinstance(identity, Identity):
        user = server.sessions.peek_digest(identity.session) if identity.session else None
        if user is not None and (identity.account != user.id or identity.role != user.role.value):
            return None  # the route refuses it, saying why
        return user
    token = token_in(headers.get("authorization", ""), cookie_parser(headers.get("cookie", "")))
    return server.sessions.peek(token) if token else None
