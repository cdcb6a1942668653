"""Guards on money at the table that no test held before: each test here
fails against a single-point change of the line it guards (review
2026-11-29, section 4: the grants, bet limits, shoe state and Insurance
Plus).  Each docstring names the change it catches."""

from __future__ import annotations

from decimal import Decimal

import pytest

from punto.errors import (
    ActionError,
    InsuranceError,
    LimitError,
    PhaseError,
    RoleError,
    ShoeError,
)
from punto.rules.cards import parse_cards
from punto.rules.games import get_game
from punto.rules.insurance import Moment
from punto.table import irregularities as irr
from punto.table.bet_limits import excess_cuts, newly_under_minimum, scale_down
from punto.table.events import CardDealt, RoundVoided, ShoeStarted
from punto.table.limits import TableLimits, WagerLimit
from punto.table.roles import Role
from punto.table.round import Round
from punto.table.round_state import TableBet
from punto.table.shoe_state import ShoeState

D = Decimal


def deal(r: Round, cards: str) -> None:
    for card in parse_cards(cards):
        r.deal_card(card)


def buffalo(limits: TableLimits | None = None) -> Round:
    r = Round(
        get_game("tiger-buffalo"),
        limits=limits or TableLimits(D(10), D(10000)),
        layout="A",
    )
    r.open()
    return r


# -- grants --------------------------------------------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "5.8.2.2")
def test_tiger_baccarat_5_8_2_2_a_dealer_may_not_offer_its_withdrawal_option() -> None:
    """5.8.2.2's option is the Pit Manager's (its grant's role): a dealer
    offering it directly, with four cards out, is refused under 5.8.2.2.
    Catches a grant whose role is not checked (the lowest role taken as
    the caller's ``required`` only)."""
    r = Round(get_game("tiger-baccarat"), limits=TableLimits(D(10), D(1000)))
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    r.close_betting()
    deal(r, "QH 2C 2D KS")  # Player 2, Banker 2: both draw, the coup goes on
    with pytest.raises(RoleError) as refused:
        r.offer_withdrawal("5.8.2.2", "cards drawn simultaneously", Role.DEALER)
    assert refused.value.clause == "5.8.2.2"
    assert not r.can_offer_withdrawal("5.8.2.2", Role.PIT_SUPERVISOR)
    assert r.withdrawal_open is None


# -- bet limits ----------------------------------------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "5.15")
def test_tiger_baccarat_5_15_a_wager_exactly_filling_the_area_settles_as_placed() -> None:
    """The Banker area's maximum is 1000: ann's 600, then bob's 400 fills it
    exactly.  bob's wager is within the maximum and settles with no 5.15
    clause.  Catches ``stake < room`` for ``stake <= room``."""
    r = Round(get_game("tiger-baccarat"), limits=TableLimits(D(10), D(1000)))
    r.open()
    r.place_bet("ann", 1, "banker", D(600))
    r.place_bet("bob", 1, "banker", D(400))
    r.close_betting()
    deal(r, "9H 2C KD 3S")  # Player 9 v Banker 5: the Banker loses
    r.settle()
    assert [(s.bet.player, s.settled_stake, s.net, s.clause) for s in r.results()] == [
        ("ann", D(600), D(-600), None),
        ("bob", D(400), D(-400), None),
    ]


@pytest.mark.clause("tiger-buffalo", "5.1.1")
def test_tiger_buffalo_5_1_1_the_heavier_side_is_held_to_the_lighters_scaled_total() -> None:
    """The Banker box holds 3000 against its 1000 maximum (not noticed): it
    settles on 1000.  The Player side's five boxes of 1000 are then held to
    that 1000 plus the 2000 differential: 600 each.  Catches the lighter
    side's placed stake (3000) used in place of its scaled one, which
    leaves the Player bets whole and pays 2000 too much."""
    r = buffalo(TableLimits(D(10), D(1000), differential=D(2000)))
    r.place_bet("ann", 1, "banker", D(3000), enforce_limits=False)
    for position, player in enumerate(("bob", "cy", "dee", "eve", "fay"), start=2):
        r.place_bet(player, position, "player", D(1000), enforce_limits=False)
    r.close_betting(differential_noticed=False)
    deal(r, "9H 2C KD 3S")  # Player 9 v Banker 5: the Player wins
    r.settle()
    settled = {s.bet.player: (s.settled_stake, s.net) for s in r.results()}
    assert settled["ann"] == (D(1000), D(-1000))
    assert {p: settled[p] for p in ("bob", "cy", "dee", "eve", "fay")} == dict.fromkeys(
        ("bob", "cy", "dee", "eve", "fay"), (D(600), D(600))
    )
    assert r.house_net() == D(-2000)


