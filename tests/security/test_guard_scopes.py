"""The cross-site, host and per-address guard (:class:`punto.server.security.guard.Guard`),
called as ASGI with made-up scopes: what a page of another site, a made-up
``Host`` or a flooding address gets, and that the server's own pages and
programs still get through.  No server, no socket: fast enough to run for
each mutant of ``benchmarks/mutation.py guard``.  The same attacks through a
real client are in ``test_csrf.py`` and ``test_proxies_and_hosts.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from punto.server.security.fair_share import FairShare
from punto.server.security.guard import Guard, host_allowed, host_name, origin_of
from punto.server.security.limits import WS_PER_CLIENT, share

#: The hints of the refusals, as the client reads them.
BEARER_HINT = "use this server's own pages, or send Authorization: Bearer with the token"
JSON_HINT = "send Content-Type: application/json, even with no body"

#: The server's own origin as a browser writes it, and a page on another port.
HOST = b"tables.example"
OWN = b"http://tables.example"
EVIL = b"http://tables.example:8081"
COOKIE = b"punto_session=abc"


def http(
    method: str = "POST",
    headers: Iterable[tuple[bytes, bytes]] = (),
    *,
    path: str = "/api/tables/t1/round/open",
    client: tuple[str, int] | None = ("10.0.0.1", 4000),
    scheme: str | None = "http",
    host: bytes | None = HOST,
) -> Scope:
    """An HTTP scope as uvicorn hands it over."""
    scope: Scope = {"type": "http", "method": method, "path": path, "headers": []}
    if host is not None:
        scope["headers"].append((b"host", host))
    scope["headers"].extend(headers)
    if scheme is not None:
        scope["scheme"] = scheme
    if client is not None:
        scope["client"] = client
    return scope


def socket(
    headers: Iterable[tuple[bytes, bytes]] = (),
    *,
    client: tuple[str, int] | None = ("10.0.0.1", 4000),
    scheme: str = "ws",
    host: bytes = HOST,
    denial: bool = True,
) -> Scope:
    """A WebSocket upgrade's scope; ``denial``: the server can answer it with
    an HTTP status (the ASGI denial-response extension)."""
    scope: Scope = {
        "type": "websocket",
        "path": "/ws/tables/t1",
        "scheme": scheme,
        "headers": [(b"host", host), *headers],
        "extensions": {"websocket.http.response": {}} if denial else {},
    }
    if client is not None:
        scope["client"] = client
    return scope


async def _ok(scope: Scope, receive: Receive, send: Send) -> None:
    """The application behind the guard: answers 200 (or accepts the socket)."""
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        return
    request = await receive()  # the body, as the application reads it
    assert request["type"] == "http.request"
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"served"})


async def call(guard: Guard, scope: Scope, first: Message | None = None) -> list[Message]:
    """The messages ``guard`` sends for ``scope`` (the client's first message:
    ``first``, by default the request's body or the socket's connect)."""
    if first is None:
        first = (
            {"type": "websocket.connect"}
            if scope["type"] == "websocket"
            else {"type": "http.request", "body": b""}
        )
    sent: list[Message] = []

    async def receive() -> Message:
        return first

    async def send(message: Message) -> None:
        sent.append(message)

    await guard(scope, receive, send)
    return sent


def answer(guard: Guard, scope: Scope, first: Message | None = None) -> list[Message]:
    return asyncio.run(call(guard, scope, first))


def refusal(sent: list[Message]) -> tuple[int, dict[str, Any], dict[bytes, bytes]]:
    """A refusal's status, its error (the JSON body's) and its headers; the
    body's length is the one the headers declare."""
    start, body = sent
    assert start["type"] in ("http.response.start", "websocket.http.response.start")
    assert body["type"] in ("http.response.body", "websocket.http.response.body")
    headers = dict(start["headers"])
    assert headers[b"content-type"] == b"application/json"
    assert int(headers[b"content-length"]) == len(body["body"])
    error: dict[str, Any] = json.loads(body["body"])["error"]
    assert error["status"] == start["status"]
    return start["status"], error, headers


