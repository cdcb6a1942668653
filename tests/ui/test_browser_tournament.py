"""The tournament page in Debian's Chromium: the leaderboard updates
live, over the WebSocket, as hands settle, and shows the results at the end."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx2
import pytest
from playwright.sync_api import Browser

from punto.server.tournaments.routes import install
from tests.server.test_server_support import live_server, make_app
from tests.ui.test_browser_support import PIT, Site, browser, open_page

__all__ = ["browser"]

STRATEGIES = ("banker", "flat", "catchup", "pairs")


@pytest.fixture(scope="module")
def tournament_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    database = f"sqlite:///{tmp_path_factory.mktemp('tournament') / 'punto.db'}"
    app = make_app(database)
    install(app)
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=30) as client:
        yield Site(base, database, client)


def test_the_leaderboard_updates_live_as_hands_settle(
    browser: Browser, tournament_site: Site
) -> None:
    site = tournament_site
    site.call("POST", "/api/tournaments", PIT, {"id": "live", "format": "turbo", "seed": 5})
    for i in range(8):
        strategy = STRATEGIES[i % len(STRATEGIES)]
        site.call(
            "POST",
            "/api/tournaments/live/register",
            PIT,
            {"name": f"{strategy.title()} {i + 1}", "strategy": strategy},
        )
    page = open_page(browser, site, "/tournaments/live", "tournament")
    try:
        page.wait_text("t-title", re.compile("Turbo", re.I))
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.wait_text("t-settled", "0")
        assert page.testid("t-overall-row").count() == 0

        site.call("POST", "/api/tournaments/live/start", PIT)
        page.testid("t-overall-row").nth(7).wait_for()  # the seating, pushed

        # one hand at every table: the page follows without being reloaded
        board = site.call("GET", "/api/tournaments/live/leaderboard", PIT)
        tables = len(board["tables"])
        while sum(t["settled"] for t in board["tables"]) < tables:
            site.call("POST", "/api/tournaments/live/advance", PIT, {"steps": 1})
            board = site.call("GET", "/api/tournaments/live/leaderboard", PIT)
        page.wait_text("t-settled", str(tables))
        page.wait_text("t-seq", str(board["seq"]))
        first = board["overall"][0]
        row = page.page.locator(f'[data-testid="t-overall-row"][data-entrant="{first["entrant"]}"]')
        assert f"{first['chips']:,}" in row.inner_text()

        # and on to the end: the results appear
        while not site.call("POST", "/api/tournaments/live/advance", PIT, {"steps": 200})[
            "finished"
        ]:
            pass
        page.testid("t-result-row").nth(7).wait_for()
        results = site.call("GET", "/api/tournaments/live/results", PIT)["results"]
        assert results[0]["name"] in page.testid("t-result-row").first.inner_text()
        page.screenshot("tournament-finished")
        page.check()
    finally:
        page.context.close()
