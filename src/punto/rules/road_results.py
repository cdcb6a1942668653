"""The results a scoreboard is built from, and their statistics.

A :class:`Result` is what the board keeps of a finished coup (winner, pairs,
natural, the 3.16 hand); :class:`Stats` counts them.  :mod:`punto.rules.roads`
draws the roads from them and exports every name here.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from punto.errors import PuntoError
from punto.rules.coup import Coup, Side, Winner
from punto.rules.wagers import PairRule, is_pair
from punto.words import count

ROWS = 6
"""Rows of every road on a casino board."""

_CLAUSE = "Tiger Baccarat 3.16"  # the hand with the highest point total wins


class RoadError(PuntoError, ValueError):
    """A result the scoreboard cannot record: unreadable or inconsistent."""


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
    punto.rules.road_results.RoadError: Player 3 v Banker 7 is a Banker win, not a Player win (Tiger Baccarat 3.16); the hand with the higher point total wins
    >>> Result.parse("Bx")
    Traceback (most recent call last):
    ...
    punto.rules.road_results.RoadError: cannot read result 'Bx'; write B, P or T, then p (Player pair), b (Banker pair), n (natural), e.g. B, Pp, Tbn
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
        return self.letter + flags_text(self.player_pair, self.banker_pair) + "n" * self.natural

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
    punto.rules.road_results.RoadError: cannot read 'x' at position 2; write B, P or T, then p (Player pair), b (Banker pair), n (natural), e.g. BBPT Pp Tbn
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


def flags_text(player_pair: bool, banker_pair: bool) -> str:
    return "p" * player_pair + "b" * banker_pair


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
            f"{count(self.coups, 'coup')}: Banker {self.banker}, Player {self.player}, Tie {self.tie}; "
            f"Player pairs {self.player_pairs}, Banker pairs {self.banker_pairs}; "
            f"naturals {self.naturals}"
        )
