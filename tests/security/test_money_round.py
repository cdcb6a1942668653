"""Security review, a bet carries no round: a delayed request landed in a round the
player never saw.  A bet may name its round (``round_id``); a bet for a round
no longer taking bets is refused as a late bet (Dragon Tiger MBS 5.4, the
game's ``late_bet`` clause), on SQLite and PostgreSQL, with exact balances."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    balance,
    check_books,
    deal_cards,
    error_of,
    login,
    physical_shoe,
)

#: Banker 6 with three cards against Player 5: Banker wins, 0.95 to 1.
BANKER_WINS = "QH 2C 2D KS 3H 4D"


def round_in_play(client: TestClient, headers: dict[str, str]) -> str:
    state = client.get("/api/tables/dragon", headers=headers).json()
    round_id: str = state["round"]["id"]
    return round_id


def play_out(client: TestClient, dealer: dict[str, str]) -> None:
    assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
    deal_cards(client, dealer, "dragon", BANKER_WINS)
    settled = client.post("/api/tables/dragon/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text


def bet(client: TestClient, player: dict[str, str], **body: Any) -> Any:
    return client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "100", **body}
    )


def test_dragon_tiger_5_4_a_bet_for_a_round_no_longer_taking_bets_is_refused(
    client: TestClient,
) -> None:
    physical_shoe(client, "dragon")  # the dealer keys the cards (2.1)
    player, dealer = login(client, PLAYER), login(client, DEALER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    seen = round_in_play(client, player)  # the round on the player's screen
    play_out(client, dealer)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    now = round_in_play(client, player)
    assert now != seen
    # As found: the bet, delayed past its round, was taken into the next one.
    late = bet(client, player, round_id=seen)
    assert late.status_code == 409, late.text
    error = error_of(late)
    assert error["type"] == "BettingClosedError"
    assert error["clause"] == "5.4"
    assert error["message"] == (
        f"this bet is for round {seen}, which is no longer taking bets: "
        f"the round in play is {now} (betting)"
    )
    assert balance(client, player) == "10000.00"
    # The bet for the round in play is taken.
    taken = bet(client, player, round_id=now, idempotency_key="banker-1")
    assert taken.status_code == 201, taken.text
    assert taken.json()["round_id"] == now
    assert taken.json()["balance"] == "9900.00"
    play_out(client, dealer)
    assert balance(client, player) == "10095.00"  # 100 back and 95 won
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    # A retry of the same request, after its round, is answered as the first was.
    retry = bet(client, player, round_id=now, idempotency_key="banker-1")
    assert retry.status_code == 201, retry.text
    assert retry.json() == taken.json()
    assert balance(client, player) == "10095.00"
    # A client that names no round bets on the round open when the bet arrives.
    plain = bet(client, player)
    assert plain.status_code == 201, plain.text
    assert plain.json()["round_id"] == round_in_play(client, player) != now
    assert balance(client, player) == "9995.00"
    ledger = client.get("/api/pit/ledger", headers=login(client, PIT)).json()  # demo2: 10,000
    assert ledger == {
        "trial_balance": "0.00",
        "totals": {"player": "19995.00", "house": "-20095.00", "holding": "100.00"},
    }
    check_books(client)


def test_dragon_tiger_5_4_a_bet_for_the_round_in_play_after_no_more_bets_is_refused(
    client: TestClient,
) -> None:
    physical_shoe(client, "dragon")  # the dealer keys the cards (2.1)
    player, dealer = login(client, PLAYER), login(client, DEALER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    seen = round_in_play(client, player)
    assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
    late = bet(client, player, round_id=seen)
    assert late.status_code == 409, late.text
    assert error_of(late)["clause"] == "5.4"
    assert balance(client, player) == "10000.00"
    check_books(client)