def _bet(bet_id: str, position: int, wager: str, stake: str, order: int, **kw: object) -> TableBet:
    return TableBet(bet_id, bet_id, position, wager, D(stake), order=order, **kw)  # type: ignore[arg-type]


RWS = get_game("tiger-buffalo")


@pytest.mark.clause("tiger-buffalo", "5.1")
def test_tiger_buffalo_5_1_excess_cuts_take_the_boxs_own_bets_only() -> None:
    """Box 1's Banker holds 1500 against its 1000 maximum; a Player bet in
    the same position, placed later, is not in that box and is not cut."""
    limits = TableLimits(D(10), D(1000))
    bets = [_bet("b1", 1, "banker", "1500", 1), _bet("b2", 1, "player", "600", 2)]
    assert excess_cuts(RWS, limits, bets) == [("b1", D(1000))]


@pytest.mark.clause("tiger-buffalo", "5.1")
def test_tiger_buffalo_5_1_excess_of_a_side_with_no_bets_against_it_is_cut() -> None:
    """Only Banker bets: all of them over the differential is the excess."""
    limits = TableLimits(D(10), D(1000), differential=D(1500))
    bets = [_bet(f"b{i}", i, "banker", "1000", i) for i in (1, 2)]
    assert excess_cuts(RWS, limits, bets) == [("b2", D(500))]


@pytest.mark.clause("tiger-buffalo", "5.1")
def test_tiger_buffalo_5_1_an_excess_of_half_a_unit_is_cut_too() -> None:
    """Two Banker boxes within their maximum, 0.50 over the differential
    together: the latest bet gives up the 0.50."""
    limits = TableLimits(D(10), D(1000), differential=D(1000))
    bets = [_bet("b1", 1, "banker", "600", 1), _bet("b2", 2, "banker", "400.50", 2)]
    assert excess_cuts(RWS, limits, bets) == [("b2", D(400))]


@pytest.mark.clause("tiger-buffalo", "5.2")
def test_tiger_buffalo_5_1_a_cut_never_leaves_part_of_a_unit_or_less_than_the_wagers_minimum() -> (
    None
):
    """Box 1's Banker holds at most 300 (the differential).  A later bet
    that would keep 0.50 is rejected whole; so is one that would keep 50
    where the Banker's own minimum is 100 (not the table's 10)."""
    limits = TableLimits(D(10), D(1000), differential=D(300))
    bets = [_bet("b1", 1, "banker", "299.50", 1), _bet("b2", 1, "banker", "100", 2)]
    assert excess_cuts(RWS, limits, bets) == [("b2", D(0))]
    own = TableLimits(
        D(10), D(1000), differential=D(300), wagers={"banker": WagerLimit(D(100), D(1000))}
    )
    bets = [_bet("b1", 1, "banker", "250", 1), _bet("b2", 1, "banker", "100", 2)]
    assert excess_cuts(RWS, own, bets) == [("b2", D(0))]
    assert excess_cuts(RWS, limits, bets) == [("b2", D(50))]


@pytest.mark.clause("tiger-buffalo", "5.1")
def test_tiger_buffalo_5_1_a_bet_already_cut_away_is_passed_over_not_the_end() -> None:
    """The standing player's bet goes whole in its box's cut; the
    differential's excess is then taken from the next bet, past it."""
    limits = TableLimits(D(10), D(1000), differential=D(300))
    bets = [
        _bet("b1", 1, "banker", "300", 1),
        _bet("b2", 1, "banker", "100", 2, seated=False),
        _bet("b3", 2, "banker", "200", 3),
    ]
    assert excess_cuts(RWS, limits, bets) == [("b2", D(0)), ("b3", D(0))]


