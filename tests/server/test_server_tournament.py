"""Tournaments through the HTTP API (punto.server.tournaments): a tournament of
3 tables and 20 entrants played to the end, killed and restarted in the middle
of a session with the same standings as an uninterrupted run; refusals; the
live leaderboard over the WebSocket.  On SQLite and PostgreSQL: the run under
test uses each backend, the uninterrupted reference run a SQLite file."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from punto.server.tournaments.routes import install
from tests.server.test_server_support import DEALER, PIT, PLAYER, free_port, login, make_app

STRATEGIES = ("banker", "flat", "catchup", "pairs")
ENTRANTS = 20
TABLES = 3


def tournament_app(database: str) -> FastAPI:
    app = make_app(database)
    install(app)
    return app


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(tournament_app(db_url)) as c:
        yield c


def setup_cup(client: httpx2.Client, tid: str = "cup", seed: int = 7) -> dict[str, str]:
    pit = login(client, PIT)
    r = client.post(
        "/api/tournaments",
        headers=pit,
        json={"id": tid, "format": "daily", "seed": seed, "tables": TABLES},
    )
    assert r.status_code == 200, r.text
    for i in range(ENTRANTS):
        strategy = STRATEGIES[i % len(STRATEGIES)]
        r = client.post(
            f"/api/tournaments/{tid}/register",
            headers=pit,
            json={"name": f"{strategy.title()} {i + 1}", "strategy": strategy},
        )
        assert r.status_code == 200, r.text
    r = client.post(f"/api/tournaments/{tid}/start", headers=pit)
    assert r.status_code == 200, r.text
    assert r.json()["tables"] == TABLES
    return pit


def advance(client: httpx2.Client, headers: dict[str, str], tid: str, steps: int) -> dict[str, Any]:
    r = client.post(f"/api/tournaments/{tid}/advance", headers=headers, json={"steps": steps})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def run_to_end(client: httpx2.Client, headers: dict[str, str], tid: str) -> None:
    for _ in range(100):
        if advance(client, headers, tid, 500)["finished"]:
            return
    raise AssertionError("the tournament did not finish")


def standings(client: httpx2.Client, tid: str) -> list[tuple[Any, ...]]:
    r = client.get(f"/api/tournaments/{tid}/results")
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["finished"]
    return [(x["place"], x["entrant"], x["name"], x["chips"], x["prize"]) for x in data["results"]]


def test_a_tournament_survives_a_restart_mid_session(tmp_path: Path, db_url: str) -> None:
    # uninterrupted
    with TestClient(tournament_app(f"sqlite:///{tmp_path / 'a.db'}")) as client:
        pit = setup_cup(client)
        run_to_end(client, pit, "cup")
        expected = standings(client, "cup")
        board = client.get("/api/tournaments/cup/leaderboard").json()
        assert board["stage"] == "finished"
    assert len(expected) == ENTRANTS
    assert expected[0][0] == 1

    # killed in the middle of the qualifying session, restarted on the same database
    database = db_url
    with TestClient(tournament_app(database)) as client:
        pit = setup_cup(client)
        state = advance(client, pit, "cup", 333)
        assert state["stage"] == "playing"
        assert state["session"]["number"] == 1
        mid = client.get("/api/tournaments/cup").json()
        assert any(0 < t["settled"] < t["hands"] for t in mid["tables"])
    with TestClient(tournament_app(database)) as client:
        listed = client.get("/api/tournaments").json()
        assert [(x["id"], x["seq"]) for x in listed] == [("cup", state["seq"])]
        again = client.get("/api/tournaments/cup").json()
        assert again["tables"] == mid["tables"]
        dealer = login(client, DEALER)
        run_to_end(client, dealer, "cup")
        assert standings(client, "cup") == expected


def test_refusals_are_the_engines_own(client: TestClient) -> None:
    pit = login(client, PIT)
    player = login(client, PLAYER)
    r = client.post("/api/tournaments", headers=player, json={"id": "x"})
    assert r.status_code == 403
    r = client.post("/api/tournaments", headers=pit, json={"id": "x", "format": "nope"})
    assert r.status_code == 404, r.text
    assert r.json()["error"]["type"] == "UnknownFormatError"
    assert client.post("/api/tournaments", headers=pit, json={"id": "x"}).status_code == 200
    r = client.post("/api/tournaments", headers=pit, json={"id": "x"})
    assert r.status_code == 409
    assert client.get("/api/tournaments/nope").status_code == 404
    # too few entrants to start (T2.1 / T3.1)
    r = client.post("/api/tournaments/x/start", headers=pit)
    assert r.status_code in (409, 422), r.text
    assert r.json()["error"]["message"]
    # a player registers themselves, once
    r = client.post("/api/tournaments/x/register", headers=player)
    assert r.status_code == 200, r.text
    assert r.json()["entrant"] == PLAYER[0]
    r = client.post("/api/tournaments/x/register", headers=player)
    assert r.status_code == 422
    assert r.json()["error"]["type"] == "RegistrationError"
    assert "already registered" in r.json()["error"]["message"]
    r = client.post(
        "/api/tournaments/x/register", headers=player, json={"name": "B", "strategy": "banker"}
    )
    assert r.status_code == 403
    r = client.post("/api/tournaments/x/advance", headers=player, json={"steps": 1})
    assert r.status_code == 403
    assert client.post("/api/tournaments/x/advance", json={"steps": 1}).status_code == 401
    r = client.post(
        "/api/tournaments/x/register", headers=pit, json={"name": "B", "strategy": "robot"}
    )
    assert r.status_code == 422


def test_the_leaderboard_is_pushed_as_hands_open_close_and_settle(client: TestClient) -> None:
    pit = setup_cup(client, "live", seed=3)
    with client.websocket_connect("/ws/tournaments/live") as ws:
        first = ws.receive_json()
        assert first["type"] == "snapshot"
        assert first["snapshot"]["tournament"] == "live"
        assert "seed" not in first["snapshot"]
        advance(client, pit, "live", 40)
        kinds: list[str] = []
        while "hand_settled" not in kinds:
            message = ws.receive_json()
            assert message["type"] == "leaderboard"
            kinds.append(message["event"]["type"])
        assert kinds[:3] == ["hand_opened", "betting_closed", "hand_settled"]
        assert sum(t["settled"] for t in message["leaderboard"]["tables"]) >= 1
        assert message["leaderboard"]["tables"][0]["phase"] in ("idle", "done")


def test_a_player_bets_for_themselves(client: TestClient) -> None:
    pit = login(client, PIT)
    player = login(client, PLAYER)
    dealer = login(client, DEALER)
    assert (
        client.post("/api/tournaments", headers=pit, json={"id": "p", "seed": 1}).status_code == 200
    )
    assert client.post("/api/tournaments/p/register", headers=player).status_code == 200
    for i in range(5):
        r = client.post(
            "/api/tournaments/p/register",
            headers=pit,
            json={"name": f"Bot {i}", "strategy": "flat"},
        )
        assert r.status_code == 200, r.text
    bet = {"bets": [{"wager": "banker", "stake": 1000}]}
    r = client.post("/api/tournaments/p/bets", headers=player, json=bet)
    assert r.status_code == 409, r.text  # no session yet
    assert r.json()["error"]["type"] == "TournamentPhaseError"
    assert client.post("/api/tournaments/p/start", headers=pit).status_code == 200
    advance(client, dealer, "p", 1)  # "Place your bets, please"
    r = client.post(
        "/api/tournaments/p/bets",
        headers=player,
        json={"bets": [{"wager": "banker", "stake": 500}]},
    )
    assert r.status_code == 422, r.text
    assert r.json()["error"]["type"] == "BetLimitError"
    assert r.json()["error"]["clause"].startswith("T4.2")
    r = client.post("/api/tournaments/p/bets", headers=player, json=bet)
    assert r.status_code == 200, r.text
    assert r.json()["bets"] == [{"wager": "banker", "stake": 1000}]
    r = client.post("/api/tournaments/p/bets", headers=player, json={"pass_hand": True})
    assert r.status_code == 409
    assert client.post("/api/tournaments/p/bets", headers=dealer, json=bet).status_code == 403
    before = client.get("/api/tournaments/p").json()["entrants"]
    chips = next(e["chips"] for e in before if e["entrant"] == PLAYER[0])
    board = client.get("/api/tournaments/p/leaderboard").json()
    while board["tables"][0]["settled"] < 1:  # the others act, the hand is dealt
        advance(client, dealer, "p", 1)
        board = client.get("/api/tournaments/p/leaderboard").json()
    me = next(e for e in board["overall"] if e["entrant"] == PLAYER[0])
    assert me["hands_bet"] == 1
    assert me["chips"] in (chips - 1000, chips + 1000, chips)


SERVE = """
import sys
import uvicorn
from punto.server.tournaments.routes import install
from tests.server.test_server_support import make_app
app = make_app(sys.argv[1])
install(app)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


