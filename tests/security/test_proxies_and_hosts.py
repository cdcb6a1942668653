"""Proxies only when configured, and hosts only when allowed.

As found: uvicorn's ``proxy_headers`` default believes ``X-Forwarded-For``
from any loopback peer, so 45 bad logins under changing ``X-Forwarded-For``
never met the per-address limit, and the access log recorded the forged
address (docs/security.md said no such header was trusted).  And no Host
allow-list: a cookie request with a made-up ``Origin`` equal to a made-up
``Host`` was accepted.  Here ``punto serve``'s uvicorn settings run the app.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest

from punto.server.security.limits import Limits
from tests.security.test_connections import guarded
from tests.server.test_server_support import make_app

#: The per-address limit on failed logins a minute (punto.server.security.login_guard.PER_ADDRESS).
PER_ADDRESS = 30


def failed_logins(port: int, names: range, forged: bool) -> list[int]:
    """A failed login under each name from 127.0.0.1, each claiming another
    client in ``X-Forwarded-For`` when ``forged``; the statuses."""

    def one(n: int) -> int:
        headers = {"X-Forwarded-For": f"198.51.100.{n % 250 + 1}"} if forged else {}
        answer = httpx2.post(
            f"http://127.0.0.1:{port}/api/auth/login",
            json={"username": f"nobody-{n}", "password": "wrong password"},
            headers=headers,
            timeout=30,
        )
        return answer.status_code

    return [one(n) for n in names]


class Peers(logging.Handler):
    """The client addresses uvicorn's access log records."""

    def __init__(self) -> None:
        super().__init__()
        self.peers: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.args, tuple) and record.args:
            self.peers.append(str(record.args[0]))


@contextlib.contextmanager
def access_log() -> Iterator[Peers]:
    peers = Peers()
    logger = logging.getLogger("uvicorn.access")
    logger.addHandler(peers)
    try:
        yield peers
    finally:
        logger.removeHandler(peers)


def test_security_forwarded_for_from_an_untrusted_peer_does_not_dodge_the_address_limit(
    tmp_path: Path,
) -> None:
    """60 failed logins under 60 names from one address, each with another
    ``X-Forwarded-For``: the per-address limit (30 a minute) is met, and the
    access log records the real peer, not the forged one."""
    app = make_app(f"sqlite:///{tmp_path / 'punto.db'}")
    with guarded(app, Limits(), log_level="info") as port, access_log() as log:
        first = failed_logins(port, range(PER_ADDRESS), forged=True)
        # the rest at once: each refusal is held back a second or so (the tarpit)
        with ThreadPoolExecutor(8) as pool:
            rest = list(
                pool.map(lambda n: failed_logins(port, range(n, n + 1), True)[0], range(30, 60))
            )
    assert first == [401] * PER_ADDRESS
    assert rest == [429] * 30
    assert len(log.peers) >= 60
    assert all(peer.startswith("127.0.0.1:") for peer in log.peers), log.peers


def test_security_a_trusted_proxys_forwarded_for_names_the_client(tmp_path: Path) -> None:
    """With ``--trusted-proxy 127.0.0.1`` the client is the one the proxy names:
    60 clients behind it are 60 addresses (each under its limit), and the log
    says who they were."""
    limits = Limits(trusted_proxies=("127.0.0.1",))
    app = make_app(f"sqlite:///{tmp_path / 'punto.db'}")
    with guarded(app, limits, log_level="info") as port, access_log() as log:
        statuses = failed_logins(port, range(60), forged=True)
    assert statuses == [401] * 60
    assert any(peer.startswith("198.51.100.") for peer in log.peers), log.peers


def test_security_only_the_allowed_hosts_are_answered() -> None:
    """With ``--allowed-host``, a request or WebSocket for another Host is
    refused (400) before anything else; the allowed names are answered."""
    from fastapi.testclient import TestClient

    app = make_app("sqlite://", allowed_hosts=["tables.example", "*.casino.example"])
    with TestClient(app, base_url="http://tables.example") as client:
        assert client.get("/api/health").status_code == 200
        assert (
            client.get("/api/health", headers={"Host": "pit.casino.example:8443"}).status_code
            == 200
        )
        made_up = client.post(
            "/api/auth/login",
            headers={"Host": "evil.example", "Origin": "http://evil.example"},
            json={"username": "demo", "password": "demo-password"},
        )
        assert made_up.status_code == 400, made_up.text
        error = made_up.json()["error"]
        assert error["type"] == "HostNotAllowedError"
        assert "--allowed-host" in error["hint"]
        from starlette.websockets import WebSocketDisconnect

        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect("/ws/tables/tiger", headers={"Host": "evil.example"}) as ws,
        ):
            ws.receive_json()
    with TestClient(make_app("sqlite://"), base_url="http://anything.example") as client:
        assert client.get("/api/health").status_code == 200  # none given: every Host
