"""The player's page and the dealer console in Debian's Chromium, against a
real server: bets placed by clicking chips and
betting areas, a coup dealt from the console card by card, the settlement
and the new balance checked against the API and the ledger; Insurance Plus
offered, taken and passed on Tiger Buffalo; the phone-sized page; the layout
of every game and every Tiger Buffalo layout drawn from the game data.
Screenshots of each step go to ``artifacts/``."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import Browser, expect

from tests.server.test_server_support import ADMIN, SHIFT
from tests.ui.test_browser_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    Site,
    browser,
    money,
    open_page,
    signed,
    site,
)

__all__ = ["browser", "site"]


@pytest.mark.slow
def test_player_bets_dealer_deals_from_the_console_and_settles(
    browser: Browser, site: Site
) -> None:
    """Dragon Tiger (the demo's dealer-console table): the player bets 100 on
    Player and 25 on Banker by clicking chips and areas; the dealer opens,
    closes, keys a natural 9 to 5 card by card and settles; the player sees
    each card, the result per bet, the net +75.00 and the new balance."""
    # the dealer keys the cards: the table deals from a physical shoe (2.1)
    site.call("PATCH", "/api/tables/dragon", PIT, {"card_source": "device"})
    before = site.balance(PLAYER)
    dealer = open_page(browser, site, "/dealer/dragon", "dealer")
    player = open_page(browser, site, "/play/dragon", "player")
    try:
        dealer.login(DEALER)
        player.login(PLAYER)
        player.wait_text("balance", money(before))
        dealer.testid("btn-open").click()
        player.wait_phase("betting")

        player.testid("chip-100").click()
        player.testid("area-player").click()
        player.wait_text("mine-player", "100.00")
        player.testid("chip-25").click()
        player.testid("area-banker").click()
        player.wait_text("mine-banker", "25.00")
        player.wait_text("balance", money(before - 125))
        assert player.page.get_by_test_id("my-bet").count() == 2
        dealer.page.get_by_test_id("bet-row").nth(1).wait_for()
        player.assert_labelled()
        dealer.assert_labelled()
        player.screenshot("browser-1-player-bets")
        dealer.screenshot("browser-1-dealer-betting")

        dealer.confirm("btn-close")
        player.wait_phase("dealing")
        player.wait_text("phase", "No more bets")
        # Key the coup: the first card by the keypad, the rest typed in.
        dealer.testid("key-9").click()
        dealer.testid("key-S").click()
        player.wait_cards(1)
        for n, card in enumerate(["2H", "KD", "3C"], start=2):
            dealer.key_card(card)
            player.wait_cards(n)
            if n == 3:
                player.screenshot("browser-1-player-dealing")
        player.wait_text("player-total", "9")
        player.wait_text("banker-total", "5")
        player.wait_phase("result")
        dealer.wait_text("result", re.compile("Player wins 9 to 5"))
        dealer.confirm("btn-settle")

        player.wait_phase("settled")
        player.wait_text("result", re.compile(r"^Player wins 9 to 5 · natural"))
        player.wait_text("net", f"You win {signed(75)}")
        player.wait_text("banner-net", f"You win {signed(75)}")
        outcomes = {
            row.get_attribute("data-wager"): (
                row.get_attribute("data-outcome"),
                row.get_by_test_id("my-result-net").inner_text(),
            )
            for row in player.page.get_by_test_id("my-result").all()
        }
        assert outcomes == {"player": ("win", "+100.00"), "banker": ("lose", "−25.00")}
        after = before + 75
        player.wait_text("balance", money(after))
        assert site.balance(PLAYER) == after
        assert site.ledger_balance(PLAYER[0]) == after
        assert "won" in (player.testid("area-player").get_attribute("class") or "")
        assert "lost" in (player.testid("area-banker").get_attribute("class") or "")
        player.testid("road-bead").locator('[data-testid="bead-cell"]').first.wait_for()
        player.screenshot("browser-1-player-settled")
        dealer.screenshot("browser-1-dealer-settled")
        player.check()
        dealer.check()
    finally:
        player.close()
        dealer.close()


@pytest.mark.slow
def test_tiger_buffalo_insurance_plus_taken_and_passed(browser: Browser, site: Site) -> None:
    """Tiger Buffalo layout A at a dealer's table, cards keyed for a known
    offer: Player 5 v Banker 4 after four cards is insured at 3 to 2 (cap:
    the Original Bet); the 10 to 1 offer after the Player's third card is
    passed; the Banker wins 9 to 8, so the Player bet loses 100 and the
    insurance wins 75: net -25.00."""
    site.new_table("buffalo-keyed", "tiger-buffalo", "A", card_source="device")
    before = site.balance(PLAYER)
    dealer = open_page(browser, site, "/dealer/buffalo-keyed", "dealer")
    player = open_page(browser, site, "/play/buffalo-keyed", "player")
    try:
        dealer.login(DEALER)
        player.login(PLAYER)
        dealer.testid("btn-open").click()
        player.wait_phase("betting")
        player.testid("chip-100").click()
        player.testid("area-player").click()
        player.wait_text("mine-player", "100.00")
        dealer.confirm("btn-close")
        player.wait_text("phase", "No more bets")
        for n, card in enumerate(["3H", "4C", "2D", "KS"], start=1):
            dealer.key_card(card)
            player.wait_cards(n)

        offer = player.testid("offer-player_insurance")
        offer.wait_for()
        assert player.testid("offer-odds-player_insurance").inner_text() == "pays 3 to 2"
        state = site.call("GET", "/api/tables/buffalo-keyed", PLAYER)
        cap = state["me"]["insurance_caps"]["player_insurance"]
        assert Decimal(cap) == 100
        assert player.testid("offer-cap-player_insurance").inner_text() == f"up to {money(cap)}"
        assert "Player 5 v Banker 4" in offer.inner_text()
        assert player.testid("offer-banker_insurance").count() == 0  # nothing to insure there
        dealer.testid("dealer-offer-player_insurance").wait_for()
        player.screenshot("browser-5-insurance-offer")
        player.assert_labelled()

        player.testid("insurance-stake-player_insurance").fill("50")
        player.testid("insure-player_insurance").click()
        player.wait_text("offer-taken-player_insurance", "Insured 50.00")
        player.wait_text("balance", money(before - 150))
        dealer.wait_text("insurance-bets", re.compile("demo Player Insurance 50.00"))
        dealer.screenshot("browser-5-dealer-insurance-window")

        dealer.key_card("3S")  # Player 8 v Banker 4: a 10 to 1 offer
        player.wait_cards(5)
        player.wait_text("offer-odds-player_insurance", "pays 10 to 1")
        player.screenshot("browser-5-insurance-second-offer")
        player.testid("pass-player_insurance").click()
        player.page.get_by_test_id("insurance").wait_for(state="hidden")

        dealer.key_card("5H")  # Banker 9
        player.wait_cards(6)
        dealer.wait_text("result", re.compile("Banker wins 9 to 8"))
        dealer.confirm("btn-settle")
        player.wait_phase("settled")
        player.wait_text("net", f"You lose {signed(-25)}")
        results = {
            row.get_attribute("data-wager"): row.get_by_test_id("my-result-net").inner_text()
            for row in player.page.get_by_test_id("my-result").all()
        }
        assert results == {"player": "−100.00", "player_insurance": "+75.00"}
        after = before - 25
        player.wait_text("balance", money(after))
        assert site.balance(PLAYER) == after
        assert site.ledger_balance(PLAYER[0]) == after
        player.screenshot("browser-5-insurance-settled")
        player.check()
        dealer.check()
    finally:
        player.close()
        dealer.close()


def test_phone_sized_player_page_has_no_sideways_scroll_and_bets(
    browser: Browser, site: Site
) -> None:
    """390 x 844 (a phone): the whole page fits the width at every step;
    chips and areas are tapped; Banker 10 wins on a natural 8 at 0.95 to 1
    (9.50), Tie 10 loses: net -0.50."""
    site.new_table("phone", "tiger-baccarat", card_source="device")
    phone = open_page(browser, site, "/play/phone", "phone", width=390, height=844, phone=True)
    try:
        phone.login(PLAYER2)
        before = site.balance(PLAYER2)
        site.call("POST", "/api/tables/phone/round/open", DEALER)
        phone.wait_phase("betting")
        assert phone.page.evaluate("document.documentElement.clientWidth") == 390
        phone.assert_fits()
        phone.testid("chip-10").tap()
        phone.testid("area-banker").tap()
        phone.wait_text("mine-banker", "10.00")
        phone.testid("area-tie").tap()
        phone.wait_text("mine-tie", "10.00")
        phone.wait_text("balance", money(before - 20))
        phone.screenshot("browser-4-phone-bets")
        phone.assert_labelled()
        phone.assert_fits()

        site.call("POST", "/api/tables/phone/round/close", DEALER)
        site.deal("phone", "2S 8H 3D KC")  # Player 5 v Banker 8, a natural
        site.call("POST", "/api/tables/phone/round/settle", DEALER)
        phone.wait_text("net", f"You lose {signed(Decimal('-0.50'))}")
        phone.wait_text("result", re.compile(r"^Banker wins 8 to 5 · natural"))
        phone.wait_text("banner-net", f"You lose {signed(Decimal('-0.50'))}")
        after = before - Decimal("0.50")
        phone.wait_text("balance", money(after))
        assert site.balance(PLAYER2) == after
        assert site.ledger_balance(PLAYER2[0]) == after
        phone.assert_fits()
        phone.screenshot("browser-4-phone-settled")

        # The next round: Rebet repeats both bets, Clear takes them back.
        site.call("POST", "/api/tables/phone/round/open", DEALER)
        phone.wait_phase("betting")
        phone.testid("btn-rebet").tap()
        phone.wait_text("mine-banker", "10.00")
        phone.wait_text("mine-tie", "10.00")
        phone.wait_text("balance", money(after - 20))
        phone.testid("btn-clear").tap()
        phone.wait_text("message", "Your bets are cleared.")
        phone.wait_text("balance", money(after))
        expect(phone.testid("mine-banker")).to_have_text("")
        expect(phone.testid("mine-tie")).to_have_text("")
        assert site.balance(PLAYER2) == after
        phone.check()
    finally:
        phone.close()


@pytest.mark.slow
def test_every_game_and_tiger_buffalo_layout_is_drawn_from_the_game_data(
    browser: Browser, site: Site
) -> None:
    """Each of the five games, and each of Tiger Buffalo's 14 layouts: the
    page draws exactly the layout's betting areas (Insurance Plus is offered
    mid-coup, not drawn), each with its pays as the game data has them."""
    games = site.client.get("/api/games").json()
    assert len(games) == 5
    page = open_page(browser, site, "/", "layouts")
    try:
        for game in games:
            layouts = list(game["layouts"]) if game["layouts_differ"] else ["A"]
            for layout in layouts:
                table = f"lay-{game['id']}-{layout}".lower()
                site.new_table(table, game["id"], layout)
                page.page.goto(f"{site.base}/play/{table}")
                wanted = [
                    w for w in game["layouts"][layout]["wagers"] if not game["wagers"][w]["insures"]
                ]
                page.testid(f"area-{wanted[-1]}").wait_for()
                drawn = page.page.locator('[data-testid^="area-"]').evaluate_all(
                    "nodes => nodes.map(n => n.dataset.wager)"
                )
                assert sorted(drawn) == sorted(wanted), (game["id"], layout)
                for wager in wanted:
                    pays = page.testid(f"area-{wager}").locator(".pays").inner_text()
                    for odds in game["wagers"][wager]["pays"].values():
                        shown = re.sub(r"^([\d.]+) to ([\d.]+)$", r"\1:\2", odds)
                        assert shown in pays, (game["id"], layout, wager, odds, pays)
                if layout in ("A", "M"):
                    page.screenshot(f"browser-layout-{game['id']}-{layout}")
        page.check()
    finally:
        page.close()


def test_tiger_baccarat_6_1_dealer_files_a_void_the_shift_manager_confirms(
    browser: Browser, site: Site
) -> None:
    """An irregularity the rules do not cover: the dealer files the void from
    the console (6.1); nothing moves until the Gaming Shift Manager, in their
    own session, confirms it (6.2); the player's page says so, and the stake
    comes back to the cent."""
    site.new_table("void", "tiger-baccarat", card_source="device")
    site.call(
        "POST",
        "/api/users",
        ADMIN,
        {"username": SHIFT[0], "password": SHIFT[1], "role": "shift_manager"},
    )
    before = site.balance(PLAYER)
    site.call("POST", "/api/tables/void/round/open", DEALER)
    site.call("POST", "/api/tables/void/bets", PLAYER, {"wager": "player", "stake": "100"})
    site.call("POST", "/api/tables/void/round/close", DEALER)
    dealer = open_page(browser, site, "/dealer/void", "dealer")
    player = open_page(browser, site, "/play/void", "player")
    try:
        dealer.login(DEALER)
        player.login(PLAYER)
        player.wait_text("balance", money(before - 100))
        dealer.key_card("7H")
        player.wait_cards(1)
        dealer.testid("void-reason").fill("a card was exposed")
        dealer.confirm("btn-void")
        dealer.wait_text("message", re.compile(r"^Filed: unforeseen under clause 6\.1 waits"))
        dealer.wait_text(
            "claim-text", re.compile(r"filed by dealer, waiting for a Gaming Shift Manager")
        )
        assert site.balance(PLAYER) == before - 100
        claims = site.call("GET", "/api/tables/void/claims", PIT)
        (claim,) = claims["claims"]
        site.call("POST", f"/api/tables/void/claims/{claim['claim_id']}/confirm", SHIFT)
        player.wait_phase("void")
        player.wait_text("result", re.compile(r"^Round void: a card was exposed"))
        player.wait_text("balance", money(before))
        assert site.balance(PLAYER) == before
        assert site.ledger_balance(PLAYER[0]) == before
        dealer.page.locator('[data-testid="bet-result"]').first.wait_for()
        dealer.screenshot("browser-6-dealer-void")
        player.screenshot("browser-6-player-void")
        audit = site.call("GET", "/api/pit/audit?table_id=void", PIT)
        confirmed = next(a for a in audit if a["action"] == "claim_confirmed")
        assert (confirmed["username"], confirmed["detail"]["clause"]) == (SHIFT[0], "6.1")
        dealer.check()
        player.check()
    finally:
        player.close()
        dealer.close()
