"""Baccarat Tournament 5.1-5.4 on the tournament server: the pit's
procedures on a hand (POST /api/tournaments/{id}/irregularities/...), pit
positions only, once per Idempotency-Key, every entrant's chips exact.

Every card of a tournament hand comes out of the engine's own shoe: a claim
that shoe disproves (5.1, 5.2, 5.4, and 5.3's cards drawn together in an
order nobody can ascertain: the shoe's order is theirs) is refused 409
naming it, and nothing is written; cards drawn together in a known order
(5.3) are noted and the hand is dealt on."""

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


def closed_hand(client: TestClient, pit: dict[str, str]) -> dict[str, Any]:
    """Advance to "No more bets" on the next hand at table 1: its table."""
    for _ in range(40):
        advance(client, pit, TID, 1)
        table: dict[str, Any] = client.get(f"/api/tournaments/{TID}").json()["tables"][0]
        if table["phase"] == "closed":
            return table
    raise AssertionError("betting did not close")


def seq(client: TestClient) -> int:
    n: int = client.get(f"/api/tournaments/{TID}").json()["seq"]
    return n


def refused_by_the_shoe(
    client: TestClient, pit: dict[str, str], procedure: str, body: dict[str, Any], clause: str
) -> dict[str, Any]:
    """The pit's claim refused 409 naming the engine's shoe; nothing written."""
    before = (seq(client), chips(client), client.get(f"/api/tournaments/{TID}").json()["tables"])
    r = client.post(f"/api/tournaments/{TID}/irregularities/{procedure}", headers=pit, json=body)
    assert r.status_code == 409, r.text
    error = error_of(r)
    assert (error["type"], error["clause"]) == ("IrregularityRecordError", clause)
    assert "was dealt by the table from shoe 1 of table 1" in error["message"]
    after = (seq(client), chips(client), client.get(f"/api/tournaments/{TID}").json()["tables"])
    assert after == before
    return error


def chips(client: TestClient) -> dict[str, int]:
    board: dict[str, Any] = client.get(f"/api/tournaments/{TID}/leaderboard").json()
    return {row["entrant"]: row["chips"] for row in board["tables"][0]["standings"]}


def test_baccarat_tournament_5_2_a_settled_hand_claimed_by_the_pit_is_refused_by_the_shoe(
    client: TestClient,
) -> None:
    pit = two_hands_played(client)
    last = client.get(f"/api/tournaments/{TID}").json()["tables"][0]["last_hand"]
    assert last["hand"] == 2
    after_hand_2 = chips(client)
    assert after_hand_2 == {r["entrant"]: r["chips"] for r in last["results"]}
    body = {"table": 1, "reconstructable": False}

    # not for a player, nor a dealer; nothing written
    url = f"/api/tournaments/{TID}/irregularities/incorrect_number_of_cards"
    for who in (PLAYER, DEALER):
        refused = client.post(url, headers=login(client, who), json=body)
        assert refused.status_code == 403, refused.text
    assert chips(client) == after_hand_2

    # the pit manager: hand 2 was dealt by the engine, by the Table of Play
    key = {**pit, "Idempotency-Key": "void-hand-2"}
    error = refused_by_the_shoe(client, key, "incorrect_number_of_cards", body, "5.2")
    assert error["message"].startswith("round 2 of session 1 at table 1 was dealt")
    # the same request again: refused again, still nothing written
    assert refused_by_the_shoe(client, key, "incorrect_number_of_cards", body, "5.2") == error

    # hand 2 stands, and a settled hand takes no foreign card (5.1.2)
    stands = client.post(
        f"/api/tournaments/{TID}/irregularities/foreign_card", headers=pit, json={"table": 1}
    )
    assert stands.status_code == 422, stands.text
    assert (error_of(stands)["type"], error_of(stands)["clause"]) == ("IrregularityError", "5.1.2")
    table = client.get(f"/api/tournaments/{TID}").json()["tables"][0]
    assert (table["phase"], table["settled"], table["voided"]) == ("idle", 2, None)
    assert chips(client) == after_hand_2


def test_baccarat_tournament_5_3_claims_on_a_hand_in_play_refused_by_the_shoe_a_known_order_noted(
    client: TestClient,
) -> None:
    pit = two_hands_played(client)
    after_hand_2 = chips(client)
    table = closed_hand(client, pit)
    assert table["hand"] == 3
    claims: list[tuple[str, dict[str, Any], str]] = [
        ("foreign_card", {"dealt": 3}, "5.1"),
        ("incorrect_number_of_cards", {"reconstructable": False, "dealt": 5}, "5.2"),
        ("incorrect_number_of_cards", {"reconstructable": True, "dealt": 5}, "5.2"),
        ("order_altered", {"reconstructable": False}, "5.4"),
        ("order_altered", {"reconstructable": True, "dealt": 2}, "5.4"),
        # cards drawn together in the initial deal: they came out in the shoe's order
        ("simultaneous_draw", {"cards": 2, "order_known": False, "dealt": 0}, "5.3"),
        ("simultaneous_draw", {"cards": 2, "order_known": False, "dealt": 1}, "5.3"),
    ]
    for procedure, fields, clause in claims:
        error = refused_by_the_shoe(client, pit, procedure, {"table": 1, **fields}, clause)
        if procedure == "simultaneous_draw":
            assert "the record holds that order" in error["message"]
            assert "the order known" in error["hint"]
    assert chips(client) == after_hand_2

    # their order known: noted, and the hand is dealt on from the shoe as it is
    url = f"/api/tournaments/{TID}/irregularities/simultaneous_draw"
    body = {"table": 1, "cards": 2, "order_known": True, "dealt": 1}
    key = {**pit, "Idempotency-Key": "noted-hand-3"}
    r = client.post(url, headers=key, json=body)
    assert r.status_code == 200, r.text
    event = r.json()["event"]
    assert (event["type"], event["clause"], event["hand"]) == ("hand_irregularity_noted", "5.3", 3)
    assert chips(client) == after_hand_2
    written = seq(client)

    # the same request again: the first answer, nothing written twice
    again = client.post(url, headers=key, json=body)
    assert again.status_code == 200
    assert again.json() == r.json()
    assert seq(client) == written
    table = client.get(f"/api/tournaments/{TID}").json()["tables"][0]
    assert (table["phase"], table["hand"], table["settled"]) == ("closed", 3, 2)
    assert table["voided"] is None
    assert table["irregularity"]["clause"] == "5.3"

    # the hand settles on the shoe's cards
    for _ in range(10):
        table = client.get(f"/api/tournaments/{TID}").json()["tables"][0]
        if table["settled"] == 3:
            break
        advance(client, pit, TID, 1)
    assert table["settled"] == 3
    assert table["last_hand"]["hand"] == 3
    assert chips(client) == {r["entrant"]: r["chips"] for r in table["last_hand"]["results"]}
