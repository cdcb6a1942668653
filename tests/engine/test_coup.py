"""Dealing a coup (Tiger Baccarat 3.13-3.16): Deal, Coup, deal, cards_needed,
and the errors for too few or too many cards."""

from __future__ import annotations

import pytest

from punto.errors import DealError
from punto.rules.cards import Card, parse_cards
from punto.rules.coup import Coup, Deal, Hand, Side, Winner, cards_needed, deal

P, B = Side.PLAYER, Side.BANKER


def _sides(text: str) -> list[Side | None]:
    """``next_side`` before each card of ``text`` and after the last."""
    state = Deal()
    sides: list[Side | None] = []
    for card in parse_cards(text):
        sides.append(state.next_side)
        state = state.add(card)
    sides.append(state.next_side)
    return sides


# --- who gets each card -------------------------------------------------------------------


def test_3_13_initial_deal_alternates_player_banker() -> None:
    assert Deal().next_side is P
    assert _sides("5S 5H 5D")[:4] == [P, B, P, B]


@pytest.mark.parametrize(
    ("cards", "sides"),
    [
        ("9H 2C KD 6S", [P, B, P, B, None]),  # Player natural 9
        ("2H 8C 4D KS", [P, B, P, B, None]),  # Banker natural 8 stops the Player's 6
        ("3H KC 4D 7S", [P, B, P, B, None]),  # Player 7 and Banker 7 stand
        ("3H 2C 3D 2S 9H", [P, B, P, B, B, None]),  # Player 6 stands, Banker 4 draws
        ("2H 3C 2D 3S 8H", [P, B, P, B, P, None]),  # Banker 6 stands on a third 8
        ("2H 3C 2D 3S 7H 9D", [P, B, P, B, P, B, None]),  # Banker 6 draws on a third 7
    ],
)
def test_deal_next_side_sequence(cards: str, sides: list[Side | None]) -> None:
    assert _sides(cards) == sides


def test_deal_next_side_banker_0_to_2_always_draws() -> None:
    assert _sides("AH 2C AD TS 8C 4D") == [P, B, P, B, P, B, None]


def test_deal_is_immutable_and_keeps_each_state() -> None:
    empty = Deal()
    one = empty.add(Card.parse("5S"))
    assert empty.cards == ()
    assert one.cards == (Card.parse("5S"),)
    assert one.next_side is B
    with pytest.raises(AttributeError):
        one.cards = ()  # type: ignore[misc]


def test_deal_hands_and_player_third() -> None:
    state = Deal(parse_cards("2H 3C 2D 3S 7H"))
    assert state.player == Hand(parse_cards("2H 2D 7H"))
    assert state.banker == Hand(parse_cards("3C 3S"))
    assert state.player_third == Card.parse("7H")
    assert state.is_initial_deal_done
    assert not state.is_complete
    assert state.can_add()
    assert Deal(parse_cards("2H 3C 2D")).player_third is None
    assert not Deal(parse_cards("2H 3C 2D")).is_initial_deal_done
    # a Player who stood has no third card, even when the Banker draws
    stood = Deal(parse_cards("3H 2C 3D 2S 9H"))
    assert stood.player_third is None
    assert stood.banker.cards == parse_cards("2C 2S 9H")


def test_add_to_a_complete_deal_is_refused() -> None:
    state = Deal(parse_cards("9H 2C KD 6S"))
    assert state.is_complete
    assert not state.can_add()
    with pytest.raises(DealError, match="is complete: the Table of Play deals no more cards"):
        state.check_add()
    with pytest.raises(DealError, match="start a new coup"):
        state.add(Card.parse("5S"))


# --- naturals, totals, winner -------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "natural", "player", "banker", "winner"),
    [
        ("9H 2C KD 6S", True, 9, 8, Winner.PLAYER),  # both natural: 9 over 8
        ("4H 5C 4D 3S", True, 8, 8, Winner.TIE),  # two naturals of 8
        ("2H 8C 4D KS", True, 6, 8, Winner.BANKER),
        ("TH 9C JD QS", True, 0, 9, Winner.BANKER),
        ("3H KC 4D 7S", False, 7, 7, Winner.TIE),  # both stand, no natural
        ("7H 8C 9D 9S", False, 6, 7, Winner.BANKER),  # 16 and 17 read as 6 and 7 (3.4.2)
    ],
)
def test_1_1_6_naturals_and_3_16_winner(
    cards: str, natural: bool, player: int, banker: int, winner: Winner
) -> None:
    coup = Coup.parse(cards)
    assert coup.natural is natural
    assert (coup.player.total, coup.banker.total) == (player, banker)
    assert coup.winner is winner


def test_natural_only_on_the_initial_deal() -> None:
    """A three-card 8 or 9 is not a Natural (1.1.6: 'in the initial deal')."""
    coup = Coup.parse("2H 3C 2D 3S 5H")  # Player 4 + 5 = 9, Banker 6 stands on a 5
    assert coup.player.total == 9
    assert not coup.natural


def test_coup_class_and_hand() -> None:
    coup = Coup.parse("QH 9C 2D 6S 8H")  # Player 0+2+8 = 0, Banker 9+6 = 5 stands on 8
    assert coup.coup_class == (0, 5, 3, 2)
    assert coup.hand(Side.PLAYER) is coup.player
    assert coup.hand(Side.BANKER) is coup.banker
    assert coup.player.cards == parse_cards("QH 2D 8H")
    assert coup.winner is Winner.BANKER


