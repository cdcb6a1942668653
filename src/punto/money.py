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
punto.errors.WagerError: stake '1e400' is not an amount of money; write it like 100 or 12.50 (ASCII digits, at most one decimal point)
>>> parse_stake("12.345")
Traceback (most recent call last):
...
punto.errors.WagerError: stake '12.345' is not a whole number of minor units (0.01); round it to 0.01
"""

from __future__ import annotations

import enum
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from punto.errors import WagerError
from punto.inputs import quoted

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


#: Money is written as ASCII digits, an optional sign and at most one decimal point.
#: ``Decimal()`` alone would also read "1_000", "1E+2", "NaN" and digits of other
#: scripts ("١٠٠"), which no cage or dealer writes for an amount.
_MONEY_TEXT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)

#: The most digits before the decimal point: any amount up to this, in minor units,
#: fits the ledger's 64-bit integers and ``Decimal``'s 28 significant digits exactly.
MONEY_DIGITS = 15

_HOW = "write it like 100 or 12.50 (ASCII digits, at most one decimal point)"


def parse_stake(text: str | int | Decimal, minor_unit: Decimal = CENT) -> Decimal:
    """A positive amount of money in whole minor units.

    Text is ASCII digits with at most one decimal point and no more decimals
    than the minor unit has (``"100"``, ``"12.50"``); a whole number is an
    ``int``; a ``Decimal`` is taken as it is.  Anything else -- a ``bool``, a
    ``float``, ``"1_000"``, ``"1e2"``, ``"١٠٠"`` -- is refused with the way to
    write it.

    >>> parse_stake("1_000")
    Traceback (most recent call last):
    ...
    punto.errors.WagerError: stake '1_000' is not an amount of money; write it like 100 or 12.50 (ASCII digits, at most one decimal point)
    """
    amount = _amount(text)
    if not amount.is_finite() or amount <= 0:
        raise WagerError(f"stake {quoted(text)} must be a positive amount", hint=_HOW)
    if amount.adjusted() >= MONEY_DIGITS:
        raise WagerError(
            f"stake {quoted(text)} is more than {MONEY_DIGITS} digits of money",
            hint="no table holds that much; check the amount",
        )
    try:
        whole = amount % minor_unit == 0
    except InvalidOperation:  # too many digits to divide into minor units
        whole = False
    if not whole:
        raise WagerError(
            f"stake {quoted(text)} is not a whole number of minor units ({minor_unit})",
            hint=f"round it to {minor_unit}",
        )
    places = _decimals(minor_unit)
    if isinstance(text, str) and _decimals(amount) > places:
        raise WagerError(
            f"stake {quoted(text)} has more than {places} decimals",
            hint=f"write it as {amount.quantize(minor_unit)}",
        )
    return amount


def parse_amount(text: str | int | Decimal, minor_unit: Decimal = CENT) -> Decimal:
    """An amount of money that may be nothing: 0, or what :func:`parse_stake` reads.

    >>> parse_amount("0.00"), parse_amount("12.50")
    (Decimal('0'), Decimal('12.50'))
    """
    amount = _amount(text)
    if amount == 0 and not amount.is_signed():
        return Decimal(0)
    return parse_stake(text, minor_unit)


def _amount(text: str | int | Decimal) -> Decimal:
    """``text`` as a Decimal, if it is written the way money is."""
    if isinstance(text, Decimal):
        return text
    if isinstance(text, int) and not isinstance(text, bool):
        if text.bit_length() > 64:  # str() of a huge int can be refused outright
            raise WagerError(
                f"stake {quoted(text)} is more than {MONEY_DIGITS} digits of money",
                hint="no table holds that much; check the amount",
            )
        return Decimal(text)
    if isinstance(text, str):
        stripped = text.strip(" \t")
        if _MONEY_TEXT.fullmatch(stripped):
            return Decimal(stripped)
    raise WagerError(f"stake {quoted(text)} is not an amount of money", hint=_HOW)


def _decimals(amount: Decimal) -> int:
    """How many digits ``amount`` (finite) is written with after the point."""
    exponent = amount.as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


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


def format_units(units: int, minor_unit: Decimal = CENT) -> str:
    """Whole minor units (the ledger's ints) as money, for a message.

    >>> format_units(4000), format_units(-1), format_units(10**18)
    ('40.00', '-0.01', '10000000000000000.00')
    """
    return format_money(Decimal(units) * minor_unit, minor_unit)
