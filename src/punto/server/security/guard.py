"""Requests from other sites, and too many sockets from one address (pure ASGI).

:class:`Guard` stands in front of everything the application answers
(``docs/security.md`` is the threat model; these are its controls for
"another site in the same browser" and for connection floods):

- **Cross-site requests.**  A request that changes something (any method
  but GET, HEAD and OPTIONS) and does not carry ``Authorization: Bearer``
  must come from this server's own origin: its ``Origin`` header, else its
  ``Referer``, names this server (the ``Host`` it was sent to, or an origin
  the operator trusts).  A browser sends ``Origin`` with every such request,
  so a page of another site -- another port of the same host is another
  origin, though the same *site* for ``SameSite`` cookies -- is refused with
  403 before anything runs.  A request that carries the session cookie must
  also say ``Content-Type: application/json`` (even with no body): a page of
  another origin cannot send that without a CORS preflight, which this
  server never grants, so a browser that sent no ``Origin`` is still held.
  A request with a Bearer token is not driven by the browser's cookie (a
  page cannot make a browser add the header to another origin's request),
  so it may come from anywhere; so may one that carries neither a token nor
  an origin (a program logging in).
- **WebSocket upgrades** whose ``Origin`` is another origin are refused
  (403) before the table's stream opens: a page of another site cannot read
  a player's balance or the staff stream with the victim's cookie.
- **WebSockets per client address** are capped: the next one is refused
  with 429 and ``Retry-After``.
- **Requests in progress per client address** are capped (a share of the
  server's ``--concurrency``): the next one is refused with 429 and
  ``Retry-After`` before anything reads it.  Of those, each address has a
  fair share running at once while others are present; the rest wait
  (:mod:`punto.server.security.fair_share`).
- **Hosts**: with ``--allowed-host`` given, a request or WebSocket whose
  ``Host`` is none of them is refused (400) before anything else: a page
  reached under another name (DNS rebinding, a made-up ``Host`` matching a
  made-up ``Origin``) gets nothing.  Without the option every ``Host`` is
  answered, as a server reached by its address must.

Idle connections, slow headers and slow bodies are timed out below the
application, by :mod:`punto.server.security.connections`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from punto.errors import PuntoError
from punto.server.http_errors import error_bytes
from punto.server.security.auth import COOKIE
from punto.server.security.fair_share import FairShare
from punto.server.security.limits import MAX_CONNECTIONS, WS_PER_CLIENT, share
from punto.store.accounts import PermissionDeniedError

#: Methods that change nothing (RFC 9110 safe methods).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Requests that do not act with the session cookie even when one is sent: a
#: login opens a new session (a page of another origin is still refused above).
NOT_BY_COOKIE = frozenset({"/api/auth/login"})
#: How the session cookie starts in a Cookie header.
_COOKIE = f"{COOKIE}=".encode()


class CrossSiteError(PermissionDeniedError):
    """A cookie-driven request or WebSocket from a page of another origin."""


class ContentTypeError(PuntoError):
    """A cookie-authenticated request that does not say it is JSON."""


class TooManySocketsError(PuntoError):
    """More WebSockets from one client address than the server allows."""


class TooManyRequestsError(PuntoError):
    """More requests in progress from one client address than the server allows."""


class HostNotAllowedError(PuntoError):
    """A request sent to a host name this server does not answer for."""


def host_name(host: str) -> str:
    """A ``Host`` header's name, lower-cased, without its port.

    >>> host_name("Tables.Example:8443"), host_name("[::1]:8000"), host_name("127.0.0.1")
    ('tables.example', '[::1]', '127.0.0.1')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host.partition("]")[0] + "]"
    return host.partition(":")[0]


def host_allowed(host: str, allowed: frozenset[str]) -> bool:
    """Whether ``host`` (a ``Host`` header) is one of ``allowed`` (names, or
    ``*.domain`` for any name under it); every host when none is given.

    >>> hosts = frozenset({"tables.example", "*.casino.example"})
    >>> [host_allowed(h, hosts) for h in ("tables.example:80", "pit.casino.example", "evil.example")]
    [True, True, False]
    """
    if not allowed:
        return True
    name = host_name(host)
    if name in allowed:
        return True
    return any(a.startswith("*.") and name.endswith(a[1:]) for a in allowed)


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL, lower-cased; None if it has none."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def _headers(scope: Scope) -> dict[bytes, bytes]:
    out: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", ()):
        if name in (b"origin", b"referer", b"host", b"authorization", b"cookie", b"content-type"):
            out.setdefault(name, value)
    return out


def own_origins(scope: Scope, headers: dict[bytes, bytes], trusted: frozenset[str]) -> set[str]:
    """The origins this request may come from: the server's own (the scheme it
    was served with and the ``Host`` it was sent to), and the trusted ones."""
    scheme = str(scope.get("scheme", "http"))
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    host = headers.get(b"host", b"").decode("latin-1").lower()
    own = set(trusted)
    if host:
        own.add(f"{scheme}://{host}")
        # the default port may be written or not
        default = {"http": ":80", "https": ":443"}.get(scheme)
        if default and host.endswith(default):
            own.add(f"{scheme}://{host.removesuffix(default)}")
    return own


def claimed_origin(headers: dict[bytes, bytes]) -> str | None:
    """Where the browser says the request comes from: ``Origin``, else the
    origin of ``Referer``; "null" (a sandboxed or opaque origin) stays "null"."""
    origin = headers.get(b"origin")
    if origin is not None:
        text = origin.decode("latin-1").strip().lower()
        return origin_of(text) or text
    referer = headers.get(b"referer")
    if referer is not None:
        return origin_of(referer.decode("latin-1")) or "null"
    return None


