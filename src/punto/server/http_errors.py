"""An error as the body of an HTTP answer, and a request body read ahead:
what every layer of the server writes or reads below the routes (the ASGI
guards, the forwarding of requests) as the routes do (:mod:`punto.server.routes.errors`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import Message, Receive, Scope

from punto.errors import PuntoError

#: The largest request body accepted (bytes).
MAX_BODY = 64 * 1024
#: The most header bytes a request may carry (names and values).
MAX_HEADERS = 32 * 1024


def error_body(
    error_type: str,
    message: str,
    *,
    clause: str | None = None,
    hint: str | None = None,
    text: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "error": {
            "type": error_type,
            "message": message,
            "clause": clause,
            "hint": hint,
            "text": text or message,
            **extra,
        }
    }


def punto_error_body(error: PuntoError) -> dict[str, Any]:
    """The error body of ``error``: its type, message, clause and hint."""
    return error_body(
        type(error).__name__, error.message, clause=error.clause, hint=error.hint, text=str(error)
    )


def error_bytes(status: int, error: PuntoError) -> bytes:
    """``error``'s body with its HTTP ``status``, as JSON (for answers written
    below FastAPI: the ASGI guard, the HTTP protocol)."""
    data = punto_error_body(error)
    data["error"]["status"] = status
    return json.dumps(data).encode()


#: A JSON ``\u0000`` escape (not an escaped backslash followed by "u0000").
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def has_nul(scope: Scope, body: bytes = b"") -> bool:
    """Whether the request's path, query or JSON body holds a NUL character
    (PostgreSQL cannot store one in text, and no name, key or card has one)."""
    query: bytes = scope.get("query_string", b"")
    return (
        "\x00" in scope.get("path", "")
        or b"%00" in query
        or b"\x00" in query
        or (b"\\u0000" in body and _JSON_NUL.search(body) is not None)
    )


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` (already read) once, then whatever
    ``receive`` gives next (a disconnect, say), for the application behind."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
