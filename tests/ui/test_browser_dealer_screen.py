"""The dealer's screen at the table as a touch screen, in Debian's Chromium:
a whole round played by tapping its steps only, the step that moves the
round on highlighted at each phase and the others disabled with a reason;
the screen's own confirmation before "No more bets" and the settlement,
where cancelling changes nothing; the events panel in words; a pending
ruling that stops the round, says who filed it and is withdrawn.
Screenshots at 1280x800 and 1024x768 go to ``artifacts/``."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from punto.table.events import EVENT_TYPES
from tests.ui.test_browser_support import (
    DEALER,
    PLAYER,
    Page,
    Site,
    browser,
    open_page,
    site,
)

__all__ = ["browser", "site"]

STEPS = ("btn-open", "btn-close", "btn-draw", "btn-settle")

#: The engine's own names for its records: never on the dealer's screen.
ENGINE_WORDS = sorted(
    {cls.__name__ for cls in EVENT_TYPES.values()} | {name for name in EVENT_TYPES if "_" in name}
)


def highlighted(dealer: Page) -> list[str]:
    """The steps lit as the next action."""
    return [s for s in STEPS if "next-step" in (dealer.testid(s).get_attribute("class") or "")]


def assert_next(dealer: Page, step: str) -> None:
    """``step`` is the one highlighted step, enabled, and said to be next."""
    expect(dealer.testid(step)).to_have_class(re.compile(r"\bnext-step\b"))
    expect(dealer.testid(step)).to_be_enabled()
    assert highlighted(dealer) == [step]


def small_controls(dealer: Page) -> list[str]:
    """Every visible control of the screen (and its dialog) smaller than a
    finger's 48 px, as "testid WxH"."""
    small: list[str] = dealer.page.evaluate(
        """() => Array.from(document.querySelectorAll(
              "main button, main input:not([type=checkbox]), main select, dialog[open] button"))
          .filter((n) => n.offsetParent !== null)
          .map((n) => [n.dataset.testid || n.id || n.textContent.trim(), n.getBoundingClientRect()])
          .filter(([, r]) => r.height < 48 || r.width < 48)
          .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    return small


def events_text(dealer: Page) -> str:
    text: str = dealer.testid("events").inner_text()
    return text


def assert_in_words(dealer: Page) -> None:
    """The events panel says what happened, never the records themselves."""
    text = events_text(dealer)
    assert text.strip()
    assert "{" not in text, text
    assert "=" not in text, text
    leaked = [word for word in ENGINE_WORDS if word in text]
    assert leaked == [], (leaked, text)


def test_a_round_by_touch_the_next_step_lit_and_what_cannot_be_undone_confirmed(
    browser: Browser, site: Site
) -> None:
    """At 1280x800, a touch screen: the dealer opens betting, closes it,
    draws every card and settles by tapping the steps; at each phase the
    lit step is the one that moves the round on, and a step not possible is
    disabled with its reason.  "No more bets" and the settlement ask first:
    cancelled (by touch, then by the keyboard's Escape) nothing changes,
    at the screen or at the server."""
    site.new_table("touch", "tiger-baccarat")
    dealer = open_page(browser, site, "/dealer/touch", "dealer", width=1280, height=800, touch=True)
    base = "/api/tables/touch"
    try:
        dealer.login(DEALER)
        assert_next(dealer, "btn-open")
        expect(dealer.testid("btn-close")).to_be_disabled()
        dealer.wait_text("why-close", "Open betting first.")
        assert small_controls(dealer) == []

        dealer.testid("btn-open").tap()
        dealer.wait_phase("betting")
        assert_next(dealer, "btn-close")
        dealer.wait_text("why-cards", "Call “No more bets” first.")
        site.call("POST", f"{base}/bets", PLAYER, {"wager": "banker", "stake": "25"})
        dealer.page.get_by_test_id("event-text").filter(
            has_text=re.compile(r"^demo bet 25\.00 on Banker at seat \d+$")
        ).wait_for()

        dealer.testid("bet-row").wait_for()  # the bet on the layout, as the snapshot has it

        # "No more bets", asked first: cancelled, betting stays open
        dealer.testid("btn-close").tap()
        expect(dealer.testid("confirm-dialog")).to_be_visible()
        expect(dealer.testid("confirm-text")).to_contain_text("1 bet(s) on the layout")
        assert small_controls(dealer) == []
        dealer.testid("confirm-cancel").tap()
        expect(dealer.testid("confirm-dialog")).to_be_hidden()
        dealer.wait_text("message", "Nothing was done.")
        assert site.call("GET", base, DEALER)["round"]["phase"] == "betting"
        expect(dealer.page.locator('[data-testid="phase"]')).to_have_attribute(
            "data-phase", "betting"
        )
        assert_next(dealer, "btn-close")
        dealer.testid("btn-close").tap()
        dealer.testid("confirm-ok").tap()
        dealer.wait_phase("dealing")
        dealer.wait_text("event-text", "No more bets")

        # the cards from the server's shoe, a tap each, until the coup is complete
        assert_next(dealer, "btn-draw")
        expect(dealer.testid("btn-settle")).to_be_disabled()
        dealer.wait_text("why-settle", "The coup is not complete yet.")
        expect(dealer.testid("key-form")).to_be_hidden()  # no card is keyed from the server's shoe
        for n in range(1, 7):
            dealer.testid("btn-draw").tap()
            dealer.wait_cards(n)
            if site.call("GET", base, DEALER)["round"]["phase"] == "result":
                break
        dealer.wait_phase("result")
        assert_next(dealer, "btn-settle")
        dealer.wait_text("why-cards", "The coup is complete.")
        result = site.call("GET", base, DEALER)["round"]["result"]
        p, b = result["player_total"], result["banker_total"]
        outcome = "Tie" if p == b else ("Player wins" if p > b else "Banker wins")
        coup = f"Player {p}, Banker {b}: {outcome}"

        # the settlement, asked first: Escape cancels it, nothing is settled
        dealer.testid("btn-settle").tap()
        expect(dealer.testid("confirm-text")).to_contain_text(coup)
        expect(dealer.testid("confirm-cancel")).to_be_focused()
        dealer.screenshot("dealer-screen-1280x800-confirm", full_page=False)
        dealer.page.keyboard.press("Escape")
        expect(dealer.testid("confirm-dialog")).to_be_hidden()
        assert site.call("GET", base, DEALER)["round"]["result"]["settled"] is False
        assert_next(dealer, "btn-settle")
        # ... and the keyboard confirms it: Tab to the confirming button, Enter
        dealer.testid("btn-settle").tap()
        expect(dealer.testid("confirm-cancel")).to_be_focused()
        dealer.page.keyboard.press("Tab")
        expect(dealer.testid("confirm-ok")).to_be_focused()
        dealer.page.keyboard.press("Enter")
        dealer.wait_phase("settled")
        dealer.wait_text("event-text", f"{coup}. Settled")

        # the next round is the lit step, and says so
        assert_next(dealer, "btn-open")
        dealer.wait_text("btn-open", re.compile(r"Next round: place your bets"))
        expect(dealer.testid("btn-settle")).to_be_disabled()
        dealer.wait_text("why-settle", "Settled.")
        assert_in_words(dealer)
        assert re.search(
            r"(?m)^(ace|king|queen|jack|\d+) of \w+ to the (Player|Banker)", events_text(dealer)
        )
        assert small_controls(dealer) == []
        dealer.screenshot("dealer-screen-1280x800", full_page=False)
        dealer.check()
    finally:
        dealer.close()


def test_a_pending_ruling_stops_the_round_and_says_who_filed_it(
    browser: Browser, site: Site
) -> None:
    """At 1024x768: a foreign card claimed by the dealer waits for a Pit
    Supervisor.  The screen shows what was claimed, by whom, when and what it
    would change; every step of the round is disabled, saying why; the
    dealer withdraws it (confirmed first) and the round goes on."""
    site.new_table("ruling", "tiger-baccarat", card_source="device")
    base = "/api/tables/ruling"
    dealer = open_page(
        browser, site, "/dealer/ruling", "dealer", width=1024, height=768, touch=True
    )
    try:
        dealer.login(DEALER)
        dealer.testid("btn-open").tap()
        dealer.wait_phase("betting")
        site.call("POST", f"{base}/bets", PLAYER, {"wager": "player", "stake": "100"})
        dealer.testid("btn-close").tap()
        dealer.testid("confirm-ok").tap()
        dealer.wait_phase("dealing")
        expect(dealer.testid("key-form")).to_have_class(re.compile(r"\bnext-step\b"))
        dealer.testid("key-9").tap()
        dealer.testid("key-H").tap()
        dealer.wait_cards(1)
        dealer.page.get_by_test_id("event-text").filter(
            has_text=re.compile(r"^9 of hearts to the Player \(keyed\)")
        ).wait_for()

        site.call("POST", f"{base}/irregularities/foreign_card", DEALER, {"card": "QS"})
        expect(dealer.testid("claim-pending")).to_be_visible()
        dealer.wait_text(
            "claim-text",
            re.compile(
                r"^Ruling pending: foreign card, filed by dealer, waiting for a Pit Supervisor"
            ),
        )
        dealer.wait_text("claim-who", "dealer (Dealer)")
        dealer.wait_text("claim-what", re.compile(r"^Foreign card \(clause 5\.1\): card QS$"))
        dealer.wait_text("claim-when", re.compile(r"^\d\d:\d\d:\d\d$"))
        dealer.wait_text("claim-change", re.compile(r"demo's Player 100\.00: undecided → returned"))
        dealer.wait_text(
            "event-text",
            re.compile(
                r"^Ruling pending: foreign card \(clause 5\.1\), filed by dealer, waiting for a Pit Supervisor$"
            ),
        )
        for step in (*STEPS, "btn-key", "key-9", "btn-void", "btn-power-failure"):
            expect(dealer.testid(step)).to_be_disabled()
        assert highlighted(dealer) == []
        dealer.wait_text("why-cards", "A ruling is pending: the round waits for the pit.")
        assert_in_words(dealer)
        assert small_controls(dealer) == []
        dealer.screenshot("dealer-screen-1024x768-ruling", full_page=False)

        # a screen opened mid-round shows how the round got here, in words
        dealer.page.reload()
        expect(dealer.testid("claim-pending")).to_be_visible()
        dealer.page.get_by_test_id("event").filter(
            has_text=re.compile(r"^earlier")
        ).first.wait_for()
        dealer.wait_text("event-text", re.compile(r"^demo bet 100\.00 on Player at seat 1$"))
        dealer.wait_text("event-text", re.compile(r"^9 of hearts to the Player \(keyed\)$"))
        dealer.wait_text("event-text", re.compile(r"^Ruling pending: foreign card \(clause 5\.1\)"))
        assert_in_words(dealer)

        # withdrawn, confirmed first: nothing moved, the round goes on
        dealer.testid("btn-withdraw-claim").tap()
        expect(dealer.testid("confirm-title")).to_have_text("Withdraw the claim?")
        dealer.testid("confirm-cancel").tap()
        assert site.call("GET", base, DEALER)["staff"]["claim"] is not None
        dealer.testid("btn-withdraw-claim").tap()
        dealer.testid("confirm-ok").tap()
        expect(dealer.testid("claim-pending")).to_be_hidden()
        dealer.wait_text("event-text", "Ruling withdrawn by dealer: nothing moved")
        expect(dealer.testid("key-form")).to_have_class(re.compile(r"\bnext-step\b"))
        expect(dealer.testid("btn-key")).to_be_enabled()
        assert site.call("GET", base, DEALER)["staff"]["claim"] is None
        dealer.screenshot("dealer-screen-1024x768", full_page=False)
        dealer.check()
    finally:
        dealer.close()
