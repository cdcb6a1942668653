"""A simulation's running estimates: every wager's return after more and
more shoes, with its 95% interval, for the chart of ``punto simulate``.

Each point is exactly what ``punto simulate --shoes N`` reports with the same
seed and rules: the shoes of a run are dealt chunk by chunk, each chunk from
its own seeded state, and the first shoes of a chunk do not depend on how
many follow.  So the estimate after N shoes is the run's own prefix, not a
separate sample, and the last point is the whole run.  Full chunks are dealt
once and kept; a point inside a chunk deals that chunk's prefix again
(points are spaced geometrically, so this at most about doubles the work).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

from punto.sim.run import Estimate, SimCounts, SimJob, figures, simulate_chunks

__all__ = ["RunningEstimate", "RunningPoint", "running_estimate", "shoe_points"]


@dataclass(frozen=True)
class RunningPoint:
    """The estimates after ``shoes`` shoes (``coups`` coups), one per wager."""

    shoes: int
    coups: int
    returns: tuple[Estimate, ...]


@dataclass(frozen=True)
class RunningEstimate:
    """A run's running estimates, with every wager's exact return."""

    job: SimJob
    wager_ids: tuple[str, ...]
    names: tuple[str, ...]
    exact: tuple[Fraction, ...]
    points: tuple[RunningPoint, ...]
    #: the whole run's counts (the last point)
    counts: SimCounts


def shoe_points(shoes: int, first: int, count: int = 24) -> list[int]:
    """About ``count`` shoe counts from ``first`` to ``shoes``, spaced geometrically.

    >>> shoe_points(1000, 10, 5)
    [10, 32, 100, 316, 1000]
    >>> shoe_points(5, 10)
    [5]
    """
    if shoes <= first:
        return [shoes]
    ratio = (shoes / first) ** (1 / (count - 1))
    found = {min(shoes, round(first * ratio**i)) for i in range(count)}
    return sorted(found | {shoes})


def running_estimate(job: SimJob, count: int = 24) -> RunningEstimate:
    """Deal ``job`` in this process and keep the estimates at about ``count``
    shoe counts (the first after two batches of shoes)."""
    tables = job.tables()
    nwagers = len(tables.wager_ids)
    per_chunk = job.shoes_per_chunk
    full: list[SimCounts] = []  # counts of chunk i, dealt in full
    points = []
    counts = SimCounts.empty(tables.nkeys, nwagers)
    for shoes in shoe_points(job.shoes, 2 * job.batch_shoes, count):
        whole, rest = divmod(shoes, per_chunk)
        while len(full) < whole:
            full.append(simulate_chunks(job, [len(full)]))
        counts = SimCounts.empty(tables.nkeys, nwagers)
        for chunk in full[:whole]:
            counts.add(chunk)
        if rest:
            prefix = dataclasses.replace(job, shoes=shoes)
            counts.add(simulate_chunks(prefix, [whole]))
        scales = [int(s) for s in tables.scale]
        estimates = tuple(Estimate.of(counts.batch[2 * w], scales[w]) for w in range(nwagers))
        points.append(RunningPoint(shoes, counts.coups, estimates))
    exact = figures(job, counts)
    return RunningEstimate(
        job,
        tuple(tables.wager_ids),
        tuple(f.name for f in exact),
        tuple(f.exact_return for f in exact),
        tuple(points),
        counts,
    )
