"""The pit's irregularity control on the tournament page, clicked in Debian's
Chromium: a pit manager voids the hand being bet at a table (Baccarat
Tournament 5.1, a foreign card), and the player at that table sees the void
and their chips as they were; the API agrees, to the chip.

The spot is reached through the API with the helpers of the API tests of the
same paths (:mod:`tests.server.test_server_tournament_paths`), on the very app the
browser is served by (see :mod:`tests.ui.test_browser_tournament_buttons`).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from punto.tournament import Phase
from tests.server.test_server_support import login
from tests.server.test_server_tournament_paths import (
    CHIPS,
    MIN_BET,
    bet,
    clean,
    create,
    new_player,
    open_hand,
    tournament_of,
)
from tests.ui.test_browser_support import PIT, PLAYER, browser, open_page
from tests.ui.test_browser_tournament_buttons import Served, register, served

__all__ = ["browser", "served"]


@pytest.mark.slow
def test_baccarat_tournament_5_1_the_pit_voids_a_hand_from_the_tournament_page(
    browser: Browser, served: Served
) -> None:
    site, client = served.site, served.client
    create(client, "void", "turbo", seed=2, tables=1)
    demo = login(client, PLAYER)
    others = {name: new_player(client, name, "1000.00") for name in ("ann", "bo", "cy")}
    for headers in (demo, *others.values()):
        register(client, "void", headers)
    assert client.post("/api/tournaments/void/start", headers=login(client, PIT)).is_success

    player = open_page(browser, site, "/tournaments/void", "tournament-void-player")
    pit = open_page(browser, site, "/tournaments/void", "tournament-void-pit")
    try:
        for page, who in ((player, PLAYER), (pit, PIT)):
            page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
            page.login(who)
        player.wait_text("t-my-chips", f"{CHIPS:,}")

        open_hand(client, "void")
        bet(client, "void", demo, "banker", 1000)
        for headers in others.values():
            bet(client, "void", headers, "player", MIN_BET)
        t = tournament_of(client, "void")
        assert sorted(t.tables[1].bets) == ["ann", "bo", "cy", PLAYER[0]]

        expect(pit.testid("t-irr-form")).to_be_visible()
        expect(pit.testid("t-irr-cards")).to_be_hidden()  # for cards drawn together only
        pit.testid("t-irr-procedure").select_option("foreign_card")
        pit.testid("t-irr-table").fill("1")
        pit.testid("t-irr-dealt").fill("0")
        pit.testid("t-irr-apply").click()
        expect(pit.testid("t-staff-message")).to_have_text(
            "Hand 1 at table 1 is void (5.1): every bet returned; it is dealt again"
        )
        expect(player.testid("t-last-result")).to_have_text(
            "Hand 1: void (5.1: a card that does not belong to the decks in use) "
            f"· every bet returned · chips {CHIPS:,}"
        )
        expect(player.testid("t-my-chips")).to_have_text(f"{CHIPS:,}")
        pit.screenshot("tournament-void-pit")
        player.screenshot("tournament-void-player")

        # the API: every bet gone, every entrant's chips as the hand found them,
        # the hand to be dealt again under its number
        assert t.tables[1].phase is Phase.IDLE
        assert (t.tables[1].hand, t.tables[1].settled) == (1, 0)
        assert {e: t.entrants[e].chips for e in t.entrants} == {
            PLAYER[0]: CHIPS,
            "ann": CHIPS,
            "bo": CHIPS,
            "cy": CHIPS,
        }
        assert t.tables[1].bets == {}
        voided = t.tables[1].voided
        assert voided is not None
        assert (voided.clause, voided.role) == ("5.1", "pit_manager")

        # a player sees no pit controls
        expect(player.testid("t-staff")).to_be_hidden()
        player.check()
        pit.check()
        clean(client)
    finally:
        player.context.close()
        pit.context.close()
