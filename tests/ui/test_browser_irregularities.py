"""The dealer console's procedures of the rules in Debian's Chromium, against
a real server: the dealer picks an irregularity from the list the server
gives, fills the form made from its parameters, has it confirmed by the pit
manager, and the player's page shows the round void and the stake back.
Screenshots go to ``artifacts/``."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.ui.test_browser_support import (
    DEALER,
    PIT,
    PLAYER,
    Site,
    browser,
    money,
    open_page,
    site,
)

__all__ = ["browser", "site"]


def test_mbs_5_1_foreign_card_applied_from_the_console_with_the_pit_managers_confirmation(
    browser: Browser, site: Site
) -> None:
    """Tiger Baccarat: the player bets 100 on Banker; after the first card the
    dealer applies "foreign card" (MBS 5.1) naming the card, confirmed by the
    pit manager; the console shows the ruling, the player's page the void and
    the 100.00 back, the balance as before (API and ledger agree)."""
    site.new_table("tiger-irregular", "tiger-baccarat")
    before = site.balance(PLAYER)
    dealer = open_page(
        browser, site, "/dealer/tiger-irregular", "dealer", width=390, height=844, phone=True
    )
    player = open_page(browser, site, "/play/tiger-irregular", "player")
    try:
        dealer.login(DEALER)
        player.login(PLAYER)
        dealer.testid("btn-open").click()
        player.wait_phase("betting")
        player.testid("chip-100").click()
        player.testid("area-banker").click()
        player.wait_text("mine-banker", "100.00")
        player.wait_text("balance", money(before - 100))
        dealer.testid("btn-close").click()
        player.wait_phase("dealing")
        dealer.testid("btn-draw").click()
        player.wait_cards(1)

        # The procedures the rules of Tiger Baccarat cover, from the server.
        select = dealer.testid("irr-select")
        expect(select.locator('option[value="foreign_card"]')).to_have_count(1)
        assert select.locator('option[value="left_with_cards"]').count() == 1  # MBS 5.11
        assert select.locator('option[value="power_failure"]').count() == 0  # its own button
        select.select_option("foreign_card")
        dealer.wait_text("irr-summary", re.compile(r"does not belong to the decks in use"))
        dealer.testid("irr-param-card").fill("QH")
        dealer.testid("manager-username").fill(PIT[0])
        dealer.testid("manager-password").fill(PIT[1])
        dealer.assert_labelled()
        dealer.assert_fits()
        dealer.screenshot("irregularity-1-dealer-form")
        dealer.testid("btn-irregularity").click()

        dealer.wait_text(
            "message",
            "Foreign card: ruling under clause 5.1, void; the round is void: every bet is "
            "returned.",
        )
        assert dealer.testid("manager-password").input_value() == ""
        dealer.wait_phase("void")
        player.wait_phase("void")
        player.wait_text("result", re.compile(r"^Round void: .*\(QH\).*\(clause 5\.1\)"))
        row = player.testid("my-result")
        expect(row).to_have_count(1)
        assert row.get_attribute("data-outcome") == "void"
        assert row.get_attribute("data-wager") == "banker"
        player.wait_text("balance", money(before))
        assert site.balance(PLAYER) == before
        assert site.ledger_balance(PLAYER[0]) == before
        dealer.assert_fits()
        dealer.screenshot("irregularity-2-dealer-ruling")
        player.screenshot("irregularity-3-player-void")

        audit = site.call("GET", "/api/pit/audit?table_id=tiger-irregular", PIT)
        assert audit[0]["action"] == "irregularity"
        assert audit[0]["detail"]["confirmed_by"] == "pit"
        assert audit[0]["detail"]["acting_role"] == "pit_manager"
        dealer.check()
        player.check()
    finally:
        dealer.close()
        player.close()
