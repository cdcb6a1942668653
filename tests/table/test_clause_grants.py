"""Procedures that move money outside ordinary settlement, gated by the
clause that grants them: each finding reproduced, then checked
with every player's exact money.

Coups (shoe order: Player, Banker, Player, Banker, then third cards), each
worked by hand from the Table of Play:

* ``10S 4D 3H 3C`` -- Player 0+3=3 draws; Banker 4+3=7 stands whatever the
  Player draws: Small Tiger (Banker wins with 6 on two cards) has lost.
  With ``2H`` next: Player 5, Banker wins 7 v 5 on two cards.
* ``2H 9C 3D KS`` -- Player 5; Banker 9+K=9, a Natural: Banker wins.
* ``9H 2C KD 3S`` -- Player 9+K=9, a Natural; Banker 5: Player wins.
* ``2H 4C 2D KS`` -- Player 2+2=4 (a pair of twos), Banker 4+K=4: both
  undecided.  With ``5H 3D``: Player 9; Banker draws on 4 against a 5 and
  makes 7.  Player wins 9 v 7; a Tiger Pair (single pair) pays 4 to 1.
* ``2H 4C 3D KS`` -- no pair; Player 5, Banker 4.  With ``5H 3D``: Player
  0, Banker draws on 4 against a 5: 7.  Banker wins 7 v 0 with three cards.
* ``3H 4C 2D KS`` -- Player 5 draws, Banker 4.  With ``2S``: Player 7;
  Banker 4 draws against a 2.  With ``5S``: Banker 9, wins 9 v 7.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from importlib import resources

import pytest

from punto.errors import (
    ActionError,
    GameDataError,
    InsuranceError,
    PhaseError,
    RoleError,
    WagerError,
)
from punto.rules.cards import Card, parse_cards
from punto.rules.game import PROCEDURES, Game, load_game
from punto.rules.games import all_games, get_game
from punto.rules.insurance import Moment
from punto.table import irregularities as irr
from punto.table.limits import TableLimits
from punto.table.replay import ReplayError, run_replay
from punto.table.roles import Role
from punto.table.round import Round

D = Decimal
LIMITS = TableLimits(D(10), D(1000))
RWS_LIMITS = TableLimits(D(10), D(10000))
TB_GRANTS_WITHDRAWAL = "5.8.1, 5.8.2.2, 5.9, 5.17.1, 3.22.1, 6.1"


def tb(*bets: tuple[str, int, str, int], electronic_device: bool = False) -> Round:
    """A Tiger Baccarat round with ``bets`` (player, position, wager, stake),
    closed (``electronic_device``: at a table with one, MBS 5.9)."""
    game = get_game("tiger-baccarat")
    return _closed(Round(game, limits=LIMITS, electronic_device=electronic_device), bets)


def rws(*bets: tuple[str, int, str, int]) -> Round:
    return _closed(Round(get_game("tiger-buffalo"), limits=RWS_LIMITS, layout="A"), bets)


def _closed(r: Round, bets: tuple[tuple[str, int, str, int], ...]) -> Round:
    r.open()
    for player, position, wager, stake in bets:
        r.place_bet(player, position, wager, D(stake))
    r.close_betting()
    return r


def deal(r: Round, text: str) -> Round:
    for card in parse_cards(text):
        r.deal_card(card)
    return r


def nets(r: Round) -> dict[str, Decimal]:
    if r.can_settle():
        r.settle()
    out = r.nets()
    assert sum(out.values(), D(0)) + r.house_net() == 0
    return out


# -- 1. a withdrawal returns only what the cards have not decided ----------------------------


def test_tiger_baccarat_5_17_1_option_refused_once_the_cards_decided_a_wager() -> None:
    r = deal(tb(("ann", 1, "banker", 1000), ("ann", 1, "small_tiger", 100)), "10S 4D 3H 3C")
    assert irr.power_failure(r).clause == "5.17.2"  # Small Tiger has lost: play continues
    with pytest.raises(PhaseError) as refused:
        r.offer_withdrawal("5.17.1", "power failure")
    assert refused.value.clause == "5.17.1"
    assert "outcome is established" in refused.value.message
    deal(r, "2H")  # Player 5; Banker 7 wins with two cards
    assert nets(r) == {"ann": D(850)}  # Banker +950, Small Tiger -100


def test_tiger_baccarat_5_17_1_option_needs_a_power_failure() -> None:
    r = tb(("ann", 1, "player", 500))
    with pytest.raises(PhaseError) as refused:
        r.offer_withdrawal("5.17.1", "no power failure")
    assert refused.value.clause == "5.17.1"
    deal(r, "2H 9C 3D KS")
    assert nets(r) == {"ann": D(-500)}


@pytest.mark.parametrize("clause", ["goodwill", "9.9", "5.13", "5.17"])
def test_tiger_baccarat_5_5_free_text_option_refused_names_the_granting_clauses(
    clause: str,
) -> None:
    r = deal(tb(("ann", 1, "player", 500)), "2H 9C 3D KS")  # Banker natural: ann lost
    with pytest.raises(ActionError) as refused:
        r.offer_withdrawal(clause, "player asked", Role.SHIFT_MANAGER)
    assert refused.value.clause == TB_GRANTS_WITHDRAWAL
    assert nets(r) == {"ann": D(-500)}


def test_tiger_baccarat_5_5_free_withdrawal_replay_is_refused() -> None:
    """The audit's ``free_withdrawal.json``: the replay stops at the option."""
    data = {
        "game": "tiger-baccarat",
        "limits": {"minimum": "10", "maximum": "1000"},
        "actions": [
            {"action": "open"},
            {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "500"},
            {"action": "no_more_bets"},
            {"action": "card", "cards": "2H 9C 3D KS"},
            {
                "action": "offer_withdrawal",
                "clause": "goodwill",
                "reason": "player asked",
                "role": "dealer",
            },
            {"action": "withdraw_player", "player": "ann"},
            {"action": "close_withdrawal", "role": "dealer"},
            {"action": "settle"},
        ],
    }
    with pytest.raises(ReplayError, match="'goodwill' is not a clause of Tiger Baccarat"):
        run_replay(data)