@pytest.mark.clause("tiger-buffalo", "3.5")
def test_tiger_buffalo_3_5_a_box_whose_maximum_is_its_own_cites_the_bet_limits() -> None:
    """A Player box holds at most min(its wager's maximum, the differential):
    where both are 2000 the box's limit is the wager's own (3.5), not 5.1."""
    limits = TableLimits(
        D(10), D(10000), differential=D(2000), wagers={"player": WagerLimit(D(10), D(2000))}
    )
    r = buffalo(limits)
    with pytest.raises(LimitError) as refused:
        r.place_bet("ann", 1, "player", D(2500))
    assert refused.value.clause == "3.5"


@pytest.mark.clause("tiger-baccarat", "3.7.1")
def test_tiger_baccarat_3_7_1_an_area_of_one_wager_says_one_wager() -> None:
    r = Round(
        get_game("tiger-baccarat"),
        limits=TableLimits(D(10), D(1000), wagers_per_area=1),
    )
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    with pytest.raises(LimitError) as refused:
        r.place_bet("bob", 1, "banker", D(100))
    assert refused.value.message == "the banker area of position 1 already holds 1 wager"
    assert refused.value.hint == (
        "at most 1 wager per playing area at this table; bet in another area"
    )


@pytest.mark.clause("tiger-baccarat", "5.14")
def test_tiger_baccarat_5_14_an_under_minimum_wager_lost_is_the_one_time() -> None:
    game = get_game("tiger-baccarat")
    assert newly_under_minimum(game, [("ann", "lose", "5.14"), ("bob", "push", "5.14")]) == {"ann"}


@pytest.mark.clause("tiger-buffalo", "5.1.1")
def test_tiger_buffalo_5_1_1_stakes_within_what_is_allowed_are_not_scaled() -> None:
    assert scale_down([D(600), D("399.50")], allowed=D(1000), minimum=D(10)) == [
        D(600),
        D("399.50"),
    ]


# -- shoe state ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "clause"), [("tiger-baccarat", "5.3"), ("tiger-buffalo", "5.5.4")]
)
def test_a_round_voided_for_want_of_cards_ends_the_shoe(game: str, clause: str) -> None:
    """MBS 5.3 / RWS 5.5.4: once a round is voided for insufficient cards the
    shoe is spent; the next round on it is refused until a new shoe.
    Catches the void not marking the shoe (or ``ended`` not reading it)."""
    state = ShoeState(get_game(game))
    state.load(ShoeStarted("s1", (), None, "", "", decks=8))
    r = Round(
        get_game(game),
        limits=TableLimits(D(10), D(1000)),
        layout="A" if "buffalo" in game else None,
    )
    state.check_new_round()  # a fresh shoe takes a round
    assert not state.ended
    state.track(r, RoundVoided("insufficient cards", clause))
    assert state.ended
    with pytest.raises(PhaseError, match="voided for want of cards"):
        state.check_new_round()
    state.load(ShoeStarted("s2", (), None, "", "", decks=8))
    state.check_new_round()  # a new shoe begins the next round


def test_tiger_baccarat_5_3_void_for_insufficient_cards_is_recorded_as_such() -> None:
    """The procedure's void carries 5.3, the clause the shoe state reads."""
    r = Round(get_game("tiger-baccarat"), limits=TableLimits(D(10), D(1000)))
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    r.close_betting()
    deal(r, "QH 2C 2D KS")
    irr.insufficient_cards(r, remaining=0)
    assert r.void is not None
    assert r.void.clause == "5.3"


