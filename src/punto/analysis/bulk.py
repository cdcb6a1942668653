"""Many compositions at once: only the figures asked for, as compact rows.

``punto odds --counts-file F`` builds every event of every wager for each
composition (about 10 KB of JSON for Tiger Buffalo).  A counting study often
wants one number per wager: ``--fields return`` prints just that, as JSON
lines or as CSV (one row per composition, one column per wager and field),
and :func:`returns_array` gives it to a Python program as an array.

Every figure is computed from the kernel's exact counts by the same integer
sums as the full output (:func:`punto.analysis.tables.wager_sums`):
``return_exact`` is the exact fraction, and ``return``, ``house_edge``,
``std_dev`` and ``hit_frequency`` are the very doubles ``--jsonl`` prints
(the exact value correctly rounded; written with the shortest decimal that
reads back as that double).

>>> from punto.rules.games import get_game
>>> bulk = Bulk.of(get_game("tiger-baccarat"), None, None, parse_fields("return_exact"))
>>> row = bulk.row(Composition.of_decks(8))
>>> dict(zip(bulk.wager_ids, row.values))["banker"]
('-114753351728/10847218479825',)
>>> parse_fields("return,retrun")
Traceback (most recent call last):
...
punto.analysis.bulk.FieldError: unknown field 'retrun' in --fields; choose from return, return_exact, house_edge, std_dev, hit_frequency, total_combinations
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import mul
from typing import TYPE_CHECKING, Any

from punto.analysis.composition import RANK_HEADINGS, Composition, CompositionError
from punto.analysis.plan import Plan, PlannedWager, plan_for
from punto.analysis.tables import wager_sums
from punto.errors import PuntoError
from punto.rules.game import Game
from punto.rules.wagers import PairRule

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Figures of each wager a row may hold, and what they are.
WAGER_FIELDS: dict[str, str] = {
    "return": "return per unit staked (the exact return correctly rounded to a double)",
    "return_exact": "return per unit staked as an exact fraction n/d in lowest terms",
    "house_edge": "minus the return (a double)",
    "std_dev": "standard deviation of one unit's result (a double)",
    "hit_frequency": "chance the wager is paid (a double)",
}

#: Figures of the composition itself.
COMPOSITION_FIELDS: dict[str, str] = {
    "total_combinations": "ordered six-card sequences, what every count is out of",
}

FIELDS = (*WAGER_FIELDS, *COMPOSITION_FIELDS)

Value = float | str | int


class FieldError(PuntoError, ValueError):
    """A ``--fields`` list that names no figure punto computes."""


class BulkError(PuntoError):
    """Bulk output that cannot be given in the form asked."""


def parse_fields(text: str) -> tuple[str, ...]:
    """Field names separated by commas, in the order given, each once."""
    found: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if name not in FIELDS:
            raise FieldError(
                f"unknown field {name!r} in --fields", hint=f"choose from {', '.join(FIELDS)}"
            )
        if name not in found:
            found.append(name)
    if not found:
        raise FieldError("--fields names no field", hint=f"choose from {', '.join(FIELDS)}")
    return tuple(found)


@dataclass(frozen=True)
class BulkRow:
    """One composition's figures: ``values[w]`` holds wager ``w``'s fields in
    the order asked."""

    composition: Composition
    total: int
    values: tuple[tuple[Value, ...], ...]


@dataclass(frozen=True)
class Bulk:
    """The chosen figures of every wager of a game on a layout."""

    plan: Plan
    fields: tuple[str, ...]

    @classmethod
    def of(
        cls, game: Game, layout: str | None, pair_rule: PairRule | None, fields: Sequence[str]
    ) -> Bulk:
        return cls(plan_for(game, layout, pair_rule or game.pair_rule), tuple(fields))

    @property
    def wager_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.plan.wagers)

    @property
    def wager_fields(self) -> tuple[str, ...]:
        return tuple(f for f in self.fields if f in WAGER_FIELDS)

    @cached_property
    def _weights(self) -> tuple[tuple[int, int, tuple[int, ...], int], ...]:
        """Per wager (first slot, last slot, x + scale of each event, scale),
        for :func:`_returns`."""
        return tuple(
            (
                p.first_slot,
                p.first_slot + len(p.events),
                tuple(x + p.scale for x in p.scaled),
                p.scale,
            )
            for p in self.plan.wagers
        )

    def row(self, composition: Composition) -> BulkRow:
        counts = self.plan.evaluate(composition)
        slots, total = counts.slots, counts.total
        wanted = self.wager_fields
        values: tuple[tuple[Value, ...], ...]
        if wanted == ("return",):  # the counting study's case: s1 alone
            values = tuple((r,) for r in _returns(self._weights, slots, total))
        else:
            values = tuple(_figures(p, slots, total, wanted) for p in self.plan.wagers)
        return BulkRow(composition, total, values)

    # -- text forms ---------------------------------------------------------------------

    def json_line(self, row: BulkRow) -> str:
        """One JSON line: the game, the composition and the chosen figures."""
        plan = self.plan
        data: dict[str, Any] = {
            "game": plan.game.id,
            "layout": plan.layout,
            "pair_rule": plan.pair_rule.value,
            "decks": row.composition.decks,
            "counts": list(row.composition.counts),
        }
        if "total_combinations" in self.fields:
            data["total_combinations"] = row.total
        wanted = self.wager_fields
        if wanted:
            data["wagers"] = {
                wid: dict(zip(wanted, values, strict=True))
                for wid, values in zip(self.wager_ids, row.values, strict=True)
            }
        return json.dumps(data, ensure_ascii=False) + "\n"

    def csv_header(self) -> list[str]:
        """The ranks' counts, then ``total_combinations`` if asked, then
        ``WAGER.FIELD`` for every wager and field."""
        head = list(RANK_HEADINGS)
        if "total_combinations" in self.fields:
            head.append("total_combinations")
        head += [f"{wid}.{f}" for wid in self.wager_ids for f in self.wager_fields]
        return head

    def csv_line(self, row: BulkRow) -> str:
        """One CSV line.  No cell can hold a comma, a quote or a line break
        (whole numbers, doubles as ``repr`` writes them, fractions n/d), so
        the cells are joined as they are, as a CSV writer would."""
        cells = list(map(str, row.composition.counts))
        if "total_combinations" in self.fields:
            cells.append(str(row.total))
        values = chain.from_iterable(row.values)
        if "return_exact" in self.fields:  # the one field written as a string
            cells += [v if isinstance(v, str) else repr(v) for v in values]
        else:
            cells += map(repr, values)
        return ",".join(cells) + "\n"


def _returns(
    weights: Sequence[tuple[int, int, tuple[int, ...], int]], slots: Sequence[int], total: int
) -> list[float]:
    """Every wager's ``s1 / (total * scale)`` as :func:`wager_sums` has it,
    without the rest: s1 = sum(c * x) - lost * scale = sum(c * (x + scale)) -
    total * scale, exact in Python integers and correctly rounded by ``/``."""
    return [
        (sum(map(mul, slots[first:last], shifted)) - total * scale) / (total * scale)
        for first, last, shifted, scale in weights
    ]


def _figures(
    planned: PlannedWager, slots: Sequence[int], total: int, wanted: Sequence[str]
) -> tuple[Value, ...]:
    _, s1, s2, hit = wager_sums(planned, slots, total)
    den = total * planned.scale
    out: list[Value] = []
    for name in wanted:
        if name == "return":
            out.append(s1 / den)
        elif name == "house_edge":
            out.append(-(s1 / den))
        elif name == "return_exact":
            g = math.gcd(s1, den)
            out.append(f"{s1 // g}/{den // g}")
        elif name == "std_dev":
            out.append(math.sqrt(s2 * total - s1 * s1) / den)
        else:  # hit_frequency
            out.append(hit / total)
    return tuple(out)


def write_csv(bulk: Bulk, rows: Iterable[BulkRow]) -> str:
    """The header and one line per composition."""
    return ",".join(bulk.csv_header()) + "\n" + "".join(bulk.csv_line(row) for row in rows)


# -- for Python programs ------------------------------------------------------------------


@dataclass(frozen=True)
class ReturnsArray:
    """Returns of many compositions: ``values[i, w]`` is the return per unit
    staked of wager ``wagers[w]`` on composition ``i`` (the exact return
    correctly rounded to a double)."""

    wagers: tuple[str, ...]
    values: npt.NDArray[np.float64]

    def column(self, wager_id: str) -> npt.NDArray[np.float64]:
        """One wager's returns, composition by composition."""
        if wager_id not in self.wagers:
            raise BulkError(
                f"no wager {wager_id!r} among the columns", hint=f"one of {', '.join(self.wagers)}"
            )
        return self.values[:, self.wagers.index(wager_id)]