def test_tiger_baccarat_6_1_option_after_the_coup_returns_nothing_decided() -> None:
    r = deal(tb(("ann", 1, "player", 500), ("bob", 2, "banker", 200)), "2H 9C 3D KS")
    r.offer_withdrawal("6.1", "a decision", Role.SHIFT_MANAGER)
    with pytest.raises(ActionError) as refused:
        r.withdraw_player("ann")
    assert refused.value.clause == "6.1"
    assert "decided every wager of ann" in refused.value.message
    r.close_withdrawal(Role.SHIFT_MANAGER)
    assert nets(r) == {"ann": D(-500), "bob": D(190)}


def test_tiger_baccarat_5_8_2_2_withdrawal_keeps_a_won_tiger_pair() -> None:
    r = deal(
        tb(("ann", 1, "banker", 100), ("ann", 1, "tiger_pair", 10), ("bob", 2, "player", 100)),
        "2H 4C 2D KS",
    )
    ruling = irr.simultaneous_draw(
        r,
        parse_cards("5H 3D"),
        order_known=False,
        order=parse_cards("5H 3D"),
        withdrawing=["ann"],
        role=Role.PIT_MANAGER,
    )
    assert (ruling.clause, ruling.withdrawn) == ("5.8.2.2", ("ann",))
    # ann's Banker comes back; her Tiger Pair, won on the first four cards, pays 4 to 1
    assert nets(r) == {"ann": D(40), "bob": D(100)}
    outcomes = {(s.bet.wager, s.outcome, s.clause) for s in r.results() if s.bet.player == "ann"}
    assert outcomes == {("banker", "returned", "5.8.2.2"), ("tiger_pair", "win", None)}


def test_tiger_baccarat_5_8_1_withdrawal_keeps_a_lost_tiger_pair() -> None:
    r = deal(
        tb(("ann", 1, "player", 100), ("ann", 1, "tiger_pair", 10), ("bob", 2, "banker", 100)),
        "2H 4C 3D KS",
    )
    ruling = irr.simultaneous_draw(r, parse_cards("5H 3D"), order_known=True, withdrawing=["ann"])
    assert (ruling.clause, ruling.withdrawn) == ("5.8.1", ("ann",))
    # ann's Player comes back; her Tiger Pair had lost on the first four cards
    assert nets(r) == {"ann": D(-10), "bob": D(95)}


