"""Connection limits and timeouts for ``punto serve`` (below the application).

Left to itself, uvicorn keeps a connection that never sends a request (or
sends half its headers and stops) open for ever; with a modest
file-descriptor limit a few hundred such sockets made every new request
fail.  :class:`Limits` is what ``punto serve`` sets, with flags:

- ``keep_alive``: an idle connection between requests is closed after this
  many seconds (uvicorn's ``timeout_keep_alive``);
- ``header_seconds``: a request's headers must arrive whole within this
  many seconds of the connection opening (or of the first byte of a next
  request on it), else the server answers 408 and closes it
  (:class:`GuardedHttpTools`; uvicorn has no such setting);
- ``body_seconds``: the request body within this many seconds of its
  headers, else 408 and the connection is closed (:class:`GuardedHttpTools`:
  a timer per request here costs a fraction of one in the application);
- ``max_connections``: more open connections than this (WebSockets
  included) and a new one is answered 503 and closed at once, so the
  process keeps file descriptors for its database and its own files; by
  default well under the process's descriptor limit;
- ``address_connections``: open connections one client address may hold
  (a WebSocket counts against ``ws_per_client`` instead, once upgraded): past
  it a new connection from that address is answered 429 and closed at once,
  before any byte of it is read, so that one address cannot take every slot
  and starve the rest (4,300 slow sockets from one address once did);
  a trusted proxy's connections are not held to it (they are its clients');
- ``concurrency``: requests in progress at once before uvicorn answers 503
  (``limit_concurrency``); ``address_requests``, one client address's share
  of them (:class:`punto.server.security.guard.Guard`);
- ``trusted_proxies``: the only peers whose ``X-Forwarded-For`` is read
  (uvicorn's ``proxy_headers``, which by default believes any loopback
  peer: off unless proxies are given); ``Forwarded`` is never read;
- ``ws_per_client``: WebSockets one client address may hold
  (:class:`punto.server.security.guard.Guard`);
- the largest WebSocket message (``ws_max_size``) and request headers
  (:data:`punto.server.http_errors.MAX_HEADERS`, and h11's own bound where h11
  is used) are fixed.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from punto.errors import PuntoError
from punto.server.http_errors import MAX_HEADERS, error_bytes
from punto.server.security.limits import (
    BODY_SECONDS,
    HEADER_SECONDS,
    MAX_CONNECTIONS,
    Limits,
    is_proxy,
    proxy_networks,
    share,
)

#: The largest WebSocket message a page may send (bytes).
WS_MAX_SIZE = 64 * 1024

_408 = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
)
_429 = (
    b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
    b"retry-after: 5\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s"
)
_503 = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"retry-after: 1\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s"
)


class SlowBodyError(PuntoError):
    """A request body that did not arrive in time."""


def _answer(template: bytes, message: str) -> bytes:
    error = {"type": "ConnectionLimitError", "message": message, "text": message}
    body = json.dumps({"error": error}).encode()
    return template % (len(body), body)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol, with deadlines on request headers and
    bodies and a cap on open connections (see the module)."""

    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    max_connections: int = MAX_CONNECTIONS
    per_address: int = share(MAX_CONNECTIONS)
    proxies: tuple[Any, ...] = ()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._address: str | None = None  # counted against its address's share
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            transport.write(_answer(_503, "the server holds as many connections as it may"))
            transport.close()
            return
        address = self.client[0] if self.client else None
        if address is not None and not is_proxy(address, self.proxies):
            held = _held(self.server_state)
            if held[address] >= self.per_address:
                message = f"{address} holds {self.per_address} connections to this server already"
                transport.write(_answer(_429, message))
                transport.close()
                return
            held[address] += 1
            self._address = address
        self._arm()

    def handle_websocket_upgrade(self) -> None:
        # A WebSocket is held to the Guard's cap per address from here on.
        self._release()
        super().handle_websocket_upgrade()

    def _release(self) -> None:
        address, self._address = self._address, None
        if address is not None:
            held = _held(self.server_state)
            held[address] -= 1
            if held[address] <= 0:
                del held[address]

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not before:  # a request (not a WebSocket upgrade): its body is timed
            self._body_timer = self.loop.call_later(self.body_seconds, self._body_late)

    def on_message_complete(self) -> None:
        self._disarm_body()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        self._release()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._header_timer = self.loop.call_later(self.header_seconds, self._headers_late)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _disarm_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_late(self) -> None:
        self._body_timer = None
        if self.transport.is_closing():
            return
        if self.flow.read_paused:
            # The server stopped reading (a full buffer, a request before this
            # one still answering): the delay is not the client's.
            self._body_timer = self.loop.call_later(self.body_seconds, self._body_late)
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            error = SlowBodyError(
                f"the request body did not arrive within {self.body_seconds:g} seconds",
                hint="send the whole body at once",
            )
            body = error_bytes(408, error)
            self.transport.write(_408 % (len(body), body))
        # The application, waiting for the rest of the body, is told the client left.
        self.transport.close()

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        message = f"the request headers did not arrive within {self.header_seconds:g} seconds"
        self.transport.write(_answer(_408, message))
        self.transport.close()


def _held(state: Any) -> Counter[str]:
    """The connections open from each client address, kept with the server's
    own state (its set of connections), so that each server counts its own."""
    held: Counter[str] | None = getattr(state, "punto_per_address", None)
    if held is None:
        held = Counter()
        state.punto_per_address = held
    return held


def protocol(limits: Limits) -> type[GuardedHttpTools]:
    """:class:`GuardedHttpTools` with ``limits``' deadlines and caps."""
    return type(
        "GuardedHttpTools",
        (GuardedHttpTools,),
        {
            "header_seconds": limits.header_seconds,
            "body_seconds": limits.body_seconds,
            "max_connections": limits.max_connections,
            "per_address": limits.address_connections,
            "proxies": proxy_networks(limits.trusted_proxies),
        },
    )


def uvicorn_config(
    app: Any, host: str, port: int, limits: Limits, **options: Any
) -> uvicorn.Config:
    """The uvicorn settings ``punto serve`` runs ``app`` with (tests use the same)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol(limits),
        timeout_keep_alive=limits.keep_alive,
        limit_concurrency=limits.concurrency,
        h11_max_incomplete_event_size=MAX_HEADERS,
        ws_max_size=WS_MAX_SIZE,
        timeout_graceful_shutdown=5,
        # uvicorn believes X-Forwarded-For from loopback by default: from nobody
        # here unless proxies are given (docs/security.md, "Client address").
        proxy_headers=bool(limits.trusted_proxies),
        forwarded_allow_ips=list(limits.trusted_proxies),
        **options,
    )
