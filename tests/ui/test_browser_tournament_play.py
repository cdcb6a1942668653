"""Playing a live tournament on its page, in Debian's Chromium on a
phone-sized screen: a player logs in, registers (the balance drops by the
entry fee), bets during a live hand's betting window, and sees the hand's
result and the leaderboard update."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

import httpx2
import pytest
from playwright.sync_api import Browser, expect

from tests.server.test_server_support import live_server, make_app
from tests.ui.test_browser_support import PIT, PLAYER, Site, browser, money, open_page

__all__ = ["browser"]


@pytest.fixture(scope="module")
def play_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    database = f"sqlite:///{tmp_path_factory.mktemp('tournament-play') / 'punto.db'}"
    with (
        live_server(make_app(database)) as base,
        httpx2.Client(base_url=base, timeout=30) as client,
    ):
        yield Site(base, database, client)


@pytest.mark.slow
def test_a_player_registers_and_bets_in_a_live_hand(browser: Browser, play_site: Site) -> None:
    site = play_site
    site.call(
        "POST",
        "/api/tournaments",
        PIT,
        {
            "id": "play",
            "format": "turbo",
            "seed": 4,
            "tables": 1,
            "live": True,
            "betting_seconds": 8,
            "pause_seconds": 1,
        },
    )
    for i in range(3):
        site.call(
            "POST",
            "/api/tournaments/play/register",
            PIT,
            {"name": f"Bot {i + 1}", "strategy": "flat"},
        )
    before = site.balance(PLAYER)
    page = open_page(
        browser, site, "/tournaments/play", "tournament-play", width=390, height=844, phone=True
    )
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(PLAYER)
        page.wait_text("t-balance", money(before))
        expect(page.testid("t-fee")).to_contain_text("Entry fee 50.00 SGD")
        expect(page.testid("t-fee")).to_contain_text(money(before))

        page.testid("t-register").click()
        expect(page.testid("t-message")).to_contain_text("Registered")
        fee = Decimal("50.00")
        page.wait_text("t-balance", money(before - fee))
        assert site.balance(PLAYER) == before - fee
        assert site.ledger_balance(PLAYER[0]) == before - fee

        site.call("POST", "/api/tournaments/play/start", PIT)
        # the betting window of hand 1: a countdown, the format's wagers and limits
        expect(page.testid("t-play")).to_be_visible()
        expect(page.testid("t-countdown")).to_have_text(re.compile(r"^\d+\.\d s$"))
        expect(page.testid("t-limits")).to_contain_text("200")
        for wager in ("banker", "player", "tie", "player_pair", "banker_pair"):
            expect(page.testid(f"t-wager-{wager}")).to_be_attached()
        page.page.locator('label[for="t-wager-banker"]').click()
        page.testid("t-stake").fill("500")
        page.testid("t-bet").click()
        expect(page.testid("t-my-bet")).to_have_text("Your bet: Banker 500")
        page.assert_fits()
        page.screenshot("tournament-play-betting")

        # the window closes, the hand is dealt: the result, and the leaderboard
        expect(page.testid("t-last-result")).to_contain_text("Hand 1", timeout=20_000)
        board = site.call("GET", "/api/tournaments/play/leaderboard", PIT)
        me = next(row for row in board["overall"] if row["entrant"] == PLAYER[0])
        assert me["hands_bet"] == 1
        assert me["chips"] in (20000 - 500, 20000 + 500)
        row = page.page.locator(f'[data-testid="t-overall-row"][data-entrant="{PLAYER[0]}"]')
        expect(row).to_contain_text(f"{me['chips']:,}")
        expect(row).to_contain_text("1/10")
        expect(page.testid("t-my-chips")).to_have_text(f"{me['chips']:,}")
        page.screenshot("tournament-play-result")
        page.check()
    finally:
        page.context.close()