def served(sent: list[Message]) -> bool:
    """Whether the application answered (200, or the socket accepted)."""
    if sent == [{"type": "websocket.accept"}]:
        return True
    return bool(sent) and sent[0].get("status") == 200


# -- cross-site requests ------------------------------------------------------------


def test_a_cookie_post_from_another_port_is_refused_403_naming_the_origin() -> None:
    sent = answer(
        Guard(_ok),
        http(headers=[(b"origin", EVIL), (b"cookie", COOKIE), (b"content-type", b"text/plain")]),
    )
    status, error, headers = refusal(sent)
    assert status == 403
    assert error["type"] == "CrossSiteError"
    assert error["message"] == (
        "a request from http://tables.example:8081 may not act with this server's session cookie"
    )
    assert error["hint"] == BEARER_HINT
    assert b"retry-after" not in headers


def test_every_changing_method_from_another_origin_is_refused_and_reads_are_not() -> None:
    guard = Guard(_ok)
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        sent = answer(guard, http(method, [(b"origin", EVIL), (b"cookie", COOKIE)]))
        assert refusal(sent)[0] == 403, method
    for method in ("GET", "HEAD", "OPTIONS"):
        assert served(answer(guard, http(method, [(b"origin", EVIL), (b"cookie", COOKIE)])))
    # an HTTP scope without a method is a GET (the ASGI default)
    scope = http(headers=[(b"origin", EVIL), (b"cookie", COOKIE)])
    del scope["method"]
    assert served(answer(guard, scope))


def test_the_referer_speaks_when_there_is_no_origin() -> None:
    guard = Guard(_ok)
    evil = answer(guard, http(headers=[(b"referer", EVIL + b"/attack.html"), (b"cookie", COOKIE)]))
    status, error, _ = refusal(evil)
    assert status == 403
    assert "http://tables.example:8081" in error["message"]
    own = http(
        headers=[
            (b"referer", OWN + b"/dealer.html"),
            (b"cookie", COOKIE),
            (b"content-type", b"application/json"),
        ]
    )
    assert served(answer(guard, own))
    # a Referer that is no URL (no scheme) is an opaque origin: refused
    opaque = answer(guard, http(headers=[(b"referer", b"/dealer.html"), (b"cookie", COOKIE)]))
    status, error, _ = refusal(opaque)
    assert status == 403
    assert error["message"].startswith("a request from null may not act")


def test_a_null_origin_is_refused_even_without_the_cookie() -> None:
    """A sandboxed page says ``Origin: null``: it is not this server."""
    status, error, _ = refusal(answer(Guard(_ok), http(headers=[(b"origin", b"null")])))
    assert status == 403
    assert "null" in error["message"]
    upper = answer(Guard(_ok), http(headers=[(b"origin", b"  NULL ")]))
    assert "a request from null may" in refusal(upper)[1]["message"]


def test_the_origin_is_compared_without_case_and_without_the_default_port() -> None:
    guard = Guard(_ok)
    json_cookie = [(b"cookie", COOKIE), (b"content-type", b"application/json")]
    for origin, host, scheme in [
        (b"HTTP://Tables.Example", b"tables.example", "http"),
        (b"http://tables.example", b"Tables.EXAMPLE", "http"),
        (b" http://tables.example ", b"tables.example", "http"),
        (b"http://tables.example", b"tables.example:80", "http"),
        (b"https://tables.example", b"tables.example:443", "https"),
        (b"https://tables.example:443", b"tables.example:443", "https"),
    ]:
        scope = http(headers=[(b"origin", origin), *json_cookie], host=host, scheme=scheme)
        assert served(answer(guard, scope)), (origin, host, scheme)
    # another scheme, or the default port of the other scheme, is another origin
    for origin, host, scheme in [
        (b"https://tables.example", b"tables.example", "http"),
        (b"http://tables.example", b"tables.example", "https"),
        (b"http://tables.example", b"tables.example:443", "https"),
        (b"https://tables.example", b"tables.example:80", "http"),
        (b"http://tables.example:80", b"tables.example:8080", "http"),
    ]:
        scope = http(headers=[(b"origin", origin), *json_cookie], host=host, scheme=scheme)
        assert refusal(answer(guard, scope))[0] == 403, (origin, host, scheme)
    # a scope that says no scheme was served over plain HTTP
    plain = http(headers=[(b"origin", OWN), *json_cookie], scheme=None)
    assert served(answer(guard, plain))
    secure = http(headers=[(b"origin", b"https://tables.example"), *json_cookie], scheme=None)
    assert refusal(answer(guard, secure))[0] == 403


