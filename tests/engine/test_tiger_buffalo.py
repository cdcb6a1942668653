"""Tiger Buffalo (Commission Baccarat with Insurance Plus) (RWS), Version 2
(rules file 002): sections 2-4, clause by clause, layout by layout.

Every coup is hand-picked in shoe order and worked out by hand (see
``tests/helpers.py``); stakes are 100 on Player/Banker and 10 on side bets and
Insurance Plus bets.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import pytest

from punto.errors import DeckCountError, InsuranceError, WagerError
from punto.rules.cards import parse_cards
from punto.rules.coup import Coup, Deal, Hand, Side
from punto.rules.established import decided
from punto.rules.games import get_game
from punto.rules.insurance import InsuranceTable, Moment
from punto.rules.settlement import Bet, BetResult, Outcome, settle
from punto.rules.wagers import PairRule
from tests.helpers import (
    BANKER_DRAWS_ON,
    BANKER_EIGHT_OVER_SEVEN,
    BANKER_EIGHT_OVER_SEVEN_FIVE_CARDS,
    BANKER_NATURAL_NINE,
    BANKER_NINE_OVER_EIGHT,
    BANKER_PAIR,
    BANKER_SEVEN_OVER_SIX_FOUR_CARDS,
    BANKER_SEVEN_OVER_SIX_SIX_CARDS,
    BANKER_SEVEN_THREE_CARDS,
    BANKER_SIX_THREE_CARDS,
    BANKER_SIX_TWO_CARDS,
    DOUBLE_PAIR,
    NATURAL_TIE,
    PLAYER_EIGHT_OVER_SEVEN,
    PLAYER_NATURAL_NINE,
    PLAYER_NINE_OVER_EIGHT,
    PLAYER_ONE_OVER_ZERO,
    PLAYER_PAIR,
    PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX,
    PLAYER_SEVEN_OVER_SIX_FIVE_CARDS,
    PLAYER_SEVEN_OVER_SIX_FOUR_CARDS,
    PLAYER_SEVEN_OVER_SIX_SIX_CARDS,
    PLAYER_SIX_THREE_CARDS,
    PLAYER_SIX_TWO_CARDS,
    PUSHED,
    SIDE_STAKE,
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
    value_card,
    wager_events,
    win,
    won,
)

GAME = get_game("tiger-buffalo")
LAYOUTS = list("ABCDEFGHIJKLMN")
FOUR = Moment.FOUR_CARDS
THIRD = Moment.PLAYER_THIRD_CARD


def insurance_table() -> InsuranceTable:
    assert GAME.insurance is not None
    return GAME.insurance


# -- Which layout offers which wager (4.1.2-4.1.15), transcribed from the clauses ------------

ALL_BUT_M = set(LAYOUTS) - {"M"}
OFFERED_ON: dict[str, set[str]] = {
    "player": set(LAYOUTS),  # 4.1.2
    "banker": set(LAYOUTS),  # 4.1.2
    "tie": set(LAYOUTS),  # 4.1.3
    "player_pair": set("ABDEGJK"),  # 4.1.4
    "banker_pair": set("ABDEGJK"),  # 4.1.4
    "big_tiger": ALL_BUT_M,  # 4.1.5
    "small_tiger": ALL_BUT_M,  # 4.1.5
    "big_buffalo": ALL_BUT_M,  # 4.1.6
    "small_buffalo": ALL_BUT_M,  # 4.1.6
    "banker_big_7": {"M"},  # 4.1.7
    "banker_small_7": {"M"},  # 4.1.7
    "player_big_7": {"M"},  # 4.1.8
    "player_small_7": {"M"},  # 4.1.8
    "tiger_buffalo": set("CFHI"),  # 4.1.9
    "tiger_pair": {"M"},  # 4.1.10
    "tiger_tie": {"L", "N"},  # 4.1.11
    "wu_dalang": set("CFHIM"),  # 4.1.12
    "tiger": {"M"},  # 4.1.13
    "player_char_siu": ALL_BUT_M,  # 4.1.14
    "banker_char_siu": ALL_BUT_M,  # 4.1.14
    "player_insurance": set(LAYOUTS),  # 3.11, 4.1.15
    "banker_insurance": set(LAYOUTS),  # 3.11, 4.1.15
}


@pytest.mark.clause("tiger-buffalo", "2.1.1")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tiger_buffalo_4_1_3_to_4_1_14_each_layout_offers_exactly_its_wagers(layout: str) -> None:
    expected = {wager for wager, layouts in OFFERED_ON.items() if layout in layouts}
    assert set(GAME.offered(layout)) == expected


@pytest.mark.clause("tiger-buffalo", "2.1.1")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tiger_buffalo_4_1_3_to_4_1_14_wagers_not_offered_are_refused_naming_the_offered(
    layout: str,
) -> None:
    offered = GAME.offered(layout)
    missing = [wager for wager in OFFERED_ON if wager not in offered]
    assert missing  # every layout lacks some wager of the game
    for wager in missing:
        with pytest.raises(WagerError) as refused:
            GAME.wager(wager, layout)
        message = str(refused.value)
        assert f"{wager} is not offered on layout {layout}" in message
        assert all(clause in message for clause in GAME.wagers[wager].clauses)
        assert message.endswith("offered: " + ", ".join(offered))


@pytest.mark.clause("tiger-buffalo", "1.31")
def test_tiger_buffalo_4_1_13_tiger_bet_on_layout_a_is_refused_at_settlement() -> None:
    coup = BANKER_SIX_TWO_CARDS.coup()
    with pytest.raises(WagerError, match=r"tiger is not offered on layout A.*4\.1\.13"):
        settle(GAME, coup, [Bet("tiger", Decimal(10))], layout="A")
    result = settle(GAME, coup, [Bet("tiger", Decimal(10))], layout="M").results[0]
    assert summary(result) == won("two_cards", "120.00")


# -- 2 Mode of Play ----------------------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "2.1")
def test_tiger_buffalo_2_1_1_layouts_a_to_n() -> None:
    assert list(GAME.layouts) == LAYOUTS
    with pytest.raises(WagerError, match=r"no layout 'O' \(clause 2\.1\.1\)"):
        GAME.layout("O")


@pytest.mark.clause("tiger-buffalo", "2.1")
def test_tiger_buffalo_2_1_1_the_layouts_differ_so_one_must_be_chosen() -> None:
    assert GAME.layouts_differ
    with pytest.raises(WagerError, match=r"clause 2\.1\.1"):
        GAME.check_layout(None)
    assert GAME.check_layout("m") == "M"


@pytest.mark.clause("tiger-buffalo", "2.2")
@pytest.mark.parametrize("decks", range(4, 11))
def test_tiger_buffalo_2_2_1_four_to_ten_decks(decks: int) -> None:
    assert len(GAME.new_shoe(decks, seed="rws")) == 52 * decks


@pytest.mark.clause("tiger-buffalo", "2.2")
@pytest.mark.parametrize("decks", [3, 11])
def test_tiger_buffalo_2_2_1_other_deck_counts_refused(decks: int) -> None:
    with pytest.raises(DeckCountError, match=r"clause 2\.2\.1"):
        GAME.new_shoe(decks)


# -- 3 How to Play -----------------------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "1.23")
def test_tiger_buffalo_3_2_1_an_ace_is_one_point() -> None:
    assert parse_cards("AS")[0].value == 1


@pytest.mark.clause("tiger-buffalo", "1.23")
def test_tiger_buffalo_3_2_2_two_to_ten_count_their_face_value() -> None:
    """A Ten counts ten, which leaves the second digit of a total unchanged
    (1.23), so the engine's zero for a Ten gives the same Point Totals."""
    assert [c.value for c in parse_cards("2S 3S 4S 5S 6S 7S 8S 9S")] == list(range(2, 10))
    assert Hand(parse_cards("TS 5H")).total == 5
    assert Hand(parse_cards("TS 9H TD")).total == 9


