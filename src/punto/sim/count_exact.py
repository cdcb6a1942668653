"""Exact returns of the compositions a counting run sampled (on the cluster's
workers when there is one), to set beside the simulated figures
(:mod:`punto.sim.counting` exports every name here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from punto.analysis.composition import Composition
from punto.analysis.plan import plan_for
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.sim.count_tags import GOOD_CORRELATION as GOOD_CORRELATION
from punto.sim.count_tags import CountingError as CountingError
from punto.sim.count_tags import Tags as Tags
from punto.sim.count_tags import balanced_tags as balanced_tags
from punto.sim.count_tags import correlation as correlation
from punto.sim.count_tags import derive_tags as derive_tags
from punto.sim.count_tags import effects_floats as effects_floats
from punto.sim.count_tags import parse_tags as parse_tags

#: Compositions a task of exact evaluations takes.
EXACT_BLOCK = 2048


@dataclass(frozen=True)
class ExactJob:
    """Compositions to evaluate exactly, split into blocks (a task's chunks)."""

    game_id: str
    layout: str | None
    pair_rule: str
    states: npt.NDArray[np.int16]

    @property
    def nblocks(self) -> int:
        return -(-len(self.states) // EXACT_BLOCK)


@dataclass
class ExactValues:
    """Exact returns, a row per composition and a column per wager of the
    plan, filled block by block."""

    values: npt.NDArray[np.float64]

    def add(self, other: tuple[int, npt.NDArray[np.float64]]) -> None:
        first, block = other
        self.values[first : first + len(block)] = block


def exact_block(job: ExactJob, blocks: Sequence[int]) -> tuple[int, npt.NDArray[np.float64]]:
    """The exact return of every wager for the compositions of ``blocks``
    (contiguous): integer sums of the kernel's counts, one division each."""
    plan = plan_for(get_game(job.game_id), job.layout, PairRule(job.pair_rule))
    first = blocks[0] * EXACT_BLOCK
    last = min((blocks[-1] + 1) * EXACT_BLOCK, len(job.states))
    out = np.empty((last - first, len(plan.wagers)), dtype=np.float64)
    for row, state in enumerate(job.states[first:last]):
        counts = plan.evaluate(Composition(tuple(int(x) for x in state)))
        total, slots = counts.total, counts.slots
        for w, p in enumerate(plan.wagers):
            combos = slots[p.first_slot : p.first_slot + len(p.events)]
            s1 = (sum(combos) - total) * p.scale  # the losses
            s1 += sum(c * x for c, x in zip(combos, p.scaled, strict=True))
            out[row, w] = s1 / (total * p.scale)
    return first, out


def exact_returns(
    game_id: str,
    layout: str | None,
    pair_rule: str,
    states: npt.NDArray[np.int16],
    *,
    client: Any | None = None,
) -> npt.NDArray[np.float64]:
    """The exact return of every wager of the plan (columns) for each
    composition (rows of A..K counts), on ``client``'s workers if given."""
    from punto.sim.cluster import run_tasks

    job = ExactJob(game_id, layout, pair_rule, states)
    nplan = len(plan_for(get_game(game_id), layout, PairRule(pair_rule)).wagers)
    merge = ExactValues(np.zeros((len(states), nplan), dtype=np.float64))
    tasks = [[b] for b in range(job.nblocks)]
    run_tasks(exact_block, job, tasks, merge, client=client)
    return merge.values


@dataclass(frozen=True)
class ExactTable:
    """Exact returns of sampled compositions, looked up by composition."""

    wager_ids: tuple[str, ...]
    states: npt.NDArray[np.int16]
    values: npt.NDArray[np.float64]
    rows: dict[bytes, int]

    @classmethod
    def of(
        cls,
        wager_ids: Sequence[str],
        states: npt.NDArray[np.int16],
        values: npt.NDArray[np.float64],
    ) -> ExactTable:
        rows = {np.ascontiguousarray(s).tobytes(): i for i, s in enumerate(states)}
        return cls(tuple(wager_ids), states, values, rows)

    def value(self, state: npt.NDArray[np.int16], wager: str) -> float:
        row = self.rows[np.ascontiguousarray(state, dtype=np.int16).tobytes()]
        return float(self.values[row, self.wager_ids.index(wager)])
