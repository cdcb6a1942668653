"""Game protection on the table server: every bet valued when betting closes
(virtual and physical shoes, Insurance Plus when taken), its value beside its
result, ratings and alerts for the pit."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastapi.testclient import TestClient

from punto.analysis.composition import Composition
from punto.analysis.tables import odds_table
from punto.cards import Card
from punto.store.protection import StoredValue, round_values
from tests import test_server_support as support
from tests.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    deal_cards,
    login,
    new_table,
    physical_shoe,
    server_of,
    wait_for,
)

db_url = support.db_url
client = support.client


def valued(client: TestClient, table_id: str, round_id: str, bets: int) -> dict[str, StoredValue]:
    """The values of a round's bets, once all ``bets`` are stored (the worker
    and the journal write them after the round moves on)."""
    engine = server_of(client).engine

    def found() -> dict[str, StoredValue] | None:
        values = round_values(engine, table_id, round_id)
        return values if len(values) >= bets else None

    result: dict[str, StoredValue] = wait_for(found, timeout=30)
    return result


def bet(client: TestClient, who: dict[str, str], table_id: str, wager: str, stake: str) -> str:
    response = client.post(
        f"/api/tables/{table_id}/bets", headers=who, json={"wager": wager, "stake": stake}
    )
    assert response.status_code == 201, response.text
    bet_id: str = response.json()["bet"]["bet_id"]
    return bet_id


def play_round(
    client: TestClient,
    table_id: str,
    bets: list[tuple[dict[str, str], str, str]],
    cards: str | None = None,
) -> tuple[str, dict[str, str]]:
    """One round: open, the bets, close, the cards (keyed, or ``n`` from the
    server's shoe: ``"*6"``), settle; its id and the bets' ids by wager."""
    dealer = login(client, DEALER)
    opened = client.post(f"/api/tables/{table_id}/round/open", headers=dealer)
    assert opened.status_code == 200, opened.text
    round_id: str = opened.json()["round_id"]
    ids = {wager: bet(client, who, table_id, wager, stake) for who, wager, stake in bets}
    assert client.post(f"/api/tables/{table_id}/round/close", headers=dealer).status_code == 200
    if cards is not None and not cards.startswith("*"):
        deal_cards(client, dealer, table_id, cards)
    else:
        while not client.get(f"/api/tables/{table_id}").json()["round"]["result"]:
            drawn = client.post(f"/api/tables/{table_id}/round/deal", headers=dealer)
            assert drawn.status_code == 200, drawn.text
    settled = client.post(f"/api/tables/{table_id}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text
    return round_id, ids


def cards_of(detail: dict[str, Any]) -> list[Card]:
    return [Card.parse(e["card"]) for e in detail["events"] if e["type"] == "card_dealt"]


def test_every_bet_valued_at_no_more_bets_from_the_keyed_cards_of_a_physical_shoe(
    client: TestClient,
) -> None:
    physical_shoe(client, "dragon")
    player, player2 = login(client, PLAYER), login(client, PLAYER2)
    runtime = server_of(client).table("dragon")
    game, layout, rule = runtime.game, runtime.table.layout, runtime.table.pair_rule
    first, ids = play_round(
        client,
        "dragon",
        [(player, "banker", "100"), (player2, "big_tiger", "10")],
        "QH 2C 2D KS 3H 4D",
    )
    values = valued(client, "dragon", first, 2)
    full = odds_table(game, Composition.of_decks(8), layout, rule).wagers
    assert values[ids["banker"]].return_exact == full["banker"].return_exact
    assert values[ids["banker"]].expected_value == 10000 * full["banker"].return_exact
    assert values[ids["big_tiger"]].player == "demo2"
    assert values[ids["big_tiger"]].cards_seen == 0
    # The next round is valued on the shoe less the six cards keyed.
    second, ids = play_round(client, "dragon", [(player, "big_tiger", "20")], "9H KC 9D QS")
    (value,) = valued(client, "dragon", second, 1).values()
    left = Composition.of_decks(8).without(
        *(Card.parse(c) for c in ["QH", "2C", "2D", "KS", "3H", "4D"])
    )
    exact = odds_table(game, left, layout, rule).wagers["big_tiger"].return_exact
    assert value.return_exact == exact != full["big_tiger"].return_exact
    assert value.cards_seen == 6
    assert value.composition == left.counts
    assert value.expected_value == 2000 * exact
    # ... and shown beside the bet's result.
    detail = client.get(f"/api/tables/dragon/rounds/{second}", headers=login(client, PIT)).json()
    (result,) = detail["results"]
    shown = result["value_at_placement"]
    assert Fraction(shown["return"]) == exact
    assert Fraction(shown["expected_value"]) == 2000 * exact
    assert shown["cards_seen"] == 6


def test_a_virtual_shoe_is_valued_from_the_cards_dealt_never_its_order(
    client: TestClient,
) -> None:
    table_id = new_table(client, id="tb", game="tiger-baccarat")
    player = login(client, PLAYER)
    seen: list[Card] = []
    pit = login(client, PIT)
    for _ in range(3):
        round_id, _ = play_round(client, table_id, [(player, "big_tiger", "10")])
        (value,) = valued(client, table_id, round_id, 1).values()
        rt = server_of(client).table(table_id)
        left = Composition.of_decks(8).without(*seen) if seen else Composition.of_decks(8)
        exact = odds_table(rt.game, left, rt.table.layout, rt.table.pair_rule).wagers
        assert value.return_exact == exact["big_tiger"].return_exact
        assert value.cards_seen == len(seen)
        detail = client.get(f"/api/tables/{table_id}/rounds/{round_id}", headers=pit).json()
        seen += cards_of(detail)
    assert server_of(client).valuation is not None


def test_the_players_history_shows_each_bets_value_at_placement(client: TestClient) -> None:
    physical_shoe(client, "dragon")
    player = login(client, PLAYER)
    round_id, ids = play_round(client, "dragon", [(player, "tie", "10")], "9H KC 9D QS")
    (value,) = valued(client, "dragon", round_id, 1).values()
    postings = client.get("/api/wallet", headers=player).json()["postings"]
    mine = [p for p in postings if p["bet_id"] == ids["tie"]]
    assert "bet" in {p["kind"] for p in mine}  # a lost bet pays nothing into the wallet
    for posting in mine:
        shown = posting["value_at_placement"]
        assert (
            Fraction(shown["expected_value"]) == value.expected_value == 1000 * value.return_exact
        )
        assert shown["wager"] == "tie"
