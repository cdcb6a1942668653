"""Simulation runs: seeded chunks, exact merging and the statistics.

A run of ``shoes`` shoes is cut into chunks of a fixed number of shoes (it
depends on the shoe rules only, never on how many workers there are).  Chunk
``i`` draws its random numbers from xoshiro256++ seeded by
``numpy.random.SeedSequence(seed, spawn_key=(i,))``, so every chunk is the
same whoever deals it, and the merged counts -- integer sums -- are the same
for the same seed whatever the number of workers.

What a chunk returns is integers: coups of each coup class and pair pattern
(from which every wager's count of every event follows through the class ->
event tables of the exact analysis), and for the confidence intervals, per
wager, sums over *batches* of consecutive shoes (enough for about 2,048
coups, and at least eight shoes) of the batch's result
X (in the wager's scaled units), its coups N, and X^2, N^2, X N.  Shoes are
independent, so the batches are; the coups within a shoe are not, which is
why the variance comes from batches rather than from single coups.

**What a run is compared with.**  Each wager's observed return per coup
(total result / coups) is set against the exact return of a *full* shoe
(:func:`punto.analysis.tables.odds_table`), as a z-score with the batch
standard error.  Dealt from a freshly shuffled shoe every coup (``behind``
one short of the shoe) each coup's expectation is exactly that figure.  With
a cut card it is only nearly so: a coup's expectation given the cards gone
before it is the exact return of the cards left, and the run averages those
over coups whose number and depth depend on the cards (the *cut-card
effect*).  ``punto simulate --exact-states K`` estimates the exact
expectation under the run's own procedure from K coups picked uniformly and
evaluated by the exact engine; a billion coups of Tiger Buffalo put all 20
wagers within ``|z| < 1.6`` of the full-shoe figures (benchmarks/README.md), so
the effect is below what runs of that size can see.

>>> job = SimJob("tiger-baccarat", None, "literal", ShoeRules(8, 14), seed=1, shoes=100)
>>> job.nchunks, job.rules.cut, job.rules.cards
(1, 402, 416)
>>> chunk_state(1, 0)[:2]
array([8431846347943309920, 5388939860413915384], dtype=uint64)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from punto.analysis.composition import Composition
from punto.analysis.enumeration import NCLASSES
from punto.analysis.tables import odds_table
from punto.analysis.tabular import Tabular
from punto.errors import PuntoError
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.sim.tables import (
    SimTables,
    outcome_table,
    pattern_ids,
    rank_values,
    shoe_template,
    sim_tables,
)
from punto.words import count

if TYPE_CHECKING:
    import pandas as pd

#: Shoes per batch (the unit of the variance estimate): at least this many,
#: and enough for about BATCH_COUPS coups.
BATCH_SHOES = 8
BATCH_COUPS = 2048

#: About this many coups per chunk (a chunk is a whole number of batches).
CHUNK_COUPS = 1 << 20

#: Without the C kernel, runs of up to about this many coups are dealt by the
#: plain-Python kernel (:mod:`punto.sim.plain`, a few microseconds a coup)
#: rather than numba's, whose import and load from numba's cache cost more
#: than dealing them (about 0.6 s on an idle machine).  All give the same
#: integers (:mod:`punto.sim.dealing`).
PLAIN_COUPS = 100_000

#: Two-sided 95%.
Z95 = NormalDist().inv_cdf(0.975)


class SimulationError(PuntoError):
    """A simulation that cannot be run as asked."""


@dataclass(frozen=True)
class ShoeRules:
    """How a shoe is dealt: ``decks`` decks, ``behind`` cards behind the cut
    card, and the optional burn.

    The cut card comes out when the card behind it is drawn
    (:attr:`punto.rules.shoe.Shoe.cut_card_reached`); the round in which it comes
    out is completed and is the last of the shoe (3.22).  So a new round
    starts while at least ``behind`` cards are left (with exactly
    ``behind``, its first card brings the cut card out: 3.22.1), and the
    cards behind the cut card are dealt only to complete that last round.  With
    ``behind`` one short of the whole shoe every coup is dealt from a freshly
    shuffled shoe.  The burn is not in the approved rules: the first card is
    shown and as many cards as its point value (ten for a zero) are burned
    face down -- the practice of many casinos, for comparison with
    published simulations.
    """

    decks: int
    behind: int
    burn: bool = False

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise SimulationError(f"a shoe needs at least one deck, not {self.decks}")
        if not 6 <= self.behind < self.cards:
            raise SimulationError(
                f"the cut card cannot go {self.behind} cards from the end of a shoe of "
                f"{self.cards} cards: the round in which it comes out may need six cards",
                hint=f"choose from 6 to {self.cards - 1} cards behind the cut card "
                f"({self.cards - 1}: one coup per shoe)",
            )
        if self.burn and self.cut <= 11:
            raise SimulationError(
                "a burn of up to eleven cards may leave no coup before the cut card",
                hint="put the cut card deeper, or leave out --burn",
            )

    @property
    def cards(self) -> int:
        return self.decks * 52

    @property
    def cut(self) -> int:
        """Cards in front of the cut card."""
        return self.cards - self.behind

    @property
    def fresh(self) -> bool:
        """One coup per shoe, from a full shoe."""
        return self.cut == 1 and not self.burn

    def expected_coups(self) -> float:
        """About how many coups a shoe deals (for chunk sizes and --coups)."""
        if self.fresh:
            return 1.0
        start = 1 + 340 / 52 if self.burn else 0.0  # cards a burn takes, on average
        # rounds start at cards 0 to ``cut`` (the last may bring the cut card out)
        return 0.5 + max(self.cut + 1 - start, 0.0) / mean_cards(self.decks)

    def describe(self) -> str:
        if self.fresh:
            return f"{self.decks} decks, every coup from a freshly shuffled shoe"
        burn = ", burn" if self.burn else ""
        return f"{self.decks} decks, cut card {self.behind} cards from the end{burn}"


@cache
def mean_cards(decks: int) -> float:
    """Cards a coup takes on average from a full shoe (exact)."""
    from punto.analysis import kernel as exact

    counts = exact.class_counts(Composition.of_decks(decks).counts)
    total = sum(counts)
    extra = sum(c * ((i >> 1 & 1) + (i & 1)) for i, c in enumerate(counts))
    return 4.0 + extra / total


def chunk_state(seed: int, index: int) -> npt.NDArray[np.uint64]:
    """The random state of chunk ``index``: xoshiro256++ for the shoes
    (words 0-3) and for sampling states (words 4-7)."""
    words = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(8, dtype=np.uint64)
    state = np.asarray(words, dtype=np.uint64)
    for half in (0, 4):
        if not state[half : half + 4].any():  # pragma: no cover - probability 2^-256
            state[half] = 1
    return state


class DealtJob(Protocol):
    """What :func:`job_json` reads of a run (a :class:`SimJob` or a
    :class:`punto.sim.counting.CountJob`)."""

    @property
    def game_id(self) -> str: ...
    @property
    def layout(self) -> str | None: ...
    @property
    def pair_rule(self) -> str: ...
    @property
    def rules(self) -> ShoeRules: ...
    @property
    def seed(self) -> int: ...


def job_json(job: DealtJob) -> dict[str, Any]:
    """What a run deals (a report's opening keys): the game, the shoe, the seed."""
    return {
        "game": job.game_id,
        "layout": job.layout,
        "pair_rule": job.pair_rule,
        "decks": job.rules.decks,
        "cut_card": job.rules.behind,
        "burn": job.rules.burn,
        "seed": job.seed,
    }


@dataclass(frozen=True)
class SimJob:
    """A simulation run, as every worker needs to know it."""

    game_id: str
    layout: str | None
    pair_rule: str
    rules: ShoeRules
    seed: int
    shoes: int

    @property
    def batch_shoes(self) -> int:
        return max(BATCH_SHOES, round(BATCH_COUPS / self.rules.expected_coups()))

    @property
    def shoes_per_chunk(self) -> int:
        per_shoe = self.rules.expected_coups()
        batches = max(1, round(CHUNK_COUPS / per_shoe / self.batch_shoes))
        return batches * self.batch_shoes

    @property
    def small(self) -> bool:
        """Few enough coups for the plain-Python kernel (see PLAIN_COUPS)."""
        return self.shoes * self.rules.expected_coups() <= PLAIN_COUPS

    @property
    def nchunks(self) -> int:
        return -(-self.shoes // self.shoes_per_chunk)

    def chunk_shoes(self, index: int) -> int:
        start = index * self.shoes_per_chunk
        return max(0, min(self.shoes_per_chunk, self.shoes - start))

    def tables(self) -> SimTables:
        return _tables(self.game_id, self.layout, self.pair_rule)


@cache
def _tables(game_id: str, layout: str | None, pair_rule: str) -> SimTables:
    return sim_tables(get_game(game_id), layout, PairRule(pair_rule))


@dataclass
class SimCounts:
    """What chunks return, and merge by adding: shoes, coups, coups of each
    key (class, then pattern), and per wager the batch sums
    (sum X, sum X^2, sum N, sum N^2, sum X N, batches) of its result (row
    2w) and of whether it was paid (row 2w+1)."""

    shoes: int
    coups: int
    keys: list[int]
    batch: list[list[int]]
    seconds: float = 0.0

    @classmethod
    def empty(cls, nkeys: int, nwagers: int) -> SimCounts:
        return cls(0, 0, [0] * nkeys, [[0] * 6 for _ in range(2 * nwagers)])

    def add(self, other: SimCounts) -> None:
        self.shoes += other.shoes
        self.coups += other.coups
        self.keys = [a + b for a, b in zip(self.keys, other.keys, strict=True)]
        self.batch = [
            [a + b for a, b in zip(x, y, strict=True)]
            for x, y in zip(self.batch, other.batch, strict=True)
        ]
        self.seconds += other.seconds

    def same_as(self, other: SimCounts) -> bool:
        """Equal integers (the time taken aside)."""
        return (self.shoes, self.coups, self.keys, self.batch) == (
            other.shoes,
            other.coups,
            other.keys,
            other.batch,
        )


def simulate_chunks(job: SimJob, chunks: Sequence[int], *, plain: bool | None = None) -> SimCounts:
    """Deal the given chunks of a run (a worker's task) and add them up: by
    the plain-Python kernel if ``plain``, by a compiled one (C, or numba
    without it) if not, and by default by :func:`punto.sim.dealing.dealing_kernel`
    (C, or plain Python for a small job and numba for the rest)."""
    from punto.sim import dealing

    if plain is None:
        kernel = dealing.dealing_kernel(small=job.small)
    elif plain:
        from punto.sim import plain as plain_python

        kernel = plain_python
    else:
        kernel = dealing.compiled() or dealing.dealing_kernel(small=False)
    tables = job.tables()
    groups = _result_groups(job.game_id, job.layout, job.pair_rule)
    outcome = outcome_table()
    values = rank_values()
    pattern, _ = pattern_ids()
    template = shoe_template(job.rules.decks)
    total = SimCounts.empty(tables.nkeys, len(tables.wager_ids))
    for index in chunks:
        nshoes = job.chunk_shoes(index)
        if nshoes == 0:
            continue
        state = chunk_state(job.seed, index)
        nbatches = -(-nshoes // job.batch_shoes)
        counts = np.zeros((nbatches, max(tables.nkeys, NCLASSES)), dtype=np.int32)
        start = time.perf_counter()
        coups = kernel.simulate_shoes(
            state,
            template,
            nshoes,
            job.rules.cut,
            job.rules.burn,
            job.batch_shoes,
            outcome,
            values,
            pattern,
            tables.pairs,
            counts,
        )
        seconds = time.perf_counter() - start
        total.add(_chunk_counts(counts, nshoes, int(coups), groups, seconds))
    return total


@dataclass(frozen=True)
class _ResultGroups:
    """The result matrix with its equal rows merged: keys whose results are
    the same for every wager are added up first (``order``, ``starts``:
    the keys sorted by group and where each group starts), and the few
    groups are multiplied by ``rows`` (groups x 2W, integers)."""

    order: npt.NDArray[np.intp]
    starts: npt.NDArray[np.intp]
    rows: npt.NDArray[np.int64]


@cache
def _result_groups(game_id: str, layout: str | None, pair_rule: str) -> _ResultGroups:
    matrix = np.rint(_tables(game_id, layout, pair_rule).result_matrix()).astype(np.int64)
    rows, inverse = np.unique(matrix, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(len(rows)))
    return _ResultGroups(order, starts, rows)


def _chunk_counts(
    counts: npt.NDArray[np.int32],
    nshoes: int,
    coups: int,
    groups: _ResultGroups,
    seconds: float,
) -> SimCounts:
    # X per batch and wager, in integers: the keys summed by group, then a
    # small integer product.  (A float64 product of the whole counts went to
    # BLAS, whose threads spin on a busy machine: about 20 ms a chunk, a
    # tenth of the kernel's time, against well under 1 ms now.)
    keys = counts[:, : len(groups.order)]
    grouped = np.add.reduceat(keys[:, groups.order], groups.starts, axis=1, dtype=np.int64)
    x = grouped @ groups.rows
    n = counts[:, :NCLASSES].sum(axis=1, dtype=np.int64)
    # every wager's sums at once (five reductions a chunk, not five a wager)
    sums = zip(
        x.sum(axis=0).tolist(),
        (x * x).sum(axis=0).tolist(),
        (x * n[:, None]).sum(axis=0).tolist(),
        strict=True,
    )
    sn, snn = int(n.sum()), int((n * n).sum())
    batch = [[sx, sxx, sn, snn, sxn, len(n)] for sx, sxx, sxn in sums]
    keys = counts.sum(axis=0, dtype=np.int64).tolist()
    return SimCounts(nshoes, coups, keys, batch, seconds)


# -- figures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean per coup from batch sums, with its standard error (the ratio
    estimator: batches are independent, coups within a shoe are not)."""

    mean: float
    se: float

    @classmethod
    def of(cls, sums: Sequence[int], scale: int = 1) -> Estimate:
        sx, sxx, sn, snn, sxn, nb = sums
        if sn == 0:
            return cls(math.nan, math.nan)
        r = Fraction(sx, sn)
        if nb < 2:
            return cls(float(r) / scale, math.nan)
        mean_n = Fraction(sn, nb)
        spread = sxx - 2 * r * sxn + r * r * snn  # sum of (X_i - r N_i)^2
        var = spread / (nb * (nb - 1) * mean_n * mean_n)
        return cls(float(r) / scale, math.sqrt(max(float(var), 0.0)) / scale)

    def interval(self, z: float = Z95) -> tuple[float, float]:
        return self.mean - z * self.se, self.mean + z * self.se

    def z(self, expected: float) -> float:
        if not self.se > 0:
            return 0.0 if self.mean == expected else math.inf
        return (self.mean - expected) / self.se


@dataclass(frozen=True)
class WagerFigures:
    """One wager's simulated figures next to the exact ones."""

    id: str
    name: str
    events: dict[str, int]
    returns: Estimate
    hits: Estimate
    exact_return: Fraction
    exact_hit: Fraction

    @property
    def z_return(self) -> float:
        return self.returns.z(float(self.exact_return))

    @property
    def z_hit(self) -> float:
        return self.hits.z(float(self.exact_hit))

    def to_json(self) -> dict[str, Any]:
        low, high = self.returns.interval()
        return {
            "name": self.name,
            "events": self.events,
            "return": self.returns.mean,
            "return_se": self.returns.se,
            "return_ci95": [low, high],
            "exact_return": float(self.exact_return),
            "exact_return_fraction": str(self.exact_return),
            "z": self.z_return,
            "hit_frequency": self.hits.mean,
            "hit_frequency_se": self.hits.se,
            "exact_hit_frequency": float(self.exact_hit),
            "z_hit": self.z_hit,
        }


@dataclass(frozen=True)
class SimReport:
    """A finished run: the merged counts and every wager's figures."""

    job: SimJob
    counts: SimCounts
    wagers: tuple[WagerFigures, ...]
    wall_seconds: float
    workers: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def coups_per_second(self) -> float:
        return self.counts.coups / self.wall_seconds if self.wall_seconds > 0 else math.nan

    def simultaneous_z(self, level: float = 0.95) -> float:
        """The ``|z|`` within which every return and hit frequency falls with
        probability ``level`` (Bonferroni over all of them)."""
        m = 2 * len(self.wagers)
        return NormalDist().inv_cdf(1 - (1 - level) / (2 * m)) if m else math.inf

    def tabular(self) -> Tabular:
        """One row per wager: simulated return and its 95% interval beside
        the exact return, and the hit frequencies (for notebooks)."""
        job = self.job
        rows = []
        for w in self.wagers:
            low, high = w.returns.interval()
            exact = float(w.exact_return)
            hits = (w.hits.mean, float(w.exact_hit))
            rows.append((w.id, w.name, w.returns.mean, low, high, exact, w.z_return, *hits))
        return Tabular(
            f"{job.game_id}: {count(self.counts.coups, 'coup')} in {count(self.counts.shoes, 'shoe')}, "
            f"{job.rules.describe()}, seed {job.seed}",
            (
                *("wager", "name", "return", "95% low", "95% high", "exact return", "z"),
                *("hit frequency", "exact hit frequency"),
            ),
            tuple(rows),
        )

    def _repr_html_(self) -> str:
        return self.tabular().html()

    def to_frame(self) -> pd.DataFrame:
        """The wagers as a pandas DataFrame (``pip install 'punto[frames]'``)."""
        return self.tabular().frame()

    def to_json(self) -> dict[str, Any]:
        job = self.job
        return {
            **job_json(job),
            "shoes": self.counts.shoes,
            "coups": self.counts.coups,
            "chunks": job.nchunks,
            "shoes_per_chunk": job.shoes_per_chunk,
            "workers": self.workers,
            "seconds": self.wall_seconds,
            "kernel_seconds": self.counts.seconds,
            "coups_per_second": self.coups_per_second,
            "simultaneous_z95": self.simultaneous_z(),
            "compared_with": comparison_note(job.rules),
            "wagers": {w.id: w.to_json() for w in self.wagers},
            **self.extra,
        }


def comparison_note(rules: ShoeRules) -> str:
    if rules.fresh:
        return (
            "exact figures of a full shoe; every coup is dealt from a freshly shuffled "
            "shoe, so they are exactly the expectation of each coup"
        )
    return (
        "exact figures of a full shoe; with a cut card the expectation per coup over a "
        "shoe differs from them by the cut-card effect, far below these standard errors "
        "(see punto.sim.run)"
    )


def figures(job: SimJob, counts: SimCounts) -> tuple[WagerFigures, ...]:
    """Every wager's simulated figures from merged counts, and the exact ones."""
    tables = job.tables()
    game = get_game(job.game_id)
    exact = odds_table(
        game, Composition.of_decks(job.rules.decks), job.layout, PairRule(job.pair_rule)
    )
    out = []
    for w, wid in enumerate(tables.wager_ids):
        events = dict.fromkeys(tables.events[w], 0)
        names = ("lose", *tables.events[w])
        lose = counts.coups
        for key, n in enumerate(counts.keys):
            e = int(tables.slot[w, key]) if key < tables.slot.shape[1] else 0
            if e:
                events[names[e]] += n
                lose -= n
        events["lose"] = lose
        odds = exact.wagers[wid]
        out.append(
            WagerFigures(
                id=wid,
                name=odds.name,
                events=events,
                returns=Estimate.of(counts.batch[2 * w], int(tables.scale[w])),
                hits=Estimate.of(counts.batch[2 * w + 1]),
                exact_return=odds.return_exact,
                exact_hit=odds.hit_frequency_exact,
            )
        )
    return tuple(out)


def simulate(
    job: SimJob,
    *,
    workers: int = 0,
    scheduler: str | None = None,
    processes: bool = True,
    client: Any | None = None,
    on_done: Callable[[int, int], None] | None = None,
) -> SimReport:
    """Run ``job`` (see :mod:`punto.sim.cluster` for ``workers``,
    ``scheduler`` and ``client``); ``on_done(shoes, coups)`` after each task,
    for progress."""
    from punto.sim.cluster import group_chunks, run_tasks

    tables = job.tables()
    merge = SimCounts.empty(tables.nkeys, len(tables.wager_ids))
    tasks = group_chunks(job.nchunks, max(workers, 1))

    def done(chunks: Sequence[int]) -> None:
        if on_done is not None:
            on_done(sum(job.chunk_shoes(i) for i in chunks), merge.coups)

    merged, seconds = run_tasks(
        simulate_chunks,
        job,
        tasks,
        merge,
        workers=workers,
        scheduler=scheduler,
        processes=processes,
        client=client,
        on_done=done,
    )
    return SimReport(job, merged, figures(job, merged), seconds, workers)
