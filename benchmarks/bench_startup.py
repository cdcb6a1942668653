"""Start-up of the ``punto`` command (issue 14): wall time of a fresh process.

Run from the repository root with the project's virtualenv:

    PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py            # 20 runs each
    PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py --runs 50
    PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py --before /tmp/old/src

``--before DIR`` times a second source tree (e.g. ``git archive`` of main's
``src``) in the same rounds, row by row, for a before/after comparison.

Each command is started as a new process (``python -m punto.cli ...``, as the
console script does it plus runpy) with standard output to /dev/null, and
timed from fork to exit.  ``python -c pass`` runs side by side, interleaved
with the commands round by round, so that a busy machine slows every row
alike: the difference between a command and ``python -c pass`` is what punto
itself costs.  It prints Markdown: the median and the 90th percentile.

The children may write bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped from
their environment) and a warm-up run of each fills the caches, as an installed
wheel has its ``.pyc`` files: without them, compiling the sources would be
most of what is measured.
"""

from __future__ import annotations

import argparse
import os
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


#: The children's environment: bytecode written and reused, as installed.
_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _time_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_ENV)
    return time.perf_counter() - start


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
        punto = [sys.executable, "-m", "punto.cli", *command]
        rows["punto " + " ".join(command)] = punto
        if args.before:
            # The same command with the other tree first on the path.
            rows["before: punto " + " ".join(command)] = [
                sys.executable,
                "-c",
                "import sys, runpy; sys.path.insert(0, sys.argv.pop(1)); "
                "runpy.run_module('punto.cli', run_name='__main__', alter_sys=True)",
                args.before,
                *command,
            ]
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for argv in rows.values():  # warm the file cache and the bytecode
        _time_once(argv)
    for _ in range(args.runs):
        for name, argv in rows.items():
            samples[name].append(_time_once(argv))
    load = os.getloadavg()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.runs} runs each, ")
    print(f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) at the end")
    print()
    print("| command | median (ms) | p90 (ms) | median less `python -c pass` (ms) |")
    print("|---|---:|---:|---:|")
    base = statistics.median(samples["python -c pass"])
    for name, times in samples.items():
        median = statistics.median(times)
        print(
            f"| `{name}` | {median * 1e3:.0f} | {_p90(times) * 1e3:.0f} | {(median - base) * 1e3:.0f} |"
        )


if __name__ == "__main__":
    main()
