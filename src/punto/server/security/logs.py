"""No secrets in the access log.

The server takes session tokens only from a header or the cookie
(:func:`punto.server.security.auth.token_from`), never from a URL.  A client may
still put one in a query string (an old script, a mistaken link), and the
access log writes every request's path and query (and uvicorn's error log
each WebSocket's): :class:`RedactQuery`
writes the values of the parameters in :data:`SECRET_PARAMS` as
``[redacted]`` instead, whatever the request was.
"""

from __future__ import annotations

import logging
import re

#: Query parameters whose values are never logged (names compared case-blind).
SECRET_PARAMS = ("token", "access_token", "session", "password", "key", "secret")
_NAMES = "|".join(SECRET_PARAMS)
_SECRET = re.compile(rf"(?P<name>(?:^|[?&;])(?:{_NAMES})=)[^&;#\s]*", re.IGNORECASE)
#: The loggers uvicorn writes request paths to: each request, and each
#: WebSocket handshake ("WebSocket /ws/...?..." [accepted]).
LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    """``text`` with the values of secret query parameters blanked.

    >>> redact("/ws/tables/tiger?token=abc&x=1")
    '/ws/tables/tiger?token=[redacted]&x=1'
    """
    return _SECRET.sub(r"\g<name>[redacted]", text)


class RedactQuery(logging.Filter):
    """Blank secret query values in a log record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def redact_access_log() -> None:
    """Put :class:`RedactQuery` on uvicorn's loggers (once each)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactQuery) for f in logger.filters):
            logger.addFilter(RedactQuery())
