"""The cage's amounts: read by the one reader of money, and bounded.

Issue 12 found ``true`` taken as a deposit of 1.00 (a JSON ``true`` is an
``int`` to a lax model) and deposits that overflowed the ledger.  A cage
amount here is a JSON string (``"500.00"``) or a whole JSON number (``500``);
a boolean, a fraction written as a JSON number (``500.5``: a float, and money
is never a float), anything else is refused with the way to write it, by
:func:`punto.money.parse_stake`; then the cage's maximum
(:class:`punto.store.bounds.MoneyBounds`) applies.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr

from punto.errors import WagerError
from punto.inputs import quoted
from punto.money import CENT, parse_stake
from punto.store.bounds import MoneyBounds

#: What a cage amount may arrive as.  Booleans and floats are let through the model
#: (strictly, so that ``true`` stays a bool) to be refused below with a clear message,
#: rather than turned into 1 or into a float's approximation.
CageAmount = Annotated[
    StrictStr | StrictInt | StrictBool | StrictFloat, Field(union_mode="left_to_right")
]

_HOW = 'write it as a string of digits, like "500" or "12.50"'


def cage_units(value: str | int | bool | float, what: str, bounds: MoneyBounds) -> int:
    """A positive cage amount (``what``: "deposit", "withdrawal") in minor units,
    within the cage's maximum; refused with a :class:`WagerError` or a
    :class:`~punto.store.bounds.MoneyBoundError` otherwise."""
    if isinstance(value, bool):  # as the request wrote it: JSON's true or false
        raise WagerError(f"a {what} of {str(value).lower()} is not an amount of money", hint=_HOW)
    if isinstance(value, float):
        raise WagerError(f"a {what} of {quoted(value)} is not an amount of money", hint=_HOW)
    try:
        amount: Decimal = parse_stake(value)
    except WagerError as refused:
        told = refused.message.removeprefix("stake ")  # parse_stake speaks of stakes
        raise WagerError(f"a {what} of {told}", hint=refused.hint) from None
    units = int(amount / CENT)  # whole cents: parse_stake checked it
    bounds.check_cage_amount(units, what)
    return units
