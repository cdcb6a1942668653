"""Shoe compositions: how many cards of each rank are left.

A composition is 13 counts, Ace to King.  Every figure of the analysis is a
count of ordered six-card sequences dealt from it, so a composition needs at
least six cards.

>>> eight = Composition.of_decks(8)
>>> eight.total, eight.by_value[0], eight.sequences
(416, 128, 4998398275503360)
>>> Composition.parse("4,4,4,4,4,4,4,4,4,4,4,4,4").counts == Composition.of_decks(1).counts
True
>>> eight.without(Rank.SIX).counts[5], eight.without(Rank.SIX).decks
(31, None)
>>> Composition.parse("1,2,3")
Traceback (most recent call last):
...
punto.analysis.composition.CompositionError: a composition has 13 counts (A,2,3,4,5,6,7,8,9,10,J,Q,K), got 3; e.g. --counts 32,32,32,32,32,32,32,32,32,32,32,32,32
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from punto.errors import PuntoError
from punto.rules.cards import Card, Rank

#: Ace to King, the order of a composition's counts.
RANKS: tuple[Rank, ...] = tuple(Rank)

#: The heading of a composition's counts.
RANK_HEADINGS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

_EXAMPLE = "e.g. --counts " + ",".join(["32"] * 13)


class CompositionError(PuntoError, ValueError):
    """A shoe composition that cannot be analysed."""


@dataclass(frozen=True, slots=True)
class Composition:
    """Cards left of each rank, Ace to King; ``decks`` when it is a full shoe."""

    counts: tuple[int, ...]
    decks: int | None = None

    def __post_init__(self) -> None:
        if len(self.counts) != 13:
            raise CompositionError(
                f"a composition has 13 counts (A,2,3,4,5,6,7,8,9,10,J,Q,K), got {len(self.counts)}",
                hint=_EXAMPLE,
            )
        if any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in self.counts):
            raise CompositionError(
                f"rank counts must be whole numbers of at least 0, got {list(self.counts)}",
                hint=_EXAMPLE,
            )
        if sum(self.counts) < 6:
            raise CompositionError(
                f"a composition of {sum(self.counts)} cards cannot deal a coup: every coup is "
                f"counted as a sequence of six cards",
                hint="give at least six cards",
            )

    @classmethod
    def of_decks(cls, decks: int) -> Composition:
        """A full shoe of ``decks`` 52-card decks."""
        if decks < 1:
            raise CompositionError(f"a shoe needs at least one deck, not {decks}")
        return cls((4 * decks,) * 13, decks)

    @classmethod
    def parse(cls, text: str) -> Composition:
        """13 counts separated by commas or spaces, Ace to King."""
        fields = text.replace(",", " ").split()
        try:
            counts = tuple(int(field) for field in fields)
        except ValueError:
            raise CompositionError(
                f"cannot read the composition {text.strip()!r}: counts are whole numbers",
                hint=_EXAMPLE,
            ) from None
        return cls(counts)

    @classmethod
    def of_cards(cls, cards: Iterable[Card]) -> Composition:
        """The composition of a list of cards (e.g. the rest of a shoe)."""
        counts = [0] * 13
        for card in cards:
            counts[card.rank - 1] += 1
        return cls(tuple(counts))

    @property
    def total(self) -> int:
        """Cards in the shoe."""
        return sum(self.counts)

    @property
    def by_value(self) -> tuple[int, ...]:
        """Cards of each point value 0 to 9."""
        values = [0] * 10
        for rank, count in zip(RANKS, self.counts, strict=True):
            values[rank.points] += count
        return tuple(values)

    @property
    def sequences(self) -> int:
        """Ordered six-card sequences: the total every count is out of."""
        return falling(self.total, 6)

    def without(self, *removed: Card | Rank) -> Composition:
        """The composition with these cards (or one card of these ranks) taken out."""
        counts = list(self.counts)
        for item in removed:
            rank = item.rank if isinstance(item, Card) else item
            if counts[rank - 1] == 0:
                raise CompositionError(
                    f"no {RANK_HEADINGS[rank - 1]} is left in the shoe to take out",
                    hint="the cards on the table must come from the shoe",
                )
            counts[rank - 1] -= 1
        return Composition(tuple(counts))

    def text(self) -> str:
        """The ``--counts`` form."""
        return ",".join(str(c) for c in self.counts)

    def to_json(self) -> list[int]:
        return list(self.counts)


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1), the number of ordered draws of k cards from n.

    >>> falling(416, 6), falling(5, 6)
    (4998398275503360, 0)
    """
    result = 1
    for i in range(k):
        result *= max(n - i, 0)
    return result


def parse_counts_lines(lines: Sequence[str], source: str) -> list[Composition]:
    """Compositions, one a line; blank lines and ``#`` comments are skipped.

    >>> [c.total for c in parse_counts_lines(["# two shoes", "4,4,4,4,4,4,4,4,4,4,4,4,4", ""], "f")]
    [52]
    >>> parse_counts_lines(["1 2 3"], "shoes.txt")
    Traceback (most recent call last):
    ...
    punto.analysis.composition.CompositionError: shoes.txt line 1: a composition has 13 counts (A,2,3,4,5,6,7,8,9,10,J,Q,K), got 3; e.g. --counts 32,32,32,32,32,32,32,32,32,32,32,32,32
    """
    found = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            found.append(Composition.parse(text))
        except CompositionError as error:
            raise CompositionError(
                f"{source} line {number}: {error.message}", clause=error.clause, hint=error.hint
            ) from None
    if not found:
        raise CompositionError(f"{source} holds no composition", hint="one composition a line")
    return found
