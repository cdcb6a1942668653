"""The facts about a table that some clauses are conditioned on, by name.

The rules engine needs the names (a game's grants may name a fact,
:mod:`punto.rules.game`); checking a round against them is the table's
(:mod:`punto.table.facts`, which explains the facts).
"""

from __future__ import annotations

__all__ = ["TABLE_FACTS", "facts_of"]

#: Each table fact a clause may be conditioned on: (where it holds, what a
#: table without it lacks, how a table records it).
TABLE_FACTS: dict[str, tuple[str, str, str]] = {
    "electronic_device": (
        "where an electronic dealing device is in use",
        "this table records none",
        "a table dealing from its own shuffled shoe or a card-reading device has one; a "
        'replay file declares it with "electronic_device": true',
    ),
    "face_down": (
        "on tables where the cards are dealt face down",
        "this table deals them face up",
        'the table\'s face-down setting (punto table --face-down; replay "face_down": true; '
        "the server table's face_down, set by a pit manager between rounds)",
    ),
}


def facts_of(*, electronic_device: bool, face_down: bool) -> frozenset[str]:
    """The names of the facts that hold, from a table's options."""
    held = {"electronic_device": electronic_device, "face_down": face_down}
    return frozenset(name for name, holds in held.items() if holds)
