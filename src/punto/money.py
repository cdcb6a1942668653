"""Money: ``Decimal`` amounts in whole minor units, and the rounding policy.

Payouts at odds such as 0.95 to 1 or 3 to 2 do not always come to whole minor
units.  Where they do not, the named :class:`Rounding` policy decides; the
default, ``DOWN``, pays the winnings rounded down to the minor unit, the way a
table pays what its chips can pay and the house keeps the fraction.

>>> winnings(Decimal("5"), Fraction(19, 20))
Decimal('4.75')
>>> winnings(Decimal("0.10"), Fraction(19, 20))     # 0.095 is not a whole cent
Decimal('0.09')
>>> winnings(Decimal("0.10"), Fraction(19, 20), rounding=Rounding.HALF_UP)
Decimal('0.10')
>>> parse_stake("1e400")
Traceback (most recent call last):
...
punto.errors.WagerError: stake '1e400' is not a whole number of minor units (0.01); round it to 0.01
>>> parse_stake("12.345")
Traceback (most recent call last):
...
punto.errors.WagerError: stake '12.345' is not a whole number of minor units (0.01); round it to 0.01
"""

from __future__ import annotations

import enum
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from punto.errors import WagerError

#: The default minor unit (cents).
CENT = Decimal("0.01")


class Rounding(enum.Enum):
    """How winnings that are not a whole number of minor units are rounded."""

    DOWN = "down"
    HALF_UP = "half-up"
    HALF_EVEN = "half-even"
    UP = "up"

    def round(self, units: Fraction) -> int:
        """A non-negative number of minor units, rounded to a whole one."""
        floor = units.numerator // units.denominator
        rest = units - floor
        if rest == 0 or self is Rounding.DOWN:
            return floor
        if self is Rounding.UP:
            return floor + 1
        if rest != Fraction(1, 2):
            return floor + (rest > Fraction(1, 2))
        return floor + 1 if self is Rounding.HALF_UP else floor + floor % 2


def parse_stake(text: str | int | Decimal, minor_unit: Decimal = CENT) -> Decimal:
    """A positive amount of money in whole minor units."""
    try:
        amount = Decimal(str(text).strip())
    except InvalidOperation:
        raise WagerError(
            f"stake {text!r} is not an amount of money", hint="write it like 100 or 12.50"
        ) from None
    if not amount.is_finite() or amount <= 0:
        raise WagerError(
            f"stake {text!r} must be a positive amount", hint="write it like 100 or 12.50"
        )
    try:
        whole = amount % minor_unit == 0
    except InvalidOperation:  # e.g. 1e400: too large to divide into minor units
        whole = False
    if not whole:
        raise WagerError(
            f"stake {text!r} is not a whole number of minor units ({minor_unit})",
            hint=f"round it to {minor_unit}",
        )
    return amount


def winnings(
    stake: Decimal,
    odds: Fraction,
    *,
    minor_unit: Decimal = CENT,
    rounding: Rounding = Rounding.DOWN,
) -> Decimal:
    """``stake`` times ``odds``, exactly, then rounded to the minor unit by policy."""
    units = Fraction(stake) * odds / Fraction(minor_unit)
    return (Decimal(rounding.round(units)) * minor_unit).quantize(minor_unit)


def format_money(amount: Decimal, minor_unit: Decimal = CENT) -> str:
    """A decimal string to the minor unit, without an exponent.

    >>> format_money(Decimal("1E+2")), format_money(Decimal("-4.5"))
    ('100.00', '-4.50')
    """
    return format(amount.quantize(minor_unit), "f")
