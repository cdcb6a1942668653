"""Shared helpers for the browser tests of the table server's pages (this
module holds no tests).

:func:`browser` (from :mod:`tests.browser`) is Debian's Chromium, one
instance per test module.

A module-scoped :func:`site` runs the demo server under uvicorn on
127.0.0.1 (a free port) with a fresh SQLite file; its automatic dealers are
off, so every card is dealt by a test -- from a dealer console in a browser,
or keyed in through the API -- and every result is known in advance.  Each
test opens its own table (dealer mode) unless it uses the demo ``dragon``.
Pages are opened with :func:`open_page`, which records console errors and
uncaught exceptions; :meth:`Page.check` fails the test on any.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    expect,
)
from playwright.sync_api import Page as PlaywrightPage

from punto.store.db import connect as db_connect
from punto.store.ledger import Ledger
from tests.browser import browser, screenshot_path
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    live_server,
    login,
    make_app,
    player_favoured,
)

__all__ = [
    "DEALER",
    "PIT",
    "PLAYER",
    "PLAYER2",
    "Page",
    "Site",
    "browser",
    "open_page",
    "serve",
    "site",
]

#: How long a test waits for the page to show something (ms).
TIMEOUT = 10_000


@dataclass
class Site:
    """The running server, and an API client that logs in as anyone."""

    base: str
    database: str
    client: httpx2.Client
    _headers: dict[str, dict[str, str]] = field(default_factory=dict)

    def headers(self, who: tuple[str, str]) -> dict[str, str]:
        if who[0] not in self._headers:
            self._headers[who[0]] = login(self.client, who)
        return self._headers[who[0]]

    def call(self, method: str, path: str, who: tuple[str, str], body: Any = None) -> Any:
        response = self.client.request(method, path, headers=self.headers(who), json=body)
        assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def new_table(self, table_id: str, game: str, layout: str | None = None, **extra: Any) -> None:
        """A dealer-driven table opened by the pit manager."""
        body: dict[str, Any] = {
            "id": table_id,
            "game": game,
            "mode": "dealer",
            "limits": {"minimum": "10", "maximum": "1000"},
            # the pit manager confirms any wager favouring the player (Tiger Pair)
            "confirm_player_favoured": player_favoured(game, layout, extra.get("decks", 8)),
            **extra,
        }
        if layout is not None:
            body["layout"] = layout
        self.call("POST", "/api/tables", PIT, body)

    def deal(self, table_id: str, cards: str) -> None:
        for card in cards.split():
            self.call("POST", f"/api/tables/{table_id}/round/deal", DEALER, {"card": card})

    def coup(self, table_id: str, cards: str | None = None) -> None:
        """One whole coup at a dealer's table: open, close, the cards (keyed,
        or drawn from the server's shoe), settle."""
        self.call("POST", f"/api/tables/{table_id}/round/open", DEALER)
        self.call("POST", f"/api/tables/{table_id}/round/close", DEALER)
        if cards is not None:
            self.deal(table_id, cards)
        else:
            while not self.call("POST", f"/api/tables/{table_id}/round/deal", DEALER)["complete"]:
                pass
        self.call("POST", f"/api/tables/{table_id}/round/settle", DEALER)

    def balance(self, who: tuple[str, str]) -> Decimal:
        """The player's balance as the API says."""
        return Decimal(self.call("GET", "/api/me", who)["balance"])

    def ledger_balance(self, username: str) -> Decimal:
        """The player's wallet as the ledger itself says (cents to an amount)."""
        engine = db_connect(self.database)
        try:
            return Decimal(Ledger(engine).balance(f"player:{username}")) / 100
        finally:
            engine.dispose()


