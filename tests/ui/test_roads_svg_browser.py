"""``punto roads`` of a two-coup replay drawn by Chromium:
every line of text ends inside the picture, the title included, where the
picture used to be as wide as the road (20 units) and cut the text off."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from tests.browser import browser, screenshot_path
from tests.ui.test_cli_newcomer import _two_coup_roads

__all__ = ["browser"]


def test_two_coup_roads_hold_their_text_in_chromium(browser: Browser, tmp_path: Path) -> None:
    _two_coup_roads(tmp_path)
    page = browser.new_page()
    page.goto((tmp_path / "roads.svg").as_uri())
    width, ends = page.evaluate(
        """() => {
            const svg = document.documentElement;
            return [svg.viewBox.baseVal.width,
                    [...svg.querySelectorAll('text')].map(t => {
                        const box = t.getBBox();
                        return [t.textContent, box.x + box.width];
                    })];
        }"""
    )
    page.screenshot(path=screenshot_path("roads-two-coups.png"))
    page.close()
    title = ends[0]
    assert title[0] == "Tiger Baccarat, replay two-coups.json: shoe 1 of 1"
    assert title[1] > 100  # drawn at its length, far wider than the road's 20 units
    for text, end in ends:
        assert end <= width, (text, end, width)
