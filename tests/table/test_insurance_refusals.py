"""Every refusal of Insurance Plus says what was wrong, the clause and what
to do (RWS 3.11, 3.12, 3.12.2, 3.14, 4.1.15, 4.2.2, 5.3, 5.14): each path of
round_insurance.py and insurance_rules.py, asserted whole, and the stakes at
the edges of what is allowed.  Written against the mutants mutmut left alive
there (benchmarks/mutation.py; benchmarks/README.md, "Mutation testing")."""

from __future__ import annotations

from decimal import Decimal

import pytest

from punto.errors import ActionError, InsuranceError, PhaseError, PuntoError, RoleError
from punto.rules.cards import parse_cards
from punto.rules.coup import Side
from punto.rules.games import get_game
from punto.rules.insurance import Moment
from punto.table.events import InsurancePlaced, InsuranceReoffered, InsuranceWaived
from punto.table.insurance_rules import no_offer_refusal
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Round

D = Decimal
GAME = get_game("tiger-buffalo")
FOUR = Moment.FOUR_CARDS
THIRD = Moment.PLAYER_THIRD_CARD
#: Player 5 v Banker 4 after four cards: Player Insurance at 3 to 2.
FOUR_CARDS = "3H 4C 2D KS"


def dealt(cards: str = FOUR_CARDS, *, insurance_offered: bool = True) -> Round:
    """ann Player 300 at position 1 with dan standing on her box (Player
    50), bob Player 100 and Banker 400 at position 4, ``cards`` out."""
    r = Round(
        GAME,
        limits=TableLimits(D(10), D(10000)),
        layout="A",
        insurance_offered=insurance_offered,
    )
    r.open()
    r.place_bet("ann", 1, "player", D(300))
    r.place_bet("bob", 4, "player", D(100))
    r.place_bet("bob", 4, "banker", D(400))
    r.place_bet("dan", 1, "player", D(50), seated=False)
    r.close_betting()
    for card in parse_cards(cards):
        r.deal_card(card)
    return r


def said(error: pytest.ExceptionInfo[PuntoError]) -> tuple[type, str, str | None, str | None]:
    e = error.value
    return type(e), e.message, e.clause, e.hint


# -- placing -----------------------------------------------------------------------------------


def test_rws_4_2_2_no_insurance_at_a_table_with_the_notice() -> None:
    r = dealt(insurance_offered=False)
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("ann", "player_insurance", D(100))
    assert said(refused) == (
        InsuranceError,
        "no Insurance is offered at this table",
        "4.2.2",
        None,
    )


def test_rws_3_12_a_wager_that_insures_nothing_is_not_insurance() -> None:
    with pytest.raises(PuntoError) as refused:
        dealt().place_insurance("ann", "player", D(100))
    assert said(refused) == (
        InsuranceError,
        "player is not an Insurance Plus bet",
        "3.12",
        "place it while betting is open; Insurance is player_insurance or banker_insurance",
    )


@pytest.mark.parametrize("stake", ["0", "-1", "300.01", "0.005"])
def test_rws_3_12_2_a_stake_outside_the_cap_is_refused(stake: str) -> None:
    r = dealt()
    assert not r.can_place_insurance("ann", "player_insurance", D(stake))
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("ann", "player_insurance", D(stake))
    assert said(refused) == (
        InsuranceError,
        "ann may stake at most 300.00 on Player Insurance now",
        "3.11, 3.12.2",
        "Insurance needs an Original Bet on the hand and may not exceed it (nor, at 10 to 1, "
        "a quarter of the table maximum)",
    )


@pytest.mark.parametrize("stake", ["0.01", "1", "300"])
def test_rws_3_12_2_a_stake_within_the_cap_is_taken(stake: str) -> None:
    r = dealt()
    assert r.can_place_insurance("ann", "player_insurance", D(stake))
    r.place_insurance("ann", "player_insurance", D(stake))


