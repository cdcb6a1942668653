"""The shoe: deck counts per game (2.1; Tiger Buffalo 2.2.1), shuffling,
the cut card (3.22), burning, counts, the commitment, and an empty shoe (5.3)."""

from __future__ import annotations

from collections import Counter

import pytest

from punto.errors import DealError, DeckCountError, ShoeError
from punto.rules.cards import DECK, Card, Rank, parse_cards
from punto.rules.coup import deal
from punto.rules.game import Game
from punto.rules.games import all_games, get_game
from punto.rules.shoe import DeckRange, Shoe, commitment_of, verify_commitment

GAMES = all_games()
DECK_CLAUSE = {
    "tiger-baccarat": "2.1",
    "tiger-no-commission": "2.1",
    "tiger-buffalo": "2.2.1",
    "baccarat-tournament": "2.1",
    "dragon-tiger": "2.1",
}


def test_every_game_has_a_deck_clause() -> None:
    assert {g.id for g in GAMES} == set(DECK_CLAUSE)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("decks", range(4, 11))
def test_2_1_four_to_ten_decks_allowed(game: Game, decks: int) -> None:
    shoe = game.new_shoe(decks, seed=decks)
    assert len(shoe) == 52 * decks
    assert Counter(parse_cards(str(shoe))) == Counter(dict.fromkeys(DECK, decks))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("decks", [0, 1, 3, 11, 12])
def test_2_1_other_deck_counts_refused_citing_the_clause(game: Game, decks: int) -> None:
    clause = DECK_CLAUSE[game.id]
    with pytest.raises(DeckCountError) as caught:
        game.new_shoe(decks, seed=1)
    assert caught.value.clause == clause
    message = str(caught.value)
    assert f"(clause {clause})" in message
    assert f"a shoe of {decks} decks is not allowed" in message
    assert "choose between 4 and 10 decks" in message


def test_tiger_buffalo_2_2_1_deck_count_clause() -> None:
    with pytest.raises(DeckCountError, match=r"\(clause 2\.2\.1\)"):
        get_game("tiger-buffalo").new_shoe(3)


def test_shoe_without_a_range_needs_at_least_one_deck() -> None:
    assert len(Shoe.shuffled(1, seed=0)) == 52
    with pytest.raises(DeckCountError, match="at least one deck"):
        Shoe.shuffled(0)


def test_deck_range_check() -> None:
    rng = DeckRange(4, 10, "2.1")
    rng.check(4)
    rng.check(10)
    with pytest.raises(DeckCountError, match="4 to 10"):
        rng.check(11)


def test_secure_shuffle_without_seed_differs_between_shoes() -> None:
    first, second = Shoe.shuffled(8), Shoe.shuffled(8)
    assert str(first) != str(second)
    assert first.commitment != second.commitment
    assert first.reveal()[0] != second.reveal()[0]  # fresh nonces
    # and it is a shuffle: not the deck order
    assert parse_cards(str(first)) != DECK * 8
    assert Counter(parse_cards(str(first))) == Counter(DECK * 8)


def test_seeded_shuffle_is_reproducible() -> None:
    a = Shoe.shuffled(6, seed="audit-17")
    b = Shoe.shuffled(6, seed="audit-17")
    c = Shoe.shuffled(6, seed="audit-18")
    assert str(a) == str(b)
    assert a.commitment == b.commitment
    assert a.reveal() == b.reveal()
    assert str(a) != str(c)
    assert a.commitment != c.commitment


def test_commitment_verifies_and_detects_any_change() -> None:
    shoe = Shoe.shuffled(4, seed=42)
    nonce, order = shoe.reveal()
    assert order == str(shoe)
    assert shoe.commitment == commitment_of(nonce, order)
    assert verify_commitment(shoe.commitment, nonce, order)
    # the order may be written in any accepted form
    pretty = " ".join(card.pretty() for card in parse_cards(order))
    assert verify_commitment(shoe.commitment, nonce, pretty)
    cards = list(parse_cards(order))
    j = next(i for i in range(1, len(cards)) if cards[i] != cards[0])
    cards[0], cards[j] = cards[j], cards[0]
    assert not verify_commitment(shoe.commitment, nonce, " ".join(map(str, cards)))
    assert not verify_commitment(shoe.commitment, "0" * 64, order)
    assert not verify_commitment("0" * 64, nonce, order)


def test_commitment_does_not_change_as_cards_are_drawn() -> None:
    shoe = Shoe.shuffled(4, seed=5)
    before = shoe.commitment
    shoe.draw()
    shoe.burn(3)
    assert shoe.commitment == before
    nonce, order = shoe.reveal()
    assert len(parse_cards(order)) == 208
    assert verify_commitment(before, nonce, order)