def test_without_a_host_header_only_a_trusted_origin_is_own() -> None:
    scope = http(headers=[(b"origin", OWN), (b"cookie", COOKIE)], host=None)
    assert refusal(answer(Guard(_ok), scope))[0] == 403
    trusted = Guard(_ok, trusted_origins=["http://tables.example"])
    scope = http(
        headers=[(b"origin", OWN), (b"cookie", COOKIE), (b"content-type", b"application/json")],
        host=None,
    )
    assert served(answer(trusted, scope))


def test_an_origin_the_operator_trusts_may_act_with_the_cookie() -> None:
    """``--trusted-origin`` is written as a URL, in any case, with a path or
    not; what is not an origin is dropped, not trusted."""
    guard = Guard(
        _ok, trusted_origins=["HTTPS://Pit.Example/console", "  ", "not an origin", "/relative"]
    )
    assert guard.trusted == frozenset({"https://pit.example"})
    headers = [
        (b"origin", b"https://pit.example"),
        (b"cookie", COOKIE),
        (b"content-type", b"application/json"),
    ]
    assert served(answer(guard, http(headers=headers)))
    assert refusal(answer(Guard(_ok), http(headers=headers)))[0] == 403


def test_a_bearer_token_may_act_from_anywhere_and_an_empty_one_may_not() -> None:
    guard = Guard(_ok)
    for token in (b"Bearer some-token", b"bearer some-token", b"BEARER  some-token"):
        assert served(answer(guard, http(headers=[(b"origin", EVIL), (b"authorization", token)])))
    for token in (b"Bearer ", b"Bearer", b"Basic some-token", b"some-token", b"Bearer \t "):
        scope = http(headers=[(b"origin", EVIL), (b"cookie", COOKIE), (b"authorization", token)])
        assert refusal(answer(guard, scope))[0] == 403, token


def test_a_cookie_request_that_says_no_origin_is_refused_and_a_program_is_not() -> None:
    guard = Guard(_ok)
    scope = http(headers=[(b"cookie", COOKIE), (b"content-type", b"application/json")])
    status, error, _ = refusal(answer(guard, scope))
    assert status == 403
    assert error["type"] == "CrossSiteError"
    assert error["message"] == (
        "a request made with the session cookie must say where it comes from "
        "(an Origin or Referer header), and this one says neither"
    )
    assert error["hint"] == BEARER_HINT
    # no cookie, no token, no origin: a program logging in
    assert served(answer(guard, http(headers=[(b"content-type", b"text/plain")])))
    # another cookie of the same host is not the session's
    other = http(headers=[(b"cookie", b"theme=dark"), (b"content-type", b"text/plain")])
    assert served(answer(guard, other))
    # the session cookie among others is
    among = http(headers=[(b"cookie", b"theme=dark; punto_session=abc")])
    assert refusal(answer(guard, among))[0] == 403


