"""The roads of a scoreboard: the bead plate, the big road and the derived roads,
each a grid of logical columns drawn with its dragon tail (the rules of drawing
are :mod:`punto.rules.roads`'s docstring; it exports every name here).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from punto.rules.coup import Side
from punto.rules.road_results import ROWS, Colour, Result, RoadError, flags_text


class DragonTail:
    """Where each cell of a column road is drawn on a board of ``rows`` rows.

    Logical columns come in one at a time and only the last one grows.  A new
    column starts at the top of the display column just right of where the
    previous column started, further right while that top cell is taken.  A
    column goes down while the cell below is on the board and free; once it
    cannot, it turns right and stays on that row (the tail).  Placing a cell is
    O(1) amortized.

    >>> tail = DragonTail(rows=3)
    >>> [tail.new_column(), tail.extend(), tail.extend(), tail.extend()]
    [(0, 0), (0, 1), (0, 2), (1, 2)]
    >>> [tail.new_column(), tail.extend(), tail.extend()]
    [(1, 0), (1, 1), (2, 1)]
    >>> tail.at(2, 1), tail.width
    ((1, 2), 3)
    """

    __slots__ = ("_at", "_places", "_start", "_turned", "rows", "width")

    def __init__(self, rows: int = ROWS) -> None:
        if rows < 1:
            raise RoadError(f"a road needs at least one row, got {rows}")
        self.rows = rows
        self.width = 0
        self._at: dict[tuple[int, int], tuple[int, int]] = {}
        self._places: list[list[tuple[int, int]]] = []
        self._start = -1
        self._turned = False

    def new_column(self) -> tuple[int, int]:
        """Place the first cell of a new logical column; its (x, y)."""
        x = self._start + 1
        while (x, 0) in self._at:
            x += 1
        self._start, self._turned = x, False
        self._places.append([])
        return self._put(x, 0)

    def extend(self) -> tuple[int, int]:
        """Place one more cell of the last logical column; its (x, y)."""
        x, y = self._places[-1][-1]
        if not self._turned and y + 1 < self.rows and (x, y + 1) not in self._at:
            return self._put(x, y + 1)
        # The tail runs right along row y.  Nothing can be in its way: an earlier
        # tail on row y further right would also cover this column's row y.
        self._turned = True
        return self._put(x + 1, y)

    def _put(self, x: int, y: int) -> tuple[int, int]:
        column = len(self._places) - 1
        self._at[(x, y)] = (column, len(self._places[column]))
        self._places[column].append((x, y))
        self.width = max(self.width, x + 1)
        return x, y

    def position(self, column: int, row: int) -> tuple[int, int]:
        """Display (x, y) of the logical cell (column, row)."""
        return self._places[column][row]

    def at(self, x: int, y: int) -> tuple[int, int] | None:
        """The logical (column, row) drawn at display (x, y), if any."""
        return self._at.get((x, y))


def _window(width: int, shown: int | None) -> range:
    """The display columns a board of ``shown`` columns shows: the latest ones."""
    if shown is None or shown >= width:
        return range(width)
    return range(width - max(shown, 0), width)


T = TypeVar("T")


class _ColumnRoad(Generic[T]):
    """Logical columns of same-key items, with their dragon-tail display."""

    def __init__(self, rows: int, key: Callable[[T], Hashable]) -> None:
        self._key = key
        self._columns: list[list[T]] = []
        self._lengths: list[int] = []
        self.tail = DragonTail(rows)

    @property
    def rows(self) -> int:
        return self.tail.rows

    @property
    def columns(self) -> tuple[tuple[T, ...], ...]:
        """The logical columns (a copy)."""
        return tuple(tuple(column) for column in self._columns)

    @property
    def lengths(self) -> tuple[int, ...]:
        """Length of each logical column."""
        return tuple(self._lengths)

    @property
    def entries(self) -> tuple[T, ...]:
        """Every entry, in the order added."""
        return tuple(item for column in self._columns for item in column)

    def __len__(self) -> int:
        return sum(self._lengths)

    def _append(self, item: T) -> tuple[int, int]:
        if self._columns and self._key(self._columns[-1][-1]) == self._key(item):
            self._columns[-1].append(item)
            self._lengths[-1] += 1
            self.tail.extend()
        else:
            self._columns.append([item])
            self._lengths.append(1)
            self.tail.new_column()
        return len(self._columns) - 1, self._lengths[-1] - 1

    def cell(self, column: int, row: int) -> T:
        return self._columns[column][row]

    def placed(self) -> list[tuple[int, int, int, int, T]]:
        """(column, row, x, y, item) for every entry, in the order added."""
        out = []
        for c, column in enumerate(self._columns):
            for r, item in enumerate(column):
                x, y = self.tail.position(c, r)
                out.append((c, r, x, y, item))
        return out

    def grid(self, width: int | None = None) -> list[list[T | None]]:
        """The board as drawn: ``rows`` lists of cells (None where empty),
        the latest ``width`` display columns (all by default)."""
        xs = _window(self.tail.width, width)
        grid: list[list[T | None]] = []
        for y in range(self.rows):
            line: list[T | None] = []
            for x in xs:
                where = self.tail.at(x, y)
                line.append(None if where is None else self._columns[where[0]][where[1]])
            grid.append(line)
        return grid


class BeadPlate:
    """Every coup, ties included, down columns of ``rows`` cells.

    >>> from punto.rules.road_results import parse_results
    >>> plate = BeadPlate(rows=2)
    >>> for r in parse_results("BTPPp"): _ = plate.add(r)
    >>> [[str(cell) for cell in row] for row in plate.grid()]
    [['B', 'P'], ['T', 'Pp']]
    >>> plate.position(3)
    (1, 1)
    """

    def __init__(self, rows: int = ROWS) -> None:
        if rows < 1:
            raise RoadError(f"a road needs at least one row, got {rows}")
        self.rows = rows
        self._results: list[Result] = []

    def add(self, result: Result) -> tuple[int, int]:
        self._results.append(result)
        return self.position(len(self._results) - 1)

    def position(self, coup: int) -> tuple[int, int]:
        """Display (x, y) of the ``coup``-th result (from 0)."""
        return divmod(coup, self.rows)

    @property
    def width(self) -> int:
        return -(-len(self._results) // self.rows)

    def __len__(self) -> int:
        return len(self._results)

    def grid(self, width: int | None = None) -> list[list[Result | None]]:
        xs = _window(self.width, width)
        n = len(self._results)
        return [
            [self._results[i] if (i := x * self.rows + y) < n else None for x in xs]
            for y in range(self.rows)
        ]


@dataclass(frozen=True, slots=True)
class BigRoadCell:
    """A Banker or Player win on the big road.

    ``coup`` is the coup's number in the shoe (from 0, ties counted).
    ``ties`` counts Ties dealt after it (before the next win); on the shoe's
    first cell, ``leading_ties`` counts Ties dealt before it.  The pair and
    natural marks are this coup's own: a Tie's pairs show on the bead plate
    and in the statistics, not on the big road.

    >>> cell = BigRoadCell(Side.BANKER, 3, player_pair=True, ties=2, leading_ties=1)
    >>> str(cell), cell.tie_marks
    ('Bp3', 3)
    """

    side: Side
    coup: int
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False
    ties: int = 0
    leading_ties: int = 0

    @property
    def tie_marks(self) -> int:
        """Ties drawn on this cell."""
        return self.ties + self.leading_ties

    @property
    def letter(self) -> str:
        return "B" if self.side is Side.BANKER else "P"

    def __str__(self) -> str:
        ties = str(self.tie_marks) if self.tie_marks else ""
        return self.letter + flags_text(self.player_pair, self.banker_pair) + ties

    def to_dict(self) -> dict[str, Any]:
        return {
            "side": self.side.value,
            "coup": self.coup,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
            "ties": self.ties,
            "leading_ties": self.leading_ties,
        }


def _side_of(cell: BigRoadCell) -> Side:
    return cell.side


class BigRoad(_ColumnRoad[BigRoadCell]):
    """Banker and Player wins in logical columns; ties counted on the last cell.

    >>> from punto.rules.road_results import parse_results
    >>> road = BigRoad()
    >>> for i, r in enumerate(parse_results("TTBTBP")): _ = road.add(r, i)
    >>> [[str(c) for c in column] for column in road.columns]
    [['B3', 'B'], ['P']]
    >>> road.leading_ties, road.next_position(Side.PLAYER), road.next_position(Side.BANKER)
    (2, (1, 1), (2, 0))
    """

    def __init__(self, rows: int = ROWS) -> None:
        super().__init__(rows, _side_of)
        self.leading_ties = 0
        """Ties dealt before the shoe's first Banker or Player win."""

    def add(self, result: Result, coup: int) -> tuple[int, int] | None:
        """Record coup number ``coup``; the (column, row) of its new cell, or
        None for a Tie (which only changes a count)."""
        side = result.side
        if side is None:
            if not self._columns:
                self.leading_ties += 1
            else:
                last = self._columns[-1]
                last[-1] = replace(last[-1], ties=last[-1].ties + 1)
            return None
        cell = BigRoadCell(
            side,
            coup,
            player_pair=result.player_pair,
            banker_pair=result.banker_pair,
            natural=result.natural,
            leading_ties=0 if self._columns else self.leading_ties,
        )
        return self._append(cell)

    @property
    def last(self) -> BigRoadCell | None:
        return self._columns[-1][-1] if self._columns else None

    def next_position(self, side: Side) -> tuple[int, int]:
        """The logical (column, row) a win by ``side`` would take next."""
        last = self.last
        if last is None:
            return 0, 0
        if last.side is side:
            return len(self._columns) - 1, self._lengths[-1]
        return len(self._columns), 0


