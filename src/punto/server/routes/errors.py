"""Errors as HTTP answers, and the guard against oversized requests.

Every refusal is JSON: ``{"error": {"type", "message", "clause", "hint",
"text"}}``, with the engine's own message and clause, and a 4xx status that
says what kind of refusal it is.  A request body over the limit is refused
with 413 before the application reads it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from punto.errors import (
    ActionError,
    BettingClosedError,
    CardError,
    DealError,
    DeckCountError,
    GameDataError,
    LimitError,
    PhaseError,
    PuntoError,
    RoleError,
    ShoeError,
    UnknownGameError,
    WagerError,
)
from punto.server.cluster.ownership import TableElsewhereError
from punto.server.http_errors import (
    MAX_BODY,
    MAX_HEADERS,
    error_body,
    has_nul,
    punto_error_body,
    replaying,
)
from punto.server.json_response import JSONText
from punto.server.tables.config import ConfigError, UnknownTableError
from punto.server.tables.runtime import (
    BetNotFoundError,
    IdempotencyKeyError,
    RoundNotFoundError,
    TableStoppedError,
)
from punto.store.accounts import (
    AccountDisabledError,
    AuthError,
    LoginLockedError,
    PasswordPolicyError,
    PermissionDeniedError,
    UnknownUserError,
    UserExistsError,
    UsernameError,
)
from punto.store.bounds import MoneyBoundError
from punto.store.errors import StoreError
from punto.store.ledger import (
    IdempotencyConflictError,
    InsufficientFundsError,
    LedgerError,
    UnknownWalletError,
)
from punto.store.shifts import ShiftError

log = logging.getLogger("punto.server")

#: Most specific first: the first class an error is an instance of decides.
STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (LoginLockedError, 429),
    (AccountDisabledError, 403),
    (PermissionDeniedError, 403),
    (AuthError, 401),
    (RoleError, 403),
    (UnknownTableError, 404),
    (UnknownGameError, 404),
    (UnknownUserError, 404),
    (UnknownWalletError, 404),
    (BetNotFoundError, 404),
    (RoundNotFoundError, 404),
    (InsufficientFundsError, 402),
    (MoneyBoundError, 422),
    (IdempotencyKeyError, 409),
    (IdempotencyConflictError, 409),
    (UserExistsError, 409),
    (TableStoppedError, 503),
    (TableElsewhereError, 503),
    (BettingClosedError, 409),
    (PhaseError, 409),
    (LimitError, 422),
    (CardError, 422),
    (DealError, 422),
    (DeckCountError, 422),
    (WagerError, 422),
    (ConfigError, 422),
    (UsernameError, 422),
    (PasswordPolicyError, 422),
    (ShoeError, 409),
    (ActionError, 409),
    (LedgerError, 409),
    (GameDataError, 422),
    (ShiftError, 409),
    (StoreError, 503),
)


class ErrorDetail(BaseModel):
    """What was refused and why (``until``: when a locked login opens again)."""

    model_config = ConfigDict(extra="allow")

    type: str
    message: str
    clause: str | None = None
    hint: str | None = None
    text: str


class ErrorResponse(BaseModel):
    """Every refusal and failure: ``{"error": {...}}``."""

    error: ErrorDetail


#: Documented on every operation: any status but the success one is an error body.
RESPONSES: dict[int | str, dict[str, Any]] = {
    "default": {
        "model": ErrorResponse,
        "description": "A refusal (4xx: what was wrong, the clause, what to do) or a "
        "failure (5xx), always as this JSON body",
    }
}


def status_of(error: BaseException) -> int:
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 400


def punto_error_response(error: PuntoError) -> JSONText:
    status = status_of(error)
    body = punto_error_body(error)
    headers = {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="punto"'
    if isinstance(error, LoginLockedError):
        body["error"]["until"] = error.until.isoformat()
    if isinstance(error, TableElsewhereError):
        headers["Retry-After"] = str(error.retry_after)
    return JSONText(body, status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """The exception handlers."""

    @app.exception_handler(PuntoError)
    async def punto_error(_request: Request, error: PuntoError) -> JSONResponse:
        return punto_error_response(error)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors():
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
            problems.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
        message = "the request is not valid: " + "; ".join(problems[:5])
        return JSONResponse(
            error_body(
                "RequestValidationError",
                message,
                hint="send a JSON object with the fields this endpoint takes (see /docs)",
            ),
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        detail = error.detail if isinstance(error.detail, str) else json.dumps(error.detail)
        if error.status_code == 400 and detail == "There was an error parsing the body":
            # Not UTF-8, or nested deeper than a JSON parser will go.
            body = error_body(
                "MalformedBody",
                "the request body cannot be read as JSON (not UTF-8, or nested too deeply)",
                hint="send a JSON object encoded as UTF-8",
            )
        else:
            body = error_body("HTTPError", detail)
        return JSONResponse(
            body, status_code=error.status_code, headers=getattr(error, "headers", None)
        )


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, headers over
    :data:`MAX_HEADERS` with 431, and requests holding a NUL character with
    400 (pure ASGI).

    The body is read here first, at most ``limit`` bytes of it, and handed
    to the application whole; a client that declares or sends more gets 413
    and the application never sees the request.
    """

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = None
        header_bytes = 0
        for name, value in scope.get("headers", ()):
            header_bytes += len(name) + len(value) + 4
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await self._refuse(send, 400, "the Content-Length header is not a number")
                    return
        if header_bytes > MAX_HEADERS:
            await self._refuse(send, 431, f"the request headers are over {MAX_HEADERS} bytes")
            return
        if declared is not None and declared > self.limit:
            await self._refuse(send, 413, f"the request body is over {self.limit} bytes")
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send, 413, f"the request body is over {self.limit} bytes")
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if has_nul(scope, body):
            await self._refuse(send, 400, "the request holds a NUL character (\\u0000)")
            return
        scope["punto.body"] = body  # read once: the fast lane takes it from here
        await self.app(scope, replaying(body, receive), send)

    @staticmethod
    async def _refuse(send: Send, status: int, message: str) -> None:
        body = json.dumps(
            error_body(
                "RequestTooLarge" if status in (413, 431) else "BadRequest",
                message,
                hint="send a smaller request"
                if status in (413, 431)
                else "remove it and send again",
            )
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def unexpected_response(error: BaseException) -> tuple[int, dict[str, Any]]:
    """The answer to an error no handler knew: 503 if the database is
    unreachable (try again), else 500."""
    if isinstance(error, OperationalError | DisconnectionError) or (
        isinstance(error, DBAPIError) and error.connection_invalidated
    ):
        return 503, error_body(
            "DatabaseUnavailable",
            "the database did not answer",
            hint="try again in a moment; a retried bet with its Idempotency-Key is never placed twice",
        )
    return 500, error_body("InternalError", "the server failed to handle this request")


class CatchAll:
    """The last line (pure ASGI, outermost): an exception no handler took
    becomes a JSON 500 (or 503) and is logged once; the connection stays usable."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as error:
            if started:  # half an answer went out: nothing to do but drop the connection
                raise
            log.exception("unexpected error in %s %s", scope.get("method"), scope.get("path"))
            status, data = unexpected_response(error)
            body = json.dumps(data).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
            if status == 503:
                headers.append((b"retry-after", b"1"))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
