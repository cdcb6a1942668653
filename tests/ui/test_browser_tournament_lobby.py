"""The tournaments on the web, in Debian's Chromium: the lobby at
``/tournaments`` lists the demo's tournament (format, entry fee, prize pool,
seats); the demo player registers there, the pit starts it on its own page,
the player bets on the tournament's table page with chips and sees each
hand's cards on the felt by side, both totals and the result, and the
leaderboard, here and on the big screen.  A tournament the pit runs by hand
is created, filled with automated entrants, started and advanced from the
pit's page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

import httpx2
import pytest
from playwright.sync_api import Browser, expect

from tests.server.test_server_support import live_server, make_app
from tests.ui.test_browser_support import PIT, PLAYER, Page, Site, browser, money, open_page

__all__ = ["browser"]

#: how long a test waits for a live hand: its betting window, the deal, the pause
HAND_MS = 60_000


def hand_bet(page: Page) -> int:
    """The number of the hand being bet, as the page says it."""
    found = re.match(r"Hand (\d+) of \d+", page.testid("t-hand").inner_text())
    assert found is not None
    return int(found.group(1))


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The demo server with its tournament, on short betting windows."""
    database = f"sqlite:///{tmp_path_factory.mktemp('tournament-lobby') / 'punto.db'}"
    app = make_app(database, demo_tournament={"betting_seconds": 15, "pause_seconds": 2})
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=30) as client:
        yield Site(base, database, client)


@pytest.mark.slow
def test_the_demo_tournament_from_the_lobby_to_the_leaderboard(
    browser: Browser, demo_site: Site
) -> None:
    site = demo_site
    before = site.balance(PLAYER)
    lobby = open_page(browser, site, "/tournaments", "tournaments-lobby")
    player = open_page(browser, site, "/tournaments/demo-turbo", "tournament-table")
    pit = open_page(browser, site, "/pit/tournaments", "tournaments-pit")
    board = open_page(browser, site, "/tournaments/demo-turbo/board", "tournament-board")
    try:
        # the lobby, logged out: the demo's tournament, open for registration
        card = lobby.testid("l-tournament-demo-turbo")
        expect(card).to_be_visible()
        expect(lobby.testid("l-fee-demo-turbo")).to_have_text("50.00 SGD")
        expect(lobby.testid("l-prizes-demo-turbo")).to_have_text("850.00 SGD")
        expect(lobby.testid("l-seats-demo-turbo")).to_have_text("4 of 36 taken")
        expect(lobby.testid("l-stage-demo-turbo")).to_contain_text("Open for registration")
        expect(lobby.testid("nav-tournaments")).to_have_attribute("aria-current", "page")
        lobby.screenshot("tournaments-1-lobby")

        # the demo player registers from the lobby: the fee from the wallet
        lobby.login(PLAYER)
        lobby.wait_text("l-balance", money(before))
        lobby.testid("l-register-demo-turbo").click()
        expect(lobby.testid("l-message")).to_have_text(
            "Registered for Turbo Baccarat (entry fee 50.00 paid)"
        )
        expect(lobby.testid("l-seats-demo-turbo")).to_have_text("5 of 36 taken")
        expect(lobby.testid("l-mine-demo-turbo")).to_have_text("You are registered")
        fee = Decimal("50.00")
        lobby.wait_text("l-balance", money(before - fee))
        assert site.balance(PLAYER) == before - fee
        lobby.screenshot("tournaments-2-lobby-registered")

        # the entry taken back before the first session (T2.4), the fee with it; and again
        lobby.testid("l-withdraw-demo-turbo").click()
        expect(lobby.testid("l-message")).to_have_text(
            "Entry taken back (entry fee 50.00 given back)"
        )
        lobby.wait_text("l-balance", money(before))
        expect(lobby.testid("l-seats-demo-turbo")).to_have_text("4 of 36 taken")
        assert site.balance(PLAYER) == before
        lobby.testid("l-register-demo-turbo").click()
        expect(lobby.testid("l-mine-demo-turbo")).to_have_text("You are registered")
        lobby.wait_text("l-balance", money(before - fee))

        # the pit starts it from its own page
        pit.login(PIT)
        pit.testid("m-start-demo-turbo").click()
        expect(pit.testid("m-message")).to_have_text("demo-turbo: Heat started")
        expect(pit.testid("m-stage-demo-turbo")).to_contain_text("playing · Heat")
        pit.screenshot("tournaments-3-pit")

        # the table page: the betting window, chips adding to the stake
        player.login(PLAYER)
        expect(player.testid("t-play")).to_be_visible(timeout=HAND_MS)
        expect(player.testid("t-felt-countdown")).to_have_text(re.compile(r"^\d+\.\d s$"))
        player.testid("t-stake-clear").click()
        player.testid("t-chip-200").click()
        player.testid("t-chip-400").click()
        expect(player.testid("t-stake")).to_have_value("600")
        player.testid("t-wager-banker").check()
        player.testid("t-bet").click()
        expect(player.testid("t-my-bet")).to_have_text("Your bet: Banker 600")
        first = hand_bet(player)
        player.screenshot("tournaments-4-table-betting")

        # the hand on the felt: cards by side, totals, the result and my net
        expect(player.testid("t-last-result")).to_contain_text(f"Hand {first}: ", timeout=HAND_MS)
        hands = player.page.locator("#hands")
        expect(hands.get_by_test_id("player-hand").get_by_test_id("card")).not_to_have_count(0)
        expect(hands.get_by_test_id("banker-hand").get_by_test_id("card")).not_to_have_count(0)
        assert hands.get_by_test_id("card").count() >= 4
        snapshot = site.call("GET", "/api/tournaments/demo-turbo", PLAYER)
        hand = snapshot["tables"][0]["last_hand"]
        assert hand["type"] == "hand_settled"
        assert hand["hand"] == first
        # the felt shows the hand the server settled, card for card, until the next is dealt
        expect(player.testid("t-felt-caption")).to_contain_text(f"Hand {hand['hand']}")
        for side in ("player", "banker"):
            coup = hand["coup"][side]
            expect(player.testid(f"{side}-total")).to_have_text(str(coup["total"]))
            faces = hands.get_by_test_id(f"{side}-hand").get_by_test_id("card")
            assert [c.get_attribute("data-card") for c in faces.all()] == coup["cards"]
        expect(player.testid("result")).to_have_text(
            re.compile(r"(Player|Banker) wins \d to \d|Tie \d")
        )
        expect(player.testid("banner-net")).to_have_text(re.compile(r"^you [+−]?[\d,]+$"))
        me = next(e for e in snapshot["entrants"] if e["entrant"] == PLAYER[0])
        row = player.page.locator(f'[data-testid="t-overall-row"][data-entrant="{PLAYER[0]}"]')
        expect(row).to_contain_text(f"{me['chips']:,}")
        player.screenshot("tournaments-5-table-hand")

        # a second hand: the player bets again in its window
        expect(player.testid("t-play")).to_be_visible(timeout=HAND_MS)
        player.testid("t-stake-clear").click()
        player.testid("t-chip-200").click()
        player.testid("t-wager-player").check()
        player.testid("t-bet").click()
        expect(player.testid("t-my-bet")).to_have_text("Your bet: Player 200")
        second = hand_bet(player)
        assert second == first + 1
        expect(player.testid("t-last-result")).to_contain_text(f"Hand {second}: ", timeout=HAND_MS)
        expect(player.testid("t-last-result")).not_to_contain_text("sat out")

        # the big screen: every entrant ranked, the table's last hand on its felt
        expect(board.page.get_by_test_id("b-row")).to_have_count(5)
        expect(board.testid("b-table-1").get_by_test_id("card")).not_to_have_count(0)
        expect(board.testid("b-result-1")).to_have_text(re.compile(r"^Hand \d+: "))
        board.screenshot("tournaments-6-board")
        for page in (lobby, player, pit, board):
            page.check()
    finally:
        for page in (lobby, player, pit, board):
            page.close()