def derived_colour(lengths: Sequence[int], column: int, row: int, k: int) -> Colour | None:
    """The mark a derived road comparing ``k`` columns back makes for the big
    road entry at logical (``column``, ``row``), from the big road's logical
    column lengths; None before the road starts.

    >>> lengths = [2, 3, 1]          # BB PPP B
    >>> derived_colour(lengths, 1, 1, 1), derived_colour(lengths, 1, 2, 1)
    (<Colour.RED: 'red'>, <Colour.BLUE: 'blue'>)
    >>> derived_colour(lengths, 2, 0, 1), derived_colour(lengths, 1, 0, 1)
    (<Colour.BLUE: 'blue'>, None)
    >>> derived_colour([1, 1], 1, 3, 1)   # two rows below the end of column 0
    <Colour.RED: 'red'>
    """
    if row == 0:
        if column - 1 - k < 0:
            return None
        return Colour.RED if lengths[column - 1] == lengths[column - 1 - k] else Colour.BLUE
    if column - k < 0:
        return None
    return Colour.BLUE if lengths[column - k] == row else Colour.RED


def _identity(colour: Colour) -> Colour:
    return colour


class DerivedRoad(_ColumnRoad[Colour]):
    """One derived road: red and blue marks in logical columns of one colour.

    >>> road = DerivedRoad("small_road", 2)
    >>> road.title, road.k
    ('Small road', 2)
    """

    def __init__(self, name: str, k: int, rows: int = ROWS) -> None:
        if k < 1:
            raise RoadError(f"a derived road compares at least one column back, got {k}")
        super().__init__(rows, _identity)
        self.name = name
        self.k = k

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").capitalize()

    def colour_for(self, big_road: BigRoad, column: int, row: int) -> Colour | None:
        return derived_colour(big_road._lengths, column, row, self.k)

    def follow(self, big_road: BigRoad, column: int, row: int) -> Colour | None:
        """Add the mark for the big road's new entry at (column, row), if any."""
        colour = self.colour_for(big_road, column, row)
        if colour is not None:
            self._append(colour)
        return colour


DERIVED = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))
