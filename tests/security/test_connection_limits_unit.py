"""The connection limits below the application
(:class:`punto.server.security.connections.GuardedHttpTools`), with the protocol fed
bytes on a made-up transport: an address over its share is refused and
another address is not, the server's cap holds, the counts come back when a
connection ends or becomes a WebSocket, and slow headers and bodies are
answered 408.  No socket: fast enough for each mutant of
``benchmarks/mutation.py connections``.  The same through real sockets is
``test_connections.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from starlette.types import Receive, Scope, Send
from uvicorn.server import ServerState

from punto.server.http_errors import MAX_HEADERS
from punto.server.security.connections import (
    WS_MAX_SIZE,
    GuardedHttpTools,
    protocol,
    uvicorn_config,
)
from punto.server.security.limits import Limits


class Transport(asyncio.Transport):
    """A connection's transport that keeps what the server writes."""

    def __init__(self, peer: tuple[str, int] | None) -> None:
        super().__init__()
        self.peer = peer
        self.written = b""
        self.closed = False
        self.reading = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": self.peer, "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol

    def get_write_buffer_size(self) -> int:
        return 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        return None


async def _reads_the_body(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the whole body, then answers 200."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


App = Callable[[Scope, Receive, Send], Awaitable[None]]


class Server:
    """One server's state, and the connections made to it with ``limits``."""

    def __init__(self, limits: Limits, app: App = _reads_the_body) -> None:
        self.limits = limits
        self.state = ServerState()
        self.config = uvicorn_config(app, "127.0.0.1", 0, limits, log_level="critical")
        self.kind = protocol(limits)

    def open(self, address: str | None = "10.0.0.1") -> tuple[GuardedHttpTools, Transport]:
        made = self.kind(self.config, self.state, {}, _loop=asyncio.get_running_loop())
        transport = Transport(None if address is None else (address, 40000))
        made.connection_made(transport)
        return made, transport

    def held(self) -> dict[str, int]:
        return dict(getattr(self.state, "punto_per_address", {}))


def refused(transport: Transport, status: bytes) -> dict[str, Any]:
    """The error a refused connection was sent (its status line ``status``),
    the connection closed; the body's length the one the headers declare."""
    assert transport.closed
    head, _, body = transport.written.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 " + status), transport.written
    headers = {
        name.lower(): value.strip()
        for name, _, value in (line.partition(b":") for line in head.split(b"\r\n")[1:])
    }
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"connection"] == b"close"
    assert int(headers[b"content-length"]) == len(body)
    error: dict[str, Any] = json.loads(body)["error"]
    error["retry-after"] = headers.get(b"retry-after")
    return error


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())  # type: ignore[arg-type]


def test_an_address_over_its_share_is_refused_429_and_another_is_not() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, connections_per_address=2))
        first = [server.open("10.0.0.1") for _ in range(2)]
        assert not any(transport.closed for _, transport in first)
        _, third = server.open("10.0.0.1")
        error = refused(third, b"429")
        assert error["message"] == "10.0.0.1 holds 2 connections to this server already"
        assert error["type"] == "ConnectionLimitError"
        assert error["text"] == error["message"]
        assert error["retry-after"] == b"5"
        _, other = server.open("10.0.0.2")
        assert not other.closed
        assert other.written == b""
        assert server.held() == {"10.0.0.1": 2, "10.0.0.2": 1}
        # one of the first ends: the address may connect again, once
        first[0][0].connection_lost(None)
        assert server.held() == {"10.0.0.1": 1, "10.0.0.2": 1}
        _, again = server.open("10.0.0.1")
        assert not again.closed
        _, over = server.open("10.0.0.1")
        assert over.closed

    run(scenario)