def test_a_spent_shoe_refuses_the_next_round_saying_why_and_what_to_do() -> None:
    """The dealer reads why no round may begin: the shoe (undeclared in a
    replay) ended for want of cards, or the cards are to be replaced first
    under the clause that voided the round (MBS 5.12.2)."""
    game = get_game("tiger-baccarat")
    state = ShoeState(game)
    state.load(ShoeStarted("", (), None, "", "", decks=8))
    r = Round(game, limits=TableLimits(D(10), D(1000)))
    state.track(r, RoundVoided("insufficient cards", "5.3"))
    with pytest.raises(PhaseError) as spent:
        state.check_new_round()
    assert str(spent.value) == (
        "shoe (not declared) has ended: a round was voided for want of cards "
        "(clause 3.22); begin a new shoe"
    )
    state.load(ShoeStarted("s2", (), None, "", "", decks=8))
    state.track(r, RoundVoided("cards out of order under Method C", "5.12.2"))
    with pytest.raises(PhaseError) as due:
        state.check_new_round()
    assert str(due.value) == (
        "the cards are replaced before the next round of play commences "
        "(clause 5.12.2); replace them first under 5.12.2"
    )


@pytest.mark.parametrize("clause", ["5.12.2", "5.13"])
def test_tiger_baccarat_cards_replaced_after_a_void_wait_for_the_round_in_play(
    clause: str,
) -> None:
    """MBS 5.12.2 and 5.13 replace the cards between rounds, never under a
    round in play (only RWS 5.11.2 does that, for a Pit Supervisor)."""
    game = get_game("tiger-baccarat")
    state = ShoeState(game)
    state.load(ShoeStarted("s1", (), None, "", "", decks=8))
    r = Round(game, limits=TableLimits(D(10), D(1000)))
    r.open()
    with pytest.raises(PhaseError) as refused:
        state.check_replace(Role.DEALER, clause, r)
    assert (refused.value.message, refused.value.clause) == (
        "the cards are replaced once the round in play is over",
        clause,
    )


def test_a_physical_shoe_gives_no_card_more_often_than_its_decks_hold_it() -> None:
    """Eight decks hold eight aces of spades: with seven out, two more named
    are refused, saying how many are out and what a card too many is."""
    game = get_game("tiger-baccarat")
    state = ShoeState(game)
    state.load(ShoeStarted("s1", (), None, "", "", decks=8))
    r = Round(game, limits=TableLimits(D(10), D(1000)))
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    r.close_betting()
    (ace,) = parse_cards("AS")
    for _ in range(7):
        state.track(r, CardDealt(ace, "keyed"))
    state.check(r, [CardDealt(ace, "keyed")])  # the eighth is there
    with pytest.raises(ShoeError) as refused:
        state.check(r, [CardDealt(ace, "keyed"), CardDealt(ace, "keyed")])
    assert str(refused.value) == (
        "AS cannot come out of shoe s1: its 8 decks hold 8 and 7 are already out "
        "(clause 2.1); check the cards named; a card the shoe cannot hold is a foreign "
        "card (5.1) or an excess of cards"
    )


@pytest.mark.parametrize(
    ("game", "role", "clause", "refusal"),
    [
        (
            "tiger-no-commission",
            Role.SHIFT_MANAGER,
            "5.13",
            "the Tiger No Commission Baccarat rules do not replace the cards under '5.13' "
            "(clause 5.13); the rules replace the cards mid-shoe under no clause; a shoe whose "
            "cutting card came out is followed by a new shoe",
        ),
        (
            "tiger-baccarat",
            Role.SHIFT_MANAGER,
            "5.11.2",
            "the Tiger Baccarat rules do not replace the cards under '5.11.2' (clause 5.11.2); "
            "the cards are replaced mid-shoe under 5.11.5, 5.12.2, 5.13; a shoe whose cutting "
            "card came out is followed by a new shoe",
        ),
        (
            "tiger-buffalo",
            Role.DEALER,
            "5.11.2",
            "a dealer may not replace the cards (clause 5.11.2); it takes a pit supervisor or "
            "higher",
        ),
        (
            "tiger-baccarat",
            Role.DEALER,
            "5.11.5",
            "no round of this shoe called for the cards to be replaced under this clause "
            "(clause 5.11.5)",
        ),
    ],
)
def test_cards_replaced_mid_shoe_only_under_a_clause_of_the_game_that_calls_for_it(
    game: str, role: Role, clause: str, refusal: str
) -> None:
    """Replacing the cards mid-shoe ends the shoe's record: only under the
    game's own clauses, by the position they name, when a round called for
    it -- and the refusal says which clauses there are."""
    state = ShoeState(get_game(game))
    state.load(ShoeStarted("s1", (), None, "", "", decks=8))
    with pytest.raises((ActionError, RoleError)) as refused:
        state.check_replace(role, clause, None)
    assert str(refused.value) == refusal