@pytest.mark.clause("tiger-buffalo", "1.8")
def test_parse_and_draw_in_order() -> None:
    shoe = Shoe.parse("QH 9C 2D")
    assert str(shoe) == "QH 9C 2D"
    assert len(shoe) == 3
    assert [shoe.draw() for _ in range(3)] == list(parse_cards("QH 9C 2D"))
    assert len(shoe) == 0
    assert shoe.position == 3


def test_5_3_empty_shoe_draw_raises_shoe_error_citing_the_clause() -> None:
    shoe = Shoe.parse("QH")
    shoe.draw()
    with pytest.raises(ShoeError) as caught:
        shoe.draw()
    assert caught.value.clause == "5.3"
    assert "(clause 5.3)" in str(caught.value)
    assert "void" in str(caught.value)
    assert list(Shoe.parse("")) == []


def test_5_3_insufficient_cards_for_a_coup_void_the_round() -> None:
    shoe = Shoe.parse("2H 3C 2D 3S")  # Player 4 must draw, and the shoe is out
    with pytest.raises(DealError) as caught:
        deal(shoe)
    assert caught.value.clause == "5.3"
    assert "2H 3C 2D 3S" in str(caught.value)


def test_burn_takes_cards_out_of_play_in_order() -> None:
    shoe = Shoe.parse("AS 2S 3S 4S 5S 6S")
    burned = shoe.burn(3)
    assert burned == parse_cards("AS 2S 3S")
    assert shoe.burned == list(burned)
    assert shoe.position == 3
    assert len(shoe) == 3
    assert shoe.draw() == Card.parse("4S")
    assert shoe.burn(0) == ()
    with pytest.raises(ShoeError, match="cannot burn 3 cards: only 2 remain"):
        shoe.burn(3)
    assert len(shoe) == 2, "a refused burn takes nothing"


def test_3_22_cut_card() -> None:
    shoe = Shoe.parse("AS 2S 3S 4S 5S 6S", cut_card=2)
    assert not shoe.cut_card_reached
    shoe.draw()
    assert not shoe.cut_card_reached
    shoe.draw()
    assert not shoe.cut_card_reached, "in front of the next card, it has not come out yet"
    shoe.draw()
    assert shoe.cut_card_reached, "drawing the card behind it brings it out (3.22.1)"
    shoe.draw()
    assert shoe.cut_card_reached, "the cut card stays out once it has appeared"


def test_3_22_cut_card_counts_burned_cards() -> None:
    shoe = Shoe.shuffled(8, seed=3, cut_card=14)
    shoe.burn(14)
    assert not shoe.cut_card_reached
    shoe.draw()
    assert shoe.cut_card_reached


def test_cut_card_reached_mid_coup_lets_the_coup_finish() -> None:
    shoe = Shoe.parse("2H 2C 2D 3S 4H 5D 9H 9C", cut_card=3)
    coup = deal(shoe)
    assert shoe.cut_card_reached
    assert len(coup.cards) == 6
    assert shoe.position == 6


def test_no_cut_card_never_reached() -> None:
    shoe = Shoe.parse("AS 2S")
    shoe.burn(2)
    assert not shoe.cut_card_reached


@pytest.mark.parametrize("depth", [-1, 7])
def test_cut_card_outside_the_shoe_refused(depth: int) -> None:
    with pytest.raises(ShoeError, match="choose a depth from 0 to 6"):
        Shoe.parse("AS 2S 3S 4S 5S 6S", cut_card=depth)


def test_remaining_counts_by_rank_and_value() -> None:
    shoe = Shoe.shuffled(8, seed="counts")
    assert shoe.remaining_counts() == (32,) * 13
    assert shoe.remaining_by_value() == (128, *(32,) * 9)
    drawn = [shoe.draw() for _ in range(20)]
    counts = shoe.remaining_counts()
    for rank in Rank:
        assert counts[rank - 1] == 32 - sum(1 for c in drawn if c.rank is rank)
    assert sum(counts) == 416 - 20
    by_value = shoe.remaining_by_value()
    assert sum(by_value) == 416 - 20
    assert by_value[0] == 128 - sum(1 for c in drawn if c.value == 0)


def test_remaining_counts_small_shoe() -> None:
    shoe = Shoe.parse("KH KS 9D TC")
    assert shoe.remaining_counts()[Rank.KING - 1] == 2
    assert shoe.remaining_by_value() == (3, 0, 0, 0, 0, 0, 0, 0, 0, 1)
    shoe.draw()
    assert shoe.remaining_counts()[Rank.KING - 1] == 1
    assert shoe.remaining_by_value()[0] == 2


def test_shoe_is_an_iterator_of_its_cards() -> None:
    shoe = Shoe.parse("AS 2S 3S")
    assert iter(shoe) is shoe
    assert next(shoe) == Card.parse("AS")
    assert list(shoe) == list(parse_cards("2S 3S"))
