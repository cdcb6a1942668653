"""The pages of the table clauses in Debian's chromium: the player page shows the
Dealer's request when the differential is exceeded (MBS 5.18.1) and decreases
a wager from it, the dealer console removes one (5.18.3), the pit sees the
table held open and sets a table without Insurance, whose player page shows
the notice (RWS 4.2.2).  Money to the cent, on the ledger."""

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

DIFFERENTIAL = {"minimum": "10", "maximum": "1000", "differential": "500"}


def _exceeded(site: Site, table: str) -> tuple[str, str]:
    """Demo Banker 1,000 v demo2 Player 200 at a differential of 500; 'No more
    bets' refused, so the Dealer has asked (5.18.1).  The two bet ids."""
    site.new_table(table, "tiger-baccarat", limits=DIFFERENTIAL, card_source="device")
    site.call("POST", f"/api/tables/{table}/round/open", DEALER)
    bets = f"/api/tables/{table}/bets"
    heavy = site.call("POST", bets, PLAYER, {"wager": "banker", "stake": "1000"})["bet"]["bet_id"]
    light = site.call("POST", bets, PLAYER2, {"wager": "player", "stake": "200"})["bet"]["bet_id"]
    closed = site.client.post(f"/api/tables/{table}/round/close", headers=site.headers(DEALER))
    assert closed.status_code == 422, closed.text
    return heavy, light


def test_tiger_baccarat_5_18_1_player_page_shows_the_request_and_decreases(
    browser: Browser, site: Site
) -> None:
    before, before2 = site.balance(PLAYER), site.balance(PLAYER2)
    heavy, _ = _exceeded(site, "diff-player")
    player = open_page(browser, site, "/play/diff-player", "player")
    try:
        player.login(PLAYER)
        player.wait_text("differential-text", re.compile(r"asks the players on Banker to decrease"))
        player.testid(f"decrease-stake-{heavy}").fill("600")
        player.testid(f"decrease-{heavy}").click()
        player.wait_text("balance", money(before - 600))
        expect(player.testid("differential")).to_be_hidden()
        assert site.ledger_balance(PLAYER[0]) == before - 600
        assert site.ledger_balance(PLAYER2[0]) == before2 - 200
        player.screenshot("browser-clauses-player-decrease")
        player.check()
    finally:
        player.close()


def test_tiger_baccarat_5_18_3_the_pit_manager_removes_a_wager_at_the_console(
    browser: Browser, site: Site
) -> None:
    before, before2 = site.balance(PLAYER), site.balance(PLAYER2)
    heavy, _ = _exceeded(site, "diff-dealer")
    dealer = open_page(browser, site, "/dealer/diff-dealer", "dealer")
    try:
        dealer.login(PIT)  # the Pit Manager at the console, in their own session
        dealer.wait_text("differential", re.compile(r"asked: Banker to decrease \(5\.18\.1\)"))
        dealer.testid(f"remove-{heavy}").click()
        dealer.wait_text("message", re.compile(r"removed \(clause 5\.18\.3\)"))
        assert site.ledger_balance(PLAYER[0]) == before
        assert site.ledger_balance(PLAYER2[0]) == before2 - 200
        dealer.check()
    finally:
        dealer.close()
    site.call("POST", "/api/tables/diff-dealer/round/close", DEALER)
    site.deal("diff-dealer", "9H 2C KD 3S")  # Player 9 v Banker 5
    site.call("POST", "/api/tables/diff-dealer/round/settle", DEALER)
    assert site.ledger_balance(PLAYER[0]) == before
    assert site.ledger_balance(PLAYER2[0]) == before2 + 200


def test_tiger_buffalo_4_2_2_player_page_shows_the_no_insurance_notice(
    browser: Browser, site: Site
) -> None:
    site.new_table("private", "tiger-buffalo", "A", insurance_offered=False)
    player = open_page(browser, site, "/play/private", "player")
    try:
        player.login(PLAYER)
        player.wait_text("insurance-notice", "No Insurance Plus at this table (clause 4.2.2).")
        assert site.balance(PLAYER) == site.ledger_balance(PLAYER[0]) > Decimal(0)
        player.check()
    finally:
        player.close()


def test_tiger_buffalo_4_2_2_pit_page_sets_a_table_without_insurance_and_shows_alerts(
    browser: Browser, site: Site
) -> None:
    """The pit sets a private Tiger Buffalo table without Insurance between
    rounds, and sees the alert of a table held open by the differential
    (MBS 5.18.3 is the pit's)."""
    site.new_table("pit-private", "tiger-buffalo", "A")
    before, before2 = site.balance(PLAYER), site.balance(PLAYER2)
    _exceeded(site, "pit-held")
    pit = open_page(browser, site, "/pit", "pit")
    try:
        pit.login(PIT)
        pit.wait_text(
            "pit-alert-pit-held", re.compile(r"betting held open: .* \(clause 5\.18\.3\)$")
        )
        pit.testid("edit-table").select_option("pit-private")
        pit.testid("edit-insurance").select_option("false")
        pit.testid("edit-submit").click()
        pit.wait_text("message", re.compile(r"^Table pit-private changed"))
        pit.wait_text("pit-insurance-pit-private", "No Insurance Plus at this table (clause 4.2.2)")
        table = site.call("GET", "/api/tables/pit-private", PIT)
        assert table["table"]["insurance_offered"] is False
        assert site.ledger_balance(PLAYER[0]) == before - 1000
        assert site.ledger_balance(PLAYER2[0]) == before2 - 200
        pit.assert_labelled()
        pit.check()
    finally:
        pit.close()
