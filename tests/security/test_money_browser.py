"""Security review, a bet carries no round, in Chromium: the player page sends the
round it shows, and a bet the network holds back until that round is over is
refused as a late bet (Dragon Tiger MBS 5.4) instead of landing in the next
round, which the player never saw."""

from __future__ import annotations

import re
from decimal import Decimal

from playwright.sync_api import Browser, Route

from tests.ui.test_browser_support import (
    DEALER,
    PLAYER,
    Site,
    browser,
    money,
    open_page,
    site,
)

__all__ = ["browser", "site"]

#: Banker 6 with three cards against Player 5: Banker wins.
BANKER_WINS = "QH 2C 2D KS 3H 4D"


def round_in_play(site: Site, table: str) -> str:
    round_id: str = site.call("GET", f"/api/tables/{table}", PLAYER)["round"]["id"]
    return round_id


def test_dragon_tiger_5_4_the_player_page_bet_delayed_past_its_round_is_refused(
    browser: Browser, site: Site
) -> None:
    site.new_table("late", "dragon-tiger", card_source="device")
    before = site.balance(PLAYER)
    player = open_page(browser, site, "/play/late", "player")
    try:
        player.login(PLAYER)
        player.wait_text("balance", money(before))
        site.call("POST", "/api/tables/late/round/open", DEALER)
        player.wait_phase("betting")
        shown = round_in_play(site, "late")

        # A bet sent at once is for the round on the screen, and is taken.
        with player.page.expect_request(
            lambda r: r.method == "POST" and r.url.endswith("/api/tables/late/bets")
        ) as sent:
            player.testid("chip-100").click()
            player.testid("area-player").click()
        body = sent.value.post_data_json
        assert isinstance(body, dict), body
        assert body["round_id"] == shown
        player.wait_text("balance", money(before - 100))

        # The next bet is held on the way until the round is over and another
        # is open: as found, it was taken into that other round.
        def hold_until_the_round_is_over(route: Route) -> None:
            site.call("POST", "/api/tables/late/round/close", DEALER)
            site.deal("late", BANKER_WINS)
            site.call("POST", "/api/tables/late/round/settle", DEALER)
            site.call("POST", "/api/tables/late/round/open", DEALER)
            route.continue_()

        player.page.route("**/api/tables/late/bets", hold_until_the_round_is_over)
        player.testid("chip-25").click()
        player.testid("area-banker").click()
        player.wait_text("message", re.compile("no longer taking bets"))
        player.page.unroute("**/api/tables/late/bets")
        now = round_in_play(site, "late")
        assert now != shown
        message = player.testid("message").text_content() or ""
        assert f"this bet is for round {shown}, which is no longer taking bets" in message
        # The Player bet of 100 lost to the Banker; the held bet took nothing.
        assert site.balance(PLAYER) == before - 100
        assert site.ledger_balance(PLAYER[0]) == before - Decimal(100)
        mine = site.call("GET", "/api/tables/late", PLAYER)["me"]
        assert mine["bets"] == []
        # the browser logs the refusal (409) it was shown; nothing else went wrong
        assert player.errors == [
            "console error: Failed to load resource: the server responded with a status "
            "of 409 (Conflict)"
        ]
    finally:
        player.close()