def test_tiger_buffalo_5_13_option_keeps_a_lost_pair_bet() -> None:
    r = deal(
        rws(("ann", 1, "player", 300), ("ann", 1, "player_pair", 100), ("bob", 2, "banker", 200)),
        "3H 4C 2D KS",
    )
    ruling = irr.dealing_error_options(r, "a dealing error", withdrawing=["ann"])
    assert (ruling.clause, ruling.withdrawn) == ("5.13", ("ann",))
    deal(r, "2S 5S")  # Banker 9 wins 9 v 7
    # ann's Player comes back; her Player Pair had lost; bob's Banker pays less 5%
    assert nets(r) == {"ann": D(-100), "bob": D(190)}


def test_tiger_baccarat_5_17_1_withdrawing_one_wager_cites_5_17_1() -> None:
    r = tb(("ann", 1, "banker", 100), ("ann", 1, "tie", 20), ("bob", 2, "player", 100))
    deal(r, "2H")
    assert r.power_failure() == "withdrawal"
    tie = next(b.bet_id for b in r.active_bets if b.wager == "tie")
    with pytest.raises(ActionError) as refused:
        r.withdraw_bet(tie)
    assert refused.value.clause == "5.17.1"
    assert "all their wagers or none" in refused.value.message
    r.withdraw_player("ann")
    r.close_withdrawal()
    deal(r, "9C 3D KS")  # Player 5, Banker 9: Banker wins
    assert nets(r) == {"ann": D(0), "bob": D(-100)}


# -- 2. voids, bets returned, betting reopened ----------------------------------------------


def test_tiger_baccarat_6_1_void_at_discretion_is_the_gaming_shift_managers() -> None:
    r = deal(tb(("ann", 1, "player", 1000)), "9H 2C KD 3S")  # ann wins on a Natural
    with pytest.raises(RoleError) as refused:
        r.void_round("pit manager decision", "6.1", Role.PIT_MANAGER, required=Role.PIT_MANAGER)
    assert refused.value.clause == "6.1"
    assert nets(r) == {"ann": D(1000)}


def test_tiger_baccarat_6_1_void_by_the_gaming_shift_manager_returns_every_bet() -> None:
    r = deal(tb(("ann", 1, "player", 1000), ("bob", 2, "tie", 50)), "9H 2C KD 3S")
    irr.unforeseen(r, "a dispute the rules do not cover", void=True)
    assert nets(r) == {"ann": D(0), "bob": D(0)}


def test_tiger_buffalo_5_17_is_no_ground_to_void() -> None:
    r = deal(rws(("ann", 1, "player", 300)), "9H 2C KD 3S")
    with pytest.raises(ActionError) as refused:
        r.void_round("pit decision", "5.17", Role.PIT_MANAGER)
    assert refused.value.clause == "5.4.2, 5.5.1, 5.5.2, 5.5.3, 5.5.4, 5.5.5, 5.19"
    assert nets(r) == {"ann": D(300)}


def test_tiger_baccarat_5_8_2_1_void_only_during_the_initial_deal() -> None:
    r = deal(tb(("ann", 1, "player", 100)), "2H 4C 3D KS")
    with pytest.raises(PhaseError) as refused:
        r.void_round("simultaneous", "5.8.2.1")
    assert refused.value.clause == "5.8.2.1"
    deal(r, "5H 3D")  # Banker 7 v Player 0
    assert nets(r) == {"ann": D(-100)}


def test_tiger_buffalo_5_14_2_returns_only_an_original_bet() -> None:
    r = deal(rws(("ann", 1, "player", 300), ("ann", 1, "player_pair", 100)), "9H 2C KD 3S")
    pair = next(b.bet_id for b in r.active_bets if b.wager == "player_pair")
    with pytest.raises(ActionError) as refused:
        r.return_bet(pair, "5.14.2", "intended Insurance", Role.PIT_MANAGER)
    assert refused.value.clause == "5.14.2"
    assert nets(r) == {"ann": D(200)}  # Player +300, Player Pair -100


def test_tiger_baccarat_5_9_reopen_refused_once_an_outcome_is_established() -> None:
    bets = tb(("ann", 1, "banker", 100), ("ann", 1, "tiger_pair", 10), electronic_device=True)
    r = deal(bets, "2H 4C 2D KS")
    with pytest.raises(PhaseError) as refused:
        irr.device_reset(r, withdrawing=["ann"])
    assert refused.value.clause == "5.9"
    deal(r, "5H 3D")  # Player 9 v Banker 7; Tiger Pair (twos) 4 to 1
    assert nets(r) == {"ann": D(-60)}


