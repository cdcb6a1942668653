"""Cards, ranks and suits, and their text form.

A card is written rank then suit: ``QH``, ``10S`` or ``TS``, ``Q♥``; case does
not matter on input.  Printing gives the short ASCII form, so a card's text
round-trips.

>>> card = Card.parse("q♥")
>>> card, str(card), card.value
(Card.parse('QH'), 'QH', 0)
>>> parse_cards("10S 9c A♦")
(Card.parse('TS'), Card.parse('9C'), Card.parse('AD'))
>>> Card.parse("1S")
Traceback (most recent call last):
...
punto.errors.CardError: cannot read card '1S': rank must be one of A 2 3 4 5 6 7 8 9 10/T J Q K; write a card as rank then suit, e.g. QH, 10S, TS or Q♥
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from punto.errors import CardError

_HOW = "write a card as rank then suit, e.g. QH, 10S, TS or Q♥"


class Rank(enum.IntEnum):
    """The thirteen ranks, numbered 1 (Ace) to 13 (King)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def points(self) -> int:
        """Point value (3.3): Ace one, Two to Nine face value, Ten and faces zero."""
        return int(self._value_) if self._value_ < 10 else 0

    @property
    def is_face(self) -> bool:
        """Jack, Queen or King: the 'face cards' of Tiger Baccarat 1.1.14."""
        return self._value_ > 10

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self._value_ - 1]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """``A``, ``2``..``9``, ``10`` or ``T``, ``J``, ``Q``, ``K`` (any case).

        >>> Rank.parse("t"), Rank.parse("10"), Rank.parse("a").points
        (<Rank.TEN: 10>, <Rank.TEN: 10>, 1)
        """
        key = text.strip().upper()
        if key == "10":
            key = "T"
        try:
            return cls(_RANK_SYMBOLS.index(key) + 1)
        except ValueError:
            raise CardError(
                f"cannot read rank {text!r}",
                hint="a rank is one of A 2 3 4 5 6 7 8 9 10/T J Q K",
            ) from None


_RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_BY_TEXT = {
    **{s.value: s for s in Suit},
    **{sym: s for s, sym in _SUIT_SYMBOLS.items()},
    "♤": Suit.SPADES,
    "♡": Suit.HEARTS,
    "♢": Suit.DIAMONDS,
    "♧": Suit.CLUBS,
}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card."""

    rank: Rank
    suit: Suit

    @property
    def value(self) -> int:
        """Point value of the card (3.3)."""
        return self.rank.points

    @classmethod
    def parse(cls, token: str) -> Card:
        text = token.strip()
        if len(text) < 2:
            raise CardError(f"cannot read card {token!r}: too short", hint=_HOW)
        rank_text, suit_text = text[:-1], text[-1].upper()
        suit = _SUIT_BY_TEXT.get(suit_text)
        if suit is None:
            raise CardError(
                f"cannot read card {token!r}: suit must be one of S H D C or ♠ ♥ ♦ ♣", hint=_HOW
            )
        key = rank_text.upper()
        if key == "10":
            key = "T"
        if key not in _RANK_SYMBOLS:
            raise CardError(
                f"cannot read card {token!r}: rank must be one of A 2 3 4 5 6 7 8 9 10/T J Q K",
                hint=_HOW,
            )
        return cls(Rank(_RANK_SYMBOLS.index(key) + 1), suit)

    def __str__(self) -> str:
        return self.rank.symbol + self.suit.value

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def pretty(self) -> str:
        """Rank with the suit symbol, ``10`` written out: ``10♠``."""
        rank = "10" if self.rank is Rank.TEN else self.rank.symbol
        return rank + self.suit.symbol


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Cards separated by spaces or commas, or an iterable of tokens."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(token) for token in tokens)


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of :func:`parse_cards`.

    >>> format_cards(parse_cards("QH 9C"))
    'QH 9C'
    """
    return " ".join(str(card) for card in cards)


#: One 52-card deck in a fixed order (by suit, then rank).
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
