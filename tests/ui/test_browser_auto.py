"""The player's page at a table run by the automatic dealer, in Debian's
Chromium: the betting countdown runs, a bet placed
by clicking a chip and an area before it ends is dealt and settled by the
automatic dealer, and the page shows what the API and the ledger say."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

import pytest
from playwright.sync_api import Browser

from tests.ui.test_browser_support import (
    PIT,
    PLAYER,
    Site,
    browser,
    money,
    open_page,
    serve,
    signed,
)

__all__ = ["browser"]

#: Fast, but with time to click during the countdown, and a result shown
#: long enough (3 s) that a slow CI machine, busy taking a screenshot, still
#: sees the round it bet on settle rather than the next one.
TIMINGS = {
    "betting_seconds": 2.5,
    "card_delay": 0.15,
    "insurance_seconds": 0.3,
    "result_seconds": 3.0,
    "seed": "browser",
}


@pytest.fixture(scope="module")
def auto_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The server with its automatic dealers; only the demo's Tiger Baccarat runs."""
    with serve(tmp_path_factory.mktemp("auto"), auto_dealers=True, demo_options=TIMINGS) as running:
        running.call("PATCH", "/api/tables/buffalo", PIT, {"active": False})
        yield running


@pytest.mark.slow
def test_countdown_bet_and_settlement_by_the_automatic_dealer(
    browser: Browser, auto_site: Site
) -> None:
    site = auto_site
    player = open_page(browser, site, "/play/tiger", "player")
    try:
        player.login(PLAYER)
        before = site.balance(PLAYER)
        player.wait_phase("betting")
        player.wait_text("countdown", re.compile(r"^\d\.\d s$"))
        if float(player.testid("countdown").inner_text().split()[0]) < 1.2:
            player.wait_phase("dealing")  # too late to bet this round: the next one
            player.wait_phase("betting")
        assert player.page.locator(".timer").is_visible()
        round_id = player.testid("round-id").inner_text()
        player.testid("chip-50").click()
        player.testid("area-banker").click()
        player.wait_text("mine-banker", "50.00")
        player.screenshot("browser-7-auto-countdown")
        # The settled phase of *this* round, not merely of some round.
        player.page.wait_for_function(
            """id => document.querySelector('[data-testid="phase"]')?.dataset.phase === "settled"
                && document.querySelector('[data-testid="round-id"]')?.textContent.trim() === id""",
            arg=round_id,
        )
        detail = site.call("GET", f"/api/tables/tiger/rounds/{round_id}", PIT)
        [result] = [r for r in detail["results"] if r["player"] == PLAYER[0]]
        net = Decimal(result["payout"]) - Decimal(result["stake"])
        words = "You win" if net > 0 else "You lose" if net < 0 else "Net"
        player.wait_text("net", f"{words} {signed(net)}")
        after = before + net
        player.wait_text("balance", money(after))
        assert site.balance(PLAYER) == after
        assert site.ledger_balance(PLAYER[0]) == after
        assert 4 <= player.cards() <= 6
        player.screenshot("browser-7-auto-settled")
        player.check()
    finally:
        player.close()
