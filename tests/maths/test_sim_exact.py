"""Simulated returns of every wager of every game agree with the exact figures.

Two procedures, fixed seeds:

* **every coup from a freshly shuffled shoe** -- each coup's expected result
  is then exactly the full-shoe figure of the exact analysis, and the coups
  are independent: the cleanest comparison;
* **a shoe dealt to a cut card 14 cards from the end** -- as at the table.
  The expectation per coup over a shoe then differs from the full-shoe figure
  by the cut-card effect; a billion-coup run puts every wager within
  |z| < 1.6 of the full-shoe figure (benchmarks/README.md), so at the sizes
  here (standard errors ten times larger) it is invisible.

Every return and hit frequency of a run must lie within the simultaneous 95%
intervals of all of them (Bonferroni): |z| <= z*, z* from 2.8 to 3.3.
"""

from __future__ import annotations

import pytest

from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.sim.run import ShoeRules, SimJob, SimReport, simulate

CASES = [
    ("tiger-baccarat", PairRule.LITERAL),
    ("tiger-baccarat", PairRule.RANK),
    ("tiger-no-commission", PairRule.RANK),
    ("tiger-buffalo", PairRule.RANK),  # no layout: every wager of the game
    ("baccarat-tournament", PairRule.RANK),
    ("dragon-tiger", PairRule.RANK),
]


def check(report: SimReport) -> None:
    z = report.simultaneous_z()
    assert 2.8 < z < 3.4
    for w in report.wagers:
        low, high = w.returns.interval(z)
        assert low <= float(w.exact_return) <= high, (w.id, w.z_return)
        assert abs(w.z_hit) <= z, (w.id, w.z_hit)
        assert sum(w.events.values()) == report.counts.coups


@pytest.mark.parametrize(("game_id", "rule"), CASES, ids=[f"{g}-{r.value}" for g, r in CASES])
def test_fresh_shoe_returns_agree_with_exact(game_id: str, rule: PairRule) -> None:
    rules = ShoeRules(8, 8 * 52 - 1)
    assert rules.fresh
    report = simulate(SimJob(game_id, None, rule.value, rules, seed=20261125, shoes=20_000_000))
    assert report.counts.coups == 20_000_000
    check(report)


@pytest.mark.parametrize(("game_id", "rule"), CASES, ids=[f"{g}-{r.value}" for g, r in CASES])
def test_cut_card_returns_agree_with_exact(game_id: str, rule: PairRule) -> None:
    rules = ShoeRules(8, 14)
    report = simulate(SimJob(game_id, None, rule.value, rules, seed=1125, shoes=250_000))
    assert report.counts.coups > 20_000_000
    check(report)


def test_every_wager_of_every_game_is_simulated() -> None:
    """The cases above cover every wager settled on the coup (Insurance Plus
    has its own analysis, and is placed mid-round)."""
    covered = {
        (game_id, wid)
        for game_id, rule in CASES
        for wid in SimJob(game_id, None, rule.value, ShoeRules(8, 14), 1, 1).tables().wager_ids
    }
    for game_id, _ in CASES:
        for wid, wager in get_game(game_id).wagers.items():
            assert (game_id, wid) in covered or wager.kind is None, (game_id, wid)
