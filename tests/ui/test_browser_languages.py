"""The pages in English, 简体中文 and 繁體中文, in Debian's Chromium: the
browser's language chooses, the header's switch overrides and is remembered;
the games' own Chinese words (庄/莊, 闲/閒, 和, the roads 珠盘路 大路 大眼仔
小路 曱甴路) as the tables in Singapore show them; money in one format on a
page.  And the player page's words for people: a refusal with its clause,
chips on one area as one bet line, an unknown table said plainly."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.test_browser_support import (
    DEALER,
    PLAYER,
    Page,
    Site,
    browser,
    money,
    open_page,
    site,
)

__all__ = ["browser", "site"]

#: the roads by their Chinese names, simplified and traditional
ROADS = {
    "zh-Hans": {
        "bead": "珠盘路",
        "big": "大路",
        "big_eye_boy": "大眼仔",
        "small_road": "小路",
        "cockroach_pig": "曱甴路",
    },
    "zh-Hant": {
        "bead": "珠盤路",
        "big": "大路",
        "big_eye_boy": "大眼仔",
        "small_road": "小路",
        "cockroach_pig": "曱甴路",
    },
}
#: the main areas and a pair, by their Chinese names
AREAS = {
    "zh-Hans": {"banker": "庄", "player": "闲", "tie": "和", "player_pair": "闲对"},
    "zh-Hant": {"banker": "莊", "player": "閒", "tie": "和", "player_pair": "閒對"},
}
#: an amount written without its thousands separator (1000.00 beside 1,000.00)
UNGROUPED = re.compile(r"(?<![\d,.])\d{4,}\.\d\d")


def betting_table(site: Site, table_id: str) -> None:
    """A Tiger Buffalo table of the dealer's, its betting open."""
    site.new_table(table_id, "tiger-buffalo", layout="A")
    site.call("POST", f"/api/tables/{table_id}/round/open", DEALER)


def check_chinese(page: Page, locale: str) -> None:
    """The page speaks ``locale``: the areas' and roads' names, and money in one format."""
    expect(page.page.locator("html")).to_have_attribute("lang", locale)
    expect(page.testid("language")).to_have_value(locale)
    for area, name in AREAS[locale].items():
        expect(page.testid(f"area-{area}").locator(".name")).to_have_text(name)
    for road, name in ROADS[locale].items():
        expect(page.testid(f"road-name-{road}")).to_have_text(name)


def check_one_money_format(page: Page) -> None:
    text = page.page.locator("body").inner_text()
    assert "1,000.00" in text
    assert UNGROUPED.search(text) is None, UNGROUPED.findall(text)


@pytest.mark.slow
def test_a_zh_cn_browser_sees_the_player_page_in_simplified_chinese(
    browser: Browser, site: Site
) -> None:
    betting_table(site, "zh-hans")
    before = site.balance(PLAYER)
    page = open_page(browser, site, "/play/zh-hans", "player-zh-cn", locale="zh-CN")
    try:
        page.login(PLAYER)
        page.wait_text("balance", money(before))
        check_chinese(page, "zh-Hans")
        expect(page.testid("table-info")).to_contain_text("限红 10.00–1,000.00")
        page.wait_phase("betting")
        expect(page.testid("phase")).to_have_text("请下注")
        page.testid("chip-1000").click()
        page.testid("area-banker").click()
        page.wait_text("mine-banker", "1,000.00")
        page.wait_text("balance", money(before - 1000))
        expect(page.testid("message")).to_have_text("庄 1,000.00 已下注。")
        check_one_money_format(page)
        page.screenshot("languages-1-player-zh-cn")

        # the switch overrides the browser's language, and is remembered
        page.testid("language").select_option("zh-Hant")
        check_chinese(page, "zh-Hant")
        page.page.reload()
        check_chinese(page, "zh-Hant")
        page.testid("language").select_option("en")
        expect(page.page.locator("html")).to_have_attribute("lang", "en")
        expect(page.testid("area-banker").locator(".name")).to_have_text("Banker")
        expect(page.testid("road-name-cockroach_pig")).to_have_text("Cockroach pig")
        page.check()
    finally:
        page.close()


