"""Counting strategies: which wagers a card counter can beat, and by how much.

**Tags.**  A balanced point count per wager comes from the exact effects of
removal (:mod:`punto.analysis.removal`): the effects are scaled so that the
largest is ``level`` (1 to 6), rounded, and nudged (the ranks whose rounding
costs least) until a full shoe sums to zero; ranks with equal effects keep
equal tags.  The smallest level whose *betting correlation* (Pearson,
tags against effects over the 13 ranks) reaches 0.98 is chosen, or the best
level.  A positive tag means taking the card out helps the bettor.  Tags can
also be given (A..9, T for every ten-value card; or all 13 ranks).

**True count.**  Before each coup: ``52 * running count / cards left in the
shoe``; the running count adds the tags of every card shown (a burn's face-down
cards are not).  The bettor bets one unit when the true count is at least the
threshold.  The kernel bins coups by ``floor(true count)``, so "at least +8"
is exactly "bin 8 and above".

**What is reported**, per wager and threshold: bet frequency (bets per coup),
edge when betting, win per shoe and per 100 coups, each simulated with its
standard error (shoes are independent; coups within one are not).  Beside
them, the **exact** edge: a uniform sample of the coups of each true-count bin
(the ``K`` with the smallest random keys, which merges exactly across
chunks) is evaluated by the exact engine on the cards actually left in the
shoe.  A coup's expected result given everything dealt before it is that
exact figure, so the bin's mean of exact edges estimates the same quantity
as the simulated results, with far less variance.  The best threshold is the
one with the most exact win per 100 coups.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from punto.analysis.composition import Composition
from punto.analysis.plan import plan_for
from punto.analysis.tables import wager_odds
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.sim import kernel
from punto.sim.count_exact import EXACT_BLOCK as EXACT_BLOCK
from punto.sim.count_exact import ExactJob as ExactJob
from punto.sim.count_exact import ExactTable as ExactTable
from punto.sim.count_exact import ExactValues as ExactValues
from punto.sim.count_exact import exact_block as exact_block
from punto.sim.count_exact import exact_returns as exact_returns
from punto.sim.count_tags import GOOD_CORRELATION as GOOD_CORRELATION
from punto.sim.count_tags import CountingError as CountingError
from punto.sim.count_tags import Tags as Tags
from punto.sim.count_tags import balanced_tags as balanced_tags
from punto.sim.count_tags import correlation as correlation
from punto.sim.count_tags import derive_tags as derive_tags
from punto.sim.count_tags import effects_floats as effects_floats
from punto.sim.count_tags import parse_tags as parse_tags
from punto.sim.run import ShoeRules, chunk_state, job_json
from punto.sim.tables import outcome_table, pattern_ids, rank_values, shoe_template, sim_tables

#: Lowest true-count bin (everything below is counted in it), and the number of bins.
BIN_LOW = -60
NBINS = 121


#: Wagers of the main game, left out of "side bets".
MAIN_KINDS = frozenset({"player", "banker", "banker_on_six"})

#: Coups per chunk of a counting run (a whole number of shoes).
CHUNK_COUPS = 1 << 19

#: Bets a threshold needs before it can be "best".
MIN_BETS = 200

#: A wager is "vulnerable" when a counter wins at least this much per 100
#: coups at its best threshold (one unit in 10,000 coups): the main bets'
#: end-of-shoe edges, real but far smaller, are left out.
VULNERABLE_WIN = 0.01


# The tags are punto.sim.count_tags's; the exact values punto.sim.count_exact's.


# -- the run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CountJob:
    """A counting run: the shoes, and for each wager counted its tags."""

    game_id: str
    layout: str | None
    pair_rule: str
    rules: ShoeRules
    seed: int
    shoes: int
    wagers: tuple[str, ...]
    tags: tuple[tuple[int, ...], ...]
    samples: int = 64
    #: bet when the true count is above the threshold (not "at least")
    exceeds: bool = False

    def __post_init__(self) -> None:
        if self.rules.fresh:
            raise CountingError(
                "with one coup per shoe there is nothing to count",
                hint="put the cut card deeper into the shoe",
            )

    @property
    def shoes_per_chunk(self) -> int:
        return max(1, round(CHUNK_COUPS / self.rules.expected_coups()))

    @property
    def nchunks(self) -> int:
        return -(-self.shoes // self.shoes_per_chunk)

    def chunk_shoes(self, index: int) -> int:
        start = index * self.shoes_per_chunk
        return max(0, min(self.shoes_per_chunk, self.shoes - start))


@dataclass
class CountCounts:
    """What counting chunks return, merged by adding (and the sampled states
    by keeping the smallest keys).

    ``hist[w, bin, event]``: coups; ``tails[w, t, :]``: over shoes, sums of
    N, R, N^2, R^2, N R, N C, R C when betting at bin ``t`` and above;
    ``shoe``: shoes, sum C, sum C^2 (C: a shoe's coups); ``keys`` and
    ``states``: the sampled coups of each wager and bin (ranks left)."""

    coups: int
    hist: npt.NDArray[np.int64]
    tails: list[list[list[int]]]
    shoe: list[int]
    keys: npt.NDArray[np.uint64]
    states: npt.NDArray[np.int16]
    seconds: float = 0.0

    def add(self, other: CountCounts) -> None:
        self.coups += other.coups
        self.hist = self.hist + other.hist
        self.tails = [
            [[a + b for a, b in zip(x, y, strict=True)] for x, y in zip(tw, ow, strict=True)]
            for tw, ow in zip(self.tails, other.tails, strict=True)
        ]
        self.shoe = [a + b for a, b in zip(self.shoe, other.shoe, strict=True)]
        self.keys, self.states = merge_samples(self.keys, self.states, other.keys, other.states)
        self.seconds += other.seconds


def merge_samples(
    keys_a: npt.NDArray[np.uint64],
    states_a: npt.NDArray[np.int16],
    keys_b: npt.NDArray[np.uint64],
    states_b: npt.NDArray[np.int16],
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int16]]:
    """Keep the ``K`` smallest keys of each wager and bin (exact, in any order)."""
    k = keys_a.shape[2]
    keys = np.concatenate([keys_a, keys_b], axis=2)
    states = np.concatenate([states_a, states_b], axis=2)
    order = np.argsort(keys, axis=2, kind="stable")[:, :, :k]
    kept = np.take_along_axis(keys, order, axis=2)
    kept_states = np.take_along_axis(states, order[..., None], axis=2)
    return kept, kept_states


@cache
def _count_tables(
    game_id: str, layout: str | None, pair_rule: str, wagers: tuple[str, ...]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], tuple[int, ...]]:
    """Slot (over all 626 keys) and scaled value per event, of the wagers counted."""
    tables = sim_tables(get_game(game_id), layout, PairRule(pair_rule))
    _, npat = pattern_ids()
    index = [tables.wager_ids.index(w) for w in wagers]
    slot = np.zeros((len(index), 400 + npat), dtype=np.int8)
    slot[:, : tables.nkeys] = tables.slot[index]
    value = np.ascontiguousarray(tables.value[index])
    scale = tuple(int(tables.scale[i]) for i in index)
    return slot, value, scale


def empty_counts(job: CountJob) -> CountCounts:
    _, value, _ = _count_tables(job.game_id, job.layout, job.pair_rule, job.wagers)
    nw = len(job.wagers)
    return CountCounts(
        coups=0,
        hist=np.zeros((nw, NBINS, value.shape[1]), dtype=np.int64),
        tails=[[[0] * 7 for _ in range(NBINS)] for _ in range(nw)],
        shoe=[0, 0, 0],
        keys=np.full((nw, NBINS, job.samples), np.iinfo(np.uint64).max, dtype=np.uint64),
        states=np.zeros((nw, NBINS, job.samples, 13), dtype=np.int16),
    )


def count_chunks(job: CountJob, chunks: Sequence[int]) -> CountCounts:
    """Deal the given chunks of a counting run (a worker's task).

    The histogram and the sampled states carry on from chunk to chunk (the
    sample is the smallest keys of all the task's coups, whichever chunk they
    came from), so the kernel replaces few samples once it has seen many."""
    import time

    _, value, _ = _count_tables(job.game_id, job.layout, job.pair_rule, job.wagers)
    slot = _count_tables(job.game_id, job.layout, job.pair_rule, job.wagers)[0]
    tags = np.array(job.tags, dtype=np.int64)
    pattern, _ = pattern_ids()
    template = shoe_template(job.rules.decks)
    nw, k = len(job.wagers), job.samples
    total = empty_counts(job)
    keys = np.full((nw, NBINS, k), np.iinfo(np.uint64).max, dtype=np.uint64)
    # a copy, never the broadcast view: with no samples (k = 0) ascontiguousarray
    # hands the read-only view back, and the kernel may not write to it
    slots = np.broadcast_to(np.arange(k, dtype=np.int64), (nw, NBINS, k)).copy()
    storage = np.zeros((nw, NBINS, k, 13), dtype=np.int16)
    tails = np.zeros((nw, NBINS, 7), dtype=np.int64)
    shoe = np.zeros(3, dtype=np.int64)
    for index in chunks:
        nshoes = job.chunk_shoes(index)
        if nshoes == 0:
            continue
        start = time.perf_counter()
        coups = kernel.count_shoes(
            chunk_state(job.seed, index),
            template,
            nshoes,
            job.rules.cut,
            job.rules.burn,
            outcome_table(),
            rank_values(),
            pattern,
            slot,
            value,
            tags,
            job.exceeds,
            BIN_LOW,
            total.hist,
            shoe,
            tails,
            keys,
            slots,
            storage,
        )
        total.seconds += time.perf_counter() - start
        total.coups += int(coups)
    total.tails = tails.tolist()
    total.shoe = shoe.tolist()
    total.keys = keys
    total.states = np.take_along_axis(storage, slots[..., None], axis=2)
    return total


# -- figures ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Threshold:
    """Betting one unit whenever the true count is at least ``count``."""

    count: int
    bets: int
    bet_frequency: float
    bet_frequency_se: float
    edge: float  # simulated: won / bet
    edge_se: float
    per_shoe: float
    per_shoe_se: float
    per_100: float
    per_100_se: float
    exact_edge: float | None  # mean exact edge of the states bet on
    exact_edge_se: float | None
    exact_per_100: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "true_count": self.count,
            "bets": self.bets,
            "bet_frequency": self.bet_frequency,
            "bet_frequency_se": self.bet_frequency_se,
            "edge": self.edge,
            "edge_se": self.edge_se,
            "win_per_shoe": self.per_shoe,
            "win_per_shoe_se": self.per_shoe_se,
            "win_per_100": self.per_100,
            "win_per_100_se": self.per_100_se,
            "exact_edge": self.exact_edge,
            "exact_edge_se": self.exact_edge_se,
            "exact_win_per_100": self.exact_per_100,
        }


@dataclass(frozen=True)
class BinFigures:
    """Coups whose true count is in one bin, with their edges."""

    count: int  # floor of the true count (the first and last bins: beyond)
    coups: int
    edge: float
    exact_edge: float | None
    exact_se: float | None
    sampled: int


@dataclass(frozen=True)
class WagerCount:
    """The counting analysis of one wager."""

    id: str
    name: str
    tags: Tags
    base_return: float  # exact, full shoe
    bins: tuple[BinFigures, ...]
    thresholds: tuple[Threshold, ...]
    best: Threshold | None
    chosen: Threshold | None = None  # the threshold asked for, if any

    @property
    def vulnerable(self) -> bool:
        return self.sort_key() >= VULNERABLE_WIN

    def sort_key(self) -> float:
        return -math.inf if self.best is None else _win(self.best)

    def threshold(self, count: int) -> Threshold | None:
        for t in self.thresholds:
            if t.count == count:
                return t
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tags": self.tags.to_json(),
            "return_full_shoe": self.base_return,
            "vulnerable": self.vulnerable,
            "best": None if self.best is None else self.best.to_json(),
            "chosen": None if self.chosen is None else self.chosen.to_json(),
            "bins": [
                {
                    "true_count": b.count,
                    "coups": b.coups,
                    "edge": b.edge,
                    "exact_edge": b.exact_edge,
                    "exact_edge_se": b.exact_se,
                    "sampled": b.sampled,
                }
                for b in self.bins
            ],
            "thresholds": [t.to_json() for t in self.thresholds],
        }


@dataclass(frozen=True)
class CountReport:
    """A counting run: every wager counted."""

    job: CountJob
    counts: CountCounts
    wagers: tuple[WagerCount, ...]
    seconds: float
    workers: int
    uncountable: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def with_uncountable(self, names: Sequence[str]) -> CountReport:
        """The same report, naming the wagers left out as uncountable."""
        return replace(self, uncountable=tuple(names))

    def to_json(self) -> dict[str, Any]:
        job = self.job
        return {
            **job_json(job),
            "shoes": self.counts.shoe[0],
            "coups": self.counts.coups,
            "seconds": self.seconds,
            "workers": self.workers,
            "samples_per_bin": job.samples,
            "bet_when": "true count above threshold"
            if job.exceeds
            else "true count at least threshold",
            "true_count": "floor(52 * running count / cards left in the shoe)",
            "wagers": {w.id: w.to_json() for w in self.wagers},
            "not_countable": list(self.uncountable),
        }


def _ratio(sx: int, sxx: int, sy: int, syy: int, sxy: int, n: int) -> tuple[float, float]:
    """sum X / sum Y over n independent units, and its standard error."""
    if sy == 0:
        return math.nan, math.nan
    r = Fraction(sx, sy)
    if n < 2:
        return float(r), math.nan
    mean_y = Fraction(sy, n)
    spread = sxx - 2 * r * sxy + r * r * syy
    var = spread / (n * (n - 1) * mean_y * mean_y)
    return float(r), math.sqrt(max(float(var), 0.0))


def _win(t: Threshold) -> float:
    """Win per 100 coups: exact when the states were evaluated, else simulated."""
    return t.exact_per_100 if t.exact_per_100 is not None else t.per_100


def sampled_states(counts: CountCounts) -> npt.NDArray[np.int16]:
    """Every distinct composition sampled, sorted (rows of A..K counts)."""
    kept = counts.keys != np.iinfo(np.uint64).max
    rows = counts.states[kept]
    if len(rows) == 0:
        return np.zeros((0, 13), dtype=np.int16)
    return np.unique(rows, axis=0)


def analyse(
    job: CountJob,
    counts: CountCounts,
    exact: ExactTable | None,
    tags: Sequence[Tags],
    *,
    threshold: int | None = None,
) -> tuple[WagerCount, ...]:
    """Every wager's figures from merged counts (and exact values of the
    sampled states, when computed)."""
    _, value, scales = _count_tables(job.game_id, job.layout, job.pair_rule, job.wagers)
    game = get_game(job.game_id)
    plan = plan_for(game, job.layout, PairRule(job.pair_rule))
    full = plan.evaluate(Composition.of_decks(job.rules.decks))
    shoes, sc, scc = counts.shoe
    unset = np.iinfo(np.uint64).max
    out = []
    for w, wid in enumerate(job.wagers):
        scale = scales[w]
        planned = plan.wager(wid)
        base = float(wager_odds(planned, full).return_exact)
        hist = counts.hist[w]
        n_bin = hist.sum(axis=1)
        r_bin = (hist * value[w][None, :]).sum(axis=1)
        bins: list[BinFigures] = []
        exact_mean: dict[int, tuple[float, float, int]] = {}
        for b in range(NBINS):
            if n_bin[b] == 0:
                continue
            ex = ex_se = None
            kept = 0
            if exact is not None:
                column = exact.wager_ids.index(wid)
                vals = [
                    float(exact.values[exact.rows[counts.states[w, b, k].tobytes()], column])
                    for k in range(counts.keys.shape[2])
                    if counts.keys[w, b, k] != unset
                ]
                kept = len(vals)
                if vals:
                    ex = float(np.mean(vals))
                    fpc = 1 - kept / int(n_bin[b])
                    ex_se = (
                        float(np.std(vals, ddof=1) / math.sqrt(kept)) * math.sqrt(fpc)
                        if kept > 1
                        else 0.0
                    )
                    exact_mean[b] = (ex, ex_se, kept)
            bins.append(
                BinFigures(
                    count=BIN_LOW + b,
                    coups=int(n_bin[b]),
                    edge=float(r_bin[b]) / (float(n_bin[b]) * scale),
                    exact_edge=ex,
                    exact_se=ex_se,
                    sampled=kept,
                )
            )
        thresholds = []
        for b in range(1, NBINS):
            sn, sr, snn, srr, snr, snc, src = counts.tails[w][b]
            if sn == 0:
                continue
            freq, freq_se = _ratio(sn, snn, sc, scc, snc, shoes)
            edge, edge_se = _ratio(sr, srr, sn, snn, snr, shoes)
            per100, per100_se = _ratio(sr, srr, sc, scc, src, shoes)
            mean_shoe = sr / shoes
            var_shoe = (srr - sr * sr / shoes) / max(shoes - 1, 1)
            ex_edge = ex_se_t = ex_100 = None
            if exact is not None and all(c in exact_mean for c in range(b, NBINS) if n_bin[c]):
                weight = sum(int(n_bin[c]) for c in range(b, NBINS))
                ex_sum = sum(int(n_bin[c]) * exact_mean[c][0] for c in range(b, NBINS) if n_bin[c])
                ex_var = sum(
                    (int(n_bin[c]) / weight) ** 2 * exact_mean[c][1] ** 2
                    for c in range(b, NBINS)
                    if n_bin[c]
                )
                ex_edge = ex_sum / weight
                ex_se_t = math.sqrt(ex_var)
                ex_100 = 100 * ex_sum / counts.coups
            thresholds.append(
                Threshold(
                    count=BIN_LOW + b,
                    bets=int(sn),
                    bet_frequency=freq,
                    bet_frequency_se=freq_se,
                    edge=edge / scale,
                    edge_se=edge_se / scale,
                    per_shoe=mean_shoe / scale,
                    per_shoe_se=math.sqrt(max(var_shoe, 0.0) / shoes) / scale,
                    per_100=100 * per100 / scale,
                    per_100_se=100 * per100_se / scale,
                    exact_edge=ex_edge,
                    exact_edge_se=ex_se_t,
                    exact_per_100=ex_100,
                )
            )
        candidates = [t for t in thresholds if t.bets >= MIN_BETS]
        best = None
        if candidates and not tags[w].zero:
            best = max(candidates, key=_win)
            if _win(best) <= 0:
                best = None  # no threshold wins: never bet
        chosen = None
        if threshold is not None:
            chosen = next((t for t in thresholds if t.count == threshold), None)
        out.append(
            WagerCount(
                id=wid,
                name=planned.wager.name,
                tags=tags[w],
                base_return=base,
                bins=tuple(bins),
                thresholds=tuple(thresholds),
                best=best,
                chosen=chosen,
            )
        )
    return tuple(out)


def counting(
    job: CountJob,
    tags: Sequence[Tags],
    *,
    exact: bool = True,
    threshold: int | None = None,
    workers: int = 0,
    scheduler: str | None = None,
    processes: bool = True,
    on_done: Callable[[int, int], None] | None = None,
    keep_exact: bool = False,
) -> CountReport:
    """Run ``job``, then (with ``exact``) evaluate the sampled states, both
    on the same workers."""
    from punto.sim.cluster import group_chunks, maybe_client, run_tasks

    merge = empty_counts(job)

    def done(chunks: Sequence[int]) -> None:
        if on_done is not None:
            on_done(sum(job.chunk_shoes(i) for i in chunks), merge.coups)

    with maybe_client(workers, scheduler, processes=processes) as client:
        merged, seconds = run_tasks(
            count_chunks,
            job,
            group_chunks(job.nchunks, max(workers, 1)),
            merge,
            client=client,
            on_done=done,
        )
        table = None
        if exact:
            states = sampled_states(merged)
            values = exact_returns(job.game_id, job.layout, job.pair_rule, states, client=client)
            plan = plan_for(get_game(job.game_id), job.layout, PairRule(job.pair_rule))
            table = ExactTable.of([p.id for p in plan.wagers], states, values)
    wagers = analyse(job, merged, table, tags, threshold=threshold)
    extra: dict[str, Any] = {}
    if keep_exact:
        extra["exact"] = table
        extra["states_by_bin"] = states_by_bin(merged)
    return CountReport(job, merged, wagers, seconds, workers, extra=extra)


def states_by_bin(counts: CountCounts) -> list[list[npt.NDArray[np.int16]]]:
    """The sampled compositions of each wager and bin (rows of A..K counts)."""
    kept = counts.keys != np.iinfo(np.uint64).max
    nw, nb, _ = counts.keys.shape
    return [[counts.states[w, b][kept[w, b]] for b in range(nb)] for w in range(nw)]
