"""Runs split into seeded chunks on Dask distributed, merged exactly.

A real :class:`distributed.LocalCluster` of two worker processes on
127.0.0.1 (no dashboard): the same seed gives the same integers on the
cluster as in this process, whatever the number of workers and tasks.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from punto.sim.counting import CountJob, Tags, counting, parse_tags
from punto.sim.run import ShoeRules, SimJob, simulate

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=50,
    )
    try:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        yield cluster.scheduler_address
    finally:
        cluster.close()


def test_simulation_on_two_workers_equals_one_process(scheduler: str) -> None:
    job = SimJob("tiger-buffalo", None, "rank", ShoeRules(8, 14), seed=42, shoes=60_000)
    assert job.nchunks >= 4
    here = simulate(job, workers=0)
    there = simulate(job, scheduler=scheduler)
    assert there.counts.same_as(here.counts)
    assert [w.events for w in there.wagers] == [w.events for w in here.wagers]
    assert here.counts.coups > 4_000_000


def test_counting_on_two_workers_equals_one_process(scheduler: str) -> None:
    tags = Tags(parse_tags("0,0,-1,-1,-1,-2,+1,+2,+2,0"), "given")
    job = CountJob(
        "tiger-baccarat",
        None,
        "literal",
        ShoeRules(8, 14),
        seed=7,
        shoes=20_000,
        wagers=("big_tiger", "tiger"),
        tags=(tags.values, tags.values),
        samples=16,
    )
    assert job.nchunks >= 2
    here = counting(job, [tags, tags], exact=False, workers=0)
    there = counting(job, [tags, tags], exact=False, scheduler=scheduler)
    assert here.counts.coups == there.counts.coups
    assert np.array_equal(here.counts.hist, there.counts.hist)
    assert here.counts.tails == there.counts.tails
    assert here.counts.shoe == there.counts.shoe
    assert np.array_equal(here.counts.keys, there.counts.keys)
    assert np.array_equal(here.counts.states, there.counts.states)


def test_a_local_cluster_of_its_own() -> None:
    """``workers=2`` starts (and closes) a LocalCluster on loopback."""
    job = SimJob("dragon-tiger", None, "rank", ShoeRules(8, 14), seed=3, shoes=30_000)
    assert simulate(job, workers=2).counts.same_as(simulate(job, workers=0).counts)