def test_the_counts_come_back_to_nothing_when_every_connection_ends() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, connections_per_address=3))
        opened = [server.open(f"10.0.0.{i % 2}") for i in range(4)]
        for made, _ in opened:
            made.connection_lost(None)
        assert server.held() == {}
        # a refused connection that ends takes nothing from its address's count
        mine = [server.open("10.0.0.7") for _ in range(3)]
        extra, transport = server.open("10.0.0.7")
        assert transport.closed
        extra.connection_lost(None)
        assert server.held() == {"10.0.0.7": 3}
        for made, _ in mine:
            made.connection_lost(None)
        assert server.held() == {}

    run(scenario)


def test_a_trusted_proxys_connections_and_an_unknown_peer_are_not_held_to_a_share() -> None:
    async def scenario() -> None:
        limits = Limits(
            max_connections=40, connections_per_address=2, trusted_proxies=("10.0.0.5",)
        )
        server = Server(limits)
        for _ in range(4):
            _, transport = server.open("10.0.0.5")
            assert not transport.closed
        for _ in range(4):  # a Unix socket: no address to count
            _, transport = server.open(None)
            assert not transport.closed
        assert server.held() == {}
        _, _ = server.open("10.0.0.6")
        assert server.held() == {"10.0.0.6": 1}

    run(scenario)


def test_connections_over_the_servers_cap_are_refused_503() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=3, connections_per_address=10))
        opened = [server.open(f"10.0.0.{i}") for i in range(3)]
        assert not any(transport.closed for _, transport in opened)
        made, transport = server.open("10.0.0.9")
        error = refused(transport, b"503")
        assert error["message"] == "the server holds as many connections as it may"
        assert error["retry-after"] == b"1"
        assert "10.0.0.9" not in server.held()  # refused before being counted
        made.connection_lost(None)
        opened[0][0].connection_lost(None)
        _, transport = server.open("10.0.0.9")
        assert not transport.closed

    run(scenario)


def test_each_server_counts_its_own_connections() -> None:
    async def scenario() -> None:
        limits = Limits(max_connections=40, connections_per_address=1)
        one, two = Server(limits), Server(limits)
        _, first = one.open("10.0.0.1")
        _, second = two.open("10.0.0.1")
        assert not first.closed
        assert not second.closed
        assert one.held() == two.held() == {"10.0.0.1": 1}

    run(scenario)


UPGRADE = (
    b"GET /ws/tables/t1 HTTP/1.1\r\nHost: tables.example\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n\r\n"
)


def test_a_connection_that_becomes_a_websocket_leaves_the_address_count() -> None:
    """A WebSocket is held to the guard's own cap per address instead."""

    async def scenario() -> None:
        server = Server(Limits(max_connections=40, connections_per_address=2, body_seconds=0.05))
        (made, transport), _ = server.open("10.0.0.1"), server.open("10.0.0.1")
        made.data_received(UPGRADE)
        assert server.held() == {"10.0.0.1": 1}
        _, again = server.open("10.0.0.1")
        assert not again.closed
        # no body deadline on the socket: it is not closed as a slow body
        await asyncio.sleep(0.1)
        assert b"408" not in transport.written
        made.connection_lost(None)  # the old protocol's end counts nothing twice
        assert server.held() == {"10.0.0.1": 2}

    run(scenario)


GET = b"GET /api/health HTTP/1.1\r\nHost: tables.example\r\n\r\n"


def test_headers_that_do_not_arrive_in_time_are_answered_408() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, header_seconds=0.2))
        _, silent = server.open()
        made, partial = server.open("10.0.0.2")
        made.data_received(b"GET /api/health HTTP/1.1\r\nHost: tab")
        for _ in range(3):
            await asyncio.sleep(0)
        assert not silent.closed  # not before the deadline
        await asyncio.sleep(0.35)
        for transport in (silent, partial):
            error = refused(transport, b"408")
            assert error["message"] == "the request headers did not arrive within 0.2 seconds"
            assert error["retry-after"] is None

    run(scenario)


