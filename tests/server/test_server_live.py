"""A real server (uvicorn on 127.0.0.1) with automatic dealers on fast
timings, watched over the WebSocket: betting countdown, cards one by one,
Insurance Plus windows, results, balances and roads."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.sync.client import ClientConnection, connect

from punto.store.db import connect as db_connect
from punto.store.ledger import Ledger
from tests.server.test_server_support import DEALER, PLAYER, QUICK, live_server, login, make_app

#: QUICK, with windows a slow CI machine still answers in: the bet is posted
#: when betting opens, the insurance when it is offered.
TIMINGS = {**QUICK, "betting_seconds": 1.5, "insurance_seconds": 1.5, "seed": "live"}


def messages(ws: ClientConnection, timeout: float = 10.0) -> Iterator[dict[str, Any]]:
    while True:
        yield json.loads(ws.recv(timeout=timeout))


@pytest.mark.slow
def test_automatic_dealer_over_websocket(db_url: str) -> None:
    app = make_app(db_url, auto_dealers=True, demo_options=TIMINGS)
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=10) as client:
        player = login(client, PLAYER)
        ws_url = base.replace("http", "ws") + "/ws/tables/tiger"
        with connect(ws_url, additional_headers=player) as ws:
            seen: list[str] = []
            stream = messages(ws)
            first = next(stream)
            assert first["type"] == "state"
            assert first["me"]["balance"] == "10000.00"
            assert first["table"]["game"] == "tiger-baccarat"
            assert first["table"]["wagers"]
            assert next(stream)["type"] == "scoreboard"
            my_round = None
            cards: list[str] = []
            results: dict[str, Any] = {}
            mine: dict[str, Any] = {}
            for message in stream:
                seen.append(message["type"])
                if message["type"] == "betting_open" and my_round is None:
                    assert message["deadline"] > 0
                    assert message["seconds"] == TIMINGS["betting_seconds"]
                    response = client.post(
                        "/api/tables/tiger/bets",
                        headers={**player, "Idempotency-Key": "live-1"},
                        json={"wager": "banker", "stake": "100"},
                    )
                    assert response.status_code == 201, response.text
                    my_round = message["round_id"]
                elif message["type"] == "card" and message["round_id"] == my_round:
                    cards.append(message["card"])
                    assert message["hand"] in ("player", "banker")
                elif message["type"] == "results" and message["round_id"] == my_round:
                    results = message
                elif message["type"] == "me" and message["me"]["results"]:
                    mine = message["me"]
                    break
            assert 4 <= len(cards) <= 6
            assert results["winner"] in ("player", "banker", "tie")
            [bet] = mine["results"]
            assert Decimal(mine["balance"]) == Decimal("9900") + Decimal(bet["payout"])
            assert {"betting_closed", "bet_totals", "state"} <= set(seen)
            board = next(m for m in stream if m["type"] == "scoreboard")["scoreboard"]
            assert board["stats"]["coups"] >= 1
            # Staff see the engine's events; players do not.
        dealer = login(client, ("dealer", "dealer-password"))
        with connect(ws_url, additional_headers=dealer) as ws:
            stream = messages(ws)
            assert "staff" in next(stream)
            assert any(m["type"] == "event" for m, _ in zip(stream, range(60), strict=False))
        with connect(ws_url) as ws:  # anyone may watch; a page that pings gets a pong
            stream = messages(ws)
            assert "me" not in next(stream)
            ws.send(json.dumps({"type": "ping"}))
            assert any(m["type"] == "pong" for m, _ in zip(stream, range(200), strict=False))
    engine = db_connect(db_url)
    try:
        assert Ledger(engine).trial_balance() == 0
    finally:
        engine.dispose()


@pytest.mark.slow
def test_insurance_plus_window_on_the_automatic_tiger_buffalo(tmp_path: Path) -> None:
    app = make_app(
        f"sqlite:///{tmp_path / 'live.db'}",
        auto_dealers=True,
        demo_options=TIMINGS,
    )
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=10) as client:
        player = login(client, PLAYER)
        ws_url = base.replace("http", "ws") + "/ws/tables/buffalo"
        insured = None
        with connect(ws_url, additional_headers=player) as ws:
            for message in messages(ws):
                if message["type"] == "betting_open":
                    for wager in ("player", "banker"):
                        client.post(
                            "/api/tables/buffalo/bets",
                            headers=player,
                            json={"wager": wager, "stake": "100"},
                        )
                if message["type"] == "me" and message["me"]["insurance_caps"] and not insured:
                    wager, cap = next(iter(message["me"]["insurance_caps"].items()))
                    stake = min(Decimal(cap), Decimal(25))
                    response = client.post(
                        "/api/tables/buffalo/bets",
                        headers=player,
                        json={"wager": wager, "stake": str(stake)},
                    )
                    assert response.status_code == 201, response.text
                    insured = response.json()["bet"]
                if (
                    message["type"] == "state"
                    and insured
                    and message["round"]
                    and message["round"]["phase"] == "settled"
                ):
                    settled_round = message["round"]["id"]
                    break
        assert insured is not None
        assert insured["moment"] in ("four_cards", "player_third_card")
        # By round id: the table may already have opened the next round.
        dealer = login(client, DEALER)
        detail = client.get(f"/api/tables/buffalo/rounds/{settled_round}", headers=dealer).json()
        outcomes = [r for r in detail["results"] if r["bet_id"] == insured["bet_id"]]
        assert outcomes
        assert outcomes[0]["outcome"] in ("win", "lose", "push")
