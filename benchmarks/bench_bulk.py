"""Benchmark of bulk output: returns only against the full JSON.

Run from the repository root with the project's virtualenv:

    .venv/bin/python benchmarks/bench_bulk.py                       # about a minute
    .venv/bin/python benchmarks/bench_bulk.py --before /tmp/before/src
                                  # + today's command from another tree, side by side

``--before`` names the ``src`` directory of another checkout (for instance
``git archive 2aeb458 src | tar -x -C /tmp/before`` with the compiled
kernel copied in); its commands run with ``PYTHONPATH`` set to it, in turn
with this tree's, so both see the same load.

It prints Markdown: the machine and its load, then

1. per composition, in this process, for Tiger Buffalo's 20 wagers over
   10,000 compositions (eight decks with a random part dealt out): the
   kernel's counts alone; the returns only (``Bulk.row``); the returns as CSV
   lines; :func:`punto.analysis.bulk.returns_array`; and the full figures as
   ``--jsonl`` builds them (``odds_table(...).to_json()`` and
   ``json.dumps``).  CPU time and wall time, median and range over the runs;
2. the command line: ``punto odds tiger-buffalo --counts-file`` with 10,000
   compositions and with one, ``--jsonl`` against ``--fields return --csv``
   and ``--fields return`` (JSON lines); the marginal cost per composition is
   the difference over 9,999.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
sys.path.insert(0, str(SRC))

from punto.analysis.bulk import Bulk, returns_array, write_csv  # noqa: E402
from punto.analysis.composition import Composition  # noqa: E402
from punto.analysis.tables import odds_table  # noqa: E402
from punto.rules.games import get_game  # noqa: E402

GAME = "tiger-buffalo"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


def machine() -> list[str]:
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    fields = {
        k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lscpu.splitlines())
    }
    return [
        f"- CPU: {fields.get('Model name', '?')} ({fields.get('CPU(s)', '?')} cores)",
        f"- Python {platform.python_version()} on {platform.system()} {platform.release()}",
        f"- {load()} at the start",
    ]


def compositions(n: int) -> list[list[int]]:
    """``n`` shoes: eight decks with a random part dealt out (as bench_exact.py)."""
    rng = random.Random(2024)
    out = []
    for _ in range(n):
        shoe = [r for r in range(13) for _ in range(32)]
        rng.shuffle(shoe)
        counts = [0] * 13
        for r in shoe[rng.randint(0, 350) :]:
            counts[r] += 1
        out.append(counts)
    return out


def spread(values: list[float], scale: float, digits: int = 1) -> str:
    """``median (min-max)`` scaled."""
    lo, mid, hi = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{mid:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def in_process(shoes: list[list[int]], repeat: int) -> list[str]:
    game = get_game(GAME)
    comps = [Composition(tuple(c)) for c in shoes]
    bulk = Bulk.of(game, None, None, ("return",))
    plan = bulk.plan
    cases: list[tuple[str, Callable[[], object]]] = [
        ("kernel counts alone (`Plan.evaluate`)", lambda: [plan.evaluate(c) for c in comps]),
        ("returns only (`Bulk.row`)", lambda: [bulk.row(c) for c in comps]),
        ("returns only, CSV lines", lambda: write_csv(bulk, [bulk.row(c) for c in comps])),
        ("`returns_array` (NumPy array)", lambda: returns_array(shoes, game)),
        (
            "full figures as `--jsonl` builds them",
            lambda: "".join(json.dumps(odds_table(game, c).to_json()) + "\n" for c in comps),
        ),
    ]
    n = len(comps)
    lines = [
        f"Tiger Buffalo, 20 wagers, {n:,} compositions, {repeat} runs after a warm-up; "
        "µs per composition, median (range).",
        "",
        "| what | CPU µs | wall µs |",
        "|---|---:|---:|",
    ]
    for name, fn in cases:
        fn()
        cpu, wall = [], []
        for _ in range(repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            cpu.append((time.process_time() - c0) / n)
            wall.append((time.perf_counter() - w0) / n)
        lines.append(f"| {name} | {spread(cpu, 1e6)} | {spread(wall, 1e6)} |")
    lines += ["", f"({load()} at the end)"]
    return lines


def command_line(shoes: list[list[int]], repeat: int, before: Path | None) -> list[str]:
    trees = ([("before", before)] if before else []) + [("this tree", SRC)]
    forms = {
        "--jsonl (every figure)": ["--jsonl"],
        "--fields return --csv": ["--fields", "return", "--csv"],
        "--fields return (JSON lines)": ["--fields", "return"],
    }
    times: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for n in (1, len(shoes)):
            path = Path(tmp) / f"shoes{n}.txt"
            path.write_text("".join(",".join(map(str, c)) + "\n" for c in shoes[:n]))
            files[n] = path
        for _ in range(repeat):  # interleaved, so every command sees the same load
            for label, tree in trees:
                for form, extra in forms.items():
                    if label == "before" and form != "--jsonl (every figure)":
                        continue  # the tree before has no --fields
                    for n, path in files.items():
                        argv = ["odds", GAME, "--counts-file", str(path), *extra]
                        times.setdefault((label, form, n), []).append(run(tree, argv))
    big = len(shoes)
    lines = [
        f"`punto odds {GAME} --counts-file`, {repeat} runs each, interleaved; seconds, "
        "median (range), wall and CPU (user + system); marginal µs per composition = "
        f"(median with {big:,} - median with 1) / {big - 1:,}.",
        "",
        f"| tree | output | {big:,} compositions: wall | CPU | 1 composition: wall | CPU "
        "| marginal µs: wall | CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for (label, form, n), pairs in times.items():
        if n != big:
            continue
        one = times[(label, form, 1)]
        cells = []
        margins = []
        for k in (0, 1):
            many_k = [p[k] for p in pairs]
            one_k = [p[k] for p in one]
            cells.append((spread(many_k, 1, 3), spread(one_k, 1, 3)))
            margins.append((statistics.median(many_k) - statistics.median(one_k)) / (big - 1))
        lines.append(
            f"| {label} | `{form}` | {cells[0][0]} | {cells[1][0]} | {cells[0][1]} | "
            f"{cells[1][1]} | {margins[0] * 1e6:.1f} | {margins[1] * 1e6:.1f} |"
        )
    lines += ["", f"({load()} at the end)"]
    return lines


def run(tree: Path, argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one ``punto`` process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "punto.cli", *argv],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the src directory of another tree")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement")
    parser.add_argument("--compositions", type=int, default=10_000)
    args = parser.parse_args()
    shoes = compositions(args.compositions)
    sections = [
        "## Machine",
        "",
        *machine(),
        "",
        "## Per composition, in this process",
        "",
        *in_process(shoes, args.repeat),
        "",
        "## The command line",
        "",
        *command_line(shoes, args.repeat, args.before),
    ]
    print("\n".join(sections))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
