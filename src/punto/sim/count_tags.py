"""Point counts: a tag per rank for a wager, read, derived from the effects of
removal, and judged by their betting correlation (:mod:`punto.sim.counting`
runs them; it exports every name here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from punto.analysis.composition import RANK_HEADINGS, Composition
from punto.analysis.removal import effects_of_removal
from punto.errors import PuntoError
from punto.rules.games import get_game
from punto.rules.wagers import PairRule

#: Smallest betting correlation a derived count settles for.
GOOD_CORRELATION = 0.98


class CountingError(PuntoError):
    """A counting analysis that cannot be run as asked."""


@dataclass(frozen=True)
class Tags:
    """A point count for one wager: a tag per rank, Ace to King."""

    values: tuple[int, ...]
    source: str  # "derived" or "given"
    level: int | None = None
    correlation: float | None = None

    @property
    def balanced(self) -> bool:
        return sum(self.values) == 0

    @property
    def zero(self) -> bool:
        return not any(self.values)

    def text(self) -> str:
        """A..9 and T when the ten-value cards share a tag, else all 13."""
        v = self.values
        if len(set(v[9:])) == 1:
            return ",".join(f"{x:+d}" if x else "0" for x in v[:10])
        return ",".join(f"{x:+d}" if x else "0" for x in v)

    def to_json(self) -> dict[str, Any]:
        return {
            "tags": dict(zip(RANK_HEADINGS, self.values, strict=True)),
            "text": self.text(),
            "source": self.source,
            "level": self.level,
            "betting_correlation": self.correlation,
            "balanced": self.balanced,
        }


def parse_tags(text: str) -> tuple[int, ...]:
    """Tags A..9,T (T: every ten-value card) or all 13 ranks A..K.

    >>> parse_tags("0,0,-1,-1,-1,-2,+1,+2,+2,0")
    (0, 0, -1, -1, -1, -2, 1, 2, 2, 0, 0, 0, 0)
    """
    fields = text.replace(",", " ").split()
    try:
        values = [int(f) for f in fields]
    except ValueError:
        raise CountingError(
            f"cannot read the tags {text!r}: tags are whole numbers",
            hint="e.g. --tags 0,0,-1,-1,-1,-2,1,2,2,0 (A..9, then T for every ten-value card)",
        ) from None
    if len(values) == 10:
        values += [values[9]] * 3
    if len(values) != 13:
        raise CountingError(
            f"give 10 tags (A..9, T) or 13 (A..K), not {len(values)}",
            hint="e.g. --tags 0,0,-1,-1,-1,-2,1,2,2,0",
        )
    return tuple(values)


def correlation(tags: Sequence[float], effects: Sequence[float]) -> float:
    """Pearson correlation over the 13 ranks (the betting correlation)."""
    t = np.asarray(tags, dtype=np.float64)
    e = np.asarray(effects, dtype=np.float64)
    if t.std() == 0 or e.std() == 0:
        return 0.0
    return float(np.corrcoef(t, e)[0, 1])


def balanced_tags(effects: Sequence[float], level: int) -> tuple[int, ...]:
    """Effects scaled to ``level``, rounded and balanced (see the module).

    >>> balanced_tags([-0.78, -6.58, -33, -24.42, -22.38, -39.8, 35.73, 50.73, 43.22] + [-0.68] * 4, 2)
    (0, 0, -1, -1, -1, -2, 1, 2, 2, 0, 0, 0, 0)
    """
    e = np.asarray(effects, dtype=np.float64)
    top = float(np.abs(e).max())
    if top == 0:
        return (0,) * len(e)
    raw = e / top * level
    groups: dict[float, list[int]] = {}
    for r, x in enumerate(e):
        groups.setdefault(round(float(x), 15), []).append(r)
    members = list(groups.values())
    g_raw = np.array([raw[m[0]] for m in members])
    size = np.array([len(m) for m in members])
    g_tag = np.rint(g_raw).astype(np.int64)
    for _ in range(1000):
        total = int((g_tag * size).sum())
        if total == 0:
            break
        step = -1 if total > 0 else 1
        # each member's squared rounding error grows by this much
        cost = ((g_tag + step - g_raw) ** 2 - (g_tag - g_raw) ** 2).astype(np.float64)
        cost[size > abs(total)] = np.inf  # never step past zero
        g_tag[int(np.argmin(cost))] += step
    out = [0] * len(e)
    for m, t in zip(members, g_tag, strict=True):
        for r in m:
            out[r] = int(t)
    return tuple(out)


def derive_tags(effects: Sequence[float]) -> Tags:
    """The count for a wager with these effects of removal (A..K)."""
    if max(abs(x) for x in effects) < 1e-12:
        return Tags((0,) * 13, "derived", None, 0.0)
    best: Tags | None = None
    for level in range(1, 7):
        values = balanced_tags(effects, level)
        corr = correlation(values, effects)
        tags = Tags(values, "derived", level, corr)
        if corr >= GOOD_CORRELATION:
            return tags
        if best is None or corr > (best.correlation or 0.0) + 1e-9:
            best = tags
    assert best is not None
    return best


def effects_floats(
    game_id: str, layout: str | None, rule: PairRule, decks: int
) -> dict[str, tuple[float, ...]]:
    """Effects of removal, per wager, A..K, for a full shoe."""
    effects = effects_of_removal(get_game(game_id), Composition.of_decks(decks), layout, rule)
    return {
        wid: tuple(0.0 if x is None else float(x) for x in r.effects) for wid, r in effects.items()
    }