def test_rws_3_11_an_insurance_bet_lies_where_the_players_original_bet_does() -> None:
    """dan stands on ann's box at position 1: his Insurance is his, standing,
    at 1, and its id follows the round's bets."""
    r = dealt()
    bet_id = r.place_insurance("dan", "player_insurance", D(50))
    assert bet_id == "b5"
    placed = r.events[-1]
    assert isinstance(placed, InsurancePlaced)
    assert (placed.player, placed.position, placed.seated, placed.moment) == (
        "dan",
        1,
        False,
        FOUR,
    )
    with pytest.raises(ActionError, match="bet id 'b1' is taken"):
        r.place_insurance("ann", "player_insurance", D(50), bet_id="b1")


# -- no offer open: why (no_offer_refusal) ---------------------------------------------------------


def test_rws_5_3_an_offer_passed_is_forgone() -> None:
    r = dealt(FOUR_CARDS + " 3S")  # the Player's third card: the four-card offer passed
    assert no_offer_refusal(r, Side.PLAYER) == {
        "clause": "5.3",
        "hint": "Insurance after four cards was open until the next card was drawn; a player "
        "who had not bet by then has forgone it",
    }


def test_rws_3_12_before_four_cards_is_not_a_moment_of_insurance() -> None:
    r = dealt("3H 4C")
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("ann", "player_insurance", D(100))
    assert said(refused) == (
        InsuranceError,
        "no Player Insurance is offered now",
        "3.12",
        "Insurance is bet after the initial four cards, and after the Player's third card, "
        "before the next card is drawn",
    )


def test_rws_4_1_15_a_row_the_pay_table_does_not_offer() -> None:
    """Player 5 v Banker 4: the pay table has a Player Insurance row, and no
    Banker Insurance row."""
    r = dealt()
    assert no_offer_refusal(r, Side.BANKER) == {
        "clause": "4.1.15",
        "hint": "Insurance is offered on the rows of the pay table only",
    }
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("bob", "banker_insurance", D(100))
    assert said(refused)[1:3] == ("no Banker Insurance is offered now", "4.1.15")


def test_rws_3_14_after_the_waiver_no_insurance_after_the_third_card() -> None:
    r = dealt(FOUR_CARDS + " 3S")
    r.waive_insurance("the highest bettor squeezes", requester="bob")
    assert r.insurance_offers() == []
    assert no_offer_refusal(r, Side.PLAYER) == {
        "clause": "3.14",
        "hint": "the highest bettor squeezed or exposed the Banker's third card first: "
        "Insurance after the Player's third card is waived for everyone this round",
    }
    waived = r.events[-1]
    assert isinstance(waived, InsuranceWaived)
    assert waived.reason == "the highest bettor squeezes (requested by bob)"
    assert r.missed_insurance_offers(THIRD) == []


# -- an offer made again (5.14.1) ------------------------------------------------------------------


def test_rws_5_14_1_late_insurance_refusals() -> None:
    r = dealt(FOUR_CARDS + " 3S")
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("ann", "player_insurance", D(100), moment=FOUR)
    assert said(refused) == (
        InsuranceError,
        "Insurance after four cards is no longer offered",
        "5.3",
        "a player who has not bet before the next card is drawn has forgone it; an offer the "
        "Dealer neglected is made again only by a Pit Manager (5.14.1)",
    )
    r.reoffer_insurance(FOUR, ["ann"])
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("bob", "player_insurance", D(50), moment=FOUR)
    assert said(refused) == (
        InsuranceError,
        "the neglected offer after four cards is made again to ann, not to bob",
        "5.14.1",
        None,
    )
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("ann", "banker_insurance", D(50), moment=FOUR)
    assert said(refused)[1:3] == ("no banker insurance was offered after four cards", "5.14.1")
    with pytest.raises(PuntoError) as refused:
        r.place_insurance("ann", "player_insurance", D("200.01"), moment=FOUR)
    assert said(refused) == (
        InsuranceError,
        "ann may stake at most 200.00 on player insurance after four cards now",
        "5.14.1",
        "the total payout on Insurance bets offered again may not exceed the Original Bet",
    )
    r.place_insurance("ann", "player_insurance", D(150), moment=FOUR)
    assert r.late_insurance_cap("ann", r.missed_insurance_offers(FOUR)[0]) == D(50)


