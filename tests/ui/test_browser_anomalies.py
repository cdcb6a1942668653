"""The pit page's Warnings and Anomalies sections in Debian's Chromium:
what they show is what the API says."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.server.test_server_support import ADMIN, SHIFT
from tests.ui.test_browser_support import DEALER, PIT, PLAYER, Site, browser, open_page, site

__all__ = ["browser", "site"]


def percent(x: float) -> str:
    """A share as anomalies.js shows it: 2 places, a true minus sign."""
    return f"{100 * x:.2f}%".replace("-", "−")


@pytest.mark.slow
def test_pit_page_shows_no_player_favoured_wager_and_the_anomalies_the_api_gives(
    browser: Browser, site: Site
) -> None:
    """A Tiger Baccarat table opened from the page: with Tiger Pair read by
    rank (1.1.14's default) nothing favours the player, so no confirmation
    is asked and the Warnings section says none (the demo's tables
    neither).  One keyed coup at it (Banker 100 and Tiger Pair 10 on a
    Banker Natural 9 against 7: Banker wins 19:20, Tiger Pair loses); the
    anomalies as the API gives them.  (A player-favoured wager's refusal,
    confirmation and warning: tests/server/test_server_anomalies.py.)"""
    pit = open_page(browser, site, "/pit", "pit-protection")
    try:
        pit.login(PIT)
        pit.testid("warnings-list").wait_for()
        pit.testid("warnings-none").wait_for(timeout=30_000)
        pit.testid("new-id").fill("fav")
        pit.testid("new-game").select_option("tiger-baccarat")
        pit.testid("new-source").select_option("device")
        pit.testid("new-submit").click()
        pit.wait_text("message", "Table fav is open.")

        site.call("POST", "/api/tables/fav/round/open", DEALER)
        for wager, stake in (("banker", "100"), ("tiger_pair", "10")):
            site.call("POST", "/api/tables/fav/bets", PLAYER, {"wager": wager, "stake": stake})
        site.call("POST", "/api/tables/fav/round/close", DEALER)
        site.deal("fav", "8S 6H 9D 3S")
        site.call("POST", "/api/tables/fav/round/settle", DEALER)
        # a second round voided by the Gaming Shift Manager before its cards:
        # the Banker 100 it returned is a ruled stake, with its value at placement
        site.call(
            "POST",
            "/api/users",
            ADMIN,
            {"username": SHIFT[0], "password": SHIFT[1], "role": "shift_manager"},
        )
        site.call("POST", "/api/tables/fav/round/open", DEALER)
        site.call("POST", "/api/tables/fav/bets", PLAYER, {"wager": "banker", "stake": "100"})
        site.call("POST", "/api/tables/fav/round/close", DEALER)
        # filed by the dealer, confirmed by the shift manager (MBS 6.1, 6.2)
        filed = site.call("POST", "/api/tables/fav/round/void", DEALER, {"reason": "a card seen"})
        claim = filed["claim"]["claim_id"]
        site.call("POST", f"/api/tables/fav/claims/{claim}/confirm", SHIFT)

        assert site.call("GET", "/api/pit/warnings", PIT) == []
        pit.testid("warnings-none").wait_for()

        report: dict[str, Any] = site.call("GET", "/api/pit/anomalies", PIT)
        table = next(t for t in report["tables"] if t["name"] == "fav")
        dealer = next(d for d in report["dealers"] if d["name"] == "dealer")
        assert table["hold"]["staked"] == "110.00"
        assert table["hold"]["house_win"] == "-85.00"  # Banker +95, Tiger Pair -10
        hold = pit.testid("anomaly-table-fav-hold")
        hold.filter(has_text=percent(table["hold"]["actual_hold"])).wait_for(timeout=30_000)
        assert pit.testid("anomaly-table-fav-theoretical").inner_text() == percent(
            table["hold"]["theoretical_hold"]
        )
        keyed = dealer["counts"]["keyed_cards"]["per_hundred_rounds"]
        assert pit.testid("anomaly-dealer-dealer-keyed_cards").inner_text() == f"{keyed:.2f}"
        assert report["tests"]["counts"] in pit.testid("anomalies-tests").inner_text()
        (pair,) = report["players"]
        key = f"{pair['dealer']}-{pair['player']}"
        pit.testid(f"rulings-{key}").locator("summary").click()
        cells = pit.testid(f"ruled-{key}-0").locator("td")
        (ruled,) = pair["ruled"]
        assert [cells.nth(i).inner_text() for i in range(8)] == [
            ruled["round_id"],
            "void",
            ruled["clause"],
            "banker",
            "100.00",
            "not dealt",
            "0.00",
            "–",
        ]
        assert cells.nth(8).get_attribute("title") == f"exact return per unit: {ruled['value']}"
        pit.screenshot("browser-pit-protection")
        pit.assert_labelled()
        # the one refusal asked for above is the only error the browser logged
        assert all("422" in e for e in pit.errors), pit.errors
    finally:
        pit.close()
