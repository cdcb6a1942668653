"""Wall time of ``punto simulate`` on one worker, as a user runs it.

Run from the repository root with the project's virtualenv:

    .venv/bin/python benchmarks/bench_simulate_wall.py                  # a few minutes
    .venv/bin/python benchmarks/bench_simulate_wall.py --before /tmp/before/src
                                  # the same commands from another tree, side by side
    .venv/bin/python benchmarks/bench_simulate_wall.py --skip-big       # 1,000 coups only
    .venv/bin/python benchmarks/bench_simulate_wall.py --tree 2aeb458=/tmp/a/src \
        --tree main=/tmp/b/src        # any number of other trees, each with a label

``--before`` names the ``src`` directory of another checkout (for instance
``git archive 2aeb458 src | tar -x -C /tmp/before`` with the compiled
kernels copied in; run each tree once first so numba's cache is filled),
``--tree LABEL=SRC`` any number of them.  The trees' commands run in turn,
so all see the same load.  This tree deals with its C kernel when it is
built (``punto.sim._kernel``), with numba otherwise: build it first
(``pip install -e .``, or ``python -m build`` and copy the extension in).

It prints Markdown: the machine and its load, then for each tree, median and
range over the runs, wall and CPU (user + system of the process and the
children it waited for):

1. ``punto simulate tiger-baccarat --coups 1000 --workers 1 --json``, next to
   ``python -c pass`` and ``punto games --json`` (the interpreter's and the
   command line's own start-up);
2. ``punto simulate tiger-baccarat --coups 100000000 --workers 1 --json``:
   wall, the run as the report gives it (first chunk to last result) and the
   kernel alone (the sum of the kernel calls' times, ``kernel_seconds``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


def spread(values: list[float], digits: int = 2) -> str:
    """``median (min-max)``."""
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def run(tree: Path, argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and standard output of one process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *argv], check=True, capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout


def small(trees: list[tuple[str, Path]], repeat: int) -> list[str]:
    commands = {
        "`python -c pass`": ["-c", "pass"],
        "`punto games --json`": ["-m", "punto.cli", "games", "--json"],
        "`punto simulate tiger-baccarat --coups 1000 --workers 1 --json`": [
            "-m",
            "punto.cli",
            "simulate",
            "tiger-baccarat",
            "--coups",
            "1000",
            "--workers",
            "1",
            "--seed",
            "1",
            "--json",
        ],
    }
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for label, tree in trees:
            for name, argv in commands.items():
                wall, cpu, _ = run(tree, argv)
                times.setdefault((label, name), []).append((wall, cpu))
    lines = [
        f"{repeat} runs each, interleaved; seconds, median (range).",
        "",
        "| tree | command | wall | CPU |",
        "|---|---|---:|---:|",
    ]
    for (label, name), pairs in times.items():
        lines.append(
            f"| {label} | {name} | {spread([p[0] for p in pairs])} | "
            f"{spread([p[1] for p in pairs])} |"
        )
    return [*lines, "", f"({load()} at the end)"]


def big(trees: list[tuple[str, Path]], repeat: int, coups: int) -> list[str]:
    argv = f"-m punto.cli simulate tiger-baccarat --coups {coups} --workers 1 --json".split()
    found: dict[str, list[tuple[float, float, float, float]]] = {}
    differ = []
    for i in range(repeat):
        figures: dict[str, str] = {}
        for label, tree in trees:
            wall, cpu, out = run(tree, [*argv, "--seed", str(100 + i)])
            report = json.loads(out)
            found.setdefault(label, []).append(
                (wall, cpu, report["seconds"], report["kernel_seconds"])
            )
            for timing in ("seconds", "kernel_seconds", "coups_per_second"):
                del report[timing]
            figures[label] = json.dumps(report, sort_keys=True)
        if len(set(figures.values())) > 1:
            differ.append(100 + i)
    lines = [
        f"`punto simulate tiger-baccarat --coups {coups:,} --workers 1 --json`, {repeat} runs "
        "each, interleaved; seconds, median (range).  *Run*: first chunk submitted to last "
        "result, as the report gives it; *kernel*: the sum of the kernel calls.",
        "",
        "| tree | wall | CPU | run | kernel | wall - kernel |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, rows in found.items():
        cols = list(zip(*rows, strict=True))
        beyond = [w - k for w, _, _, k in rows]
        lines.append(
            f"| {label} | {spread(list(cols[0]))} | {spread(list(cols[1]))} | "
            f"{spread(list(cols[2]))} | {spread(list(cols[3]))} | {spread(beyond)} |"
        )
    same = f"**differ** for seeds {differ}" if differ else "are identical in every tree"
    lines += ["", f"The reports, times aside, {same}."]
    return [*lines, "", f"({load()} at the end)"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the src directory of another tree")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="LABEL=SRC",
        help="another tree to run side by side (repeatable)",
    )
    parser.add_argument("--repeat", type=int, default=7, help="runs of the small commands")
    parser.add_argument("--big-repeat", type=int, default=3, help="runs of the big simulation")
    parser.add_argument("--big-coups", type=float, default=1e8)
    parser.add_argument("--skip-big", action="store_true")
    args = parser.parse_args()
    others = [(label, Path(src)) for label, _, src in (t.partition("=") for t in args.tree)]
    trees = [
        *([("before", args.before)] if args.before else []),
        *others,
        ("this tree", SRC),
    ]
    sections = [
        "## Machine",
        "",
        f"- Python {platform.python_version()} on {platform.system()} {platform.release()}",
        f"- {load()} at the start",
        "",
        "## 1,000 coups on one worker",
        "",
        *small(trees, args.repeat),
    ]
    if not args.skip_big:
        sections += [
            "",
            f"## {args.big_coups:,.0f} coups on one worker",
            "",
            *big(trees, args.big_repeat, int(args.big_coups)),
        ]
    print("\n".join(sections))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