def test_rws_5_14_1_reoffer_refusals() -> None:
    r = dealt(FOUR_CARDS + " 3S")
    with pytest.raises(RoleError) as by_dealer:
        r.reoffer_insurance(FOUR, ["ann"], Role.PIT_SUPERVISOR)
    assert by_dealer.value.clause == "5.14.1"
    assert not r.can_reoffer_insurance(FOUR, ["ann"], Role.DEALER)
    with pytest.raises(PuntoError) as refused:
        r.reoffer_insurance(THIRD, ["ann"])
    assert said(refused) == (
        InsuranceError,
        "no Insurance offer after the Player's third card was missed",
        "5.14.1",
        "an open offer is taken as it stands; only a moment that has passed is offered again",
    )
    for players in ([], ["ann", "cy"]):
        with pytest.raises(PuntoError) as refused:
            r.reoffer_insurance(FOUR, players)
        assert said(refused) == (
            InsuranceError,
            "the players affected by the neglected offer after four cards are ann, bob, dan",
            "5.14.1",
            "Insurance insures an Original Bet on the hand offered",
        )
    assert r.can_reoffer_insurance(FOUR, ["ann", "bob"])
    r.reoffer_insurance(FOUR, ["bob"])
    assert r.late_insurance is not None
    assert r.late_insurance.players == ("bob",)


def test_rws_5_14_1_no_reoffer_once_the_hands_are_decided_or_without_insurance() -> None:
    r = dealt(FOUR_CARDS + " 3S 5D")  # Player 8 v Banker 9: decided, the coup complete
    with pytest.raises(PuntoError) as refused:
        r.reoffer_insurance(FOUR, ["ann"])
    assert said(refused) == (
        PhaseError,
        "Insurance is offered again while the coup is dealt",
        "5.14.1",
        None,
    )
    notice = dealt(FOUR_CARDS + " 3S", insurance_offered=False)
    with pytest.raises(PuntoError) as refused:
        notice.reoffer_insurance(FOUR, ["ann"])
    assert said(refused) == (
        InsuranceError,
        "no Insurance is offered at this table",
        "4.2.2",
        "players at a table with the notice accepted that none is offered",
    )
    tiger = Round(get_game("tiger-baccarat"), limits=TableLimits(D(10), D(1000)))
    tiger.open()
    with pytest.raises(PuntoError) as refused:
        tiger.reoffer_insurance(FOUR, ["ann"])
    assert said(refused) == (ActionError, "Tiger Baccarat has no Insurance", "2.2", None)


# -- the waiver (3.14) -----------------------------------------------------------------------------


def test_rws_3_14_waiver_refusals() -> None:
    early = dealt("3H 4C")
    with pytest.raises(PuntoError) as refused:
        early.waive_insurance("squeeze")
    assert said(refused) == (
        PhaseError,
        "the waiver is given after the initial four cards and before the Banker's third card "
        "is dealt",
        "3.14",
        "it concerns a Banker third card still to come",
    )
    r = dealt(FOUR_CARDS + " 3S")
    r.place_insurance("ann", "player_insurance", D(100))
    with pytest.raises(PuntoError) as refused:
        r.waive_insurance("squeeze")
    assert said(refused) == (
        PhaseError,
        "Insurance after the Player's third card has been bet: the card was opened",
        "3.14",
        None,
    )
    r = dealt()
    r.place_insurance("ann", "player_insurance", D(100))  # at four cards: the third is unseen
    with pytest.raises(PuntoError) as refused:
        r.waive_insurance("squeeze", requester="ann")
    assert said(refused) == (
        ActionError,
        "ann does not have the highest Bet",
        "3.14",
        ("the highest Bet is bob's"),
    )
    assert not r.can_waive_insurance(Role.PLAYER)
    assert r.can_waive_insurance(requester="bob")
    settled = dealt(FOUR_CARDS + " 3S 5D")
    with pytest.raises(PuntoError) as refused:
        settled.waive_insurance("squeeze")
    assert said(refused)[1:3] == ("the waiver applies during the deal", "3.14")
    tiger = Round(get_game("tiger-baccarat"), limits=TableLimits(D(10), D(1000)))
    tiger.open()
    with pytest.raises(PuntoError) as refused:
        tiger.waive_insurance("squeeze")
    assert said(refused) == (ActionError, "Tiger Baccarat has no Insurance to waive", "2.2", None)


