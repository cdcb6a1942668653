"""Irregularities of Tiger Buffalo (RWS; section 5, Insurance Plus 3.14 and
4.2.2), each played through the public API of a round with several
players, checking every player's exact net money.

Layout A (Player, Banker, Tie, pairs, side bets).  Coups in shoe order,
worked by hand from the Table of Play:

* ``PLAYER_NINE`` 9H 2C KD 3S -- Player 9, a Natural, over Banker 5.
* ``TIE_SEVEN``   4H 3C 3D 4S -- Player 7, Banker 7: a Tie.
* ``BANKER_SIX``  QH 2C 2D KS 3H 4D -- Player 5 (three cards) v Banker 6 (three).
* ``INSURED``     3H 4C 2D KS 2S 5S -- after four cards Player 3+2=5 v Banker
  4+K=4: Player Insurance 3 to 2 is offered (4.1.15).  Player draws 2: 7;
  Banker 4 draws on a 2: 5, 9.  Banker wins 9 to 7.

Standing bets: ann Player 300 (position 1), bob Banker 200 (2), cat Tie 100
(3).  On PLAYER_NINE: ann +300, bob -200, cat -100; on a Banker win: ann
-300, bob +190 (0.95 to 1), cat -100; on TIE_SEVEN: 0, 0, +800.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from punto.errors import (
    ActionError,
    BettingClosedError,
    InsuranceError,
    LimitError,
    PhaseError,
    RoleError,
)
from punto.eventlog import MemoryEventLog
from punto.rules.cards import Card, parse_cards
from punto.rules.coup import Side
from punto.rules.games import get_game
from punto.rules.insurance import Moment
from punto.table import irregularities as irr
from punto.table.events import TABLE_STREAM, BetPlaced, InsuranceReoffered, WithdrawalOffered
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.roles import Role
from punto.table.round import Phase, Round

GAME = get_game("tiger-buffalo")
LIMITS = TableLimits(Decimal(100), Decimal(10000), differential=Decimal(2000))
PLAYER_NINE = "9H 2C KD 3S"
TIE_SEVEN = "4H 3C 3D 4S"
BANKER_SIX = "QH 2C 2D KS 3H 4D"
INSURED = "3H 4C 2D KS 2S 5S"

ON_PLAYER_NINE = {"ann": Decimal(300), "bob": Decimal(-200), "cat": Decimal(-100)}
ON_BANKER_WIN = {"ann": Decimal(-300), "bob": Decimal(190), "cat": Decimal(-100)}
ON_TIE_SEVEN = {"ann": Decimal(0), "bob": Decimal(0), "cat": Decimal(800)}


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def opened(**options: object) -> Round:
    r = Round(GAME, limits=LIMITS, layout="A", **options)  # type: ignore[arg-type]
    r.open()
    return r


def with_bets(*extra: tuple[str, int, str, int], **options: object) -> Round:
    r = opened(**options)
    r.place_bet("ann", 1, "player", Decimal(300))
    r.place_bet("bob", 2, "banker", Decimal(200))
    r.place_bet("cat", 3, "tie", Decimal(100))
    for player, position, wager, stake in extra:
        r.place_bet(player, position, wager, Decimal(stake))
    r.close_betting()
    return r


def deal_cards(r: Round, text: str) -> None:
    for card in cards(text):
        r.deal_card(card)


def finish(r: Round, text: str = "") -> dict[str, Decimal]:
    for card in cards(text)[len(r.deal.cards) :]:
        r.deal_card(card)
    r.settle()
    return r.nets()


def outcomes(r: Round) -> dict[str, str]:
    return {f"{s.bet.player}:{s.bet.wager}": s.outcome for s in r.results()}


def assert_void(r: Round, clause: str) -> None:
    assert r.phase is Phase.VOID
    assert r.void is not None
    assert r.void.clause == clause
    assert set(r.nets().values()) == {Decimal(0)}
    assert {s.outcome for s in r.results()} == {"void"}  # 5.17: every bet returned


# -- 5.1, 5.2: differential and minimum --------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "1.10", "1.26", "1.29")
def test_tiger_buffalo_5_1_excess_rejected_standing_players_first() -> None:
    r = opened()
    r.place_bet("ann", 1, "banker", Decimal(2000))
    r.place_bet("cat", 3, "banker", Decimal(200))
    sam = r.place_bet("sam", 3, "banker", Decimal(500), seated=False)
    r.place_bet("bob", 2, "player", Decimal(300))
    with pytest.raises(LimitError) as noticed:
        r.close_betting()
    assert noticed.value.clause == "5.1"
    assert r.reject_excess() == [sam]  # 400 over: the Standing Player's bet is cut
    r.close_betting()
    assert finish(r, PLAYER_NINE) == {"ann": -2000, "cat": -200, "sam": -100, "bob": 300}
    assert r.house_net() == 2000


def test_tiger_buffalo_5_1_1_excess_not_rejected_settles_pro_rata_never_below_minimum() -> None:
    r = opened()
    r.place_bet("ann", 1, "banker", Decimal(1940))
    r.place_bet("eve", 4, "banker", Decimal(1940))
    r.place_bet("cat", 3, "banker", Decimal(120))
    r.place_bet("bob", 2, "player", Decimal(1000))
    r.close_betting(differential_noticed=False)
    # Banker may hold 1000 + 2000 = 3000 of its 4000.  cat 120 x 3/4 = 90 is
    # under the minimum of 100, so 100 (5.1.1); ann and eve share the other
    # 2900: 1940 x 2900/3880 = 1450 each, and the Banker side settles on 3000.
    assert finish(r, PLAYER_NINE) == {"ann": -1450, "eve": -1450, "cat": -100, "bob": 1000}
    assert [s.clause for s in r.results()] == ["5.1.1", "5.1.1", "5.1.1", None]
    assert r.house_net() == 2000


def test_tiger_buffalo_5_1_2_under_minimum_bet_in_excess_box_not_pro_rated() -> None:
    r = opened()
    r.place_bet("ann", 1, "banker", Decimal(1975))
    r.place_bet("eve", 4, "banker", Decimal(1975))
    r.place_bet("dan", 5, "banker", Decimal(50), enforce_limits=False)
    r.place_bet("bob", 2, "player", Decimal(1000))
    r.close_betting(differential_noticed=False)
    # dan's 50 is not apportioned (5.1.2) and counts in full: ann and eve
    # share 3000 - 50 = 2950, 1975 x 2950/3950 = 1475 each
    assert finish(r, PLAYER_NINE) == {
        "ann": -1475,
        "eve": -1475,
        "dan": -50,
        "bob": 1000,
    }


def test_tiger_buffalo_5_2_under_minimum_noticed_player_may_increase() -> None:
    r = opened()
    with pytest.raises(LimitError) as advised:
        r.place_bet("ann", 1, "player", Decimal(50))
    assert advised.value.clause == "5.2"
    r.place_bet("ann", 1, "player", Decimal(100))
    r.close_betting()
    assert finish(r, PLAYER_NINE) == {"ann": 100}


def test_tiger_buffalo_5_2_1_under_minimum_unnoticed_wins_or_loses_as_placed() -> None:
    r = opened()
    r.place_bet("dan", 4, "banker", Decimal(50), enforce_limits=False)  # not noticed
    r.place_bet("ann", 1, "player", Decimal(300))
    r.close_betting()
    assert finish(r, BANKER_SIX) == {"dan": Decimal("47.50"), "ann": -300}


# -- 5.3, 3.14, 4.2.2, 5.14: Insurance Plus -----------------------------------------------------


def test_tiger_buffalo_5_3_insurance_not_placed_before_next_card_is_forgone() -> None:
    r = with_bets(("dan", 4, "player", 200))
    deal_cards(r, "3H 4C 2D KS")
    r.place_insurance("ann", "player_insurance", Decimal(300))
    assert r.can_place_insurance("dan", "player_insurance", Decimal(200))
    r.deal_card(Card.parse("2S"))  # the next card: dan did not answer
    with pytest.raises(InsuranceError) as forgone:
        r.place_insurance("dan", "player_insurance", Decimal(200), moment=Moment.FOUR_CARDS)
    assert forgone.value.clause == "5.3"
    # ann: -300 on Player, +450 on Insurance at 3 to 2
    assert finish(r, INSURED) == {"ann": 150, "bob": 190, "cat": -100, "dan": -200}


def test_tiger_buffalo_5_3_1_player_walks_away_bet_settled() -> None:
    r = with_bets()
    deal_cards(r, "3H 4C 2D KS")
    r.place_insurance("ann", "player_insurance", Decimal(100))
    # ann walks away; her bets are settled as they lie
    assert finish(r, INSURED) == {"ann": -150, "bob": 190, "cat": -100}


def test_tiger_buffalo_3_14_squeeze_waiver_no_insurance_after_player_third_card() -> None:
    r = with_bets(("dan", 4, "player", 300))
    deal_cards(r, "3H 4C 2D KS")
    r.place_insurance("ann", "player_insurance", Decimal(150))
    assert (
        irr.squeeze_waiver(r, "highest bettor squeezes the Banker's third card first").clause
        == "3.14"
    )
    r.deal_card(Card.parse("2S"))  # Player 7 v Banker 4: 7 v 0-6 would pay 4 to 1
    assert r.insurance_offers() == []
    with pytest.raises(InsuranceError):
        r.place_insurance("dan", "player_insurance", Decimal(100))
    assert finish(r, INSURED) == {"ann": -75, "bob": 190, "cat": -100, "dan": -300}


def test_tiger_buffalo_3_14_waiver_comes_before_the_player_third_card_is_opened() -> None:
    r = with_bets(("dan", 4, "player", 300))
    deal_cards(r, "3H 4C 2D KS 2S")
    # dan bet Insurance after the Player's third card: it was opened, too late to waive
    r.place_insurance("dan", "player_insurance", Decimal(100))
    with pytest.raises(PhaseError) as late:
        irr.squeeze_waiver(r, "too late")
    assert late.value.clause == "3.14"


def test_tiger_buffalo_4_2_2_private_table_notice_no_insurance_offered() -> None:
    r = with_bets(("dan", 4, "player", 300), insurance_offered=False)
    deal_cards(r, "3H 4C 2D KS")
    assert r.insurance_offers() == []
    with pytest.raises(InsuranceError) as notice:
        r.place_insurance("ann", "player_insurance", Decimal(100))
    assert notice.value.clause == "4.2.2"
    deal_cards(r, "2S 5S")
    with pytest.raises(InsuranceError) as not_5_14_2:
        irr.forgotten_insurance(r, intended={"ann": Side.PLAYER})
    assert not_5_14_2.value.clause == "4.2.2"
    assert finish(r) == {"ann": -300, "bob": 190, "cat": -100, "dan": -300}


def test_tiger_buffalo_5_14_1_forgotten_insurance_before_outcome_pit_manager_offers_it() -> None:
    r = with_bets(("dan", 4, "player", 300))
    deal_cards(r, "3H 4C 2D KS 2S")  # the Dealer drew the Player's third card without offering
    assert not r.outcome_established()
    with pytest.raises(RoleError) as dealer:
        irr.forgotten_insurance(r, role=Role.DEALER)
    assert dealer.value.clause == "5.14"
    ruling = irr.forgotten_insurance(r)
    assert (ruling.clause, ruling.consequence) == ("5.14.1", "offered")
    offered = r.events[-1]
    assert isinstance(offered, InsuranceReoffered)
    assert (offered.moment, offered.players) == (Moment.FOUR_CARDS, ("ann", "dan"))
    # the total payout may not exceed the Original Bet: at 3 to 2, a stake of 200 at most
    assert not r.can_place_insurance("dan", "player_insurance", Decimal(250), Moment.FOUR_CARDS)
    with pytest.raises(InsuranceError) as payout:
        r.place_insurance("dan", "player_insurance", Decimal(250), moment=Moment.FOUR_CARDS)
    assert payout.value.clause == "5.14.1"
    r.place_insurance("ann", "player_insurance", Decimal(200), moment=Moment.FOUR_CARDS)
    r.place_insurance("dan", "player_insurance", Decimal(100), moment=Moment.FOUR_CARDS)
    with pytest.raises(InsuranceError):  # ann's payout room is used up
        r.place_insurance("ann", "player_insurance", Decimal(1), moment=Moment.FOUR_CARDS)
    with pytest.raises(InsuranceError):  # bob has no Original Bet on the Player
        r.place_insurance("bob", "player_insurance", Decimal(100), moment=Moment.FOUR_CARDS)
    r.deal_card(Card.parse("5S"))  # the next card closes it; Banker 9 beats Player 7
    assert r.late_insurance is None
    # ann: -300 + 200 x 3/2 = 0; dan: -300 + 100 x 3/2 = -150
    assert finish(r) == {"ann": 0, "bob": 190, "cat": -100, "dan": -150}
    assert {s.clause for s in r.results() if s.bet.moment is not None} == {"5.14.1"}


def test_tiger_buffalo_5_14_1_payout_cap_is_stricter_than_the_stake_cap() -> None:
    r = with_bets()
    deal_cards(r, "3H 4C 2D KS")
    offer = r.insurance_offers()[0]
    assert r.insurance_cap("ann", offer) == 300  # 3.12.2: the stake up to the Original Bet
    r.deal_card(Card.parse("2S"))
    irr.forgotten_insurance(r, players=["ann"])
    assert r.late_insurance_cap("ann", offer) == 200  # 5.14.1: the payout up to it


def test_tiger_buffalo_5_14_2_forgotten_insurance_after_outcome_returns_original_bet() -> None:
    r = with_bets(("dan", 4, "player", 300))
    deal_cards(r, INSURED)  # neglected after four cards; noticed once the Banker won
    assert r.outcome_established()
    with pytest.raises(InsuranceError):  # no Banker Insurance was offered after four cards
        irr.forgotten_insurance(r, intended={"bob": Side.BANKER})
    with pytest.raises(RoleError):
        irr.forgotten_insurance(r, intended={"ann": Side.PLAYER}, role=Role.PIT_SUPERVISOR)
    ruling = irr.forgotten_insurance(r, intended={"ann": Side.PLAYER})
    assert (ruling.clause, ruling.consequence, ruling.returned) == ("5.14.2", "returned", ("b1",))
    # ann meant to insure and it would have won: her Original Bet is returned; dan did not
    assert finish(r) == {"ann": 0, "bob": 190, "cat": -100, "dan": -300}
    assert outcomes(r)["ann:player"] == "returned"


def test_tiger_buffalo_5_14_2_insurance_that_would_have_lost_returns_nothing() -> None:
    r = with_bets()
    deal_cards(r, "3H 4C 2D KS 2S 2H")  # Banker 4 draws 2: 6; Player 7 wins
    ruling = irr.forgotten_insurance(r, intended={"ann": Side.PLAYER})
    assert ruling.returned == ()
    assert finish(r) == {"ann": 300, "bob": -200, "cat": -100}


def test_tiger_buffalo_5_14_2_waits_until_the_cards_tell() -> None:
    r = with_bets(("eve", 5, "player_pair", 100))
    deal_cards(r, "3H 4C 2D KS 2S")  # eve's Player Pair has lost; the hands are undecided
    # 5.14 counts the Original Bets (what Insurance insures), not eve's pair bet:
    # 5.14.1 still applies, and 5.14.2 waits until the cards tell the hands.
    assert r.outcome_established()
    assert not r.insured_outcome_established()
    assert r.can_reoffer_insurance(Moment.FOUR_CARDS, ["ann"])
    ann = next(b.bet_id for b in r.active_bets if b.player == "ann")
    with pytest.raises(PhaseError) as unknown:
        r.return_bet(ann, "5.14.2", "intended Insurance would have won")
    assert unknown.value.clause == "5.14.2"
    r.deal_card(Card.parse("5S"))
    irr.forgotten_insurance(r, intended={"ann": Side.PLAYER})
    assert finish(r) == {"ann": 0, "bob": 190, "cat": -100, "eve": -100}


# -- 5.4: technical interruption ----------------------------------------------------------------


def test_tiger_buffalo_5_4_1_power_failure_outcome_established_play_continues() -> None:
    r = with_bets(("eve", 5, "player_pair", 100))
    deal_cards(r, "4H 3C 4D")  # a Player Pair: decided
    ruling = irr.power_failure(r)
    assert (ruling.clause, ruling.consequence) == ("5.4.1", "continue")
    # 4H 3C 4D 5S: Player 4+4=8, Banker 3+5=8: a Tie; Player Pair 11 to 1
    assert finish(r, "4H 3C 4D 5S") == {"ann": 0, "bob": 0, "cat": 800, "eve": 1100}


def test_tiger_buffalo_5_4_2_power_failure_no_outcome_voids_round() -> None:
    r = with_bets()
    deal_cards(r, "4H 3C 3D")
    ruling = irr.power_failure(r)
    assert (ruling.clause, ruling.consequence) == ("5.4.2", "void")
    assert_void(r, "5.4.2")


def test_tiger_buffalo_5_4_power_failure_recovered_from_the_log_voids_round() -> None:
    log = MemoryEventLog(TABLE_STREAM)
    table = LiveTable("t", GAME, limits=LIMITS, layout="A", log=log, seed="5.4")
    r = table.new_round()
    r.place_bet("ann", 1, "player", Decimal(300))
    r.close_betting()
    table.draw()
    again = LiveTable("t", GAME, limits=LIMITS, layout="A", log=log, seed="5.4")
    assert again.recovered == "void"
    assert again.round is not None
    assert again.round.nets() == {"ann": 0}


# -- 5.5, 5.17: void rounds ----------------------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "1.35")
@pytest.mark.clause("tiger-buffalo", "5.17")
def test_tiger_buffalo_5_5_1_foreign_card_voids_round() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C")
    irr.foreign_card(r, Card.parse("AS"))
    assert_void(r, "5.5.1")


def test_tiger_buffalo_5_5_2_shortage_or_excess_of_cards_voids_round() -> None:
    r = with_bets()
    irr.extra_or_missing_cards(r)
    assert_void(r, "5.5.2")


def test_tiger_buffalo_5_5_3_incorrect_number_not_reconstructable_voids_round() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C KD")
    irr.incorrect_number_of_cards(r, cards("9H 2C KD 3S 4H"), reconstructable=False)
    assert_void(r, "5.5.3")


def test_tiger_buffalo_5_5_3_noticed_after_settlement_before_next_round_voids() -> None:
    r = with_bets()
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE
    irr.incorrect_number_of_cards(r, cards(PLAYER_NINE), reconstructable=False)
    assert_void(r, "5.5.3")


def test_tiger_buffalo_5_5_3_incorrect_number_reconstructed_excess_to_next_round() -> None:
    r = with_bets()
    deal_cards(r, "4H 3C 3D 4S")
    ruling = irr.incorrect_number_of_cards(r, cards("4H 3C 3D 4S 5D"), reconstructable=True)
    assert (ruling.clause, ruling.consequence, ruling.next_round) == (
        "5.8",
        "continue",
        cards("5D"),
    )
    assert finish(r) == ON_TIE_SEVEN


def test_tiger_buffalo_5_5_4_insufficient_cards_voids_round() -> None:
    r = with_bets()
    deal_cards(r, "QH 2C 2D KS")
    irr.insufficient_cards(r, remaining=0)
    assert_void(r, "5.5.4")


def test_tiger_buffalo_5_5_5_unshuffled_cards_void_round() -> None:
    r = with_bets()
    irr.unshuffled_cards(r)
    assert_void(r, "5.5.5")


def test_tiger_buffalo_5_6_and_5_12_previous_rounds_stand() -> None:
    table = LiveTable(
        "t", GAME, limits=LIMITS, layout="A", log=MemoryEventLog(TABLE_STREAM), seed="5.6"
    )
    first = table.new_round()
    first.place_bet("ann", 1, "player", Decimal(300))
    first.close_betting()
    table.deal_to_completion()
    first.settle()
    settled = first.nets()
    second = table.new_round()
    with pytest.raises(PhaseError) as stands:
        irr.foreign_card(first)
    assert stands.value.clause == "5.6, 5.12"
    with pytest.raises(PhaseError):
        irr.incorrect_number_of_cards(
            first, first.deal.cards, reconstructable=False, next_round_commenced=True
        )
    assert first.nets() == settled
    assert first.phase is Phase.SETTLED
    assert second.phase is Phase.BETTING


# -- 5.7: after No more Bets -----------------------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "3.8")
def test_tiger_buffalo_5_7_no_bet_placed_increased_or_withdrawn_after_no_more_bets() -> None:
    r = with_bets()
    with pytest.raises(BettingClosedError) as placed:
        r.place_bet("ann", 1, "player", Decimal(100))
    with pytest.raises(BettingClosedError) as withdrawn:
        r.withdraw_bet("b1")
    assert placed.value.clause == withdrawn.value.clause == "5.7"
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


# -- 5.8, 5.9, 5.10, 5.11, 5.13: dealing errors ------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "5.8.1", "5.13", "5.13.2", "5.13.3")
def test_tiger_buffalo_5_8_exposed_card_reconstructed_with_5_13_options() -> None:
    r = with_bets()
    deal_cards(r, "4H 3C")
    ruling = irr.excess_cards(r, cards("3D"), withdrawing=["bob"])
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.8", "options", ("bob",))
    offered = [e for e in r.events if isinstance(e, WithdrawalOffered)]
    assert [e.clause for e in offered] == ["5.13"]
    # 4H 3C 3D 5S: Player 7 v Banker 3+5=8, a Natural
    assert finish(r, "4H 3C 3D 5S") == {"ann": -300, "bob": 0, "cat": -100}


def test_tiger_buffalo_5_8_excess_card_with_outcome_established_used_in_next_round() -> None:
    r = with_bets()
    deal_cards(r, TIE_SEVEN)
    with pytest.raises(ActionError, match="bob cannot withdraw") as refused:
        irr.excess_cards(r, cards("5D"), withdrawing=["bob"])  # no option: outcome established
    assert refused.value.clause == "5.8"
    ruling = irr.excess_cards(r, cards("5D"))
    assert (ruling.consequence, ruling.withdrawn, ruling.next_round) == (
        "continue",
        (),
        cards("5D"),
    )
    assert finish(r) == ON_TIE_SEVEN


def test_tiger_buffalo_5_8_not_reconstructable_is_decided_by_the_house() -> None:
    r = with_bets()
    deal_cards(r, "4H 3C")
    with pytest.raises(RoleError) as dealer:
        irr.excess_cards(r, cards("3D 4S"), reconstructable=False)
    assert dealer.value.clause == "5.8"
    irr.excess_cards(r, cards("3D 4S"), reconstructable=False, role=Role.PIT_SUPERVISOR)
    assert_void(r, "5.5.3")


@pytest.mark.clause("tiger-buffalo", "1.24")
@pytest.mark.clause("tiger-buffalo", "5.13.2", "5.13.3")
def test_tiger_buffalo_5_9_1_wrong_area_reconstructed_with_5_13_options() -> None:
    r = with_bets()
    deal_cards(r, "3C 4H")  # the first two cards went to each other's area
    ruling = irr.cards_in_wrong_order(r, cards("4H 3C"), withdrawing=["bob"])
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.9", "options", ("bob",))
    assert finish(r, "4H 3C 3D 5S") == {"ann": -300, "bob": 0, "cat": -100}


def test_tiger_buffalo_5_9_1_outcome_established_and_reconstructed_no_options() -> None:
    r = with_bets(("eve", 5, "player_pair", 100))
    deal_cards(r, "4H 3C 2S 2D")  # cards three and four swapped; Player 6, Banker 5 draws
    # eve's Player Pair has lost on 4H 2S: an outcome is established
    with pytest.raises(ActionError, match="cat cannot withdraw"):
        irr.cards_in_wrong_order(r, cards("4H 3C 2D 2S"), withdrawing=["cat"])
    ruling = irr.cards_in_wrong_order(r, cards("4H 3C 2D 2S"))
    assert (ruling.consequence, ruling.withdrawn) == ("continue", ())
    # Banker 5 draws 9: 4; Player 6 wins
    assert finish(r, "4H 3C 2D 2S 9C") == {"ann": 300, "bob": -200, "cat": -100, "eve": -100}


def test_tiger_buffalo_1_24_no_reconstruction_changes_a_complete_coup() -> None:
    r = with_bets(("eve", 5, "player_pair", 100))
    deal_cards(r, "4H 3C 5S 4D")  # a Player Natural 9: the coup is complete
    with pytest.raises(PhaseError, match="would change the outcome of b1, b2, b3, b4") as refused:
        irr.cards_in_wrong_order(r, cards("4H 3C 4D 5S"))  # 8 v 8, a Tie, a Pair
    assert refused.value.clause == "5.9"
    assert finish(r) == {"ann": 300, "bob": -200, "cat": -100, "eve": -100}


@pytest.mark.clause("tiger-buffalo", "5.13.1", "5.13.3")
def test_tiger_buffalo_5_9_1_not_reconstructable_continue_as_dealt_5_13_1() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C")
    with pytest.raises(RoleError):
        irr.cards_in_wrong_order(r, None)
    ruling = irr.cards_in_wrong_order(r, None, withdrawing=["ann"], role=Role.PIT_SUPERVISOR)
    assert (ruling.consequence, ruling.withdrawn) == ("options", ("ann",))
    assert finish(r, PLAYER_NINE) == {"ann": 0, "bob": -200, "cat": -100}


def test_tiger_buffalo_5_9_2_cards_to_wrong_person_with_5_13_options() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C")
    ruling = irr.cards_to_wrong_player(r, withdrawing=["ann"])
    assert (ruling.clause, ruling.withdrawn) == ("5.9", ("ann",))
    assert finish(r, PLAYER_NINE) == {"ann": 0, "bob": -200, "cat": -100}


def test_tiger_buffalo_5_10_card_dealt_face_up_options_if_no_outcome() -> None:
    r = with_bets(face_down=True)
    deal_cards(r, "9H 2C")
    ruling = irr.card_exposed_in_error(r, withdrawing=["cat"])
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.10", "options", ("cat",))
    assert finish(r, PLAYER_NINE) == {"ann": 300, "bob": -200, "cat": 0}


def test_tiger_buffalo_5_10_card_dealt_face_up_outcome_established_result_stands() -> None:
    r = with_bets(face_down=True)
    deal_cards(r, PLAYER_NINE)
    with pytest.raises(ActionError, match="bob cannot withdraw"):
        irr.card_exposed_in_error(r, withdrawing=["bob"])
    ruling = irr.card_exposed_in_error(r)
    assert (ruling.consequence, ruling.withdrawn) == ("continue", ())
    assert finish(r) == ON_PLAYER_NINE


def test_tiger_buffalo_5_11_simultaneous_draw_pit_supervisor_decides_order() -> None:
    r = with_bets()
    deal_cards(r, "QH 2C 2D KS")
    with pytest.raises(RoleError) as dealer:
        irr.simultaneous_draw(r, cards("4D 3H"), order_known=False, order=cards("3H 4D"))
    assert dealer.value.clause == "5.11"
    ruling = irr.simultaneous_draw(
        r,
        cards("4D 3H"),
        order_known=False,
        order=cards("3H 4D"),
        withdrawing=["bob"],
        role=Role.PIT_SUPERVISOR,
    )
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.11", "options", ("bob",))
    offered = next(e for e in r.events if isinstance(e, WithdrawalOffered))
    assert offered.clause == "5.13"
    assert offered.reason.startswith("5.11.1")
    assert finish(r) == {"ann": -300, "bob": 0, "cat": -100}


def test_tiger_buffalo_5_11_1_simultaneous_draw_is_a_dealing_error_even_in_known_order() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C")
    ruling = irr.simultaneous_draw(r, cards("KD 3S"), order_known=True, withdrawing=["cat"])
    assert ruling.withdrawn == ("cat",)
    assert finish(r) == {"ann": 300, "bob": -200, "cat": 0}


@pytest.mark.clause("tiger-buffalo", "5.13.3")
def test_tiger_buffalo_5_13_dealing_error_options_continue_or_bet_returned() -> None:
    r = with_bets(("dan", 4, "banker", 500))
    deal_cards(r, "QH 2C 2D")
    ruling = irr.dealing_error_options(
        r, "card dealt from under the shoe", withdrawing=["ann", "dan"]
    )
    assert (ruling.clause, ruling.withdrawn) == ("5.13", ("ann", "dan"))
    # those who continue accept the later cards
    assert finish(r, BANKER_SIX) == {"ann": 0, "bob": 190, "cat": -100, "dan": 0}
    assert outcomes(r)["dan:banker"] == "returned"


# -- 5.18, 5.19 -------------------------------------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "1.9", "1.17")
def test_tiger_buffalo_5_18_pit_employee_places_bet_on_behalf() -> None:
    r = opened()
    r.place_bet("ann", 1, "player", Decimal(300), role=Role.DEALER)
    r.place_bet("bob", 2, "banker", Decimal(200), role=Role.PIT_SUPERVISOR)
    r.close_betting()
    placed = [e for e in r.events if isinstance(e, BetPlaced)]
    assert [e.role for e in placed] == [Role.DEALER, Role.PIT_SUPERVISOR]
    assert finish(r, PLAYER_NINE) == {"ann": 300, "bob": -200}


def test_tiger_buffalo_5_19_unforeseen_decided_by_table_game_shift_manager() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C")
    with pytest.raises(RoleError) as pit:
        irr.unforeseen(r, "card reader disagrees with the card", void=True, role=Role.PIT_MANAGER)
    assert pit.value.clause == "5.19"
    irr.unforeseen(r, "card reader disagrees with the card", void=True)
    assert_void(r, "5.19")


def test_tiger_buffalo_procedures_the_rules_do_not_write_are_referred_to_5_19() -> None:
    r = with_bets()
    deal_cards(r, "9H")
    for procedure in (irr.device_reset, irr.absent_player, irr.card_face_up_in_device):
        with pytest.raises(irr.NotCoveredError) as referred:
            procedure(r)
        assert referred.value.clause in ("5.19", "5.8")
    with pytest.raises(irr.NotCoveredError):
        irr.order_altered(r, reconstructable=False)
    with pytest.raises(ActionError):
        irr.cut_card(r)
    irr.unforeseen(r, "the cutting card came out: round completed", void=False)
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE
