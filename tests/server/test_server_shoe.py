"""Replacing the cards through the server (MBS 5.12.2, 5.13; the engine's
readings in docs/interpretations.md): a dealer-driven table refuses the next
round until the cards are replaced, an automatic dealer replaces them itself,
and a refused replacement changes nothing.  On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from punto.table.events import ShoeStarted
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    QUICK,
    confirmed,
    login,
    method_c,
    server_of,
)


def _table(client: TestClient, table_id: str, **config: Any) -> None:
    body = {
        "id": table_id,
        "game": "tiger-baccarat",
        "mode": "dealer",
        "limits": {"minimum": "10", "maximum": "1000"},
        "confirm_player_favoured": ["tiger_pair"],  # the literal reading of 1.1.14
        **config,
    }
    made = client.post("/api/tables", headers=login(client, PIT), json=body)
    assert made.status_code == 201, made.text


#: The procedure that voids a round under each clause (no void takes its clause by hand).
_VOIDS: dict[str, tuple[str, dict[str, Any]]] = {
    "5.12.2": ("order_altered", {"reconstructable": False, "method_c": True}),
    "5.1": ("foreign_card", {}),
}


def _void_mid_deal(client: TestClient, table_id: str, clause: str) -> None:
    """A round with a bet and a card keyed out of the table's physical shoe
    (whose record cannot tell a foreign card or an altered order), voided
    through the procedure of ``clause``: filed by the dealer, confirmed by
    the pit manager."""
    dealer, player, pit = login(client, DEALER), login(client, PLAYER), login(client, PIT)
    assert client.post(f"/api/tables/{table_id}/round/open", headers=dealer).status_code == 200
    bet = client.post(
        f"/api/tables/{table_id}/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert bet.status_code == 201, bet.text
    assert client.post(f"/api/tables/{table_id}/round/close", headers=dealer).status_code == 200
    dealt = client.post(f"/api/tables/{table_id}/round/deal", headers=dealer, json={"card": "9H"})
    assert dealt.status_code == 200, dealt.text
    name, body = _VOIDS[clause]
    filed = client.post(f"/api/tables/{table_id}/irregularities/{name}", headers=dealer, json=body)
    voided = confirmed(client, table_id, filed, pit)
    assert voided.status_code == 200, voided.text
    assert voided.json()["void"]["clause"] == clause


def _shoe_events(client: TestClient, table_id: str) -> list[ShoeStarted]:
    log = server_of(client).tables[table_id].table.log
    return [e.event for e in log.read(table_id) if isinstance(e.event, ShoeStarted)]


def test_mbs_5_12_2_the_next_round_waits_for_the_cards_to_be_replaced(client: TestClient) -> None:
    # 5.12.2 is a Method C clause: an HLGA table conducted by Method C (3.9.2).
    _table(client, "mbs", hlga=True, card_source="device")
    method_c(client, "mbs")
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
    assert replaced.json()["commitment"] is None  # a physical shoe: its decks, not its order
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
    _table(client, "may", card_source="device")
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
    _table(client, "auto", mode="auto", hlga=True, card_source="device", **QUICK)
    method_c(client, "auto")
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


def test_hlga_is_a_table_setting_only_where_the_rules_have_3_22_1(client: TestClient) -> None:
    pit = login(client, PIT)
    made = client.post(
        "/api/tables",
        headers=pit,
        json={
            "id": "hlga",
            "game": "tiger-baccarat",
            "mode": "dealer",
            "hlga": True,
            "confirm_player_favoured": ["tiger_pair"],  # the literal reading of 1.1.14
        },
    )
    assert made.status_code == 201, made.text
    assert made.json()["hlga"] is True
    refused = client.post(
        "/api/tables",
        headers=pit,
        json={"id": "rws", "game": "tiger-buffalo", "layout": "A", "hlga": True},
    )
    assert refused.status_code == 422, refused.text
    assert "withdrawal option" in refused.json()["error"]["message"]
    assert client.get("/api/tables/rws").status_code == 404  # nothing set up
    changed = client.patch("/api/tables/hlga", headers=pit, json={"hlga": False})
    assert changed.status_code == 200, changed.text
    assert changed.json()["hlga"] is False
    assert server_of(client).tables["hlga"].table.hlga is False


def test_mbs_3_22_1_cut_card_first_at_an_hlga_table_offers_the_withdrawal(
    client: TestClient,
) -> None:
    _table(client, "hlga", hlga=True)
    dealer, player = login(client, DEALER), login(client, PLAYER)
    assert client.post("/api/tables/hlga/round/open", headers=dealer).status_code == 200
    bet = client.post(
        "/api/tables/hlga/bets", headers=player, json={"wager": "player", "stake": "100"}
    )
    assert bet.status_code == 201, bet.text
    assert client.post("/api/tables/hlga/round/close", headers=dealer).status_code == 200
    shoe = server_of(client).tables["hlga"].table.shoe
    assert shoe is not None
    shoe.cut_card = shoe.position  # the cut card is next: the round's first card brings it out

    first = client.post("/api/tables/hlga/round/deal", headers=dealer)
    assert first.status_code == 200, first.text
    assert first.json()["card"] is None
    assert first.json()["withdrawal"] == "3.22.1"
    state = client.get("/api/tables/hlga", headers=player).json()
    assert state["round"]["withdrawal"]["clause"] == "3.22.1"
    assert state["round"]["cards"] == []
    assert state["shoe"]["cut_card_reached"] is True  # this round is the shoe's last
    assert state["me"]["may_withdraw"] is True
    taken = client.post("/api/tables/hlga/withdrawal", headers=player)
    assert taken.status_code == 200, taken.text
    assert taken.json()["balance"] == "10000.00"
    closed = client.post("/api/tables/hlga/round/withdrawal/close", headers=dealer)
    assert closed.status_code == 200, closed.text
    card = client.post("/api/tables/hlga/round/deal", headers=dealer)
    assert card.status_code == 200, card.text
    assert card.json()["card"] is not None
    assert card.json()["index"] == 0


def test_mbs_3_22_1_an_automatic_dealer_holds_the_option_open_then_deals_on(
    client: TestClient,
) -> None:
    _table(client, "auto", mode="auto", hlga=True, **QUICK)
    runtime = server_of(client).tables["auto"]
    runtime.next_round_at = 0.0
    runtime.step()  # "Place your bets, please"
    player = login(client, PLAYER)
    bet = client.post(
        "/api/tables/auto/bets", headers=player, json={"wager": "banker", "stake": "50"}
    )
    assert bet.status_code == 201, bet.text
    runtime.deadline = 0.0
    runtime.step()  # "No more bets"
    shoe = runtime.table.shoe
    assert shoe is not None
    shoe.cut_card = shoe.position
    runtime.next_card_at = 0.0
    runtime.step()  # the cut card comes out first: no card, the option opens
    r = runtime.round
    assert r is not None
    assert r.withdrawal_open is not None
    assert r.withdrawal_open.clause == "3.22.1"
    assert r.deal.cards == ()
    runtime.step()  # the window opens (insurance_seconds)
    assert runtime.window is not None
    runtime.window = (*runtime.window[:2], 0.0)  # ... and runs out
    runtime.step()  # the option closes
    assert r.withdrawal_open is None
    runtime.next_card_at = 0.0
    runtime.step()  # and the dealer deals on
    assert len(r.deal.cards) == 1
