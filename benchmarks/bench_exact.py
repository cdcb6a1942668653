"""Benchmark of the exact analysis: kernel, plain Python, command line.

Run from the repository root with the project's virtualenv:

    .venv/bin/python benchmarks/bench_exact.py            # everything
    .venv/bin/python benchmarks/bench_exact.py --quick    # fewer repetitions

It prints Markdown: the machine, then

1. all wagers of each game for one composition (8 decks), after warm-up, in
   one process on one core: the kernel's counts alone, and the full figures
   (every event's combinations and probability, exact return, house edge,
   standard deviation, hit frequency) as ``punto odds --json`` builds them;
2. the same with the pure-Python fallback and the plain-Python reference
   enumerator side by side, and the ratios;
3. the command line from a cold start: the full table of all five games for
   decks 4 to 10 in one command, the same as 35 separate commands, and
   ``--counts-file`` with 10,000 compositions to JSON lines.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from punto.analysis.composition import Composition
    from punto.rules.game import Game

ROOT = Path(__file__).resolve().parent.parent
PUNTO = ROOT / ".venv" / "bin" / "punto"
GAMES = (
    "tiger-baccarat",
    "tiger-no-commission",
    "tiger-buffalo",
    "baccarat-tournament",
    "dragon-tiger",
)


def per_call(fn: Callable[[], object], number: int, repeat: int) -> tuple[float, float]:
    """(best, median) seconds per call over ``repeat`` runs of ``number`` calls."""
    fn()  # warm-up: plans, caches
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return min(runs), statistics.median(runs)


def wall(argv: list[str], repeat: int) -> tuple[float, float]:
    """(best, median) wall seconds of a fresh process."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        runs.append(time.perf_counter() - start)
    return min(runs), statistics.median(runs)


def machine() -> list[str]:
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    fields = {
        k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lscpu.splitlines())
    }
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    from punto.analysis import kernel

    return [
        f"- CPU: {fields.get('Model name', '?')} ({fields.get('CPU(s)', '?')} cores, "
        f"{fields.get('Hypervisor vendor', 'no')} hypervisor)",
        f"- Python {platform.python_version()} on {platform.system()} {platform.release()}",
        f"- compiler: {gcc.splitlines()[0] if gcc else '?'} (-O3, as setup.py builds it)",
        f"- compiled kernel loaded: {kernel.compiled() is not None}",
        f"- pinned to one core: {_pinned()}",
    ]


def _pinned() -> str:
    if not hasattr(os, "sched_getaffinity"):
        return "no (no sched_setaffinity)"
    cores = sorted(os.sched_getaffinity(0))
    return f"yes, CPU {cores[0]}" if len(cores) == 1 else f"no ({len(cores)} CPUs)"