@pytest.mark.slow
def test_a_zh_tw_browser_sees_the_pages_in_traditional_chinese(
    browser: Browser, site: Site
) -> None:
    betting_table(site, "zh-hant")
    before = site.balance(PLAYER)
    page = open_page(browser, site, "/play/zh-hant", "player-zh-tw", locale="zh-TW")
    board = open_page(browser, site, "/scoreboard/zh-hant", "scoreboard-zh-tw", locale="zh-TW")
    lobby = open_page(browser, site, "/tournaments", "lobby-zh-tw", locale="zh-TW")
    try:
        page.login(PLAYER)
        page.wait_text("balance", money(before))
        check_chinese(page, "zh-Hant")
        page.wait_phase("betting")
        page.testid("chip-1000").click()
        page.testid("area-player").click()
        page.wait_text("mine-player", "1,000.00")
        expect(page.testid("message")).to_have_text("閒 1,000.00 已下注。")
        check_one_money_format(page)
        page.screenshot("languages-2-player-zh-tw")

        expect(board.page.locator("html")).to_have_attribute("lang", "zh-Hant")
        expect(board.testid("road-name-bead")).to_have_text("珠盤路")
        expect(board.testid("limit-max")).to_have_text("1,000.00")
        board.screenshot("languages-3-scoreboard-zh-tw")

        expect(lobby.page.get_by_role("heading", name="錦標賽", exact=True)).to_be_visible()
        expect(lobby.testid("nav-tables")).to_have_text("賭桌")
        lobby.screenshot("languages-4-lobby-zh-tw")
        for shown in (page, board, lobby):
            shown.check()
    finally:
        for shown in (page, board, lobby):
            shown.close()


@pytest.mark.slow
def test_refusals_in_plain_words_and_chips_on_one_area_as_one_line(
    browser: Browser, site: Site
) -> None:
    betting_table(site, "words")
    page = open_page(browser, site, "/play/words", "player-words")
    try:
        page.login(PLAYER)
        page.wait_phase("betting")
        page.testid("chip-100").click()
        page.testid("area-player").click()
        page.wait_text("mine-player", "100.00")
        page.testid("area-player").click()
        page.wait_text("mine-player", "200.00")
        # two chips on one area: two bets on the server, one line for the player
        line = page.testid("my-bet")
        expect(line).to_have_count(1)
        expect(line).to_have_attribute("data-count", "2")
        expect(line).to_contain_text("200.00")

        page.testid("chip-1000").click()
        page.testid("area-player").click()
        expect(page.testid("message")).to_have_text(
            re.compile(
                r"^Player 1,000\.00 not placed: The Player box at seat \d+ takes at most "
                r"800\.00 more \(clause [\d.]+\)$"
            )
        )
        page.screenshot("words-1-refusal")
        # the API keeps its machine-readable error
        headers = site.headers(PLAYER)
        answer = site.client.post(
            "/api/tables/words/bets", headers=headers, json={"wager": "player", "stake": "1000"}
        )
        assert answer.status_code == 422
        error = answer.json()["error"]
        assert error["type"] == "LimitError"
        assert "over its maximum of 1000.00" in error["message"]
        # the refused bet's answer is the one thing the browser complains of
        assert page.errors == [
            "console error: Failed to load resource: the server responded with a status "
            "of 422 (Unprocessable Entity)"
        ]
    finally:
        page.close()


def test_an_unknown_table_says_so_without_connecting(browser: Browser, site: Site) -> None:
    page = open_page(browser, site, "/play/no-such-table", "player-unknown-table")
    try:
        expect(page.testid("phase")).to_have_text("There is no table “no-such-table” here.")
        expect(page.testid("link-tables")).to_be_visible()
        expect(page.testid("countdown")).to_have_text("")
        assert "onnecting" not in page.page.locator("body").inner_text()
        page.screenshot("words-2-unknown-table")
        page.check()  # no console error: nobody is logged in, and nothing answers 401
    finally:
        page.close()
