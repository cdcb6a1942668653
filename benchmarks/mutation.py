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

Per module it prints mutmut's counts (killed, survived, no tests, timeout,
suspicious) and writes them, with the surviving mutants' names, to
``artifacts/mutation/<module>.json``; ``mutmut show <name>`` in
``artifacts/mutation/<module>/`` prints a survivor's diff.  Which survivors
are equivalent is a reading of each diff, recorded in benchmarks/README.md
("Mutation testing").
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
        ],
    ),
    "handling": (
        ["src/punto/table/handling.py"],
        ["tests/table/test_card_handling.py", "tests/table/test_handling_live.py"],
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
    "postings": (
        ["src/punto/store/postings.py"],
        [
            "tests/store/test_postings.py",
            "tests/store/test_prize_postings.py",
            "tests/store/test_ledger.py",
        ],
    ),
    "guards": (
        ["src/punto/server/guard.py", "src/punto/server/login_guard.py"],
        [
            "tests/security/test_csrf.py",
            "tests/security/test_guards_that_can_fail.py",
            "tests/security/test_accounts_login_flood.py",
        ],
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
    settings = "\n".join(
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
    (where / "pyproject.toml").write_text(text + settings)
    return where


def run(name: str, *, collect: bool = False, resume: bool = False) -> dict[str, object]:
    """Run mutmut over one module (``collect``: only read the results of a
    run already made in its scratch directory; ``resume``: go on with a run
    that was stopped, checking only the mutants it had not checked)."""
    mutated, tests = MODULES[name]
    mutmut = Path(sys.executable).with_name("mutmut")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PUNTO_TEST_POSTGRES", None)  # SQLite only: the run is bounded
    where = OUT / name
    started = time.monotonic()
    log = ""
    if not collect:
        if not resume or not where.exists():
            where = scratch(name, mutated, tests)
        done = subprocess.run(
            [str(mutmut), "run", "--max-children", "1"],
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
    counts = {s: sum(1 for v in results.values() if v == s) for s in STATUSES}
    report: dict[str, object] = {
        "module": name,
        "mutated": mutated,
        "tests": tests,
        "seconds": None if collect else round(seconds, 1),
        "counts": counts,
        "survived": sorted(k for k, v in results.items() if v == "survived"),
        "no_tests": sorted(k for k, v in results.items() if v == "no tests"),
        "log_tail": log,
    }
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
        report = run(name, collect=args.collect, resume=args.resume)
        counts = report["counts"]
        assert isinstance(counts, dict)
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
