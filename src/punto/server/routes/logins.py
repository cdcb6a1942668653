"""``POST /api/auth/login``, behind :class:`punto.server.security.login_guard.LoginGuard`
(the rate limits and the bound on password hashing that keep a login flood
from taking the server down; see that module)."""

from __future__ import annotations

import asyncio
import math
import random
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from punto.server.routes import errors
from punto.server.routes.models import LoginOut, documented
from punto.server.security.auth import COOKIE
from punto.store.accounts import (
    LoginFailedError,
    LoginLockedError,
    LoginThrottledError,
    PasswordPolicyError,
    Session,
    UserRole,
    normalize_username,
)
from punto.store.passwords import MAX_PASSWORD_LENGTH

if TYPE_CHECKING:
    from punto.server.services import Server

#: The longest password a login's body may carry (longer is refused before hashing
#: too, with the policy's message; this only bounds the request).
LONGEST_SENT = 4096

router = APIRouter(prefix="/api", responses=errors.RESPONSES)


class LoginIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=LONGEST_SENT)]


#: The device cookie set at login (OWASP's device cookies: :mod:`punto.store.lockout`).
DEVICE_COOKIE = "punto_device"
#: How long a browser stays known by its device cookie (seconds).
DEVICE_SECONDS = 90 * 24 * 3600


def client_of(request: Request) -> str:
    """The address a request comes from: the socket's peer, or the client a
    trusted proxy names (``punto serve --trusted-proxy``; uvicorn sets it)."""
    return request.client.host if request.client is not None else ""


def retry_after(error: LoginLockedError) -> str:
    seconds = (error.until - datetime.now(UTC)).total_seconds()
    return str(max(1, math.ceil(seconds)))


@router.post("/auth/login", tags=["accounts"], **documented(LoginOut))
async def login(body: LoginIn, request: Request) -> Response:
    """A password login; returns a session token (also set as an HttpOnly cookie).
    Five wrong passwords in a row from one address lock the name there for a
    while, longer each time (429); ten from addresses the name has not logged
    in from lock out every such address for a while, longer each time, but
    not the user's own address or browser (its device cookie, set here); too
    many failures from one address, or too many logins at once, are refused
    with 429 and ``Retry-After`` before the password is checked."""
    server: Server = request.app.state.server
    guard = server.logins
    name = normalize_username(body.username)
    client = client_of(request)
    try:
        guard.admit(name, client)
        if len(body.password) > MAX_PASSWORD_LENGTH:
            guard.failed(name, client)  # no password that long was ever set
            raise PasswordPolicyError(
                "that password is too long to be anyone's",
                hint=f"passwords have at most {MAX_PASSWORD_LENGTH} characters",
            )

        trusted = guard.known(name, client)
        device = request.cookies.get(DEVICE_COOKIE)

        def work() -> Session:
            try:
                return server.accounts.login(
                    body.username, body.password, client=client, trusted=trusted, device=device
                )
            except (LoginFailedError, LoginLockedError):
                guard.failed(name, client)
                raise

        session = await guard.hash(work)
    except LoginLockedError as error:
        if error.new:  # every lock in the audit log: who, whom, until when
            await asyncio.to_thread(
                server.audit.record,
                "login_locked",
                account=name,
                client=error.client,
                until=error.until.isoformat(),
            )
        if isinstance(error, LoginThrottledError):
            # held back (see login_guard.TARPIT), each for its own while: refusals sent together
            # come back together, and a burst of them would stall the loop at once
            await asyncio.sleep(guard.tarpit * random.uniform(0.5, 1.5))
        refusal = errors.punto_error_response(error)
        refusal.headers["Retry-After"] = retry_after(error)
        return refusal
    guard.succeeded(name, client)
    server.sessions.remember(session)
    if session.user.role is UserRole.PLAYER:  # their first bet then goes in flight
        await asyncio.to_thread(server.journal.prime, [f"player:{session.user.username}"])
    await asyncio.to_thread(server.audit.record, "login", user=session.user)
    answer = JSONResponse(
        {
            "token": session.token,
            "token_type": "bearer",
            "expires_at": session.expires_at.isoformat(),
            "user": {
                "id": session.user.id,
                "username": session.user.username,
                "role": session.user.role.value,
            },
        }
    )
    answer.set_cookie(
        COOKIE,
        session.token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=int(server.accounts.session_ttl.total_seconds()),
        path="/",
    )
    if session.device is not None:
        answer.set_cookie(
            DEVICE_COOKIE,
            session.device,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            max_age=DEVICE_SECONDS,
            path="/api/auth/login",
        )
    return answer