def test_a_cookie_request_from_its_own_origin_must_say_json() -> None:
    guard = Guard(_ok)
    for content_type in (b"text/plain", b"application/x-www-form-urlencoded", b"json"):
        scope = http(
            headers=[(b"origin", OWN), (b"cookie", COOKIE), (b"content-type", content_type)]
        )
        status, error, _ = refusal(answer(guard, scope))
        assert status == 415, content_type
        assert error["type"] == "ContentTypeError"
        assert error["message"] == (
            "a request made with the session cookie must be JSON "
            f"(Content-Type: application/json), not {content_type.decode()}"
        )
        assert error["hint"] == JSON_HINT
    status, error, _ = refusal(answer(guard, http(headers=[(b"origin", OWN), (b"cookie", COOKIE)])))
    assert status == 415
    assert error["message"].endswith("(Content-Type: application/json), not without a content type")
    for content_type in (
        b"application/json",
        b"Application/JSON; charset=utf-8",
        b" application/json ;",
    ):
        scope = http(
            headers=[(b"origin", OWN), (b"cookie", COOKIE), (b"content-type", content_type)]
        )
        assert served(answer(guard, scope)), content_type


def test_a_login_from_the_own_origin_needs_no_json_and_from_another_is_refused() -> None:
    guard = Guard(_ok)
    login = "/api/auth/login"
    own = http(headers=[(b"origin", OWN), (b"cookie", COOKIE)], path=login)
    assert served(answer(guard, own))
    bare = http(headers=[(b"cookie", COOKIE)], path=login)
    assert served(answer(guard, bare))
    evil = http(headers=[(b"origin", EVIL), (b"cookie", COOKIE)], path=login)
    assert refusal(answer(guard, evil))[0] == 403
    # another path with the same cookie is held
    assert refusal(answer(guard, http(headers=[(b"origin", OWN), (b"cookie", COOKIE)])))[0] == 415


def test_the_first_of_repeated_headers_is_the_one_judged() -> None:
    """A request that says Origin twice is judged by the first, as the
    server's own pages are read: a page cannot hide behind a second one."""
    guard = Guard(_ok)
    scope = http(headers=[(b"origin", EVIL), (b"origin", OWN), (b"cookie", COOKIE)])
    assert refusal(answer(guard, scope))[0] == 403
    scope = http(
        headers=[
            (b"origin", OWN),
            (b"origin", EVIL),
            (b"cookie", COOKIE),
            (b"content-type", b"application/json"),
            (b"content-type", b"text/plain"),
        ]
    )
    assert served(answer(guard, scope))


# -- WebSockets ---------------------------------------------------------------------


def test_a_websocket_from_another_origin_is_refused_403_before_it_opens() -> None:
    opened: list[Scope] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        opened.append(scope)
        await _ok(scope, receive, send)

    sent = answer(Guard(app), socket([(b"origin", EVIL), (b"cookie", COOKIE)]))
    status, error, headers = refusal(sent)
    assert status == 403
    assert error["type"] == "CrossSiteError"
    assert error["message"] == (
        "a WebSocket from a page of http://tables.example:8081 may not watch this server's tables"
    )
    assert error["hint"] == "open the table from this server's own pages"
    assert b"retry-after" not in headers
    assert not opened


def test_a_websocket_from_its_own_origin_or_a_program_opens() -> None:
    guard = Guard(_ok)
    assert served(answer(guard, socket([(b"origin", OWN)])))
    assert served(answer(guard, socket([(b"origin", b"HTTP://TABLES.example")])))
    assert served(answer(guard, socket([(b"origin", b"https://tables.example")], scheme="wss")))
    assert served(answer(guard, socket()))  # no Origin: a program
    # ws is http's, wss https's: the other scheme is another origin
    crossed = socket([(b"origin", b"https://tables.example")], scheme="ws")
    assert refusal(answer(guard, crossed))[0] == 403
    crossed = socket([(b"origin", b"http://tables.example")], scheme="wss")
    assert refusal(answer(guard, crossed))[0] == 403
    null = answer(guard, socket([(b"origin", b" Null ")]))
    assert "a page of null may" in refusal(null)[1]["message"]
    trusted = Guard(_ok, trusted_origins=["http://pit.example"])
    assert served(answer(trusted, socket([(b"origin", b"http://pit.example")])))


