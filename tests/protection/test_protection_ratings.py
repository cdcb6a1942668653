"""Players' ratings (punto.protection.ratings) and the pit's ratings API: the
theoretical win of a session is the sum of its bets' values at placement,
checked exactly against the odds ``punto odds`` gives for the same shoes."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from fractions import Fraction

import pytest
from fastapi.testclient import TestClient

from punto.analysis.composition import Composition
from punto.analysis.tables import odds_table
from punto.money import format_units
from punto.protection.ratings import Play, RatingError, Shifts, ratings, ratings_csv
from punto.rules.cards import Card
from tests.server import test_server_support as support
from tests.server.test_server_protection import cards_of, play_round, valued
from tests.server.test_server_support import DEALER, PIT, PLAYER, PLAYER2, login, server_of

client = support.client


def at(hour: int, minute: int = 0, day: int = 26) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


PLAYS = [
    Play("t1", "ann", "r1", 1000, Fraction(-10), -1000, at(7, 59)),
    Play("t1", "ann", "r1", 200, Fraction(-7, 3), 600, at(7, 59)),
    Play("t1", "bob", "r2", 5000, Fraction(-53), 4750, at(8, 0)),
    Play("t2", "ann", "r9", 2500, Fraction(181, 2), 12500, at(23, 10)),
]


def test_ratings_by_player_add_up_each_players_bets_exactly() -> None:
    ann, bob = ratings(PLAYS, "player")
    assert (ann.key, ann.hands, ann.bets, ann.staked) == ("ann", 2, 3, 3700)
    assert ann.actual_win == 1000 - 600 - 12500
    assert ann.theoretical_win == Fraction(10) + Fraction(7, 3) - Fraction(181, 2)
    assert ann.average_bet == Fraction(3700, 2)
    assert ann.house_edge == ann.theoretical_win / 3700
    assert (bob.hands, bob.staked, bob.actual_win) == (1, 5000, -4750)
    assert bob.theoretical_win == Fraction(53)


def test_ratings_by_table_and_by_shift() -> None:
    assert [(r.key, r.staked) for r in ratings(PLAYS, "table")] == [("t1", 6200), ("t2", 2500)]
    shifts = ratings(PLAYS, "shift")
    assert [(r.key, r.bets) for r in shifts] == [
        ("2026-11-26T00:00Z", 2),
        ("2026-11-26T08:00Z", 1),
        ("2026-11-26T16:00Z", 1),
    ]
    # 12-hour shifts from 06:00 UTC: 07:59 and 08:00 are one shift, 23:10 the next
    twelve = ratings(PLAYS, "shift", Shifts(12, 6))
    assert [(r.key, r.bets) for r in twelve] == [
        ("2026-11-26T06:00Z", 3),
        ("2026-11-26T18:00Z", 1),
    ]
    assert Shifts(8, 6).key(at(3, day=27)) == "2026-11-26T22:00Z"


def test_shifts_and_ratings_refuse_what_cannot_be_made() -> None:
    with pytest.raises(RatingError, match="do not divide the day"):
        Shifts(7)
    with pytest.raises(RatingError, match="cannot start"):
        Shifts(8, 24)
    with pytest.raises(RatingError, match="ratings by"):
        ratings(PLAYS, "dealer")  # type: ignore[arg-type]


def test_ratings_csv_has_the_figures_of_the_json() -> None:
    rows = ratings(PLAYS, "player")
    read = list(csv.DictReader(io.StringIO(ratings_csv("player", rows))))
    assert [r["key"] for r in read] == ["ann", "bob"]
    for line, row in zip(read, rows, strict=True):
        assert line["by"] == "player"
        assert {k: line[k] for k in row.to_json()} == {k: str(v) for k, v in row.to_json().items()}
    assert read[1]["theoretical_win"] == "0.53"
    assert read[1]["actual_win"] == "-47.50"


# -- through the server ----------------------------------------------------------------------


def test_a_players_theoretical_win_is_the_sum_of_the_bets_values_exactly_as_punto_odds(
    client: TestClient,
) -> None:
    """A session of rounds at a physical-shoe table: the player's theoretical
    win in the ratings is Σ stake × house edge, each edge from ``odds_table``
    (what ``punto odds`` prints) for the cards unseen before the round."""
    support.physical_shoe(client, "dragon")
    player, player2, pit = login(client, PLAYER), login(client, PLAYER2), login(client, PIT)
    rt = server_of(client).table("dragon")
    rounds = [
        (
            [(player, "banker", "100"), (player, "big_tiger", "10"), (player2, "tie", "20")],
            "QH 2C 2D KS 3H 4D",
        ),
        ([(player, "small_tiger", "30"), (player, "player", "50")], "9H KC 9D QS"),
        ([(player, "big_tiger", "15")], "5C 4H 3S 4C"),
        ([(player, "tie", "10"), (player2, "banker", "40")], "8D 7S AC 2S"),
    ]
    seen: list[Card] = []
    expected = Fraction(0)
    staked = 0
    for bets, cards in rounds:
        round_id, _ = play_round(client, "dragon", bets, cards)
        valued(client, "dragon", round_id, len(bets))
        shoe = Composition.of_decks(8).without(*seen) if seen else Composition.of_decks(8)
        odds = odds_table(rt.game, shoe, rt.table.layout, rt.table.pair_rule).wagers
        for who, wager, stake in bets:
            if who is player:
                units = int(stake) * 100
                expected += units * odds[wager].house_edge_exact
                staked += units
        detail = client.get(f"/api/tables/dragon/rounds/{round_id}", headers=pit).json()
        seen += cards_of(detail)
    body = client.get("/api/pit/ratings", headers=pit, params={"by": "player"}).json()
    assert body["by"] == "player"
    rows = {r["key"]: r for r in body["rows"]}
    demo = rows["demo"]
    assert Fraction(demo["theoretical_win_exact"]) == expected
    assert demo["hands"] == 4
    assert demo["staked"] == format_units(staked)
    assert Fraction(demo["house_edge_exact"]) == expected / staked
    # the actual win is the ledger's: the player's wallet moved by minus it
    wallet = client.get("/api/me", headers=player).json()["balance"]
    assert Fraction(wallet) * 100 == 1_000_000 - Fraction(demo["actual_win"]) * 100
    # the export gives the same figures
    exported = client.get("/api/pit/ratings", headers=pit, params={"by": "player", "format": "csv"})
    assert exported.headers["content-type"].startswith("text/csv")
    lines = {r["key"]: r for r in csv.DictReader(io.StringIO(exported.text))}
    assert {k: lines["demo"][k] for k in demo} == {k: str(v) for k, v in demo.items()}
    by_table = client.get("/api/pit/ratings", headers=pit, params={"by": "table"}).json()
    assert [r["key"] for r in by_table["rows"]] == ["dragon"]


def test_only_the_pit_sees_ratings_and_alerts(client: TestClient) -> None:
    for who in (PLAYER, DEALER):
        headers = login(client, who)
        assert client.get("/api/pit/ratings", headers=headers).status_code == 403
        assert client.get("/api/pit/alerts", headers=headers).status_code == 403
    assert client.get("/api/pit/ratings").status_code == 401
    admin = login(client, support.ADMIN)
    assert client.get("/api/pit/ratings", headers=admin).json() == {"by": "player", "rows": []}
    assert client.get("/api/pit/alerts", headers=admin).json() == {"alerts": []}


def test_ratings_period_bounds_are_iso_8601_times_with_their_offset(client: TestClient) -> None:
    """A bound is an ISO 8601 time with its offset from UTC: a number of seconds
    (which pydantic alone would take), a time without an offset or no time at
    all is refused with 422 (found by schemathesis: ``since=17`` answered 200)."""
    pit = login(client, PIT)
    for bad in ("17", "1732636800.5", "2026-11-26T06:00:00", "tomorrow", "2026-11-26"):
        answer = client.get("/api/pit/ratings", headers=pit, params={"since": bad})
        assert answer.status_code == 422, (bad, answer.text)
    for good in ("2026-11-26T06:00:00Z", "2026-11-26T06:00+08:00", "2026-11-26 06:00:00.5-01:00"):
        answer = client.get("/api/pit/ratings", headers=pit, params={"since": good, "until": good})
        assert answer.status_code == 200, (good, answer.text)
        assert answer.json() == {"by": "player", "rows": []}