# -- Insurance Plus --------------------------------------------------------------------------------


@pytest.mark.clause("tiger-buffalo", "3.12.2")
@pytest.mark.clause("tiger-buffalo", "5.14.1")
def test_tiger_buffalo_3_12_2_an_offer_made_again_leaves_only_what_the_cap_left() -> None:
    """ann (Player 300) staked 200 on Player Insurance after four cards; the
    offer was neglected for bob and made again at that moment.  Its payout
    room (5.14.1: 300 at 3 to 2, a 200 stake) is not ann's limit: 3.12.2
    still counts her 200, so she may add at most 100.  Catches the stake
    already placed at that moment not counted."""
    r = buffalo()
    r.place_bet("ann", 1, "player", D(300))
    r.place_bet("bob", 2, "player", D(300))
    r.close_betting()
    deal(r, "3H 4C 2D KS")  # Player 5 v Banker 4: Player Insurance at 3 to 2
    r.place_insurance("ann", "player_insurance", D(200))
    deal(r, "3S")  # the Player's third card: the four-card offer has passed
    r.reoffer_insurance(Moment.FOUR_CARDS, ["ann", "bob"])
    assert not r.can_place_insurance("ann", "player_insurance", D(101), Moment.FOUR_CARDS)
    with pytest.raises(InsuranceError):
        r.place_insurance("ann", "player_insurance", D(101), moment=Moment.FOUR_CARDS)
    r.place_insurance("ann", "player_insurance", D(100), moment=Moment.FOUR_CARDS)
    r.place_insurance("bob", "player_insurance", D(200), moment=Moment.FOUR_CARDS)


@pytest.mark.clause("tiger-buffalo", "3.12.2")
def test_tiger_buffalo_3_12_2_each_offer_has_its_own_cap() -> None:
    """3.12.2 caps the Insurance "for each time when Insurance is offered":
    ann's 300 after four cards leaves her cap after the Player's third card
    whole, and a stake at the third card reduces that cap.  Catches the
    moment filter of the cap dropped or inverted."""
    r = buffalo()
    r.place_bet("ann", 1, "player", D(300))
    r.close_betting()
    deal(r, "3H 4C 2D KS")
    (four,) = [o for o in r.insurance_offers() if o.insures.value == "player"]
    assert r.insurance_cap("ann", four) == D(300)
    r.place_insurance("ann", "player_insurance", D(300))
    assert r.insurance_cap("ann", four) == D(0)
    deal(r, "3S")  # Player 8 after the third card v Banker 4
    (third,) = [o for o in r.insurance_offers() if o.insures.value == "player"]
    assert third.moment is Moment.PLAYER_THIRD_CARD
    assert r.insurance_cap("ann", third) == D(300)
    r.place_insurance("ann", "player_insurance", D(120))
    assert r.insurance_cap("ann", third) == D(180)


@pytest.mark.clause("tiger-buffalo", "3.14")
def test_tiger_buffalo_3_14_the_highest_bet_is_one_wager_not_a_players_total() -> None:
    """ann has Player 500 and Banker 400 (900 in all), bob Player 600: bob
    has the highest Bet and may ask for the waiver, ann may not.  Catches
    a player's Player and Banker bets added together."""
    r = buffalo()
    r.place_bet("ann", 1, "player", D(500))
    r.place_bet("ann", 1, "banker", D(400))
    r.place_bet("bob", 2, "player", D(600))
    r.close_betting()
    deal(r, "3H 4C 2D KS")
    with pytest.raises(ActionError, match="ann does not have the highest Bet"):
        r.waive_insurance("squeeze", requester="ann")
    assert r.can_waive_insurance(requester="bob")
    r.waive_insurance("squeeze", requester="bob")
    assert r.insurance_waived