def test_tiger_baccarat_3_22_1_option_only_before_the_first_card() -> None:
    r = deal(tb(("ann", 1, "player", 100)), "9H")
    with pytest.raises(PhaseError) as refused:
        r.offer_withdrawal("3.22.1", "cutting card")
    assert refused.value.clause == "3.22.1"
    deal(r, "2C KD 3S")
    assert nets(r) == {"ann": D(100)}


def test_tiger_no_commission_5_7_power_failure_gives_no_withdrawal() -> None:
    r = Round(get_game("tiger-no-commission"), limits=LIMITS)
    _closed(r, (("ann", 1, "banker", 100), ("bob", 2, "player", 100)))
    with pytest.raises(ActionError) as refused:
        irr.power_failure(r, withdrawing=["ann"])
    assert refused.value.clause == "5.7"
    deal(r, "9H 2C KD 3S")
    assert nets(r) == {"ann": D(-100), "bob": D(100)}


# -- 4. refusals that name their clause --------------------------------------------------------


def test_tiger_buffalo_5_3_late_insurance_cites_5_3() -> None:
    # Player Insurance was offered after four cards (Player 5 v Banker 4); after the
    # Player's third card (5H: Player 0) only Banker Insurance is: ann's is late.
    r = deal(rws(("ann", 1, "player", 300), ("bob", 2, "banker", 200)), "2H 4C 3D KS 5H")
    with pytest.raises(InsuranceError) as refused:
        r.place_insurance("ann", "player_insurance", D(100))
    assert refused.value.clause == "5.3"
    deal(r, "3D")  # Banker 7 v Player 0
    assert nets(r) == {"ann": D(-300), "bob": D(190)}


def test_tiger_buffalo_3_14_waived_insurance_cites_3_14() -> None:
    r = deal(rws(("ann", 1, "player", 300), ("bob", 2, "banker", 200)), "3H 4C 2D KS")
    irr.squeeze_waiver(r, "ann squeezes the Banker's third card first", requester="ann")
    deal(r, "2S")  # Player 7 v Banker 4: after the Player's third card, Insurance was waived
    with pytest.raises(InsuranceError) as refused:
        r.place_insurance("ann", "player_insurance", D(100))
    assert refused.value.clause == "3.14"
    deal(r, "5S")
    assert nets(r) == {"ann": D(-300), "bob": D(190)}


def test_tiger_buffalo_3_14_waiver_with_the_player_third_card_out_face_down() -> None:
    r = deal(rws(("ann", 1, "player", 300), ("bob", 2, "banker", 200)), "3H 4C 2D KS 2S")
    with pytest.raises(ActionError) as not_highest:
        irr.squeeze_waiver(r, "bob asks", requester="bob")
    assert not_highest.value.clause == "3.14"
    assert "ann" in (not_highest.value.hint or "")
    assert irr.squeeze_waiver(r, "ann squeezes the Banker's third card first", requester="ann")
    assert r.insurance_offers() == []
    deal(r, "5S")
    assert nets(r) == {"ann": D(-300), "bob": D(190)}


def test_tiger_buffalo_5_14_1_a_decided_pair_bet_does_not_block_the_offer() -> None:
    r = deal(
        rws(("ann", 1, "player", 300), ("eve", 2, "player_pair", 100), ("bob", 3, "banker", 200)),
        "3H 4C 2D KS 2S",
    )
    ruling = irr.forgotten_insurance(r, moment=Moment.FOUR_CARDS)
    assert (ruling.clause, ruling.consequence) == ("5.14.1", "offered")
    offer = r.missed_insurance_offers(Moment.FOUR_CARDS)[0]
    stake = r.late_insurance_cap("ann", offer)
    r.place_insurance("ann", "player_insurance", stake, moment=Moment.FOUR_CARDS)
    deal(r, "5S")  # Banker 9 wins 9 v 7: ann's Player loses, her Insurance pays
    won = stake * offer.odds.numerator / offer.odds.denominator
    assert nets(r) == {"ann": D(-300) + won, "eve": D(-100), "bob": D(190)}
    assert won <= 300  # 5.14.1: the payout does not exceed the Original Bet


def test_tiger_baccarat_2_2_a_wager_the_game_does_not_offer_names_the_layout_clause() -> None:
    r = tb(("ann", 1, "player", 100))
    with pytest.raises(WagerError) as refused:
        get_game("tiger-baccarat").wager("dragon_tiger")
    assert refused.value.clause == "2.2"
    deal(r, "9H 2C KD 3S")
    assert nets(r) == {"ann": D(100)}


