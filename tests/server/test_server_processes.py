"""Real ``punto serve`` processes on one database: table leases.

PostgreSQL: two processes share the database.  Each runs the tables whose
lease it holds -- disjoint sets covering every table -- and forwards the
requests for the others' to the process that runs them; players send bets
for every table to both.  One is killed with
SIGKILL mid-round; the other takes its tables over (within the lease and 5 s),
resuming each interrupted round under the game's power failure clause (MBS
5.17: the withdrawal option; RWS 5.4: void).  Then the checks of
``test_server_fault``: every acknowledged bet in the log and the ledger once,
the trial balance 0, the audit clean.

A table's WebSocket watchers on the process that does not run it get its
messages (relayed through the database), and keep their sockets when its
process is killed: they go on with the process that takes it over.

SQLite: a second process on the same file is refused (exit 2, one line), and
a restart right after a SIGKILL starts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import httpx2
import pytest

from tests import db_fixtures
from tests.server import test_server_support as support
from tests.server.test_server_fault import (
    PLAYERS,
    RULE,
    TABLES,
    Load,
    check_books,
    check_resumed,
    expected_rules,
    finish_rounds,
    logged_events,
    mid_deal,
    set_up,
)
from tests.server.test_server_support import PIT, free_port, healthy, login, wait_for
from tests.server.test_server_watchers import Watcher, number, settled, watching

#: The lease the processes take (seconds), and how often they renew it.
LEASE = 4.0
RENEW = 1.0


def serve(url: str, port: int, log: Path, *, demo: bool) -> subprocess.Popen[bytes]:
    """``punto serve`` on ``url`` in its own process, its output in ``log``."""
    command = [sys.executable, "-m", "punto.cli", "serve", "--database", url]
    command += ["--port", str(port), "--log-level", "warning"]
    command += ["--lease-seconds", str(LEASE), "--lease-renew-seconds", str(RENEW)]
    with log.open("ab") as out:
        return subprocess.Popen(
            [*command, "--demo"] if demo else command,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@contextmanager
def running(process: subprocess.Popen[bytes], port: int) -> Iterator[str]:
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: healthy(base) or process.poll() is not None, timeout=60, step=0.05)
        assert process.poll() is None, "the server did not start"
        yield base
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _running_here(base: str) -> set[str]:
    """The tables the process at ``base`` runs (the pit's view from there)."""
    with httpx2.Client(base_url=base, timeout=10) as client:
        pit = client.get("/api/pit", headers=login(client, PIT)).json()
    return {t["id"] for t in pit if t["running"]}


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_two_processes_share_the_tables_and_one_takes_over_when_the_other_is_killed(
    db_url: str, tmp_path: Path
) -> None:
    first_port, second_port = free_port(), free_port()
    first = serve(db_url, first_port, tmp_path / "first.log", demo=True)
    with running(first, first_port) as one:
        second = serve(db_url, second_port, tmp_path / "second.log", demo=False)
        with running(second, second_port) as two:
            # The dealing tables on the second process (it is killed), the other on the first.
            players = set_up(one, elsewhere=dict.fromkeys(RULE, two))
            ones, twos = _running_here(one), _running_here(two)
            assert twos == set(RULE)
            assert not ones & twos
            with httpx2.Client(base_url=one, timeout=10) as client:
                every = {t["id"] for t in client.get("/api/pit", headers=login(client, PIT)).json()}
            assert ones | twos == every
            # A table run by the other process: answered by it, through the database.
            shown = httpx2.get(f"{one}/api/tables/mbs", timeout=10)
            assert shown.status_code == 200, shown.text
            assert shown.json()["table"]["id"] == "mbs"

            load = Load(one, players, others=(two,))
            threads = [threading.Thread(target=load.run, args=(n,)) for n in range(PLAYERS)]
            for thread in threads:
                thread.start()
            try:
                # Bets for every table acknowledged through each process before the
                # kill (how soon depends on the machine: waited for, not assumed).
                wait_for(
                    lambda: (
                        len(load.acknowledged) >= 30
                        and all(
                            {t for (b, t) in load.through if b == base} == set(TABLES)
                            for base in (one, two)
                        )
                    ),
                    timeout=120,
                )
                wait_for(lambda: mid_deal(two), timeout=60, step=0.01)
                second.send_signal(signal.SIGKILL)  # mid-round, bets in flight
                killed = time.monotonic()
                second.wait(10)
            finally:
                time.sleep(0.2)  # the requests in flight fail
                load.stop.set()
                for thread in threads:
                    thread.join(15)
        # The first takes the tables over: within the lease and 5 s (polled with a
        # generous bound; the bound itself is checked after).
        wait_for(lambda: set(RULE) <= _running_here(one), timeout=90, step=0.2)
        took = time.monotonic() - killed
        assert took < LEASE + 5, took
        assert load.acknowledged
        # Each process acknowledged bets for every table: its own, and the other's
        # (forwarded) -- the killed one, until it was killed.
        for base in (one, two):
            assert {t for (b, t) in load.through if b == base} == set(TABLES), load.through
        acknowledged_tables = {table for _, table, _, _ in load.acknowledged.values()}
        assert acknowledged_tables == set(TABLES)
        expected = expected_rules(db_url)
        assert any(rule is not None for _, rule in expected.values()), expected
        before = logged_events(db_url)
        with httpx2.Client(base_url=one, timeout=10) as client:
            retried = check_resumed(client, load, expected, db_url)
            finish_rounds(client, TABLES)
    check_books(db_url, load, retried, before)
    print(
        f"take-over {took:.1f} s after the kill; {len(load.acknowledged)} bets acknowledged, "
        f"{len(load.lost)} unanswered; interrupted rounds: {expected}; "
        f"statuses {dict(load.statuses)}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_watchers_on_the_other_process_follow_a_table_through_a_sigkill_of_its_owner(
    db_url: str, tmp_path: Path
) -> None:
    first_port, second_port = free_port(), free_port()
    first = serve(db_url, first_port, tmp_path / "first.log", demo=True)
    with running(first, first_port) as one:
        second = serve(db_url, second_port, tmp_path / "second.log", demo=False)
        with running(second, second_port) as two:
            players = set_up(one)  # every table run by the first
            assert _running_here(two) == set()
            (_, player), (_, other) = players[:2]
            watchers = [Watcher(two, "busy", player), Watcher(two, "busy")]
            with watching(*watchers):
                mine, anyone = watchers
                # A round dealt by the first, seen through the second, with a bet in it.
                wait_for(lambda: mine.of("state"), timeout=30, step=0.05)
                before = len(mine.of("betting_open"))  # a round opening now, not one gone by
                opened = wait_for(lambda: mine.of("betting_open")[before:], timeout=30, step=0.02)
                round_id = opened[0]["round_id"]
                placed = [
                    httpx2.post(
                        f"{base}/api/tables/busy/bets",
                        headers={**who, "Idempotency-Key": f"watch-{n}"},
                        json={"wager": "banker", "stake": "10", "round_id": round_id},
                        timeout=30,
                    )
                    for n, (base, who) in enumerate(((two, player), (one, other)))
                ]
                assert [a.status_code for a in placed] == [201, 201], [a.text for a in placed]
                my_bet, other_bet = (a.json()["bet"]["bet_id"] for a in placed)
                for watcher in watchers:
                    wait_for(partial(settled, watcher, round_id), timeout=30, step=0.05)
                cards = [m for m in mine.messages() if m["type"] == "card"]
                assert any(m["round_id"] == round_id for m in cards)
                first.send_signal(signal.SIGKILL)
                first.wait(10)
                killed = [len(w.messages()) for w in watchers]
                last = max(number(m["round_id"]) for m in mine.of("betting_open"))
                # The second takes the table over; its watchers go on, their sockets kept.
                wait_for(lambda: "busy" in _running_here(two), timeout=60, step=0.2)

                def later_round(watcher: Watcher, count: int) -> bool:
                    since = watcher.messages()[count:]
                    fresh = [m for m in since if m["type"] in ("betting_open", "results")]
                    opened = {m["round_id"] for m in fresh if m["type"] == "betting_open"}
                    return any(
                        m["type"] == "results"
                        and m["round_id"] in opened
                        and number(m["round_id"]) > last
                        for m in fresh
                    )

                for watcher, count in zip(watchers, killed, strict=True):
                    wait_for(partial(later_round, watcher, count), timeout=60, step=0.1)
                    assert not watcher.closed
                    assert any(m["type"] == "state" for m in watcher.messages()[count:])
                # Nobody saw another's bets or the staff's messages on the way.
                seen = {
                    bet["bet_id"]
                    for m in mine.messages()
                    for bet in [*(m.get("me") or {}).get("bets", ())]
                }
                assert my_bet in seen
                assert other_bet not in seen
                for watcher in watchers:
                    kinds = {m["type"] for m in watcher.messages()}
                    assert not kinds & {"event", "staff", "cards_held"}
                assert not any(m["type"] == "me" or "me" in m for m in anyone.messages())


def test_a_second_process_on_one_sqlite_file_is_refused_and_a_restart_after_a_kill_starts(
    tmp_path: Path,
) -> None:
    database = tmp_path / "punto.db"
    url = f"sqlite:///{database}"
    port = free_port()
    process = support.serve_process(url, port)
    with running(process, port):
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "punto.cli",
                "serve",
                "--database",
                url,
                "--port",
                str(free_port()),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert second.returncode == 2
        assert second.stdout == ""
        lines = second.stderr.splitlines()
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith(
            f"punto: error: another punto serve (pid {process.pid}) is serving {database}; "
            "SQLite serves one process; use PostgreSQL to run several"
        )
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    again = support.serve_process(url, port)
    with running(again, port) as base:
        assert httpx2.get(f"{base}/api/health", timeout=10).json()["tables"] == 3
