"""Replacing the cards through the server (MBS 5.12.2, 5.13; the engine's
readings in docs/interpretations.md): a dealer-driven table refuses the next
round until the cards are replaced, an automatic dealer replaces them itself,
and a refused replacement changes nothing.  On SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.table.events import ShoeStarted
from tests import test_server_support as support
from tests.test_server_support import DEALER, PIT, PLAYER, QUICK, login, make_app, server_of

db_url = support.db_url


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url)) as client:
        yield client


def _table(client: TestClient, table_id: str, **config: Any) -> None:
    body = {
        "id": table_id,
        "game": "tiger-baccarat",
        "mode": "dealer",
        "limits": {"minimum": "10", "maximum": "1000"},
        **config,
    }
    made = client.post("/api/tables", headers=login(client, PIT), json=body)
    assert made.status_code == 201, made.text


def _void_mid_deal(client: TestClient, table_id: str, clause: str) -> None:
    """A round with a bet and a card out, voided by the pit manager under ``clause``."""
    dealer, player, pit = login(client, DEALER), login(client, PLAYER), login(client, PIT)
    assert client.post(f"/api/tables/{table_id}/round/open", headers=dealer).status_code == 200
    bet = client.post(
        f"/api/tables/{table_id}/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert bet.status_code == 201, bet.text
    assert client.post(f"/api/tables/{table_id}/round/close", headers=dealer).status_code == 200
    assert client.post(f"/api/tables/{table_id}/round/deal", headers=dealer).status_code == 200
    voided = client.post(
        f"/api/tables/{table_id}/round/void",
        headers=pit,
        json={"reason": "cards out of order in the device, not rectifiable", "clause": clause},
    )
    assert voided.status_code == 200, voided.text


def _shoe_events(client: TestClient, table_id: str) -> list[ShoeStarted]:
    log = server_of(client).tables[table_id].table.log
    return [e.event for e in log.read(table_id) if isinstance(e.event, ShoeStarted)]


def test_mbs_5_12_2_the_next_round_waits_for_the_cards_to_be_replaced(client: TestClient) -> None:
    _table(client, "mbs")
    _void_mid_deal(client, "mbs", "5.12.2")
    dealer, player = login(client, DEALER), login(client, PLAYER)
    assert client.get("/api/me", headers=player).json()["balance"] == "10000.00"  # returned
    state = client.get("/api/tables/mbs", headers=dealer).json()
    assert state["shoe"]["replacement_due"] == "5.12.2"
    assert state["staff"]["can"]["replace_shoe"] is True

    refused = client.post("/api/tables/mbs/round/open", headers=dealer)
    assert refused.status_code == 409
    assert refused.json()["error"]["clause"] == "5.12.2"
    assert "replace" in refused.json()["error"]["hint"]

    # Not by a player, and not under a clause that does not apply: nothing changes.
    assert (
        client.post("/api/tables/mbs/shoe/replace", headers=player, json={"clause": "5.12.2"})
    ).status_code == 403
    wrong = client.post("/api/tables/mbs/shoe/replace", headers=dealer, json={"clause": "5.11.5"})
    assert wrong.status_code == 409, wrong.text
    assert wrong.json()["error"]["clause"] == "5.11.5"
    assert [e.shoe_id for e in _shoe_events(client, "mbs")] == ["s1"]

    replaced = client.post(
        "/api/tables/mbs/shoe/replace", headers=dealer, json={"clause": "5.12.2"}
    )
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["shoe_id"] == "s2"
    assert re.fullmatch(r"[0-9a-f]{64}", replaced.json()["commitment"])
    started = _shoe_events(client, "mbs")
    assert [(e.shoe_id, e.clause) for e in started] == [("s1", ""), ("s2", "5.12.2")]
    state = client.get("/api/tables/mbs", headers=dealer).json()
    assert state["shoe"]["replacement_due"] is None
    assert state["shoe"]["id"] == "s2"
    assert state["shoe"]["commitment"] == replaced.json()["commitment"]
    assert client.post("/api/tables/mbs/round/open", headers=dealer).status_code == 200
    # Once is enough: the same clause does not apply again.
    again = client.post("/api/tables/mbs/shoe/replace", headers=dealer, json={"clause": "5.12.2"})
    assert again.status_code == 409


def test_mbs_5_13_the_cards_may_be_replaced_after_a_void_and_only_then(
    client: TestClient,
) -> None:
    _table(client, "may")
    dealer = login(client, DEALER)
    early = client.post("/api/tables/may/shoe/replace", headers=dealer, json={"clause": "5.13"})
    assert early.status_code == 409, early.text
    _void_mid_deal(client, "may", "5.1")
    state = client.get("/api/tables/may", headers=dealer).json()
    assert state["shoe"]["replacement_due"] is None  # "may": the next round is not held up
    replaced = client.post("/api/tables/may/shoe/replace", headers=dealer, json={"clause": "5.13"})
    assert replaced.status_code == 200, replaced.text
    assert [(e.shoe_id, e.clause) for e in _shoe_events(client, "may")][-1] == ("s2", "5.13")


def test_mbs_5_12_2_an_automatic_dealer_replaces_the_cards_itself(client: TestClient) -> None:
    _table(client, "auto", mode="auto", **QUICK)
    _void_mid_deal(client, "auto", "5.12.2")
    runtime = server_of(client).tables["auto"]
    runtime.next_round_at = 0.0  # the pause after the void is over
    runtime.step()
    assert runtime.table.replacement_due is None
    assert [(e.shoe_id, e.clause) for e in _shoe_events(client, "auto")] == [
        ("s1", ""),
        ("s2", "5.12.2"),
    ]
    state = client.get("/api/tables/auto").json()
    assert state["round"]["phase"] == "betting"
    assert state["shoe"]["id"] == "s2"
