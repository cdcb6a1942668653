"""Dragon Tiger Baccarat (MBS), 7 December 2023 (rules file 004): sections 2-4.

Every coup is hand-picked in shoe order and worked out by hand (see
``tests/helpers.py``); stakes are 100 on Player/Banker and 10 on side bets.
Where Appendix K's printed pay table disagrees with clause 4.3 (Small Dragon
and Small Tiger "(3 Cards)", Small Tiger "25 to 1"), the clauses govern.
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
from tests.helpers import (
    BANKER_DRAWS_ON,
    BANKER_NATURAL_NINE,
    BANKER_SIX_THREE_CARDS,
    BANKER_SIX_TWO_CARDS,
    NATURAL_TIE,
    PLAYER_EIGHT_OVER_SEVEN,
    PLAYER_NATURAL_NINE,
    PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX,
    PLAYER_SEVEN_OVER_SIX_FIVE_CARDS,
    PLAYER_SEVEN_OVER_SIX_FOUR_CARDS,
    PLAYER_SEVEN_OVER_SIX_SIX_CARDS,
    PLAYER_SIX_TWO_CARDS,
    PUSHED,
    STAKE,
    TIE_ON_SIX,
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

GAME = get_game("dragon-tiger")
WAGERS = {
    "player",
    "banker",
    "tie",
    "dragon_tiger",
    "big_dragon",
    "small_dragon",
    "big_tiger",
    "small_tiger",
}

#: P 7+K=7 stands; B 5+K=5 draws (Player stood) a K (5).  Player 7 v Banker 5.
PLAYER_SEVEN_OVER_FIVE = Picked("7H 5C KD KS KH", player=(7, 2), banker=(5, 3))
#: P 8+K=8 natural; B 6+K=6.  Player 8 v Banker 6.
PLAYER_EIGHT_OVER_SIX = Picked("8H 6C KD KS", player=(8, 2), banker=(6, 2))
#: P 7+K=7 stands; B 7+K=7 stands.  A Tie on seven.
TIE_ON_SEVEN = Picked("7H 7C KD KS", player=(7, 2), banker=(7, 2))


# -- 2 Mode of Play ----------------------------------------------------------------------


@pytest.mark.parametrize("decks", range(4, 11))
def test_dragon_tiger_2_1_four_to_ten_decks(decks: int) -> None:
    assert len(GAME.new_shoe(decks, seed="dt")) == 52 * decks


@pytest.mark.parametrize("decks", [3, 11])
def test_dragon_tiger_2_1_other_deck_counts_refused(decks: int) -> None:
    with pytest.raises(DeckCountError, match=r"clause 2\.1"):
        GAME.new_shoe(decks)


def test_dragon_tiger_2_2_layouts_a_to_k() -> None:
    assert list(GAME.layouts) == list("ABCDEFGHIJK")
    with pytest.raises(WagerError, match=r"clause 2\.2"):
        GAME.layout("L")


# -- 3 How to Play -----------------------------------------------------------------------


def test_dragon_tiger_3_3_1_two_to_nine_face_value_ace_one() -> None:
    assert [c.value for c in parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H")] == list(range(1, 10))


def test_dragon_tiger_3_3_2_ten_and_face_cards_are_zero() -> None:
    assert [c.value for c in parse_cards("TH JH QH KH")] == [0, 0, 0, 0]


def test_dragon_tiger_3_4_1_total_of_zero_to_nine_is_that_number() -> None:
    assert Hand(parse_cards("3S 4H")).total == 7


def test_dragon_tiger_3_4_2_total_of_ten_or_more_is_the_right_digit() -> None:
    assert Hand(parse_cards("8S 9H")).total == 7
    assert Hand(parse_cards("8S 8H KC")).total == 6


@pytest.mark.clause(
    "dragon-tiger", "2.2.1", "2.2.2", "2.2.3", "2.2.4", "2.2.5", "2.2.6", "2.2.7", "2.2.8"
)
@pytest.mark.parametrize("layout", list("ABCDEFGHIJK"))
def test_dragon_tiger_3_5_available_wagers(layout: str) -> None:
    assert set(GAME.offered(layout)) == WAGERS


def test_dragon_tiger_3_5_other_wagers_refused_naming_those_available() -> None:
    with pytest.raises(WagerError, match="no wager 'tiger_pair'") as refused:
        GAME.wager("tiger_pair", "K")
    assert all(wager in str(refused.value) for wager in WAGERS)


def test_dragon_tiger_3_6_side_wagers_without_player_or_banker() -> None:
    coup = PLAYER_SEVEN_OVER_SIX_SIX_CARDS.coup()
    bets = [Bet(w, Decimal(10)) for w in ("dragon_tiger", "big_dragon", "small_dragon", "tie")]
    results = settle(GAME, coup, bets).results
    assert [r.outcome for r in results] == [Outcome.WIN, Outcome.WIN, Outcome.LOSE, Outcome.LOSE]


@pytest.mark.clause("dragon-tiger", "1.1.4")
def test_dragon_tiger_3_13_1_first_and_third_cards_are_the_player_hand() -> None:
    coup = Coup.parse("QH 2C 2D KS 5H 4D")
    assert coup.player.cards == parse_cards("QH 2D 5H")


@pytest.mark.clause("dragon-tiger", "1.1.4")
def test_dragon_tiger_3_13_2_second_and_fourth_cards_are_the_banker_hand() -> None:
    coup = Coup.parse("QH 2C 2D KS 5H 4D")
    assert coup.banker.cards == parse_cards("2C KS 4D")


@pytest.mark.clause("dragon-tiger", "1.1.7")
@pytest.mark.parametrize(("player_total", "banker_total"), [(8, 7), (9, 6), (4, 8), (0, 9)])
def test_dragon_tiger_3_14_a_natural_ends_the_deal(player_total: int, banker_total: int) -> None:
    assert initial_deal(player_total, banker_total).is_complete


def test_dragon_tiger_3_14_player_draws_on_0_to_5_stands_on_6_or_7() -> None:
    assert [player_draws(p, 0) for p in range(8)] == [True] * 6 + [False] * 2


@pytest.mark.parametrize("banker_total", range(8))
def test_dragon_tiger_3_14_banker_draws_by_the_player_third_card(banker_total: int) -> None:
    drawn_on = {t for t in range(10) if banker_draws_after_third_card(banker_total, t)}
    assert drawn_on == BANKER_DRAWS_ON[banker_total]


@pytest.mark.parametrize("player_total", [6, 7])
def test_dragon_tiger_3_14_player_stands_banker_draws_on_0_to_5(player_total: int) -> None:
    draws = [banker_draws_when_player_stands(player_total, b) for b in range(8)]
    assert draws == [True] * 6 + [False] * 2


def test_dragon_tiger_3_15_the_highest_point_total_wins() -> None:
    assert summary(settle_one(GAME, PLAYER_SIX_TWO_CARDS, "player", STAKE)) == won("win", "100.00")
    assert summary(settle_one(GAME, PLAYER_SIX_TWO_CARDS, "banker", STAKE)) == lost(STAKE)


@pytest.mark.clause("dragon-tiger", "1.1.13")
def test_dragon_tiger_3_15_1_a_tie_returns_player_and_banker_and_tie_wins() -> None:
    assert summary(settle_one(GAME, TIE_ON_SEVEN, "player", STAKE)) == PUSHED
    assert summary(settle_one(GAME, TIE_ON_SEVEN, "banker", STAKE)) == PUSHED
    assert summary(settle_one(GAME, TIE_ON_SEVEN, "tie")) == won("tie", "80.00")


def test_dragon_tiger_3_17_the_round_is_completed_after_the_cutting_card() -> None:
    shoe = Shoe.parse("QH 2C 2D KS 5H 4D 9S", cut_card=1)
    coup = deal(shoe)
    assert shoe.cut_card_reached
    assert coup == PLAYER_SEVEN_OVER_SIX_SIX_CARDS.coup()
    assert len(shoe) == 1


# -- 4 Settlement ------------------------------------------------------------------------

PRINTED_PAYS = [
    ("player", "win", Fraction(1)),
    ("banker", "win", Fraction(19, 20)),
    ("tie", "tie", Fraction(8)),
    ("dragon_tiger", "six_cards", Fraction(100)),
    ("dragon_tiger", "five_cards", Fraction(40)),
    ("dragon_tiger", "four_cards", Fraction(30)),
    ("big_dragon", "win", Fraction(30)),
    ("small_dragon", "win", Fraction(15)),
    ("big_tiger", "win", Fraction(50)),
    ("small_tiger", "win", Fraction(22)),
]


@pytest.mark.parametrize(("wager", "event", "odds"), PRINTED_PAYS)
def test_dragon_tiger_4_pay_tables_as_printed(wager: str, event: str, odds: Fraction) -> None:
    assert GAME.wagers[wager].pays[event].odds == odds


def test_dragon_tiger_4_1_player_pays_1_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "player", STAKE)) == won("win", "100.00")


def test_dragon_tiger_4_1_banker_pays_0_95_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "banker", STAKE)) == won("win", "95.00")
    assert settle_one(GAME, BANKER_NATURAL_NINE, "banker", Decimal(25)).net == Decimal("23.75")


@pytest.mark.clause("dragon-tiger", "1.1.14")
def test_dragon_tiger_4_1_tie_pays_8_to_1() -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "tie", STAKE)) == won("tie", "800.00")


@pytest.mark.clause("dragon-tiger", "1.1.3")
def test_dragon_tiger_4_2_dragon_tiger_six_cards_pays_100() -> None:
    result = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "dragon_tiger")
    assert summary(result) == won("six_cards", "1000.00")


@pytest.mark.clause("dragon-tiger", "1.1.3")
@pytest.mark.parametrize(
    "picked", [PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX]
)
def test_dragon_tiger_4_2_dragon_tiger_five_cards_pays_40(picked: Picked) -> None:
    """One hand has three cards and the other two: either way round."""
    assert summary(settle_one(GAME, picked, "dragon_tiger")) == won("five_cards", "400.00")


@pytest.mark.clause("dragon-tiger", "1.1.3")
def test_dragon_tiger_4_2_dragon_tiger_four_cards_pays_30() -> None:
    result = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "dragon_tiger")
    assert summary(result) == won("four_cards", "300.00")


@pytest.mark.clause("dragon-tiger", "1.1.3")
@pytest.mark.parametrize(
    "picked", [PLAYER_SEVEN_OVER_FIVE, PLAYER_EIGHT_OVER_SIX, TIE_ON_SEVEN, BANKER_SIX_TWO_CARDS]
)
def test_dragon_tiger_4_2_dragon_tiger_loses_unless_player_7_beats_banker_6(
    picked: Picked,
) -> None:
    assert summary(settle_one(GAME, picked, "dragon_tiger")) == lost()


@pytest.mark.clause("dragon-tiger", "1.1.1")
def test_dragon_tiger_4_3_big_dragon_player_wins_with_7_on_three_cards_pays_30() -> None:
    result = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, "big_dragon")
    assert summary(result) == won("win", "300.00")
    assert summary(settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "big_dragon")) == lost()


@pytest.mark.clause("dragon-tiger", "1.1.9")
def test_dragon_tiger_4_3_small_dragon_player_wins_with_7_on_two_cards_pays_15() -> None:
    """Clause 4.3 and 1.1.9 say two cards; Appendix K's "(3 Cards)" does not govern."""
    result = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "small_dragon")
    assert summary(result) == won("win", "150.00")
    assert summary(settle_one(GAME, PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "small_dragon")) == lost()


