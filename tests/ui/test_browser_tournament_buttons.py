"""The two buttons of the tournament page that only a player in a particular
spot sees, clicked in Debian's Chromium: **Re-enter** for a player out of
chips where the format allows re-entry (T2.3, paying the entry fee again), and
**Banker** / **Player** in a sudden-death hand (T7.2, with its countdown).

The spot is reached through the API, with the helpers of the API tests of the
same paths (:mod:`tests.server.test_server_tournament_paths`): they take a
:class:`~fastapi.testclient.TestClient`, here one on the very app the browser
is served by (uvicorn, on 127.0.0.1), so both see one server.  The coup about
to be dealt is read from the table's seeded shoe (never changed), so that a
player loses everything, or picks the winning side, on purpose.  The clicking
is done on the page; then the page and the API (and, for the fee, the ledger)
must both show what the click did.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, expect

from punto.rules.coup import Coup
from punto.server.tournaments.entry import Entry
from punto.server.tournaments.money import fee_key
from punto.server.tournaments.service import Tournaments
from punto.tournament import Phase
from punto.tournament.clock import Window
from punto.tournament.events import EntrantReentered, TiebreakChosen, TiebreakDealt
from tests.server.test_server_support import live_server, login, make_app, wait_for
from tests.server.test_server_tournament_paths import (
    CHIPS,
    FEE,
    REENTRY,
    balance,
    bet,
    bust,
    clean,
    counts,
    create,
    entries,
    ledger_of,
    new_player,
    open_hand,
    play_hand,
    pool,
    reenter,
    reentry_events,
    refused,
    tournament_of,
)
from tests.tournament.test_tournament_core import next_coup
from tests.ui.test_browser_support import PIT, PLAYER, Site, browser, money, open_page

__all__ = ["browser"]

#: The live tournament's betting window, which is also the sudden-death
#: hand's window (the clock gives both the same length).  For the click it is
#: generous: the page shows the buttons well under a second after the hand
#: opens.  Every hand of the heat waits for its window in full (a person who
#: could still bet is seated), so the hands nobody needs are given a short one
#: (:func:`short_windows_until`).
WINDOW_SECONDS = 6
#: The window of the heat's hands that nothing in the test waits on (s).
SHORT_WINDOW_SECONDS = 0.5
#: How long the heat may take before its sudden-death hand opens (ms).
HEAT_MS = 15 * (WINDOW_SECONDS + 2) * 1000 + 60_000


@dataclass
class Served:
    """The server: over HTTP for the browser, in-process for the API helpers."""

    site: Site
    client: TestClient
    tournaments: Tournaments


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    database = f"sqlite:///{tmp_path / 'punto.db'}"
    app = make_app(database)
    with (
        live_server(app) as base,
        httpx2.Client(base_url=base, timeout=30) as http,
        # not entered: the app is running already, under uvicorn
        contextlib.closing(TestClient(app)) as client,
    ):
        tournaments: Tournaments = app.state.tournaments
        yield Served(Site(base, database, http), client, tournaments)


def register(client: TestClient, tid: str, headers: dict[str, str]) -> None:
    """A player enters themselves (paying the entry fee)."""
    r = client.post(f"/api/tournaments/{tid}/register", headers=headers)
    assert r.status_code == 200, r.text


# -- T2.3: the Re-enter button --------------------------------------------------------------


def test_re_entry_button_enters_the_eliminated_player_again_for_the_entry_fee(
    browser: Browser, served: Served
) -> None:
    site, client = served.site, served.client
    create(client, "re", "turbo", seed=2, tables=1)
    demo = login(client, PLAYER)
    before = balance(client, demo)
    others = {name: new_player(client, name, "1000.00") for name in ("ann", "bo", "cy")}
    for headers in (demo, *others.values()):
        register(client, "re", headers)
    assert balance(client, demo) == before - FEE

    page = open_page(browser, site, "/tournaments/re", "tournament-reentry")
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(PLAYER)
        page.wait_text("t-balance", money(before - FEE))
        assert client.post("/api/tournaments/re/start", headers=login(client, PIT)).is_success
        page.wait_text("t-my-chips", f"{CHIPS:,}")
        expect(page.testid("t-reenter")).to_be_hidden()  # chips left: nothing to re-enter

        # the player stakes everything on the side about to lose: out of chips,
        # and the page (following the pushes) offers the re-entry
        bust(client, "re", {PLAYER[0]: demo}, others)
        assert entries(client, "re")[PLAYER[0]] == (1, 0)
        expect(page.testid("t-reenter")).to_be_visible()
        expect(page.testid("t-reenter")).to_have_text("Re-enter")
        expect(page.testid("t-my-status")).to_have_text("out of chips")
        expect(page.testid("t-my-chips")).to_have_text("0")
        page.screenshot("tournament-reentry-offered")

        page.testid("t-reenter").click()
        expect(page.testid("t-message")).to_have_text(f"Re-entered: {CHIPS:,} chips")
        expect(page.testid("t-reenter")).to_be_hidden()
        expect(page.testid("t-my-chips")).to_have_text(f"{CHIPS:,}")
        expect(page.testid("t-my-status")).to_have_text("")
        page.wait_text("t-balance", money(before - 2 * FEE))
        row = page.page.locator(f'[data-testid="t-overall-row"][data-entrant="{PLAYER[0]}"]')
        expect(row).to_contain_text(f"{CHIPS:,}")

        # the API: the second entry with a new stack, the fee again from the wallet
        assert entries(client, "re")[PLAYER[0]] == (2, CHIPS)
        assert reentry_events(client, "re") == [EntrantReentered(PLAYER[0], 2, CHIPS, "50.00")]
        assert balance(client, demo) == before - 2 * FEE
        assert site.balance(PLAYER) == before - 2 * FEE
        assert site.ledger_balance(PLAYER[0]) == before - 2 * FEE
        posting = ledger_of(client).posting(fee_key("re", PLAYER[0], 2))
        assert posting is not None
        assert posting.amount_for(f"player:{PLAYER[0]}") == -5000
        assert posting.amount_for("tournament:re") == 5000
        assert pool(client, "re") == 5 * FEE  # four entries and one re-entry

        # entered again: the next hand opens (pushed to the page), they are
        # to act on it, and the page offers them its bets
        open_hand(client, "re")
        assert PLAYER[0] in tournament_of(client, "re").awaiting(1)
        page.wait_text("t-balance", money(before - 2 * FEE))
        expect(page.testid("t-play")).to_be_visible()
        expect(page.testid("t-my-bet")).to_have_text("No bet yet")
        page.screenshot("tournament-reentered")
        page.check()
        clean(client)
    finally:
        page.context.close()


def test_re_entry_button_is_not_offered_once_the_format_no_longer_allows_it(
    browser: Browser, served: Served
) -> None:
    """T2.3 in the turbo format: two re-entries, while the first eight hands
    are played.  Out of chips beyond either, the player is not offered a
    button the server would refuse."""
    site, client = served.site, served.client
    demo = login(client, PLAYER)
    others = {name: new_player(client, name, "1000.00") for name in ("ann", "bo", "cy")}
    people = {PLAYER[0]: demo, **others}
    pit = login(client, PIT)
    for tid in ("thrice", "late"):
        create(client, tid, "turbo", seed=2, tables=1)
        for headers in people.values():
            register(client, tid, headers)
        assert client.post(f"/api/tournaments/{tid}/start", headers=pit).is_success

    def not_offered(tid: str, says: str) -> None:
        """Out of chips on the page, with no Re-enter button; the API refuses."""
        expect(page.testid("t-my-status")).to_have_text("out of chips")
        expect(page.testid("t-my-chips")).to_have_text("0")
        expect(page.testid("t-reenter")).to_be_hidden()  # rendered with the status above
        r = reenter(client, tid, demo, None)
        refused(
            client,
            tid,
            r,
            counts(client, tid),
            status=422,
            kind="RegistrationError",
            clause=REENTRY,
            says=says,
        )

    # out of chips a third time: both re-entries spent
    page = open_page(browser, site, "/tournaments/thrice", "tournament-reentry-spent")
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(PLAYER)
        for entry in (1, 2):
            bust(client, "thrice", {PLAYER[0]: demo}, others)
            expect(page.testid("t-reenter")).to_be_visible()
            assert reenter(client, "thrice", demo, None).status_code == 200
            expect(page.testid("t-my-chips")).to_have_text(f"{CHIPS:,}")
            assert entries(client, "thrice")[PLAYER[0]] == (entry + 1, CHIPS)
        bust(client, "thrice", {PLAYER[0]: demo}, others)
        assert tournament_of(client, "thrice").tables[1].settled < 8  # not closed by the hand
        not_offered("thrice", "has re-entered 2 time(s), the most allowed")
        page.screenshot("tournament-reentry-spent")
        page.check()
    finally:
        page.context.close()

    # out of chips after hand 8: re-entry has closed
    page = open_page(browser, site, "/tournaments/late", "tournament-reentry-closed")
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(PLAYER)
        t = tournament_of(client, "late")
        while t.tables[1].settled < 7:
            play_hand(client, "late", people)
        bust(client, "late", {PLAYER[0]: demo}, others)
        assert t.tables[1].settled >= 8
        assert entries(client, "late")[PLAYER[0]] == (1, 0)
        not_offered("late", "re-entry closed after hand 8")
        page.screenshot("tournament-reentry-closed")
        page.check()
    finally:
        page.context.close()
    clean(client)


# -- T7.2: the sudden-death buttons ---------------------------------------------------------


def betting_after(entry: Entry, hand: int) -> tuple[int, Coup] | None:
    """Table 1's hand being bet, if it is later than ``hand``, with the coup its
    shoe will deal (read under the tournament's lock: the clock acts meanwhile)."""
    with entry.lock:
        t = entry.tournament
        table = t.tables[1]
        if table.phase is not Phase.BETTING or table.hand <= hand:
            return None
        return table.hand, next_coup(t, 1)


def settled(entry: Entry, hand: int) -> bool:
    """Whether table 1 has settled ``hand``."""
    return entry.tournament.tables[1].settled >= hand


def bust_live(served: Served, tid: str, losers: dict[str, dict[str, str]]) -> None:
    """In a live tournament (its clock deals): at the first hand that is not a
    Tie, each of ``losers`` stakes all their chips, in the betting window, on
    the side the shoe is about to lose.  They are out of chips (T4.7)."""
    entry = served.tournaments.get(tid)
    t = entry.tournament
    done = 0
    while True:
        hand, coup = wait_for(partial(betting_after, entry, done), timeout=60)
        winner = coup.winner.value
        if winner != "tie":
            losing = "player" if winner == "banker" else "banker"
            for name, headers in losers.items():
                bet(served.client, tid, headers, losing, t.entrants[name].chips)
        wait_for(partial(settled, entry, hand), timeout=60)
        if winner != "tie":
            for name in losers:
                assert t.entrants[name].chips == 0
                assert t.out_of_chips(name)
            return
        done = hand


def short_windows_until(entry: Entry, last_hand: int) -> None:
    """From now on, the live clock opens short windows for table 1's hands up
    to ``last_hand``; the windows after them (the sudden death's) have their
    full length again.  Decided as each window opens, under the tournament's
    lock: nothing here races the clock."""
    clock = entry.clock
    assert clock is not None
    shown = clock.on_window

    def opened(window: Window) -> None:
        if window.table != 1 or window.hand >= last_hand:
            clock.betting = WINDOW_SECONDS
        if shown is not None:
            shown(window)

    with entry.lock:
        clock.on_window = opened
        clock.betting = SHORT_WINDOW_SECONDS


@pytest.mark.slow
def test_sudden_death_buttons_choose_the_players_side_in_the_tiebreak(
    browser: Browser, served: Served
) -> None:
    """Demo and Ann never bet: each sits out the first five hands of the heat
    and pays the minimum bet as a penalty on each of the last ten (T5.3), so
    both end it on 18,000; Bo and Cy lose everything on the first hand.  One
    advances from the table (T6.2): Demo and Ann play a sudden-death hand
    (T7.1, T7.2), in a window with a countdown.  Demo picks the side the shoe
    is about to win; Ann, who never chooses, gets the other when it closes."""
    site, client = served.site, served.client
    create(
        client,
        "sd",
        "turbo",
        seed=1,
        tables=1,
        live=True,
        betting_seconds=WINDOW_SECONDS,
        pause_seconds=0,
    )
    demo = login(client, PLAYER)
    people = {name: new_player(client, name, "1000.00") for name in ("ann", "bo", "cy")}
    for headers in (demo, *people.values()):
        register(client, "sd", headers)
    entry = served.tournaments.get("sd")
    t = entry.tournament

    page = open_page(browser, site, "/tournaments/sd", "tournament-sudden-death")
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(PLAYER)
        expect(page.testid("t-entrant")).to_be_visible()
        sudden = page.testid("t-sudden")
        expect(sudden).to_be_hidden()
        assert client.post("/api/tournaments/sd/start", headers=login(client, PIT)).is_success
        bust_live(served, "sd", {"bo": people["bo"], "cy": people["cy"]})
        # what is left of the heat, hands nobody bets on (T5.3's penalties
        # are charged all the same), goes quickly
        short_windows_until(entry, last_hand=15)

        # the heat is dealt by the clock; then the sudden-death hand, on the page
        expect(sudden).to_be_visible(timeout=HEAT_MS)
        reason = "for the last advancing place at table 1"
        expect(page.page.locator("#t-sudden-text")).to_have_text(
            f"Sudden death {reason}: choose Banker or Player."
        )
        expect(page.testid("t-sudden-countdown")).to_have_text(re.compile(r"^\d+\.\d s$"))
        expect(page.testid("t-tiebreak")).to_have_text(f"Sudden death: {reason}")
        expect(page.testid("t-side-banker")).to_be_enabled()
        expect(page.testid("t-side-player")).to_be_enabled()
        with entry.lock:
            tb = t.tiebreak
            assert tb is not None
            assert sorted(tb.entrants) == ["ann", PLAYER[0]]
            assert {e.chips for e in t.entrants.values()} == {18_000, 0}
            coup = next_coup(t, tb.table)
        side = coup.winner.value
        assert side != "tie", "choose a seed whose sudden-death coup separates them"
        other = "player" if side == "banker" else "banker"
        snapshot = site.call("GET", "/api/tournaments/sd", PIT)
        (window,) = (w for w in snapshot["windows"] if w["tiebreak"])
        assert window["seconds"] == WINDOW_SECONDS
        assert snapshot["tiebreak"]["reason"] == reason
        page.screenshot("tournament-sudden-death")

        with page.page.expect_response(lambda r: r.url.endswith("/tiebreak")) as answer:
            page.testid(f"t-side-{side}").click()
        assert answer.value.status == 200
        assert answer.value.json() == {
            "entrant": PLAYER[0],
            "side": side,
            "open_sides": [other],
            "chosen": [PLAYER[0]],
        }
        expect(page.testid("t-message")).to_have_text(f"You chose {side.title()}")
        expect(sudden).to_be_hidden()

        # the window closes: Ann gets the other side, the hand is dealt, and
        # Demo, on the winning side, is the one who advances to the final
        def final() -> bool:
            board = site.call("GET", "/api/tournaments/sd/leaderboard", PIT)
            return bool(board["session"]["name"] == "Final")

        wait_for(final, timeout=WINDOW_SECONDS + 60, step=0.2)
        board = site.call("GET", "/api/tournaments/sd/leaderboard", PIT)
        assert board["tiebreak"] is None
        assert [row["entrant"] for row in board["overall"]] == [PLAYER[0]]
        assert board["overall"][0]["chips"] == 18_000
        out = {row["entrant"]: (row["session"], row["chips"]) for row in board["eliminated"]}
        assert out == {"ann": (1, 18_000), "bo": (1, 0), "cy": (1, 0)}
        status = {
            e["entrant"]: e["status"]
            for e in site.call("GET", "/api/tournaments/sd", PIT)["entrants"]
        }
        assert status[PLAYER[0]] == "playing"
        assert status["ann"] == "eliminated"
        chosen = [
            (x.event.entrant, x.event.wager)
            for x in t.log.read("sd")
            if isinstance(x.event, TiebreakChosen)
        ]
        assert chosen == [(PLAYER[0], side), ("ann", other)]
        (dealt,) = [x.event for x in t.log.read("sd") if isinstance(x.event, TiebreakDealt)]
        assert dealt.winner == side
        nets = {r.entrant: (r.wager, r.net > 0) for r in dealt.results}
        assert nets == {PLAYER[0]: (side, True), "ann": (other, False)}

        # and the page follows: the final, Demo alone at its table, no sudden death
        expect(page.testid("t-session")).to_contain_text("Final (session 2)")
        expect(page.testid("t-overall-row")).to_have_count(1)
        expect(page.testid("t-overall-row")).to_have_attribute("data-entrant", PLAYER[0])
        expect(page.testid("t-tiebreak")).to_be_hidden()
        expect(sudden).to_be_hidden()
        page.screenshot("tournament-sudden-death-result")
        page.check()
    finally:
        page.context.close()


# -- T2.4 and T8.4: an entry taken back, a tournament cancelled ------------------------------


def test_take_my_entry_back_refunds_the_fee_and_a_cancellation_shows_on_the_page(
    browser: Browser, served: Served
) -> None:
    """Before the first session the entrant's page offers "Take my entry back"
    (T2.4): clicked, the fee comes back to the wallet and the page offers
    Register again.  Registered again and the tournament cancelled by the pit
    (T8.4), the page says so with the reason, and the balance is whole."""
    site, client = served.site, served.client
    create(client, "off", "turbo", seed=2, tables=1)
    demo = login(client, PLAYER)
    before = balance(client, demo)
    page = open_page(browser, site, "/tournaments/off", "tournament-cancelled")
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(PLAYER)
        page.wait_text("t-balance", money(before))
        page.testid("t-register").click()
        page.wait_text("t-balance", money(before - FEE))
        expect(page.testid("t-unregister")).to_be_visible()
        page.testid("t-unregister").click()
        expect(page.testid("t-message")).to_have_text(
            f"Entry taken back (entry fee {money(FEE)} given back)"
        )
        page.wait_text("t-balance", money(before))
        expect(page.testid("t-register-box")).to_be_visible()
        assert PLAYER[0] not in tournament_of(client, "off").entrants
        assert balance(client, demo) == before

        page.testid("t-register").click()
        page.wait_text("t-balance", money(before - FEE))
        r = client.post(
            "/api/tournaments/off/cancel",
            headers=login(client, PIT),
            json={"reason": "not enough entrants tonight"},
        )
        assert r.status_code == 200, r.text
        expect(page.testid("t-cancelled")).to_have_text(
            "Cancelled: not enough entrants tonight. Every entry fee paid is given back (T8.4)."
        )
        expect(page.testid("t-info")).to_have_text("off · turbo · cancelled")
        page.wait_text("t-balance", money(before))
        expect(page.testid("t-unregister")).to_be_hidden()
        expect(page.testid("t-register-box")).to_be_hidden()
        assert balance(client, demo) == before
        page.screenshot("tournament-cancelled")
        page.check()
        clean(client)
    finally:
        page.close()


def test_the_pit_starts_and_cancels_a_tournament_from_its_page(
    browser: Browser, served: Served
) -> None:
    """A pit manager on the tournament page: "Start the next session" while
    registration is open, then "Cancel the tournament" with a reason (T8.4):
    every fee comes back.  A dealer sees no such controls."""
    site, client = served.site, served.client
    create(client, "pitcup", "turbo", seed=2, tables=1)
    people = {name: new_player(client, name, "1000.00") for name in ("ann", "bo", "cy", "di")}
    for headers in people.values():
        register(client, "pitcup", headers)
    page = open_page(browser, site, "/tournaments/pitcup", "tournament-pit")
    try:
        page.page.locator('[data-testid="t-live"][data-state="live"]').wait_for()
        page.login(("dealer", "dealer-password"))
        expect(page.testid("t-staff")).to_be_hidden()
        page.testid("logout").click()
        page.login(PIT)
        expect(page.testid("t-staff")).to_be_visible()
        expect(page.testid("t-start")).to_be_visible()
        page.testid("t-start").click()
        expect(page.testid("t-staff-message")).to_have_text("Heat started")
        expect(page.testid("t-info")).to_have_text("pitcup · turbo · playing")
        expect(page.testid("t-start")).to_be_hidden()
        assert tournament_of(client, "pitcup").session_number == 1
        page.testid("t-cancel-reason").fill("the card room floods")
        page.testid("t-cancel").click()
        expect(page.testid("t-staff-message")).to_have_text(
            "Cancelled; 4 of 4 entry fee refunds paid"
        )
        expect(page.testid("t-cancelled")).to_have_text(
            "Cancelled: the card room floods. Every entry fee paid is given back (T8.4)."
        )
        expect(page.testid("t-cancel-form")).to_be_hidden()
        for headers in people.values():
            assert balance(client, headers) == Decimal("1000.00")
        page.screenshot("tournament-pit-cancelled")
        page.check()
        clean(client)
    finally:
        page.close()
