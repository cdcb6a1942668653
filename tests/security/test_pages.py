"""Security review, the pages and the table sockets: HEAD, the Content-Security-Policy,
the API docs from local assets, and the documented close code for a socket
to a table that is not there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.server.test_server_support import live_server, make_app

PAGES = [
    "/",
    "/play/tiger",
    "/dealer/tiger",
    "/scoreboard/tiger",
    "/pit",
    "/docs",
    "/tournaments",
    "/tournaments/cup",
    "/tournaments/cup/board",
    "/pit/tournaments",
]


@pytest.mark.parametrize("path", PAGES)
def test_security_pages_answer_head_as_get_without_a_body(client: TestClient, path: str) -> None:
    get = client.get(path)
    head = client.head(path)
    assert get.status_code == 200
    assert head.status_code == 200, head.text
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["content-security-policy"] == get.headers["content-security-policy"]


def test_security_csp_connects_only_to_this_server(client: TestClient) -> None:
    policy = client.get("/play/tiger").headers["content-security-policy"]
    parts = [p.split() for p in policy.split(";") if p.strip()]
    directives = {part[0]: part[1:] for part in parts}
    assert directives["connect-src"] == ["'self'"]  # no ws: or wss: to any host
    assert directives["script-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]


def test_security_api_docs_are_served_from_local_assets(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "connect-src 'self'" in page.headers["content-security-policy"]
    html = page.text
    assert not re.search(r"https?://", html), "the docs page names another host"
    assert "<script>" not in html  # no inline script: the policy would stop it
    assets = re.findall(r'(?:src|href)="(/[^"]+)"', html)
    assert "/static/swagger/swagger-ui-bundle.js" in assets
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
    assert client.get("/openapi.json").json()["info"]["title"] == "punto table server"


def test_security_websocket_to_an_unknown_table_closes_with_4404(tmp_path: Path) -> None:
    with live_server(make_app(f"sqlite:///{tmp_path / 'punto.db'}")) as base:
        url = base.replace("http", "ws") + "/ws/tables/nowhere"
        # today's main: HTTP 403 at the handshake
        with connect(url) as ws, pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4404
        assert "nowhere" in closed.value.rcvd.reason


def test_security_websocket_to_an_unknown_tournament_closes_with_4404(tmp_path: Path) -> None:
    with live_server(make_app(f"sqlite:///{tmp_path / 'punto.db'}")) as base:
        url = base.replace("http", "ws") + "/ws/tournaments/nowhere"
        # before: closed before the handshake, a bare HTTP 403
        with connect(url) as ws, pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4404
        assert "nowhere" in closed.value.rcvd.reason