def _bearer(headers: dict[bytes, bytes]) -> bool:
    scheme, _, value = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    return scheme.lower() == "bearer" and bool(value.strip())


def _cookie(headers: dict[bytes, bytes]) -> bool:
    return _COOKIE in headers.get(b"cookie", b"")


def check_request(scope: Scope, trusted: frozenset[str] = frozenset()) -> PuntoError | None:
    """Why this HTTP request is refused as cross-site, or None (see the module)."""
    if scope.get("method", "GET") in SAFE_METHODS:
        return None
    headers = _headers(scope)
    if _bearer(headers):
        return None
    claimed = claimed_origin(headers)
    if claimed is not None and claimed not in own_origins(scope, headers, trusted):
        return CrossSiteError(
            f"a request from {claimed} may not act with this server's session cookie",
            hint="use this server's own pages, or send Authorization: Bearer with the token",
        )
    if not _cookie(headers) or scope.get("path") in NOT_BY_COOKIE:
        return None
    if claimed is None:
        return CrossSiteError(
            "a request made with the session cookie must say where it comes from "
            "(an Origin or Referer header), and this one says neither",
            hint="use this server's own pages, or send Authorization: Bearer with the token",
        )
    content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
    if content_type.split(";")[0].strip() != "application/json":
        return ContentTypeError(
            "a request made with the session cookie must be JSON "
            f"(Content-Type: application/json), not {content_type or 'without a content type'}",
            hint="send Content-Type: application/json, even with no body",
        )
    return None


def check_socket(scope: Scope, trusted: frozenset[str] = frozenset()) -> PuntoError | None:
    """Why this WebSocket upgrade is refused as cross-site, or None.

    A WebSocket is not subject to the same-origin policy, so the browser's
    ``Origin`` is the only sign of a page of another site using the cookie.
    A program (no ``Origin``) may connect, with a token or without.
    """
    headers = _headers(scope)
    origin = headers.get(b"origin")
    if origin is None:
        return None
    claimed = origin_of(origin.decode("latin-1")) or origin.decode("latin-1").strip().lower()
    if claimed in own_origins(scope, headers, trusted):
        return None
    return CrossSiteError(
        f"a WebSocket from a page of {claimed} may not watch this server's tables",
        hint="open the table from this server's own pages",
    )


async def _answer(
    send: Send, status: int, error: PuntoError, *, retry_after: bytes | None = None
) -> None:
    body = error_bytes(status, error)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", retry_after))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _deny_socket(
    scope: Scope, receive: Receive, send: Send, status: int, error: PuntoError
) -> None:
    """Refuse a WebSocket handshake with an HTTP status and a JSON body where
    the server can (the ASGI denial response), else a bare 403."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008, "reason": error.message[:120]})
        return
    body = error_bytes(status, error)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 429:
        headers.append((b"retry-after", b"5"))
    await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


class Guard:
    """Pure ASGI, just inside the outermost catch-all (see the module)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        trusted_origins: Iterable[str] = (),
        ws_per_client: int = WS_PER_CLIENT,
        requests_per_address: int = share(MAX_CONNECTIONS),
        allowed_hosts: Iterable[str] = (),
        fair_share: FairShare | None = None,
    ) -> None:
        self.app = app
        self.trusted = frozenset(o for o in (origin_of(t) for t in trusted_origins) if o)
        self.ws_per_client = ws_per_client
        self.requests_per_address = requests_per_address
        self.allowed_hosts = frozenset(host_name(h) for h in allowed_hosts if h.strip())
        self.sockets: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.fair = fair_share or FairShare()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self._host_allowed(scope):
            error = HostNotAllowedError(
                "this server does not answer for that host name",
                hint="use the server's own address (punto serve --allowed-host)",
            )
            if scope["type"] == "http":
                await _answer(send, 400, error)
            else:
                await _deny_socket(scope, receive, send, 400, error)
        elif scope["type"] == "websocket":
            await self._socket(scope, receive, send)
        elif scope["type"] == "http":
            await self._request(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _host_allowed(self, scope: Scope) -> bool:
        if not self.allowed_hosts:
            return True
        host = _headers(scope).get(b"host", b"").decode("latin-1")
        return host_allowed(host, self.allowed_hosts)

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = check_request(scope, self.trusted)
        if refusal is not None:
            status = 415 if isinstance(refusal, ContentTypeError) else 403
            await _answer(send, status, refusal)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "?"
        if self.requests[address] >= self.requests_per_address:
            error = TooManyRequestsError(
                f"{address} has {self.requests_per_address} requests in progress already",
                hint="wait for the answers before sending more",
            )
            await _answer(send, 429, error, retry_after=b"1")
            return
        self.requests[address] += 1
        try:
            async with self.fair.turn(address):
                await self.app(scope, receive, send)
        finally:
            self.requests[address] -= 1
            if self.requests[address] <= 0:
                del self.requests[address]

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = check_socket(scope, self.trusted)
        if refusal is not None:
            await _deny_socket(scope, receive, send, 403, refusal)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "?"
        if self.sockets[address] >= self.ws_per_client:
            error = TooManySocketsError(
                f"{address} already holds {self.ws_per_client} WebSockets to this server",
                hint="close one (a page you no longer watch) and connect again",
            )
            await _deny_socket(scope, receive, send, 429, error)
            return
        self.sockets[address] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.sockets[address] -= 1
            if self.sockets[address] <= 0:
                del self.sockets[address]