def test_a_websocket_refused_without_the_denial_extension_is_closed_1008() -> None:
    sent = answer(Guard(_ok), socket([(b"origin", EVIL)], denial=False))
    assert len(sent) == 1
    assert sent[0]["type"] == "websocket.close"
    assert sent[0]["code"] == 1008
    assert "http://tables.example:8081" in sent[0]["reason"]
    assert len(sent[0]["reason"]) <= 120
    long = b"http://" + b"a" * 200 + b".example"
    sent = answer(Guard(_ok), socket([(b"origin", long)], denial=False))
    assert len(sent[0]["reason"]) == 120


def test_a_websocket_that_goes_away_before_connecting_gets_nothing() -> None:
    sent = answer(Guard(_ok), socket([(b"origin", EVIL)]), {"type": "websocket.disconnect"})
    assert sent == []


def _held(release: asyncio.Event) -> Any:
    """An application that holds each request or socket until ``release``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            await release.wait()
            return
        await receive()
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    return app


def test_websockets_per_address_are_capped_and_come_back_when_closed() -> None:
    release = asyncio.Event()
    guard = Guard(_held(release), ws_per_client=2)

    async def scenario() -> None:
        held = [asyncio.create_task(call(guard, socket())) for _ in range(2)]
        await asyncio.sleep(0.01)
        assert guard.sockets["10.0.0.1"] == 2
        status, error, headers = refusal(await call(guard, socket()))
        assert status == 429
        assert error["type"] == "TooManySocketsError"
        assert error["message"] == "10.0.0.1 already holds 2 WebSockets to this server"
        assert error["hint"] == "close one (a page you no longer watch) and connect again"
        assert headers[b"retry-after"] == b"5"
        # another address is not held by the first one's sockets
        other = asyncio.create_task(call(guard, socket(client=("10.0.0.2", 1))))
        await asyncio.sleep(0.01)
        assert guard.sockets["10.0.0.2"] == 1
        release.set()
        for task in [*held, other]:
            assert await task == [{"type": "websocket.accept"}]
        assert not guard.sockets  # every count released
        # an address without a client (a Unix socket) is counted as "?"
        release.clear()
        unknown = asyncio.create_task(call(guard, socket(client=None)))
        await asyncio.sleep(0.01)
        assert dict(guard.sockets) == {"?": 1}
        release.set()
        await unknown
        assert not guard.sockets

    asyncio.run(scenario())


def test_a_refused_websocket_without_the_extension_is_closed_with_the_reason() -> None:
    release = asyncio.Event()
    guard = Guard(_held(release), ws_per_client=1)

    async def scenario() -> None:
        held = asyncio.create_task(call(guard, socket(denial=False)))
        await asyncio.sleep(0.01)
        sent = await call(guard, socket(denial=False))
        assert sent[0]["type"] == "websocket.close"
        assert sent[0]["code"] == 1008
        assert "10.0.0.1 already holds 1 WebSockets" in sent[0]["reason"]
        release.set()
        await held

    asyncio.run(scenario())


def test_a_socket_that_fails_releases_its_count() -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("the table's stream failed")

    guard = Guard(broken, ws_per_client=1, requests_per_address=1)
    for scope in (socket(), http("GET")):
        with pytest.raises(RuntimeError):
            answer(guard, scope)
    assert not guard.sockets
    assert not guard.requests
    # and the address may connect again
    guard.app = _ok
    assert served(answer(guard, socket()))
    assert served(answer(guard, http("GET")))


def test_the_default_caps_are_the_servers_limits() -> None:
    guard = Guard(_ok)
    assert guard.ws_per_client == WS_PER_CLIENT == 50
    assert guard.requests_per_address == share(4096)
    assert not guard.allowed_hosts
    assert guard.trusted == frozenset()


# -- requests per address -----------------------------------------------------------


def test_requests_in_progress_per_address_are_capped_and_released() -> None:
    release = asyncio.Event()
    guard = Guard(_held(release), requests_per_address=2)

    async def scenario() -> None:
        held = [asyncio.create_task(call(guard, http("GET"))) for _ in range(2)]
        await asyncio.sleep(0.01)
        status, error, headers = refusal(await call(guard, http("GET")))
        assert status == 429
        assert error["type"] == "TooManyRequestsError"
        assert error["message"] == "10.0.0.1 has 2 requests in progress already"
        assert error["hint"] == "wait for the answers before sending more"
        assert headers[b"retry-after"] == b"1"
        other = asyncio.create_task(call(guard, http("GET", client=("10.0.0.2", 1))))
        nobody = asyncio.create_task(call(guard, http("GET", client=None)))
        await asyncio.sleep(0.01)
        assert dict(guard.requests) == {"10.0.0.1": 2, "10.0.0.2": 1, "?": 1}
        release.set()
        for task in [*held, other, nobody]:
            assert (await task)[0]["status"] == 200
        assert not guard.requests

    asyncio.run(scenario())


def test_a_cross_site_refusal_takes_no_place() -> None:
    guard = Guard(_ok, requests_per_address=1)
    assert refusal(answer(guard, http(headers=[(b"origin", EVIL), (b"cookie", COOKIE)])))[0] == 403
    assert not guard.requests
    assert served(answer(guard, http("GET")))


# -- hosts --------------------------------------------------------------------------


def test_a_request_to_a_host_not_allowed_is_refused_400_before_anything() -> None:
    seen: list[Scope] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope)
        await _ok(scope, receive, send)

    guard = Guard(app, allowed_hosts=["Tables.Example", " ", "*.casino.example"])
    assert guard.allowed_hosts == frozenset({"tables.example", "*.casino.example"})
    status, error, headers = refusal(answer(guard, http("GET", host=b"evil.example")))
    assert status == 400
    assert error["type"] == "HostNotAllowedError"
    assert error["message"] == "this server does not answer for that host name"
    assert error["hint"] == "use the server's own address (punto serve --allowed-host)"
    assert b"retry-after" not in headers
    status, error, _ = refusal(answer(guard, socket(host=b"evil.example")))
    assert status == 400
    assert error["type"] == "HostNotAllowedError"
    sent = answer(guard, socket(host=b"evil.example", denial=False))
    assert sent[0]["type"] == "websocket.close"
    assert refusal(answer(guard, http("GET", host=None)))[0] == 400  # no Host at all
    assert not seen
    for host in (b"tables.example", b"TABLES.example:8443", b"pit.casino.example"):
        assert served(answer(guard, http("GET", host=host))), host
        assert served(answer(guard, socket(host=host))), host
    # the host check comes before the origin check: even a cross-site post gets 400
    scope = http(headers=[(b"origin", EVIL), (b"cookie", COOKIE)], host=b"evil.example")
    assert refusal(answer(guard, scope))[0] == 400


def test_every_host_is_answered_when_none_is_given() -> None:
    guard = Guard(_ok)
    assert served(answer(guard, http("GET", host=b"203.0.113.9:8000")))
    assert served(answer(guard, http("GET", host=None)))


def test_a_wildcard_allows_the_names_under_a_domain_only() -> None:
    hosts = frozenset({"*.casino.example"})
    assert host_allowed("pit.casino.example", hosts)
    assert host_allowed("a.b.casino.example:443", hosts)
    assert not host_allowed("evilcasino.example", hosts)
    assert not host_allowed("casino.example", hosts)
    assert not host_allowed("pit.casino.example.evil", hosts)
    assert host_allowed("anything", frozenset())
    # a name is not a wildcard
    assert not host_allowed("pit.casino.example", frozenset({"casino.example"}))
    assert not host_allowed("xcasino.example", frozenset({"x*.casino.example"}))


def test_host_names_lose_their_port_and_case() -> None:
    assert host_name(" Tables.Example:8443 ") == "tables.example"
    assert host_name("[::1]:8000") == "[::1]"
    assert host_name("[::1]") == "[::1]"
    assert host_name("127.0.0.1") == "127.0.0.1"
    assert host_name("[::1]]:80") == "[::1]"  # a bracketed name ends at its first "]"
    assert host_allowed("[::1]:8000", frozenset({"[::1]"}))
    assert not host_allowed("[::2]:8000", frozenset({"[::1]"}))


def test_an_origin_is_scheme_and_host_and_port() -> None:
    assert origin_of(" HTTPS://Pit.Example:8443/path?q ") == "https://pit.example:8443"
    assert origin_of("pit.example") is None
    assert origin_of("https://") is None
    assert origin_of("/path") is None


def test_other_scopes_go_through_untouched() -> None:
    """Lifespan events reach the application whatever the hosts allowed."""
    seen: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["type"])
        seen.append((await receive())["type"])
        await send({"type": "lifespan.startup.complete"})

    guard = Guard(app, allowed_hosts=["tables.example"])
    sent = answer(guard, {"type": "lifespan"}, {"type": "lifespan.startup"})
    assert seen == ["lifespan", "lifespan.startup"]
    assert sent == [{"type": "lifespan.startup.complete"}]


def _gated(gates: dict[str, asyncio.Event], running: list[str]) -> Any:
    """An application that holds each request or socket until the gate of its path opens."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        running.append(scope["path"])
        if scope["type"] == "websocket":
            await send({"type": "websocket.accept"})
            await gates[scope["path"]].wait()
        else:
            await gates[scope["path"]].wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
        running.remove(scope["path"])

    return app


