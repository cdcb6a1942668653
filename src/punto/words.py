"""Words for people: a number of things, in the singular when there is one.

>>> count(1, "coup"), count(2, "coup"), count(0, "shoe"), count(12500, "coup")
('1 coup', '2 coups', '0 shoes', '12,500 coups')
>>> count(1, "entry", "entries"), count(3, "entry", "entries")
('1 entry', '3 entries')
"""

from __future__ import annotations

__all__ = ["count"]


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural (``plural``, else with an "s")
    unless the number is one; the number in groups of three digits."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
