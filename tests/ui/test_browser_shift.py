"""The pit's shift in Debian's Chromium: pit manager A opens it on a tablet
held sideways (1024 x 768); B, another pit manager on a second tablet held
upright (768 x 1024), in a browser with nothing stored, sees the same shift
and the same report, which is the tables' own figures; B closes it and A's
page says so.  Both fit their screen without sideways scrolling, and the
warnings read as words on their panel.  Screenshots go to ``artifacts/``."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from playwright.sync_api import Browser

from punto.protection.edges import WagerEdge, edge_of, table_edges
from punto.rules.wagers import PairRule
from punto.server.tables.config import TableConfig
from tests.server.test_server_support import ADMIN
from tests.ui.test_browser_support import DEALER, PIT, PLAYER, Page, Site, browser, open_page, site

__all__ = ["browser", "site"]

PIT2 = ("pit2", "pit2-password")
#: (table, game, cards, bets): Banker 8 beats Player 5; Banker's natural 9 beats Player 7.
ROUNDS = [
    ("sa", "tiger-baccarat", "2S 8H 3D KC", [("banker", "100"), ("player", "50")]),
    ("sb", "dragon-tiger", "8S 6H 9D 3S", [("banker", "200"), ("tie", "10")]),
    ("sa", "tiger-baccarat", "8S 6H 9D 3S", [("player", "40"), ("big_tiger", "10")]),
]
COLUMNS = ("handle", "win", "hold", "commission", "rounds", "players", "theoretical_win")


@pytest.fixture
def literal_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiger Baccarat's Tiger Pair read literally (1.1.14: -37.66% at 8 decks),
    so the demo's Tiger Baccarat table stands warned of an unconfirmed wager."""

    def literal(config: TableConfig) -> tuple[WagerEdge, ...]:
        return table_edges(config.game, config.layout, config.decks, PairRule.LITERAL)

    monkeypatch.setattr(TableConfig, "edges", property(literal))


def shown(amount: str) -> str:
    """A figure as the page shows it: grouped, a true minus sign."""
    value = Decimal(amount)
    text = f"{abs(value):,.2f}"
    return f"−{text}" if value < 0 else text


def page_text(key: str, value: object) -> str:
    if key == "hold":
        return "–" if value is None else f"{shown(str(value))}%"
    if key in ("rounds", "players"):
        return str(value)
    return shown(str(value))


def fits_its_panel(page: Page, testid: str) -> bool:
    """The element is no wider than its panel: nothing to scroll sideways inside."""
    fits: bool = page.testid(testid).evaluate(
        "n => n.scrollWidth <= n.parentElement.clientWidth + 1"
    )
    return fits


def contrast(page: Page, testid: str) -> float:
    """The contrast ratio of the element's text on the first background behind it."""
    ratio: float = page.testid(testid).evaluate(
        """n => {
          const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
          let bg = null;
          for (let e = n; e && !bg; e = e.parentElement) {
            const c = rgb(getComputedStyle(e).backgroundColor);
            if (c.length < 4 || c[3] > 0) bg = c;
          }
          bg = bg || [255, 255, 255];
          const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
            .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
          const [a, b] = [lum(rgb(getComputedStyle(n).color)), lum(bg)].sort((x, y) => y - x);
          return (a + 0.05) / (b + 0.05);
        }"""
    )
    return ratio