def test_coup_text_equality_and_hash() -> None:
    coup = Coup.parse("q♥ 9c 2d 6s 8h")
    assert str(coup) == "QH 9C 2D 6S 8H"
    assert repr(coup) == "Coup.parse('QH 9C 2D 6S 8H')"
    assert coup == Coup.parse("QH 9C 2D 6S 8H")
    assert coup != Coup.parse("KH 9C 2D 6S 8H")
    assert coup != "QH 9C 2D 6S 8H"
    assert len({coup, Coup.parse("QH,9C,2D,6S,8H")}) == 1


def test_side_other() -> None:
    assert Side.PLAYER.other is Side.BANKER
    assert Side.BANKER.other is Side.PLAYER


# --- too few, too many ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("", "the Table of Play needs at least 4 cards, got 0"),
        ("QH 9C 2D", "the Table of Play needs at least 4 cards, got 3"),
        ("2H 3C 2D 3S", "the Table of Play needs 5 cards for 2H 3C 2D 3S, got 4"),
        ("3H 2C 3D 2S", "the Table of Play needs 5 cards for 3H 2C 3D 2S, got 4"),
        ("2H 3C 2D 3S 7H", "the Table of Play needs 6 cards for 2H 3C 2D 3S 7H, got 5"),
    ],
)
def test_too_few_cards_say_how_many_the_table_of_play_needs(cards: str, message: str) -> None:
    with pytest.raises(DealError) as caught:
        Coup.from_cards(parse_cards(cards))
    assert str(caught.value).startswith("too few cards: " + message)
    assert caught.value.clause == "Table of Play"
    assert "give the cards of one coup in shoe order" in str(caught.value)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("9H 2C 9D 6S 8H", "the Table of Play deals 4 cards for 9H 2C 9D 6S, got 5"),
        ("9H 2C 9D 6S 8H 8D", "the Table of Play deals 4 cards for 9H 2C 9D 6S, got 6"),
        ("3H 2C 3D 2S 9H 4D", "the Table of Play deals 5 cards for 3H 2C 3D 2S 9H, got 6"),
        ("2H 3C 2D 3S 8H 4D", "the Table of Play deals 5 cards for 2H 3C 2D 3S 8H, got 6"),
        ("2H 3C 2D 3S 7H 9D 5C", "the Table of Play deals 6 cards for 2H 3C 2D 3S 7H 9D, got 7"),
    ],
)
def test_too_many_cards_say_how_many_the_table_of_play_deals(cards: str, message: str) -> None:
    with pytest.raises(DealError) as caught:
        Coup.from_cards(parse_cards(cards))
    assert str(caught.value).startswith("too many cards: " + message)
    assert caught.value.clause == "Table of Play"
    with pytest.raises(DealError, match="too many cards"):
        Deal(parse_cards(cards))


def test_coup_constructor_refuses_an_incomplete_coup() -> None:
    with pytest.raises(DealError, match="not a complete coup: the Table of Play needs 5 cards"):
        Coup(parse_cards("2H 3C 2D 3S"))
    with pytest.raises(DealError, match="needs at least 4 cards, got 2"):
        Coup(parse_cards("2H 3C"))


def test_to_coup_of_an_unfinished_deal_is_refused() -> None:
    with pytest.raises(DealError, match="the coup is not complete: the Table of Play needs 6"):
        Deal(parse_cards("2H 3C 2D 3S 7H")).to_coup()


# --- cards_needed ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "needed"),
    [
        ("", 4),
        ("2H", 4),
        ("2H 3C 2D", 4),
        ("9H 2C KD 6S", 4),  # natural
        ("3H KC 4D 7S", 4),  # both stand
        ("2H 3C 2D 3S", 5),  # the Player draws: at least five, the third card says more
        ("3H 2C 3D 2S", 5),  # the Player stands, the Banker draws: exactly five
        ("3H 2C 3D 2S 9H", 5),
        ("2H 3C 2D 3S 8H", 5),  # Banker 6 stands on an 8
        ("2H 3C 2D 3S 7H", 6),  # Banker 6 draws on a 7
        ("2H 3C 2D 3S 7H 9D", 6),
    ],
)
def test_cards_needed(cards: str, needed: int) -> None:
    assert cards_needed(parse_cards(cards)) == needed


# --- deal from a source ------------------------------------------------------------------------


def test_deal_takes_only_the_cards_of_one_coup() -> None:
    source = iter(parse_cards("QH 9C 2D 6S 8H 7D 7C"))
    coup = deal(source)
    assert coup == Coup.parse("QH 9C 2D 6S 8H")
    assert list(source) == list(parse_cards("7D 7C"))


def test_deal_from_a_list_and_successive_coups() -> None:
    cards = parse_cards("9H 2C KD 6S 3H 2C 3D 2S 9H 2H 3C 2D 3S 7H 9D")
    source = iter(cards)
    coups = [deal(source) for _ in range(3)]
    assert [len(c.cards) for c in coups] == [4, 5, 6]
    assert sum((c.cards for c in coups), ()) == cards
    assert deal(cards) == coups[0]


def test_5_3_deal_with_insufficient_cards() -> None:
    with pytest.raises(DealError) as caught:
        deal(parse_cards("2H 3C 2D 3S 7H"))
    assert caught.value.clause == "5.3"
    assert "after 2H 3C 2D 3S 7H" in str(caught.value)
    assert "void" in str(caught.value)
    with pytest.raises(DealError, match="after no cards"):
        deal([])


def test_hand_repr_total_and_count() -> None:
    hand = Hand(parse_cards("7H 8D"))
    assert repr(hand) == "Hand('7H 8D')"
    assert hand.total == 5
    assert hand.card_count == 2
    assert Hand(()).total == 0
