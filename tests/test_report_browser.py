"""``punto report`` opened in a real browser: the page renders, its tables
are there and every chart loads (issue 3, item 5)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from punto.cli import main
from tests.browser import browser, screenshot_path

__all__ = ["browser"]


def test_report_renders_in_chromium(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", "tiger-baccarat", "--out", str(out)]) == 0
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto((out / "index.html").as_uri())
        page.wait_for_load_state("load")
        assert "Tiger Baccarat" in page.title()
        assert page.locator("table").count() >= 2
        images = page.locator("img")
        assert images.count() >= 3
        broken = page.evaluate(
            "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
            ".map(i => i.getAttribute('src'))"
        )
        assert broken == []
        body = page.inner_text("body")
        assert "house edge" in body.lower()
        assert "1.0579%" in body  # Banker at 8 decks, as computed into the page
        page.screenshot(path=str(screenshot_path("report-tiger-baccarat")), full_page=True)
    finally:
        page.close()
