"""Shared helpers for the table server tests (this module holds no tests).

The tests under tests/server/ get ``client`` from its conftest.py, and every
test the databases from tests/conftest.py; elsewhere bring ``client`` into a
test module by assignment::

    from tests.server import test_server_support as support

    client = support.client
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
import uvicorn
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient

from punto.protection.edges import favoured, table_edges
from punto.rules.cards import Card
from punto.server.app import create_app
from punto.server.services import Server

#: Cheap Argon2 parameters: the tests check behaviour, not hashing cost.
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

#: Timings that make an automatic dealer run a round in well under a second.
QUICK = {
    "betting_seconds": 0.4,
    "card_delay": 0.0,
    "insurance_seconds": 0.3,
    "result_seconds": 0.05,
}

PLAYER = ("demo", "demo-password")
PLAYER2 = ("demo2", "demo2-password")
DEALER = ("dealer", "dealer-password")
PIT = ("pit", "pit-password")
ADMIN = ("admin", "admin-password")
#: a Gaming Shift Manager (not in the demo: :func:`shift_manager` makes one)
SHIFT = ("shift", "shift-password")
#: an Assistant Casino Manager (MBS 3.9.2, 3.12.2; not in the demo:
#: :func:`assistant_casino_manager` makes one)
ACM = ("acm", "acm-password")


def make_app(url: str, **options: Any) -> FastAPI:
    """The server on ``url`` with the demo set up, cheap hashing, and (unless
    asked) no automatic dealers and no demo tournament: the tests drive the
    tables, and make the tournaments they play."""
    options.setdefault("demo", True)
    options.setdefault("auto_dealers", False)
    options.setdefault("demo_tournament", False)
    return create_app(url, hasher=FAST, **options)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    """The app (with the demo tables and accounts) on each database, started and stopped."""
    with TestClient(make_app(db_url)) as client:
        yield client


def player_favoured(game: str, layout: str | None = None, decks: int = 8) -> list[str]:
    """The wagers a table of ``game`` offers that favour the player, which the
    pit manager confirms when opening it (Tiger Pair under Tiger Baccarat's
    literal reading of 1.1.14; docs/interpretations.md)."""
    return [e.wager for e in favoured(table_edges(game, layout and layout.upper(), decks))]


def new_table(client: TestClient, **config: Any) -> str:
    """A dealer-driven table (limits 10 to 1,000 unless ``config`` says
    otherwise) made by the pit manager, who confirms any wager favouring the
    player; its id."""
    body = {
        "mode": "dealer",
        "limits": {"minimum": "10", "maximum": "1000"},
        "confirm_player_favoured": player_favoured(
            config["game"], config.get("layout"), config.get("decks", 8)
        ),
        **config,
    }
    response = client.post("/api/tables", headers=login(client, PIT), json=body)
    assert response.status_code == 201, response.text
    table_id: str = response.json()["id"]
    return table_id


def physical_shoe(client: TestClient, table_id: str) -> None:
    """Deal ``table_id`` from a physical shoe (card source ``device``), set by
    the pit manager before its first shoe: only there may the dealer key the
    cards a test needs; the server's own shuffled shoe takes no keyed card
    (2.1; docs/security.md, "Card-source integrity")."""
    response = client.patch(
        f"/api/tables/{table_id}", headers=login(client, PIT), json={"card_source": "device"}
    )
    assert response.status_code == 200, response.text


def next_cards(client: TestClient, table: str, count: int) -> list[Card]:
    """The next cards out of the server's own shoe for this table."""
    shoe = server_of(client).tables[table].table.shoe
    assert shoe is not None
    return list(shoe.order[shoe.position : shoe.position + count])


def balance(client: TestClient, headers: dict[str, str]) -> str:
    """The wallet balance of whoever ``headers`` log in, as the API shows it."""
    response = client.get("/api/me", headers=headers)
    assert response.status_code == 200, response.text
    value: str = response.json()["balance"]
    return value


