"""Benchmark of the simulation: kernels against plain Python, scaling.

Run from the repository root with the project's virtualenv:

    .venv/bin/python benchmarks/bench_sim.py                 # speed, about a minute
    .venv/bin/python benchmarks/bench_sim.py --quick         # fewer repetitions
    .venv/bin/python benchmarks/bench_sim.py --skip-scaling  # sections 1 and 2 only
    .venv/bin/python benchmarks/bench_sim.py --published 20000000
                                    # + the Big Tiger counting run (20M shoes a convention)

It prints Markdown: the machine, then

1. per game, in this one process, pinned to one core, after warm-up: coups per
   second of the numba kernel and of the C kernel (when built; whole shoes of 8 decks, cut card 14 cards
   from the end, every wager of the game settled: coups counted by class and
   pair pattern, then settled through the class -> event tables), the same with
   every wager settled coup by coup in the kernel, the run as ``punto
   simulate`` does it (chunks, batch statistics), and the plain-Python
   simulator (:mod:`punto.sim.reference`: ``Shoe``, ``Deal``, every wager
   kind called on every coup) -- side by side, and the ratio;
2. where the time of the kernel goes: shuffling alone, and dealing alone;
3. one worker against two on a local Dask cluster (a billion coups each);
4. with ``--published N``: Big Tiger counted with the published tags, bet
   at true count +8, N shoes per convention, against the published figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from punto.rules.games import get_game  # noqa: E402
from punto.sim import dealing, kernel, reference  # noqa: E402
from punto.sim.run import ShoeRules, SimJob, chunk_state, simulate, simulate_chunks  # noqa: E402
from punto.sim.tables import (  # noqa: E402
    outcome_table,
    pattern_ids,
    rank_values,
    shoe_template,
    sim_tables,
)

GAMES = (
    "tiger-baccarat",
    "tiger-no-commission",
    "tiger-buffalo",
    "baccarat-tournament",
    "dragon-tiger",
)
RULES = ShoeRules(8, 14)


def best_of(fn: Callable[[], int], repeat: int) -> tuple[float, float]:
    """(best, median) coups per second over ``repeat`` runs of ``fn`` (which
    returns the coups it dealt)."""
    fn()  # warm-up: compile or load the cached kernels, fill caches
    rates = []
    for _ in range(repeat):
        start = time.perf_counter()
        coups = fn()
        rates.append(coups / (time.perf_counter() - start))
    return max(rates), statistics.median(rates)


def machine() -> str:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba

    return (
        f"{model}, {os.cpu_count()} CPUs; Python {platform.python_version()}, "
        f"numba {numba.__version__}, numpy {np.__version__}; Linux {platform.release()}"
    )


def kernel_only(game_id: str, shoes: int, module: Any = kernel) -> Callable[[], int]:
    """The kernel alone (numba's, or ``module``'s: the C kernel): whole shoes,
    coups counted by class and pattern."""
    game = get_game(game_id)
    tables = sim_tables(game, None, game.pair_rule)
    template = shoe_template(RULES.decks)
    pattern = pattern_ids()[0]
    counts = np.zeros((shoes // 8 + 1, max(tables.nkeys, 400)), dtype=np.int32)
    state = chunk_state(1, 0)

    def run() -> int:
        counts[:] = 0
        return int(
            module.simulate_shoes(
                state,
                template,
                shoes,
                RULES.cut,
                False,
                8,
                outcome_table(),
                rank_values(),
                pattern,
                tables.pairs,
                counts,
            )
        )

    return run


def settle_each_coup(game_id: str, shoes: int) -> Callable[[], int]:
    """The kernel settling every wager on every coup (W table look-ups a coup)."""
    game = get_game(game_id)
    tables = sim_tables(game, None, game.pair_rule)
    npat = pattern_ids()[1]
    slot = np.zeros((len(tables.wager_ids), 400 + npat), dtype=np.int8)
    slot[:, : tables.nkeys] = tables.slot
    events = np.zeros((len(tables.wager_ids), tables.value.shape[1]), dtype=np.int64)
    state = chunk_state(2, 0)

    def run() -> int:
        return int(
            kernel.settle_shoes(
                state,
                shoe_template(RULES.decks),
                shoes,
                RULES.cut,
                False,
                outcome_table(),
                rank_values(),
                pattern_ids()[0],
                slot,
                events,
            )
        )

    return run


def as_punto_simulate(game_id: str, shoes: int) -> Callable[[], int]:
    """What ``punto simulate --workers 0`` does: chunks, statistics, merging."""
    game = get_game(game_id)
    job = SimJob(game_id, None, game.pair_rule.value, RULES, seed=3, shoes=shoes)

    def run() -> int:
        return simulate_chunks(job, list(range(job.nchunks))).coups

    return run


def plain_python(game_id: str, shoes: int) -> Callable[[], int]:
    game = get_game(game_id)

    def run() -> int:
        return reference.simulate(game, None, game.pair_rule, RULES, shoes, seed=4).coups

    return run


@njit(cache=True, nogil=True)
def _library_kernel(
    seed: int, template: Any, nshoes: int, cut: int, outcome: Any, values: Any, counts: Any
) -> int:
    """The straightforward compiled loop: the whole shoe shuffled by numpy's
    generator (``np.random.shuffle`` under numba: Mersenne Twister), then
    the same dealing and counting as the kernel."""
    np.random.seed(seed)
    deck = template.copy()
    coups = 0
    for _ in range(nshoes):
        deck[:] = template
        np.random.shuffle(deck)
        pos = 0
        while pos < cut:
            p = (values[deck[pos]] + values[deck[pos + 2]]) % 10
            b = (values[deck[pos + 1]] + values[deck[pos + 3]]) % 10
            code = outcome[((p * 10 + b) * 10 + values[deck[pos + 4]]) * 10 + values[deck[pos + 5]]]
            counts[code & 0x1FF] += 1
            pos += 4 + (code >> 9)
            coups += 1
    return coups


def library_rng(shoes: int) -> Callable[[], int]:
    template = shoe_template(RULES.decks)
    counts = np.zeros(400, dtype=np.int64)

    def run() -> int:
        return int(
            _library_kernel(1, template, shoes, RULES.cut, outcome_table(), rank_values(), counts)
        )

    return run


@njit(cache=True)
def _chain(n: int, x: int) -> int:
    for _ in range(n):
        x = x + (x >> 7)  # two dependent one-cycle operations ...
        x ^= 0x5BD1E995  # ... and a third
    return x


def clock_ghz() -> float:
    """Cycles per ns, from a chain of dependent one-cycle operations."""
    _chain(10, 1)
    best = min(_timed(lambda: _chain(10_000_000, 12345)) for _ in range(30))
    return 3 * 10_000_000 / (best * 1e9)


def rng_ns() -> float:
    """ns per xoshiro256++ output."""
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    kernel.xoshiro_outputs(state, 10)
    best = min(_timed(lambda: kernel.xoshiro_outputs(state, 100_000)) for _ in range(200))
    return best / 100_000 * 1e9


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def shuffle_only(shoes: int) -> Callable[[], int]:
    template = shoe_template(RULES.decks)
    state = chunk_state(5, 0)
    per_shoe = kernel_only("tiger-baccarat", 10_000)() / 10_000  # coups a shoe, for a rate

    def run() -> int:
        kernel.shuffled_shoes(state, template, shoes, RULES.cut)
        return int(shoes * per_shoe)

    return run


def section_speed(repeat: int, plain_shoes: int) -> None:
    print("## 1. One core: kernel, kernel settling coup by coup, punto simulate, plain Python\n")
    print(
        "8 decks, cut card 14 cards from the end, every wager of the game (no layout: "
        "Tiger Buffalo's 20).  Coups per second, best of the runs (median in brackets).\n"
    )
    c_kernel = dealing.compiled()
    print(
        "| game | wagers | kernel (M/s) | C kernel (M/s) | settled coup by coup (M/s) "
        "| as `punto simulate` (M/s) | plain Python (coups/s) | ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for game_id in GAMES:
        game = get_game(game_id)
        nw = len(sim_tables(game, None, game.pair_rule).wager_ids)
        k_best, k_med = best_of(kernel_only(game_id, 50_000), repeat)
        c_rate = "not built"
        if c_kernel is not None:
            c_best, c_med = best_of(kernel_only(game_id, 50_000, c_kernel), repeat)
            c_rate = f"{c_best / 1e6:.1f} ({c_med / 1e6:.1f})"
        s_best, s_med = best_of(settle_each_coup(game_id, 50_000), repeat)
        r_best, r_med = best_of(as_punto_simulate(game_id, 100_000), repeat)
        p_best, p_med = best_of(plain_python(game_id, plain_shoes), max(1, repeat // 3))
        print(
            f"| {game_id} | {nw} | {k_best / 1e6:.1f} ({k_med / 1e6:.1f}) | {c_rate} | "
            f"{s_best / 1e6:.1f} ({s_med / 1e6:.1f}) | {r_best / 1e6:.1f} ({r_med / 1e6:.1f}) | "
            f"{p_best:,.0f} ({p_med:,.0f}) | {r_best / p_best:,.0f}x |"
        )
    print()
    print("## 2. Where the kernel's time goes (tiger-baccarat)\n")
    sh_best, _ = best_of(shuffle_only(50_000), repeat)
    k_best, _ = best_of(kernel_only("tiger-baccarat", 50_000), repeat)
    lib_best, lib_med = best_of(library_rng(20_000), repeat)
    shuffle_ns, kernel_ns = 1e9 / sh_best, 1e9 / k_best
    print("| part | ns a coup |")
    print("|---|---:|")
    print(
        f"| shuffle alone (shoe copied, first {RULES.cut + 5} positions shuffled) | {shuffle_ns:.1f} |"
    )
    print(f"| whole kernel | {kernel_ns:.1f} |")
    print(f"| so: dealing, outcome and pattern look-ups, counting | {kernel_ns - shuffle_ns:.1f} |")
    if c_kernel is not None:
        c_best, _ = best_of(kernel_only("tiger-baccarat", 50_000, c_kernel), repeat)
        print(f"| the C kernel (the next shoe shuffled while one is dealt) | {1e9 / c_best:.1f} |")
    print()
    print(f"Clock: {clock_ghz():.2f} GHz (dependent one-cycle operations); ", end="")
    print(f"xoshiro256++: {rng_ns():.2f} ns an output.\n")
    print(
        f"The straightforward compiled loop (whole shoe shuffled by numpy's generator under "
        f"numba, same dealing, class counts only): {lib_best / 1e6:.1f}M coups/s "
        f"({lib_med / 1e6:.1f}M), {1e9 / lib_best:.1f} ns a coup."
    )
    print()


def section_scaling(coups: float, repeat: int) -> None:
    from punto.sim.cluster import client_for

    print(f"## 3. Workers of a local Dask cluster ({coups:,.0f} coups, tiger-buffalo)\n")
    print(
        "Each cluster warmed up first (kernels loaded from numba's cache, tables built); "
        "coups per second from the first task submitted to the last result, best of "
        f"{repeat} runs (median in brackets).\n"
    )
    print("| workers | coups/s (M) | speed-up | cluster start-up (s) |")
    print("|---:|---:|---:|---:|")
    base = None
    for workers in (1, 2):
        start = time.perf_counter()
        with client_for(workers, None) as client:
            started = time.perf_counter() - start
            warm = SimJob("tiger-buffalo", None, "rank", RULES, seed=7, shoes=20_000 * workers)
            simulate(warm, workers=workers, client=client)
            rates = []
            for i in range(repeat):
                job = SimJob(
                    "tiger-buffalo", None, "rank", RULES, seed=8 + i, shoes=int(coups / 81.8)
                )
                rates.append(simulate(job, workers=workers, client=client).coups_per_second)
        best = max(rates)
        base = base or best
        print(
            f"| {workers} | {best / 1e6:.1f} ({statistics.median(rates) / 1e6:.1f}) "
            f"| {best / base:.2f} | {started:.1f} |"
        )
    print()


#: (cards behind the cut card, bet above rather than at +8, burn)
CONVENTIONS = (
    (14, False, False),
    (14, True, False),
    (14, False, True),
    (15, False, False),
    (16, False, False),
)


def section_published(
    shoes: int, workers: int, conventions: tuple[tuple[int, bool, bool], ...] = CONVENTIONS
) -> None:
    from punto.sim.counting import CountJob, Tags, counting, parse_tags

    print(f"## 4. Big Tiger counted, {shoes:,} shoes a convention\n")
    print(
        "8 decks, cut card 14 cards from the end, tags 0,0,-1,-1,-1,-2,+1,+2,+2,0, true count "
        "52 x RC / cards left.  Published (advancedadvantageplay.com, 2024, 100M shoes): bet "
        "frequency 3.536%, average edge 7.227%, 0.256 units per 100 hands.  ± one standard error.\n"
    )
    print(
        "| cut card (cards behind) | bet when TC | burn | bet frequency | edge (simulated) "
        "| edge (exact states) | per 100 coups (simulated) | per 100 (exact) | seconds |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    tags = Tags(parse_tags("0,0,-1,-1,-1,-2,+1,+2,+2,0"), "given")
    for behind, exceeds, burn in conventions:
        job = CountJob(
            "tiger-baccarat",
            None,
            "literal",
            ShoeRules(8, behind, burn),
            seed=2024,
            shoes=shoes,
            wagers=("big_tiger",),
            tags=(tags.values,),
            samples=1024,
            exceeds=exceeds,
        )
        start = time.perf_counter()
        report = counting(job, [tags], threshold=8, workers=workers)
        c = report.wagers[0].chosen
        assert c is not None
        assert c.exact_edge is not None
        assert c.exact_edge_se is not None
        print(
            f"| {behind} | {'> +8' if exceeds else '≥ +8'} | {'yes' if burn else 'no'} "
            f"| {100 * c.bet_frequency:.4f}% ± {100 * c.bet_frequency_se:.4f} "
            f"| {100 * c.edge:.3f}% ± {100 * c.edge_se:.3f} "
            f"| {100 * c.exact_edge:.3f}% ± {100 * c.exact_edge_se:.3f} "
            f"| {c.per_100:.4f} ± {c.per_100_se:.4f} | {c.exact_per_100:.4f} "
            f"| {time.perf_counter() - start:.0f} |",
            flush=True,
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--published", type=int, metavar="SHOES", help="the Big Tiger counting run")
    parser.add_argument("--skip-speed", action="store_true", help="only the --published run")
    parser.add_argument(
        "--conventions",
        help="the --published conventions: BEHIND:EXCEEDS:BURN,... (e.g. 14:0:0,15:0:0)",
    )
    parser.add_argument("--scaling-coups", type=float, default=5e8)
    parser.add_argument(
        "--skip-scaling", action="store_true", help="leave out the Dask cluster (section 3)"
    )
    args = parser.parse_args()
    print("# punto simulation benchmark\n")
    print(f"Machine: {machine()}\n")
    if not args.skip_speed:
        # one core for the single-process part, as bench_exact.py does
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        section_speed(3 if args.quick else 7, 200 if args.quick else 600)
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
        if not args.skip_scaling:
            section_scaling(args.scaling_coups / (10 if args.quick else 1), 2 if args.quick else 3)
    if args.published:
        conventions: tuple[tuple[int, bool, bool], ...] = CONVENTIONS
        if args.conventions:
            conventions = tuple(
                (int(b), e == "1", u == "1")
                for b, e, u in (c.split(":") for c in args.conventions.split(","))
            )
        section_published(args.published, len(os.sched_getaffinity(0)), conventions)


if __name__ == "__main__":
    main()
