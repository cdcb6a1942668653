"""Baccarat Tournament (MBS), Version 5 (rules file 003): sections 2-4, clause by clause.

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
from punto.rules.settlement import Bet, settle
from punto.rules.wagers import PairRule
from tests.helpers import (
    BANKER_DRAWS_ON,
    BANKER_NATURAL_NINE,
    BANKER_PAIR,
    BANKER_SIX_TWO_CARDS,
    DOUBLE_PAIR,
    NATURAL_TIE,
    PLAYER_NATURAL_NINE,
    PLAYER_PAIR,
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

GAME = get_game("baccarat-tournament")
WAGERS = {"banker", "player", "tie", "player_pair", "banker_pair"}

#: P T+J=0; B 4+5=9 natural.  Ten and Jack: not two of a rank.
TEN_JACK_PLAYER = Picked("TH 4C JD 5S", player=(0, 2), banker=(9, 2))
#: P Q+Q=0; B 4+5=9 natural.  "two Q's" (1.1.4).
QUEENS_PLAYER = Picked("QH 4C QD 5S", player=(0, 2), banker=(9, 2))
#: P 9+9=8 natural (two 9's); B 3+K=3.
NINES_PLAYER = Picked("9H 3C 9D KS", player=(8, 2), banker=(3, 2))


# -- 2 Mode of Play ----------------------------------------------------------------------


@pytest.mark.parametrize("decks", range(4, 11))
def test_baccarat_tournament_2_1_four_to_ten_decks(decks: int) -> None:
    assert len(GAME.new_shoe(decks, seed=2017)) == 52 * decks


@pytest.mark.parametrize("decks", [3, 11])
def test_baccarat_tournament_2_1_other_deck_counts_refused(decks: int) -> None:
    with pytest.raises(DeckCountError, match=r"clause 2\.1"):
        GAME.new_shoe(decks)


def test_baccarat_tournament_2_2_diagrams_a_to_h() -> None:
    assert list(GAME.layouts) == ["A", "B", "C", "D", "E", "F", "G", "H"]
    for layout in GAME.layouts:
        assert set(GAME.offered(layout)) == WAGERS


# -- 3 How to Play -----------------------------------------------------------------------


def test_baccarat_tournament_3_3_1_two_to_nine_face_value_ace_one() -> None:
    assert [c.value for c in parse_cards("AC 2C 3C 4C 5C 6C 7C 8C 9C")] == list(range(1, 10))


def test_baccarat_tournament_3_3_2_ten_and_face_cards_are_zero() -> None:
    assert [c.value for c in parse_cards("TC JC QC KC")] == [0, 0, 0, 0]


@pytest.mark.clause("baccarat-tournament", "1.1.5")
def test_baccarat_tournament_3_4_1_total_of_zero_to_nine_is_that_number() -> None:
    assert Hand(parse_cards("AC 7H")).total == 8


@pytest.mark.clause("baccarat-tournament", "1.1.5")
def test_baccarat_tournament_3_4_2_total_of_ten_or_more_is_the_right_digit() -> None:
    assert Hand(parse_cards("6C 7H")).total == 3
    assert Hand(parse_cards("6C 7H 7S")).total == 0


@pytest.mark.clause("baccarat-tournament", "2.2.1", "2.2.2", "2.2.3")
def test_baccarat_tournament_3_5_wagers_played_individually_or_in_combination() -> None:
    coup = PLAYER_PAIR.coup()
    alone = settle(GAME, coup, [Bet("player_pair", Decimal(10))])
    together = settle(GAME, coup, [Bet("banker", Decimal(100)), Bet("player_pair", Decimal(10))])
    assert alone.results[0].net == together.results[1].net == Decimal("110.00")
    assert together.net == Decimal("10.00")


@pytest.mark.clause("baccarat-tournament", "2.2.1", "2.2.2", "2.2.3")
def test_baccarat_tournament_3_5_other_wagers_refused_naming_those_offered() -> None:
    with pytest.raises(WagerError, match="no wager 'tiger'") as refused:
        GAME.wager("tiger", "A")
    assert all(wager in str(refused.value) for wager in WAGERS)


@pytest.mark.clause("baccarat-tournament", "1.1.1")
@pytest.mark.clause("baccarat-tournament", "3.6")
def test_baccarat_tournament_3_7_1_first_and_third_cards_are_the_player_hand() -> None:
    # P J+A=1 draws 9 (0); B 2+4=6 stands on a 9.
    coup = Coup.parse("JH 2C AD 4S 9H")
    assert coup.player.cards == parse_cards("JH AD 9H")


@pytest.mark.clause("baccarat-tournament", "1.1.1")
@pytest.mark.clause("baccarat-tournament", "3.6")
def test_baccarat_tournament_3_7_2_second_and_fourth_cards_are_the_banker_hand() -> None:
    coup = Coup.parse("JH 2C AD 4S 9H")
    assert coup.banker.cards == parse_cards("2C 4S")


@pytest.mark.clause("baccarat-tournament", "1.1.4", "2.2.4")
def test_baccarat_tournament_3_8_the_four_cards_decide_pairs() -> None:
    # P 2+3=5 draws 2 (7); B 3+K=3 draws 3 (6).  Third cards repeat ranks; no pair.
    third_cards_match = Picked("2H 3C 3D KS 2S 3H", player=(7, 3), banker=(6, 3))
    assert summary(settle_one(GAME, third_cards_match, "player_pair")) == lost()
    assert summary(settle_one(GAME, third_cards_match, "banker_pair")) == lost()


@pytest.mark.clause("baccarat-tournament", "1.1.4", "2.2.4")
def test_baccarat_tournament_3_8_1_player_pair_on_the_first_two_player_cards() -> None:
    assert settle_one(GAME, PLAYER_PAIR, "player_pair").event == "pair"
    assert summary(settle_one(GAME, PLAYER_PAIR, "banker_pair")) == lost()


@pytest.mark.clause("baccarat-tournament", "1.1.4", "2.2.4")
def test_baccarat_tournament_3_8_2_banker_pair_on_the_first_two_banker_cards() -> None:
    assert settle_one(GAME, BANKER_PAIR, "banker_pair").event == "pair"
    assert summary(settle_one(GAME, BANKER_PAIR, "player_pair")) == lost()


@pytest.mark.clause("baccarat-tournament", "1.1.3")
@pytest.mark.parametrize(("player_total", "banker_total"), [(8, 5), (9, 9), (3, 8), (7, 9)])
def test_baccarat_tournament_3_9_1_a_natural_ends_the_deal(
    player_total: int, banker_total: int
) -> None:
    assert initial_deal(player_total, banker_total).is_complete


def test_baccarat_tournament_3_9_2_player_draws_on_0_to_5_stands_on_6_or_7() -> None:
    assert [player_draws(p, 6) for p in range(8)] == [True] * 6 + [False] * 2


@pytest.mark.parametrize("player_total", [6, 7])
def test_baccarat_tournament_3_9_3_player_stands_banker_draws_0_to_5_stands_6_7(
    player_total: int,
) -> None:
    draws = [banker_draws_when_player_stands(player_total, b) for b in range(8)]
    assert draws == [True] * 6 + [False] * 2


@pytest.mark.parametrize("banker_total", range(8))
def test_baccarat_tournament_3_9_4_banker_draws_by_the_player_third_card(
    banker_total: int,
) -> None:
    drawn_on = {t for t in range(10) if banker_draws_after_third_card(banker_total, t)}
    assert drawn_on == BANKER_DRAWS_ON[banker_total]


def test_baccarat_tournament_3_10_the_highest_point_total_wins() -> None:
    assert settle_one(GAME, BANKER_NATURAL_NINE, "banker", STAKE).event == "win"
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "player", STAKE)) == lost(STAKE)


@pytest.mark.clause("baccarat-tournament", "1.1.7")
def test_baccarat_tournament_3_10_1_a_tie_returns_player_and_banker_and_tie_wins() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "player", STAKE)) == PUSHED
    assert summary(settle_one(GAME, TIE_ON_SIX, "banker", STAKE)) == PUSHED
    assert summary(settle_one(GAME, TIE_ON_SIX, "tie")) == won("tie", "80.00")


# -- 4 Settlement ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wager", "event", "odds"),
    [
        ("banker", "win", Fraction(1)),
        ("player", "win", Fraction(1)),
        ("tie", "tie", Fraction(8)),
        ("player_pair", "pair", Fraction(11)),
        ("banker_pair", "pair", Fraction(11)),
    ],
)
def test_baccarat_tournament_4_1_pay_table_as_printed(
    wager: str, event: str, odds: Fraction
) -> None:
    assert GAME.wagers[wager].pays[event].odds == odds


def test_baccarat_tournament_4_1_banker_pays_1_to_1_no_commission() -> None:
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "banker", STAKE)) == won("win", "100.00")
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "banker", STAKE)) == won("win", "100.00")
    assert settle_one(GAME, BANKER_NATURAL_NINE, "banker", Decimal("0.15")).net == Decimal("0.15")


def test_baccarat_tournament_4_1_player_pays_1_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "player", STAKE)) == won("win", "100.00")


def test_baccarat_tournament_4_1_tie_pays_8_to_1() -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "tie", STAKE)) == won("tie", "800.00")


def test_baccarat_tournament_4_1_player_pair_pays_11_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_PAIR, "player_pair")) == won("pair", "110.00")
    assert summary(settle_one(GAME, NINES_PLAYER, "player_pair")) == won("pair", "110.00")


def test_baccarat_tournament_4_1_banker_pair_pays_11_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_PAIR, "banker_pair")) == won("pair", "110.00")


def test_baccarat_tournament_4_1_both_pairs_each_pay_11_to_1() -> None:
    bets = [Bet("player_pair", Decimal(10)), Bet("banker_pair", Decimal(20))]
    results = settle(GAME, DOUBLE_PAIR.coup(), bets).results
    assert [r.net for r in results] == [Decimal("110.00"), Decimal("220.00")]
    results = settle(GAME, TWIN_PAIR.coup(), bets).results
    assert [r.net for r in results] == [Decimal("110.00"), Decimal("220.00")]


def test_baccarat_tournament_1_1_4_pairs_are_by_rank() -> None:
    assert GAME.pair_rule is PairRule.RANK
    assert summary(settle_one(GAME, QUEENS_PLAYER, "player_pair")) == won("pair", "110.00")
    assert summary(settle_one(GAME, TEN_JACK_PLAYER, "player_pair")) == lost()


# -- Every wager x event, on every layout --------------------------------------------------

CASES = [
    win("banker", "win", BANKER_NATURAL_NINE, "100.00", STAKE),
    push("banker", NATURAL_TIE),
    lose("banker", PLAYER_NATURAL_NINE, STAKE),
    win("player", "win", PLAYER_NATURAL_NINE, "100.00", STAKE),
    push("player", TIE_ON_SIX),
    lose("player", BANKER_NATURAL_NINE, STAKE),
    win("tie", "tie", NATURAL_TIE, "80.00"),
    lose("tie", BANKER_PAIR),
    win("player_pair", "pair", PLAYER_PAIR, "110.00"),
    lose("player_pair", BANKER_PAIR),
    win("banker_pair", "pair", BANKER_PAIR, "110.00"),
    lose("banker_pair", PLAYER_PAIR),
]


@pytest.mark.parametrize("layout", list(GAME.layouts))
def test_baccarat_tournament_every_wager_and_event_has_a_case_on_every_layout(
    layout: str,
) -> None:
    assert wager_events(GAME, layout) == {(c.wager, c.event) for c in CASES}


@pytest.mark.parametrize(("layout", "case"), matrix(GAME, CASES), ids=matrix_id)
def test_baccarat_tournament_4_1_settles_every_wager_and_event(layout: str, case: Case) -> None:
    result = settle_one(GAME, case.picked, case.wager, case.stake, layout=layout)
    assert summary(result) == (case.outcome, case.event, case.net)


# -- Outcome established (no power-failure clause here; the live table asks) -----------------


def test_baccarat_tournament_outcome_established_nothing_before_the_third_card() -> None:
    assert decided(GAME, Deal(parse_cards("4H 4C"))) == {}


def test_baccarat_tournament_outcome_established_player_pair_after_three_cards() -> None:
    assert decided(GAME, Deal(parse_cards("4H 2C 4D"))) == {"player_pair": "pair"}
    assert decided(GAME, Deal(parse_cards("4H 2C 5D"))) == {"player_pair": None}


def test_baccarat_tournament_outcome_established_all_wagers_on_a_four_card_coup() -> None:
    # P 2+4=6 stands; B 3+4=7 stands: the coup is over too.
    four = Deal(parse_cards("2H 3C 4D 4S"))
    assert decided(GAME, four) == {
        "banker": "win",
        "player": None,
        "tie": None,
        "player_pair": None,
        "banker_pair": None,
    }


@pytest.mark.parametrize("cards", ["2H 3C 2D 4S", "6H 3C KD KS", "7H 7C KD KS"])
def test_baccarat_tournament_outcome_established_matches_every_ending(cards: str) -> None:
    deal_so_far = Deal(parse_cards(cards))
    assert decided(GAME, deal_so_far) == settled_by_every_ending(GAME, deal_so_far)
