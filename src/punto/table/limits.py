"""Table limits, and how each game settles wagers outside them.

The limits a table displays are data (:class:`TableLimits`); what happens when
a wager is outside them is the game's named policy (``[limits]`` in its data
file):

* MBS 5.14 ``settle-once-then-return``: a wager under the minimum is paid or
  collected one time only; that player's later under-minimum wagers are
  returned.
* MBS 5.15 ``settle-to-maximum``: a wager over the maximum is paid and
  collected to the maximum only.
* RWS 5.1 ``reject-excess-seated-first-else-pro-rata``: excess over the
  differential is rejected, standing players' bets first; if it was not
  rejected, the heavier side wins or loses pro rata, never below the minimum,
  and under-minimum bets are not pro-rated (5.1.1, 5.1.2).
* RWS 5.2 ``advise-else-settle-as-placed``: an unnoticed under-minimum bet
  wins or loses as placed.

>>> limits = TableLimits(Decimal(100), Decimal(10000), differential=Decimal(20000))
>>> pro_rata([Decimal(30000)], lighter=Decimal(5000), limits=limits)
[Decimal('25000.00')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal

from punto.money import CENT

#: The wagers whose totals make the table differential (MBS 1.1.10; RWS 1.10).
DIFFERENTIAL_WAGERS = ("player", "banker")


@dataclass(frozen=True, slots=True)
class WagerLimit:
    minimum: Decimal
    maximum: Decimal


@dataclass(frozen=True)
class TableLimits:
    """The limits displayed at a table (MBS 3.5.1; RWS 3.4)."""

    minimum: Decimal
    maximum: Decimal
    differential: Decimal | None = None
    #: limits for particular wagers (side bets often have their own)
    wagers: Mapping[str, WagerLimit] = field(default_factory=dict)
    #: wagers one playing area may hold (MBS 3.7; a Pit Manager may set fewer, 3.7.1)
    wagers_per_area: int | None = None

    def for_wager(self, wager: str) -> WagerLimit:
        return self.wagers.get(wager, WagerLimit(self.minimum, self.maximum))


def differential_of(totals: Mapping[str, Decimal]) -> Decimal:
    """|Player total - Banker total|."""
    return abs(totals.get("player", Decimal(0)) - totals.get("banker", Decimal(0)))


def pro_rata(
    heavier: Sequence[Decimal], *, lighter: Decimal, limits: TableLimits, minor_unit: Decimal = CENT
) -> list[Decimal]:
    """The stakes the heavier side's bets win or lose on when the differential
    was exceeded and not rejected (RWS 5.1.1, 5.1.2).

    The heavier side is scaled to what the differential allows (lighter side
    plus the differential), rounded down to the minor unit; a scaled bet never
    goes below the minimum, and a bet already under the minimum is not scaled.
    """
    assert limits.differential is not None
    total = sum(heavier, Decimal(0))
    allowed = lighter + limits.differential
    if total <= allowed:
        return list(heavier)
    out = []
    for stake in heavier:
        if stake < limits.minimum:
            out.append(stake)  # 5.1.2
            continue
        scaled = (stake * allowed / total).quantize(minor_unit, rounding=ROUND_DOWN)
        out.append(max(scaled, limits.minimum))  # 5.1.1
    return out
