"""Table limits, and how each game settles wagers outside them.

The limits a table displays are data (:class:`TableLimits`); what happens when
a wager is outside them is the game's named policy (``[limits]`` in its data
file):

* MBS 5.14 ``settle-once-then-return``: a wager under the minimum is paid or
  collected one time only; that player's later under-minimum wagers are
  returned.
* MBS 5.15 ``settle-to-maximum``: a wager over the maximum is paid and
  collected to the maximum only.
* RWS 5.1 ``reject-excess-seated-first-else-pro-rata``: excess over a
  box's maximum or the table differential is rejected, standing players'
  bets first; if it was not rejected, the bets win or lose pro rata, never
  below the minimum, and under-minimum bets are not pro-rated (5.1.1, 5.1.2).
* RWS 5.2 ``advise-else-settle-as-placed``: an unnoticed under-minimum bet
  wins or loses as placed.

>>> limits = TableLimits(Decimal(100), Decimal(10000), differential=Decimal(20000))
>>> limits.for_wager("banker")
WagerLimit(minimum=Decimal('100'), maximum=Decimal('10000'))

What the clauses do with the limits (areas, boxes, the excess, pro rata) is
:mod:`punto.table.bet_limits`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from punto.errors import LimitError, WagerError
from punto.money import format_money, parse_stake

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
    #: the Pit Manager's lower number of wagers one playing area may hold
    #: (MBS 3.7.1); None is the rules' number (3.7), which applies without it
    wagers_per_area: int | None = None

    def for_wager(self, wager: str) -> WagerLimit:
        return self.wagers.get(wager, WagerLimit(self.minimum, self.maximum))

    def to_json(self) -> dict[str, Any]:
        """The limits as JSON, money as decimal strings; :meth:`from_json` reads it back.

        >>> limits = TableLimits(Decimal(10), Decimal(1000), wagers={"tiger": WagerLimit(Decimal(5), Decimal(100))})
        >>> TableLimits.from_json(limits.to_json()) == limits
        True
        """
        return {
            "minimum": format_money(self.minimum),
            "maximum": format_money(self.maximum),
            "differential": None if self.differential is None else format_money(self.differential),
            "wagers": {
                w: {"minimum": format_money(x.minimum), "maximum": format_money(x.maximum)}
                for w, x in self.wagers.items()
            },
            "wagers_per_area": self.wagers_per_area,
        }

    @classmethod
    def from_json(cls, data: Any) -> TableLimits:
        """Limits from ``{"minimum", "maximum", "differential"?, "wagers"?, "wagers_per_area"?}``.

        Money is a decimal string or a whole number (never a binary float),
        positive, in whole cents.

        >>> TableLimits.from_json({"minimum": "10", "maximum": 5})
        Traceback (most recent call last):
        ...
        punto.errors.LimitError: the maximum 5.00 is below the minimum 10.00; give a maximum at least the minimum
        """
        example = 'e.g. {"minimum": "10", "maximum": "1000"}'
        if not isinstance(data, Mapping):
            raise LimitError("limits must be an object", hint=example)
        allowed = {"minimum", "maximum", "differential", "wagers", "wagers_per_area"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise LimitError(
                f"limits take no {', '.join(unknown)}",
                hint=f"limits take {', '.join(sorted(allowed))}",
            )
        for key in ("minimum", "maximum"):
            if key not in data:
                raise LimitError(f"limits need a {key}", hint=example)
        minimum = _money(data["minimum"], "minimum")
        maximum = _money(data["maximum"], "maximum")
        _ordered(minimum, maximum, "the")
        wagers: dict[str, WagerLimit] = {}
        raw = data.get("wagers") or {}
        if not isinstance(raw, Mapping):
            raise LimitError(
                "limits.wagers maps a wager id to its minimum and maximum",
                hint='e.g. {"tiger": {"minimum": "10", "maximum": "500"}}',
            )
        for wager, entry in raw.items():
            if not isinstance(entry, Mapping) or set(entry) - {"minimum", "maximum"}:
                raise LimitError(
                    f"limits.wagers.{wager} takes a minimum and a maximum",
                    hint='e.g. {"minimum": "10", "maximum": "500"}',
                )
            low = _money(entry.get("minimum", minimum), f"{wager} minimum")
            high = _money(entry.get("maximum", maximum), f"{wager} maximum")
            _ordered(low, high, f"the {wager}")
            wagers[str(wager)] = WagerLimit(low, high)
        differential = data.get("differential")
        per_area = data.get("wagers_per_area")
        if per_area is not None and (
            isinstance(per_area, bool) or not isinstance(per_area, int) or per_area < 1
        ):
            raise LimitError("wagers_per_area must be a whole number of at least 1", clause="3.7")
        return cls(
            minimum,
            maximum,
            None if differential in (None, "") else _money(differential, "differential"),
            wagers,
            per_area,
        )


#: The limits a terminal table opens with when none are given (``punto table``,
#: ``punto play``): the rules set no amounts, the casino displays them (3.5.1).
DEFAULT_LIMITS = TableLimits(Decimal(10), Decimal(10000))


def _money(value: Any, what: str) -> Decimal:
    """Money as :func:`punto.money.parse_stake` reads it (one reading of money everywhere)."""
    if isinstance(value, bool) or not isinstance(value, int | str | Decimal):
        raise LimitError(
            f"the {what} {value!r} is not an amount of money",
            hint='write money as a decimal string like "12.50" or a whole number',
        )
    try:
        return parse_stake(value)
    except WagerError as bad:
        raise LimitError(f"the {what}: {bad.message}", hint=bad.hint) from None


def _ordered(low: Decimal, high: Decimal, what: str) -> None:
    if high < low:
        raise LimitError(
            f"{what} maximum {format_money(high)} is below the minimum {format_money(low)}",
            hint="give a maximum at least the minimum",
        )


def differential_of(totals: Mapping[str, Decimal]) -> Decimal:
    """``|Player total - Banker total|``."""
    return abs(totals.get("player", Decimal(0)) - totals.get("banker", Decimal(0)))
