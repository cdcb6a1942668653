"""The pit's protection through the API: a table
offering a wager that favours the player, its confirmation and standing
warning; the dealer and table anomalies and their export."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction

import pytest
from fastapi.testclient import TestClient

from punto.protection.edges import WagerEdge, table_edges
from punto.rules.wagers import PairRule
from punto.server.tables.config import TableConfig
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    check_books,
    confirmed,
    deal_cards,
    error_of,
    login,
    physical_shoe,
    server_of,
    shift_manager,
)

TIGER = {"id": "tp", "game": "tiger-baccarat", "mode": "dealer"}


def tiger_pair_edge(decks: int = 8) -> Fraction:
    return next(
        e.edge
        for e in table_edges("tiger-baccarat", None, decks, PairRule.LITERAL)
        if e.wager == "tiger_pair"
    )


@pytest.fixture
def player_favoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables whose Tiger Pair favours the player, as Tiger Baccarat 1.1.14
    read literally makes it (-37.66% at 8 decks).  Every wager of the games'
    own readings favours the house, so no server table offers one; the
    confirmation stands guard for a paytable or reading that would."""

    def literal_edges(config: TableConfig) -> tuple[WagerEdge, ...]:
        return table_edges(config.game, config.layout, config.decks, PairRule.LITERAL)

    monkeypatch.setattr(TableConfig, "edges", property(literal_edges))


def warnings(client: TestClient) -> dict[tuple[str, str], dict[str, object]]:
    listed = client.get("/api/pit/warnings", headers=login(client, PIT))
    assert listed.status_code == 200, listed.text
    return {(w["table_id"], w["wager"]): w for w in listed.json()}


@pytest.mark.usefixtures("player_favoured")
def test_tiger_baccarat_1_1_14_a_table_offering_tiger_pair_is_refused_without_confirmation(
    client: TestClient,
) -> None:
    refused = client.post("/api/tables", headers=login(client, PIT), json=TIGER)
    assert refused.status_code == 422
    error = error_of(refused)
    assert error["type"] == "PlayerFavouredError"
    edge = tiger_pair_edge()
    assert error["message"] == (
        f"tiger_pair has a house edge of -37.6587% ({edge.numerator}/{edge.denominator}): "
        "it returns the player more than they stake"
    )
    assert "1.1.14" in error["clause"].split(", ")
    assert "a pit manager must confirm it" in error["hint"]
    assert not server_of(client).store.exists("tp")


@pytest.mark.usefixtures("player_favoured")
def test_tiger_baccarat_1_1_14_the_admin_cannot_confirm_a_player_favoured_wager(
    client: TestClient,
) -> None:
    body = {**TIGER, "confirm_player_favoured": ["tiger_pair"]}
    refused = client.post("/api/tables", headers=login(client, ADMIN), json=body)
    assert refused.status_code == 403
    error = error_of(refused)
    assert error["clause"] == "6.2"
    assert "pit manager or higher" in error["hint"]
    assert not server_of(client).store.exists("tp")


@pytest.mark.usefixtures("player_favoured")
def test_tiger_baccarat_1_1_14_a_pit_managers_confirmation_is_recorded_and_warned_of(
    client: TestClient,
) -> None:
    pit = login(client, PIT)
    body = {**TIGER, "confirm_player_favoured": ["tiger_pair"]}
    made = client.post("/api/tables", headers=pit, json=body)
    assert made.status_code == 201, made.text
    edge = tiger_pair_edge()
    # with the table ...
    (kept,) = server_of(client).store.get("tp").confirmations
    assert (kept.wager, kept.by, kept.role, Fraction(kept.edge)) == (
        "tiger_pair",
        "pit",
        "pit_manager",
        edge,
    )
    # ... in the audit log ...
    audit = client.get("/api/pit/audit?table_id=tp", headers=pit).json()
    (entry,) = [a for a in audit if a["action"] == "confirm_player_favoured"]
    assert (entry["username"], entry["role"]) == ("pit", "pit_manager")
    assert entry["detail"]["wager"] == "tiger_pair"
    assert Fraction(entry["detail"]["house_edge"]) == edge
    assert entry["detail"]["at"] == kept.at
    # ... and a standing warning with its edge
    warning = warnings(client)[("tp", "tiger_pair")]
    assert Fraction(str(warning["house_edge"])) == edge
    assert warning["house_edge_percent"] == "-37.6587"
    assert warning["confirmation"] == kept.to_json()
    # a change that leaves the edge alone needs nothing more ...
    limits = {"limits": {"minimum": "20", "maximum": "2000"}}
    assert client.patch("/api/tables/tp", headers=pit, json=limits).status_code == 200
    # ... another shoe is another edge, confirmed again
    refused = client.patch("/api/tables/tp", headers=pit, json={"decks": 6})
    assert refused.status_code == 422
    assert error_of(refused)["type"] == "PlayerFavouredError"
    six = {"decks": 6, "confirm_player_favoured": ["tiger_pair"]}
    assert client.patch("/api/tables/tp", headers=pit, json=six).status_code == 200
    assert Fraction(str(warnings(client)[("tp", "tiger_pair")]["house_edge"])) == tiger_pair_edge(6)


