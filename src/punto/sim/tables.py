"""What the simulation kernels read, built from the one source of each rule.

The kernels know no rule of the game.  They receive:

* the **outcome table**: for the two-card totals (p, b) and the point values
  of the fifth and sixth cards in the shoe, the coup class and how many cards
  beyond four the coup takes.  It is built here by reading the Table of Play
  through :func:`punto.analysis.enumeration.draws_table` (which reads
  :mod:`punto.rules.tableau`); a coup's fifth card goes to the Player if the Player
  draws, else to the Banker, and its sixth to the Banker when both draw.
* the **pair-pattern table** of the exact analysis
  (:func:`punto.analysis.classes.patterns`), indexed by the ranks of the first
  four cards;
* the **class -> event** and **pattern -> event** tables of the exact analysis
  (:func:`punto.analysis.plan.plan_for`), built by calling each wager kind once
  per class and pattern.

>>> table = outcome_table()
>>> code = int(table[outcome_index(5, 3, 1, 9)])    # P 5 v B 3, Player draws an Ace
>>> class_of_index(code & CLASS_MASK), code >> EXTRA_SHIFT   # Banker 3 draws on an Ace
((6, 2, 3, 3), 2)
>>> code = int(table[outcome_index(8, 0, 4, 4)])    # a natural: four cards
>>> class_of_index(code & CLASS_MASK), code >> EXTRA_SHIFT
((8, 0, 2, 2), 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
import numpy.typing as npt

from punto.analysis.classes import patterns
from punto.analysis.enumeration import NCLASSES, NONE, class_index, class_of_index, draws_table
from punto.analysis.plan import Plan, plan_for
from punto.rules.cards import Rank
from punto.rules.game import Game
from punto.rules.wagers import Basis, PairRule

__all__ = [
    "CLASS_MASK",
    "EXTRA_SHIFT",
    "NCLASSES",
    "SimTables",
    "class_of_index",
    "outcome_index",
    "outcome_table",
    "rank_values",
    "sim_tables",
]

#: Low bits of an outcome code: the coup class (0-399).
CLASS_MASK = 0x1FF
#: The code's high bits: cards beyond the first four (0, 1 or 2).
EXTRA_SHIFT = 9

U8 = npt.NDArray[np.uint8]
U16 = npt.NDArray[np.uint16]
I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


def outcome_index(p: int, b: int, fifth: int, sixth: int) -> int:
    """Index into :func:`outcome_table` of two-card totals and the point
    values of the fifth and sixth cards of the shoe."""
    return ((p * 10 + b) * 10 + fifth) * 10 + sixth


@cache
def outcome_table() -> U16:
    """The coup class and extra cards for every (p, b, fifth, sixth), read
    from the Table of Play (:func:`~punto.analysis.enumeration.draws_table`)."""
    draws = draws_table()
    table = np.zeros(10_000, dtype=np.uint16)
    for p in range(10):
        for b in range(10):
            pb = p * 10 + b
            for fifth in range(10):
                for sixth in range(10):
                    player_third = fifth if draws[pb] else NONE
                    banker_card = sixth if draws[pb] else fifth
                    banker_draws = draws[100 + pb * 11 + player_third]
                    pt = p if player_third == NONE else (p + player_third) % 10
                    bt = (b + banker_card) % 10 if banker_draws else b
                    pc = 2 if player_third == NONE else 3
                    bc = 3 if banker_draws else 2
                    code = class_index(pt, bt, pc, bc) | (pc + bc - 4) << EXTRA_SHIFT
                    table[outcome_index(p, b, fifth, sixth)] = code
    table.flags.writeable = False
    return table


@cache
def rank_values() -> U8:
    """Point value of each rank, Ace (0) to King (12)."""
    values = np.array([r.points for r in Rank], dtype=np.uint8)
    values.flags.writeable = False
    return values


@cache
def pattern_ids() -> tuple[U16, int]:
    """Pattern id of the ranks of the first four cards (Player, Banker,
    Player, Banker; ranks 0-12), and the number of patterns."""
    pats = patterns()
    table = np.frombuffer(pats.table, dtype=np.uint16).copy()
    table.flags.writeable = False
    return table, len(pats)


def shoe_template(decks: int) -> U8:
    """An unshuffled shoe of ``decks`` decks as ranks 0-12."""
    return np.tile(np.repeat(np.arange(13, dtype=np.uint8), 4), decks)


@dataclass(frozen=True)
class SimTables:
    """A game's wagers as the simulator settles them.

    ``keys`` are the columns of the kernel's counts: the 400 coup classes,
    then (when a wager looks at pairs) the pair patterns.  For each planned
    wager ``w``: ``slot[w, key]`` is the event (1-based, in the kind's order;
    0 loses), ``scale[w]`` a common denominator of its pays, ``value[w, e]``
    what one unit nets on event ``e`` times the scale (``value[w, 0]`` is the
    loss, ``-scale``), and ``paid[w, e]`` whether the event is paid.
    """

    plan: Plan
    wager_ids: tuple[str, ...]
    events: tuple[tuple[str, ...], ...]
    pairs: bool
    npatterns: int
    slot: I8
    scale: I64
    value: I64
    paid: npt.NDArray[np.bool_]

    @property
    def nkeys(self) -> int:
        return NCLASSES + self.npatterns

    def result_matrix(self) -> F64:
        """(keys x 2W): each key's scaled result for wager w (column 2w) and
        whether it is paid (column 2w+1), for BLAS sums that stay exact."""
        nw = len(self.wager_ids)
        out = np.zeros((self.nkeys, 2 * nw), dtype=np.float64)
        for w in range(nw):
            slots = self.slot[w].astype(np.int64)
            out[:, 2 * w] = self.value[w][slots]
            out[:, 2 * w + 1] = self.paid[w][slots]
            if self.basis_of(w) is Basis.CLASS:
                out[NCLASSES:, 2 * w : 2 * w + 2] = 0.0
            else:
                out[:NCLASSES, 2 * w : 2 * w + 2] = 0.0
        return out

    def basis_of(self, w: int) -> Basis:
        return self.plan.wagers[w].kind.basis

    def result(self, w: int, event: int) -> Fraction:
        """What one unit nets on event ``event`` (0: loss) of wager ``w``."""
        return Fraction(int(self.value[w, event]), int(self.scale[w]))


def sim_tables(game: Game, layout: str | None, pair_rule: PairRule) -> SimTables:
    """The tables of the wagers ``game`` offers on ``layout`` (every wager
    without a layout), from the exact analysis's plan."""
    plan = plan_for(game, layout, pair_rule)
    pairs = bool(plan.pattern_pairs)
    npatterns = pattern_ids()[1] if pairs else 0
    nw = len(plan.wagers)
    nslots = 1 + max((len(p.events) for p in plan.wagers), default=0)
    slot = np.zeros((nw, NCLASSES + npatterns), dtype=np.int8)
    scale = np.zeros(nw, dtype=np.int64)
    value = np.zeros((nw, nslots), dtype=np.int64)
    paid = np.zeros((nw, nslots), dtype=np.bool_)
    owner = {s: (w, s - p.first_slot) for w, p in enumerate(plan.wagers) for s in p.slots}
    for cls, s in plan.class_pairs:
        w, e = owner[s]
        slot[w, cls] = e + 1
    for pat, s in plan.pattern_pairs:
        w, e = owner[s]
        slot[w, NCLASSES + pat] = e + 1
    for w, p in enumerate(plan.wagers):
        scale[w] = p.scale
        value[w, 0] = -p.scale
        for e, (x, hit) in enumerate(zip(p.scaled, p.hits, strict=True)):
            value[w, e + 1] = x
            paid[w, e + 1] = hit
    return SimTables(
        plan=plan,
        wager_ids=tuple(p.id for p in plan.wagers),
        events=tuple(p.events for p in plan.wagers),
        pairs=pairs,
        npatterns=npatterns,
        slot=slot,
        scale=scale,
        value=value,
        paid=paid,
    )