def test_rws_3_14_the_waiver_may_come_with_the_third_card_out_not_after_the_banker_draws() -> None:
    """Player 5 draws 3: five cards, the Player's third out, the Banker's to
    come: the waiver may still be given.  Banker 4 standing on a Player 6
    ... is another coup: here the Banker's third card is dealt next."""
    r = dealt(FOUR_CARDS + " 3S")
    assert r.can_waive_insurance()
    r2 = dealt(FOUR_CARDS)
    assert r2.can_waive_insurance()


def test_rws_5_14_1_late_stakes_at_the_edges_and_the_payout_room_used_up() -> None:
    r = dealt(FOUR_CARDS + " 3S")
    r.reoffer_insurance(FOUR, ["ann"], Role.SHIFT_MANAGER)
    assert r.late_insurance is not None
    reoffered = r.events[-1]
    assert isinstance(reoffered, InsuranceReoffered)
    assert reoffered.role is Role.SHIFT_MANAGER
    for stake in ("0", "-1", "0.005"):
        assert not r.can_place_insurance("ann", "player_insurance", D(stake), FOUR)
    assert r.can_place_insurance("ann", "player_insurance", D(1), FOUR)
    r.place_insurance("ann", "player_insurance", D(200), moment=FOUR, role=Role.DEALER)
    placed = r.events[-1]
    assert isinstance(placed, InsurancePlaced)
    assert (placed.role, placed.moment) == (Role.DEALER, FOUR)
    # 200 at 3 to 2 pays 300: the Original Bet's whole payout room is used
    assert r.late_insurance_cap("ann", r.missed_insurance_offers(FOUR)[0]) == D(0)
    assert not r.can_place_insurance("ann", "player_insurance", D("0.01"), FOUR)


def test_rws_3_12_an_open_offer_named_by_its_moment_is_the_open_offer() -> None:
    r = dealt()
    r.place_insurance("ann", "player_insurance", D(100), moment=FOUR)
    placed = r.events[-1]
    assert isinstance(placed, InsurancePlaced)
    assert (placed.moment, placed.role) == (FOUR, Role.PLAYER)


def test_rws_3_14_who_may_ask_and_who_waives() -> None:
    r = dealt()
    assert not r.can_waive_insurance(requester="ann")
    assert not r.can_waive_insurance(requester="dan")
    assert r.can_waive_insurance(requester="bob")
    r.waive_insurance("squeeze", Role.PIT_SUPERVISOR)
    waived = r.events[-1]
    assert isinstance(waived, InsuranceWaived)
    assert (waived.reason, waived.role) == ("squeeze", Role.PIT_SUPERVISOR)
    with pytest.raises(RoleError) as refused:
        dealt().waive_insurance("squeeze", Role.PLAYER)
    assert refused.value.message == "a player may not waive Insurance"
    assert refused.value.clause == "3.14"
    with pytest.raises(RoleError) as refused:
        dealt(FOUR_CARDS + " 3S").reoffer_insurance(FOUR, ["ann"], Role.DEALER)
    assert refused.value.message == "a dealer may not offer a neglected Insurance again"
