"""The pit's irregularity control on the tournament page, clicked in Debian's
Chromium: a pit manager's claim of a foreign card (Baccarat Tournament 5.1)
is refused naming the engine's own shoe, every card of the hand having come
out of it; so is a void for cards drawn together in the initial deal whose
order nobody can ascertain (5.3: they came out in the shoe's order, which
the record holds).  Their order known, the draw is noted and the hand is
dealt on; the player at that table sees the hand settle on the shoe's
cards; the API agrees, to the chip.

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
    step,
    tournament_of,
)
from tests.tournament.test_tournament_clock import phase
from tests.ui.test_browser_support import PIT, PLAYER, browser, open_page
from tests.ui.test_browser_tournament_buttons import Served, register, served

__all__ = ["browser", "served"]


@pytest.mark.slow
def test_baccarat_tournament_5_3_the_pit_cannot_void_a_hand_the_engine_dealt(
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

        step(client, "void")  # "No more bets": everyone has acted
        assert phase(t) is Phase.CLOSED
        seq = t.seq

        # every card comes out of the engine's own shoe: no foreign card in it
        expect(pit.testid("t-irr-form")).to_be_visible()
        expect(pit.testid("t-irr-cards")).to_be_hidden()  # for cards drawn together only
        pit.testid("t-irr-procedure").select_option("foreign_card")
        pit.testid("t-irr-table").fill("1")
        pit.testid("t-irr-dealt").fill("3")
        pit.testid("t-irr-apply").click()
        expect(pit.testid("t-staff-message")).to_contain_text(
            "round 1 of session 1 at table 1 was dealt by the table from shoe 1 of table 1, "
            "cards 1-3"
        )
        assert t.seq == seq
        assert phase(t) is Phase.CLOSED

        # two cards drawn together in the initial deal, "their order unknown":
        # the engine's shoe holds the order they came out in
        pit.testid("t-irr-procedure").select_option("simultaneous_draw")
        expect(pit.testid("t-irr-cards")).to_be_visible()
        pit.testid("t-irr-dealt").fill("1")
        pit.testid("t-irr-cards").fill("2")
        expect(pit.testid("t-irr-order-known")).not_to_be_checked()
        pit.testid("t-irr-apply").click()
        expect(pit.testid("t-staff-message")).to_contain_text(
            "round 1 of session 1 at table 1 was dealt by the table from shoe 1 of table 1, "
            "cards 1-3: cards drawn together from the table's own shoe came out in the "
            "shoe's order"
        )
        assert t.seq == seq
        assert phase(t) is Phase.CLOSED
        assert t.tables[1].voided is None

        # their order known: noted, and the hand is dealt on
        pit.testid("t-irr-order-known").check()
        pit.testid("t-irr-apply").click()
        expect(pit.testid("t-staff-message")).to_contain_text(
            "Noted (5.3): cards drawn simultaneously"
        )
        expect(pit.testid("t-staff-message")).to_contain_text("hand 1 at table 1 is dealt on")
        noted = t.tables[1].noted
        assert noted is not None
        assert (noted.clause, noted.role) == ("5.3", "pit_manager")
        assert phase(t) is Phase.CLOSED
        assert {e: t.entrants[e].chips for e in t.entrants} == dict.fromkeys(
            (PLAYER[0], "ann", "bo", "cy"), CHIPS
        )
        pit.screenshot("tournament-claims-pit")

        # the hand settles on the shoe's cards, and the player sees it
        step(client, "void")
        last = t.tables[1].last
        assert last is not None
        assert (last.hand, t.tables[1].voided) == (1, None)
        mine = next(r for r in last.results if r.entrant == PLAYER[0])
        expect(player.testid("t-my-chips")).to_have_text(f"{mine.chips:,}")
        player.screenshot("tournament-claims-player")

        # a player sees no pit controls
        expect(player.testid("t-staff")).to_be_hidden()
        player.check()
        # the refused claims' answers are the one thing the browser complains of
        assert (
            pit.errors
            == [
                "console error: Failed to load resource: the server responded with a status "
                "of 409 (Conflict)"
            ]
            * 2
        )
        clean(client)
    finally:
        player.context.close()
        pit.context.close()
