"""Card handling on the dealer console in Debian's Chromium (MBS Tiger
Baccarat 3.9-3.12; punto.server.routes.handling): the console shows the Method and
who squeezes, the Dealer passes the cards with a button, and the pit
manager changes the Method between rounds.  Screenshots go to
``artifacts/``."""

from __future__ import annotations

import re
from decimal import Decimal

from playwright.sync_api import Browser, expect

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


def test_tiger_baccarat_3_10_2_the_dealer_passes_the_cards_from_the_console(
    browser: Browser, site: Site
) -> None:
    """Two banker bets (100 and 300): after 'No more bets' the console offers
    the Banker cards to demo2, the higher bettor; the Dealer passes them, the
    line says who squeezes; the coup is settled with exact money; then the
    pit manager changes to Method B for the next round."""
    site.new_table("squeeze", "tiger-baccarat", card_source="device")
    before = {who: site.balance(who) for who in (PLAYER, PLAYER2)}
    dealer = open_page(browser, site, "/dealer/squeeze", "dealer")
    try:
        dealer.login(DEALER)
        dealer.testid("handling-box").wait_for()
        dealer.wait_text("handling", "Method A")
        dealer.testid("btn-open").click()
        dealer.wait_text("phase", re.compile("bets", re.IGNORECASE))
        site.call("POST", "/api/tables/squeeze/bets", PLAYER, {"wager": "banker", "stake": "100"})
        site.call("POST", "/api/tables/squeeze/bets", PLAYER2, {"wager": "banker", "stake": "300"})
        expect(dealer.testid("btn-pass-banker")).to_be_disabled()  # not while betting
        dealer.confirm("btn-close")
        expect(dealer.testid("btn-pass-banker")).to_be_enabled()
        expect(dealer.testid("btn-pass-banker")).to_have_text("Pass the Banker cards to demo2")
        expect(dealer.testid("btn-pass-player")).to_be_disabled()  # nobody bet on Player
        dealer.testid("btn-pass-banker").click()
        dealer.wait_text("message", "The Banker cards to demo2.")
        dealer.wait_text("handling", "Method A · banker: demo2 squeezes")
        expect(dealer.testid("btn-pass-banker")).to_be_disabled()
        dealer.screenshot("browser-handling-passed")
        site.deal("squeeze", "9H 2C KD 3S")  # the Player wins 9 to 5
        dealer.confirm("btn-settle")
        dealer.wait_text("result", re.compile("Player wins 9 to 5"))
        assert site.balance(PLAYER) == before[PLAYER] - 100
        assert site.balance(PLAYER2) == before[PLAYER2] - 300
        dealer.wait_text("house", re.compile(re.escape(money(400))))

        dealer.check()
    finally:
        dealer.close()
    pit = open_page(browser, site, "/dealer/squeeze", "pit")
    try:
        pit.login(PIT)
        pit.testid("method-select").select_option("B")
        pit.testid("btn-method").click()
        pit.wait_text("message", "Method B from the next round (clause 3.9.2).")
        pit.wait_text("handling", re.compile("Method B from the next round"))
        assert site.call("GET", "/api/tables/squeeze", DEALER)["table"]["method"] == "B"
        pit.check()
    finally:
        pit.close()


def test_tiger_baccarat_3_10_3_the_player_refuses_the_cards_on_the_page(
    browser: Browser, site: Site
) -> None:
    """demo2 (300 on Banker) is passed the Banker cards and refuses them on
    the player's page; the Dealer passes them to demo (100); the coup is
    settled with exact money."""
    site.new_table("refuse", "tiger-baccarat", card_source="device")
    before = {who: site.balance(who) for who in (PLAYER, PLAYER2)}
    page = open_page(browser, site, "/play/refuse", "player")
    try:
        page.login(PLAYER2)
        site.call("POST", "/api/tables/refuse/round/open", DEALER)
        site.call("POST", "/api/tables/refuse/bets", PLAYER, {"wager": "banker", "stake": "100"})
        site.call("POST", "/api/tables/refuse/bets", PLAYER2, {"wager": "banker", "stake": "300"})
        site.call("POST", "/api/tables/refuse/round/close", DEALER)
        passed = site.call("POST", "/api/tables/refuse/handling/pass", DEALER, {"hand": "banker"})
        assert passed["handling"]["squeezers"]["banker"] == "demo2"
        page.wait_text("handling", re.compile("Banker cards are passed to you"))
        page.screenshot("browser-handling-player-passed")
        page.testid("refuse-banker").click()
        expect(page.testid("handling")).to_be_hidden()
        state = site.call("GET", "/api/tables/refuse", DEALER)
        assert state["round"]["handling"]["refused"]["banker"] == ["demo2"]
        assert state["round"]["handling"]["next"]["banker"] == "demo"
        again = site.call("POST", "/api/tables/refuse/handling/pass", DEALER, {"hand": "banker"})
        assert again["handling"]["squeezers"]["banker"] == "demo"
        site.deal("refuse", "2C 9H 3S KD")  # the Banker wins 9 to 5
        site.call("POST", "/api/tables/refuse/round/settle", DEALER)
        assert site.balance(PLAYER) == before[PLAYER] + Decimal("95")
        assert site.balance(PLAYER2) == before[PLAYER2] + Decimal("285")
        page.check()
    finally:
        page.close()