@pytest.mark.usefixtures("player_favoured")
def test_tiger_baccarat_1_1_14_an_unconfirmed_table_closes_freely_and_reopens_confirmed(
    client: TestClient,
) -> None:
    """A table set up before confirmations were kept (the store alone, as an
    older database holds it) is warned of as unconfirmed; closing it needs
    nothing, opening it again needs the pit manager's confirmation."""
    server = server_of(client)
    server.store.create(TableConfig(id="old", game="tiger-baccarat", mode="dealer"))
    assert warnings(client)[("old", "tiger_pair")]["confirmation"] is None
    pit = login(client, PIT)
    closed = client.patch("/api/tables/old", headers=pit, json={"active": False})
    assert closed.status_code == 200, closed.text
    assert ("old", "tiger_pair") not in warnings(client)  # closed, it offers nothing
    refused = client.patch("/api/tables/old", headers=pit, json={"active": True})
    assert refused.status_code == 422
    assert error_of(refused)["type"] == "PlayerFavouredError"
    body = {"active": True, "confirm_player_favoured": ["tiger_pair"]}
    assert client.patch("/api/tables/old", headers=pit, json=body).status_code == 200
    assert warnings(client)[("old", "tiger_pair")]["confirmation"] is not None


def test_a_table_whose_wagers_all_favour_the_house_needs_no_confirmation(
    client: TestClient,
) -> None:
    body = {"id": "nc", "game": "tiger-no-commission", "mode": "dealer"}
    assert client.post("/api/tables", headers=login(client, PIT), json=body).status_code == 201
    assert server_of(client).store.get("nc").confirmations == ()
    assert not [k for k in warnings(client) if k[0] == "nc"]


def test_no_demo_table_offers_a_wager_that_favours_the_player(client: TestClient) -> None:
    """Tiger Pair is read by rank by default (the demo's Tiger Baccarat table
    keeps a 16.12% house edge on it): nothing to warn of, nothing confirmed."""
    assert warnings(client) == {}
    server = server_of(client)
    for table_id in ("tiger", "buffalo", "dragon"):
        config = server.store.get(table_id)
        assert [e.wager for e in config.edges if e.player_favoured] == []
        assert config.confirmations == ()
    audit = client.get("/api/pit/audit", headers=login(client, PIT)).json()
    assert [a for a in audit if a["action"] == "confirm_player_favoured"] == []
    tiger = client.get("/api/tables/tiger", headers=login(client, PLAYER)).json()
    assert tiger["table"]["pair_rule"] == "rank"
    assert "pair_rule_warning" not in tiger["table"]


def test_the_pit_protection_is_for_the_pit_and_the_admin(client: TestClient) -> None:
    for who, status in ((PLAYER, 403), (DEALER, 403), (PIT, 200), (ADMIN, 200)):
        headers = login(client, who)
        for path in (
            "/api/pit/warnings",
            "/api/pit/anomalies",
            "/api/pit/anomalies.csv",
            "/api/pit/edges?game=dragon-tiger",
        ):
            assert client.get(path, headers=headers).status_code == status, (who, path)


