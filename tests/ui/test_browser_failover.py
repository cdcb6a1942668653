"""A page through a failover, in Debian's Chromium: two
real ``punto serve`` processes on one PostgreSQL database behind one address
(a TCP proxy standing for the reverse proxy of docs/deployment.md: each
connection goes to the first process that accepts it).  The player's bet
reaches the process that runs the table, which takes it, and that process is
SIGKILLed before its answer leaves: the page says it is sending again, sends
the same request with the same Idempotency-Key until the other process has
taken the table over and answers it, and shows the bet placed -- made
exactly once in the log and on the ledger -- with no raw error shown."""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest
from playwright.sync_api import Browser, Route, expect

from punto.store.db import connect as db_connect
from punto.store.sql_log import read_stream
from punto.table.events import TABLE_STREAM, BetPlaced, BetsClosed, Event
from tests import db_fixtures
from tests.server.test_server_processes import running, serve
from tests.server.test_server_support import free_port, wait_for
from tests.ui.test_browser_faults import EXPECTED, ledger_bets, shown_raw
from tests.ui.test_browser_support import DEALER, PLAYER, Page, Site, browser, money, open_page

__all__ = ["browser"]

#: tests.server.test_server_processes: a dead process's tables are taken over
#: within the lease and 5 s).  Generous: CI runs on a busy 2-core machine.
BOUND = 60.0