# -- 6. insufficient cards -----------------------------------------------------------------------


def test_tiger_baccarat_5_3_insufficient_cards_refuses_a_negative_count() -> None:
    r = deal(tb(("ann", 1, "player", 100)), "9H 2C")
    with pytest.raises(ActionError) as refused:
        irr.insufficient_cards(r, remaining=-5)
    assert refused.value.clause == "5.3"
    assert r.void is None
    deal(r, "KD 3S")
    assert nets(r) == {"ann": D(100)}


# -- the table itself ------------------------------------------------------------------------------


def test_tiger_baccarat_5_17_1_a_grant_returning_every_wager_needs_no_outcome_yet() -> None:
    """The data may not grant an option that would take back decided wagers."""
    path = resources.files("punto.rules.games") / "tiger_baccarat.toml"
    data = tomllib.loads(path.read_text("utf-8"))
    assert load_game(data, "tiger_baccarat.toml").grant("withdrawal", "5.17.1") is not None
    data["grants"]["withdrawal"]["5.17.1"]["outcome"] = "either"
    with pytest.raises(GameDataError, match="returns every wager only when no outcome"):
        load_game(data, "tiger_baccarat.toml")
    data["grants"]["withdrawal"]["5.17.1"]["outcome"] = "not-established"
    data["grants"]["withdrawal"]["5.17.1"]["role"] = "croupier"
    with pytest.raises(GameDataError):
        load_game(data, "tiger_baccarat.toml")
    r = tb(("ann", 1, "banker", 100))
    assert r.power_failure() == "withdrawal"
    r.withdraw_player("ann")
    r.close_withdrawal()
    deal(r, "9H 2C KD 3S")
    assert nets(r) == {"ann": D(0)}


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_all_games_grants_every_procedure_names_its_clauses(game: Game) -> None:
    for procedure, grants in game.grants.items():
        assert procedure in PROCEDURES
        for clause, grant in grants.items():
            assert (grant.clause, grant.procedure) == (clause, procedure)
            assert grant.words, (game.id, procedure, clause)
    # every game grants a void for a foreign card, and a Shift Manager's decision
    assert game.grant("void", game.clause("foreign_card") or "") is not None
    unforeseen = game.clause("unforeseen") or "not covered by the rules"
    discretion = game.grant("void", unforeseen)
    assert discretion is not None
    assert discretion.role is Role.SHIFT_MANAGER


def test_tiger_baccarat_5_17_2_settles_every_bet_after_the_refused_option() -> None:
    """The finding's round played to the end with two players, one card more."""
    r = tb(("ann", 1, "banker", 1000), ("ann", 1, "small_tiger", 100), ("bob", 2, "player", 200))
    deal(r, "10S 4D 3H 3C")
    assert not r.can_offer_withdrawal("5.17.1")
    r.deal_card(Card.parse("5H"))  # Player 8 beats Banker 7
    assert nets(r) == {"ann": D(-1100), "bob": D(200)}


def test_tiger_baccarat_6_1_granted_lists_what_each_role_may_take_now() -> None:
    r = deal(tb(("ann", 1, "player", 1000), ("bob", 2, "tiger_pair", 10)), "9H 2C KD 3S")
    # a complete coup: only the Gaming Shift Manager's decision voids it
    assert r.granted("void", Role.PIT_MANAGER) == ["5.1", "5.2", "5.12.2"]
    assert r.granted("void", Role.SHIFT_MANAGER) == ["5.1", "5.2", "5.12.2", "6.1"]
    assert r.granted("withdrawal", Role.DEALER) == []
    assert r.granted("reopen_betting", Role.SHIFT_MANAGER) == []
    assert nets(r) == {"ann": D(1000), "bob": D(-10)}


def test_tiger_baccarat_5_8_a_simultaneous_draw_of_one_card_cites_5_8() -> None:
    r = deal(tb(("ann", 1, "banker", 100)), "2H 9C")
    with pytest.raises(ActionError) as refused:
        irr.simultaneous_draw(r, parse_cards("3D"), order_known=True)
    assert refused.value.clause == "5.8"
    deal(r, "3D KS")  # Player 5, Banker 9
    assert nets(r) == {"ann": D(95)}