@pytest.mark.clause("tiger-buffalo", "1.23")
def test_tiger_buffalo_3_2_3_picture_cards_are_zero() -> None:
    assert [c.value for c in parse_cards("JS QS KS")] == [0, 0, 0]


def test_tiger_buffalo_3_7_side_bets_without_player_or_banker() -> None:
    coup = PLAYER_SIX_THREE_CARDS.coup()
    bets = [Bet(w, Decimal(10)) for w in ("big_buffalo", "tiger_buffalo", "wu_dalang", "tie")]
    results = settle(GAME, coup, bets, layout="C").results
    assert [summary(r) for r in results] == [
        won("win", "350.00"),
        won("win", "60.00"),
        lost(),
        lost(),
    ]


@pytest.mark.clause("tiger-buffalo", "1.12")
def test_tiger_buffalo_3_10_first_and_third_cards_player_second_and_fourth_banker() -> None:
    coup = Coup.parse("AH 3C KD KS JH 7D")
    assert coup.player.cards == parse_cards("AH KD JH")
    assert coup.banker.cards == parse_cards("3C KS 7D")


@pytest.mark.clause("tiger-buffalo", "1.12")
def test_tiger_buffalo_3_10_the_four_cards_decide_the_pairs() -> None:
    # P 2+3=5 draws 2 (7); B 3+K=3 draws 3 (6).  Third cards repeat ranks; no pair.
    third_cards_match = Picked("2H 3C 3D KS 2S 3H", player=(7, 3), banker=(6, 3))
    for wager, layout in [("player_pair", "A"), ("banker_pair", "A"), ("tiger_pair", "M")]:
        assert summary(settle_one(GAME, third_cards_match, wager, layout=layout)) == lost()


# -- 3.11-3.12 Insurance Plus: who may bet, when, how much -----------------------------------


#: P 7+K=7 stands; B 5+K=5 draws (Player stood) 3 (8).  The Player loses 7 v 8.
#: Player Insurance was offered after four cards: Player 7 v Banker 5, 4 to 1.
PLAYER_SEVEN_LOSES = Picked("7H 5C KD KS 3H", player=(7, 2), banker=(8, 3))
#: P 3+2=5 draws 3 (8); B 4+K=4 draws on a 3, takes 5 (9).  The Player loses 8 v 9.
#: Player Insurance offered after four cards (Player 5 v Banker 4, 3 to 2) and
#: after the Player's third card (Player 8 v Banker 4, 10 to 1).
PLAYER_EIGHT_LOSES = Picked("3H 4C 2D KS 3S 5D", player=(8, 3), banker=(9, 3))
#: P 2+3=5 draws 4 (9); B 3+K=3 draws on a 4, takes 6 (9): a Tie on nine (4.2.1 a).
PLAYER_NINE_TIES_NINE = Picked("2H 3C 3D KS 4H 6D", player=(9, 3), banker=(9, 3))
#: P 2+3=5 draws 5 (0); B 3+K=3 draws on a 5, takes 7 (0): a Tie on zero (4.2.1 b).
PLAYER_ZERO_TIES_ZERO = Picked("2H 3C 3D KS 5H 7D", player=(0, 3), banker=(0, 3))


def insurance_result(
    picked: Picked,
    insures: Side,
    moment: Moment,
    stake: Decimal = SIDE_STAKE,
    original: Decimal = STAKE,
    layout: str = "A",
) -> tuple[BetResult, BetResult]:
    """The Original Bet's result and the Insurance bet's result."""
    bets = [Bet(insures.value, original), Bet(f"{insures.value}_insurance", stake, moment)]
    original_result, insured = settle(GAME, picked.coup(), bets, layout=layout).results
    return original_result, insured


