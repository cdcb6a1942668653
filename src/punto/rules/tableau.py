"""The Table of Play, as data: the one place that says who draws.

Every rules file prints the same table (Tiger Baccarat 3.15, Tiger No
Commission 3.9, Tiger Buffalo 3.15, Baccarat Tournament 3.9, Dragon Tiger
3.14).  It is written here once, as the tables a dealer would read, and the
engine, the exact analysis and the simulation kernels all read these tables.

``P`` is the Player's two-card total; ``B`` the Banker's; the column is the
point value of the Player's third card, or ``-`` when the Player stood.

>>> player_draws(5, 3), player_draws(6, 3), player_draws(5, 8)
(True, False, False)
>>> banker_draws(5, 3, 8), banker_draws(5, 3, 9), banker_draws(6, 6, None)
(False, True, False)
>>> banker_draws(6, 5, None)
True
"""

from __future__ import annotations

#: A two-card total of eight or nine: no more cards to either hand.
NATURALS = frozenset({8, 9})

# Player, by two-card total: D draws, S stands, N natural.
_PLAYER = "DDDDDDSSNN"

# Banker, by two-card total (rows) and the Player's third card (columns 0-9),
# and a last column for "Player stood".  D draws, S stands, N natural.
_BANKER = {
    #     0123456789 -
    0: "DDDDDDDDDD D",
    1: "DDDDDDDDDD D",
    2: "DDDDDDDDDD D",
    3: "DDDDDDDDSD D",
    4: "SSDDDDDDSS D",
    5: "SSSSDDDDSS D",
    6: "SSSSSSDDSS S",
    7: "SSSSSSSSSS S",
    8: "NNNNNNNNNN N",
    9: "NNNNNNNNNN N",
}

#: PLAYER_DRAWS[p] for a Player two-card total p with no natural on the table.
PLAYER_DRAWS: tuple[bool, ...] = tuple(code == "D" for code in _PLAYER)

#: BANKER_DRAWS[b][t] for a Banker two-card total b and the Player's third card t
#: (t = 10 when the Player stood), with no natural on the table.
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(code == "D" for code in _BANKER[total].replace(" ", "")) for total in range(10)
)

#: Column of BANKER_DRAWS used when the Player stood.
PLAYER_STOOD = 10


def point_total(values: int) -> int:
    """The right digit of the sum of the point values (3.4)."""
    return values % 10


def is_natural(player_total: int, banker_total: int) -> bool:
    """Either two-card total is eight or nine."""
    return player_total in NATURALS or banker_total in NATURALS


def player_draws(player_total: int, banker_total: int) -> bool:
    """Whether the Player takes a third card, from the two-card totals."""
    return not is_natural(player_total, banker_total) and PLAYER_DRAWS[player_total]


def banker_draws(player_total: int, banker_total: int, player_third: int | None) -> bool:
    """Whether the Banker takes a third card.

    ``player_third`` is the point value of the Player's third card, or None if
    the Player stood.  Totals are the two-card totals.
    """
    if is_natural(player_total, banker_total):
        return False
    column = PLAYER_STOOD if player_third is None else player_third
    return BANKER_DRAWS[banker_total][column]