def test_an_ended_request_or_socket_gives_back_exactly_its_place() -> None:
    """Two of two places taken, one ends: one more is let in, and the next
    is refused again."""
    gates = {path: asyncio.Event() for path in ("/a", "/b", "/c", "/d")}
    running: list[str] = []
    guard = Guard(_gated(gates, running), requests_per_address=2, ws_per_client=2)

    async def scenario(make: Any, counts: Any) -> None:
        gates.update({path: asyncio.Event() for path in gates})  # this loop's
        tasks = {p: asyncio.create_task(call(guard, make(p))) for p in ("/a", "/b")}
        await asyncio.sleep(0.01)
        gates["/a"].set()
        await tasks.pop("/a")
        assert dict(counts) == {"10.0.0.1": 1}
        tasks["/c"] = asyncio.create_task(call(guard, make("/c")))
        await asyncio.sleep(0.01)
        assert sorted(running) == ["/b", "/c"]
        assert refusal(await call(guard, make("/d")))[0] == 429
        for path in ("/b", "/c"):
            gates[path].set()
            await tasks.pop(path)
        assert not counts

    def request(path: str) -> Scope:
        return http("GET", path=path)

    def websocket(path: str) -> Scope:
        made = socket()
        made["path"] = path
        return made

    asyncio.run(scenario(request, guard.requests))
    asyncio.run(scenario(websocket, guard.sockets))


