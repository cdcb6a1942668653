"""What the tournaments' routes take from a request: the app's
:class:`~punto.server.tournaments.service.Tournaments` and the user (the
``Idempotency-Key`` header is :data:`punto.server.routes.idempotency.IdempotencyKey`)."""

from __future__ import annotations

import threading

from fastapi import FastAPI, Request, WebSocket

from punto.server.security.auth import authenticate
from punto.server.services import Server
from punto.server.tournaments.service import Tournaments
from punto.store.accounts import User


def service(request: Request | WebSocket) -> Tournaments:
    """The app's tournaments (opened when the app starts, or on first use)."""
    return service_of(request.app)


def service_of(app: FastAPI) -> Tournaments:
    state = app.state
    found: Tournaments | None = getattr(state, "tournaments", None)
    if found is None:
        lock: threading.Lock = state.tournaments_lock
        with lock:
            found = getattr(state, "tournaments", None)
            if found is None:
                server: Server = state.server
                found = Tournaments(
                    server.engine,
                    hub=server.hub,
                    ledger=server.ledger,
                    accounts=server.accounts,
                    journal=server.journal,
                )
                state.tournaments = found
    return found


def user_of(request: Request) -> User:
    """Who sends the request (refused if nobody is logged in)."""
    server: Server = request.app.state.server
    return authenticate(server.accounts, request, server.sessions)