@pytest.mark.clause("tiger-buffalo", "1.14", "1.16")
def test_tiger_buffalo_3_11_insurance_needs_an_original_bet_on_that_hand() -> None:
    coup = PLAYER_SEVEN_LOSES.coup()
    with pytest.raises(InsuranceError, match=r"there is none \(clause 3\.11\)"):
        settle(GAME, coup, [Bet("player_insurance", Decimal(10), FOUR)], layout="A")
    with pytest.raises(InsuranceError, match=r"clause 3\.11"):
        settle(
            GAME,
            coup,
            [Bet("banker", Decimal(100)), Bet("player_insurance", Decimal(10), FOUR)],
            layout="A",
        )


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_11_insurance_is_paid_when_the_insured_hand_loses() -> None:
    original, insured = insurance_result(PLAYER_SEVEN_LOSES, Side.PLAYER, FOUR)
    assert summary(original) == lost(STAKE)
    assert summary(insured) == won("hand_loses", "40.00")
    assert insured.to_json()["moment"] == "four_cards"
    assert insured.to_json()["pays"] == "4 to 1"


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_11_insurance_loses_when_the_insured_hand_wins() -> None:
    # P 7+K=7 stands; B 5+K=5 draws a K (5).  Player 7 wins: Player Insurance loses.
    player_wins = Picked("7H 5C KD KS KH", player=(7, 2), banker=(5, 3))
    original, insured = insurance_result(player_wins, Side.PLAYER, FOUR)
    assert summary(original) == won("win", "100.00")
    assert summary(insured) == lost()


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_insurance_offered_after_four_cards_and_after_player_third() -> None:
    table = insurance_table()
    four = Deal(parse_cards("3H 4C 2D KS"))
    assert [(o.moment, o.odds) for o in table.offers(four)] == [(FOUR, Fraction(3, 2))]
    five = four.add(parse_cards("3S")[0])
    assert [(o.moment, o.odds) for o in table.offers(five)] == [(THIRD, Fraction(10))]
    for cards in ["", "3H", "3H 4C", "3H 4C 2D", "3H 4C 2D KS 3S 5D"]:
        assert table.offers(Deal(parse_cards(cards))) == []


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_1_player_insurance_on_two_or_three_cards_banker_on_two() -> None:
    table = insurance_table()
    # P 6 stood on two cards; B 5 will draw: Player Insurance on two cards.
    (two_card,) = table.offers(Deal(parse_cards("6H 5C KD KS")))
    assert (two_card.insures, two_card.moment) == (Side.PLAYER, FOUR)
    # P 5 drew a 3 (8); B 4 will draw: Player Insurance on three cards.
    (three_card,) = table.offers(Deal(parse_cards("3H 4C 2D KS 3S")))
    assert (three_card.insures, three_card.moment) == (Side.PLAYER, THIRD)
    # Banker Insurance: the Banker still holds its two cards at both moments.
    for row in ROWS:
        if row.insures is Side.BANKER:
            assert Deal(parse_cards(row.deal)).banker.card_count == 2
    # After the Banker's third card the coup is over: nothing is offered.
    assert table.offers(Deal(PLAYER_EIGHT_LOSES.coup().cards)) == []


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_2_insurance_may_not_exceed_the_original_bet() -> None:
    original, insured = insurance_result(PLAYER_SEVEN_LOSES, Side.PLAYER, FOUR, Decimal(100))
    assert summary(original) == lost(STAKE)
    assert summary(insured) == won("hand_loses", "400.00")
    with pytest.raises(InsuranceError, match=r"over its cap of 100\.00 \(clause 3\.12\.2\)"):
        insurance_result(PLAYER_SEVEN_LOSES, Side.PLAYER, FOUR, Decimal("100.01"))


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_2_the_cap_counts_every_insurance_bet_at_that_moment() -> None:
    bets = [
        Bet("player", Decimal(100)),
        Bet("player_insurance", Decimal(60), FOUR),
        Bet("player_insurance", Decimal(50), FOUR),
    ]
    with pytest.raises(InsuranceError, match=r"totals 110\.00, over its cap of 100\.00"):
        settle(GAME, PLAYER_SEVEN_LOSES.coup(), bets, layout="A")


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_2_the_cap_applies_each_time_insurance_is_offered() -> None:
    bets = [
        Bet("player", Decimal(100)),
        Bet("player_insurance", Decimal(100), FOUR),
        Bet("player_insurance", Decimal(100), THIRD),
    ]
    results = settle(GAME, PLAYER_EIGHT_LOSES.coup(), bets, layout="A").results
    assert [summary(r) for r in results] == [
        lost(STAKE),
        won("hand_loses", "150.00"),
        won("hand_loses", "1000.00"),
    ]


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_2_ten_to_one_capped_at_a_quarter_of_the_table_maximum() -> None:
    coup = PLAYER_EIGHT_LOSES.coup()

    def bets(stake: str) -> list[Bet]:
        return [Bet("player", Decimal(100)), Bet("player_insurance", Decimal(stake), THIRD)]

    with pytest.raises(InsuranceError, match=r"over its cap of 50\.00 \(clause 3\.12\.2\)"):
        settle(GAME, coup, bets("50.01"), layout="A", table_maximum=Decimal(200))
    ok = settle(GAME, coup, bets("50"), layout="A", table_maximum=Decimal(200)).results[1]
    assert summary(ok) == won("hand_loses", "500.00")
    # a quarter of 1000 is 250, so the Original Bet (100) is the tighter cap
    with pytest.raises(InsuranceError, match=r"over its cap of 100\.00"):
        settle(GAME, coup, bets("101"), layout="A", table_maximum=Decimal(1000))


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_2_quarter_of_the_maximum_is_only_for_ten_to_one() -> None:
    bets = [Bet("player", Decimal(100)), Bet("player_insurance", Decimal(100), FOUR)]
    result = settle(
        GAME, PLAYER_SEVEN_LOSES.coup(), bets, layout="A", table_maximum=Decimal(200)
    ).results[1]
    assert summary(result) == won("hand_loses", "400.00")


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_2_max_stake_left_to_bet() -> None:
    table = insurance_table()
    ten_to_one = table.offer(Deal(parse_cards("3H 4C 2D KS 3S")), Side.PLAYER)
    four_to_one = table.offer(Deal(parse_cards("7H 5C KD KS")), Side.PLAYER)
    assert table.max_stake(ten_to_one, Decimal(100), table_maximum=Decimal(200)) == 50
    assert table.max_stake(ten_to_one, Decimal(100), Decimal(30), Decimal(200)) == 20
    assert table.max_stake(four_to_one, Decimal(100), Decimal(30), Decimal(200)) == 70
    assert table.max_stake(four_to_one, Decimal(100), Decimal(130)) == 0


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_insurance_needs_the_moment_it_was_placed() -> None:
    bets = [Bet("player", Decimal(100)), Bet("player_insurance", Decimal(10))]
    with pytest.raises(InsuranceError, match=r"needs the moment"):
        settle(GAME, PLAYER_SEVEN_LOSES.coup(), bets, layout="A")
    with pytest.raises(InsuranceError, match="takes no moment"):
        settle(GAME, PLAYER_SEVEN_LOSES.coup(), [Bet("player", Decimal(1), FOUR)], layout="A")


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_3_12_insurance_at_a_moment_never_reached_is_refused() -> None:
    # The Player stood on 7: there was never a Player's third card.
    with pytest.raises(InsuranceError, match=r"clause 4\.1\.15"):
        insurance_result(PLAYER_SEVEN_LOSES, Side.PLAYER, THIRD)
    # A natural: no insurance at all.
    with pytest.raises(InsuranceError, match=r"clause 4\.1\.15"):
        insurance_result(BANKER_NATURAL_NINE, Side.PLAYER, FOUR)


# -- 3.13-3.17 the coup --------------------------------------------------------------------


@pytest.mark.parametrize("player_total", [6, 7])
def test_tiger_buffalo_3_13_player_stands_banker_stands_6_to_9_draws_0_to_5(
    player_total: int,
) -> None:
    draws = [banker_draws_when_player_stands(player_total, b) for b in range(8)]
    assert draws == [True] * 6 + [False] * 2
    assert initial_deal(player_total, 8).is_complete
    assert initial_deal(player_total, 9).is_complete


@pytest.mark.clause("tiger-buffalo", "1.1", "1.15")
@pytest.mark.parametrize(("player_total", "banker_total"), [(8, 1), (9, 5), (5, 8), (7, 9)])
def test_tiger_buffalo_3_15_a_natural_ends_the_deal(player_total: int, banker_total: int) -> None:
    assert initial_deal(player_total, banker_total).is_complete


@pytest.mark.clause("tiger-buffalo", "1.1")
def test_tiger_buffalo_3_15_player_draws_on_0_to_5_stands_on_6_or_7() -> None:
    assert [player_draws(p, 3) for p in range(8)] == [True] * 6 + [False] * 2


@pytest.mark.clause("tiger-buffalo", "1.1")
@pytest.mark.parametrize("banker_total", range(8))
def test_tiger_buffalo_3_15_banker_draws_by_the_player_third_card(banker_total: int) -> None:
    drawn_on = {t for t in range(10) if banker_draws_after_third_card(banker_total, t)}
    assert drawn_on == BANKER_DRAWS_ON[banker_total]


def test_tiger_buffalo_3_16_the_higher_point_total_wins() -> None:
    assert summary(settle_one(GAME, PLAYER_NINE_OVER_EIGHT, "player", STAKE, layout="A")) == (
        won("win", "100.00")
    )
    assert summary(settle_one(GAME, PLAYER_NINE_OVER_EIGHT, "banker", STAKE, layout="A")) == (
        lost(STAKE)
    )


