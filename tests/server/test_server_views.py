"""The readers' snapshot of a table (:mod:`punto.server.tables.views`): built
after each change from what changed, it must always be what a build from
scratch gives."""

from __future__ import annotations

from fastapi.testclient import TestClient

from punto.server.tables.views import TableViews
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    client,
    deal_cards,
    login,
    physical_shoe,
    server_of,
)

__all__ = ["client"]


def test_views_players_parts_built_bet_by_bet_are_the_whole_builds(client: TestClient) -> None:
    """While betting, a snapshot adds the bets placed since the last one to the
    players' parts it kept; a withdrawn bet, the deal and the results build
    them all again.  At every step they equal a snapshot built from scratch."""
    physical_shoe(client, "dragon")  # the cards are keyed in
    player, player2, dealer = login(client, PLAYER), login(client, PLAYER2), login(client, DEALER)
    rt = server_of(client).table("dragon")

    def same() -> None:
        with rt.lock:
            kept = rt.views.rebuild()
            fresh = TableViews(rt).latest
        assert kept.players == fresh.players
        assert kept.public["round"] == fresh.public["round"]

    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    same()
    bets = []
    for n, (who, wager) in enumerate(
        [(player, "player"), (player2, "banker"), (player, "banker"), (player, "tie")]
    ):
        response = client.post(
            "/api/tables/dragon/bets", headers=who, json={"wager": wager, "stake": str(10 + n)}
        )
        assert response.status_code == 201, response.text
        bets.append(response.json()["bet"]["bet_id"])
        same()
    # two bets between two snapshots, then one withdrawn
    for stake in ("20", "30"):
        client.post(
            "/api/tables/dragon/bets", headers=player2, json={"wager": "player", "stake": stake}
        )
    same()
    assert client.delete(f"/api/tables/dragon/bets/{bets[0]}", headers=player).status_code == 200
    same()
    client.post("/api/tables/dragon/bets", headers=player, json={"wager": "player", "stake": "15"})
    same()
    me = rt.views.rebuild().players["demo"]
    assert [b["stake"] for b in me.bets] == ["10.00", "12.00", "13.00", "15.00"]
    assert [b["status"] for b in me.bets] == ["withdrawn", "active", "active", "active"]
    assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
    same()
    deal_cards(client, dealer, "dragon", "9H 2C KD 3S")
    same()
    assert client.post("/api/tables/dragon/round/settle", headers=dealer).status_code == 200
    same()
    assert rt.views.rebuild().players["demo"].results is not None


def test_views_table_part_follows_a_change_of_limits(client: TestClient) -> None:
    """The table's own part of a snapshot (settings, limits, wagers) is kept
    between snapshots, and made again when the pit changes the table."""
    pit = login(client, PIT)
    rt = server_of(client).table("dragon")
    before = client.get("/api/tables/dragon").json()["table"]
    change = {"limits": {"minimum": "25", "maximum": "2500"}}
    assert client.patch("/api/tables/dragon", headers=pit, json=change).status_code == 200
    after = client.get("/api/tables/dragon").json()["table"]
    assert after["limits"]["minimum"] == "25.00" != before["limits"]["minimum"]
    with rt.lock:
        assert rt.views.rebuild().public["table"] == TableViews(rt).latest.public["table"]