# -- grants: every refusal says what, the clause and what to do ------------------------------------


def tiger(*, electronic_device: bool = False, cards: str = "QH 2C 2D KS") -> Round:
    """Tiger Baccarat with ann's Banker 100, bob's Tie 10 and cy's Tiger Pair
    10, ``cards`` out."""
    r = Round(
        get_game("tiger-baccarat"),
        limits=TableLimits(D(10), D(1000)),
        electronic_device=electronic_device,
    )
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "tie", D(10))
    r.place_bet("cy", 3, "tiger_pair", D(10))
    r.close_betting()
    deal(r, cards)
    return r


def refusal(error: pytest.ExceptionInfo[Exception]) -> tuple[str, str | None, str | None]:
    value = error.value
    assert isinstance(value, ActionError | RoleError | PhaseError)
    return value.message, value.clause, value.hint


@pytest.mark.clause("tiger-buffalo", "5.7")
def test_grants_a_procedure_no_clause_grants_is_refused_under_the_clause_forbidding_it() -> None:
    """RWS grants no reopening of betting: refused under 5.7 (no bet after
    'No more bets'), saying the rules grant it nowhere."""
    r = buffalo()
    r.place_bet("ann", 1, "player", D(100))
    r.close_betting()
    with pytest.raises(ActionError) as refused:
        r.check_reopen_betting("5.9")
    title = get_game("tiger-buffalo").title
    assert refusal(refused) == (
        f"'5.9' is not a clause of {title} that reopens betting after 'No more bets'",
        "5.7",
        f"the {title} rules grant this nowhere",
    )


def test_grants_a_clause_of_no_grant_names_the_clauses_that_grant_it() -> None:
    with pytest.raises(ActionError) as refused:
        tiger().check_offer_withdrawal("goodwill")
    assert refusal(refused) == (
        "'goodwill' is not a clause of Tiger Baccarat that gives players the option to withdraw",
        "5.8.1, 5.8.2.2, 5.9, 5.17.1, 3.22.1, 6.1",
        "after 'No more bets' wagers win or lose on the outcome unless one of these clauses "
        "applies",
    )


@pytest.mark.clause("tiger-baccarat", "6.2")
def test_grants_a_higher_position_the_procedure_asks_for_is_required() -> None:
    """5.1 voids on a dealer's word, but a caller asking for a Shift Manager
    (``required``) gets a Shift Manager: the higher of the two holds."""
    r = tiger()
    assert r.can_void(Role.DEALER, "5.1")
    with pytest.raises(RoleError) as refused:
        r.check_void(Role.PIT_MANAGER, "5.1", required=Role.SHIFT_MANAGER)
    grant = r.game.grant("void", "5.1")
    assert grant is not None
    assert refusal(refused) == (
        f"a pit manager may not act under 5.1 ({grant.words})",
        "5.1",
        "it takes a shift manager or higher",
    )


@pytest.mark.clause("tiger-baccarat", "5.9")
def test_grants_a_clause_for_an_electronic_device_is_refused_under_it_at_a_table_without() -> None:
    with pytest.raises(ActionError) as refused:
        tiger(electronic_device=False).check_offer_withdrawal("5.9")
    assert refused.value.clause == "5.9"
    assert refused.value.message.startswith("5.9 applies where an electronic dealing device")