@pytest.mark.clause("tiger-buffalo", "1.30")
def test_tiger_buffalo_3_17_a_tie_returns_the_original_and_insurance_bets() -> None:
    # P 6+K=6 stands; B 5+K=5 draws an A (6): a Tie.  Player Insurance was
    # offered after four cards at Player 6 v Banker 5, 5 to 2.
    tie = Picked("6H 5C KD KS AH", player=(6, 2), banker=(6, 3))
    original, insured = insurance_result(tie, Side.PLAYER, FOUR, Decimal(50))
    assert summary(original) == PUSHED
    assert summary(insured) == PUSHED
    assert summary(settle_one(GAME, tie, "banker", STAKE, layout="A")) == PUSHED


@pytest.mark.clause("tiger-buffalo", "1.30")
def test_tiger_buffalo_3_17_except_player_insurance_on_nine() -> None:
    original, insured = insurance_result(PLAYER_NINE_TIES_NINE, Side.PLAYER, THIRD)
    assert summary(original) == PUSHED
    assert summary(insured) == won("tie_paid", "100.00")


# -- 4.1 Odds of each winning bet --------------------------------------------------------------

PRINTED_PAYS = [
    ("banker", "win", Fraction(95, 100)),  # 4.1.1, 4.1.2
    ("player", "win", Fraction(1)),  # 4.1.2
    ("tie", "tie", Fraction(8)),  # 4.1.3
    ("banker_pair", "pair", Fraction(11)),  # 4.1.4
    ("player_pair", "pair", Fraction(11)),  # 4.1.4
    ("big_tiger", "win", Fraction(50)),  # 4.1.5
    ("small_tiger", "win", Fraction(22)),  # 4.1.5
    ("big_buffalo", "win", Fraction(35)),  # 4.1.6
    ("small_buffalo", "win", Fraction(20)),  # 4.1.6
    ("banker_big_7", "win", Fraction(30)),  # 4.1.7
    ("banker_small_7", "win", Fraction(15)),  # 4.1.7
    ("player_big_7", "win", Fraction(30)),  # 4.1.8
    ("player_small_7", "win", Fraction(15)),  # 4.1.8
    ("tiger_buffalo", "win", Fraction(6)),  # 4.1.9
    ("tiger_pair", "single", Fraction(4)),  # 4.1.10
    ("tiger_pair", "double", Fraction(20)),  # 4.1.10
    ("tiger_pair", "twin", Fraction(100)),  # 4.1.10
    ("tiger_tie", "win", Fraction(35)),  # 4.1.11
    ("wu_dalang", "win", Fraction(150)),  # 4.1.12
    ("tiger", "two_cards", Fraction(12)),  # 4.1.13
    ("tiger", "three_cards", Fraction(20)),  # 4.1.13
    ("player_char_siu", "four_cards", Fraction(10)),  # 4.1.14
    ("player_char_siu", "five_cards", Fraction(15)),  # 4.1.14
    ("player_char_siu", "six_cards", Fraction(50)),  # 4.1.14
    ("banker_char_siu", "four_cards", Fraction(10)),  # 4.1.14
    ("banker_char_siu", "five_cards", Fraction(15)),  # 4.1.14
    ("banker_char_siu", "six_cards", Fraction(50)),  # 4.1.14
]


@pytest.mark.parametrize(("wager", "event", "odds"), PRINTED_PAYS)
def test_tiger_buffalo_4_1_pay_tables_as_printed(wager: str, event: str, odds: Fraction) -> None:
    assert GAME.wagers[wager].pays[event].odds == odds


def test_tiger_buffalo_4_1_1_banker_pays_less_a_five_percent_commission() -> None:
    assert summary(settle_one(GAME, BANKER_NATURAL_NINE, "banker", STAKE, layout="A")) == (
        won("win", "95.00")
    )
    assert settle_one(GAME, BANKER_NATURAL_NINE, "banker", Decimal(30), layout="A").net == (
        Decimal("28.50")
    )


