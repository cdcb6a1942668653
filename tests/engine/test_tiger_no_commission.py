"""Tiger No Commission Baccarat (MBS), Version 3 (rules file 001): sections 2-4.

Every coup is hand-picked in shoe order and worked out by hand (see
``tests/helpers.py``); stakes are 100 on Player/Banker and 10 on side bets.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from punto.errors import DeckCountError, WagerError
from punto.rules.cards import parse_cards
from punto.rules.coup import Coup, Deal, Hand
from punto.rules.established import decided
from punto.rules.games import get_game
from punto.rules.settlement import Bet, Outcome, settle
from punto.rules.wagers import PairRule
from tests.helpers import (
    BANKER_DRAWS_ON,
    BANKER_NATURAL_NINE,
    BANKER_PAIR,
    BANKER_SEVEN_OVER_SIX_FOUR_CARDS,
    BANKER_SIX_THREE_CARDS,
    BANKER_SIX_TWO_CARDS,
    DOUBLE_PAIR,
    NATURAL_TIE,
    PLAYER_NATURAL_NINE,
    PLAYER_PAIR,
    PLAYER_SEVEN_OVER_SIX_FOUR_CARDS,
    PUSHED,
    STAKE,
    TIE_ON_SIX,
    TWIN_PAIR,
    Case,
    Picked,
    banker_draws_after_third_card,
    banker_draws_when_player_stands,
    initial_deal,
    lose,
    lost,
    matrix,
    matrix_id,
    player_draws,
    push,
    settle_one,
    settled_by_every_ending,
    summary,
    wager_events,
    win,
    won,
)

GAME = get_game("tiger-no-commission")
WAGERS = {
    "player",
    "banker",
    "tie",
    "tiger_pair",
    "tiger",
    "small_tiger",
    "big_tiger",
    "tiger_tie",
}

#: P T+J=0; B 4+5=9 natural.  Not a pair here: 1.1.10 pairs by rank ("two 9's or two Q's").
TEN_JACK_PLAYER = Picked("TH 4C JD 5S", player=(0, 2), banker=(9, 2))
#: P T+T=0 draws 9 (9); B K+K=0 draws 8 (8).  Two pairs of zero-value cards, not the same pair.
TENS_AND_KINGS = Picked("TH KC TD KS 9H 8D", player=(9, 3), banker=(8, 3))
#: The four Tens of 4.2's example: P T+T=0 draws 9; B T+T=0 draws 8.  Player 9 v 8.
FOUR_TENS = Picked("TS TH TC TD 9H 8D", player=(9, 3), banker=(8, 3))


# -- 2 Mode of Play ----------------------------------------------------------------------


@pytest.mark.parametrize("decks", range(4, 11))
def test_tiger_no_commission_2_1_four_to_ten_decks(decks: int) -> None:
    assert len(GAME.new_shoe(decks, seed="nc")) == 52 * decks


@pytest.mark.parametrize("decks", [3, 11])
def test_tiger_no_commission_2_1_other_deck_counts_refused(decks: int) -> None:
    with pytest.raises(DeckCountError, match=r"4 to 10 decks \(clause 2\.1\)"):
        GAME.new_shoe(decks, seed="nc")


def test_tiger_no_commission_2_2_layouts_a_to_e() -> None:
    assert list(GAME.layouts) == ["A", "B", "C", "D", "E"]
    with pytest.raises(WagerError, match=r"clause 2\.2"):
        GAME.layout("F")


# -- 3 How to Play -----------------------------------------------------------------------


def test_tiger_no_commission_3_3_1_two_to_nine_face_value_ace_one() -> None:
    assert [c.value for c in parse_cards("AD 2D 3D 4D 5D 6D 7D 8D 9D")] == list(range(1, 10))


def test_tiger_no_commission_3_3_2_ten_and_face_cards_are_zero() -> None:
    assert [c.value for c in parse_cards("TD JD QD KD")] == [0, 0, 0, 0]


@pytest.mark.clause("tiger-no-commission", "1.1.5")
def test_tiger_no_commission_3_4_1_total_of_zero_to_nine_is_that_number() -> None:
    assert Hand(parse_cards("2C 4H")).total == 6


@pytest.mark.clause("tiger-no-commission", "1.1.5")
def test_tiger_no_commission_3_4_2_total_of_ten_or_more_is_the_right_digit() -> None:
    assert Hand(parse_cards("7C 9H")).total == 6
    assert Hand(parse_cards("KC 7H 3S")).total == 0


@pytest.mark.clause(
    "tiger-no-commission", "2.2.1", "2.2.2", "2.2.3", "2.2.4", "2.2.5", "2.2.6", "2.2.7", "2.2.8"
)
@pytest.mark.parametrize("layout", ["A", "B", "C", "D", "E"])
def test_tiger_no_commission_3_5_the_wagers(layout: str) -> None:
    assert set(GAME.offered(layout)) == WAGERS


def test_tiger_no_commission_3_5_wagers_played_individually_or_in_combination() -> None:
    coup = BANKER_SIX_THREE_CARDS.coup()
    alone = settle(GAME, coup, [Bet("big_tiger", Decimal(10))])
    together = settle(
        GAME,
        coup,
        [Bet("player", Decimal(100)), Bet("big_tiger", Decimal(10)), Bet("tie", Decimal(5))],
    )
    assert alone.results[0].net == together.results[1].net == Decimal("500.00")
    assert together.net == Decimal("395.00")


def test_tiger_no_commission_3_5_wager_not_in_the_game_refused() -> None:
    with pytest.raises(WagerError, match="offered: ") as refused:
        GAME.wager("player_pair", "A")
    assert all(wager in str(refused.value) for wager in WAGERS)


@pytest.mark.clause("tiger-no-commission", "1.1.2")
@pytest.mark.clause("tiger-no-commission", "3.6")
def test_tiger_no_commission_3_7_1_first_and_third_cards_are_the_player_hand() -> None:
    # P 5+K=5 draws 2 (7); B 6+K=6 stands on a 2.
    coup = Coup.parse("5H 6C KD KS 2D")
    assert coup.player.cards == parse_cards("5H KD 2D")


@pytest.mark.clause("tiger-no-commission", "1.1.2")
@pytest.mark.clause("tiger-no-commission", "3.6")
def test_tiger_no_commission_3_7_2_second_and_fourth_cards_are_the_banker_hand() -> None:
    coup = Coup.parse("5H 6C KD KS 2D")
    assert coup.banker.cards == parse_cards("6C KS")


def test_tiger_no_commission_3_8_the_four_cards_decide_tiger_pair() -> None:
    # P 2+3=5 draws 2 (7); B 3+K=3 draws 3 (6).  The third cards pair nothing.
    coup = Picked("2H 3C 3D KS 2S 3H", player=(7, 3), banker=(6, 3))
    assert summary(settle_one(GAME, coup, "tiger_pair")) == lost()


@pytest.mark.clause("tiger-no-commission", "1.1.4")
@pytest.mark.parametrize(("player_total", "banker_total"), [(8, 3), (9, 0), (6, 8), (2, 9)])
def test_tiger_no_commission_3_9_a_natural_ends_the_deal(
    player_total: int, banker_total: int
) -> None:
    assert initial_deal(player_total, banker_total).is_complete


def test_tiger_no_commission_3_9_player_draws_on_0_to_5_stands_on_6_or_7() -> None:
    assert [player_draws(p, 4) for p in range(8)] == [True] * 6 + [False] * 2


@pytest.mark.parametrize("banker_total", range(8))
def test_tiger_no_commission_3_9_banker_draws_by_the_player_third_card(banker_total: int) -> None:
    drawn_on = {t for t in range(10) if banker_draws_after_third_card(banker_total, t)}
    assert drawn_on == BANKER_DRAWS_ON[banker_total]


@pytest.mark.parametrize("player_total", [6, 7])
def test_tiger_no_commission_3_9_player_stands_banker_draws_on_0_to_5(player_total: int) -> None:
    draws = [banker_draws_when_player_stands(player_total, b) for b in range(8)]
    assert draws == [True] * 6 + [False] * 2


def test_tiger_no_commission_3_10_the_highest_point_total_wins() -> None:
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "banker", STAKE)) == won("win", "100.00")
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "player", STAKE)) == lost(STAKE)


@pytest.mark.clause("tiger-no-commission", "1.1.8")
def test_tiger_no_commission_3_10_1_a_tie_returns_player_and_banker() -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "player", STAKE)) == PUSHED
    assert summary(settle_one(GAME, NATURAL_TIE, "banker", STAKE)) == PUSHED
    assert summary(settle_one(GAME, TIE_ON_SIX, "banker", STAKE)) == PUSHED


@pytest.mark.clause("tiger-no-commission", "1.1.8")
def test_tiger_no_commission_3_10_1_tie_wins_but_tiger_tie_only_on_six() -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "tie")) == won("tie", "80.00")
    assert summary(settle_one(GAME, NATURAL_TIE, "tiger_tie")) == lost()
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger_tie")) == won("win", "350.00")


@pytest.mark.clause("tiger-no-commission", "1.1.9")
def test_tiger_no_commission_3_11_tiger_wins_when_banker_wins_with_six() -> None:
    assert settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger").event == "two_cards"
    assert settle_one(GAME, BANKER_SIX_THREE_CARDS, "tiger").event == "three_cards"
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger")) == lost()
    assert summary(settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "tiger")) == lost()


@pytest.mark.clause("tiger-no-commission", "1.1.7")
def test_tiger_no_commission_3_12_small_tiger_is_banker_six_on_two_cards() -> None:
    assert settle_one(GAME, BANKER_SIX_TWO_CARDS, "small_tiger").outcome is Outcome.WIN
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "small_tiger")) == lost()


@pytest.mark.clause("tiger-no-commission", "1.1.1")
def test_tiger_no_commission_3_13_big_tiger_is_banker_six_on_three_cards() -> None:
    assert settle_one(GAME, BANKER_SIX_THREE_CARDS, "big_tiger").outcome is Outcome.WIN
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "big_tiger")) == lost()


@pytest.mark.clause("tiger-no-commission", "1.1.11")
def test_tiger_no_commission_3_14_tiger_tie_is_a_tie_on_six() -> None:
    assert settle_one(GAME, TIE_ON_SIX, "tiger_tie").outcome is Outcome.WIN
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger_tie")) == lost()


# -- 4 Settlement ------------------------------------------------------------------------

PRINTED_PAYS = [
    ("banker", "win_on_six", Fraction(1, 2)),
    ("banker", "win", Fraction(1)),
    ("player", "win", Fraction(1)),
    ("tie", "tie", Fraction(8)),
    ("tiger_pair", "single", Fraction(4)),
    ("tiger_pair", "double", Fraction(20)),
    ("tiger_pair", "twin", Fraction(100)),
    ("tiger", "two_cards", Fraction(12)),
    ("tiger", "three_cards", Fraction(20)),
    ("small_tiger", "win", Fraction(22)),
    ("big_tiger", "win", Fraction(50)),
    ("tiger_tie", "win", Fraction(35)),
]


@pytest.mark.parametrize(("wager", "event", "odds"), PRINTED_PAYS)
def test_tiger_no_commission_4_pay_tables_as_printed(
    wager: str, event: str, odds: Fraction
) -> None:
    assert GAME.wagers[wager].pays[event].odds == odds


def test_tiger_no_commission_4_1_banker_winning_with_six_pays_1_to_2() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "banker", STAKE)) == won(
        "win_on_six", "50.00"
    )
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "banker", STAKE)) == won(
        "win_on_six", "50.00"
    )
    assert settle_one(GAME, BANKER_SIX_TWO_CARDS, "banker", Decimal(15)).net == Decimal("7.50")


@pytest.mark.parametrize(
    "picked", [BANKER_NATURAL_NINE, BANKER_SEVEN_OVER_SIX_FOUR_CARDS, BANKER_PAIR]
)
def test_tiger_no_commission_4_1_banker_winning_with_any_other_total_pays_1_to_1(
    picked: Picked,
) -> None:
    assert summary(settle_one(GAME, picked, "banker", STAKE)) == won("win", "100.00")


def test_tiger_no_commission_4_1_player_pays_1_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "player", STAKE)) == won("win", "100.00")


def test_tiger_no_commission_4_1_tie_pays_8_to_1() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tie", STAKE)) == won("tie", "800.00")


@pytest.mark.clause("tiger-no-commission", "1.1.10.1")
def test_tiger_no_commission_4_2_single_tiger_pair_pays_4_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_PAIR, "tiger_pair")) == won("single", "40.00")
    assert summary(settle_one(GAME, BANKER_PAIR, "tiger_pair")) == won("single", "40.00")


@pytest.mark.clause("tiger-no-commission", "1.1.10.2")
def test_tiger_no_commission_4_2_double_tiger_pair_pays_20_to_1() -> None:
    assert summary(settle_one(GAME, DOUBLE_PAIR, "tiger_pair")) == won("double", "200.00")


@pytest.mark.clause("tiger-no-commission", "1.1.10.3")
def test_tiger_no_commission_4_2_twin_tiger_pair_pays_100_to_1() -> None:
    assert summary(settle_one(GAME, TWIN_PAIR, "tiger_pair")) == won("twin", "1000.00")
    assert summary(settle_one(GAME, FOUR_TENS, "tiger_pair")) == won("twin", "1000.00")


@pytest.mark.clause("tiger-no-commission", "1.1.10")
def test_tiger_no_commission_4_2_pairs_are_by_rank() -> None:
    assert GAME.pair_rule is PairRule.RANK
    assert summary(settle_one(GAME, TEN_JACK_PLAYER, "tiger_pair")) == lost()
    assert summary(settle_one(GAME, TENS_AND_KINGS, "tiger_pair")) == won("double", "200.00")


def test_tiger_no_commission_4_3_tiger_on_two_cards_pays_12_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger")) == won("two_cards", "120.00")


def test_tiger_no_commission_4_3_tiger_on_three_cards_pays_20_to_1() -> None:
    result = settle_one(GAME, BANKER_SIX_THREE_CARDS, "tiger")
    assert summary(result) == won("three_cards", "200.00")


def test_tiger_no_commission_4_3_small_tiger_pays_22_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "small_tiger")) == won("win", "220.00")


@pytest.mark.clause("tiger-no-commission", "1.1.1")
def test_tiger_no_commission_4_3_big_tiger_pays_50_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "big_tiger")) == won("win", "500.00")


def test_tiger_no_commission_4_3_tiger_tie_pays_35_to_1() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger_tie")) == won("win", "350.00")


# -- Every wager x event, on every layout --------------------------------------------------

CASES = [
    win("player", "win", PLAYER_NATURAL_NINE, "100.00", STAKE),
    push("player", NATURAL_TIE),
    lose("player", BANKER_NATURAL_NINE, STAKE),
    win("banker", "win", BANKER_NATURAL_NINE, "100.00", STAKE),
    win("banker", "win_on_six", BANKER_SIX_TWO_CARDS, "50.00", STAKE),
    push("banker", TIE_ON_SIX),
    lose("banker", PLAYER_NATURAL_NINE, STAKE),
    win("tie", "tie", NATURAL_TIE, "80.00"),
    lose("tie", BANKER_SIX_TWO_CARDS),
    win("tiger_pair", "single", BANKER_PAIR, "40.00"),
    win("tiger_pair", "double", DOUBLE_PAIR, "200.00"),
    win("tiger_pair", "twin", TWIN_PAIR, "1000.00"),
    lose("tiger_pair", NATURAL_TIE),
    win("tiger", "two_cards", BANKER_SIX_TWO_CARDS, "120.00"),
    win("tiger", "three_cards", BANKER_SIX_THREE_CARDS, "200.00"),
    lose("tiger", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS),
    win("small_tiger", "win", BANKER_SIX_TWO_CARDS, "220.00"),
    lose("small_tiger", TIE_ON_SIX),
    win("big_tiger", "win", BANKER_SIX_THREE_CARDS, "500.00"),
    lose("big_tiger", BANKER_SIX_TWO_CARDS),
    win("tiger_tie", "win", TIE_ON_SIX, "350.00"),
    lose("tiger_tie", BANKER_SIX_THREE_CARDS),
]


@pytest.mark.parametrize("layout", list(GAME.layouts))
def test_tiger_no_commission_every_wager_and_event_has_a_case_on_every_layout(
    layout: str,
) -> None:
    assert wager_events(GAME, layout) == {(c.wager, c.event) for c in CASES}


@pytest.mark.parametrize(("layout", "case"), matrix(GAME, CASES), ids=matrix_id)
def test_tiger_no_commission_4_settles_every_wager_and_event(layout: str, case: Case) -> None:
    result = settle_one(GAME, case.picked, case.wager, case.stake, layout=layout)
    assert summary(result) == (case.outcome, case.event, case.net)


# -- Outcome established (the rules have no power-failure clause; the live table asks) ------


def test_tiger_no_commission_outcome_established_banker_on_six_after_it_stands() -> None:
    # P 2+3=5 drew K (5); B 4+2=6 stood on the 0: the coup is over.
    established = decided(GAME, Deal(BANKER_SIX_TWO_CARDS.coup().cards))
    assert established["banker"] == "win_on_six"
    assert established["small_tiger"] == "win"


def test_tiger_no_commission_outcome_established_nothing_before_the_third_card() -> None:
    assert decided(GAME, Deal(parse_cards("6H 6C"))) == {}


@pytest.mark.parametrize("cards", ["5H 7C KD KS", "6H 3C KD KS", "2H 4C 3D 2S KH"])
def test_tiger_no_commission_outcome_established_matches_every_ending(cards: str) -> None:
    deal_so_far = Deal(parse_cards(cards))
    assert decided(GAME, deal_so_far) == settled_by_every_ending(GAME, deal_so_far)
