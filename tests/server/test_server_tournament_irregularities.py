"""Baccarat Tournament 5.1-5.4 on the tournament server: the pit's
procedures on a hand (POST /api/tournaments/{id}/irregularities/...), pit
positions only, once per Idempotency-Key, every entrant's chips exact."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.test_server_support import DEALER, PIT, PLAYER, error_of, login
from tests.server.test_server_tournament import advance, tournament_app

TID = "irr"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(tournament_app(db_url)) as c:
        yield c


def two_hands_played(client: TestClient) -> dict[str, str]:
    """A turbo tournament of four automated entrants at one table, its second hand settled."""
    pit = login(client, PIT)
    r = client.post(
        "/api/tournaments",
        headers=pit,
        json={"id": TID, "format": "turbo", "seed": 11, "tables": 1},
    )
    assert r.status_code == 200, r.text
    for i, strategy in enumerate(("banker", "flat", "pairs", "flat")):
        r = client.post(
            f"/api/tournaments/{TID}/register",
            headers=pit,
            json={"name": f"Bot {i + 1}", "strategy": strategy},
        )
        assert r.status_code == 200, r.text
    assert client.post(f"/api/tournaments/{TID}/start", headers=pit).status_code == 200
    for _ in range(40):
        table = client.get(f"/api/tournaments/{TID}").json()["tables"][0]
        if table["settled"] == 2 and table["phase"] == "idle":
            return pit
        advance(client, pit, TID, 1)
    raise AssertionError("hand 2 did not settle")


def chips(client: TestClient) -> dict[str, int]:
    board: dict[str, Any] = client.get(f"/api/tournaments/{TID}/leaderboard").json()
    return {row["entrant"]: row["chips"] for row in board["tables"][0]["standings"]}


def test_baccarat_tournament_5_2_a_settled_hand_voided_by_the_pit_on_the_server(
    client: TestClient,
) -> None:
    pit = two_hands_played(client)
    snapshot = client.get(f"/api/tournaments/{TID}").json()
    last = snapshot["tables"][0]["last_hand"]
    assert last["hand"] == 2
    before = {r["entrant"]: r["chips"] - r["net"] for r in last["results"]}
    after_hand_2 = chips(client)
    assert after_hand_2 == {r["entrant"]: r["chips"] for r in last["results"]}
    url = f"/api/tournaments/{TID}/irregularities/incorrect_number_of_cards"
    body = {"table": 1, "reconstructable": False}

    # not for a player, nor a dealer; nothing written
    for who in (PLAYER, DEALER):
        refused = client.post(url, headers=login(client, who), json=body)
        assert refused.status_code == 403, refused.text
    assert chips(client) == after_hand_2

    key = {**pit, "Idempotency-Key": "void-hand-2"}
    r = client.post(url, headers=key, json=body)
    assert r.status_code == 200, r.text
    event = r.json()["event"]
    assert (event["type"], event["clause"], event["hand"], event["settled"]) == (
        "hand_voided",
        "5.2",
        2,
        True,
    )
    assert {s["entrant"]: s["chips"] for s in event["chips"]} == before
    assert chips(client) == before
    seq = client.get(f"/api/tournaments/{TID}").json()["seq"]

    # the same request again: the first answer, nothing written twice
    again = client.post(url, headers=key, json=body)
    assert again.status_code == 200
    assert again.json() == r.json()
    assert client.get(f"/api/tournaments/{TID}").json()["seq"] == seq
    assert chips(client) == before

    # no hand in play now, and hand 1 stands (5.1.2)
    stands = client.post(
        f"/api/tournaments/{TID}/irregularities/foreign_card", headers=pit, json={"table": 1}
    )
    assert stands.status_code == 409, stands.text
    assert error_of(stands)["clause"] == "5.1.2"
    table = client.get(f"/api/tournaments/{TID}").json()["tables"][0]
    assert (table["phase"], table["settled"], table["voided"]["clause"]) == ("idle", 1, "5.2")
    assert chips(client) == before