def returns_array(
    compositions: Any,
    game: Game,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
) -> ReturnsArray:
    """The return of every wager ``game`` offers on ``layout`` for each
    composition: ``compositions`` is an array of shape (n, 13) of cards left
    of each rank, Ace to King (a NumPy integer array or a list of 13-int
    rows).

    >>> from punto.rules.games import get_game
    >>> found = returns_array([[32] * 13, [31] + [32] * 12], get_game("tiger-baccarat"))
    >>> found.values.shape, f"{found.column('banker')[0]:.6f}"
    ((2, 8), '-0.010579')
    """
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is an optional dependency
        raise BulkError(
            "returns_array gives a NumPy array, and NumPy is not installed",
            hint="pip install numpy",
        ) from None
    rows = compositions.tolist() if hasattr(compositions, "tolist") else list(compositions)
    bulk = Bulk.of(game, layout, pair_rule, ("return",))
    plan = bulk.plan
    weights = bulk._weights
    out = np.empty((len(rows), len(weights)), dtype=np.float64)
    for i, counts in enumerate(rows):
        try:
            composition = Composition(tuple(counts))
        except (CompositionError, TypeError) as error:
            message = error.message if isinstance(error, CompositionError) else str(error)
            raise CompositionError(f"composition {i}: {message}") from None
        found = plan.evaluate(composition)
        out[i] = _returns(weights, found.slots, found.total)
    return ReturnsArray(bulk.wager_ids, out)