@contextlib.contextmanager
def server_process(database: str) -> Iterator[tuple[subprocess.Popen[bytes], httpx2.Client]]:
    """The server in its own process (to be killed with SIGKILL)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, database, str(port)], cwd=Path(__file__).parents[2]
    )
    try:
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if client.get("/api/health").status_code == 200:
                        break
                except httpx2.TransportError:
                    pass
                assert process.poll() is None, "the server did not start"
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
            yield process, client
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


@pytest.mark.slow
def test_a_tournament_survives_sigkill_mid_request(tmp_path: Path, db_url: str) -> None:
    with TestClient(tournament_app(f"sqlite:///{tmp_path / 'a.db'}")) as client:
        run_to_end(client, setup_cup(client, seed=11), "cup")
        expected = standings(client, "cup")

    database = db_url
    with server_process(database) as (process, http):
        pit = setup_cup(http, seed=11)
        seq = advance(http, pit, "cup", 300)["seq"]

        def run() -> None:
            with contextlib.suppress(httpx2.TransportError):
                http.post("/api/tournaments/cup/advance", headers=pit, json={"steps": 5000})

        background = threading.Thread(target=run)
        background.start()
        seen = seq
        while seen < seq + 20:
            time.sleep(0.005)
            seen = http.get("/api/tournaments").json()[0]["seq"]
        process.kill()  # in the middle of the request, no shutdown
        process.wait(10)
        background.join(30)
    with server_process(database) as (_process, http):
        state = http.get("/api/tournaments/cup").json()
        assert state["stage"] == "playing"
        # Every event is committed before the server shows it, so nothing seen is lost.
        assert state["seq"] >= seen
        dealer = login(http, DEALER)
        run_to_end(http, dealer, "cup")
        assert standings(http, "cup") == expected