def in_process(quick: bool) -> list[str]:
    from punto.analysis import enumeration, kernel
    from punto.analysis.composition import Composition
    from punto.analysis.plan import plan_for
    from punto.rules.games import get_game

    shoe = Composition.of_decks(8)
    number, repeat = (200, 3) if quick else (2000, 7)
    lines = [
        "| game | wagers | kernel counts (µs) | full figures (µs) | pure Python (ms) | ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for game_id in GAMES:
        game = get_game(game_id)
        plan = plan_for(game, None, game.pair_rule)
        counts_best, _ = per_call(partial(plan.evaluate, shoe), number, repeat)
        figures = partial(_figures, game, shoe)
        full_best, full_median = per_call(figures, number, repeat)
        os.environ["PUNTO_PURE_PYTHON"] = "1"
        try:
            slow_best, _ = per_call(figures, 1 if quick else 3, 3)
        finally:
            del os.environ["PUNTO_PURE_PYTHON"]
        lines.append(
            f"| {game_id} | {len(plan.wagers)} | {counts_best * 1e6:.1f} | "
            f"{full_best * 1e6:.1f} (median {full_median * 1e6:.1f}) | {slow_best * 1e3:.1f} | "
            f"{slow_best / full_best:.0f}x |"
        )
    ranks = shoe.counts
    fast, _ = per_call(lambda: kernel.class_counts(ranks), number, repeat)
    fallback, _ = per_call(lambda: enumeration.class_counts(ranks), 2 if quick else 5, 3)
    reference, _ = per_call(lambda: enumeration.reference_class_counts(ranks), 1 if quick else 3, 3)
    lines += [
        "",
        "The 400 coup-class counts alone (8 decks):",
        "",
        "| enumerator | time | ratio to the kernel |",
        "|---|---:|---:|",
        f"| C kernel (`kernel.class_counts`) | {fast * 1e6:.1f} µs | 1x |",
        f"| pure-Python fallback (`enumeration.class_counts`) | {fallback * 1e3:.1f} ms | "
        f"{fallback / fast:.0f}x |",
        f"| plain-Python reference, card by card (`enumeration.reference_class_counts`) | "
        f"{reference * 1e3:.1f} ms | {reference / fast:.0f}x |",
    ]
    return lines


def _figures(game: Game, shoe: Composition) -> dict[str, Any]:
    """Every figure of every wager, as ``punto odds --json`` builds them."""
    from punto.analysis.tables import odds_table

    return odds_table(game, shoe).to_json()


def command_line(quick: bool) -> list[str]:
    repeat = 3 if quick else 5
    punto = str(PUNTO)
    lines = ["| command | best (s) | median (s) |", "|---|---:|---:|"]
    best, median = wall([punto, "odds", "all", "--decks", "4-10", "--json"], repeat)
    lines.append(
        f"| `punto odds all --decks 4-10 --json` (35 tables) | {best:.3f} | {median:.3f} |"
    )
    best, median = wall([punto, "odds", "all", "--decks", "4-10"], repeat)
    lines.append(f"| `punto odds all --decks 4-10` (rich text) | {best:.3f} | {median:.3f} |")
    loop = [
        f"for g in {' '.join(GAMES)}; do for d in 4 5 6 7 8 9 10; do "
        f"{punto} odds $g --decks $d --json; done; done"
    ]
    best, median = wall(["sh", "-c", *loop], 1 if quick else 3)
    lines.append(
        f"| the same as 35 separate `punto odds GAME --decks N --json` | {best:.3f} | {median:.3f} |"
    )
    best, median = wall([punto, "games", "--json"], repeat)
    lines.append(
        f"| `punto games --json` (baseline: the CLI's own start-up) | {best:.3f} | {median:.3f} |"
    )
    best, median = wall([punto, "odds", "tiger-buffalo", "--json"], repeat)
    lines.append(f"| `punto odds tiger-buffalo --json` (one table) | {best:.3f} | {median:.3f} |")
    best, median = wall([punto, "insurance", "--json"], repeat)
    lines.append(f"| `punto insurance --json` | {best:.3f} | {median:.3f} |")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shoes.txt"
        path.write_text(_compositions(10_000))
        for game_id in ("tiger-baccarat", "tiger-buffalo", "dragon-tiger"):
            best, median = wall(
                [punto, "odds", game_id, "--counts-file", str(path), "--jsonl"], 1 if quick else 3
            )
            lines.append(
                f"| `punto odds {game_id} --counts-file` (10,000 compositions, JSON lines) | "
                f"{best:.3f} | {median:.3f} |"
            )
    return lines


def _compositions(n: int) -> str:
    """``n`` shoes: eight decks with a random part dealt out."""
    rng = random.Random(2024)
    out = []
    for _ in range(n):
        shoe = [r for r in range(13) for _ in range(32)]
        rng.shuffle(shoe)
        counts = [0] * 13
        for r in shoe[rng.randint(0, 350) :]:
            counts[r] += 1
        out.append(",".join(map(str, counts)))
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, children too
    sections = [
        "## Machine",
        "",
        *machine(),
        "",
        "## All wagers of a game, one composition (8 decks), after warm-up",
        "",
        *in_process(args.quick),
        "",
        "## Command line, cold start (fresh process each run)",
        "",
        *command_line(args.quick),
    ]
    sys.stdout.write("\n".join(sections) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