def _round(client: TestClient, cards: str | None) -> None:
    """One round at the demo's dragon table: the player bets Banker 100; the
    dealer keys ``cards`` and settles, or (None) the shift manager voids it."""
    dealer, player = login(client, DEALER), login(client, PLAYER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    bet = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert bet.status_code == 201, bet.text
    assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
    if cards is None:  # filed by the dealer, confirmed by the shift manager (MBS 6.1, 6.2)
        filed = client.post(
            "/api/tables/dragon/round/void",
            headers=dealer,
            json={"reason": "a card seen before the deal"},
        )
        voided = confirmed(client, "dragon", filed, shift_manager(client))
        assert voided.status_code == 200, voided.text
        return
    deal_cards(client, dealer, "dragon", cards)
    settled = client.post("/api/tables/dragon/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text


def test_anomalies_count_the_dealers_rounds_from_the_logs_and_export_them(
    client: TestClient,
) -> None:
    physical_shoe(client, "dragon")  # the dealer keys every card
    _round(client, "QH 2C 2D KS 3H 4D")  # Banker 6 beats Player 5: the player wins 95
    pit = login(client, PIT)
    # a report now, and the next ones read only the events written since
    assert client.get("/api/pit/anomalies", headers=pit).json()["rounds"] == 1
    _round(client, "8S 6H 9D 3S")  # Banker's Natural 9 beats Player 7: the player wins 95
    _round(client, None)
    check_books(client)
    answer = client.get("/api/pit/anomalies", headers=pit)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["rounds"] == 3
    (dealer,) = data["dealers"]
    (table,) = data["tables"]
    assert (dealer["name"], table["name"]) == ("dealer", "dragon")
    for found in (dealer, table):
        counts = found["counts"]
        assert counts["keyed_cards"]["count"] == 10
        assert counts["keyed_cards"]["rounds_with"] == 2
        assert counts["voids"]["count"] == 1
        assert counts["voids"]["per_hundred_rounds"] == 33.3333
        assert counts["resettlements"]["count"] == 0
        # the void was filed by the dealer and confirmed by the shift manager
        assert counts["claims_filed"]["count"] == 1
        assert counts["claims_confirmed"]["count"] == 1
        assert counts["claims_rejected"]["count"] == 0
        assert counts["claims_refused"]["count"] == 0
        assert found["hold"]["bets"] == 2
        assert found["hold"]["staked"] == "200.00"
        assert found["hold"]["house_win"] == "-190.00"
    # the void returned the player's Banker 100 before the coup was dealt: a
    # ruling recorded for them, with the stake's value on the cards shown then
    assert "rulings" in data["tests"]
    (pair,) = data["players"]
    assert pair["dealer"] == "dealer"
    assert pair["stakes_ruled"] == 1
    (ruled,) = pair["ruled"]
    assert (ruled["ruling"], ruled["wager"], ruled["as_dealt"], ruled["saved"]) == (
        "void",
        "banker",
        None,
        None,
    )
    assert Decimal(ruled["stake"]) == 100
    assert -1 < Fraction(ruled["value"]) < 0
    assert Fraction(pair["value_at_placement"]) == 100 * Fraction(ruled["value"])
    assert [t["statistic"] for t in dealer["rulings"]["tests"]] == [
        "rulings that saved",
        "saved, of the rulings",
    ]
    # the ledger says the same: the house's win at the table is the hold's
    figures = {t["id"]: t for t in client.get("/api/pit", headers=pit).json()}["dragon"]["figures"]
    assert table["hold"]["house_win"] == figures["win"]
    exported = client.get("/api/pit/anomalies.csv", headers=pit)
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert [(r["kind"], r["name"]) for r in rows] == [("dealer", "dealer"), ("table", "dragon")]
    assert rows[1]["house_win"] == table["hold"]["house_win"]
    assert rows[1]["keyed_cards"] == "10"


def test_anomalies_count_the_claims_a_dealer_filed_and_the_record_refused(
    client: TestClient,
) -> None:
    """Per dealer and per table: claims filed, confirmed, rejected, and the
    claims the table's own record refused (the audit log's: a refused claim
    writes nothing to the round)."""
    dealer, player, pit = login(client, DEALER), login(client, PLAYER), login(client, PIT)
    # the demo's dragon table: the server's own shoe
    for claim in ("foreign_card", "unshuffled_cards"):
        assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
        bet = client.post(
            "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "100"}
        )
        assert bet.status_code == 201, bet.text
        assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
        assert client.post("/api/tables/dragon/round/deal", headers=dealer).status_code == 200
        refused = client.post(f"/api/tables/dragon/irregularities/{claim}", headers=dealer, json={})
        assert refused.status_code == 409, refused.text
        filed = client.post(
            "/api/tables/dragon/round/void", headers=dealer, json={"reason": "a dispute"}
        )
        assert filed.status_code == 202, filed.text
        claim_id = filed.json()["claim"]["claim_id"]
        rejected = client.post(
            f"/api/tables/dragon/claims/{claim_id}/reject", headers=pit, json={"reason": "no"}
        )
        # a void the rules do not cover is the shift manager's to reject; the
        # dealer who filed it withdraws it
        assert rejected.status_code == 403, rejected.text
        withdrawn = client.post(
            f"/api/tables/dragon/claims/{claim_id}/reject", headers=dealer, json={"reason": "x"}
        )
        assert withdrawn.status_code == 200, withdrawn.text
        while client.post("/api/tables/dragon/round/deal", headers=dealer).status_code == 200:
            pass
        assert client.post("/api/tables/dragon/round/settle", headers=dealer).status_code == 200
    data = client.get("/api/pit/anomalies", headers=pit).json()
    (by_dealer,) = data["dealers"]
    (by_table,) = data["tables"]
    for found in (by_dealer, by_table):
        counts = found["counts"]
        assert counts["claims_filed"]["count"] == 2
        assert counts["claims_confirmed"]["count"] == 0
        assert counts["claims_rejected"]["count"] == 2
        assert counts["claims_refused"]["count"] == 2
        assert counts["claims_refused"]["rounds_with"] == 2