@pytest.mark.clause("dragon-tiger", "1.1.2")
def test_dragon_tiger_4_3_big_tiger_banker_wins_with_6_on_three_cards_pays_50() -> None:
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "big_tiger")) == won("win", "500.00")
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "big_tiger")) == lost()


@pytest.mark.clause("dragon-tiger", "1.1.10")
def test_dragon_tiger_4_3_small_tiger_pays_22_to_1_on_two_cards() -> None:
    """Clause 4.3 and 1.1.10: two cards, 22 to 1.  Appendix K prints "Small
    Tiger (3 Cards) 25 to 1"; the clause governs."""
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "small_tiger")) == won("win", "220.00")
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "small_tiger")) == lost()


def test_dragon_tiger_4_3_small_and_big_tiger_lose_on_a_tie_of_six() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "small_tiger")) == lost()
    assert summary(settle_one(GAME, TIE_ON_SIX, "big_tiger")) == lost()


# -- Every wager x event, on every layout --------------------------------------------------

CASES = [
    win("player", "win", PLAYER_NATURAL_NINE, "100.00", STAKE),
    push("player", TIE_ON_SEVEN),
    lose("player", BANKER_NATURAL_NINE, STAKE),
    win("banker", "win", BANKER_NATURAL_NINE, "95.00", STAKE),
    push("banker", NATURAL_TIE),
    lose("banker", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, STAKE),
    win("tie", "tie", TIE_ON_SIX, "80.00"),
    lose("tie", PLAYER_EIGHT_OVER_SEVEN),
    win("dragon_tiger", "four_cards", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "300.00"),
    win("dragon_tiger", "five_cards", PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, "400.00"),
    win("dragon_tiger", "six_cards", PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "1000.00"),
    lose("dragon_tiger", PLAYER_SEVEN_OVER_FIVE),
    win("big_dragon", "win", PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "300.00"),
    lose("big_dragon", PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX),
    win("small_dragon", "win", PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX, "150.00"),
    lose("small_dragon", PLAYER_SEVEN_OVER_SIX_FIVE_CARDS),
    win("big_tiger", "win", BANKER_SIX_THREE_CARDS, "500.00"),
    lose("big_tiger", BANKER_SIX_TWO_CARDS),
    win("small_tiger", "win", BANKER_SIX_TWO_CARDS, "220.00"),
    lose("small_tiger", BANKER_SIX_THREE_CARDS),
]