@pytest.mark.slow
def test_the_pit_creates_fills_starts_and_advances_a_tournament(
    browser: Browser, demo_site: Site
) -> None:
    pit = open_page(browser, demo_site, "/pit/tournaments", "tournaments-pit-by-hand")
    try:
        pit.login(PIT)
        pit.testid("m-id").fill("by-hand")
        pit.testid("m-format").select_option("turbo")
        pit.testid("m-live").uncheck()
        pit.testid("m-create-submit").click()
        expect(pit.testid("m-message")).to_have_text(
            "by-hand created (Turbo Baccarat): open for registration"
        )
        for n in range(4):
            pit.testid("m-strategy-by-hand").select_option("flat" if n % 2 else "banker")
            pit.testid("m-bot-by-hand").click()
            expect(pit.testid("m-stage-by-hand")).to_contain_text(f"{n + 1} of 36 entrants")
        pit.testid("m-start-by-hand").click()
        expect(pit.testid("m-message")).to_have_text("by-hand: Heat started")
        pit.testid("m-steps-by-hand").fill("40")
        pit.testid("m-advance-by-hand").click()
        expect(pit.testid("m-message")).to_have_text("by-hand: 40 steps played")
        board = demo_site.call("GET", "/api/tournaments/by-hand/leaderboard", PIT)
        assert board["tables"][0]["settled"] > 0
        pit.testid("m-reason-by-hand").fill("a test of the pit's page")
        pit.page.once("dialog", lambda dialog: dialog.accept())
        pit.testid("m-cancel-by-hand").click()
        expect(pit.testid("m-message")).to_have_text("by-hand cancelled; 0 entry fees given back")
        expect(pit.testid("m-stage-by-hand")).to_contain_text("cancelled")
        pit.screenshot("tournaments-7-pit-by-hand")
        pit.check()
    finally:
        pit.close()
