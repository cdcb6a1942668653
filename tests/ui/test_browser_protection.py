"""The pit page's game protection in Debian's Chromium, against a real
server: the Ratings section shows the figures GET /api/pit/ratings gives (by
player and by table), and the Alerts section each alert with its evidence,
expandable, as GET /api/pit/alerts gives it."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

import pytest
from playwright.sync_api import Browser

from punto.money import format_units
from punto.store.db import connect as db_connect
from punto.store.db import write_transaction
from punto.store.protection import StoredAlert, round_values, write_alert
from tests.ui.test_browser_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    Site,
    browser,
    money,
    open_page,
    site,
)

__all__ = ["browser", "site"]

#: (bets (who, wager, stake), keyed cards) of the two rounds played.
ROUNDS = [
    (
        [(PLAYER, "banker", "100"), (PLAYER, "big_tiger", "10"), (PLAYER2, "tie", "10")],
        "2S 8H 3D KC",
    ),
    ([(PLAYER, "big_tiger", "20"), (PLAYER2, "banker", "50")], "9S 2H 9D 3C"),
]


def play(site: Site, table_id: str) -> list[str]:
    round_ids = []
    for bets, cards in ROUNDS:
        round_ids.append(
            site.call("POST", f"/api/tables/{table_id}/round/open", DEALER)["round_id"]
        )
        for who, wager, stake in bets:
            site.call("POST", f"/api/tables/{table_id}/bets", who, {"wager": wager, "stake": stake})
        site.call("POST", f"/api/tables/{table_id}/round/close", DEALER)
        site.deal(table_id, cards)
        site.call("POST", f"/api/tables/{table_id}/round/settle", DEALER)
    return round_ids


def rated(site: Site, hands: int) -> dict[str, Any]:
    """The ratings by player once the demo player's ``hands`` are rated (the
    values are written a moment after each round closes)."""
    deadline = time.monotonic() + 30
    while True:
        body: dict[str, Any] = site.call("GET", "/api/pit/ratings?by=player", PIT)
        rows = {r["key"]: r for r in body["rows"]}
        if rows.get("demo", {}).get("hands") == hands and "demo2" in rows:
            return rows
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def percent(fraction: str) -> str:
    """An exact return as the page shows it: a percentage to four places."""
    value = Fraction(fraction) * 100
    shown = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        Decimal("0.0001"), rounding=ROUND_HALF_UP
    )
    return f"{shown}%".replace("-", "−")


def cells(row: dict[str, Any]) -> dict[str, str]:
    return {
        "hands": str(row["hands"]),
        "staked": money(row["staked"]),
        "actual": money(row["actual_win"]),
        "theoretical": money(row["theoretical_win"]),
        "average": money(row["average_bet"]),
        "edge": row["house_edge"].replace("-", "−"),
    }


@pytest.mark.slow
def test_pit_shows_the_ratings_and_alerts_the_api_gives(browser: Browser, site: Site) -> None:
    site.new_table("prot", "tiger-baccarat", card_source="device")
    round_ids = play(site, "prot")
    rows = rated(site, 2)
    # An alert on the demo player, its evidence the values of their Big Tiger
    # bets as stored (the detector's own alerts take a counter and a few shoes:
    # tests/server/test_server_protection.py).
    engine = db_connect(site.database, migrate=False)
    try:
        stored = [
            v
            for rid in round_ids
            for v in round_values(engine, "prot", rid).values()
            if v.player == "demo" and v.wager == "big_tiger"
        ]
        evidence = tuple(
            {
                "round_id": v.round_id,
                "wager": v.wager,
                "stake": format_units(v.stake),
                "value": str(v.return_exact),
                "composition": list(v.composition),
            }
            for v in stored
        )
        # and one of the table's own tests: the same bets, each with who placed it
        # (a big player under a fresh name, and a cover bettor)
        team = tuple(
            {
                **e,
                "test": "the table: stakes and value",
                "players": [{"player": f"big-{i}", "stake": e["stake"]}],
                "expected_net": "7.60",
            }
            for i, e in enumerate(evidence)
        )
        with write_transaction(engine) as conn:
            for player, statistic, proof in (("demo", "5.25", evidence), ("", "21.5", team)):
                write_alert(
                    conn,
                    StoredAlert(
                        None,
                        "prot",
                        player,
                        datetime.now(UTC),
                        statistic,
                        "5",
                        "measured: see docs",
                        proof,
                    ),
                )
    finally:
        engine.dispose()
    alerts = site.call("GET", "/api/pit/alerts", PIT)["alerts"]
    (alert,) = [a for a in alerts if a["player"] == "demo"]
    (table_alert,) = [a for a in alerts if a["test"] == "the table: stakes and value"]
    # the table reads pairs by rank (Tiger Baccarat's default): no wager favours
    # the player, and no alert of that kind (its alert is tested through the API,
    # at a table that reads them literally: test_server_protection.py)
    assert not [a for a in alerts if a["test"] == "a wager that favours the player"]

    pit = open_page(browser, site, "/pit", "pit-protection")
    try:
        pit.login(PIT)
        for player, row in rows.items():
            for name, text in cells(row).items():
                pit.wait_text(f"rating-{name}-{player}", text)
        pit.testid("ratings-by").select_option("table")
        (table,) = site.call("GET", "/api/pit/ratings?by=table", PIT)["rows"]
        for name, text in cells(table).items():
            pit.wait_text(f"rating-{name}-prot", text)
        assert (
            pit.testid("ratings-csv").get_attribute("href")
            == "/api/pit/ratings?by=table&format=csv"
        )

        aid = alert["id"]
        pit.wait_text(f"alert-player-{aid}", "demo")
        pit.wait_text(f"alert-statistic-{aid}", "5.25")
        first = pit.testid(f"evidence-{aid}-0")
        assert not first.is_visible()  # folded until opened
        pit.testid(f"alert-{aid}").locator("summary").click()
        for i, e in enumerate(alert["evidence"]):
            row = pit.testid(f"evidence-{aid}-{i}").locator("td")
            assert row.nth(0).inner_text() == e["round_id"]
            assert row.nth(1).inner_text() == "big_tiger"
            assert row.nth(2).inner_text() == money(e["stake"])
            assert row.nth(3).inner_text() == "demo"
            assert row.nth(4).inner_text() == percent(e["value"])
            assert row.nth(5).inner_text() == " ".join(map(str, e["composition"]))
        assert len(alert["evidence"]) == 2
        tid = table_alert["id"]
        pit.wait_text(f"alert-player-{tid}", "the table")
        pit.wait_text(f"alert-test-{tid}", "the table: stakes and value")
        pit.wait_text(f"alert-expected-{tid}", "; worth 15.20 to the bettors at placement")
        pit.testid(f"alert-{tid}").locator("summary").click()
        for i, e in enumerate(table_alert["evidence"]):
            placed = pit.testid(f"evidence-players-{tid}-{i}").inner_text()
            assert placed == f"big-{i} {money(e['stake'])}"
        pit.screenshot("browser-pit-protection")
        pit.check()
    finally:
        pit.close()
