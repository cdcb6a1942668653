"""Effect of removal: how each wager's return moves when one card leaves the shoe.

The effect of removal of a rank is the return of the wager (per unit staked)
from the shoe less one card of that rank, minus its return from the full
shoe -- exactly, then as a float.  Wagers that look at the coup class see
only point values, so Ten, Jack, Queen and King have the same effect on them;
pair wagers tell the ranks apart, and under Tiger Baccarat's literal reading
of a Pair (1.1.14) the Ten parts company with the face cards.

>>> from punto.rules.games import get_game
>>> effects = effects_of_removal(get_game("tiger-baccarat"), Composition.of_decks(8))
>>> [f"{float(x) * 1e4:+.2f}" for x in effects["banker"].effects]   # A..K, in 1/10,000
['+0.44', '+0.52', '+0.65', '+1.16', '-0.83', '-1.13', '-0.83', '-0.50', '-0.23', '+0.19', '+0.19', '+0.19', '+0.19']
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from punto.analysis.composition import RANK_HEADINGS, RANKS, Composition
from punto.analysis.plan import Plan, plan_for
from punto.analysis.tables import wager_odds
from punto.analysis.tabular import Tabular
from punto.rules.game import Game
from punto.rules.wagers import Basis, PairRule

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Removal:
    """The effects of removal of one wager, Ace to King (None where the shoe
    holds no card of the rank)."""

    wager: str
    name: str
    pair_rule: PairRule
    base: Fraction
    effects: tuple[Fraction | None, ...]

    def tabular(self) -> Tabular:
        """One row per rank: the exact effect and it in 1/10,000 of the stake."""
        return Tabular(
            f"{self.name}: effect of removal of one card (pairs read by the "
            f"{self.pair_rule.value} rule; full-shoe return {float(self.base):+.6f})",
            ("rank", "effect", "per 10,000"),
            tuple(
                (rank, x, None if x is None else float(x) * 1e4)
                for rank, x in zip(RANK_HEADINGS, self.effects, strict=True)
            ),
        )

    def _repr_html_(self) -> str:
        return self.tabular().html()

    def to_frame(self) -> pd.DataFrame:
        """The effects as a pandas DataFrame (``pip install 'punto[frames]'``)."""
        return self.tabular().frame()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "pair_rule": self.pair_rule.value,
            "return": float(self.base),
            "effects": [None if x is None else float(x) for x in self.effects],
            "effects_exact": [None if x is None else str(x) for x in self.effects],
        }


def _returns(plan: Plan, composition: Composition) -> dict[str, Fraction]:
    counts = plan.evaluate(composition)
    return {p.id: wager_odds(p, counts).return_exact for p in plan.wagers}


def effects_of_removal(
    game: Game,
    composition: Composition,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
) -> dict[str, Removal]:
    """The effect of removal of each rank on every wager offered."""
    rule = pair_rule or game.pair_rule
    plan = plan_for(game, layout, rule)
    base = _returns(plan, composition)
    removed: list[dict[str, Fraction] | None] = []
    for rank in RANKS:
        if composition.counts[rank - 1] == 0 or composition.total <= 6:
            removed.append(None)
        else:
            removed.append(_returns(plan, composition.without(rank)))
    out = {}
    for p in plan.wagers:
        effects = tuple(None if r is None else r[p.id] - base[p.id] for r in removed)
        out[p.id] = Removal(p.id, p.wager.name, rule, base[p.id], effects)
    return out


def pair_readings(
    game: Game, composition: Composition, layout: str | None = None
) -> dict[PairRule, dict[str, Removal]]:
    """The effects of removal of the pair wagers under each reading of a Pair."""
    out: dict[PairRule, dict[str, Removal]] = {}
    for rule in PairRule:
        effects = effects_of_removal(game, composition, layout, rule)
        plan = plan_for(game, layout, rule)
        out[rule] = {p.id: effects[p.id] for p in plan.wagers if p.kind.basis is Basis.PAIRS}
    return out


def removal_json(
    effects: dict[str, Removal], readings: dict[PairRule, dict[str, Removal]] | None = None
) -> dict[str, Any]:
    """``{"ranks": [...], "wagers": {...}, "pair_readings": {...}}``."""
    data: dict[str, Any] = {
        "ranks": list(RANK_HEADINGS),
        "wagers": {wid: r.to_json() for wid, r in effects.items()},
    }
    if readings:
        data["pair_readings"] = {
            rule.value: {wid: r.to_json() for wid, r in found.items()}
            for rule, found in readings.items()
            if found
        }
    return data
