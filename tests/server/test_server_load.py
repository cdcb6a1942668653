"""The load test, CI-sized: 200 players betting at 10 tables on loopback.

It runs ``benchmarks/bench_server_load.py`` (the server in its own process,
accounts created, funded and logged in up front, automatic dealers) with a
few bets per player, on SQLite and on PostgreSQL, and asserts what must hold
whatever the machine: every bet acknowledged once and only once in its
round's log and in the ledger, every retried key answered with its first
bet, trial balance 0, a clean audit, nothing left in play once the rounds
settle.  Then the same load SIGKILLed mid-deal and restarted (the fault
test): nothing acknowledged lost or doubled, and every interrupted round
under its game's power failure rule.  The throughput is printed, not
asserted -- speed is for the benchmark (``benchmarks/README.md``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import db_fixtures

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_server_load.py"
PLAYERS, TABLES, BETS = 200, 10, 3


def _run(backend: str, *options: str) -> dict[str, Any]:
    """The benchmark at CI size on ``backend``, its JSON report."""
    env = dict(os.environ)
    if backend == "postgresql":
        env[db_fixtures.POSTGRES_ENV] = db_fixtures.postgres_base_url()  # skips if unset
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARK),
            "--database",
            backend,
            "--players",
            str(PLAYERS),
            "--tables",
            str(TABLES),
            "--warmup",
            "0",
            "--betting-seconds",
            "1",
            "--json",
            *options,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def assert_books(run: dict[str, Any]) -> None:
    """Every acknowledged bet once in its round's log and in the ledger with its
    stake, nothing else held, every retried key answered with its first bet,
    trial balance 0, a clean audit, nothing left open, nothing re-settled."""
    checks = run["checks"]
    assert checks["bets_in_log"] == checks["acknowledged"]
    assert checks["problem_count"] == 0, checks["problems"]
    assert checks["unacknowledged_in_log"] == 0
    assert checks["unacknowledged_held"] == 0
    assert checks["retry_mismatches"] == 0
    assert checks["trial_balance"] == 0
    assert checks["audit_ok"], checks["audit_problems"]
    assert checks["open_after_settling"] == 0
    assert checks["resettlements"] == 0  # no restart re-settled a round it should leave be
    assert run["ok"]


@pytest.mark.slow
@pytest.mark.parametrize("backend", db_fixtures.BACKENDS)
def test_200_players_at_10_tables_lose_and_double_nothing(backend: str) -> None:
    report = _run(backend, "--bets", str(BETS), "--rate", "0", "--seconds", "60")
    [run] = report["runs"]
    checks = run["checks"]
    print(
        f"{backend}: {run['accepted']} bets, {run['accepted_per_second']:.0f}/s accepted, "
        f"p50 {run['latency_ms']['p50']:.1f} ms, p99 {run['latency_ms']['p99']:.1f} ms "
        f"({report['machine']})"
    )
    assert checks["acknowledged"] == PLAYERS * BETS
    assert_books(run)


@pytest.mark.slow
@pytest.mark.parametrize("backend", db_fixtures.BACKENDS)
def test_sigkill_under_the_load_loses_and_doubles_nothing(backend: str) -> None:
    """The same load, SIGKILLed once a table is mid-deal and started again on
    the same database: every acknowledged bet once, every request whose answer
    was lost sent again with its key and made once or not at all, and every
    interrupted round as its game's power failure rule says (MBS 5.17.1
    withdrawal, RWS 5.4 void, play on when an outcome is established)."""
    report = _run(backend, "--seconds", "8", "--rate", "2", "--kill-at", "3")
    [run] = report["runs"]
    checks = run["checks"]
    print(
        f"{backend}: SIGKILL at {run['killed_after_seconds']:.1f} s, serving again after "
        f"{run['restart_seconds']:.1f} s; {checks['unanswered']} answers lost; "
        f"interrupted: {checks['interrupted']}"
    )
    assert checks["interrupted"], "the kill interrupted no deal"
    for interrupted in checks["interrupted"]:
        assert interrupted["ok"], interrupted
    assert_books(run)
