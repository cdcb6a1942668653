"""``punto report`` opened in a real browser: the page renders, its tables
are there, every chart is inline SVG with labelled axes, the page makes no
request beyond its own file, and the text of the charts is text a reader
can select."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route

from punto.cli import main
from tests.browser import browser, screenshot_path

__all__ = ["browser"]


@pytest.mark.slow
def test_report_renders_in_chromium(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", "tiger-baccarat", "--out", str(out), "--counting-shoes", "200"]) == 0
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    index = (out / "index.html").as_uri()
    requested: list[str] = []

    def watch(route: Route) -> None:
        requested.append(route.request.url)
        if route.request.url == index:
            route.continue_()
        else:
            route.abort()

    page.route("**/*", watch)
    try:
        page.goto(index)
        page.wait_for_load_state("load")
        assert requested == [index]  # no font, script, style or image from anywhere else
        assert "Tiger Baccarat" in page.title()
        assert page.locator("table").count() >= 5
        assert page.locator("img").count() == 0
        figures = page.locator("figure[data-figure]")
        names = figures.evaluate_all("fs => fs.map(f => f.dataset.figure)")
        assert {"returns", "house_edge_by_decks", "removal_banker", "removal_tiger"} <= set(names)
        # every figure drew: an SVG with a visible size and text in it
        sizes = figures.evaluate_all(
            "fs => fs.map(f => { const r = f.querySelector('svg').getBoundingClientRect();"
            " return [r.width, r.height, f.querySelectorAll('svg text').length]; })"
        )
        assert all(w > 200 and h > 100 and texts > 5 for w, h, texts in sizes)
        body = page.inner_text("body")
        assert "house edge" in body.lower()
        assert "1.0579%" in body  # Banker at 8 decks, as computed into the page
        assert "rules version" in body
        # the axes are labelled: the labels are SVG text, in the page's text
        svg_text = page.locator("figure svg").all_text_contents()
        joined = " ".join(svg_text)
        for label in ("return per unit staked (%)", "decks", "house edge (%)"):
            assert label in joined
        assert "rank of the card removed" in joined
        # selectable: select the x-axis label of the first chart as a reader would
        selected = page.evaluate(
            """() => {
                const node = [...document.querySelectorAll('figure svg text')]
                    .find(t => t.textContent === 'return per unit staked (%)');
                const range = document.createRange();
                range.selectNodeContents(node);
                const selection = window.getSelection();
                selection.removeAllRanges();
                selection.addRange(range);
                return [selection.toString(), getComputedStyle(node).userSelect];
            }"""
        )
        assert selected[0] == "return per unit staked (%)"
        assert selected[1] != "none"
        page.screenshot(path=str(screenshot_path("report-tiger-baccarat")), full_page=True)
    finally:
        page.close()