def test_headers_in_time_are_served_and_a_next_requests_headers_are_timed_again() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, header_seconds=0.05, keep_alive=5))
        made, transport = server.open()
        made.data_received(GET)
        await asyncio.sleep(0.1)
        assert transport.written.startswith(b"HTTP/1.1 200"), transport.written
        assert not transport.closed
        # the next request on the connection: its headers have their deadline
        served = len(transport.written)
        made.data_received(b"GET /api/health HT")
        await asyncio.sleep(0.1)
        refused_after = transport.written[served:]
        assert refused_after.startswith(b"HTTP/1.1 408"), refused_after
        assert transport.closed

    run(scenario)


def test_a_deadline_on_a_connection_already_closing_writes_nothing() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, header_seconds=0.05, body_seconds=0.05))
        _, transport = server.open()
        transport.closed = True
        made, slow_body = server.open("10.0.0.2")
        made.data_received(b"POST /api/bets HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        slow_body.closed = True
        await asyncio.sleep(0.15)
        assert transport.written == b""
        assert slow_body.written == b""

    run(scenario)


def test_a_lost_connection_leaves_no_deadline_behind() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, header_seconds=0.05, body_seconds=0.05))
        made, transport = server.open()
        made.connection_lost(ConnectionResetError())  # the transport is not closed for it
        other, body = server.open("10.0.0.2")
        other.data_received(b"POST /api/bets HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        other.connection_lost(ConnectionResetError())
        await asyncio.sleep(0.15)
        assert transport.written == b""
        assert not transport.closed
        assert b"408" not in body.written

    run(scenario)


POST = b"POST /api/bets HTTP/1.1\r\nHost: tables.example\r\nContent-Length: 10\r\n\r\n"


def test_a_body_that_does_not_arrive_in_time_is_answered_408() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, header_seconds=5.0, body_seconds=0.2))
        made, transport = server.open()
        made.data_received(POST + b"abc")
        for _ in range(3):
            await asyncio.sleep(0)
        assert not transport.closed  # not before the deadline
        await asyncio.sleep(0.35)
        error = refused(transport, b"408")
        assert error["type"] == "SlowBodyError"
        assert error["message"] == "the request body did not arrive within 0.2 seconds"
        assert error["hint"] == "send the whole body at once"
        assert error["status"] == 408

    run(scenario)


def test_a_body_in_time_is_served_without_a_408() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, header_seconds=0.05, body_seconds=0.05))
        made, transport = server.open()
        made.data_received(POST + b"0123456789")
        await asyncio.sleep(0.15)
        assert transport.written.startswith(b"HTTP/1.1 200"), transport.written
        assert b"408" not in transport.written
        assert not transport.closed

    run(scenario)


def test_a_body_the_server_stopped_reading_is_not_the_clients_delay() -> None:
    """The application is busy and has not asked for the body (uvicorn paused
    reading): the body's deadline waits for the server, not the client."""

    async def busy(scope: Scope, receive: Receive, send: Send) -> None:
        await asyncio.sleep(10)

    async def scenario() -> None:
        limits = Limits(max_connections=40, header_seconds=5.0, body_seconds=0.05)
        server = Server(limits, busy)
        made, transport = server.open()
        made.data_received(POST + b"abc")
        made.flow.pause_reading()
        await asyncio.sleep(0.15)
        assert not transport.closed
        assert transport.written == b""
        made.flow.resume_reading()
        await asyncio.sleep(0.1)  # its deadline again, from the last check
        assert refused(transport, b"408")["type"] == "SlowBodyError"

    run(scenario)


