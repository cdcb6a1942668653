"""Tiger Baccarat (MBS), Version 2 (rules file 000): sections 2-4, clause by clause.

Every coup is hand-picked in shoe order and worked out by hand (see
``tests/helpers.py``); stakes are 100 on Player/Banker and 10 on side bets.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from punto.errors import DeckCountError, WagerError
from punto.rules.cards import parse_cards
from punto.rules.coup import Coup, Deal, Hand, deal
from punto.rules.established import decided
from punto.rules.games import get_game
from punto.rules.settlement import Bet, Outcome, settle
from punto.rules.shoe import Shoe
from punto.rules.wagers import PairRule
from tests.helpers import (
    BANKER_DRAWS_ON,
    BANKER_NATURAL_NINE,
    BANKER_PAIR,
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

GAME = get_game("tiger-baccarat")
WAGERS = {
    "player",
    "banker",
    "tie",
    "tiger",
    "big_tiger",
    "small_tiger",
    "tiger_pair",
    "tiger_tie",
}

#: P T+J=0 draws 9 (9); B T+J=0 draws 9 (9): a Tie.  Under 1.1.14 read literally
#: each hand is a Pair (same point value, not two face cards) and all four
#: cards pair with one another.
TENS_AND_JACKS = Picked("TH TC JD JS 9H 9D", player=(9, 3), banker=(9, 3))
#: P T+J=0 draws 9 (9); B K+K=0 draws 9 (9).  Literal: two Pairs, but a Jack
#: and a King are different face cards, so not the same pair.
TEN_JACK_AND_KINGS = Picked("TH KC JD KS 9H 9D", player=(9, 3), banker=(9, 3))
#: P T+J=0; B 4+5=9 natural.  Banker wins.
TEN_JACK_PLAYER = Picked("TH 4C JD 5S", player=(0, 2), banker=(9, 2))
#: P K+Q=0; B 4+5=9 natural.  Banker wins.
KING_QUEEN_PLAYER = Picked("KH 4C QD 5S", player=(0, 2), banker=(9, 2))
#: The four Tens of 4.2's example: P T+T=0 draws 9; B T+T=0 draws 8.  Player 9 v 8.
FOUR_TENS = Picked("TS TH TC TD 9H 8D", player=(9, 3), banker=(8, 3))


# -- 2 Mode of Play ----------------------------------------------------------------------


@pytest.mark.parametrize("decks", range(4, 11))
def test_tiger_baccarat_2_1_four_to_ten_decks(decks: int) -> None:
    shoe = GAME.new_shoe(decks, seed=decks)
    assert len(shoe) == 52 * decks


@pytest.mark.parametrize("decks", [3, 11])
def test_tiger_baccarat_2_1_other_deck_counts_refused(decks: int) -> None:
    with pytest.raises(DeckCountError, match=r"clause 2\.1") as refused:
        GAME.new_shoe(decks, seed=1)
    assert f"{decks} decks is not allowed" in str(refused.value)


def test_tiger_baccarat_2_2_layouts_a_to_g() -> None:
    assert list(GAME.layouts) == ["A", "B", "C", "D", "E", "F", "G"]
    with pytest.raises(WagerError, match=r"no layout 'H'.*clause 2\.2"):
        GAME.layout("H")


# -- 3 How to Play -----------------------------------------------------------------------


def test_tiger_baccarat_3_3_1_two_to_nine_face_value_ace_one() -> None:
    cards = parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S")
    assert [card.value for card in cards] == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_tiger_baccarat_3_3_2_ten_and_face_cards_are_zero() -> None:
    assert [card.value for card in parse_cards("TS JH QD KC")] == [0, 0, 0, 0]


def test_tiger_baccarat_3_4_1_total_of_zero_to_nine_is_that_number() -> None:
    assert Hand(parse_cards("4H 3D")).total == 7
    assert Hand(parse_cards("AH 2D 6C")).total == 9


def test_tiger_baccarat_3_4_2_total_of_ten_or_more_is_the_right_digit() -> None:
    assert Hand(parse_cards("9H 8D")).total == 7
    assert Hand(parse_cards("5H 5D")).total == 0
    assert Hand(parse_cards("9H 9D 9C")).total == 7


@pytest.mark.clause(
    "tiger-baccarat", "2.2.1", "2.2.2", "2.2.3", "2.2.4", "2.2.5", "2.2.6", "2.2.7", "2.2.8"
)
@pytest.mark.parametrize("layout", ["A", "B", "C", "D", "E", "F", "G"])
def test_tiger_baccarat_3_5_available_wagers(layout: str) -> None:
    assert set(GAME.offered(layout)) == WAGERS


def test_tiger_baccarat_3_5_other_wagers_refused_naming_those_available() -> None:
    with pytest.raises(WagerError) as refused:
        GAME.wager("player_pair")
    message = str(refused.value)
    assert "no wager 'player_pair'" in message
    assert all(wager in message for wager in WAGERS)


def test_tiger_baccarat_3_6_side_wagers_without_player_or_banker() -> None:
    coup = BANKER_SIX_TWO_CARDS.coup()
    bets = [Bet(wager, Decimal(10)) for wager in ("tie", "tiger", "small_tiger", "tiger_pair")]
    outcomes = [r.outcome for r in settle(GAME, coup, bets).results]
    assert outcomes == [Outcome.LOSE, Outcome.WIN, Outcome.WIN, Outcome.LOSE]


@pytest.mark.clause("tiger-baccarat", "1.1.3")
def test_tiger_baccarat_3_13_1_first_and_third_cards_are_the_player_hand() -> None:
    coup = Coup.parse("QH 9C 2D 6S 8H")  # P Q+2=2 draws 8 (0); B 9+6=5 stands on an 8
    assert coup.player.cards == parse_cards("QH 2D 8H")


@pytest.mark.clause("tiger-baccarat", "1.1.3")
def test_tiger_baccarat_3_13_2_second_and_fourth_cards_are_the_banker_hand() -> None:
    coup = Coup.parse("QH 9C 2D 6S 8H")
    assert coup.banker.cards == parse_cards("9C 6S")


def test_tiger_baccarat_3_14_the_four_cards_decide_tiger_pair() -> None:
    # P 2+3=5 draws 2 (7); B 3+K=3 draws 3 (6).  The third cards repeat the
    # first cards' ranks, but only the initial four cards count.
    no_pair = Picked("2H 3C 3D KS 2S 3H", player=(7, 3), banker=(6, 3))
    assert summary(settle_one(GAME, no_pair, "tiger_pair")) == lost()


@pytest.mark.clause("tiger-baccarat", "1.1.6")
@pytest.mark.parametrize(("player_total", "banker_total"), [(8, 0), (9, 7), (0, 8), (5, 9), (8, 9)])
def test_tiger_baccarat_3_15_a_natural_ends_the_deal(player_total: int, banker_total: int) -> None:
    assert initial_deal(player_total, banker_total).is_complete


def test_tiger_baccarat_3_15_player_draws_on_0_to_5_stands_on_6_or_7() -> None:
    assert [player_draws(p, 7) for p in range(8)] == [True] * 6 + [False] * 2


@pytest.mark.parametrize("banker_total", range(8))
def test_tiger_baccarat_3_15_banker_draws_by_the_player_third_card(banker_total: int) -> None:
    drawn_on = {t for t in range(10) if banker_draws_after_third_card(banker_total, t)}
    assert drawn_on == BANKER_DRAWS_ON[banker_total]


@pytest.mark.parametrize("player_total", [6, 7])
def test_tiger_baccarat_3_15_player_stands_banker_draws_on_0_to_5(player_total: int) -> None:
    draws = [banker_draws_when_player_stands(player_total, b) for b in range(8)]
    assert draws == [True] * 6 + [False] * 2


def test_tiger_baccarat_3_16_the_highest_point_total_wins() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "player", STAKE)) == won("win", "100.00")
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "banker", STAKE)) == lost(STAKE)


@pytest.mark.clause("tiger-baccarat", "1.1.11")
def test_tiger_baccarat_3_16_1_a_tie_returns_player_and_banker_and_pays_tie() -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "player", STAKE)) == PUSHED
    assert summary(settle_one(GAME, NATURAL_TIE, "banker", STAKE)) == PUSHED
    assert summary(settle_one(GAME, NATURAL_TIE, "tie")) == won("tie", "80.00")


@pytest.mark.clause("tiger-baccarat", "1.1.11")
def test_tiger_baccarat_3_16_1_tiger_tie_wins_only_on_a_tie_of_six() -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "tiger_tie")) == lost()
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger_tie")) == won("win", "350.00")
    assert summary(settle_one(GAME, TIE_ON_SIX, "tie")) == won("tie", "80.00")


@pytest.mark.clause("tiger-baccarat", "1.1.13")
def test_tiger_baccarat_3_17_tiger_wins_when_banker_wins_with_six_on_two_or_three_cards() -> None:
    assert settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger").event == "two_cards"
    assert settle_one(GAME, BANKER_SIX_THREE_CARDS, "tiger").event == "three_cards"


@pytest.mark.clause("tiger-baccarat", "1.1.13")
def test_tiger_baccarat_3_17_tiger_loses_when_the_banker_six_does_not_win() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger")) == lost()
    assert summary(settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "tiger")) == lost()


@pytest.mark.clause("tiger-baccarat", "1.1.8")
def test_tiger_baccarat_3_18_small_tiger_is_banker_six_on_two_cards() -> None:
    assert settle_one(GAME, BANKER_SIX_TWO_CARDS, "small_tiger").outcome is Outcome.WIN
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "small_tiger")) == lost()
    assert summary(settle_one(GAME, TIE_ON_SIX, "small_tiger")) == lost()


@pytest.mark.clause("tiger-baccarat", "1.1.1")
def test_tiger_baccarat_3_19_big_tiger_is_banker_six_on_three_cards() -> None:
    assert settle_one(GAME, BANKER_SIX_THREE_CARDS, "big_tiger").outcome is Outcome.WIN
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "big_tiger")) == lost()


@pytest.mark.clause("tiger-baccarat", "1.1.15")
def test_tiger_baccarat_3_20_tiger_tie_is_a_tie_on_six() -> None:
    # P Q+2=2 draws 4 (6); B 2+K=2 draws 4 (6): a Tie on six, three cards each.
    three_card_tie = Picked("QH 2C 2D KS 4H 4D", player=(6, 3), banker=(6, 3))
    assert summary(settle_one(GAME, three_card_tie, "tiger_tie")) == won("win", "350.00")
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger_tie")) == lost()


def test_tiger_baccarat_3_22_the_round_is_completed_after_the_cutting_card() -> None:
    shoe = Shoe.parse("QH 2C 2D KS 3H 4D 7S 7C", cut_card=2)
    coup = deal(shoe)
    assert shoe.cut_card_reached
    assert coup == BANKER_SIX_THREE_CARDS.coup()


# -- 4 Settlement ------------------------------------------------------------------------

PRINTED_PAYS = [
    ("banker", "win", Fraction(95, 100)),
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
def test_tiger_baccarat_4_pay_tables_as_printed(wager: str, event: str, odds: Fraction) -> None:
    assert GAME.wagers[wager].pays[event].odds == odds


@pytest.mark.clause("tiger-baccarat", "1.1.2")
def test_tiger_baccarat_4_1_banker_pays_0_95_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "banker", STAKE)) == won("win", "95.00")


@pytest.mark.clause("tiger-baccarat", "1.1.2")
@pytest.mark.parametrize(
    ("stake", "net"),
    [("5", "4.75"), ("15", "14.25"), ("1", "0.95"), ("0.10", "0.09"), ("0.30", "0.28")],
)
def test_tiger_baccarat_4_1_banker_commission_rounds_down_to_the_cent(stake: str, net: str) -> None:
    result = settle_one(GAME, BANKER_NATURAL_NINE, "banker", Decimal(stake))
    assert result.net == Decimal(net)


def test_tiger_baccarat_4_1_player_pays_1_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "player", STAKE)) == won("win", "100.00")


@pytest.mark.clause("tiger-baccarat", "1.1.12")
def test_tiger_baccarat_4_1_tie_pays_8_to_1() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tie")) == won("tie", "80.00")


@pytest.mark.clause("tiger-baccarat", "1.1.14.1")
def test_tiger_baccarat_4_2_single_tiger_pair_pays_4_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_PAIR, "tiger_pair")) == won("single", "40.00")
    assert summary(settle_one(GAME, BANKER_PAIR, "tiger_pair")) == won("single", "40.00")


@pytest.mark.clause("tiger-baccarat", "1.1.14.2")
def test_tiger_baccarat_4_2_double_tiger_pair_pays_20_to_1() -> None:
    assert summary(settle_one(GAME, DOUBLE_PAIR, "tiger_pair")) == won("double", "200.00")


@pytest.mark.clause("tiger-baccarat", "1.1.14.3")
def test_tiger_baccarat_4_2_twin_tiger_pair_pays_100_to_1() -> None:
    assert summary(settle_one(GAME, TWIN_PAIR, "tiger_pair")) == won("twin", "1000.00")
    # the printed example: 10♠ 10♥ 10♣ 10♦
    assert summary(settle_one(GAME, FOUR_TENS, "tiger_pair")) == won("twin", "1000.00")


def test_tiger_baccarat_4_2_no_pair_loses() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "tiger_pair")) == lost()


def test_tiger_baccarat_1_1_14_pairs_are_read_by_rank_by_default() -> None:
    # the literal reading favours the player; it is an explicit option only
    assert GAME.pair_rule is PairRule.RANK


def test_tiger_baccarat_1_1_14_ten_and_jack_are_a_pair_read_literally_not_by_rank() -> None:
    literal = settle_one(GAME, TEN_JACK_PLAYER, "tiger_pair", pair_rule=PairRule.LITERAL)
    by_rank = settle_one(GAME, TEN_JACK_PLAYER, "tiger_pair")
    assert summary(literal) == won("single", "40.00")
    assert summary(by_rank) == lost()


@pytest.mark.parametrize("rule", [PairRule.LITERAL, PairRule.RANK])
def test_tiger_baccarat_1_1_14_two_different_face_cards_are_never_a_pair(rule: PairRule) -> None:
    assert summary(settle_one(GAME, KING_QUEEN_PLAYER, "tiger_pair", pair_rule=rule)) == lost()


@pytest.mark.clause("tiger-baccarat", "1.1.14")
def test_tiger_baccarat_1_1_14_3_twin_when_all_four_cards_pair_literally() -> None:
    literal = settle_one(GAME, TENS_AND_JACKS, "tiger_pair", pair_rule=PairRule.LITERAL)
    by_rank = settle_one(GAME, TENS_AND_JACKS, "tiger_pair")
    assert summary(literal) == won("twin", "1000.00")
    assert summary(by_rank) == lost()


@pytest.mark.clause("tiger-baccarat", "1.1.14")
def test_tiger_baccarat_1_1_14_3_ten_jack_and_two_kings_are_double_not_twin() -> None:
    literal = settle_one(GAME, TEN_JACK_AND_KINGS, "tiger_pair", pair_rule=PairRule.LITERAL)
    by_rank = settle_one(GAME, TEN_JACK_AND_KINGS, "tiger_pair")
    assert summary(literal) == won("double", "200.00")
    assert summary(by_rank) == won("single", "40.00")


def test_tiger_baccarat_4_3_tiger_on_two_cards_pays_12_to_1() -> None:
    result = settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger")
    assert summary(result) == won("two_cards", "120.00")


def test_tiger_baccarat_4_3_tiger_on_three_cards_pays_20_to_1() -> None:
    result = settle_one(GAME, BANKER_SIX_THREE_CARDS, "tiger")
    assert summary(result) == won("three_cards", "200.00")


@pytest.mark.clause("tiger-baccarat", "1.1.8")
def test_tiger_baccarat_4_3_small_tiger() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "small_tiger")) == won("win", "220.00")


@pytest.mark.clause("tiger-baccarat", "1.1.1")
def test_tiger_baccarat_4_3_big_tiger() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "big_tiger")) == won("win", "500.00")


@pytest.mark.clause("tiger-baccarat", "1.1.15")
def test_tiger_baccarat_4_3_tiger_tie() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger_tie")) == won("win", "350.00")


def test_tiger_baccarat_4_settlement_json_gives_exact_money() -> None:
    coup = BANKER_SIX_THREE_CARDS.coup()
    bets = [Bet("banker", Decimal(100)), Bet("tiger", Decimal(10)), Bet("player", Decimal(50))]
    settlement = settle(GAME, coup, bets)
    assert settlement.net == Decimal("245.00")
    assert [(b["wager"], b["outcome"], b["net"]) for b in settlement.to_json()["bets"]] == [
        ("banker", "win", "95.00"),
        ("tiger", "win", "200.00"),
        ("player", "lose", "-50.00"),
    ]


# -- Every wager x event, on every layout --------------------------------------------------

CASES = [
    win("player", "win", PLAYER_NATURAL_NINE, "100.00", STAKE),
    push("player", NATURAL_TIE),
    lose("player", BANKER_NATURAL_NINE, STAKE),
    win("banker", "win", BANKER_NATURAL_NINE, "95.00", STAKE),
    push("banker", NATURAL_TIE),
    lose("banker", PLAYER_NATURAL_NINE, STAKE),
    win("tie", "tie", NATURAL_TIE, "80.00"),
    lose("tie", PLAYER_NATURAL_NINE),
    win("tiger", "two_cards", BANKER_SIX_TWO_CARDS, "120.00"),
    win("tiger", "three_cards", BANKER_SIX_THREE_CARDS, "200.00"),
    lose("tiger", TIE_ON_SIX),
    win("big_tiger", "win", BANKER_SIX_THREE_CARDS, "500.00"),
    lose("big_tiger", BANKER_SIX_TWO_CARDS),
    win("small_tiger", "win", BANKER_SIX_TWO_CARDS, "220.00"),
    lose("small_tiger", BANKER_SIX_THREE_CARDS),
    win("tiger_pair", "single", PLAYER_PAIR, "40.00"),
    win("tiger_pair", "double", DOUBLE_PAIR, "200.00"),
    win("tiger_pair", "twin", TWIN_PAIR, "1000.00"),
    lose("tiger_pair", PLAYER_NATURAL_NINE),
    win("tiger_tie", "win", TIE_ON_SIX, "350.00"),
    lose("tiger_tie", NATURAL_TIE),
]


@pytest.mark.parametrize("layout", list(GAME.layouts))
def test_tiger_baccarat_every_wager_and_event_has_a_case_on_every_layout(layout: str) -> None:
    assert wager_events(GAME, layout) == {(c.wager, c.event) for c in CASES}


@pytest.mark.parametrize(("layout", "case"), matrix(GAME, CASES), ids=matrix_id)
def test_tiger_baccarat_4_settles_every_wager_and_event(layout: str, case: Case) -> None:
    result = settle_one(GAME, case.picked, case.wager, case.stake, layout=layout)
    assert summary(result) == (case.outcome, case.event, case.net)


# -- 5.17 Outcome established ----------------------------------------------------------------


@pytest.mark.parametrize("cards", ["", "9H", "4H 4C"])
def test_tiger_baccarat_5_17_nothing_established_before_the_third_card(cards: str) -> None:
    assert decided(GAME, Deal(parse_cards(cards))) == {}


def test_tiger_baccarat_5_17_player_natural_settles_the_tiger_wagers_after_three_cards() -> None:
    # P 4+4=8, a natural: the Banker cannot win with six, nor tie on six.
    deal_so_far = Deal(parse_cards("4H 2C 4D"))
    assert decided(GAME, deal_so_far) == {
        "tiger": None,
        "big_tiger": None,
        "small_tiger": None,
        "tiger_tie": None,
    }


def test_tiger_baccarat_5_17_tiger_pair_established_after_four_cards() -> None:
    # P 2+2=4, B 3+3=6: the Player draws, so the coup goes on, but both hands paired.
    four = Deal(parse_cards("2H 3C 2D 3S"))
    assert not four.is_complete
    established = decided(GAME, four)
    assert established["tiger_pair"] == "double"
    assert "banker" not in established
    assert "tiger_pair" not in decided(GAME, Deal(four.cards[:3]))


def test_tiger_baccarat_5_17_small_tiger_lost_once_the_banker_must_draw() -> None:
    # P Q+2=2 drew 3 (5); B 2+K=2 must draw: it will hold three cards.
    five = Deal(parse_cards("QH 2C 2D KS 3H"))
    assert decided(GAME, five)["small_tiger"] is None


@pytest.mark.parametrize(
    "cards",
    [
        "6H 3C KD KS",  # P 6 stands, B 3 draws (Player stood)
        "2H 4C 3D 2S",  # P 5 draws; B 6 draws only on a third card of 6 or 7
        "7H 6C KD KS",  # finished: P 7 v B 6
        "QH 2C 2D KS",
        "QH 2C 2D KS 3H",
    ],
)
def test_tiger_baccarat_5_17_established_means_no_card_to_come_can_change_it(cards: str) -> None:
    """An outcome is established when a wager has conclusively won or lost:
    every way the coup can still end gives it the same result.  After
    QH 2C 2D KS the Player draws and then the Banker draws: a 3 then a 4 ends
    Banker 6 v Player 5 (Tiger, Big Tiger win), so they are not yet lost."""
    deal_so_far = Deal(parse_cards(cards))
    assert decided(GAME, deal_so_far) == settled_by_every_ending(GAME, deal_so_far)


def test_tiger_baccarat_5_17_banker_third_card_after_player_third_card_keeps_tigers_open() -> None:
    """After QH 2C 2D KS (P 2, B 2) both hands draw: a 3 then a 4 is Banker 6 v
    Player 5 on three cards; a 4 then a 4 a Tie on six; a 3 then a 9 a Player win."""
    four = Deal(parse_cards("QH 2C 2D KS"))
    for wager in ("player", "banker", "tie", "tiger", "big_tiger", "tiger_tie"):
        assert wager not in decided(GAME, four)
    five = four.add(parse_cards("3H")[0])  # Player 5 on three cards: no Tie on six
    assert decided(GAME, five) == {"small_tiger": None, "tiger_pair": None, "tiger_tie": None}


def test_tiger_baccarat_5_17_big_tiger_lost_once_the_banker_stands_on_two_cards() -> None:
    # P 7 stands; B 6 stands: the coup is over at four cards.
    established = decided(GAME, Deal(PLAYER_SEVEN_OVER_SIX_FOUR_CARDS.coup().cards))
    assert established["big_tiger"] is None
    assert established["player"] == "win"
    assert established["tiger_pair"] is None


def test_tiger_baccarat_5_17_every_wager_established_on_a_finished_coup() -> None:
    established = decided(GAME, Deal(BANKER_SIX_THREE_CARDS.coup().cards))
    assert established == {
        "player": None,
        "banker": "win",
        "tie": None,
        "tiger": "three_cards",
        "big_tiger": "win",
        "small_tiger": None,
        "tiger_pair": None,
        "tiger_tie": None,
    }
