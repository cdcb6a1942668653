"""Odds as the rules print them: ``0.95 to 1``, ``1 to 2``, ``3 to 2``.

Odds are exact fractions of the stake paid as winnings; a push returns the
stake and is not odds at all.

>>> Pays.parse("0.95 to 1").odds, Pays.parse("3 to 2").odds, str(Pays.parse("1:2"))
(Fraction(19, 20), Fraction(3, 2), '1 to 2')
>>> Pays.parse("push").is_push
True
>>> Pays.parse("evens")
Traceback (most recent call last):
...
punto.errors.GameDataError: cannot read odds 'evens'; write odds as 'A to B' (e.g. '0.95 to 1', '3 to 2') or 'push'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from punto.errors import GameDataError

_ODDS = re.compile(r"^\s*([0-9.]+)\s*(?:to|:)\s*([0-9.]+)\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Pays:
    """What a winning event pays: ``odds`` times the stake in winnings, or a
    push (``odds`` is None) that returns the stake."""

    odds: Fraction | None
    text: str

    @property
    def is_push(self) -> bool:
        return self.odds is None

    @classmethod
    def parse(cls, text: str) -> Pays:
        if text.strip().lower() == "push":
            return cls(None, "push")
        match = _ODDS.match(text)
        if match:
            try:
                win, stake = Decimal(match[1]), Decimal(match[2])
            except InvalidOperation:
                win = stake = Decimal(0)
            if win > 0 and stake > 0:
                return cls(Fraction(win) / Fraction(stake), f"{match[1]} to {match[2]}")
        raise GameDataError(
            f"cannot read odds {text!r}",
            hint="write odds as 'A to B' (e.g. '0.95 to 1', '3 to 2') or 'push'",
        )

    def __str__(self) -> str:
        return self.text
