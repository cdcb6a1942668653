"""The shoe: several decks shuffled together, a cut card, and a commitment.

A shuffled shoe publishes a SHA-256 commitment of its order before the first
coup; after the shoe, :meth:`Shoe.reveal` gives the nonce and the order, and
anyone can check them with :func:`verify_commitment`.

>>> shoe = Shoe.shuffled(8, seed="demo", cut_card=14)
>>> len(shoe), shoe.remaining_counts()[0]
(416, 32)
>>> nonce, order = shoe.reveal()
>>> verify_commitment(shoe.commitment, nonce, order)
True
>>> Shoe.shuffled(3, seed=1, deck_range=DeckRange(4, 10, "2.1"))
Traceback (most recent call last):
...
punto.errors.DeckCountError: a shoe of 3 decks is not allowed: the game is played with 4 to 10 decks (clause 2.1); choose between 4 and 10 decks
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from punto.errors import DeckCountError, ShoeError
from punto.rules.cards import DECK, Card, Rank, format_cards, parse_cards

_COMMITMENT_TAG = "punto-shoe-v1"


@dataclass(frozen=True, slots=True)
class DeckRange:
    """How many decks a game allows, and the clause that says so."""

    minimum: int
    maximum: int
    clause: str

    def check(self, decks: int) -> None:
        if not self.minimum <= decks <= self.maximum:
            raise DeckCountError(
                f"a shoe of {decks} decks is not allowed: the game is played with "
                f"{self.minimum} to {self.maximum} decks",
                clause=self.clause,
                hint=f"choose between {self.minimum} and {self.maximum} decks",
            )


class Shoe:
    """Cards in dealing order, a position in them, and an optional cut card.

    ``cut_card`` is the number of cards in front of the cut card: it appears
    when the card behind it is drawn, the current round is completed and the
    shoe ends after it (3.22) -- so a round may begin with it (3.22.1).
    """

    def __init__(
        self, cards: Sequence[Card], *, cut_card: int | None = None, nonce: str | None = None
    ) -> None:
        if cut_card is not None and not 0 <= cut_card <= len(cards):
            raise ShoeError(
                f"the cut card cannot go {cut_card} cards deep in a shoe of {len(cards)} cards",
                hint=f"choose a depth from 0 to {len(cards)}",
            )
        self._cards = tuple(cards)
        self._position = 0
        self.cut_card = cut_card
        self._nonce = nonce if nonce is not None else secrets.token_hex(32)
        self.commitment = commitment_of(self._nonce, format_cards(self._cards))
        self.burned: list[Card] = []

    @classmethod
    def shuffled(
        cls,
        decks: int,
        *,
        seed: int | str | None = None,
        cut_card: int | None = None,
        deck_range: DeckRange | None = None,
    ) -> Shoe:
        """A freshly shuffled shoe of ``decks`` decks.

        Without a seed the order comes from the operating system's secure
        random source; with one it is reproducible (for tests, audits and
        simulations), and so is the commitment nonce.
        """
        if deck_range is not None:
            deck_range.check(decks)
        elif decks < 1:
            raise DeckCountError(f"a shoe needs at least one deck, not {decks}")
        cards = list(DECK) * decks
        if seed is None:
            secrets.SystemRandom().shuffle(cards)
            nonce = None
        else:
            rng = random.Random(f"punto-shuffle:{seed}")
            rng.shuffle(cards)
            nonce = hashlib.sha256(f"punto-nonce:{seed}".encode()).hexdigest()
        return cls(cards, cut_card=cut_card, nonce=nonce)

    @classmethod
    def parse(cls, text: str, *, cut_card: int | None = None) -> Shoe:
        """A shoe in a given order (e.g. a recorded shoe being replayed).

        >>> str(Shoe.parse("QH 9C 2D"))
        'QH 9C 2D'
        """
        return cls(parse_cards(text), cut_card=cut_card)

    def __str__(self) -> str:
        return format_cards(self._cards)

    def __len__(self) -> int:
        """Cards not yet drawn."""
        return len(self._cards) - self._position

    def __iter__(self) -> Iterator[Card]:
        return self

    def __next__(self) -> Card:
        if self._position >= len(self._cards):
            raise StopIteration
        card = self._cards[self._position]
        self._position += 1
        return card

    def draw(self) -> Card:
        """The next card; an empty shoe cannot complete a round (5.3)."""
        try:
            return next(self)
        except StopIteration:
            raise ShoeError(
                "the shoe is empty", clause="5.3", hint="the round of play is void"
            ) from None

    @property
    def order(self) -> tuple[Card, ...]:
        """Every card of the shoe in dealing order, drawn or not."""
        return self._cards

    def peek(self) -> Card:
        """The next card, left in the shoe."""
        if self._position >= len(self._cards):
            raise ShoeError("the shoe is empty", clause="5.3", hint="the round of play is void")
        return self._cards[self._position]

    def burn(self, count: int) -> tuple[Card, ...]:
        """Take ``count`` cards out of play, face down."""
        if count > len(self):
            raise ShoeError(f"cannot burn {count} cards: only {len(self)} remain")
        cards = tuple(self.draw() for _ in range(count))
        self.burned.extend(cards)
        return cards

    @property
    def position(self) -> int:
        """Cards drawn so far (burned cards included)."""
        return self._position

    @property
    def cut_card_reached(self) -> bool:
        """The cut card has come out: finish this round, then end the shoe (3.22).

        It comes out when the card behind it is drawn, not when the last card
        in front of it is: a round that ends there is followed by one more,
        whose first card brings the cut card out (3.22.1).

        >>> shoe = Shoe.parse("AS 2S 3S 4S", cut_card=2)
        >>> shoe.burn(2) and shoe.cut_card_reached
        False
        >>> shoe.draw() and shoe.cut_card_reached
        True
        """
        return self.cut_card is not None and self._position > self.cut_card

    def remaining_counts(self) -> tuple[int, ...]:
        """Cards left of each rank, Ace to King (13 counts)."""
        counts = [0] * 13
        for card in self._cards[self._position :]:
            counts[card.rank - 1] += 1
        return tuple(counts)

    def remaining_by_value(self) -> tuple[int, ...]:
        """Cards left of each point value 0 to 9."""
        counts = [0] * 10
        for rank, n in zip(Rank, self.remaining_counts(), strict=True):
            counts[rank.points] += n
        return tuple(counts)

    def reveal(self) -> tuple[str, str]:
        """The nonce and the full order, to publish once the shoe is done."""
        return self._nonce, format_cards(self._cards)


def commitment_of(nonce: str, order: str) -> str:
    """SHA-256 of a tagged nonce and the shoe's order, as hex."""
    return hashlib.sha256(f"{_COMMITMENT_TAG}\n{nonce}\n{order}".encode()).hexdigest()


def verify_commitment(commitment: str, nonce: str, order: str) -> bool:
    """Whether a revealed nonce and order match a published commitment."""
    canonical = format_cards(parse_cards(order))
    return secrets.compare_digest(commitment, commitment_of(nonce, canonical))