@pytest.mark.parametrize("layout", list(GAME.layouts))
def test_dragon_tiger_every_wager_and_event_has_a_case_on_every_layout(layout: str) -> None:
    assert wager_events(GAME, layout) == {(c.wager, c.event) for c in CASES}


@pytest.mark.parametrize(("layout", "case"), matrix(GAME, CASES), ids=matrix_id)
def test_dragon_tiger_4_settles_every_wager_and_event(layout: str, case: Case) -> None:
    result = settle_one(GAME, case.picked, case.wager, case.stake, layout=layout)
    assert summary(result) == (case.outcome, case.event, case.net)


# -- 5.17 Outcome established ----------------------------------------------------------------


@pytest.mark.parametrize("cards", ["", "7H", "7H 6C"])
def test_dragon_tiger_5_17_nothing_established_before_the_third_card(cards: str) -> None:
    assert decided(GAME, Deal(parse_cards(cards))) == {}


def test_dragon_tiger_5_17_player_standing_on_7_settles_some_wagers() -> None:
    # P 7+K=7 stands on two cards; B 3+K=3 will draw (Player stood).
    established = decided(GAME, Deal(parse_cards("7H 3C KD KS")))
    assert established == {"big_dragon": None, "big_tiger": None, "small_tiger": None}


@pytest.mark.parametrize(
    "cards",
    [
        "7H 3C KD KS",  # P 7 stands; B 3 draws
        "5H 7C KD KS",  # P 5 draws; B 7 stands whatever comes
        "2H 4C 3D 2S 2D",  # finished: Player 7 v Banker 6 on five cards
        "QH 2C 2D KS",
        "QH 2C 2D KS 5H",
    ],
)
def test_dragon_tiger_5_17_established_means_no_card_to_come_can_change_it(cards: str) -> None:
    """After QH 2C 2D KS (P 2, B 2) both hands draw: 5 then 4 ends Player 7 v
    Banker 6 on six cards, so Dragon Tiger is still open."""
    deal_so_far = Deal(parse_cards(cards))
    assert decided(GAME, deal_so_far) == settled_by_every_ending(GAME, deal_so_far)
