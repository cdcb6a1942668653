"""Words for people: a number of things, in the singular when there is one.

>>> count(1, "coup"), count(2, "coup"), count(0, "shoe"), count(12500, "coup")
('1 coup', '2 coups', '0 shoes', '12,500 coups')
>>> count(1, "entry", "entries"), count(3, "entry", "entries")
('1 entry', '3 entries')
>>> a("pit manager"), a("assistant casino manager"), a("admin")
('a pit manager', 'an assistant casino manager', 'an admin')
"""

from __future__ import annotations

__all__ = ["a", "count"]


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural (``plural``, else with an "s")
    unless the number is one; the number in groups of three digits."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def a(noun: str) -> str:
    """``noun`` with its indefinite article (the positions and roles of these
    rules all begin with the letter they are spoken with)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
