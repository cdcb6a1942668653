"""The table facts at the server (docs/interpretations.md,
"Table facts"): every server table deals from an electronic dealing device
(its own shuffled shoe or a card-reading shoe), so MBS 5.9 applies there;
whether the cards are dealt face down (RWS 5.10) is the table's
``face_down``, set by a pit manager, logged, and in force from the next
round.  On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from punto.table.events import TableConfigured
from tests.server.test_server_support import DEALER, PIT, PLAYER, confirmed, login, server_of


def _play_to_the_card_face_up(client: TestClient, table_id: str) -> dict[str, Any]:
    """A round: demo 300 on Player, 9H 2C keyed; the Dealer reports a card
    dealt face up (RWS 5.10), demo taking the option; the answer."""
    dealer, player = login(client, DEALER), login(client, PLAYER)
    assert client.post(f"/api/tables/{table_id}/round/open", headers=dealer).status_code == 200
    bet = client.post(
        f"/api/tables/{table_id}/bets", headers=player, json={"wager": "player", "stake": "300"}
    )
    assert bet.status_code == 201, bet.text
    assert client.post(f"/api/tables/{table_id}/round/close", headers=dealer).status_code == 200
    for card in ("9H", "2C"):
        dealt = client.post(
            f"/api/tables/{table_id}/round/deal", headers=dealer, json={"card": card}
        )
        assert dealt.status_code == 200, dealt.text
    answer = client.post(
        f"/api/tables/{table_id}/irregularities/card_exposed_in_error",
        headers=dealer,
        json={"withdrawing": ["demo"]},
    )
    if answer.status_code == 202:  # the option returns a stake: the pit confirms it
        answer = confirmed(client, table_id, answer, login(client, PIT))
    return {"status": answer.status_code, "json": answer.json()}


def _finish(client: TestClient, table_id: str) -> None:
    """KD 3S: Player 9 v Banker 5; settled."""
    dealer = login(client, DEALER)
    for card in ("KD", "3S"):
        dealt = client.post(
            f"/api/tables/{table_id}/round/deal", headers=dealer, json={"card": card}
        )
        assert dealt.status_code == 200, dealt.text
    settled = client.post(f"/api/tables/{table_id}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text


def test_tiger_buffalo_5_10_server_face_down_set_by_a_pit_manager_from_the_next_round(
    client: TestClient,
) -> None:
    pit, dealer, player = login(client, PIT), login(client, DEALER), login(client, PLAYER)
    made = client.post(
        "/api/tables",
        headers=pit,
        json={
            "id": "fd",
            "game": "tiger-buffalo",
            "layout": "A",
            "mode": "dealer",
            "card_source": "device",  # the cards are keyed: a physical shoe
            "limits": {"minimum": "10", "maximum": "10000"},
        },
    )
    assert made.status_code == 201, made.text
    assert (made.json()["face_down"], made.json()["electronic_device"]) == (False, True)
    # a face-up table: a card dealt face up is no irregularity, no option, no money moved
    refused = _play_to_the_card_face_up(client, "fd")
    assert refused["status"] == 409, refused
    assert refused["json"]["error"]["clause"] == "5.10"
    # the dealer may not change the table; the pit manager may, from the next round
    denied = client.patch("/api/tables/fd", headers=dealer, json={"face_down": True})
    assert denied.status_code == 403, denied.text
    changed = client.patch("/api/tables/fd", headers=pit, json={"face_down": True})
    assert changed.status_code == 200, changed.text
    assert changed.json()["face_down"] is True
    still = client.post(
        "/api/tables/fd/irregularities/card_exposed_in_error",
        headers=dealer,
        json={"withdrawing": ["demo"]},
    )
    assert still.status_code == 409, still.text  # the round in play keeps its facts
    _finish(client, "fd")
    assert client.get("/api/me", headers=player).json()["balance"] == "10300.00"  # won 300

    taken = _play_to_the_card_face_up(client, "fd")
    assert taken["status"] == 200, taken
    assert taken["json"]["ruling"]["clause"] == "5.10"
    assert client.get("/api/me", headers=player).json()["balance"] == "10300.00"  # returned
    _finish(client, "fd")
    assert client.get("/api/me", headers=player).json()["balance"] == "10300.00"
    log = server_of(client).tables["fd"].table.log
    logged = [s.event for s in log.read("fd") if isinstance(s.event, TableConfigured)]
    assert [e.face_down for e in logged] == [False, True]
    assert server_of(client).store.get("fd").face_down is True


def test_tiger_baccarat_5_9_server_tables_deal_from_an_electronic_device(
    client: TestClient,
) -> None:
    """Both card sources are electronic: the 5.9 reset is taken at a server table."""
    pit, dealer, player = login(client, PIT), login(client, DEALER), login(client, PLAYER)
    made = client.post(
        "/api/tables",
        headers=pit,
        json={
            "id": "tb",
            "game": "tiger-baccarat",
            "mode": "dealer",
            "card_source": "device",
            "confirm_player_favoured": ["tiger_pair"],  # the literal reading of 1.1.14
        },
    )
    assert made.status_code == 201, made.text
    assert made.json()["electronic_device"] is True
    assert client.post("/api/tables/tb/round/open", headers=dealer).status_code == 200
    bet = client.post(
        "/api/tables/tb/bets", headers=player, json={"wager": "player", "stake": "200"}
    )
    assert bet.status_code == 201, bet.text
    assert client.post("/api/tables/tb/round/close", headers=dealer).status_code == 200
    dealt = client.post("/api/tables/tb/round/deal", headers=dealer, json={"card": "9H"})
    assert dealt.status_code == 200, dealt.text
    reset = client.post(
        "/api/tables/tb/irregularities/device_reset",
        headers=dealer,
        json={"withdrawing": ["demo"]},
    )
    assert client.get("/api/me", headers=player).json()["balance"] != "10000.00"
    reset = confirmed(client, "tb", reset, login(client, PIT))
    assert reset.status_code == 200, reset.text
    assert reset.json()["ruling"]["clause"] == "5.9"
    assert client.get("/api/me", headers=player).json()["balance"] == "10000.00"
    r = server_of(client).tables["tb"].round
    assert r is not None
    assert r.phase.value == "betting"  # bets again
