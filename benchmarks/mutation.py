"""Mutation testing of the modules that move or guard money, with mutmut.

Not part of CI: a run takes minutes a module on two cores.  Each module is
mutated alone, in a scratch copy of the project, against the tests of its
own layer (``MODULES``), one pytest process at a time (``-p no:xdist``), so
that a run is bounded.  mutmut runs, for each mutant, only the tests that
called the mutated function.

    pip install mutmut==3.8.1         # the version the figures were measured with
    python benchmarks/mutation.py                  # every module, one after another
    python benchmarks/mutation.py grants detection # some of them
    python benchmarks/mutation.py --list           # the modules and their tests
    python benchmarks/mutation.py --collect grants # the counts of a run already made
    python benchmarks/mutation.py --again grants   # its survivors against the tests now

Per module it prints mutmut's counts (killed, survived, no tests, timeout,
suspicious) and writes them, with every mutant's status, to
``artifacts/mutation/<module>.json``; ``mutmut show <name>`` in
``artifacts/mutation/<module>/`` prints a survivor's diff.  Which survivors
are equivalent is a reading of each diff, recorded in benchmarks/README.md
(section "mutation.py").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "artifacts" / "mutation"

#: module name -> (the files mutated, the tests that exercise them)
MODULES: dict[str, tuple[list[str], list[str]]] = {
    "grants": (
        ["src/punto/table/grants.py"],
        [
            "tests/table/test_clause_grants.py",
            "tests/table/test_money_guards.py",
            "tests/table/test_withdrawal_clauses.py",
            "tests/table/test_irregularities_mbs.py",
            "tests/table/test_irregularities_rws.py",
        ],
    ),
    "bet_limits": (
        ["src/punto/table/bet_limits.py"],
        [
            "tests/table/test_limits_by_default.py",
            "tests/table/test_betting_clauses.py",
            "tests/table/test_money_guards.py",
            "tests/table/test_irregularities_rws.py",
        ],
    ),
    "shoe_state": (
        ["src/punto/table/shoe_state.py"],
        [
            "tests/table/test_live_table_shoe.py",
            "tests/table/test_live_table_cards.py",
            "tests/table/test_shoe_in_replay.py",
            "tests/table/test_money_guards.py",
            # claims tried against the shoe's record (ShoeState.record)
            "tests/table/test_irregularities_mbs.py",
            # the record's refusals whole, what a shoe holds, held cards, discards
            "tests/table/test_shoe_state_record.py",
        ],
    ),
    "handling": (
        ["src/punto/table/handling.py"],
        [
            "tests/table/test_card_handling.py",
            "tests/table/test_card_handling_refusals.py",
            "tests/table/test_handling_live.py",
        ],
    ),
    "insurance": (
        ["src/punto/table/insurance_rules.py", "src/punto/table/round_insurance.py"],
        [
            "tests/table/test_insurance_refusals.py",
            "tests/table/test_irregularities_rws.py",
            "tests/table/test_money_guards.py",
            "tests/table/test_limits_by_default.py",
        ],
    ),
    "detection": (
        ["src/punto/protection/detection.py"],
        [
            "tests/protection/test_protection_detection.py",
            "tests/protection/test_protection_guards.py",
        ],
    ),
    # the value at placement, per player and for the table whoever bets
    "value": (
        ["src/punto/protection/value.py", "src/punto/protection/tablewide.py"],
        [
            "tests/protection/test_protection_value.py",
            "tests/protection/test_protection_sessions.py",
        ],
    ),
    # who a ruling saved, and the dealers' and tables' counts and hold
    "rulings": (
        ["src/punto/protection/rulings.py", "src/punto/protection/tails.py"],
        [
            "tests/protection/test_protection_rulings.py",
            "tests/protection/test_protection_anomalies.py",
            # the tails' Poisson interval (the false alarm rates' confidence)
            "tests/protection/test_protection_detection.py",
        ],
    ),
    "anomalies": (
        ["src/punto/protection/anomalies.py"],
        [
            "tests/protection/test_protection_anomalies.py",
            "tests/protection/test_anomaly_report_whole.py",
            # who a ruling saved, valued at placement from the log's shown cards
            "tests/protection/test_protection_rulings.py",
        ],
    ),
    "postings": (
        ["src/punto/store/postings.py"],
        [
            "tests/store/test_postings.py",
            "tests/store/test_prize_postings.py",
            "tests/store/test_ledger.py",
            # amounts and names refused before money moves, the ledger's bounds
            "tests/store/test_postings_refused_amounts.py",
        ],
    ),
    # cross-site requests, and requests and sockets per client address: the
    # guard called as ASGI with made-up scopes (the HTTP tests take seconds a
    # mutant; test_csrf.py and test_proxies_and_hosts.py hold the same through a client)
    "guard": (
        ["src/punto/server/security/guard.py"],
        ["tests/security/test_guard_scopes.py"],
    ),
    # the login limits called directly (through the login route:
    # test_accounts_login_flood.py, test_strangers_lockout.py)
    "login_guard": (
        ["src/punto/server/security/login_guard.py"],
        ["tests/security/test_login_guard_unit.py"],
    ),
    # connections per client address, below the application: the protocol
    # fed bytes on a made-up transport (real sockets: test_connections.py)
    "connections": (
        ["src/punto/server/security/connections.py"],
        ["tests/security/test_connection_limits_unit.py"],
    ),
    # each address's share of the requests running at once
    "fair_share": (
        ["src/punto/server/security/fair_share.py"],
        ["tests/security/test_fair_share_turns.py"],
    ),
}

#: mutmut's result words, as ``mutmut results --all true`` prints them.
STATUSES = (
    "killed",
    "survived",
    "no tests",
    "timeout",
    "suspicious",
    "skipped",
    "segfault",
    "not checked",
)


def scratch(name: str, mutated: list[str], tests: list[str]) -> Path:
    """A copy of the project for one module's run, its pyproject.toml
    carrying the [tool.mutmut] settings (mutmut reads them from the working
    directory)."""
    where = OUT / name
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    shutil.copytree(ROOT / "src", where / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for tree in ("tests", "benchmarks", "scripts", "docs"):  # some tests read these
        shutil.copytree(ROOT / tree, where / tree, ignore=shutil.ignore_patterns("__pycache__"))
    settings(where, mutated, tests)
    return where


def settings(where: Path, mutated: list[str], tests: list[str]) -> None:
    """The scratch copy's pyproject.toml: the project's, with the run's
    [tool.mutmut] settings."""
    added = "\n".join(
        [
            "",
            "[tool.mutmut]",
            'source_paths = ["src"]',
            f"only_mutate = {json.dumps(mutated)}",
            f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
            'also_copy = ["benchmarks/", "scripts/", "docs/"]',
            'pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:cacheprovider", "-x"]',
            "",
        ]
    )
    text = (ROOT / "pyproject.toml").read_text()
    # the tests named are the run's: no doctests of every module
    text = text.replace(
        'addopts = "--doctest-modules -q --strict-markers"', 'addopts = "-q --strict-markers"'
    )
    (where / "pyproject.toml").write_text(text + added)


def run(
    name: str, *, collect: bool = False, resume: bool = False, again: bool = False
) -> dict[str, Any]:
    """Run mutmut over one module (``collect``: only read the results of a
    run already made in its scratch directory; ``resume``: go on with a run
    that was stopped, checking only the mutants it had not checked;
    ``again``: check the mutants a finished run left alive against the
    tests as they are now, and the module's test files as ``MODULES`` names
    them now -- tests are only ever added, so a mutant killed stays killed
    and only the others need running)."""
    mutated, tests = MODULES[name]
    mutmut = Path(sys.executable).with_name("mutmut")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PUNTO_TEST_POSTGRES", None)  # SQLite only: the run is bounded
    where = OUT / name
    started = time.monotonic()
    log = ""
    names: list[str] = []
    earlier: dict[str, Any] = {}
    if again:
        if not (OUT / f"{name}.json").exists() or "results" not in (
            earlier := json.loads((OUT / f"{name}.json").read_text())
        ):
            print(f"mutation.py: {name} has no finished run to check again", file=sys.stderr)
            raise SystemExit(2)
        changed = [m for m in mutated if (where / m).read_bytes() != (ROOT / m).read_bytes()]
        if changed:  # its mutants are of the old code: they tell nothing of the new
            print(
                f"mutation.py: {', '.join(changed)} changed since {name}'s run; run it whole",
                file=sys.stderr,
            )
            raise SystemExit(2)
        names = sorted(k for k, v in earlier["results"].items() if v in ("survived", "no tests"))
        # a selection changed makes mutmut forget every result and collect
        # each test's coverage again: the earlier results are merged below
        settings(where, mutated, tests)
        shutil.copytree(ROOT / "tests", where / "tests", dirs_exist_ok=True)
    if not collect and (names or not again):
        if not again and (not resume or not where.exists()):
            where = scratch(name, mutated, tests)
        done = subprocess.run(
            [str(mutmut), "run", "--max-children", "1", *names],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        log = (done.stdout + done.stderr)[-3000:]
    seconds = time.monotonic() - started
    listed = subprocess.run(
        [str(mutmut), "results", "--all", "true"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    results: dict[str, str] = {}
    for line in listed.splitlines():
        found = re.match(r"\s*(\S+): (.+)$", line)
        if found and found.group(2).strip() in STATUSES:
            results[found.group(1)] = found.group(2).strip()
    if again:
        results = {**earlier["results"], **{k: results.get(k, "not checked") for k in names}}
    counts = {s: sum(1 for v in results.values() if v == s) for s in STATUSES}
    report: dict[str, Any] = {
        "module": name,
        "mutated": mutated,
        "tests": tests,
        "seconds": None if collect else round(seconds, 1),
        "counts": counts,
        "survived": sorted(k for k, v in results.items() if v == "survived"),
        "no_tests": sorted(k for k, v in results.items() if v == "no tests"),
        "results": results,
        "log_tail": log,
    }
    if again:  # the whole run's seconds, and the check's
        report["seconds"] = earlier["seconds"]
        report["seconds_again"] = round(seconds, 1)
        report["counts_before"] = earlier.get("counts_before", earlier["counts"])
    elif collect and (OUT / f"{name}.json").exists():
        report["seconds"] = json.loads((OUT / f"{name}.json").read_text()).get("seconds")
    (OUT / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"some of: {', '.join(MODULES)}")
    parser.add_argument("--list", action="store_true", help="the modules and their tests")
    parser.add_argument(
        "--collect", action="store_true", help="read the results of runs already made, run nothing"
    )
    parser.add_argument(
        "--resume", action="store_true", help="go on with stopped runs (their mutants not checked)"
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="check the survivors of finished runs against the tests now",
    )
    args = parser.parse_args(argv)
    if args.list:
        for name, (mutated, tests) in MODULES.items():
            print(f"{name}: {' '.join(mutated)}\n    {' '.join(tests)}")
        return 0
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        print(f"mutation.py: no module {unknown[0]!r} (see --list)", file=sys.stderr)
        return 2
    for name in args.modules or list(MODULES):
        report = run(name, collect=args.collect, resume=args.resume, again=args.again)
        counts = report["counts"]
        print(
            f"{name}: killed {counts['killed']}, survived {counts['survived']}, "
            f"no tests {counts['no tests']}, timeout {counts['timeout']}, "
            f"suspicious {counts['suspicious']}, not checked {counts['not checked']} "
            f"({report['seconds']} s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