@pytest.mark.slow
@pytest.mark.usefixtures("literal_pairs")
def test_a_second_pit_manager_sees_the_shift_the_first_opened(browser: Browser, site: Site) -> None:
    site.new_table(
        "sa", "tiger-baccarat", card_source="device", confirm_player_favoured=["tiger_pair"]
    )
    site.new_table("sb", "dragon-tiger", card_source="device")
    made = site.client.post(
        "/api/users",
        headers=site.headers(ADMIN),
        json={"username": PIT2[0], "password": PIT2[1], "role": "pit_manager"},
    )
    assert made.status_code in (201, 409), made.text

    a = open_page(browser, site, "/pit", "pit A", width=1024, height=768)
    b: Page | None = None
    try:
        a.page.on("dialog", lambda dialog: dialog.accept())
        a.login(PIT)
        a.wait_text("shift-status", "No shift is open. Open one to count the figures from now.")
        a.testid("shift-open").click()
        a.wait_text("message", "Shift 1 is open: its figures count from now.")
        a.wait_text("shift-status", re.compile(r"^Shift 1, open since "))
        status = a.testid("shift-status").inner_text()
        assert status.startswith("Shift 1, open since ")
        assert status.endswith(
            "opened by pit (pit manager). Its figures count the rounds settled since it opened."
        )

        theoretical: dict[str, Fraction] = {"sa": Fraction(0), "sb": Fraction(0)}
        for table, game, cards, bets in ROUNDS:
            site.call("POST", f"/api/tables/{table}/round/open", DEALER)
            for wager, stake in bets:
                site.call(
                    "POST", f"/api/tables/{table}/bets", PLAYER, {"wager": wager, "stake": stake}
                )
                found = edge_of(game, None, 8, wager)
                assert found is not None
                theoretical[table] += Fraction(stake) * found.edge
            site.call("POST", f"/api/tables/{table}/round/close", DEALER)
            site.deal(table, cards)
            site.call("POST", f"/api/tables/{table}/round/settle", DEALER)

        # B: a fresh browser context (nothing stored), another pit manager, upright
        b = open_page(browser, site, "/pit", "pit B", width=768, height=1024)
        b.page.on("dialog", lambda dialog: dialog.accept())
        assert b.page.evaluate("Object.keys(localStorage)") == []
        b.login(PIT2)
        b.wait_text("shift-status", status)
        b.wait_text("shift-sa-rounds", "2")
        report = site.call("GET", "/api/pit/shift", PIT2)["report"]
        tables = {t["id"]: t["figures"] for t in site.call("GET", "/api/pit", PIT2)}
        lines = {t["table_id"]: t for t in report["tables"]}
        for table in ("sa", "sb"):
            # the report is the tables' own figures (every round of theirs is the shift's)
            for key in ("handle", "win", "hold", "commission"):
                assert lines[table][key] == tables[table][key], (table, key)
            assert Fraction(lines[table]["theoretical_win_exact"]) == theoretical[table]
            for key in COLUMNS:
                expected = page_text(key, lines[table][key])
                assert b.testid(f"shift-{table}-{key}").inner_text() == expected, (table, key)
        for key in ("handle", "win", "commission"):
            total = sum(Decimal(tables[t][key]) for t in ("sa", "sb"))
            assert b.testid(f"shift-total-{key}").inner_text() == shown(str(total))
        assert b.testid("shift-total-players").inner_text() == "1"
        assert b.testid("shift-total-rounds").inner_text() == "3"
        assert b.page.evaluate("Object.keys(localStorage)") == []

        # A's page shows the same figures, and both fit their screens
        a.page.reload()
        a.wait_text("shift-sa-rounds", "2")
        for page in (a, b):
            for key in COLUMNS:
                assert page.testid(f"shift-total-{key}").inner_text() == page_text(
                    key, report["total"][key]
                )
            page.testid("warning-tiger-tiger_pair").wait_for()
            page.assert_fits()
            assert fits_its_panel(page, "shift-report")
            assert fits_its_panel(page, "pit-tables")
            assert fits_its_panel(page, "anomalies-table")
            assert contrast(page, "warning-by-tiger-tiger_pair") >= 4.5
            assert contrast(page, "warning-edge-tiger-tiger_pair") >= 4.5
        warning = b.testid("warning-tiger-tiger_pair").inner_text()
        assert "returns the player 37.66% of each stake on average" in warning
        assert "not allowed yet: a pit manager must confirm it" in warning
        a.screenshot("browser-pit-shift-1024x768")
        b.screenshot("browser-pit-shift-768x1024")

        # B closes it; A's page, polling, says so and lists it with its report
        b.testid("shift-close").click()
        b.wait_text(
            "message", 'Shift 1 is closed; its report is kept below, under "Closed shifts".'
        )
        a.wait_text("shift-status", "No shift is open. Open one to count the figures from now.")
        a.testid("closed-shifts").locator("summary").click()
        a.wait_text("closed-1-handle", shown(report["total"]["handle"]))
        assert a.testid("closed-1-win").inner_text() == shown(report["total"]["win"])
        a.screenshot("browser-pit-shift-closed-1024x768")
        a.check()
        b.check()
    finally:
        a.close()
        if b is not None:
            b.close()