def test_a_flooding_address_waits_for_its_fair_share_behind_the_guard() -> None:
    """The guard hands each address's requests to the fair share under that
    address: with another address present, a flood runs only its share."""
    gates = {path: asyncio.Event() for path in ("/1", "/2", "/3")}
    running: list[str] = []
    fair = FairShare(running=2, floor=1, recent=60)
    guard = Guard(_gated(gates, running), fair_share=fair)

    async def scenario() -> None:
        fair.see("10.0.0.2")  # a player present
        flood = [asyncio.create_task(call(guard, http("GET", path=p))) for p in gates]
        await asyncio.sleep(0.01)
        assert running == ["/1"]
        assert len(fair.waiting["10.0.0.1"]) == 2
        for gate in gates.values():
            gate.set()
        for task in flood:
            assert (await task)[0]["status"] == 200
        assert not fair.inside

    asyncio.run(scenario())


def test_a_server_without_extensions_or_headers_in_its_scopes_is_answered() -> None:
    """ASGI makes ``extensions`` optional: a refused socket is then closed;
    a scope without headers is one with none."""
    scope = socket([(b"origin", EVIL)])
    del scope["extensions"]
    sent = answer(Guard(_ok), scope)
    assert sent[0]["type"] == "websocket.close"
    assert sent[0]["code"] == 1008
    bare = http()
    del bare["headers"]
    assert served(answer(Guard(_ok), bare))  # no cookie, no origin: a program
