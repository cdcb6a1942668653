"""The shift report: per table and in total, the figures a pit boss reads.

Handle (the total wagered: every bet played, won, lost or pushed, Insurance
Plus with the rest), win (the house's result on them), hold (win / handle),
commission (taken on wins paid 0.95 to 1), rounds (settled), players
(distinct) and theoretical win (each bet's stake times its wager's exact
house edge off the top, :mod:`punto.protection.edges`, the figures of
``punto odds``; Insurance Plus, valued at the moment it is offered, has no
edge off the top and adds nothing to it).

They come from the tables' event logs, folded round by round
(:mod:`punto.server.tables.folds`, shared with the anomalies): a round is the shift's when
the event that finished it (its settlement, or its void) was recorded after
the table's mark at the shift's opening and, once closed, at or before its
mark at the closing (:mod:`punto.store.shifts`).  Money is exact: ``Decimal``
amounts and the theoretical win a ``Fraction``.

>>> f = ShiftFigures(Decimal(300), Decimal("-45"), Decimal(5), 2, frozenset({"ann"}),
...                  Fraction(3717, 1000))
>>> (f.hold, f.to_json()["hold"], f.to_json()["theoretical_win"])
(Fraction(-3, 20), '-15.00', '3.72')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from punto.money import format_money
from punto.protection.anomalies import RoundFacts
from punto.server.tables.folds import FoldedLogs
from punto.store.shifts import Shift

if TYPE_CHECKING:
    from punto.server.tables.config import TableConfig

__all__ = ["ShiftFigures", "ShiftReport", "TableShift", "figures_of", "shift_report"]


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _money(value: Fraction | Decimal) -> str:
    if isinstance(value, Fraction):
        value = Decimal(value.numerator) / Decimal(value.denominator)
    return format_money(value)


@dataclass(frozen=True, slots=True)
class ShiftFigures:
    """The figures of some rounds (money in the table's currency, exact)."""

    handle: Decimal = Decimal(0)
    win: Decimal = Decimal(0)
    commission: Decimal = Decimal(0)
    rounds: int = 0
    players: frozenset[str] = field(default_factory=frozenset)
    theoretical_win: Fraction = Fraction(0)

    @property
    def hold(self) -> Fraction | None:
        """Win over handle (None: nothing wagered)."""
        return Fraction(self.win) / Fraction(self.handle) if self.handle else None

    def __add__(self, other: ShiftFigures) -> ShiftFigures:
        """Both together: money and rounds add, players are counted once."""
        return ShiftFigures(
            self.handle + other.handle,
            self.win + other.win,
            self.commission + other.commission,
            self.rounds + other.rounds,
            self.players | other.players,
            self.theoretical_win + other.theoretical_win,
        )

    def to_json(self) -> dict[str, Any]:
        hold = self.hold
        return {
            "handle": _money(self.handle),
            "win": _money(self.win),
            # as a percentage to two places, like the tables' own figures
            "hold": None if hold is None else _money(hold * 100),
            "commission": _money(self.commission),
            "rounds": self.rounds,
            "players": len(self.players),
            "theoretical_win": _money(self.theoretical_win),
            "theoretical_win_exact": _exact(self.theoretical_win),
        }


def figures_of(facts: Iterable[RoundFacts]) -> ShiftFigures:
    """The figures of these finished rounds (a void adds no round and no money)."""
    total = ShiftFigures()
    for f in facts:
        played = frozenset(f.players) if f.handle else frozenset()
        total += ShiftFigures(
            f.handle, f.win, f.commission, 0 if f.voided else 1, played, f.theoretical_win
        )
    return total


@dataclass(frozen=True, slots=True)
class TableShift:
    """One table's line of the report."""

    table_id: str
    name: str
    game: str
    figures: ShiftFigures

    def to_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "name": self.name,
            "game": self.game,
            **self.figures.to_json(),
        }


@dataclass(frozen=True, slots=True)
class ShiftReport:
    """Every table's figures in the shift and their total (the players counted
    once however many tables they played at)."""

    tables: tuple[TableShift, ...]

    @property
    def total(self) -> ShiftFigures:
        total = ShiftFigures()
        for t in self.tables:
            total += t.figures
        return total

    def to_json(self) -> dict[str, Any]:
        return {
            "tables": [t.to_json() for t in self.tables],
            "total": self.total.to_json(),
        }


def in_window(facts: RoundFacts, after: int, upto: int | None) -> bool:
    """Whether the round finished after mark ``after`` and, with ``upto``, by it."""
    return facts.finished_seq > after and (upto is None or facts.finished_seq <= upto)


def shift_report(
    logs: FoldedLogs,
    tables: Iterable[TableConfig],
    shift: Shift,
    upto: Mapping[str, int] | None = None,
) -> ShiftReport:
    """``shift``'s report over ``tables``, from their folded ``logs``: up to
    the marks ``upto`` (a table missing from them: none of its rounds), or
    without them every round finished since the shift opened."""
    tables = list(tables)
    facts = logs.facts(t.id for t in tables)
    lines = []
    for config in tables:
        after = shift.opened_marks.get(config.id, 0)
        end = None if upto is None else upto.get(config.id, 0)
        rounds = [f for f in facts[config.id] if in_window(f, after, end)]
        lines.append(TableShift(config.id, config.name, config.game, figures_of(rounds)))
    return ShiftReport(tuple(lines))
