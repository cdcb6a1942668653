"""The scoreboard: bead plate, big road and the three derived roads.

Asian baccarat tables show the shoe's history on a board.  The rules call it
"display information" and give it no force: Tiger Baccarat 6.3 and Tiger
Buffalo 5.16 say it is *for information purposes only*, and that when it shows
a wrong outcome, the outcome of the cards dealt stands.  So everything here is
derived, one way, from finished coups (:class:`~punto.coup.Coup`) or from
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
:class:`~punto.wagers.PairRule`) and naturals are recorded on the cell of the
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

import enum
import json
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from punto.coup import Coup, Side, Winner
from punto.errors import PuntoError
from punto.wagers import PairRule, is_pair

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

ROWS = 6
"""Rows of every road on a casino board."""

_CLAUSE = "Tiger Baccarat 3.16"  # the hand with the highest point total wins


class RoadError(PuntoError, ValueError):
    """A result the scoreboard cannot record: unreadable or inconsistent."""


# --- results ---------------------------------------------------------------------------


class Colour(enum.Enum):
    """A derived road's mark: red "regular", blue "choppy"."""

    RED = "red"
    BLUE = "blue"

    @property
    def letter(self) -> str:
        """``R`` or ``B`` for the text board.

        >>> Colour.RED.letter, Colour.BLUE.letter
        ('R', 'B')
        """
        return "R" if self is Colour.RED else "B"

    @property
    def other(self) -> Colour:
        return Colour.BLUE if self is Colour.RED else Colour.RED


_LETTER = {Winner.BANKER: "B", Winner.PLAYER: "P", Winner.TIE: "T"}
_WINNER = {letter: winner for winner, letter in _LETTER.items()}
_SIDE = {Winner.BANKER: Side.BANKER, Winner.PLAYER: Side.PLAYER}
_TOKEN = re.compile(r"([BPT])([pbn]*)")


