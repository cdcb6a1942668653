"""Security review, idle and slow connections: nothing timed them out, and with a
low file-descriptor limit 300 idle sockets made every new request fail.
Every loop here is bounded in count and in time; no test depends on a tight
timing window (the deadlines are short, the waits for them generous)."""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx2
import pytest
import uvicorn
from fastapi import FastAPI
from websockets.sync.client import connect

from tests.server.test_server_support import free_port, healthy, make_app

if TYPE_CHECKING:  # imported where used, so that the first test runs on today's main too
    from punto.server.security.limits import Limits

#: The descriptor limit of the server under attack, and the idle sockets sent.
NOFILE = 256
IDLE = 300
#: How long new requests may fail after the idle sockets are opened: the
#: default header timeout (10 s) with room to spare.
WAIT = 25


def idle_sockets(
    port: int, count: int, sources: tuple[str, ...] = ("127.0.0.1",)
) -> list[socket.socket]:
    """``count`` connections that send nothing, from ``sources`` in turn (loopback
    addresses: Linux answers all of 127.0.0.0/8)."""
    sockets = []
    for n in range(count):
        source = sources[n % len(sources)]
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        sockets.append(sock)
    return sockets


def closed_by_server(sock: socket.socket, timeout: float) -> bool:
    """Whether the server closes ``sock`` (perhaps after a 408 or 503) within ``timeout``."""
    sock.settimeout(timeout)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True  # reset by the server
    return True


@pytest.mark.slow
def test_security_idle_sockets_do_not_starve_a_server_with_few_descriptors(
    tmp_path: Path,
) -> None:
    """As found: ``punto serve`` (its defaults) under a 256-descriptor limit,
    300 sockets that never send a byte; new requests must be served again
    once the header timeout has passed."""
    port = free_port()

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))

    command = [sys.executable, "-m", "punto.cli", "serve", "--demo", "--port", str(port)]
    command += ["--database", f"sqlite:///{tmp_path / 'punto.db'}", "--log-level", "error"]
    server = subprocess.Popen(
        command, preexec_fn=low_limit, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    sockets: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 60
        while not healthy(base):
            assert server.poll() is None, "the server stopped"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        sockets = idle_sockets(port, IDLE)
        served = False
        deadline = time.monotonic() + WAIT
        while not served and time.monotonic() < deadline:
            with contextlib.suppress(httpx2.HTTPError):
                served = httpx2.get(f"{base}/api/health", timeout=2).status_code == 200
            if not served:
                time.sleep(0.5)
        assert served, "a new request still fails with the idle sockets open"
        # and the idle sockets were closed by the server, not left to eat descriptors
        assert all(closed_by_server(sock, 5) for sock in sockets[:50])
    finally:
        for sock in sockets:
            sock.close()
        server.kill()
        server.wait(10)


@contextlib.contextmanager
def guarded(app: FastAPI, limits: Limits, log_level: str = "warning") -> Iterator[int]:
    """``app`` under uvicorn with ``punto serve``'s settings for ``limits``; its port."""
    from punto.server.security.connections import uvicorn_config

    port = free_port()
    config = uvicorn_config(app, "127.0.0.1", port, limits, log_level=log_level)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "the server stopped"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(30)


def answer(sock: socket.socket, timeout: float = 10) -> bytes:
    sock.settimeout(timeout)
    data = b""
    with contextlib.suppress(TimeoutError, OSError):
        while chunk := sock.recv(4096):
            data += chunk
    return data


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A server with short deadlines: 1 s for headers, bodies and keep-alive."""
    from punto.server.security.limits import Limits

    database = f"sqlite:///{tmp_path_factory.mktemp('limits') / 'punto.db'}"
    limits = Limits(keep_alive=1, header_seconds=1.0, body_seconds=1.0, max_connections=40)
    app = make_app(database)
    with guarded(app, limits) as port:
        yield port


def test_security_slow_headers_are_answered_408_and_closed(quick: int) -> None:
    with socket.create_connection(("127.0.0.1", quick), timeout=5) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and then nothing
        started = time.monotonic()
        data = answer(sock)
    assert data.startswith(b"HTTP/1.1 408"), data
    assert b"did not arrive within 1 seconds" in data
    assert time.monotonic() - started < 9


def test_security_slow_bodies_are_answered_408(quick: int) -> None:
    with socket.create_connection(("127.0.0.1", quick), timeout=5) as sock:
        sock.sendall(
            b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user'
        )
        data = answer(sock)
    assert data.startswith(b"HTTP/1.1 408"), data
    assert b"SlowBodyError" in data


def test_security_a_body_sent_in_parts_in_time_is_served(quick: int) -> None:
    """The body's deadline (1 s here) is met by a body that arrives in parts."""
    body = b'{"username": "nobody-at-all", "password": "not the password"}'
    with socket.create_connection(("127.0.0.1", quick), timeout=5) as sock:
        sock.sendall(
            b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
        )
        sock.sendall(body[:10])
        time.sleep(0.3)
        sock.sendall(body[10:])
        sock.settimeout(10)
        data = sock.recv(65536)
    assert data.startswith(b"HTTP/1.1 401"), data


def test_security_a_websocket_outlives_the_body_deadline(quick: int) -> None:
    """An upgraded connection has no body: the body's deadline (1 s) must not
    close a WebSocket that stays open longer."""
    with connect(f"ws://127.0.0.1:{quick}/ws/tables/tiger") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        time.sleep(2.5)
        ws.send(json.dumps({"type": "ping"}))
        deadline = time.monotonic() + 10
        while json.loads(ws.recv(timeout=10)) != {"type": "pong"}:
            assert time.monotonic() < deadline, "no pong"


def test_security_idle_keep_alive_connections_are_closed(quick: int) -> None:
    with socket.create_connection(("127.0.0.1", quick), timeout=5) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200"), first
        assert closed_by_server(sock, 10)


def test_security_connections_over_the_cap_are_refused_503(quick: int) -> None:
    # the cap is 40; from five addresses, each under its share (10)
    sockets = idle_sockets(quick, 45, tuple(f"127.0.0.{n}" for n in range(1, 6)))
    try:
        refused = [sock for sock in sockets[-5:] if answer(sock, 5).startswith(b"HTTP/1.1 503")]
        assert len(refused) == 5
    finally:
        for sock in sockets:
            sock.close()
    served = False
    deadline = time.monotonic() + 15
    while not served and time.monotonic() < deadline:
        with contextlib.suppress(httpx2.HTTPError):
            served = httpx2.get(f"http://127.0.0.1:{quick}/api/health", timeout=2).is_success
        if not served:
            time.sleep(0.2)
    assert served


FLAGS = [
    "--keep-alive",
    "--header-timeout",
    "--body-timeout",
    "--max-connections",
    "--concurrency",
    "--ws-per-client",
    "--trusted-origin",
]


def test_security_serve_has_flags_for_every_limit(capsys: pytest.CaptureFixture[str]) -> None:
    from punto.cli import main

    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in FLAGS:
        assert flag in text, flag


def test_security_serve_refuses_a_limit_that_is_not_positive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from punto.cli import main

    assert main(["serve", "--header-timeout", "0"]) != 0
    err = capsys.readouterr().err
    assert "--header-timeout 0.0 is not a limit" in err