class Proxy:
    """One address before several processes: each TCP connection is joined
    to the first process that accepts it (WebSockets included), and closed
    when that process goes away, as a reverse proxy does."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._join, args=(client,), daemon=True).start()

    def _join(self, client: socket.socket) -> None:
        for port in self.ports:
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:
                continue
            upstream.settimeout(None)
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()
            self._pump(client, upstream)
            return
        client.close()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()

    def close(self) -> None:
        self.listener.close()


def said(page: Page, shown: Callable[[str], bool], keys: list[str]) -> None:
    """Wait until ``page`` has shown a message for which ``shown`` holds.

    Read from the page's record of every message it showed, not from the
    status line or banner as it stands: over a failover the retry's answer,
    the banner and the ruling on the reconnection ("Reconnected. Round r1 is
    still taking bets.") follow each other within moments, one may replace
    another in the same frame, and polling the element can miss it."""
    try:
        wait_for(lambda: any(shown(m) for m in page.shown()), timeout=BOUND, step=0.2)
    except AssertionError:
        raise AssertionError(f"not shown; shown: {page.shown()}, keys sent: {keys}") from None


def logged(database: str, table_id: str, kind: type[Event]) -> int:
    """How many events of ``kind`` the table's log holds."""
    engine = db_connect(database)
    try:
        return sum(isinstance(e.event, kind) for e in read_stream(engine, TABLE_STREAM, table_id))
    finally:
        engine.dispose()


@contextlib.contextmanager
def two_processes(db_url: str, tmp_path: Path) -> Iterator[tuple[Site, subprocess.Popen[bytes]]]:
    """Two processes on ``db_url`` behind a proxy; the site (through the
    proxy) and the first process, the proxy's first choice, which runs the
    tables made through it."""
    first_port, second_port = free_port(), free_port()
    first = serve(db_url, first_port, tmp_path / "first.log", demo=True)
    with running(first, first_port):
        second = serve(db_url, second_port, tmp_path / "second.log", demo=False)
        with running(second, second_port):
            proxy = Proxy([first_port, second_port])
            try:
                with httpx2.Client(base_url=proxy.base, timeout=30) as client:
                    yield Site(proxy.base, db_url, client), first
            finally:
                proxy.close()


def killed_after_answering(
    process: subprocess.Popen[bytes], keys: list[str]
) -> Callable[[Route], None]:
    """A route handler: the first request reaches ``process``, which does
    it, and is then SIGKILLed before the page hears the answer; the retries
    go on to whichever process the proxy finds.  ``keys``: the keys sent."""

    def handle(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            answer = route.fetch()
            assert answer.ok, answer.text()
            process.send_signal(signal.SIGKILL)
            process.wait(10)
            route.abort("connectionreset")
        else:
            route.continue_()

    return handle


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_tiger_baccarat_bet_whose_process_is_killed_is_answered_by_the_other_once(
    browser: Browser, db_url: str, tmp_path: Path
) -> None:
    with two_processes(db_url, tmp_path) as (site, first):
        _bet_through_the_failover(browser, site, first)


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_tiger_baccarat_dealers_no_more_bets_through_a_failover_closes_betting_once(
    browser: Browser, db_url: str, tmp_path: Path
) -> None:
    with two_processes(db_url, tmp_path) as (site, first):
        site.new_table("failover-close", "tiger-baccarat")
        site.call("POST", "/api/tables/failover-close/round/open", DEALER)
        dealer = open_page(browser, site, "/dealer/failover-close", "failover_dealer")
        dealer.login(DEALER)
        expect(dealer.testid("connection")).to_be_hidden(timeout=BOUND * 1000)
        keys: list[str] = []
        dealer.page.route(
            "**/api/tables/failover-close/round/close", killed_after_answering(first, keys)
        )
        dealer.confirm("btn-close")
        said(dealer, lambda m: m.startswith("Connection lost"), keys)
        dealer.screenshot("failover_dealer_sending")
        # The other process takes the table over and answers the same request:
        # the console says it was done only once the server said so.
        said(dealer, lambda m: m == "No more bets.", keys)
        assert any(m.startswith("sending…") for m in dealer.shown()), dealer.shown()
        assert len(keys) >= 2, keys
        assert len(set(keys)) == 1, keys
        assert logged(site.database, "failover-close", BetsClosed) == 1  # closed once
        # and the console follows the table on the process that runs it now
        expect(dealer.testid("connection")).to_be_hidden(timeout=BOUND * 1000)
        dealer.screenshot("failover_dealer_done")
        assert shown_raw(dealer) == []
        assert [e for e in dealer.errors if not EXPECTED.search(e)] == []
        dealer.close()


def _bet_through_the_failover(browser: Browser, site: Site, first: subprocess.Popen[bytes]) -> None:
    # Made through the first process (the proxy's first choice): it runs the table.
    site.new_table("failover", "tiger-baccarat")
    site.call("POST", "/api/tables/failover/round/open", DEALER)
    before = site.ledger_balance(PLAYER[0])
    page = open_page(browser, site, "/play/failover", "failover_bet")
    page.login(PLAYER)
    page.wait_phase("betting")
    expect(page.testid("connection")).to_be_hidden()
    keys: list[str] = []
    page.page.route("**/api/tables/failover/bets", killed_after_answering(first, keys))
    page.testid("chip-10").click()
    page.testid("area-banker").click()
    page.wait_text("message", re.compile(r"Banker 10\.00: sending…"))
    said(page, lambda m: m.startswith("Connection lost"), keys)
    page.screenshot("failover_bet_sending")
    assert shown_raw(page) == []
    # The other process takes the table over and answers the same request.
    said(page, lambda m: m == "Banker 10.00 placed.", keys)
    expect(page.testid("connection")).to_be_hidden(timeout=BOUND * 1000)
    assert len(keys) >= 2, keys
    assert len(set(keys)) == 1, keys  # the same key every time
    # Made once: one bet in the log, one on the ledger, its stake gone once.
    assert logged(site.database, "failover", BetPlaced) == 1
    assert ledger_bets(site.database, "failover") == [("player:demo", 1000)]
    after = site.ledger_balance(PLAYER[0])
    assert after == before - 10
    page.wait_text("balance", money(after))
    page.screenshot("failover_bet_placed")
    assert shown_raw(page) == []
    assert [e for e in page.errors if not EXPECTED.search(e)] == []
    page.close()