@dataclass(frozen=True, slots=True)
class Result:
    """What the board records of one coup.

    ``winner`` is required; the totals are optional (both or neither) and, when
    given, must agree with the winner.  Text form: ``B``, ``P`` or ``T``, then
    ``p`` for a Player pair, ``b`` for a Banker pair, ``n`` for a natural.

    >>> Result.parse("Bpn")
    Result(winner=<Winner.BANKER: 'banker'>, player_total=None, banker_total=None, player_pair=True, banker_pair=False, natural=True)
    >>> str(Result(Winner.TIE, 6, 6, banker_pair=True))
    'Tb'
    >>> Result(Winner.PLAYER, 3, 7)
    Traceback (most recent call last):
    ...
    punto.roads.RoadError: Player 3 v Banker 7 is a Banker win, not a Player win (Tiger Baccarat 3.16); the hand with the higher point total wins
    >>> Result.parse("Bx")
    Traceback (most recent call last):
    ...
    punto.roads.RoadError: cannot read result 'Bx'; write B, P or T, then p (Player pair), b (Banker pair), n (natural), e.g. B, Pp, Tbn
    """

    winner: Winner
    player_total: int | None = None
    banker_total: int | None = None
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.winner, Winner):
            raise RoadError(f"winner must be a Winner, got {self.winner!r}")
        p, b = self.player_total, self.banker_total
        if p is None and b is None:
            return
        if p is None or b is None:
            raise RoadError(
                f"only one total given (Player {p}, Banker {b})", hint="give both totals or neither"
            )
        for name, total in (("Player", p), ("Banker", b)):
            if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= 9:
                raise RoadError(
                    f"{name} total {total!r} is not a point total",
                    clause="Tiger Baccarat 3.4",
                    hint="a point total is 0 to 9",
                )
        actual = Winner.PLAYER if p > b else Winner.BANKER if b > p else Winner.TIE
        if actual is not self.winner:
            raise RoadError(
                f"Player {p} v Banker {b} is a {_name(actual)}, not a {_name(self.winner)}",
                clause=_CLAUSE,
                hint="the hand with the higher point total wins",
            )
        if self.natural and max(p, b) < 8:
            raise RoadError(
                f"a natural with Player {p} v Banker {b}",
                clause="Tiger Baccarat 1.1.6",
                hint="a natural is a two-card eight or nine, after which no card is drawn",
            )

    @classmethod
    def from_coup(cls, coup: Coup, pair_rule: PairRule = PairRule.RANK) -> Result:
        """The result of a finished coup; pairs are the first two cards of a hand.

        >>> Result.from_coup(Coup.parse("9H 9C 9D 6S"), PairRule.RANK)
        Result(winner=<Winner.PLAYER: 'player'>, player_total=8, banker_total=5, player_pair=True, banker_pair=False, natural=True)
        >>> str(Result.from_coup(Coup.parse("TH 2C JD 2S 5H 3D")))
        'Bb'
        >>> str(Result.from_coup(Coup.parse("TH 2C JD 2S 5H 3D"), PairRule.LITERAL))
        'Bpb'
        """
        player, banker = coup.player.cards, coup.banker.cards
        return cls(
            winner=coup.winner,
            player_total=coup.player.total,
            banker_total=coup.banker.total,
            player_pair=is_pair(player[0], player[1], pair_rule),
            banker_pair=is_pair(banker[0], banker[1], pair_rule),
            natural=coup.natural,
        )

    @classmethod
    def parse(cls, token: str) -> Result:
        """One result from its text form (see the class notes)."""
        match = _TOKEN.fullmatch(token.strip())
        flags = match.group(2) if match else ""
        if match is None or len(set(flags)) != len(flags):
            raise RoadError(
                f"cannot read result {token!r}",
                hint="write B, P or T, then p (Player pair), b (Banker pair), n (natural), "
                "e.g. B, Pp, Tbn",
            )
        return cls(
            winner=_WINNER[match.group(1)],
            player_pair="p" in flags,
            banker_pair="b" in flags,
            natural="n" in flags,
        )

    @property
    def letter(self) -> str:
        """``B``, ``P`` or ``T``."""
        return _LETTER[self.winner]

    @property
    def side(self) -> Side | None:
        """The side that won, or None for a Tie."""
        return _SIDE.get(self.winner)

    def __str__(self) -> str:
        return self.letter + _flags(self.player_pair, self.banker_pair) + "n" * self.natural

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; :meth:`from_dict` reads it back.

        >>> Result.from_dict(Result.parse("Pb").to_dict()) == Result.parse("Pb")
        True
        """
        return {
            "winner": self.winner.value,
            "player_total": self.player_total,
            "banker_total": self.banker_total,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        try:
            winner = Winner(data["winner"])
        except (KeyError, ValueError, TypeError):
            raise RoadError(
                f"a result needs a winner of 'banker', 'player' or 'tie', got {data!r}"
            ) from None
        flags = {}
        for key in ("player_pair", "banker_pair", "natural"):
            value = data.get(key, False)
            if not isinstance(value, bool):
                raise RoadError(f"{key} must be true or false, got {value!r}")
            flags[key] = value
        return cls(winner, data.get("player_total"), data.get("banker_total"), **flags)


def parse_results(text: str) -> tuple[Result, ...]:
    """Results from a compact sequence; spaces are optional.

    >>> [str(r) for r in parse_results("BBPT Pp Tbn")]
    ['B', 'B', 'P', 'T', 'Pp', 'Tbn']
    >>> parse_results("BBx")
    Traceback (most recent call last):
    ...
    punto.roads.RoadError: cannot read 'x' at position 2; write B, P or T, then p (Player pair), b (Banker pair), n (natural), e.g. BBPT Pp Tbn
    """
    results: list[Result] = []
    pos, end = 0, len(text)
    while pos < end:
        if text[pos].isspace():
            pos += 1
            continue
        match = _TOKEN.match(text, pos)
        if match is None:
            raise RoadError(
                f"cannot read {text[pos:].split()[0]!r} at position {pos}",
                hint="write B, P or T, then p (Player pair), b (Banker pair), n (natural), "
                "e.g. BBPT Pp Tbn",
            )
        results.append(Result.parse(match.group(0)))
        pos = match.end()
    return tuple(results)


def _name(winner: Winner) -> str:
    return "Tie" if winner is Winner.TIE else f"{winner.value.title()} win"


def _flags(player_pair: bool, banker_pair: bool) -> str:
    return "p" * player_pair + "b" * banker_pair


# --- statistics ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stats:
    """Counts for the shoe so far.

    >>> Stats().add(Result.parse("Tpn")).add(Result.parse("B"))
    Stats(coups=2, banker=1, player=0, tie=1, player_pairs=1, banker_pairs=0, naturals=1)
    """

    coups: int = 0
    banker: int = 0
    player: int = 0
    tie: int = 0
    player_pairs: int = 0
    banker_pairs: int = 0
    naturals: int = 0

    def add(self, result: Result) -> Stats:
        """These counts with one more coup."""
        return Stats(
            coups=self.coups + 1,
            banker=self.banker + (result.winner is Winner.BANKER),
            player=self.player + (result.winner is Winner.PLAYER),
            tie=self.tie + (result.winner is Winner.TIE),
            player_pairs=self.player_pairs + result.player_pair,
            banker_pairs=self.banker_pairs + result.banker_pair,
            naturals=self.naturals + result.natural,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "coups": self.coups,
            "banker": self.banker,
            "player": self.player,
            "tie": self.tie,
            "player_pairs": self.player_pairs,
            "banker_pairs": self.banker_pairs,
            "naturals": self.naturals,
        }

    def __str__(self) -> str:
        return (
            f"{self.coups} coups: Banker {self.banker}, Player {self.player}, Tie {self.tie}; "
            f"Player pairs {self.player_pairs}, Banker pairs {self.banker_pairs}; "
            f"naturals {self.naturals}"
        )


# --- the dragon tail: logical columns onto a six-row grid ---------------------------------


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


# --- the bead plate ----------------------------------------------------------------------


class BeadPlate:
    """Every coup, ties included, down columns of ``rows`` cells.

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


# --- the big road ------------------------------------------------------------------------


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
        return self.letter + _flags(self.player_pair, self.banker_pair) + ties

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


# --- the derived roads -------------------------------------------------------------------


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


def _text(grid: list[list[T | None]], show: Callable[[T], str]) -> list[str]:
    if not grid or not grid[0]:
        return ["(empty)"]
    cells = [["." if cell is None else show(cell) for cell in line] for line in grid]
    width = max(len(text) for line in cells for text in line)
    return [" ".join(text.ljust(width) for text in line).rstrip() for line in cells]
