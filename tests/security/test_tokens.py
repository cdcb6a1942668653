"""Security review, tokens in URLs: a token in ``?token=`` was accepted by the
table's WebSocket and written to the access log.  The WebSocket now takes
the cookie, ``Authorization: Bearer``, or a first ``auth`` message; a query
token is ignored and never logged."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from tests.server.test_server_support import PLAYER, live_server, login, make_app


def token_of(client: TestClient | httpx2.Client) -> str:
    return login(client, PLAYER)["Authorization"].removeprefix("Bearer ")


def test_security_websocket_ignores_a_token_in_the_url(client: TestClient) -> None:
    token = token_of(client)
    with client.websocket_connect(f"/ws/tables/tiger?token={token}") as ws:
        state = ws.receive_json()
    assert state["type"] == "state"
    assert "me" not in state  # watched as nobody
    assert "user" not in state


def test_security_websocket_first_message_authenticates(client: TestClient) -> None:
    token = token_of(client)
    with client.websocket_connect("/ws/tables/tiger") as ws:
        assert "me" not in ws.receive_json()
        assert ws.receive_json()["type"] == "scoreboard"
        # each step is followed by a ping, so that a server that ignored the
        # message answers "pong" instead of leaving the test waiting
        ws.send_json({"type": "auth", "token": "not-a-token"})
        ws.send_json({"type": "ping"})
        refused = ws.receive_json()
        assert refused["type"] == "error"
        assert refused["error"]["type"] == "SessionInvalidError"
        assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "auth", "token": token})
        ws.send_json({"type": "ping"})
        state = ws.receive_json()
        assert state["type"] == "state"
        assert state["user"]["username"] == PLAYER[0]
        assert state["me"]["balance"] == "10000.00"
        assert ws.receive_json()["type"] == "scoreboard"
        assert ws.receive_json() == {"type": "pong"}


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def access_log() -> Iterator[Lines]:
    """Every line uvicorn logs with a request path: the access log, and the
    WebSocket handshakes it writes to its error log."""
    loggers = [logging.getLogger(name) for name in ("uvicorn.access", "uvicorn.error")]
    handler = Lines()
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


def test_security_access_log_never_holds_a_token(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'punto.db'}")
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=10) as client:
        token = token_of(client)
        with access_log() as handler:
            response = client.get(f"/api/me?token={token}&x=1")
            assert response.status_code == 401  # the URL's token is not a login
            ws_url = base.replace("http", "ws") + f"/ws/tables/tiger?token={token}"
            with connect(ws_url) as ws:
                first: dict[str, Any] = json.loads(ws.recv(timeout=10))
                assert "me" not in first
    assert any("/api/me?token=[redacted]&x=1" in line for line in handler.lines), handler.lines
    assert any("/ws/tables/tiger?token=[redacted]" in line for line in handler.lines)
    assert not any(token in line for line in handler.lines), handler.lines
