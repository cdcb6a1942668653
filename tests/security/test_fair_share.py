"""A fair share of the door: one client address cannot take every connection
slot, nor every request in progress.

As found: 4,300 slow sockets from one address took every connection slot;
31 of 31 new connections and 126 of 167 bets were answered 503.  Here
``punto serve``'s protocol and guard are run with a cap of 300 connections:
320 idle sockets from 127.0.0.1 leave a client on 127.0.0.2 served.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any

import httpx2
import pytest
from starlette.types import Message, Receive, Scope, Send

from punto.server.security.fair_share import FairShare
from punto.server.security.guard import Guard
from punto.server.security.limits import Limits, share
from tests.security.test_connections import answer, guarded, idle_sockets
from tests.server.test_server_support import make_app

#: The server's cap on connections, and the idle sockets one address opens.
CAP = 300
IDLE = 320


def served_from(port: int, source: str, count: int) -> int:
    """How many of ``count`` health checks, each on a new connection from
    ``source``, are answered 200."""
    served = 0
    transport = httpx2.HTTPTransport(local_address=source)
    with httpx2.Client(transport=transport, timeout=5) as client:
        for _ in range(count):
            with contextlib.suppress(httpx2.HTTPError):
                response = client.get(
                    f"http://127.0.0.1:{port}/api/health", headers={"Connection": "close"}
                )
                served += response.status_code == 200
    return served


@pytest.mark.slow
def test_security_one_address_cannot_take_every_connection(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    database = f"sqlite:///{tmp_path_factory.mktemp('share') / 'punto.db'}"
    # Deadlines far off: the idle sockets stay open for the whole test (no timing window).
    limits = Limits(max_connections=CAP, header_seconds=120.0, keep_alive=120)
    assert limits.address_connections == share(CAP) == 75
    with guarded(make_app(database), limits) as port:
        sockets = idle_sockets(port, IDLE)
        try:
            started = time.monotonic()
            refused = [
                sock for sock in sockets[-50:] if answer(sock, 5).startswith(b"HTTP/1.1 429")
            ]
            # answered at once, before any byte of theirs: cheap
            assert len(refused) == 50
            assert time.monotonic() - started < 30
            served = served_from(port, "127.0.0.2", 10)
            assert served >= 9, f"{served} of 10 served from another address"
            # the flooding address itself gets no more than its share
            assert served_from(port, "127.0.0.1", 3) == 0
        finally:
            for sock in sockets:
                sock.close()


def test_security_the_refusal_says_which_address_and_its_share() -> None:
    """The 429 a refused connection gets names the address and its share, and
    the connection is closed at once."""
    limits = Limits(max_connections=40, connections_per_address=3, header_seconds=60.0)
    with guarded(make_app("sqlite://"), limits) as port:
        sockets = idle_sockets(port, 4, ("127.0.0.3",))
        try:
            data = answer(sockets[-1], 5)
            assert data.startswith(b"HTTP/1.1 429"), data
            assert b"retry-after: 5" in data.lower()
            assert b"127.0.0.3 holds 3 connections to this server already" in data
            # one of the three closed: a new connection from the address is served
            sockets[0].close()
            deadline = time.monotonic() + 10
            while served_from(port, "127.0.0.3", 1) != 1:
                assert time.monotonic() < deadline, "the address's slot never came back"
                time.sleep(0.1)
        finally:
            for sock in sockets:
                sock.close()


async def _call(guard: Guard, address: str, path: str) -> list[Message]:
    """A GET of ``path`` from ``address`` through ``guard``: the messages sent back."""
    scope: Scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "headers": [(b"host", b"127.0.0.1")],
        "client": (address, 1234),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        sent.append(message)

    await guard(scope, receive, send)
    return sent


def test_security_requests_in_progress_per_address_are_capped() -> None:
    """One address with ``requests_per_address`` requests in progress gets 429
    for the next; another address is answered meanwhile."""
    release = asyncio.Event()

    async def slow(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] == "/slow":
            await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard = Guard(slow, requests_per_address=2)

    async def call(address: str, path: str) -> list[Message]:
        return await _call(guard, address, path)

    async def scenario() -> None:
        held = [asyncio.create_task(call("10.0.0.1", "/slow")) for _ in range(2)]
        await asyncio.sleep(0.05)
        refused = await call("10.0.0.1", "/fast")
        assert refused[0]["status"] == 429
        assert (b"retry-after", b"1") in refused[0]["headers"]
        assert b"10.0.0.1 has 2 requests in progress already" in refused[1]["body"]
        other = await call("10.0.0.2", "/fast")
        assert other[0]["status"] == 200
        release.set()
        for task in held:
            assert (await task)[0]["status"] == 200
        again = await call("10.0.0.1", "/fast")  # the count came back down
        assert again[0]["status"] == 200
        assert not guard.requests

    asyncio.run(scenario())


def test_security_a_trusted_proxys_connections_are_not_held_to_one_share() -> None:
    """Behind a proxy every client comes from its address: a trusted proxy's
    connections count against the total only."""
    limits = Limits(
        max_connections=40,
        connections_per_address=3,
        header_seconds=60.0,
        trusted_proxies=("127.0.0.4",),
    )
    with guarded(make_app("sqlite://"), limits) as port:
        sockets = idle_sockets(port, 5, ("127.0.0.4",))
        try:
            assert served_from(port, "127.0.0.4", 1) == 1
        finally:
            for sock in sockets:
                sock.close()


def test_security_serve_sets_the_per_address_caps(capsys: pytest.CaptureFixture[str]) -> None:
    from punto.cli import main

    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--connections-per-address", "--requests-per-address", "--trusted-proxy"):
        assert flag in text, flag
    assert main(["serve", "--connections-per-address", "0"]) == 2
    assert "--connections-per-address 0 is not a limit" in capsys.readouterr().err
    assert main(["serve", "--trusted-proxy", "not-an-address"]) == 2
    assert "--trusted-proxy" in capsys.readouterr().err


def _request(guard: Guard, address: str, path: str) -> Callable[[], Coroutine[Any, Any, int]]:
    """A GET of ``path`` from ``address`` through ``guard``, to be awaited: its status."""

    async def call() -> int:
        status: int = (await _call(guard, address, path))[0]["status"]
        return status

    return call


def test_security_a_flooding_address_waits_its_turn_behind_a_players_bet() -> None:
    """While a player's address is present, a second address has only its
    share of requests running in the application at once: a flood's
    requests beyond it wait (none is refused), and the player's request goes
    in at once, ahead of them.  Alone again, the flood's waiting requests
    all go in."""
    release = asyncio.Event()
    running: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        address = scope["client"][0]
        running.append(address)
        if address == "10.0.0.9":
            await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        running.remove(address)

    fair = FairShare(running=8, floor=2, recent=0.2)
    guard = Guard(app, fair_share=fair)

    async def scenario() -> None:
        assert await _request(guard, "10.0.0.1", "/bets")() == 200  # the player is present
        flood = [asyncio.create_task(_request(guard, "10.0.0.9", "/void")()) for _ in range(10)]
        await asyncio.sleep(0.02)
        assert running.count("10.0.0.9") == 4  # 8 shared by two addresses
        assert sum(len(q) for q in fair.waiting.values()) == 6
        assert await _request(guard, "10.0.0.1", "/bets")() == 200  # not behind the six
        release.set()
        assert [await task for task in flood] == [200] * 10
        assert not fair.inside
        assert not fair.waiting
        assert not guard.requests

    asyncio.run(scenario())


def test_security_a_request_given_up_while_waiting_leaves_no_place_taken() -> None:
    """A request whose client goes away while it waits its turn (its task
    cancelled) holds no place: the address's count comes back to nothing."""
    release = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    fair = FairShare(running=4, floor=1, recent=60)
    guard = Guard(app, fair_share=fair)

    async def scenario() -> None:
        fair.see("10.0.0.1")  # another address present: a share of 2
        held = [asyncio.create_task(_request(guard, "10.0.0.9", "/void")()) for _ in range(2)]
        waiting = [asyncio.create_task(_request(guard, "10.0.0.9", "/void")()) for _ in range(3)]
        await asyncio.sleep(0.02)
        assert fair.inside["10.0.0.9"] == 2
        assert len(fair.waiting["10.0.0.9"]) == 3
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        assert "10.0.0.9" not in fair.waiting
        release.set()
        assert [await task for task in held] == [200, 200]
        assert not fair.inside
        assert not guard.requests

    asyncio.run(scenario())