def test_a_slow_body_after_the_answer_began_closes_the_connection_only() -> None:
    """The application already answered: no second status line, the
    connection is closed and the application told the client left."""
    seen: list[dict[str, Any]] = []

    async def answers_first(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        seen.append(dict(await receive()))
        seen.append(dict(await receive()))

    async def scenario() -> None:
        limits = Limits(max_connections=40, header_seconds=5.0, body_seconds=0.05)
        server = Server(limits, answers_first)
        made, transport = server.open()
        made.data_received(POST + b"abc")
        await asyncio.sleep(0.15)
        assert transport.closed
        assert transport.written.count(b"HTTP/1.1") == 1
        assert b"408" not in transport.written

    run(scenario)


def test_the_servers_settings_follow_the_limits() -> None:
    limits = Limits(
        keep_alive=7,
        header_seconds=3.0,
        body_seconds=4.0,
        max_connections=99,
        concurrency=55,
        connections_per_address=9,
        trusted_proxies=("10.0.0.5",),
    )
    config = uvicorn_config(_reads_the_body, "0.0.0.0", 8123, limits)
    assert (config.host, config.port) == ("0.0.0.0", 8123)
    assert config.timeout_keep_alive == 7
    assert config.limit_concurrency == 55
    assert config.h11_max_incomplete_event_size == MAX_HEADERS
    assert config.ws_max_size == WS_MAX_SIZE == 64 * 1024
    assert config.timeout_graceful_shutdown == 5
    assert config.proxy_headers is True
    assert config.forwarded_allow_ips == ["10.0.0.5"]
    kind = config.http
    assert isinstance(kind, type)
    assert issubclass(kind, GuardedHttpTools)
    assert kind.__name__ == "GuardedHttpTools"  # as uvicorn's logs and tracebacks name it
    assert (kind.header_seconds, kind.body_seconds) == (3.0, 4.0)
    assert (kind.max_connections, kind.per_address) == (99, 9)
    assert len(kind.proxies) == 1
    plain = uvicorn_config(_reads_the_body, "127.0.0.1", 8123, Limits(), log_level="error")
    assert plain.proxy_headers is False  # no X-Forwarded-For believed from anyone
    assert plain.forwarded_allow_ips == []
    assert plain.log_level == "error"


@pytest.mark.parametrize("address", ["10.0.0.1", "::1"])
def test_the_default_share_is_a_quarter_of_the_cap(address: str) -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40))
        for _ in range(10):
            _, transport = server.open(address)
            assert not transport.closed
        _, transport = server.open(address)
        assert refused(transport, b"429")["message"].startswith(f"{address} holds 10 ")

    run(scenario)


def test_a_connection_that_was_answered_408_gives_its_place_back_when_it_ends() -> None:
    async def scenario() -> None:
        limits = Limits(
            max_connections=40, connections_per_address=2, header_seconds=0.05, body_seconds=0.05
        )
        server = Server(limits)
        slow_headers, _ = server.open()
        slow_body, body = server.open()
        slow_body.data_received(POST + b"abc")
        await asyncio.sleep(0.15)
        assert refused(body, b"408")["type"] == "SlowBodyError"
        slow_headers.connection_lost(None)
        slow_body.connection_lost(None)
        assert server.held() == {}

    run(scenario)


def test_a_served_connection_ends_cleanly_and_gives_its_place_back() -> None:
    async def scenario() -> None:
        server = Server(Limits(max_connections=40, connections_per_address=1, body_seconds=0.05))
        made, transport = server.open()
        made.data_received(POST + b"0123456789")
        await asyncio.sleep(0.02)
        assert transport.written.startswith(b"HTTP/1.1 200")
        made.connection_lost(None)
        assert server.held() == {}
        _, again = server.open()
        assert not again.closed

    run(scenario)


def test_a_websocket_after_a_request_on_the_same_connection_is_not_timed_as_a_body() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await _reads_the_body(scope, receive, send)
            return
        await receive()
        await send({"type": "websocket.accept"})
        await asyncio.sleep(10)  # a table watched

    async def scenario() -> None:
        limits = Limits(max_connections=40, header_seconds=5.0, body_seconds=0.05)
        server = Server(limits, app)
        made, transport = server.open()
        made.data_received(GET)
        await asyncio.sleep(0.02)
        assert transport.written.startswith(b"HTTP/1.1 200")
        made.data_received(UPGRADE)
        await asyncio.sleep(0.15)
        assert b"101 Switching Protocols" in transport.written
        assert not transport.closed

    run(scenario)
