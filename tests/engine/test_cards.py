"""Cards, ranks and suits, and their text form (point values: 3.3)."""

from __future__ import annotations

import pytest

from punto.errors import CardError, PuntoError
from punto.rules.cards import DECK, Card, Rank, Suit, format_cards, parse_cards

QH = Card(Rank.QUEEN, Suit.HEARTS)
TS = Card(Rank.TEN, Suit.SPADES)


@pytest.mark.parametrize(
    ("token", "card"),
    [
        ("QH", QH),
        ("qh", QH),
        ("Qh", QH),
        ("Q♥", QH),
        ("q♥", QH),
        ("Q♡", QH),
        ("  QH ", QH),
        ("10S", TS),
        ("10s", TS),
        ("TS", TS),
        ("ts", TS),
        ("10♠", TS),
        ("T♤", TS),
        ("AD", Card(Rank.ACE, Suit.DIAMONDS)),
        ("a♦", Card(Rank.ACE, Suit.DIAMONDS)),
        ("2♢", Card(Rank.TWO, Suit.DIAMONDS)),
        ("9C", Card(Rank.NINE, Suit.CLUBS)),
        ("9♣", Card(Rank.NINE, Suit.CLUBS)),
        ("j♧", Card(Rank.JACK, Suit.CLUBS)),
        ("KS", Card(Rank.KING, Suit.SPADES)),
    ],
)
def test_card_parse_accepts_every_written_form(token: str, card: Card) -> None:
    assert Card.parse(token) == card


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("1S", "rank"),  # no rank 1: an Ace is A
        ("11H", "rank"),
        ("ZH", "rank"),
        ("QHH", "rank"),  # rank text 'QH'
        ("0S", "rank"),
        ("QX", "suit"),
        ("Q1", "suit"),
        ("10", "suit"),  # no suit: '1' is the rank, '0' is not a suit
        ("Q", "too short"),
        ("", "too short"),
        ("   ", "too short"),
    ],
)
def test_bad_card_token_gives_card_error_naming_the_token(token: str, why: str) -> None:
    with pytest.raises(CardError) as caught:
        Card.parse(token)
    message = str(caught.value)
    assert repr(token) in message, "the error names the token"
    assert why in message
    assert "QH, 10S, TS or Q♥" in message, "the error says how to write a card"


def test_card_error_is_a_value_error_and_a_punto_error() -> None:
    with pytest.raises(ValueError, match="'XX'"):
        Card.parse("XX")
    with pytest.raises(PuntoError):
        Card.parse("XX")


def test_parse_cards_names_the_bad_token_among_good_ones() -> None:
    with pytest.raises(CardError, match="'ZZ'"):
        parse_cards("QH ZZ 9C")


def test_parse_cards_splits_on_spaces_and_commas_or_takes_tokens() -> None:
    expected = (QH, TS, Card(Rank.NINE, Suit.CLUBS))
    assert parse_cards("QH 10S 9C") == expected
    assert parse_cards("QH,10S,9C") == expected
    assert parse_cards("QH, ts ,\t9♣\n") == expected
    assert parse_cards(["QH", "10S", "9C"]) == expected
    assert parse_cards(iter(["q♥", "T♠", "9c"])) == expected
    assert parse_cards("") == ()
    assert parse_cards([]) == ()


def test_format_cards_is_the_short_ascii_form() -> None:
    assert format_cards(parse_cards("q♥ 10s 9c a♦")) == "QH TS 9C AD"
    assert format_cards([]) == ""


def test_card_str_repr_and_pretty() -> None:
    assert str(TS) == "TS"
    assert repr(TS) == "Card.parse('TS')"
    assert TS.pretty() == "10♠"
    assert QH.pretty() == "Q♥"
    assert Card(Rank.ACE, Suit.CLUBS).pretty() == "A♣"
    assert Card(Rank.TWO, Suit.DIAMONDS).pretty() == "2♦"


@pytest.mark.parametrize(
    ("rank", "points"),
    [
        (Rank.ACE, 1),
        (Rank.TWO, 2),
        (Rank.FIVE, 5),
        (Rank.NINE, 9),
        (Rank.TEN, 0),
        (Rank.JACK, 0),
        (Rank.QUEEN, 0),
        (Rank.KING, 0),
    ],
)
def test_3_3_point_values(rank: Rank, points: int) -> None:
    """3.3.1 Ace one, Two to Nine face value; 3.3.2 Ten, Jack, Queen, King zero."""
    assert rank.points == points
    for suit in Suit:
        assert Card(rank, suit).value == points


def test_face_cards_are_jack_queen_king_only() -> None:
    assert [r for r in Rank if r.is_face] == [Rank.JACK, Rank.QUEEN, Rank.KING]


@pytest.mark.parametrize(
    ("text", "rank"),
    [("A", Rank.ACE), ("a", Rank.ACE), ("10", Rank.TEN), ("t", Rank.TEN), ("K", Rank.KING)],
)
def test_rank_parse(text: str, rank: Rank) -> None:
    assert Rank.parse(text) is rank


@pytest.mark.parametrize("text", ["1", "11", "X", "", "QH"])
def test_rank_parse_refuses_with_card_error(text: str) -> None:
    with pytest.raises(CardError, match="cannot read rank"):
        Rank.parse(text)


def test_deck_has_52_distinct_cards_of_each_rank_and_suit() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    for rank in Rank:
        assert sum(1 for c in DECK if c.rank is rank) == 4
    for suit in Suit:
        assert sum(1 for c in DECK if c.suit is suit) == 13
    assert sum(1 for c in DECK if c.value == 0) == 16


def test_cards_are_hashable_and_immutable() -> None:
    assert {Card.parse("QH"), Card.parse("q♥"), Card.parse("QH")} == {QH}
    with pytest.raises(AttributeError):
        QH.rank = Rank.KING  # type: ignore[misc]


def test_suit_symbols() -> None:
    assert {s.symbol for s in Suit} == {"♠", "♥", "♦", "♣"}
    assert Suit.HEARTS.symbol == "♥"
