"""The dealer console's procedures of the rules in Debian's Chromium, against
a real server: the dealer picks an irregularity from the list the server
gives, fills the form made from its parameters, files it as a claim, the
pit manager confirms it on the pit page from their own session, and the
player's page shows the round void and the stake back.
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


def test_mbs_5_1_foreign_card_filed_at_the_console_and_confirmed_on_the_pit_page(
    browser: Browser, site: Site
) -> None:
    """Tiger Baccarat from a physical shoe, its cards keyed: the player bets
    100 on Banker; after the first card the dealer files "foreign card" (MBS
    5.1) naming the card.  Nothing moves: the console and the player's page
    say a ruling is pending.  The pit manager, in their own browser, sees the
    claim on the pit page with the wager it would return and confirms it;
    the console shows the round void, the player's page the void and the
    100.00 back (API and ledger agree), the audit both people."""
    site.new_table("tiger-irregular", "tiger-baccarat", card_source="device")
    before = site.balance(PLAYER)
    dealer = open_page(
        browser, site, "/dealer/tiger-irregular", "dealer", width=390, height=844, phone=True
    )
    player = open_page(browser, site, "/play/tiger-irregular", "player")
    pit = open_page(browser, site, "/pit", "pit")
    pit.page.on("dialog", lambda dialog: dialog.accept())
    try:
        dealer.login(DEALER)
        player.login(PLAYER)
        pit.login(PIT)
        dealer.testid("btn-open").click()
        player.wait_phase("betting")
        player.testid("chip-100").click()
        player.testid("area-banker").click()
        player.wait_text("mine-banker", "100.00")
        player.wait_text("balance", money(before - 100))
        dealer.confirm("btn-close")
        player.wait_phase("dealing")
        dealer.key_card("9H")
        player.wait_cards(1)

        # The procedures the rules of Tiger Baccarat cover, from the server.
        select = dealer.testid("irr-select")
        expect(select.locator('option[value="foreign_card"]')).to_have_count(1)
        assert select.locator('option[value="left_with_cards"]').count() == 1  # MBS 5.11
        assert select.locator('option[value="power_failure"]').count() == 0  # its own button
        select.select_option("foreign_card")
        dealer.wait_text("irr-summary", re.compile(r"does not belong to the decks in use"))
        dealer.testid("irr-param-card").fill("QH")
        assert dealer.testid("manager-password").count() == 0  # no one else's password here
        dealer.assert_labelled()
        dealer.assert_fits()
        dealer.screenshot("irregularity-1-dealer-form")
        dealer.confirm("btn-irregularity")
        dealer.wait_text("message", re.compile(r"^Filed: foreign card under clause 5\.1 waits"))
        dealer.wait_text("claim-text", re.compile(r"Ruling pending: foreign card"))
        player.wait_text("result", re.compile(r"A ruling is pending \(clause 5\.1\)"))
        assert site.balance(PLAYER) == before - 100  # nothing has moved
        dealer.screenshot("irregularity-2-dealer-pending")

        # The pit page lists it, with the wager it would return; confirm.
        claim = pit.testid("claim-tiger-irregular")
        claim.wait_for()
        expect(pit.testid("claim-bets-tiger-irregular")).to_contain_text("100.00")
        expect(claim).to_contain_text("Filed by dealer")
        pit.screenshot("irregularity-3-pit-claim")
        pit.testid("confirm-tiger-irregular").click()
        pit.wait_text("message", "Confirmed at tiger-irregular: foreign card, clause 5.1.")

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
        dealer.screenshot("irregularity-4-dealer-ruling")
        player.screenshot("irregularity-5-player-void")
        audit = site.call("GET", "/api/pit/audit?table_id=tiger-irregular", PIT)
        assert [(a["action"], a["username"]) for a in audit[:2]] == [
            ("claim_confirmed", "pit"),
            ("claim_filed", "dealer"),
        ]
        assert audit[0]["detail"]["acting_role"] == "pit_manager"
        dealer.check()
        player.check()
        pit.check()
    finally:
        dealer.close()
        player.close()
        pit.close()
