"""Start-up of the ``punto`` command: a fresh process, wall and CPU time.

Run from the repository root with the project's virtualenv:

    PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py            # 20 runs each
    PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py --runs 50
    PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py --before /tmp/old/src

Each command is started as a new process running what the ``punto`` console
script runs (``from punto.cli import main; sys.exit(main())``), with standard
output to /dev/null, and timed from start to exit (wall) and in CPU time
(user + system of the child, which a busy machine disturbs less).
``python -c pass`` runs side by side, interleaved with the commands round by
round, so that a busy machine slows every row alike: the difference between
a command and ``python -c pass`` is what punto itself costs.  ``--before
DIR`` times a second source tree (e.g. ``git archive`` of main's ``src``) in
the same rounds, row by row, for a before/after comparison.  It prints
Markdown: medians and the 90th percentile.

The children may write bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped from
their environment) and a warm-up run of each fills the caches, as an installed
wheel has its ``.pyc`` files: without them, compiling the sources would be
most of what is measured.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

#: The commands timed, as a user types them (after ``punto``).
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("games",),
    ("rules", "tiger-baccarat"),
    ("deal", "tiger-baccarat", "--cards", "QH 9C 2D 6S 8H", "--bet", "banker=100"),
    ("--help",),
)

#: What the console script ``punto`` runs.
_SCRIPT = "import sys; from punto.cli import main; sys.exit(main())"

#: The children's environment: bytecode written and reused, as installed.
_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _time_once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _p90(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    parser.add_argument(
        "--before", metavar="DIR", help="a second source tree (its src) timed side by side"
    )
    args = parser.parse_args()
    rows: dict[str, list[str]] = {"python -c pass": [sys.executable, "-c", "pass"]}
    for command in COMMANDS:
        rows["punto " + " ".join(command)] = [sys.executable, "-c", _SCRIPT, *command]
        if args.before:
            # The same command with the other tree first on the path.
            rows["before: punto " + " ".join(command)] = [
                sys.executable,
                "-c",
                "import sys; sys.path.insert(0, sys.argv.pop(1)); " + _SCRIPT,
                args.before,
                *command,
            ]
    wall: dict[str, list[float]] = {name: [] for name in rows}
    cpu: dict[str, list[float]] = {name: [] for name in rows}
    for argv in rows.values():  # warm the file cache and write the bytecode
        _time_once(argv)
    for _ in range(args.runs):
        for name, argv in rows.items():
            seconds, used = _time_once(argv)
            wall[name].append(seconds)
            cpu[name].append(used)
    load = os.getloadavg()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.runs} runs each, ")
    print(f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) at the end")
    print()
    print(
        "| command | wall median (ms) | wall p90 (ms) | wall less `python -c pass` (ms) "
        "| CPU median (ms) |"
    )
    print("|---|---:|---:|---:|---:|")
    base = statistics.median(wall["python -c pass"])
    for name, times in wall.items():
        median = statistics.median(times)
        print(
            f"| `{name}` | {median * 1e3:.0f} | {_p90(times) * 1e3:.0f} "
            f"| {(median - base) * 1e3:.0f} | {statistics.median(cpu[name]) * 1e3:.0f} |"
        )


if __name__ == "__main__":
    main()