def test_grants_phase_refusals_say_the_phases_and_that_previous_rounds_stand() -> None:
    r = Round(get_game("tiger-baccarat"), limits=TableLimits(D(10), D(1000)))
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    with pytest.raises(PhaseError) as refused:
        r.check_offer_withdrawal("5.8.1")
    assert refusal(refused) == (
        "5.8.1 applies while the round is dealing, and it is betting",
        "5.8.1",
        None,
    )
    r.close_betting()
    deal(r, "9H 2C KD 3S")
    r.settle()
    with pytest.raises(PhaseError) as refused:
        r.check_offer_withdrawal("5.8.1")
    assert refused.value.message == (
        "5.8.1 applies while the round is dealing, and it is settled; previous rounds stand"
    )
    voided = tiger()
    voided.void_round("foreign card", "5.1")
    with pytest.raises(PhaseError) as refused:
        voided.check_offer_withdrawal("5.8.1")
    assert refused.value.message == (
        "5.8.1 applies while the round is dealing, and it is void; previous rounds stand"
    )
    complete = buffalo()
    complete.place_bet("ann", 1, "player", D(100))
    complete.close_betting()
    deal(complete, "9H 2C KD 3S")
    with pytest.raises(PhaseError) as refused:
        complete.check_void(Role.DEALER, "5.4.2")
    assert refused.value.message == (
        "5.4.2 applies while the round is betting or dealing, and it is result"
    )


@pytest.mark.clause("tiger-baccarat", "5.17.1")
def test_grants_an_option_after_a_power_failure_needs_one_recorded() -> None:
    with pytest.raises(PhaseError) as refused:
        tiger().check_offer_withdrawal("5.17.1")
    assert refusal(refused) == (
        "5.17.1 applies after a power failure, and none is recorded this round",
        "5.17.1",
        "declare the power failure first: its procedure gives the consequence",
    )


@pytest.mark.clause("tiger-baccarat", "5.8.2.2")
@pytest.mark.clause("tiger-baccarat", "3.22.1")
def test_grants_the_cards_dealt_a_clause_applies_with_are_named() -> None:
    with pytest.raises(PhaseError) as refused:
        tiger(cards="QH 2C").check_offer_withdrawal("5.8.2.2", Role.PIT_MANAGER)
    assert refusal(refused) == (
        "5.8.2.2 applies with 4 to 5 cards dealt, and 2 are out",
        "5.8.2.2",
        None,
    )
    with pytest.raises(PhaseError) as refused:
        tiger(cards="QH 2C").check_offer_withdrawal("3.22.1")
    assert refused.value.message == "3.22.1 applies with 0 cards dealt, and 2 are out"


@pytest.mark.clause("tiger-baccarat", "5.17.1")
def test_grants_an_option_only_with_no_outcome_is_refused_once_one_is() -> None:
    """cy's Tiger Pair is lost once four cards show no Pair: an outcome is
    established, the power failure lets play continue, and 5.17.1's option
    is refused."""
    r = tiger()
    assert r.power_failure() == "continue"
    with pytest.raises(PhaseError) as refused:
        r.check_offer_withdrawal("5.17.1")
    assert refusal(refused) == (
        "an outcome is established (the wagers in play: the cards have decided some): "
        "5.17.1 applies only when none has conclusively won or lost",
        "5.17.1",
        "play continues and the round is concluded on the cards",
    )


@pytest.mark.clause("tiger-buffalo", "5.14.2")
def test_grants_a_return_once_an_outcome_is_established_names_whose_wagers_count() -> None:
    r = buffalo()
    r.place_bet("ann", 1, "player", D(100))
    r.place_bet("ann", 1, "tie", D(10))
    r.close_betting()
    deal(r, "3H 4C 2D KS")  # Player 5 v Banker 4: the hands are not decided
    with pytest.raises(PhaseError) as refused:
        r.check_return_bet("b1", "5.14.2", Role.PIT_MANAGER)
    assert refusal(refused) == (
        "no outcome is established yet (the banker and player wagers): 5.14.2 applies once "
        "the cards have decided one",
        "5.14.2",
        "deal on, or use the clause for an outcome not established",
    )
    deal(r, "3S 5D")  # Player 8 v Banker 9: decided
    with pytest.raises(ActionError) as not_original:
        r.check_return_bet("b2", "5.14.2", Role.PIT_MANAGER)
    assert refusal(not_original) == (
        "5.14.2 returns only banker, player wagers, not tie (b2)",
        "5.14.2",
        None,
    )
    r.check_return_bet("b1", "5.14.2", Role.PIT_MANAGER)
