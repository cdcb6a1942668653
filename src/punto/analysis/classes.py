"""Coup classes and pair patterns, each with a real coup that stands for it.

Every non-pair wager depends only on the coup class (Player total, Banker
total, Player cards, Banker cards); every pair wager only on the ranks of the
first four cards.  So a wager kind is called once per class, on a
representative :class:`~punto.rules.coup.Coup` dealt by the engine, and once per
pair pattern: the analysis never re-implements what a wager wins on.

>>> from punto.rules.wagers import KINDS, PairRule
>>> events = class_events(KINDS["tiger"], PairRule.RANK)
>>> events[class_index(5, 6, 3, 3)], events[class_index(5, 6, 3, 2)], events[class_index(6, 6, 2, 2)]
('three_cards', 'two_cards', None)
>>> len(class_coups())      # classes the Table of Play can reach
205
>>> str(class_coups()[class_index(7, 6, 2, 2)])
'TS TS 7S 6S'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from punto.analysis import kernel
from punto.analysis.enumeration import (
    NCLASSES,
    NONE,
    class_index,
    pattern_table,
    tuple_index,
)
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Coup, Deal
from punto.rules.tableau import banker_draws, player_draws
from punto.rules.wagers import Basis, PairRule, WagerKind

__all__ = [
    "Patterns",
    "class_coups",
    "class_events",
    "class_index",
    "pattern_events",
    "patterns",
    "value_card",
]

_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


def value_card(value: int, suit: Suit = Suit.SPADES) -> Card:
    """A card of point value ``value`` (a Ten for zero)."""
    return Card(Rank.TEN if value == 0 else Rank(value), suit)


@cache
def class_coups() -> dict[int, Coup]:
    """A coup of every class the Table of Play can reach, by class index.

    The hands start Ten and a card of the two-card total; third cards are
    tried by point value as :mod:`punto.rules.tableau` calls for them.  The engine
    deals each representative and must agree on its class.
    """
    found: dict[int, Coup] = {}
    for p in range(10):
        for b in range(10):
            first = [value_card(0), value_card(0), value_card(p), value_card(b)]
            for e in range(10) if player_draws(p, b) else (NONE,):
                stood = e == NONE
                banker_draws_here = banker_draws(p, b, None if stood else e)
                for f in range(10) if banker_draws_here else (NONE,):
                    pt = p if stood else (p + e) % 10
                    bt = b if f == NONE else (b + f) % 10
                    index = class_index(pt, bt, 2 if stood else 3, 2 if f == NONE else 3)
                    if index in found:
                        continue
                    cards = list(first)
                    if not stood:
                        cards.append(value_card(e))
                    if f != NONE:
                        cards.append(value_card(f))
                    coup = Coup.from_cards(cards)
                    if class_index(*coup.coup_class) != index:  # pragma: no cover
                        raise AssertionError(f"the engine deals {coup} as {coup.coup_class}")
                    found[index] = coup
    return dict(sorted(found.items()))


@cache
def class_events(kind: WagerKind, rule: PairRule) -> tuple[str | None, ...]:
    """The event of ``kind`` for each of the 400 classes (None: lose or unreachable)."""
    if kind.basis is not Basis.CLASS:
        raise ValueError(f"{kind.name} does not depend on the coup class alone")
    events: list[str | None] = [None] * NCLASSES
    for index, coup in class_coups().items():
        events[index] = kind(coup, rule)
    return tuple(events)


# -- pair patterns ----------------------------------------------------------------------


def rank_categories() -> bytes:
    """A code for each rank such that ranks with one code are interchangeable
    to anything that looks at ranks, point values and face cards: a rank whose
    point value is its own gets 0, the others (the zero-value ranks) 1 plus
    whether they are face cards.

    >>> list(rank_categories())
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2]
    """
    by_points: dict[int, int] = {}
    for rank in Rank:
        by_points[rank.points] = by_points.get(rank.points, 0) + 1
    return bytes(0 if by_points[r.points] == 1 else 1 + int(r.is_face) for r in Rank)


@dataclass(frozen=True)
class Patterns:
    """The pair patterns of the first four cards.

    ``table`` maps the ordered ranks of the first four cards (an index from
    :func:`~punto.analysis.enumeration.tuple_index`) to a pattern id;
    ``coups[id]`` is a coup whose first four cards have that pattern.
    """

    table: bytes  # uint16 per rank tuple, native byte order (the kernel's form)
    ids: Sequence[int]
    representatives: tuple[tuple[int, int, int, int], ...]
    coups: tuple[Coup, ...]

    def __len__(self) -> int:
        return len(self.representatives)

    def swapped(self, pattern: int) -> tuple[int, int]:
        """The patterns of the same four cards with the Player's (then the
        Banker's) two cards in the other order."""
        r1, r2, r3, r4 = self.representatives[pattern]
        return self.ids[tuple_index(r3, r2, r1, r4)], self.ids[tuple_index(r1, r4, r3, r2)]


@cache
def patterns() -> Patterns:
    """The pair patterns (from the kernel when it is built)."""
    table, reps = kernel.pattern_table(rank_categories())
    ids = memoryview(table).cast("H")
    coups = tuple(_pattern_coup(r) for r in reps)
    return Patterns(table, ids, tuple(reps), coups)


def python_patterns() -> tuple[list[int], list[tuple[int, int, int, int]]]:
    """The same table and representatives, in Python."""
    return pattern_table(rank_categories())


def _pattern_coup(ranks: tuple[int, int, int, int]) -> Coup:
    """The first four cards with these ranks (suits told apart, in case a
    wager ever looks), completed with Tens as the Table of Play asks."""
    cards = [Card(Rank(r + 1), _SUITS[i]) for i, r in enumerate(ranks)]
    deal = Deal(tuple(cards))
    while not deal.is_complete:
        deal = deal.add(value_card(0, Suit.CLUBS))
    return deal.to_coup()


@cache
def pattern_events(kind: WagerKind, rule: PairRule) -> tuple[str | None, ...]:
    """The event of ``kind`` for each pair pattern."""
    if kind.basis is not Basis.PAIRS:
        raise ValueError(f"{kind.name} does not depend on the first four cards alone")
    return tuple(kind(coup, rule) for coup in patterns().coups)


def pattern_symmetric(kind: WagerKind, rule: PairRule) -> bool:
    """Whether ``kind`` reads each hand's first two cards as a set (so the
    enumeration may take them unordered)."""
    events = pattern_events(kind, rule)
    pats = patterns()
    return all(
        events[swapped] == events[pattern]
        for pattern in range(len(pats))
        for swapped in pats.swapped(pattern)
    )
