"""The scoreboard: bead plate, big road and the three derived roads.

Asian baccarat tables show the shoe's history on a board.  The rules call it
"display information" and give it no force: Tiger Baccarat 6.3 and Tiger
Buffalo 5.16 say it is *for information purposes only*, and that when it shows
a wrong outcome, the outcome of the cards dealt stands.  So everything here is
derived, one way, from finished coups (:class:`~punto.rules.coup.Coup`) or from
plain :class:`Result` records; nothing here feeds back into a coup or a
settlement, and a board read back from JSON is rebuilt from its results, never
from its drawn grids.

The roads, in their standard published form (the same on every maker's board):

**Bead plate.**  Every coup, ties included, one cell each, filled down a
column of six rows and then the next column.

**Big road.**  Banker and Player wins only.  A run of wins by one side is one
*logical column*; a win by the other side starts the next column.  A Tie is not
a cell: it is counted on the last cell (drawn as a green slash).  Ties dealt
before the first Banker or Player win of the shoe are kept and marked on the
first cell when it appears (:attr:`BigRoadCell.leading_ties`).  Pairs (first
two cards of a hand, by rank unless the board is given another
:class:`~punto.rules.wagers.PairRule`) and naturals are recorded on the cell of the
coup that had them; a Tie's own pairs show on the bead plate and in the
statistics only.

The board has six rows.  A column longer than six, or one that meets an
occupied cell below it, turns right and runs along its last row: the *dragon
tail*.  The next column still starts at the top of the column just right of
where the previous one started (further right if that top cell is already
taken by a tail).  The tail is a *display* projection (:class:`DragonTail`);
the logical columns -- which the derived roads read -- never change shape.

**Derived roads** (big eye boy, small road, cockroach pig) do not record who
won; they record whether the big road is "regular" (red) or "choppy" (blue),
comparing the column of each new big-road entry with the column ``k`` places
to its left: ``k = 1`` big eye boy, ``k = 2`` small road, ``k = 3`` cockroach
pig.  For a new big-road entry at logical column ``c``, row ``r`` (both from
0; the row counts past the sixth, as the logical column does):

* ``r == 0`` (a new column): red when columns ``c - 1`` and ``c - 1 - k`` have
  the same length, else blue;
* ``r > 0``: look at row ``r`` of column ``c - k``.  Red when that cell is
  filled; blue when it is empty but the cell above it is filled (the
  column ``k`` back ended exactly one row higher); red when both are empty
  (it ended earlier still).  That is: blue exactly when
  ``len(column c - k) == r``.

A road starts with the first entry for which its comparison exists: the big
road's entry at column ``k`` row 1, or, when column ``k`` has just one cell,
the entry at column ``k + 1`` row 0.  Ties never make an entry.  Each derived
road is drawn like the big road: logical columns of one colour, six rows,
dragon tail.

**Ask cells** (the "Banker ask" / "Player ask" buttons): the mark each derived
road would add if the next coup were a Banker or a Player win, computed
without touching the board.  For any road the two answers are opposite
colours, or both empty before the road starts.

>>> board = Scoreboard.from_results("TBBPPPBPPBBBBPBB")
>>> [len(column) for column in board.big_road.columns]
[2, 3, 1, 2, 4, 1, 2]
>>> board.big_road.leading_ties, str(board.big_road.columns[0][0])
(1, 'B1')
>>> "".join(c.letter for c in board.big_eye_boy.entries)
'RBBBBBRBRBBB'
>>> "".join(c.letter for c in board.small_road.entries)
'BRBBRRBBR'
>>> "".join(c.letter for c in board.cockroach_pig.entries)
'RRRRBBRR'
>>> board.ask(Side.BANKER)
Ask(side=<Side.BANKER: 'banker'>, big_eye_boy=<Colour.RED: 'red'>, small_road=<Colour.RED: 'red'>, cockroach_pig=<Colour.BLUE: 'blue'>)
>>> board.stats
Stats(coups=16, banker=9, player=6, tie=1, player_pairs=0, banker_pairs=0, naturals=0)

Adding is O(1) amortized per coup: the bead plate and the big road append, a
Tie rewrites one cell, each derived road looks up two column lengths, the tail
places one cell.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from punto.rules.coup import Coup, Side
from punto.rules.road_grids import DERIVED as DERIVED
from punto.rules.road_grids import BeadPlate as BeadPlate
from punto.rules.road_grids import BigRoad as BigRoad
from punto.rules.road_grids import BigRoadCell as BigRoadCell
from punto.rules.road_grids import DerivedRoad as DerivedRoad
from punto.rules.road_grids import DragonTail as DragonTail
from punto.rules.road_grids import derived_colour as derived_colour
from punto.rules.road_results import ROWS as ROWS
from punto.rules.road_results import Colour as Colour
from punto.rules.road_results import Result as Result
from punto.rules.road_results import RoadError as RoadError
from punto.rules.road_results import Stats as Stats
from punto.rules.road_results import parse_results as parse_results
from punto.rules.wagers import PairRule

__all__ = [
    "Ask",
    "BeadPlate",
    "BigRoad",
    "BigRoadCell",
    "Colour",
    "DerivedRoad",
    "DragonTail",
    "Result",
    "RoadError",
    "Scoreboard",
    "Stats",
    "derived_colour",
    "parse_results",
]


# --- results ---------------------------------------------------------------------------


# --- statistics ------------------------------------------------------------------------


# --- the dragon tail: logical columns onto a six-row grid ---------------------------------


# --- the bead plate ----------------------------------------------------------------------


# --- the big road ------------------------------------------------------------------------


# --- the derived roads -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ask:
    """What each derived road would show if the next coup were won by ``side``."""

    side: Side
    big_eye_boy: Colour | None
    small_road: Colour | None
    cockroach_pig: Colour | None

    def to_dict(self) -> dict[str, str | None]:
        return {name: _value(getattr(self, name)) for name, _ in DERIVED}

    def __str__(self) -> str:
        marks = ", ".join(
            f"{name.replace('_', ' ')} {_letter(getattr(self, name))}" for name, _ in DERIVED
        )
        return f"Ask {self.side.value.title()}: {marks}"


def _value(colour: Colour | None) -> str | None:
    return None if colour is None else colour.value


def _letter(colour: Colour | None) -> str:
    return "-" if colour is None else colour.letter


# --- the board ---------------------------------------------------------------------------


class Scoreboard:
    """The whole board for one shoe, updated one coup at a time.

    >>> board = Scoreboard()
    >>> board.add(Coup.parse("9H 9C 9D 6S"))    # Player 8 v Banker 5, a natural
    >>> board.add(Result.parse("T"))
    >>> str(board.big_road.columns[0][0]), str(board.stats)
    ('Pp1', '2 coups: Banker 0, Player 1, Tie 1; Player pairs 1, Banker pairs 0; naturals 1')
    >>> Scoreboard.from_json(board.to_json()) == board
    True
    """

    def __init__(self, rows: int = ROWS, pair_rule: PairRule = PairRule.RANK) -> None:
        self.rows = rows
        self.pair_rule = pair_rule
        self.bead_plate = BeadPlate(rows)
        self.big_road = BigRoad(rows)
        self.big_eye_boy = DerivedRoad("big_eye_boy", 1, rows)
        self.small_road = DerivedRoad("small_road", 2, rows)
        self.cockroach_pig = DerivedRoad("cockroach_pig", 3, rows)
        self.stats = Stats()
        self._results: list[Result] = []

    @classmethod
    def from_results(
        cls,
        results: Iterable[Result | Coup] | str,
        rows: int = ROWS,
        pair_rule: PairRule = PairRule.RANK,
    ) -> Scoreboard:
        """A board with ``results`` added in order (a string is read by
        :func:`parse_results`).

        >>> Scoreboard.from_results("BPT").stats.coups
        3
        """
        board = cls(rows, pair_rule)
        board.extend(parse_results(results) if isinstance(results, str) else results)
        return board

    @property
    def derived_roads(self) -> tuple[DerivedRoad, DerivedRoad, DerivedRoad]:
        return self.big_eye_boy, self.small_road, self.cockroach_pig

    @property
    def results(self) -> tuple[Result, ...]:
        return tuple(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def add(self, outcome: Result | Coup) -> None:
        """Record one more coup: a :class:`Result`, or a finished coup."""
        result = Result.from_coup(outcome, self.pair_rule) if isinstance(outcome, Coup) else outcome
        if not isinstance(result, Result):
            raise RoadError(f"the board records a Result or a Coup, not {outcome!r}")
        coup = len(self._results)
        self._results.append(result)
        self.stats = self.stats.add(result)
        self.bead_plate.add(result)
        where = self.big_road.add(result, coup)
        if where is not None:
            for road in self.derived_roads:
                road.follow(self.big_road, *where)

    def extend(self, outcomes: Iterable[Result | Coup]) -> None:
        for outcome in outcomes:
            self.add(outcome)

    def ask(self, side: Side) -> Ask:
        """The derived roads' next marks if ``side`` wins the next coup; the
        board is not changed.

        >>> board = Scoreboard.from_results("BBPB")
        >>> str(board.ask(Side.BANKER)), str(board.ask(Side.PLAYER))
        ('Ask Banker: big eye boy B, small road R, cockroach pig -', 'Ask Player: big eye boy R, small road B, cockroach pig -')
        """
        column, row = self.big_road.next_position(side)
        big, small, cockroach = (
            road.colour_for(self.big_road, column, row) for road in self.derived_roads
        )
        return Ask(side, big, small, cockroach)

    # -- text -----------------------------------------------------------------------------

    def render(self, width: int | None = None) -> str:
        """The board as text: the latest ``width`` display columns of each road.

        Bead plate and big road cells are ``B``/``P``/``T`` then ``p``/``b``
        for a Player/Banker pair (``n`` for a natural on the bead plate), and on
        the big road the number of ties marked on the cell; derived roads show
        ``R`` (red) and ``B`` (blue); ``.`` is an empty cell.

        >>> print(Scoreboard.from_results("BBPBPPT").render())
        Bead plate
        B T
        B .
        P .
        B .
        P .
        P .
        Big road
        B  P  B  P
        B  .  .  P1
        .  .  .  .
        .  .  .  .
        .  .  .  .
        .  .  .  .
        Big eye boy (R red, B blue)
        B R B
        . . .
        . . .
        . . .
        . . .
        . . .
        Small road (R red, B blue)
        B
        B
        .
        .
        .
        .
        Cockroach pig (R red, B blue)
        R
        .
        .
        .
        .
        .
        Ask Banker: big eye boy B, small road B, cockroach pig R
        Ask Player: big eye boy R, small road R, cockroach pig B
        7 coups: Banker 3, Player 3, Tie 1; Player pairs 0, Banker pairs 0; naturals 0
        """
        lines = ["Bead plate", *_text(self.bead_plate.grid(width), str)]
        heading = "Big road"
        if self.big_road.last is None and self.big_road.leading_ties:
            heading += f" ({self.big_road.leading_ties} ties, no Banker or Player win yet)"
        lines += [heading, *_text(self.big_road.grid(width), str)]
        for road in self.derived_roads:
            lines += [f"{road.title} (R red, B blue)", *_text(road.grid(width), _colour_text)]
        lines += [str(self.ask(Side.BANKER)), str(self.ask(Side.PLAYER)), str(self.stats)]
        return "\n".join(lines)

    # -- JSON ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for a web page: the results (from which
        :meth:`from_dict` rebuilds the board), the statistics, every road's
        cells with their logical (column, row) and display (x, y), and the ask
        cells."""
        bead = []
        for i, result in enumerate(self._results):
            x, y = self.bead_plate.position(i)
            bead.append({"coup": i, "x": x, "y": y, **result.to_dict()})
        data: dict[str, Any] = {
            "rows": self.rows,
            "pair_rule": self.pair_rule.value,
            "results": [result.to_dict() for result in self._results],
            "stats": self.stats.to_dict(),
            "bead_plate": {"width": self.bead_plate.width, "cells": bead},
            "big_road": {
                "leading_ties": self.big_road.leading_ties,
                "width": self.big_road.tail.width,
                "cells": [
                    {"column": c, "row": r, "x": x, "y": y, **cell.to_dict()}
                    for c, r, x, y, cell in self.big_road.placed()
                ],
            },
        }
        for road in self.derived_roads:
            data[road.name] = {
                "k": road.k,
                "width": road.tail.width,
                "cells": [
                    {"column": c, "row": r, "x": x, "y": y, "colour": colour.value}
                    for c, r, x, y, colour in road.placed()
                ],
            }
        data["ask"] = {side.value: self.ask(side).to_dict() for side in (Side.BANKER, Side.PLAYER)}
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scoreboard:
        """Rebuild a board from its results alone: every drawn road in ``data``
        is ignored, as the display information is (Tiger Baccarat 6.3)."""
        try:
            rows = int(data.get("rows", ROWS))
            rule = PairRule(data.get("pair_rule", PairRule.RANK.value))
            raw = data["results"]
        except (KeyError, ValueError, TypeError, AttributeError):
            raise RoadError(
                "a scoreboard needs 'results' (and optionally 'rows', 'pair_rule')"
            ) from None
        return cls.from_results([Result.from_dict(item) for item in raw], rows, rule)

    @classmethod
    def from_json(cls, text: str) -> Scoreboard:
        return cls.from_dict(json.loads(text))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scoreboard):
            return NotImplemented
        return (self.rows, self.pair_rule, self._results) == (
            other.rows,
            other.pair_rule,
            other._results,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Scoreboard rows={self.rows} {self.stats}>"


def _colour_text(colour: Colour) -> str:
    return colour.letter


_Cell = TypeVar("_Cell")


def _text(grid: list[list[_Cell | None]], show: Callable[[_Cell], str]) -> list[str]:
    if not grid or not grid[0]:
        return ["(empty)"]
    cells = [["." if cell is None else show(cell) for cell in line] for line in grid]
    width = max(len(text) for line in cells for text in line)
    return [" ".join(text.ljust(width) for text in line).rstrip() for line in cells]
