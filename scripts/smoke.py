"""Smoke tests of an installed punto, as a user gets it from the wheel.

Run by ``scripts/wheel_smoke.sh`` with the Python of a fresh virtual
environment outside the source tree, from a working directory outside it too,
so that the punto imported is the installed one:

    VENV/bin/python scripts/smoke.py core --docs docs   # pip install punto
    VENV/bin/python scripts/smoke.py all --docs docs    # pip install 'punto[all]'

Standard library only (the core environment has no pytest).  Each check runs
the installed ``punto`` command in a new process; the last line says how many
passed and failed, and the exit code is 1 if any failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

#: Packages of the extras, none of which the core install may bring in.
HEAVY = ("numba", "numpy", "fastapi", "sqlalchemy", "distributed", "uvicorn", "alembic")

_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```$", re.M | re.S)

PUNTO = str(Path(sys.executable).with_name("punto"))


def punto(*args: str, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([PUNTO, *args], input=stdin, capture_output=True, text=True, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"punto {' '.join(args)}: exit {done.returncode}: {done.stderr}")
    return done


def check_installed_not_source(source: Path) -> None:
    spec = importlib.util.find_spec("punto")
    assert spec is not None, "punto is not installed"
    assert spec.origin is not None
    where = Path(spec.origin).resolve()
    assert source.resolve() not in where.parents, f"punto imported from the source tree: {where}"
    assert "site-packages" in where.parts, where


def check_package_data() -> None:
    spec = importlib.util.find_spec("punto")
    assert spec is not None
    assert spec.origin is not None
    root = Path(spec.origin).parent
    for pattern, at_least in (
        ("rules/games/*.toml", 5),
        ("tournament/formats/*.toml", 3),
        ("server/static/*.html", 5),
        ("store/migrations/versions/r0001_*.py", 1),
        ("store/alembic.ini", 1),
        ("py.typed", 1),
    ):
        found = list(root.glob(pattern))
        assert len(found) >= at_least, f"{pattern}: {len(found)} files in the installed package"


def check_version() -> None:
    from importlib.metadata import version

    assert punto("--version").stdout == f"punto {version('punto')}\n"


def check_games_and_rules() -> None:
    games = json.loads(punto("games", "--json").stdout)
    assert {g["id"] for g in games} == {
        "tiger-baccarat",
        "tiger-no-commission",
        "tiger-buffalo",
        "baccarat-tournament",
        "dragon-tiger",
    }
    assert "tiger-baccarat" in punto("games").stdout  # the terminal table
    rules = json.loads(punto("rules", "tiger-baccarat", "--json").stdout)
    assert rules["wagers"], rules
    assert "wagers" in punto("rules", "dragon-tiger").stdout


def check_deal_and_settle() -> None:
    deal = json.loads(
        punto(
            "deal", "tiger-baccarat", "--cards", "QH 2C 2D KS 3H 4D", "--bet", "tiger=10", "--json"
        ).stdout
    )
    (bet,) = deal["bets"]
    assert (bet["event"], Decimal(bet["net"])) == ("three_cards", Decimal(200)), bet
    line = json.dumps(
        {"cards": ["QH", "9C", "2D", "6S", "8H"], "bets": [{"wager": "player", "stake": "25"}]}
    )
    settled = [
        json.loads(out)
        for out in punto("settle", "tiger-baccarat", stdin=line + "\n").stdout.splitlines()
    ]
    (result,) = settled
    (bet,) = result["bets"]
    # Player QH 2D 8H = 0, Banker 9C 6S = 5 stands on a third card of 8: Banker wins.
    assert (result["winner"], bet["wager"], bet["outcome"]) == ("banker", "player", "lose")
    assert Decimal(bet["net"]) == Decimal("-25.00"), bet


def check_odds() -> None:
    odds = json.loads(punto("odds", "dragon-tiger", "--json").stdout)
    assert odds, "no figures"
    text = punto("odds", "tiger-baccarat").stdout
    assert "banker" in text.lower()


def check_kernel() -> None:
    # Built into the wheel where a compiler exists (CI has one): the exact
    # analysis must not fall back to pure Python silently there.
    assert importlib.util.find_spec("punto.analysis._kernel") is not None, "no C kernel"


def check_replay_examples(docs: Path) -> None:
    examples: list[tuple[str, dict[str, str]]] = []
    for page in ("replay-examples.md", "replay.md"):  # the worked examples, the reference
        found = len(examples)
        for match in _FENCE.finditer((docs / page).read_text("utf-8")):
            info, body = match["info"].strip(), match["body"]
            if info == "json replay":
                examples.append((body, {}))
            elif len(examples) > found and info in ("json output", "text stderr"):
                examples[-1][1][info] = body
    replayed = 0
    for source, results in examples:
        if "json output" in results:
            out = punto("replay", "-", stdin=source).stdout
            assert json.loads(out) == json.loads(results["json output"]), "replay differs from docs"
            replayed += 1
        elif "text stderr" in results:
            done = punto("replay", "-", stdin=source, check=False)
            assert (done.returncode, done.stderr) == (2, results["text stderr"]), done.stderr
    assert replayed >= 1, "no documented replay example"


def check_core_is_light() -> None:
    present = [name for name in HEAVY if importlib.util.find_spec(name) is not None]
    assert not present, f"the core install brought in {present}"
    done = punto("serve", check=False)
    assert (done.returncode, done.stderr) == (
        2,
        "punto serve: needs the server extra: pip install 'punto[server]'\n",
    ), done.stderr
    done = punto("simulate", "tiger-baccarat", check=False)
    assert (done.returncode, done.stderr) == (
        2,
        "punto simulate: needs the sim extra: pip install 'punto[sim]'\n",
    ), done.stderr


def check_all_has_extras() -> None:
    missing = [name for name in HEAVY if importlib.util.find_spec(name) is None]
    assert not missing, f"punto[all] lacks {missing}"


def check_serve_health() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api/health"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [PUNTO, "serve", "--port", str(port), "--database", f"sqlite:///{tmp}/punto.db"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120  # generous: CI is a busy 2-core machine
            while True:
                assert server.poll() is None, (
                    f"punto serve exited: {server.stderr and server.stderr.read()}"
                )
                try:
                    with urllib.request.urlopen(url, timeout=5) as answer:
                        health = json.loads(answer.read())
                        break
                except urllib.error.HTTPError:
                    raise  # it answers, wrongly: no point waiting
                except OSError:  # not listening yet
                    assert time.monotonic() < deadline, "punto serve did not answer /health"
                    time.sleep(0.25)
            assert health.get("status") == "ok", health
            assert health.get("revision"), health  # the packaged migrations ran
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        assert server.returncode == 0, f"punto serve stopped with exit {server.returncode}"
        # a clean stop leaves the database and nothing beside it
        left = sorted(p.name for p in Path(tmp).iterdir())
        assert left == ["punto.db"], left


def main() -> int:
    parser = argparse.ArgumentParser(description="smoke tests of an installed punto")
    parser.add_argument("install", choices=("core", "all"), help="what was installed")
    parser.add_argument("--docs", type=Path, required=True, help="the source tree's docs folder")
    args = parser.parse_args()
    docs: Path = args.docs.resolve()
    checks: list[tuple[str, Callable[[], None]]] = [
        ("installed, not the source", lambda: check_installed_not_source(docs.parent)),
        ("package data", check_package_data),
        ("punto --version", check_version),
        ("games and rules", check_games_and_rules),
        ("deal and settle", check_deal_and_settle),
        ("odds", check_odds),
        ("C kernel", check_kernel),
        ("replay of the examples in docs/", lambda: check_replay_examples(docs)),
    ]
    if args.install == "core":
        checks.append(("no extra in the core install", check_core_is_light))
    else:
        checks += [("the extras", check_all_has_extras), ("serve /health", check_serve_health)]
    failed = 0
    for name, check in checks:
        start = time.perf_counter()
        try:
            check()
        except Exception:
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc(file=sys.stdout)
        else:
            print(f"ok   {name} ({time.perf_counter() - start:.1f} s)")
    print(f"smoke-{args.install}: {len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
