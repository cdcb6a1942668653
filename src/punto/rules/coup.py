"""Dealing a coup by the Table of Play, from any source of cards.

A :class:`Deal` is a coup in progress: the cards so far, in shoe order, and
who gets the next one.  A finished deal is a :class:`Coup`.  Cards come from a
:class:`~punto.rules.shoe.Shoe` or from outside (a dealer keying them in, a
card-reading shoe); either way the Table of Play decides where each goes.

>>> coup = Coup.from_cards(parse_cards("QH 9C 2D 6S 8H"))
>>> coup.player, coup.banker, coup.winner
(Hand('QH 2D 8H'), Hand('9C 6S'), <Winner.BANKER: 'banker'>)
>>> Deal().add(Card.parse("5S")).next_side
<Side.BANKER: 'banker'>
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from punto.errors import DealError
from punto.rules.cards import Card, format_cards, parse_cards
from punto.rules.tableau import banker_draws, is_natural, player_draws, point_total


class Side(enum.Enum):
    """The two hands."""

    PLAYER = "player"
    BANKER = "banker"

    @property
    def other(self) -> Side:
        return Side.BANKER if self is Side.PLAYER else Side.PLAYER


class Winner(enum.Enum):
    """Which hand won the coup, or a Tie."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


@dataclass(frozen=True, slots=True)
class Hand:
    """The cards dealt to one hand, in the order dealt."""

    cards: tuple[Card, ...]

    @property
    def total(self) -> int:
        """Point total (3.4)."""
        return point_total(sum(card.value for card in self.cards))

    @property
    def card_count(self) -> int:
        return len(self.cards)

    def __repr__(self) -> str:
        return f"Hand({format_cards(self.cards)!r})"


@dataclass(frozen=True, slots=True)
class Deal:
    """A coup being dealt: the cards so far, in shoe order.

    Immutable: :meth:`add` returns the next state, so a live round can keep
    every state it passed through.
    """

    cards: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        for n in range(4, len(self.cards)):
            if _next_side(self.cards[:n]) is None:
                raise DealError(
                    f"too many cards: the Table of Play deals {n} cards for "
                    f"{format_cards(self.cards[:n])}, got {len(self.cards)}",
                    clause="Table of Play",
                    hint="give the cards of one coup in shoe order",
                )

    @property
    def player(self) -> Hand:
        return self._hand(Side.PLAYER)

    @property
    def banker(self) -> Hand:
        return self._hand(Side.BANKER)

    def _hand(self, side: Side) -> Hand:
        sides = _sides(self.cards)
        return Hand(tuple(c for c, s in zip(self.cards, sides, strict=True) if s is side))

    @property
    def next_side(self) -> Side | None:
        """The hand that receives the next card, or None when the coup is complete."""
        return _next_side(self.cards)

    @property
    def is_complete(self) -> bool:
        return self.next_side is None

    @property
    def is_initial_deal_done(self) -> bool:
        """The four cards of the initial deal are out (1.1.5)."""
        return len(self.cards) >= 4

    @property
    def player_third(self) -> Card | None:
        """The Player's third card, once dealt."""
        hand = self.player.cards
        return hand[2] if len(hand) == 3 else None

    def can_add(self) -> bool:
        return not self.is_complete

    def check_add(self) -> None:
        if self.is_complete:
            raise DealError(
                f"the coup {format_cards(self.cards)} is complete: the Table of Play deals "
                f"no more cards",
                clause="Table of Play",
                hint="start a new coup",
            )

    def add(self, card: Card) -> Deal:
        """The deal with ``card`` given to whichever hand the Table of Play says."""
        self.check_add()
        return Deal((*self.cards, card))

    def to_coup(self) -> Coup:
        if not self.is_complete:
            raise DealError(
                f"the coup is not complete: {_need_text(self.cards)}",
                clause="Table of Play",
            )
        return Coup(self.cards)