def test_tiger_buffalo_4_1_2_player_pays_1_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_NATURAL_NINE, "player", STAKE, layout="M")) == (
        won("win", "100.00")
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tiger_buffalo_4_1_3_tie_pays_8_to_1_on_every_layout(layout: str) -> None:
    assert summary(settle_one(GAME, NATURAL_TIE, "tie", layout=layout)) == won("tie", "80.00")


@pytest.mark.clause("tiger-buffalo", "1.21")
def test_tiger_buffalo_4_1_4_banker_pair_pays_11_to_1() -> None:
    assert summary(settle_one(GAME, BANKER_PAIR, "banker_pair", layout="A")) == (
        won("pair", "110.00")
    )


@pytest.mark.clause("tiger-buffalo", "1.21")
def test_tiger_buffalo_4_1_4_player_pair_pays_11_to_1() -> None:
    assert summary(settle_one(GAME, PLAYER_PAIR, "player_pair", layout="K")) == (
        won("pair", "110.00")
    )


def test_tiger_buffalo_1_21_pairs_are_by_rank() -> None:
    """ "form a pair (for example 10, 10 or K, K)": a Ten and a King are not."""
    ten_king = Picked("TH 4C KD 5S", player=(0, 2), banker=(9, 2))
    tens = Picked("TH 4C TD 5S", player=(0, 2), banker=(9, 2))
    assert GAME.pair_rule is PairRule.RANK
    assert summary(settle_one(GAME, ten_king, "player_pair", layout="A")) == lost()
    assert summary(settle_one(GAME, tens, "player_pair", layout="A")) == won("pair", "110.00")


@pytest.mark.clause("tiger-buffalo", "1.7")
def test_tiger_buffalo_4_1_5_big_tiger_pays_50_to_1() -> None:
    result = settle_one(GAME, BANKER_SIX_THREE_CARDS, "big_tiger", layout="A")
    assert summary(result) == won("win", "500.00")
    assert summary(settle_one(GAME, BANKER_SIX_TWO_CARDS, "big_tiger", layout="A")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.28")
def test_tiger_buffalo_4_1_5_small_tiger_pays_22_to_1() -> None:
    result = settle_one(GAME, BANKER_SIX_TWO_CARDS, "small_tiger", layout="N")
    assert summary(result) == won("win", "220.00")
    assert summary(settle_one(GAME, BANKER_SIX_THREE_CARDS, "small_tiger", layout="N")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.6")
def test_tiger_buffalo_4_1_6_big_buffalo_pays_35_to_1() -> None:
    result = settle_one(GAME, PLAYER_SIX_THREE_CARDS, "big_buffalo", layout="A")
    assert summary(result) == won("win", "350.00")
    assert summary(settle_one(GAME, PLAYER_SIX_TWO_CARDS, "big_buffalo", layout="A")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.27")
def test_tiger_buffalo_4_1_6_small_buffalo_pays_20_to_1() -> None:
    result = settle_one(GAME, PLAYER_SIX_TWO_CARDS, "small_buffalo", layout="A")
    assert summary(result) == won("win", "200.00")
    assert summary(settle_one(GAME, PLAYER_SIX_THREE_CARDS, "small_buffalo", layout="A")) == lost()
    assert summary(settle_one(GAME, TIE_ON_SIX, "small_buffalo", layout="A")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.2")
def test_tiger_buffalo_4_1_7_banker_big_7_pays_30_to_1() -> None:
    result = settle_one(GAME, BANKER_SEVEN_THREE_CARDS, "banker_big_7", layout="M")
    assert summary(result) == won("win", "300.00")
    two_cards = settle_one(GAME, BANKER_SEVEN_OVER_SIX_FOUR_CARDS, "banker_big_7", layout="M")
    assert summary(two_cards) == lost()


@pytest.mark.clause("tiger-buffalo", "1.4")
def test_tiger_buffalo_4_1_7_banker_small_7_pays_15_to_1() -> None:
    result = settle_one(GAME, BANKER_SEVEN_OVER_SIX_FOUR_CARDS, "banker_small_7", layout="M")
    assert summary(result) == won("win", "150.00")
    assert summary(settle_one(GAME, BANKER_SEVEN_THREE_CARDS, "banker_small_7", layout="M")) == (
        lost()
    )


@pytest.mark.clause("tiger-buffalo", "1.19")
def test_tiger_buffalo_4_1_8_player_big_7_pays_30_to_1() -> None:
    result = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, "player_big_7", layout="M")
    assert summary(result) == won("win", "300.00")
    two_cards = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "player_big_7", layout="M")
    assert summary(two_cards) == lost()


@pytest.mark.clause("tiger-buffalo", "1.22")
def test_tiger_buffalo_4_1_8_player_small_7_pays_15_to_1() -> None:
    result = settle_one(GAME, PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX, "player_small_7", layout="M")
    assert summary(result) == won("win", "150.00")
    three = settle_one(GAME, PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "player_small_7", layout="M")
    assert summary(three) == lost()


@pytest.mark.clause("tiger-buffalo", "1.32")
@pytest.mark.parametrize(
    "picked",
    [BANKER_SIX_TWO_CARDS, BANKER_SIX_THREE_CARDS, PLAYER_SIX_TWO_CARDS, PLAYER_SIX_THREE_CARDS],
)
def test_tiger_buffalo_4_1_9_tiger_buffalo_pays_6_to_1_when_either_hand_wins_with_6(
    picked: Picked,
) -> None:
    assert summary(settle_one(GAME, picked, "tiger_buffalo", layout="F")) == won("win", "60.00")


@pytest.mark.clause("tiger-buffalo", "1.32")
def test_tiger_buffalo_4_1_9_tiger_buffalo_loses_on_a_tie_of_six() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger_buffalo", layout="F")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.33")
def test_tiger_buffalo_4_1_10_tiger_pair_single_double_twin() -> None:
    def pays(picked: Picked) -> tuple[Outcome, str | None, Decimal]:
        return summary(settle_one(GAME, picked, "tiger_pair", layout="M"))

    assert pays(PLAYER_PAIR) == won("single", "40.00")
    assert pays(BANKER_PAIR) == won("single", "40.00")
    assert pays(DOUBLE_PAIR) == won("double", "200.00")
    assert pays(TWIN_PAIR) == won("twin", "1000.00")
    assert pays(PLAYER_NATURAL_NINE) == lost()


@pytest.mark.clause("tiger-buffalo", "1.34")
def test_tiger_buffalo_4_1_11_tiger_tie_pays_35_to_1() -> None:
    assert summary(settle_one(GAME, TIE_ON_SIX, "tiger_tie", layout="L")) == won("win", "350.00")
    assert summary(settle_one(GAME, NATURAL_TIE, "tiger_tie", layout="L")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.36")
def test_tiger_buffalo_4_1_12_wu_dalang_pays_150_to_1() -> None:
    result = settle_one(GAME, PLAYER_ONE_OVER_ZERO, "wu_dalang", layout="M")
    assert summary(result) == won("win", "1500.00")
    # P A+K=1 draws K (1); B 3+K=3 draws on a 0, takes a 2 (5): the Player loses on 1.
    player_loses_on_one = Picked("AH 3C KD KS KH 2C", player=(1, 3), banker=(5, 3))
    assert summary(settle_one(GAME, player_loses_on_one, "wu_dalang", layout="M")) == lost()


@pytest.mark.clause("tiger-buffalo", "1.31")
def test_tiger_buffalo_4_1_13_tiger_pays_12_or_20_to_1() -> None:
    two = settle_one(GAME, BANKER_SIX_TWO_CARDS, "tiger", layout="M")
    three = settle_one(GAME, BANKER_SIX_THREE_CARDS, "tiger", layout="M")
    assert summary(two) == won("two_cards", "120.00")
    assert summary(three) == won("three_cards", "200.00")


@pytest.mark.parametrize(
    ("wager", "picked", "event", "net"),
    [
        ("player_char_siu", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "four_cards", "100.00"),
        ("player_char_siu", PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, "five_cards", "150.00"),
        ("player_char_siu", PLAYER_SEVEN_OVER_BANKER_DRAWN_SIX, "five_cards", "150.00"),
        ("player_char_siu", PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "six_cards", "500.00"),
        ("player_char_siu", PLAYER_EIGHT_OVER_SEVEN, "four_cards", "100.00"),
        ("player_char_siu", PLAYER_NINE_OVER_EIGHT, "four_cards", "100.00"),
        ("banker_char_siu", BANKER_SEVEN_OVER_SIX_FOUR_CARDS, "four_cards", "100.00"),
        ("banker_char_siu", BANKER_EIGHT_OVER_SEVEN_FIVE_CARDS, "five_cards", "150.00"),
        ("banker_char_siu", BANKER_SEVEN_OVER_SIX_SIX_CARDS, "six_cards", "500.00"),
        ("banker_char_siu", BANKER_EIGHT_OVER_SEVEN, "four_cards", "100.00"),
        ("banker_char_siu", BANKER_NINE_OVER_EIGHT, "four_cards", "100.00"),
    ],
)
@pytest.mark.clause(
    "tiger-buffalo", "1.3", "1.3.1", "1.3.2", "1.3.3", "1.20", "1.20.1", "1.20.2", "1.20.3"
)
def test_tiger_buffalo_4_1_14_char_siu_pays_by_the_number_of_cards(
    wager: str, picked: Picked, event: str, net: str
) -> None:
    assert summary(settle_one(GAME, picked, wager, layout="B")) == won(event, net)


@pytest.mark.parametrize(
    ("wager", "picked"),
    [
        ("player_char_siu", PLAYER_SIX_TWO_CARDS),  # 6 over 5: not 7, 8 or 9
        ("player_char_siu", PLAYER_NATURAL_NINE),  # 9 over 5: not by one point
        ("player_char_siu", BANKER_EIGHT_OVER_SEVEN),  # the Banker won
        ("banker_char_siu", BANKER_SIX_TWO_CARDS),  # 6 over 5
        ("banker_char_siu", BANKER_SEVEN_THREE_CARDS),  # 7 over 5
        ("banker_char_siu", PLAYER_EIGHT_OVER_SEVEN),  # the Player won
    ],
)
@pytest.mark.clause(
    "tiger-buffalo", "1.3", "1.3.1", "1.3.2", "1.3.3", "1.20", "1.20.1", "1.20.2", "1.20.3"
)
def test_tiger_buffalo_4_1_14_char_siu_loses_unless_winning_by_one_with_7_8_or_9(
    wager: str, picked: Picked
) -> None:
    assert summary(settle_one(GAME, picked, wager, layout="B")) == lost()


# -- 4.1.15 Baccarat Insurance Plus Pay Table ---------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One row of the 4.1.15 pay table, with a deal that reaches it and a
    finished coup from that deal on which the Insurance bet is paid."""

    insures: Side
    moment: Moment
    deal: str
    points: tuple[int, int]  # (Player, Banker) points when the offer is made
    odds: Fraction
    net: str  # on an Insurance bet of 10, worked out by hand
    paid_on: Picked
    event: str = "hand_loses"

    @property
    def id(self) -> str:
        p, b = self.points
        return f"{self.insures.value}-{self.moment.value}-P{p}vB{b}"


# fmt: off
ROWS = [
    # Player Insurance, after four cards exposed
    Row(Side.PLAYER, FOUR, "3H 4C 2D KS", (5, 4), Fraction(3, 2), "15.00",
        Picked("3H 4C 2D KS 8H", player=(3, 3), banker=(4, 2))),  # B 4 stands on an 8
    Row(Side.PLAYER, FOUR, "6H 5C KD KS", (6, 5), Fraction(5, 2), "25.00",
        Picked("6H 5C KD KS 2H", player=(6, 2), banker=(7, 3))),
    Row(Side.PLAYER, FOUR, "7H 5C KD KS", (7, 5), Fraction(4), "40.00", PLAYER_SEVEN_LOSES),
    # Player Insurance, after the Player's third card exposed
    Row(Side.PLAYER, THIRD, "2H 2C 3D KS KH", (5, 2), Fraction(3, 2), "15.00",
        Picked("2H 2C 3D KS KH 5D", player=(5, 3), banker=(7, 3))),
    Row(Side.PLAYER, THIRD, "2H 5C KD KS 4H", (6, 5), Fraction(5, 2), "25.00",
        Picked("2H 5C KD KS 4H 2D", player=(6, 3), banker=(7, 3))),  # B 5 draws on a 4
    Row(Side.PLAYER, THIRD, "AH 6C KD KS 6H", (7, 6), Fraction(4), "40.00",
        Picked("AH 6C KD KS 6H 2D", player=(7, 3), banker=(8, 3))),  # B 6 draws on a 6
    Row(Side.PLAYER, THIRD, "3H 4C 2D KS 3S", (8, 4), Fraction(10), "100.00", PLAYER_EIGHT_LOSES),
    Row(Side.PLAYER, THIRD, "2H 3C 3D KS 4H", (9, 3), Fraction(10), "100.00", PLAYER_NINE_TIES_NINE,
        "tie_paid"),
    # Banker Insurance, after four cards exposed
    Row(Side.BANKER, FOUR, "3H 4C KD KS", (3, 4), Fraction(3, 2), "15.00",
        Picked("3H 4C KD KS 5H KC", player=(8, 3), banker=(4, 3))),  # B 4 draws on a 5
    Row(Side.BANKER, FOUR, "4H 5C KD KS", (4, 5), Fraction(3, 2), "15.00",
        Picked("4H 5C KD KS 4D KH", player=(8, 3), banker=(5, 3))),  # B 5 draws on a 4
    Row(Side.BANKER, FOUR, "5H 6C KD KS", (5, 6), Fraction(5, 2), "25.00",
        Picked("5H 6C KD KS 2D", player=(7, 3), banker=(6, 2))),  # B 6 stands on a 2
    Row(Side.BANKER, FOUR, "5H 7C KD KS", (5, 7), Fraction(4), "40.00",
        Picked("5H 7C KD KS 3D", player=(8, 3), banker=(7, 2))),
    # Banker Insurance, after the Player's third card exposed
    Row(Side.BANKER, THIRD, "2H 3C 3D KS 5H", (0, 3), Fraction(10), "100.00", PLAYER_ZERO_TIES_ZERO,
        "tie_paid"),
    Row(Side.BANKER, THIRD, "2H AC 3D KS 6H", (1, 1), Fraction(6), "60.00",
        Picked("2H AC 3D KS 6H 9D", player=(1, 3), banker=(0, 3))),
    Row(Side.BANKER, THIRD, "2H 2C 3D KS 6H", (1, 2), Fraction(10), "100.00",
        Picked("2H 2C 3D KS 6H 8D", player=(1, 3), banker=(0, 3))),
    Row(Side.BANKER, THIRD, "2H 3C 3D KS 7H", (2, 3), Fraction(4), "40.00",
        Picked("2H 3C 3D KS 7H 8D", player=(2, 3), banker=(1, 3))),
    Row(Side.BANKER, THIRD, "AH 4C KD KS 2H", (3, 4), Fraction(5, 2), "25.00",
        Picked("AH 4C KD KS 2H 8D", player=(3, 3), banker=(2, 3))),  # B 4 draws on a 2
]
# fmt: on


def row_id(row: Row) -> str:
    return row.id


@pytest.mark.clause("tiger-buffalo", "1.14")
@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_tiger_buffalo_4_1_15_each_row_is_offered_at_its_moment_with_its_odds(row: Row) -> None:
    deal_now = Deal(parse_cards(row.deal))
    assert (deal_now.player.total, deal_now.banker.total) == row.points
    offers = insurance_table().offers(deal_now)
    assert [(o.insures, o.moment, o.odds) for o in offers] == [(row.insures, row.moment, row.odds)]


@pytest.mark.clause("tiger-buffalo", "1.14")
@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_tiger_buffalo_4_1_15_each_row_pays_its_odds(row: Row) -> None:
    coup = row.paid_on.coup()
    assert str(coup).startswith(row.deal)
    original, insured = insurance_result(row.paid_on, row.insures, row.moment)
    assert row.odds * Fraction(SIDE_STAKE) == Fraction(row.net)
    assert summary(insured) == (Outcome.WIN, row.event, Decimal(row.net))
    assert summary(original) == (PUSHED if row.event == "tie_paid" else lost(STAKE))


#: The 4.1.15 pay table as printed: insured hand, moment, the insured hand's
#: points, the other hand's points, odds.
PRINTED_INSURANCE = [
    (Side.PLAYER, FOUR, {5}, {4}, Fraction(3, 2)),
    (Side.PLAYER, FOUR, {6}, set(range(6)), Fraction(5, 2)),
    (Side.PLAYER, FOUR, {7}, set(range(6)), Fraction(4)),
    (Side.PLAYER, THIRD, {5}, set(range(5)), Fraction(3, 2)),
    (Side.PLAYER, THIRD, {6}, set(range(6)), Fraction(5, 2)),
    (Side.PLAYER, THIRD, {7}, set(range(7)), Fraction(4)),
    (Side.PLAYER, THIRD, {8}, set(range(7)), Fraction(10)),
    (Side.PLAYER, THIRD, {9}, set(range(7)), Fraction(10)),
    (Side.BANKER, FOUR, {4}, set(range(4)), Fraction(3, 2)),
    (Side.BANKER, FOUR, {5}, set(range(5)), Fraction(3, 2)),
    (Side.BANKER, FOUR, {6}, set(range(6)), Fraction(5, 2)),
    (Side.BANKER, FOUR, {7}, set(range(6)), Fraction(4)),
    (Side.BANKER, THIRD, set(range(1, 7)), {0}, Fraction(10)),
    (Side.BANKER, THIRD, {1}, {1}, Fraction(6)),
    (Side.BANKER, THIRD, set(range(2, 7)), {1}, Fraction(10)),
    (Side.BANKER, THIRD, set(range(3, 7)), {2}, Fraction(4)),
    (Side.BANKER, THIRD, {4}, {3}, Fraction(5, 2)),
]


def printed_offers(moment: Moment, player: int, banker: int) -> set[tuple[Side, Fraction]]:
    found = set()
    for insures, when, hand, other, odds in PRINTED_INSURANCE:
        mine, theirs = (player, banker) if insures is Side.PLAYER else (banker, player)
        if when is moment and mine in hand and theirs in other:
            found.add((insures, odds))
    return found


@pytest.mark.clause("tiger-buffalo", "1.14")
@pytest.mark.parametrize("player_total", range(10))
def test_tiger_buffalo_4_1_15_after_four_cards_offered_exactly_on_the_printed_rows(
    player_total: int,
) -> None:
    """Every initial deal: the printed rows it matches are offered, unless the
    coup is already over (a natural, or both hands standing)."""
    for banker_total in range(10):
        deal_now = initial_deal(player_total, banker_total)
        offered = {(o.insures, o.odds) for o in insurance_table().offers(deal_now)}
        natural = player_total >= 8 or banker_total >= 8
        both_stand = player_total in (6, 7) and banker_total in (6, 7)
        over = natural or both_stand
        expected = set() if over else printed_offers(FOUR, player_total, banker_total)
        assert offered == expected, (player_total, banker_total)


@pytest.mark.clause("tiger-buffalo", "1.14")
@pytest.mark.parametrize("banker_total", range(8))
def test_tiger_buffalo_4_1_15_after_the_player_third_card_offered_exactly_on_the_printed_rows(
    banker_total: int,
) -> None:
    """Every Player two-card total that draws, every third card: the printed
    rows the three-card Player total and the Banker's two cards match are
    offered while the Banker still has a card to draw, and never once it stands."""
    for player_two in range(6):
        for third in range(10):
            deal_now = initial_deal(player_two, banker_total).add(
                parse_cards([value_card(third, "D")])[0]
            )
            offered = {(o.insures, o.odds) for o in insurance_table().offers(deal_now)}
            player_three = (player_two + third) % 10
            if third in BANKER_DRAWS_ON[banker_total]:
                expected = printed_offers(THIRD, player_three, banker_total)
            else:
                expected = set()
            assert offered == expected, (player_two, third, banker_total)


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_4_1_15_no_offer_once_the_coup_is_decided() -> None:
    """Player 8 v Banker 4 is a printed row after the Player's third card, but
    when the Banker stands (a 4 stands on a third card of 8) the coup is over."""
    # P K+Q=0 draws 8 (8); B 4+K=4 stands on an 8.  Player wins 8 v 4.
    banker_stands = Picked("KH 4C QD KS 8S", player=(8, 3), banker=(4, 2))
    coup = banker_stands.coup()
    assert insurance_table().offers(Deal(coup.cards)) == []
    with pytest.raises(InsuranceError, match=r"no player insurance is offered"):
        insurance_table().offer(Deal(coup.cards), Side.PLAYER)
    with pytest.raises(InsuranceError, match=r"clause 4\.1\.15"):
        insurance_result(banker_stands, Side.PLAYER, THIRD)


@pytest.mark.clause("tiger-buffalo", "1.14")
def test_tiger_buffalo_4_1_15_insurance_is_offered_on_every_layout() -> None:
    for layout in LAYOUTS:
        original, insured = insurance_result(PLAYER_SEVEN_LOSES, Side.PLAYER, FOUR, layout=layout)
        assert (summary(original), summary(insured)) == (lost(STAKE), won("hand_loses", "40.00"))


# -- 4.2 Insurance bets on a Tie ------------------------------------------------------------


def test_tiger_buffalo_4_2_1_insurance_returned_on_a_tie() -> None:
    # P 3+2=5 draws 3 (8); B 4+K=4 draws on a 3, takes 4 (8): a Tie on eight.
    tie_on_eight = Picked("3H 4C 2D KS 3S 4D", player=(8, 3), banker=(8, 3))
    original, insured = insurance_result(tie_on_eight, Side.PLAYER, THIRD)
    assert summary(original) == PUSHED
    assert summary(insured) == PUSHED
    # P 2+3=5 draws 6 (1); B A+K=1 draws a K (1): a Tie on one, Banker Insurance at 6 to 1.
    tie_on_one = Picked("2H AC 3D KS 6H KD", player=(1, 3), banker=(1, 3))
    original, insured = insurance_result(tie_on_one, Side.BANKER, THIRD)
    assert summary(original) == PUSHED
    assert summary(insured) == PUSHED


def test_tiger_buffalo_4_2_1_a_player_insurance_tie_on_nine_is_paid() -> None:
    original, insured = insurance_result(PLAYER_NINE_TIES_NINE, Side.PLAYER, THIRD)
    assert summary(original) == PUSHED
    assert summary(insured) == won("tie_paid", "100.00")


def test_tiger_buffalo_4_2_1_a_player_insurance_on_nine_loses_when_the_player_wins() -> None:
    # P 2+3=5 draws 4 (9); B 3+K=3 draws on a 4, takes 5 (8).  The Player wins 9 v 8.
    player_nine_wins = Picked("2H 3C 3D KS 4H 5D", player=(9, 3), banker=(8, 3))
    original, insured = insurance_result(player_nine_wins, Side.PLAYER, THIRD)
    assert summary(original) == won("win", "100.00")
    assert summary(insured) == lost()


def test_tiger_buffalo_4_2_1_b_banker_insurance_tie_on_zero_is_paid() -> None:
    original, insured = insurance_result(PLAYER_ZERO_TIES_ZERO, Side.BANKER, THIRD)
    assert summary(original) == PUSHED
    assert summary(insured) == won("tie_paid", "100.00")


def test_tiger_buffalo_4_2_1_b_banker_insurance_on_player_zero_loses_when_the_banker_wins() -> None:
    # P 2+3=5 draws 5 (0); B 3+K=3 draws on a 5, takes 2 (5).  The Banker wins 5 v 0.
    banker_wins = Picked("2H 3C 3D KS 5H 2D", player=(0, 3), banker=(5, 3))
    original, insured = insurance_result(banker_wins, Side.BANKER, THIRD)
    assert summary(original) == won("win", "95.00")
    assert summary(insured) == lost()


def test_tiger_buffalo_4_2_1_insurance_and_original_bets_together() -> None:
    bets = [
        Bet("player", Decimal(100)),
        Bet("player_insurance", Decimal(50), FOUR),
        Bet("banker", Decimal(40)),
    ]
    # P 6+K=6 stands; B 5+K=5 draws a 2 (7): the Player loses.
    settlement = settle(GAME, Picked("6H 5C KD KS 2H", (6, 2), (7, 3)).coup(), bets, layout="A")
    assert [summary(r) for r in settlement.results] == [
        lost(STAKE),
        won("hand_loses", "125.00"),
        won("win", "38.00"),
    ]
    assert settlement.net == Decimal("63.00")


# -- Every wager x event, on every layout --------------------------------------------------

CASES = [
    win("player", "win", PLAYER_NATURAL_NINE, "100.00", STAKE),
    push("player", NATURAL_TIE),
    lose("player", BANKER_NATURAL_NINE, STAKE),
    win("banker", "win", BANKER_NATURAL_NINE, "95.00", STAKE),
    push("banker", TIE_ON_SIX),
    lose("banker", PLAYER_NATURAL_NINE, STAKE),
    win("tie", "tie", NATURAL_TIE, "80.00"),
    lose("tie", PLAYER_NATURAL_NINE),
    win("player_pair", "pair", PLAYER_PAIR, "110.00"),
    lose("player_pair", BANKER_PAIR),
    win("banker_pair", "pair", BANKER_PAIR, "110.00"),
    lose("banker_pair", PLAYER_PAIR),
    win("big_tiger", "win", BANKER_SIX_THREE_CARDS, "500.00"),
    lose("big_tiger", BANKER_SIX_TWO_CARDS),
    win("small_tiger", "win", BANKER_SIX_TWO_CARDS, "220.00"),
    lose("small_tiger", BANKER_SIX_THREE_CARDS),
    win("big_buffalo", "win", PLAYER_SIX_THREE_CARDS, "350.00"),
    lose("big_buffalo", PLAYER_SIX_TWO_CARDS),
    win("small_buffalo", "win", PLAYER_SIX_TWO_CARDS, "200.00"),
    lose("small_buffalo", PLAYER_SIX_THREE_CARDS),
    win("banker_big_7", "win", BANKER_SEVEN_THREE_CARDS, "300.00"),
    lose("banker_big_7", BANKER_SEVEN_OVER_SIX_FOUR_CARDS),
    win("banker_small_7", "win", BANKER_SEVEN_OVER_SIX_FOUR_CARDS, "150.00"),
    lose("banker_small_7", BANKER_SEVEN_THREE_CARDS),
    win("player_big_7", "win", PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, "300.00"),
    lose("player_big_7", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS),
    win("player_small_7", "win", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "150.00"),
    lose("player_small_7", PLAYER_SEVEN_OVER_SIX_FIVE_CARDS),
    win("tiger_buffalo", "win", BANKER_SIX_TWO_CARDS, "60.00", label="banker"),
    win("tiger_buffalo", "win", PLAYER_SIX_THREE_CARDS, "60.00", label="player"),
    lose("tiger_buffalo", TIE_ON_SIX),
    win("tiger_pair", "single", PLAYER_PAIR, "40.00"),
    win("tiger_pair", "double", DOUBLE_PAIR, "200.00"),
    win("tiger_pair", "twin", TWIN_PAIR, "1000.00"),
    lose("tiger_pair", NATURAL_TIE),
    win("tiger_tie", "win", TIE_ON_SIX, "350.00"),
    lose("tiger_tie", NATURAL_TIE),
    win("wu_dalang", "win", PLAYER_ONE_OVER_ZERO, "1500.00"),
    lose("wu_dalang", PLAYER_NATURAL_NINE),
    win("tiger", "two_cards", BANKER_SIX_TWO_CARDS, "120.00"),
    win("tiger", "three_cards", BANKER_SIX_THREE_CARDS, "200.00"),
    lose("tiger", PLAYER_SIX_TWO_CARDS),
    win("player_char_siu", "four_cards", PLAYER_SEVEN_OVER_SIX_FOUR_CARDS, "100.00"),
    win("player_char_siu", "five_cards", PLAYER_SEVEN_OVER_SIX_FIVE_CARDS, "150.00"),
    win("player_char_siu", "six_cards", PLAYER_SEVEN_OVER_SIX_SIX_CARDS, "500.00"),
    lose("player_char_siu", PLAYER_SIX_TWO_CARDS),
    win("banker_char_siu", "four_cards", BANKER_SEVEN_OVER_SIX_FOUR_CARDS, "100.00"),
    win("banker_char_siu", "five_cards", BANKER_EIGHT_OVER_SEVEN_FIVE_CARDS, "150.00"),
    win("banker_char_siu", "six_cards", BANKER_SEVEN_OVER_SIX_SIX_CARDS, "500.00"),
    lose("banker_char_siu", BANKER_SEVEN_THREE_CARDS),
]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tiger_buffalo_every_wager_and_event_has_a_case_on_every_layout(layout: str) -> None:
    offered = GAME.offered(layout)
    covered = {(c.wager, c.event) for c in CASES if c.wager in offered}
    assert covered == wager_events(GAME, layout)


@pytest.mark.parametrize(("layout", "case"), matrix(GAME, CASES), ids=matrix_id)
def test_tiger_buffalo_4_1_settles_every_wager_and_event(layout: str, case: Case) -> None:
    result = settle_one(GAME, case.picked, case.wager, case.stake, layout=layout)
    assert summary(result) == (case.outcome, case.event, case.net)


# -- 5.4 Outcome established ------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tiger_buffalo_5_4_nothing_established_before_the_third_card(layout: str) -> None:
    for cards in ["", "2H", "2H 3C"]:
        assert decided(GAME, Deal(parse_cards(cards)), layout=layout) == {}


def test_tiger_buffalo_5_4_pairs_established_after_four_cards_as_the_layout_offers() -> None:
    # P 2+2=4 will draw; B 3+3=6: both hands paired, the coup goes on.
    four = Deal(parse_cards("2H 3C 2D 3S"))
    on_a = decided(GAME, four, layout="A")
    on_m = decided(GAME, four, layout="M")
    assert (on_a["player_pair"], on_a["banker_pair"]) == ("pair", "pair")
    assert on_m["tiger_pair"] == "double"
    assert "tiger_pair" not in on_a
    assert "player_pair" not in on_m
    assert "player_insurance" not in on_a


def test_tiger_buffalo_5_4_small_buffalo_and_wu_dalang_lost_once_the_player_draws_to_6() -> None:
    # P Q+2=2 drew 4 (6); B 2+K=2 will draw.
    five = Deal(parse_cards("QH 2C 2D KS 4H"))
    established = decided(GAME, five, layout="C")
    assert established["small_buffalo"] is None
    assert established["wu_dalang"] is None


@pytest.mark.parametrize(
    ("cards", "layout"),
    [
        ("6H 3C KD KS", "A"),  # P 6 stands; B 3 draws
        ("6H 3C KD KS", "M"),
        ("5H 7C KD KS", "C"),  # P 5 draws; B 7 stands
        # P 2+2=4 draws; B 3+3=6 draws on a 6 or 7: with a 7 the Player has 1,
        # and a Banker 4 (to 0) pays Wu Dalang; a Banker A pays Banker Big 7.
        ("2H 3C 2D 3S", "M"),
        ("QH 2C 2D KS", "M"),
        ("QH 2C 2D KS 4H", "C"),
    ],
)
def test_tiger_buffalo_5_4_established_means_no_card_to_come_can_change_it(
    cards: str, layout: str
) -> None:
    """After QH 2C 2D KS 4H (P 6, B 2 to draw), a 5 gives the Banker 7 v 6
    (Banker Char Siu, six cards) and a 3 gives Player 6 v 5 (Big Buffalo)."""
    deal_so_far = Deal(parse_cards(cards))
    assert decided(GAME, deal_so_far, layout=layout) == settled_by_every_ending(
        GAME, deal_so_far, layout
    )