@contextlib.contextmanager
def serve(directory: Path, **options: Any) -> Iterator[Site]:
    """The demo server on a fresh SQLite file in ``directory``."""
    database = f"sqlite:///{directory / 'punto.db'}"
    app = make_app(database, **options)
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=10) as client:
        yield Site(base, database, client)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The server, its automatic dealers off: the tests deal every card."""
    with serve(tmp_path_factory.mktemp("browser"), auto_dealers=False) as running:
        yield running


def money(amount: Decimal | int | str) -> str:
    """An amount as the pages show it: 10,075.00, −25.00."""
    value = Decimal(amount).quantize(Decimal("0.01"))
    text = f"{abs(value):,.2f}"
    return f"−{text}" if value < 0 else text


def signed(amount: Decimal | int | str) -> str:
    value = Decimal(amount)
    return money(value) if value <= 0 else f"+{money(value)}"


class Page:
    """A page in its own browser context (its own cookies), watched for errors."""

    def __init__(self, context: BrowserContext, page: PlaywrightPage, name: str) -> None:
        self.context = context
        self.page = page
        self.name = name
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        page.set_default_timeout(TIMEOUT)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "assert"):
            self.errors.append(f"console {message.type}: {message.text}")

    def testid(self, testid: str) -> Locator:
        return self.page.get_by_test_id(testid)

    def login(self, who: tuple[str, str]) -> None:
        page = self.page
        self.testid("login-username").fill(who[0])
        self.testid("login-password").fill(who[1])
        self.testid("login-submit").click()
        page.get_by_test_id("user").filter(has_text=who[0]).wait_for()

    def wait_text(self, testid: str, text: str | re.Pattern[str]) -> None:
        """Wait until the element shows ``text`` (exactly, or matching a pattern)."""
        pattern = (
            text if isinstance(text, re.Pattern) else re.compile(rf"^\s*{re.escape(text)}\s*$")
        )
        self.testid(testid).filter(has_text=pattern).first.wait_for()

    def key_card(self, card: str) -> None:
        """At the dealer console: type a card and press Enter (once the
        console allows dealing)."""
        expect(self.testid("btn-key")).to_be_enabled()
        self.testid("card-input").fill(card)
        self.testid("card-input").press("Enter")

    def confirm(self, testid: str) -> None:
        """At the dealer's screen: press a control whose action cannot be
        undone, and confirm it in the screen's own dialog."""
        self.testid(testid).click()
        expect(self.testid("confirm-dialog")).to_be_visible()
        self.testid("confirm-ok").click()
        expect(self.testid("confirm-dialog")).to_be_hidden()

    def wait_phase(self, phase: str) -> None:
        self.page.locator(f'[data-testid="phase"][data-phase="{phase}"]').wait_for()

    def cards(self) -> int:
        count: int = self.page.locator('#hands [data-testid="card"]').count()
        return count

    def wait_cards(self, n: int) -> None:
        self.page.locator('#hands [data-testid="card"]').nth(n - 1).wait_for()
        assert self.cards() == n

    def screenshot(self, name: str, *, full_page: bool = True) -> Path:
        path = screenshot_path(name)
        # Finished animations: the last card dealt is shown where it lands.
        self.page.screenshot(path=str(path), full_page=full_page, animations="disabled")
        return path

    def overflow(self) -> dict[str, Any]:
        """How far the page is wider than the screen, and what sticks out."""
        result: dict[str, Any] = self.page.evaluate(
            """() => {
              const width = document.documentElement.clientWidth;
              const clipped = (node) => {
                for (let n = node.parentElement; n; n = n.parentElement) {
                  const o = getComputedStyle(n).overflowX;
                  if (o === "auto" || o === "scroll" || o === "hidden") return n !== document.body && n !== document.documentElement;
                }
                return false;
              };
              const out = [];
              for (const node of document.body.querySelectorAll("*")) {
                const r = node.getBoundingClientRect();
                if (r.width && (r.right > width + 1 || r.left < -1) && !clipped(node)) {
                  out.push(`${node.tagName.toLowerCase()}.${node.className || ""}#${node.dataset.testid || ""} ${Math.round(r.left)}..${Math.round(r.right)}`);
                }
              }
              return { scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 10) };
            }"""
        )
        return result

    def assert_labelled(self) -> None:
        """Accessible basics: every visible control has a name a screen reader
        can say, and keyboard focus is visible (an outline)."""
        missing: list[str] = self.page.evaluate(
            """() => Array.from(document.querySelectorAll("input, select, button, a[href]"))
              .filter((n) => n.offsetParent !== null)
              .filter((n) => {
                const labelled = n.getAttribute("aria-label") || n.getAttribute("aria-labelledby")
                  || (n.id && document.querySelector(`label[for="${n.id}"]`)) || n.closest("label");
                return !labelled && !(n.tagName !== "INPUT" && n.tagName !== "SELECT" && n.textContent.trim());
              })
              .map((n) => n.outerHTML.slice(0, 80))"""
        )
        assert missing == [], missing
        first = self.page.locator("button:visible:enabled").first
        first.focus()
        self.page.keyboard.press("Tab")
        self.page.keyboard.press("Shift+Tab")
        outline = self.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline not in ("none", ""), outline

    def assert_fits(self) -> None:
        """Nothing wider than the screen: no sideways scrolling, nothing cut off."""
        fit = self.overflow()
        assert fit["scroll"] <= fit["width"], fit
        assert fit["out"] == [], fit

    def check(self) -> None:
        """No console errors and no uncaught exceptions so far."""
        assert self.errors == [], f"{self.name}: {self.errors}"

    def shown(self) -> list[str]:
        """Every message the page put in front of the person (status lines,
        the connection banner, alerts), as recorded since it loaded."""
        if self.page.is_closed():
            return []
        messages: list[str] = self.page.evaluate("window.__puntoShown || []")
        return messages

    def assert_no_raw_errors(self) -> None:
        """No message shown was the browser's or the code's own words."""
        raw = [m for m in self.shown() if any(word in m for word in RAW_WORDS)]
        assert raw == [], f"{self.name} showed raw errors: {raw}"

    def close(self) -> None:
        self.assert_no_raw_errors()
        self.context.close()


#: Words that are JavaScript's or the browser's, never a message for a person.
RAW_WORDS = (
    "TypeError",
    "ReferenceError",
    "SyntaxError",
    "Failed to fetch",
    "NetworkError",
    "undefined",
    "[object ",
    "NaN",
)

#: Records every text the page shows in a status line, alert or the
#: connection banner (``window.__puntoShown``), for :meth:`Page.assert_no_raw_errors`.
_RECORD_SHOWN = """
(() => {
  window.__puntoShown = [];
  const watched = '[role="status"], [role="alert"], .message, [data-testid="message"], [data-testid="connection"]';
  const seen = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const host = el && el.closest ? el.closest(watched) : null;
    if (host && host.textContent.trim()) window.__puntoShown.push(host.textContent.trim());
  };
  new MutationObserver((records) => {
    for (const r of records) seen(r.target);
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


def open_page(
    browser: Browser,
    site: Site,
    path: str,
    name: str,
    *,
    width: int = 1280,
    height: int = 900,
    phone: bool = False,
    touch: bool = False,
    locale: str = "en-US",
) -> Page:
    """``path`` in a fresh browser context (its own cookies and storage), in
    the browser's language ``locale``; ``touch``: a touch screen (taps) of
    the size given, ``phone`` a phone's."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        locale=locale,
        timezone_id="UTC",
        is_mobile=phone,
        has_touch=phone or touch,
        device_scale_factor=2 if phone else 1,
        reduced_motion="no-preference",
    )
    context.add_init_script(_RECORD_SHOWN)
    page = context.new_page()
    watched = Page(context, page, name)
    page.goto(site.base + path)
    page.get_by_test_id("page").wait_for()
    return watched
