"""The clause a refused withdrawal cites (review 2026-11-29, section 5).

After 'No more bets' a single wager is not withdrawn: the refusal names the
clause that governs the moment -- MBS 5.17.1 after a power failure with no
outcome established (all the player's wagers or none), No Commission 5.7
("no withdrawal after No more bets") where the Shift Manager decides an
irregularity the rules do not cover -- never the general clause in place of
the particular one, nor "not covered by the rules".
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from punto.errors import ActionError, BettingClosedError
from punto.rules.cards import parse_cards
from punto.rules.games import get_game
from punto.table import irregularities as irr
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Round


def dealing(game: str, cards: str = "2H") -> tuple[Round, str, str]:
    """A round of ``game`` with ann on the Player and the Banker, ``cards`` out."""
    r = Round(get_game(game), limits=TableLimits(Decimal(10), Decimal(10000)))
    r.open()
    player = r.place_bet("ann", 1, "player", Decimal(100))
    banker = r.place_bet("ann", 1, "banker", Decimal(100))
    r.close_betting()
    for card in parse_cards(cards):
        r.deal_card(card)
    return r, player, banker


@pytest.mark.clause("tiger-baccarat", "5.17.1")
@pytest.mark.parametrize("game", ["tiger-baccarat", "dragon-tiger"])
def test_5_17_1_one_wager_is_not_withdrawn_while_the_power_failure_option_is_open(
    game: str,
) -> None:
    r, player, _ = dealing(game)
    assert r.power_failure() == "withdrawal"
    with pytest.raises(ActionError) as refused:
        r.withdraw_bet(player)
    assert refused.value.clause == "5.17.1"
    assert "all their wagers or none" in refused.value.message


@pytest.mark.clause("tiger-baccarat", "5.17.1")
@pytest.mark.parametrize("game", ["tiger-baccarat", "dragon-tiger"])
def test_5_17_1_one_wager_is_not_withdrawn_after_the_power_failure_option_closed(
    game: str,
) -> None:
    r, player, _ = dealing(game)
    ruling = irr.power_failure(r)  # nobody took the option: it is closed again
    assert (ruling.clause, r.withdrawal_open) == ("5.17.1", None)
    with pytest.raises(ActionError) as refused:
        r.withdraw_bet(player)
    error = refused.value
    assert not isinstance(error, BettingClosedError)
    assert error.clause == "5.17.1"  # not 5.5: the power failure's own clause governs
    assert "all their wagers or none" in error.message


@pytest.mark.clause("tiger-baccarat", "5.5")
def test_5_5_one_wager_after_no_more_bets_with_no_power_failure_still_cites_5_5() -> None:
    r, player, _ = dealing("tiger-baccarat")
    with pytest.raises(BettingClosedError) as refused:
        r.withdraw_bet(player)
    assert refused.value.clause == "5.5"


@pytest.mark.clause("tiger-baccarat", "5.5")
def test_5_17_2_power_failure_with_an_outcome_established_leaves_5_5() -> None:
    """A Banker natural against a Player 2: the outcome is established, play
    continues (5.17.2) and no option was given; 5.5 refuses the withdrawal."""
    r, player, _ = dealing("tiger-baccarat", "2H 9C 3D KS")
    assert r.power_failure() == "continue"
    with pytest.raises(BettingClosedError) as refused:
        r.withdraw_bet(player)
    assert refused.value.clause == "5.5"


@pytest.mark.clause("tiger-no-commission", "5.7")
def test_no_commission_5_7_one_wager_under_the_shift_managers_option_is_refused() -> None:
    r, player, _ = dealing("tiger-no-commission", "2H 3C")
    r.offer_withdrawal("not covered by the rules", "an irregularity", Role.SHIFT_MANAGER)
    with pytest.raises(ActionError) as refused:
        r.withdraw_bet(player)
    assert refused.value.clause == "5.7"  # not "not covered by the rules"
    assert "Shift Manager's option" in refused.value.message


@pytest.mark.clause("tiger-no-commission", "5.7")
def test_no_commission_5_7_a_player_whose_wagers_are_decided_cites_5_7() -> None:
    """Player 9 v Banker 0 on the first four cards: every wager of ann is decided."""
    r, _, _ = dealing("tiger-no-commission", "4H KC 5D QS")
    r.offer_withdrawal("not covered by the rules", "an irregularity", Role.SHIFT_MANAGER)
    with pytest.raises(ActionError) as refused:
        r.withdraw_player("ann")
    assert refused.value.clause == "5.7"


@pytest.mark.clause("tiger-no-commission", "5.7")
def test_no_commission_5_7_a_withdrawal_asked_of_a_procedure_not_covered_cites_5_7() -> None:
    """A power failure (No Commission has no clause for it): play continues,
    and a player asking to withdraw is refused under 5.7."""
    r, _, _ = dealing("tiger-no-commission", "2H 3C")
    with pytest.raises(ActionError) as refused:
        irr.power_failure(r, withdrawing=["ann"])
    assert refused.value.clause == "5.7"
    assert "the rules give no withdrawal option" in refused.value.message