def shift_manager(client: TestClient) -> dict[str, str]:
    """Log in the Gaming Shift Manager (MBS 6.1; RWS 5.19), made by the admin first."""
    made = client.post(
        "/api/users",
        headers=login(client, ADMIN),
        json={"username": SHIFT[0], "password": SHIFT[1], "role": "shift_manager"},
    )
    assert made.status_code in (201, 409), made.text
    return login(client, SHIFT)


def assistant_casino_manager(client: TestClient) -> dict[str, str]:
    """Log in the Assistant Casino Manager (MBS 3.9.2, 3.12.2), made by the admin first."""
    made = client.post(
        "/api/users",
        headers=login(client, ADMIN),
        json={"username": ACM[0], "password": ACM[1], "role": "assistant_casino_manager"},
    )
    assert made.status_code in (201, 409), made.text
    return login(client, ACM)


def method_c(client: TestClient, table_id: str) -> None:
    """Conduct ``table_id`` (an HLGA table) by Method C from its next round on (3.9.2)."""
    chosen = client.post(
        f"/api/tables/{table_id}/handling/method",
        headers=assistant_casino_manager(client),
        json={"method": "C"},
    )
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["method"] == "C"


def server_of(client: TestClient) -> Server:
    server: Server = client.app.state.server  # type: ignore[attr-defined]
    return server


def login(client: TestClient | httpx2.Client, who: tuple[str, str]) -> dict[str, str]:
    """Authorization headers for ``who`` (user name, password)."""
    response = client.post("/api/auth/login", json={"username": who[0], "password": who[1]})
    assert response.status_code == 200, response.text
    client.cookies.clear()  # each test request says who it is
    return {"Authorization": f"Bearer {response.json()['token']}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def live_server(app: FastAPI) -> Iterator[str]:
    """Run ``app`` under uvicorn on 127.0.0.1 (a free port) in a thread; yields its URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def serve_process(database_url: str, port: int) -> subprocess.Popen[bytes]:
    """A real ``punto serve --demo`` on ``database_url``, in its own process (to be
    killed with SIGKILL); see :func:`healthy` for when it is up."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "punto.cli",
            "serve",
            "--demo",
            "--database",
            database_url,
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def healthy(base: str) -> bool:
    """Whether the server at ``base`` answers its health check."""
    try:
        return httpx2.get(f"{base}/api/health", timeout=1).status_code == 200
    except httpx2.HTTPError:
        return False


def check_books(client: TestClient) -> None:
    """The ledger adds up: every posting balances, nothing is held that no bet holds."""
    ledger = server_of(client).ledger
    assert ledger.trial_balance() == 0
    audit = ledger.audit()
    assert audit.ok, audit.problems


def error_of(response: Any) -> dict[str, Any]:
    """The error body of a refusal: JSON, ``{"error": {...}}`` with a message and a type."""
    assert response.headers["content-type"].startswith("application/json"), response.text
    body = response.json()
    assert set(body) == {"error"}, body
    error: dict[str, Any] = body["error"]
    assert error["message"]
    assert error["type"]
    return error


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, step: float = 0.02) -> Any:
    """Poll until ``predicate()`` is truthy; returns its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(step)


def deal_cards(client: TestClient, headers: dict[str, str], table: str, cards: str) -> None:
    for card in cards.split():
        response = client.post(
            f"/api/tables/{table}/round/deal", headers=headers, json={"card": card}
        )
        assert response.status_code == 200, response.text


def confirmed(client: TestClient, table_id: str, filed: Any, headers: dict[str, str]) -> Any:
    """A ruling filed as a claim (``filed``: the 202 answer) confirmed by the
    second person whose ``headers`` are given (MBS 6.2); the confirmation's answer."""
    assert filed.status_code == 202, filed.text
    claim = filed.json()["claim"]
    assert claim["status"] == "pending"
    return client.post(
        f"/api/tables/{table_id}/claims/{claim['claim_id']}/confirm", headers=headers
    )