def test_tiger_baccarat_5_7_cards_are_reconstructed_only_under_5_7() -> None:
    # Dealt 9H 2C, intended 2C 9H: the 9 is the Banker's
    r = deal(tb(("ann", 1, "player", 100), ("bob", 2, "banker", 100)), "9H 2C")
    with pytest.raises(ActionError) as refused:
        r.reconstruct(parse_cards("2C 9H"), "goodwill", Role.SHIFT_MANAGER)
    assert refused.value.clause == "5.7"
    with pytest.raises(ActionError) as wrong_game:
        r.reconstruct(parse_cards("2C 9H"), "5.9")  # RWS 5.9, not a clause of this game's
    assert wrong_game.value.clause == "5.7"
    r.reconstruct(parse_cards("2C 9H"), "5.7")
    deal(r, "KD KS")  # Player 2+K=2; Banker 9+K=9, a Natural: Banker wins
    assert r.deal.cards == tuple(parse_cards("2C 9H KD KS"))
    assert nets(r) == {"ann": D(-100), "bob": D(95)}


def test_tiger_baccarat_2_2_no_insurance_to_waive_or_offer_again_names_the_layout() -> None:
    r = deal(tb(("ann", 1, "player", 100)), "3H 4C 2D KS")
    with pytest.raises(ActionError) as waive:
        r.waive_insurance("squeeze", Role.PIT_MANAGER)
    assert waive.value.clause == "2.2"
    with pytest.raises(ActionError) as again:
        r.reoffer_insurance(Moment.FOUR_CARDS, ["ann"])
    assert again.value.clause == "2.2"
    with pytest.raises(InsuranceError) as bet:
        r.place_insurance("ann", "player_insurance", D(50))
    assert bet.value.clause == "2.2"
    deal(r, "2S 5S")  # Player 7; Banker 4 draws against a 2: 9
    assert nets(r) == {"ann": D(-100)}


def test_tiger_buffalo_5_19_an_insured_original_bet_is_returned_after_its_insurance() -> None:
    r = deal(rws(("ann", 1, "player", 300), ("bob", 2, "banker", 200)), "3H 4C 2D KS")
    insurance = r.place_insurance("ann", "player_insurance", D(100))  # 3 to 2 after four cards
    original = next(b.bet_id for b in r.active_bets if b.player == "ann" and b.wager == "player")
    with pytest.raises(ActionError) as refused:
        r.return_bet(original, "5.19", "a decision", Role.SHIFT_MANAGER)
    assert refused.value.clause == "3.11"
    r.return_bet(insurance, "5.19", "a decision", Role.SHIFT_MANAGER)
    r.return_bet(original, "5.19", "a decision", Role.SHIFT_MANAGER)
    deal(r, "2S 5S")  # Banker 9 wins 9 v 7
    assert nets(r) == {"ann": D(0), "bob": D(190)}


@pytest.mark.clause("tiger-baccarat", "5.8.1")
@pytest.mark.clause("tiger-buffalo", "5.13")
def test_an_option_needs_its_triggering_event_recorded_and_says_which_clauses_record_it() -> None:
    """MBS 5.8.1 gives its option "in the event that" cards were drawn
    simultaneously, RWS 5.13 after a dealing error: with no such event in the
    round, a Pit Supervisor's offer is refused, naming the clauses whose
    procedures would record one, and what to do instead."""
    hint = (
        "apply the procedure of the irregularity itself: it records the event and gives the "
        "option its clause grants"
    )
    mbs = deal(tb(("ann", 1, "banker", 100)), "2H 9C")
    with pytest.raises(PhaseError) as refused:
        mbs.check_offer_withdrawal("5.8.1", Role.PIT_SUPERVISOR)
    assert str(refused.value) == (
        "5.8.1 applies after cards drawn simultaneously, order known, and round in play "
        f"records none (5.8) (clause 5.8.1); {hint}"
    )
    buffalo = deal(rws(("ann", 1, "banker", 100)), "2H 9C")
    with pytest.raises(PhaseError) as refused:
        buffalo.check_offer_withdrawal("5.13", Role.PIT_SUPERVISOR)
    assert str(refused.value) == (
        "5.13 applies after a dealing error (5.8.1, 5.9, 5.10, 5.11.1), and round in play "
        f"records none (5.8, 5.9, 5.10, 5.11, 5.13) (clause 5.13); {hint}"
    )