class Coup:
    """A finished coup: every card the Table of Play calls for, and no more."""

    __slots__ = ("__dict__", "cards")

    def __init__(self, cards: tuple[Card, ...]) -> None:
        if _next_side(cards) is not None or len(cards) < 4:
            raise DealError(f"not a complete coup: {_need_text(cards)}", clause="Table of Play")
        self.cards = cards

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> Coup:
        """Exactly the cards of one coup, in shoe order.

        >>> Coup.from_cards(parse_cards("QH 9C 2D"))
        Traceback (most recent call last):
        ...
        punto.errors.DealError: too few cards: the Table of Play needs at least 4 cards, got 3 (Table of Play); give the cards of one coup in shoe order
        >>> Coup.from_cards(parse_cards("9H 2C 9D 6S 8H"))
        Traceback (most recent call last):
        ...
        punto.errors.DealError: too many cards: the Table of Play deals 4 cards for 9H 2C 9D 6S, got 5 (Table of Play); give the cards of one coup in shoe order
        """
        given = tuple(cards)
        deal = Deal(given)  # refuses cards past the end of the coup
        if not deal.is_complete:
            raise DealError(
                f"too few cards: {_need_text(given)}",
                clause="Table of Play",
                hint="give the cards of one coup in shoe order",
            )
        return deal.to_coup()

    @classmethod
    def parse(cls, text: str) -> Coup:
        """Read a coup from its text form, which :func:`str` gives back.

        >>> str(Coup.parse("QH 9C 2D 6S 8H"))
        'QH 9C 2D 6S 8H'
        """
        return cls.from_cards(parse_cards(text))

    @cached_property
    def _deal(self) -> Deal:
        return Deal(self.cards)

    @cached_property
    def player(self) -> Hand:
        return self._deal.player

    @cached_property
    def banker(self) -> Hand:
        return self._deal.banker

    def hand(self, side: Side) -> Hand:
        return self.player if side is Side.PLAYER else self.banker

    @cached_property
    def winner(self) -> Winner:
        """The hand with the higher point total, or a Tie."""
        p, b = self.player.total, self.banker.total
        if p > b:
            return Winner.PLAYER
        if b > p:
            return Winner.BANKER
        return Winner.TIE

    @property
    def natural(self) -> bool:
        """A two-card total of eight or nine ended the deal."""
        return len(self.cards) == 4 and _initial_natural(self.cards)

    @property
    def coup_class(self) -> tuple[int, int, int, int]:
        """(player total, banker total, player cards, banker cards): all that
        any non-pair wager looks at."""
        return (
            self.player.total,
            self.banker.total,
            self.player.card_count,
            self.banker.card_count,
        )

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __repr__(self) -> str:
        return f"Coup.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Coup) and self.cards == other.cards

    def __hash__(self) -> int:
        return hash(self.cards)


def deal(source: Iterator[Card] | Iterable[Card]) -> Coup:
    """Deal one coup, taking cards from ``source`` as the Table of Play asks.

    >>> deal(iter(parse_cards("QH 9C 2D 6S 8H 7D 7C")))
    Coup.parse('QH 9C 2D 6S 8H')
    """
    it = iter(source)
    state = Deal()
    while not state.is_complete:
        try:
            card = next(it)
        except StopIteration:
            raise DealError(
                f"insufficient cards to complete the coup after {format_cards(state.cards) or 'no cards'}",
                clause="5.3",
                hint="the round of play is void",
            ) from None
        state = state.add(card)
    return state.to_coup()


def _initial_natural(cards: tuple[Card, ...]) -> bool:
    p = point_total(cards[0].value + cards[2].value)
    b = point_total(cards[1].value + cards[3].value)
    return is_natural(p, b)


def _sides(cards: tuple[Card, ...]) -> Iterator[Side]:
    for n in range(len(cards)):
        side = _next_side(cards[:n])
        assert side is not None
        yield side


def _next_side(cards: tuple[Card, ...]) -> Side | None:
    n = len(cards)
    if n < 4:
        return Side.PLAYER if n % 2 == 0 else Side.BANKER
    p = point_total(cards[0].value + cards[2].value)
    b = point_total(cards[1].value + cards[3].value)
    if player_draws(p, b):
        if n == 4:
            return Side.PLAYER
        if n == 5 and banker_draws(p, b, cards[4].value):
            return Side.BANKER
        return None
    if n == 4 and banker_draws(p, b, None):
        return Side.BANKER
    return None


def cards_needed(cards: tuple[Card, ...]) -> int:
    """How many cards the coup takes in all, as far as the cards so far tell.

    With fewer than four cards that is at least four; once the hands show
    their totals it is exact (4, 5 or 6) until the Player's third card, which
    settles whether the Banker draws.
    """
    n = 4
    while n <= len(cards) and _next_side(cards[:n]) is not None:
        n += 1
    return n


def _need_text(cards: tuple[Card, ...]) -> str:
    needed = cards_needed(cards)
    if len(cards) < 4:
        return f"the Table of Play needs at least {needed} cards, got {len(cards)}"
    return f"the Table of Play needs {needed} cards for {format_cards(cards)}, got {len(cards)}"
