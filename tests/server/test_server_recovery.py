"""Stopping the server at any point loses no acknowledged bet and doubles none.

A round interrupted mid-deal resumes under the game's power failure rules
(MBS 5.17: each player may withdraw; RWS 5.4: void); a ledger bet whose event
never reached the log is returned; a round settled in the log whose ledger
postings were not all made is posted at the next start; and a server killed
with SIGKILL while bets pour in comes back with every acknowledged bet
exactly once.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from punto.server.tables.answers import Answers
from punto.server.tables.runtime import TableRuntime
from punto.store.db import ledger_bets
from punto.store.ledger import Ledger
from tests.server import test_server_support as support
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    check_books,
    deal_cards,
    free_port,
    healthy,
    login,
    make_app,
    serve_process,
    server_of,
    wait_for,
)


def me(client: TestClient, headers: dict[str, str], table: str) -> dict[str, Any]:
    response = client.get(f"/api/tables/{table}", headers=headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["me"]
    return data


def open_ledger_bets(ledger: Ledger, table: str) -> list[tuple[str, int]]:
    with ledger.engine.connect() as conn:
        return [
            (str(bet_id), int(held))
            for bet_id, held in conn.execute(
                ledger_bets.select()
                .with_only_columns(ledger_bets.c.bet_id, ledger_bets.c.held)
                .where(ledger_bets.c.table_id == table, ledger_bets.c.status == "open")
            )
        ]


def start_round_mid_deal(client: TestClient, table: str, cards: str) -> list[str]:
    """Two players bet, betting closes, ``cards`` are dealt (keyed in from the
    table's physical shoe); returns the bet ids."""
    support.physical_shoe(client, table)
    dealer, ann, bob = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    ids = []
    for who, wager in ((ann, "banker"), (bob, "player")):
        response = client.post(
            f"/api/tables/{table}/bets",
            headers={**who, "Idempotency-Key": f"{table}-{wager}"},
            json={"wager": wager, "stake": "100"},
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["bet"]["bet_id"])
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    deal_cards(client, dealer, table, cards)
    return ids


def test_restart_mid_deal_gives_the_withdrawal_option_mbs_5_17(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        ids = start_round_mid_deal(client, "dragon", "QH 2C")
    with TestClient(make_app(db_url)) as client:  # the same database, a new server
        runtime = server_of(client).table("dragon")
        assert runtime.recovered == "withdrawal"
        dealer, ann, bob = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
        state = client.get("/api/tables/dragon", headers=ann).json()
        assert state["round"]["power_failed"]
        assert state["round"]["withdrawal"]["clause"] == "5.17.1"
        assert state["me"]["may_withdraw"]
        assert [b["bet_id"] for b in state["me"]["bets"]] == ids[:1]
        # The retried request of an acknowledged bet gets the same bet, not a second one.
        retry = client.post(
            "/api/tables/dragon/bets",
            headers={**ann, "Idempotency-Key": "dragon-banker"},
            json={"wager": "banker", "stake": "100"},
        )
        assert retry.status_code == 201
        assert retry.json()["bet"]["bet_id"] == ids[0]
        taken = client.post("/api/tables/dragon/withdrawal", headers=ann)
        assert taken.status_code == 200
        assert taken.json()["balance"] == "10000.00"
        assert client.post("/api/tables/dragon/withdrawal", headers=ann).status_code == 409
        client.post("/api/tables/dragon/round/withdrawal/close", headers=dealer)
        deal_cards(client, dealer, "dragon", "2D KS 3H 4D")  # Banker 6 v Player 5
        client.post("/api/tables/dragon/round/settle", headers=dealer)
        assert me(client, ann, "dragon")["balance"] == "10000.00"
        assert me(client, bob, "dragon")["balance"] == "9900.00"
        assert open_ledger_bets(server_of(client).ledger, "dragon") == []
        check_books(client)
        audit = client.get("/api/pit/audit", headers=login(client, PIT)).json()
        assert any(a["action"] == "recovered" for a in audit)


def test_a_bet_retried_after_a_restart_is_answered_as_stored_without_a_replay(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A table reads the keys of its latest requests when it comes to a process:
    the retry of a bet acknowledged before the restart gets that bet, and the
    table never takes it a second time (nor has to be restored from its log to
    forget it); a new bet is taken as ever."""
    with TestClient(make_app(db_url)) as client:
        dealer, ann = login(client, DEALER), login(client, PLAYER)
        assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
        first = client.post(
            "/api/tables/dragon/bets",
            headers={**ann, "Idempotency-Key": "before"},
            json={"wager": "banker", "stake": "100"},
        )
        assert first.status_code == 201, first.text
    with (
        caplog.at_level(logging.INFO, logger="punto.server"),
        TestClient(make_app(db_url)) as client,
    ):
        ann = login(client, PLAYER)
        if not me(client, ann, "dragon")["bets"]:
            pytest.skip("this game's power-failure clause returned the bets of the open round")
        retry = client.post(
            "/api/tables/dragon/bets",
            headers={**ann, "Idempotency-Key": "before"},
            json={"wager": "banker", "stake": "100"},
        )
        assert retry.status_code == 201, retry.text
        assert retry.json()["bet"]["bet_id"] == first.json()["bet"]["bet_id"]
        after = client.post(
            "/api/tables/dragon/bets",
            headers={**ann, "Idempotency-Key": "after"},
            json={"wager": "player", "stake": "50"},
        )
        assert after.status_code == 201, after.text
        assert [b["bet_id"] for b in me(client, ann, "dragon")["bets"]] == [
            first.json()["bet"]["bet_id"],
            after.json()["bet"]["bet_id"],
        ]
        check_books(client)
    assert not [r for r in caplog.records if "restoring it from its log" in r.getMessage()]


def test_restart_mid_deal_voids_the_round_rws_5_4(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        pit = login(client, PIT)
        body = {"id": "rws", "game": "tiger-buffalo", "layout": "B", "mode": "dealer"}
        assert client.post("/api/tables", headers=pit, json=body).status_code == 201
        start_round_mid_deal(client, "rws", "QH 2C")
    with TestClient(make_app(db_url)) as client:
        assert server_of(client).table("rws").recovered == "void"
        ann, bob = login(client, PLAYER), login(client, PLAYER2)
        state = client.get("/api/tables/rws", headers=ann).json()
        assert state["round"]["phase"] == "void"
        assert state["round"]["void"]["clause"] == "5.4.2"
        assert [r["outcome"] for r in state["me"]["results"]] == ["void"]
        assert me(client, ann, "rws")["balance"] == me(client, bob, "rws")["balance"] == "10000.00"
        assert open_ledger_bets(server_of(client).ledger, "rws") == []
        check_books(client)
        # The table deals on: a new round opens.
        dealer = login(client, DEALER)
        assert client.post("/api/tables/rws/round/open", headers=dealer).json()["round_id"] == "r2"


def test_restart_settles_what_the_log_settled_and_returns_what_it_never_took(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(make_app(db_url)) as client:
        start_round_mid_deal(client, "dragon", "QH 2C 2D KS 3H 4D")
        server = server_of(client)
        # A stake posted to the ledger whose BetPlaced never reached the log
        # (the process died in between): never acknowledged.
        user = server.accounts.find_user("demo")
        assert user is not None
        wallet = server.ledger.player_wallet("demo", account_id=user.id)
        server.ledger.place_bet(
            wallet, "dragon", 70_00, key="bet:dragon:r1-lost", bet_id="r1-lost", round_id="r1"
        )
        # The round is settled in the log, and the process dies before the postings.
        monkeypatch.setattr(TableRuntime, "reconcile", lambda self: [])
        dealer = login(client, DEALER)
        assert client.post("/api/tables/dragon/round/settle", headers=dealer).status_code == 200
        assert len(open_ledger_bets(server.ledger, "dragon")) == 3
        assert me(client, login(client, PLAYER), "dragon")["balance"] == "9830.00"
    monkeypatch.undo()
    with TestClient(make_app(db_url)) as client:
        assert open_ledger_bets(server_of(client).ledger, "dragon") == []
        # ann: banker 100 wins 95; the lost 70 is back.  bob: player 100 lost.
        assert me(client, login(client, PLAYER), "dragon")["balance"] == "10095.00"
        assert me(client, login(client, PLAYER2), "dragon")["balance"] == "9900.00"
        check_books(client)
    with TestClient(make_app(db_url)) as client:  # and again: nothing changes
        assert me(client, login(client, PLAYER), "dragon")["balance"] == "10095.00"
        check_books(client)


def test_a_bet_whose_answer_was_lost_is_not_placed_twice(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(make_app(db_url), raise_server_exceptions=False) as client:
        dealer, ann = login(client, DEALER), login(client, PLAYER)
        client.post("/api/tables/dragon/round/open", headers=dealer)

        def die(*_args: Any) -> None:
            raise ConnectionError("the process died before answering")

        monkeypatch.setattr(Answers, "store_response", die)
        request: dict[str, Any] = {
            "headers": {**ann, "Idempotency-Key": "k"},
            "json": {"wager": "tie", "stake": 10},
        }
        assert client.post("/api/tables/dragon/bets", **request).status_code == 500
        monkeypatch.undo()
        retry = client.post("/api/tables/dragon/bets", **request)
        assert retry.status_code == 201
        again = client.post("/api/tables/dragon/bets", **request)
        assert again.json() == retry.json()
        assert len(me(client, ann, "dragon")["bets"]) == 1
        assert me(client, ann, "dragon")["balance"] == "9990.00"
        check_books(client)


# -- SIGKILL ------------------------------------------------------------------------------------------


def test_sigkill_while_betting_loses_and_doubles_nothing(tmp_path: Path) -> None:
    db_file = tmp_path / "killed.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve_process(f"sqlite:///{db_file}", port)
    try:
        wait_for(lambda: healthy(base), timeout=30, step=0.05)
        with httpx2.Client(base_url=base, timeout=10) as client:
            dealer = login(client, DEALER)
            players = [login(client, PLAYER), login(client, PLAYER2)]
            assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
        acknowledged: dict[str, tuple[str, str]] = {}  # key -> (bet id, player)
        stop = threading.Event()

        def bettor(n: int) -> None:
            headers = players[n % 2]
            i = 0
            with httpx2.Client(base_url=base, timeout=5) as own:
                while not stop.is_set():
                    key = f"kill-{n}-{i}"
                    i += 1
                    try:
                        response = own.post(
                            "/api/tables/dragon/bets",
                            headers={**headers, "Idempotency-Key": key},
                            json={"wager": "player" if n % 2 else "banker", "stake": "10"},
                        )
                    except httpx2.HTTPError:
                        continue
                    if response.status_code == 201:
                        acknowledged[key] = (response.json()["bet"]["bet_id"], str(n % 2))

        threads = [threading.Thread(target=bettor, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        wait_for(lambda: len(acknowledged) >= 20, timeout=30)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        stop.set()
        for thread in threads:
            thread.join(10)
        assert acknowledged
        process = serve_process(f"sqlite:///{db_file}", port)
        wait_for(lambda: healthy(base), timeout=30, step=0.05)
        with httpx2.Client(base_url=base, timeout=10) as client:
            dealer = login(client, DEALER)
            events = client.get("/api/tables/dragon/rounds/r1", headers=dealer).json()["events"]
            placed = [e["bet_id"] for e in events if e["type"] == "bet_placed"]
            assert len(placed) == len(set(placed))
            for bet_id, _ in acknowledged.values():
                assert placed.count(bet_id) == 1
            # Every bet in the log holds its stake in the ledger, and nothing else is held.
            pit = login(client, PIT)
            figures = next(
                t for t in client.get("/api/pit", headers=pit).json() if t["id"] == "dragon"
            )
            assert figures["figures"]["in_play"] == f"{10 * len(placed)}.00"
            assert client.get("/api/pit/ledger", headers=pit).json()["trial_balance"] == "0.00"
            spent = Decimal(0)
            for who in (PLAYER, PLAYER2):  # both started with 10,000.00
                headers = login(client, who)
                spent += Decimal("10000") - Decimal(
                    client.get("/api/me", headers=headers).json()["balance"]
                )
            assert spent == 10 * len(placed)
            # A retried acknowledged request still gets its bet, not a new one.
            key, (bet_id, which) = next(iter(acknowledged.items()))
            headers = login(client, PLAYER2 if which == "1" else PLAYER)
            retry = client.post(
                "/api/tables/dragon/bets",
                headers={**headers, "Idempotency-Key": key},
                json={"wager": "player" if which == "1" else "banker", "stake": "10"},
            )
            assert retry.status_code == 201
            assert retry.json()["bet"]["bet_id"] == bet_id
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
