"""Players' ratings: the standard rating of play, exact.

Per player, per table or per shift: the hands played (rounds with at least
one rated bet), the total staked, the actual win (what the house won on the
bets, from the ledger's settlements), the theoretical win (Σ stake × house
edge at placement, exact), the average bet (staked per hand) and the house
edge of the play (theoretical win / staked).  A bet is rated once settled
and valued.

Shifts are fixed windows of ``hours`` hours of UTC time starting at
``start`` o'clock (8-hour shifts from 00:00 by default: 00-08, 08-16, 16-24);
a bet belongs to the shift in which it was placed.

>>> from datetime import datetime, UTC
>>> at = datetime(2026, 11, 26, 9, 30, tzinfo=UTC)
>>> plays = [Play("t1", "ann", "r1", 1000, Fraction(-21, 2), -1000, at),
...          Play("t1", "ann", "r1", 500, Fraction(-15), 950, at)]
>>> (row,) = ratings(plays, "player")
>>> row.hands, row.staked, row.actual_win, row.theoretical_win, row.average_bet
(1, 1500, 50, Fraction(51, 2), Fraction(1500, 1))
>>> row.to_json()["theoretical_win"], row.to_json()["house_edge"]
('0.26', '1.7000%')
>>> Shifts().key(at)
'2026-11-26T08:00Z'
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Literal

from punto.errors import PuntoError
from punto.money import format_units

__all__ = ["BY", "Play", "Rating", "RatingError", "Shifts", "ratings", "ratings_csv"]

By = Literal["player", "table", "shift"]
#: What a rating can be by.
BY: tuple[By, ...] = ("player", "table", "shift")


class RatingError(PuntoError, ValueError):
    """Ratings that cannot be made as asked."""


@dataclass(frozen=True, slots=True)
class Play:
    """One settled bet with its value at placement (minor units): ``expected_value``
    is the player's expected net result, ``player_net`` what the ledger moved
    into their wallet for it in all (stake out, payout in)."""

    table_id: str
    player: str
    round_id: str
    stake: int
    expected_value: Fraction
    player_net: int
    placed_at: datetime


@dataclass(frozen=True, slots=True)
class Shifts:
    """Shifts of ``hours`` hours of UTC time, the first of each day at ``start`` o'clock."""

    hours: int = 8
    start: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.hours <= 24 or 24 % self.hours:
            raise RatingError(
                f"shifts of {self.hours} hours do not divide the day",
                hint="1, 2, 3, 4, 6, 8, 12 or 24 hours",
            )
        if not 0 <= self.start < 24:
            raise RatingError(f"a shift cannot start at {self.start} o'clock", hint="0 to 23")

    def key(self, at: datetime) -> str:
        """The shift ``at`` falls in, by its start (``2026-11-26T08:00Z``)."""
        at = at.astimezone(UTC)
        offset = timedelta(hours=self.start)
        day = (at - offset).replace(hour=0, minute=0, second=0, microsecond=0)
        into = (at - offset) - day
        begins = (
            day + offset + timedelta(hours=self.hours * int(into // timedelta(hours=self.hours)))
        )
        return begins.strftime("%Y-%m-%dT%H:%MZ")


@dataclass
class Rating:
    """One row of ratings (money in minor units; the win is the house's)."""

    key: str
    hands: int = 0
    staked: int = 0
    actual_win: int = 0
    theoretical_win: Fraction = Fraction(0)
    bets: int = 0
    _rounds: set[tuple[str, str]] = field(default_factory=set, repr=False)

    def add(self, play: Play) -> None:
        self.bets += 1
        self.staked += play.stake
        self.actual_win -= play.player_net
        self.theoretical_win -= play.expected_value
        self._rounds.add((play.table_id, play.round_id))
        self.hands = len(self._rounds)

    @property
    def average_bet(self) -> Fraction:
        """Staked per hand."""
        return Fraction(self.staked, self.hands) if self.hands else Fraction(0)

    @property
    def house_edge(self) -> Fraction:
        """The theoretical win per unit staked."""
        return self.theoretical_win / self.staked if self.staked else Fraction(0)

    def to_json(self) -> dict[str, object]:
        """Money as strings to the cent (the exact figures beside them)."""
        return {
            "key": self.key,
            "hands": self.hands,
            "bets": self.bets,
            "staked": format_units(self.staked),
            "actual_win": format_units(self.actual_win),
            "theoretical_win": money_text(self.theoretical_win),
            "theoretical_win_exact": str(self.theoretical_win),
            "average_bet": money_text(self.average_bet),
            "house_edge": f"{_rounded(self.house_edge * 100, Decimal('0.0001'))}%",
            "house_edge_exact": str(self.house_edge),
        }


def _rounded(x: Fraction, quantum: Decimal) -> Decimal:
    return (Decimal(x.numerator) / Decimal(x.denominator)).quantize(quantum, rounding=ROUND_HALF_UP)


def money_text(units: Fraction) -> str:
    """An exact amount of minor units, to the cent (half away from zero)."""
    return format_units(int(_rounded(units, Decimal(1))))


def ratings(plays: Iterable[Play], by: By, shifts: Shifts | None = None) -> list[Rating]:
    """The ratings of ``plays`` by player, table or shift, in key order."""
    if by not in BY:
        raise RatingError(f"ratings by {by!r}", hint=f"by one of {', '.join(BY)}")
    shifts = shifts or Shifts()
    rows: dict[str, Rating] = {}
    for play in plays:
        if by == "player":
            key = play.player
        elif by == "table":
            key = play.table_id
        else:
            key = shifts.key(play.placed_at)
        rows.setdefault(key, Rating(key)).add(play)
    return [rows[k] for k in sorted(rows)]


CSV_COLUMNS = (
    "key",
    "hands",
    "bets",
    "staked",
    "actual_win",
    "theoretical_win",
    "theoretical_win_exact",
    "average_bet",
    "house_edge",
    "house_edge_exact",
)


def ratings_csv(by: By, rows: Sequence[Rating]) -> str:
    """The ratings as CSV: the figures of the JSON, one row each, ``by`` first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("by", *CSV_COLUMNS))
    for row in rows:
        data = row.to_json()
        writer.writerow((by, *(data[c] for c in CSV_COLUMNS)))
    return out.getvalue()
