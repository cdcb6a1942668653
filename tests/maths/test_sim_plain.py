"""The plain-Python dealing kernel leaves the compiled kernel's integers,
and a run of one worker goes in this process."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from punto.rules.games import get_game
from punto.sim import kernel, plain
from punto.sim.run import PLAIN_COUPS, ShoeRules, SimJob, chunk_state, simulate, simulate_chunks
from punto.sim.tables import outcome_table, pattern_ids, rank_values, shoe_template, sim_tables

GAMES = (
    "tiger-baccarat",
    "tiger-no-commission",
    "tiger-buffalo",
    "baccarat-tournament",
    "dragon-tiger",
)

RULES = (
    ShoeRules(8, 14),
    ShoeRules(6, 16, burn=True),
    ShoeRules(4, 6),  # the fewest: a round starting at the cut card may take all six
    ShoeRules(1, 51),  # one coup per shoe
    ShoeRules(8, 8 * 52 - 1),
)


def deal(module: Any, game_id: str, rules: ShoeRules, seed: int, shoes: int) -> tuple[Any, ...]:
    game = get_game(game_id)
    tables = sim_tables(game, None, game.pair_rule)
    state = chunk_state(seed, 0)
    batch = 3
    counts = np.zeros((-(-shoes // batch), max(tables.nkeys, 400)), dtype=np.int32)
    coups = module.simulate_shoes(
        state,
        shoe_template(rules.decks),
        shoes,
        rules.cut,
        rules.burn,
        batch,
        outcome_table(),
        rank_values(),
        pattern_ids()[0],
        tables.pairs,
        counts,
    )
    return int(coups), state.tolist(), counts.tolist()


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.decks}d-{r.behind}-{r.burn}")
def test_plain_kernel_deals_the_compiled_kernel_shoes(game_id: str, rules: ShoeRules) -> None:
    """The same coups, batch rows, pair patterns and final random state."""
    for seed in (1, 2026):
        here = deal(plain, game_id, rules, seed, 10)
        assert here[0] > 0
        assert here == deal(kernel, game_id, rules, seed, 10)


def test_plain_kernel_takes_the_rejection_path_as_the_compiled_one() -> None:
    """Bounds close to 2^16, where Lemire's rejection runs on most draws."""
    template = (np.arange(60_000) % 13).astype(np.uint8)
    results = []
    for module in (plain, kernel):
        state = chunk_state(3, 0)
        counts = np.zeros((1, 400), dtype=np.int32)
        coups = module.simulate_shoes(
            state, template, 2, 59_000, False, 2, outcome_table(), rank_values(),
            pattern_ids()[0], False, counts,
        )  # fmt: skip
        results.append((int(coups), state.tolist(), counts.tolist()))
    assert results[0] == results[1]


def test_small_run_is_dealt_by_the_plain_kernel_with_the_same_counts() -> None:
    job = SimJob("tiger-buffalo", None, "rank", ShoeRules(8, 14), seed=11, shoes=40)
    assert job.small
    assert job.shoes * job.rules.expected_coups() <= PLAIN_COUPS
    assert not SimJob("tiger-buffalo", None, "rank", ShoeRules(8, 14), 11, 5_000).small
    by_size = simulate_chunks(job, [0])
    assert by_size.same_as(simulate_chunks(job, [0], plain=True))
    assert by_size.same_as(simulate_chunks(job, [0], plain=False))


def test_simulate_on_one_worker_runs_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Dask cluster for one worker: the same counts as ``workers=0``."""
    from punto.sim import cluster

    def no_cluster(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("one worker started a cluster")

    monkeypatch.setattr(cluster, "client_for", no_cluster)
    job = SimJob("dragon-tiger", None, "rank", ShoeRules(8, 14), seed=3, shoes=30)
    one = simulate(job, workers=1)
    assert one.workers == 1
    assert one.counts.same_as(simulate(job, workers=0).counts)
