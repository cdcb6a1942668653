"""The table-side scoreboard and the pit page in Debian's Chromium, against a
real server: the scoreboard's roads and shoe
statistics update live over the WebSocket as coups settle; the pit shows
each table, its round in play, handle, win, hold and commission since it
opened, and the audit log (the shift: tests/ui/test_browser_shift.py).
Screenshots go to ``artifacts/``."""

from __future__ import annotations

from decimal import Decimal

from playwright.sync_api import Browser

from tests.ui.test_browser_support import DEALER, PIT, PLAYER, Site, browser, money, open_page, site

__all__ = ["browser", "site"]

DERIVED = ("big_eye_boy", "small_road", "cockroach_pig")
#: Coups drawn from the (seeded) shoe after the keyed ones: every derived road has marks.
EXTRA = 9
#: The cards of the extra coups, in turn: a Player natural, a Banker win, a Tie.
EXTRA_COUPS = ["9H 2C KD 3S", "4H 7C 2D KS", "4D 4S 4C 4H"]

#: Three coups for a Tiger Baccarat shoe, each (cards, winner, Player pair?).
COUPS = [
    ("2S 8H 3D KC", "banker", False),  # Player 5 v Banker 8, a natural
    ("9S 2H 9D 3C", "player", True),  # Player 8 (a pair of nines) v Banker 5
    ("5S 3H 3D 5C", "tie", False),  # 8 all
]


def test_scoreboard_updates_live_as_coups_settle(browser: Browser, site: Site) -> None:
    """A big screen (1600 x 900) left open while three coups are dealt: after
    each, without a reload, the bead plate, the big road, the last results
    and the shoe statistics show it."""
    site.new_table("board", "tiger-baccarat", card_source="device")  # cards keyed
    board = open_page(browser, site, "/scoreboard/board", "scoreboard", width=1600, height=900)
    try:
        board.wait_text("n-coups", "0")
        board.wait_text("limit-min", "10.00")
        marker = board.page.evaluate("() => (window.__kept = Math.random())")
        beads = board.testid("road-bead").locator('[data-testid="bead-cell"]')
        for n, (cards, winner, _) in enumerate(COUPS, start=1):
            site.coup("board", cards)
            board.wait_text("n-coups", str(n))
            assert beads.count() == n
            assert beads.nth(n - 1).get_attribute("data-winner") == winner
            latest = board.page.get_by_test_id("last-result").first
            assert latest.get_attribute("data-winner") == winner
            if n == 2:
                board.wait_phase("settled")
                board.screenshot("browser-2-scoreboard-two-coups", full_page=False)
        assert board.page.evaluate("() => window.__kept") == marker  # never reloaded
        for side in ("banker", "player", "tie"):
            board.wait_text(f"n-{side}", "1")
        board.wait_text("n-ppairs", "1")
        board.wait_text("n-naturals", "3")
        big = board.testid("road-big").locator('[data-testid="big-cell"]')
        assert big.count() == 2  # a Banker column, a Player column; the tie marks the Player
        assert [big.nth(i).get_attribute("data-side") for i in range(2)] == ["banker", "player"]
        assert big.nth(1).locator("line").count() == 1  # the tie's slash
        assert big.nth(1).locator(".pair-dot").count() == 1  # the Player pair
        board.wait_text("result", "Tie 8")
        board.screenshot("browser-2-scoreboard", full_page=False)

        # More coups, keyed from the same physical shoe (its 8 decks hold them all).
        for n in range(EXTRA):
            site.coup("board", EXTRA_COUPS[n % len(EXTRA_COUPS)])
        board.wait_text("n-coups", str(3 + EXTRA))
        scoreboard = site.client.get("/api/tables/board/scoreboard").json()
        assert scoreboard["stats"]["coups"] == 3 + EXTRA
        for side in ("banker", "player", "tie"):
            assert board.testid(f"n-{side}").inner_text() == str(scoreboard["stats"][side])
        assert beads.count() == 3 + EXTRA
        for name, road in (("big", "big_road"), *((n, n) for n in DERIVED)):
            drawn = board.testid(f"road-{name}")
            assert drawn.get_attribute("data-width") == str(scoreboard[road]["width"])
            assert drawn.locator(f'[data-testid="{name}-cell"]').count() > 0
        board.screenshot("browser-2-scoreboard-shoe", full_page=False)
        board.check()
    finally:
        board.close()


def test_pit_shows_tables_rounds_hold_and_commission(browser: Browser, site: Site) -> None:
    """One coup: Banker 100 wins at 0.95 to 1 (commission 5.00), Player 50
    loses; then a new round with a Banker 50 bet in play.  Handle 200.00, win
    -45.00, hold -22.50%; the round in play; the dealer's actions in the
    audit log."""
    site.new_table("pitt", "tiger-baccarat", card_source="device")
    pit = open_page(browser, site, "/pit", "pit")
    try:
        pit.login(PIT)
        pit.testid("pit-pitt").wait_for()

        site.call("POST", "/api/tables/pitt/round/open", DEALER)
        for wager, stake in (("banker", "100"), ("player", "50")):
            site.call("POST", "/api/tables/pitt/bets", PLAYER, {"wager": wager, "stake": stake})
        site.call("POST", "/api/tables/pitt/round/close", DEALER)
        site.deal("pitt", "2S 8H 3D KC")  # Banker 8 v Player 5
        site.call("POST", "/api/tables/pitt/round/settle", DEALER)
        site.call("POST", "/api/tables/pitt/round/open", DEALER)
        site.call("POST", "/api/tables/pitt/bets", PLAYER, {"wager": "banker", "stake": "50"})

        pit.page.reload()  # (it also refreshes by itself every few seconds)
        pit.wait_text("pit-handle-pitt", "200.00")
        figures = next(t for t in site.call("GET", "/api/pit", PIT) if t["id"] == "pitt")["figures"]
        assert figures == {
            "handle": "200.00",
            "win": "-45.00",
            "hold": "-22.50",
            "commission": "5.00",
            "in_play": "50.00",
        }
        expected = {
            "pit-win-pitt": money(Decimal(figures["win"])),
            "pit-hold-pitt": "−22.50%",
            "pit-commission-pitt": "5.00",
            "pit-in-play-pitt": "50.00",
            "pit-limits-pitt": "10.00–1,000.00",
        }
        for testid, text in expected.items():
            assert pit.testid(testid).inner_text() == text, testid
        round_cell = pit.testid("pit-round-pitt").inner_text()
        assert round_cell.startswith("betting r2")
        assert "1 bet" in round_cell
        pit.testid("audit-table").select_option("pitt")
        pit.page.locator(
            '[data-testid="audit-row"][data-action="settle"][data-table="pitt"]'
        ).wait_for()
        actions = pit.page.locator('[data-testid="audit-row"]').evaluate_all(
            "rows => rows.map(r => r.dataset.action)"
        )
        assert {"open", "close", "settle", "create_table"} <= set(actions)
        pit.screenshot("browser-3-pit")
        pit.assert_labelled()
        pit.check()
    finally:
        pit.close()
