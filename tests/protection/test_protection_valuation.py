"""The exact value of every bet at placement (punto.protection.valuation)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from punto.analysis.composition import Composition
from punto.analysis.insurance_values import deal_values
from punto.analysis.tables import odds_table
from punto.protection.valuation import (
    BetValue,
    ValuationError,
    insurance_value,
    unseen,
    wager_returns,
    watched_wagers,
)
from punto.rules.cards import Card
from punto.rules.games import get_game
from punto.rules.insurance import Moment
from punto.rules.wagers import PairRule


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


SEEN = cards("AS AH AD AC 5S 9H KD KC QS 2H 3H 3D")


@pytest.mark.parametrize(
    ("game_id", "layout"),
    [
        ("tiger-baccarat", None),
        ("tiger-no-commission", "A"),
        ("tiger-buffalo", "C"),
        ("baccarat-tournament", None),
        ("dragon-tiger", "A"),
    ],
)
def test_returns_are_the_odds_of_punto_odds_for_the_unseen_composition(
    game_id: str, layout: str | None
) -> None:
    game = get_game(game_id)
    composition = unseen(8, SEEN)
    returns = wager_returns(game, layout, game.pair_rule, composition)
    table = odds_table(game, Composition.parse(composition.text()), layout, game.pair_rule)
    assert returns == {wid: w.return_exact for wid, w in table.wagers.items()}
    assert set(returns) == set(table.wagers)
    # the seen cards matter: the value differs from the full shoe's for some wager
    full = wager_returns(game, layout, game.pair_rule, Composition.of_decks(8))
    assert any(full[w] != returns[w] for w in returns)


def test_unseen_takes_the_seen_cards_out_of_the_decks() -> None:
    composition = unseen(8, SEEN)
    assert composition.counts[0] == 32 - 4  # four Aces seen
    assert composition.counts[12] == 32 - 2  # two Kings
    assert composition.total == 416 - len(SEEN)
    assert composition.decks is None
    assert unseen(8, []).decks == 8


def test_unseen_refuses_more_cards_than_the_decks_hold_and_a_spent_shoe() -> None:
    with pytest.raises(ValuationError, match="more cards seen"):
        unseen(1, cards("AS AH AD AC AS"))
    with pytest.raises(ValuationError, match="cannot deal a coup"):
        unseen(1, [Card.parse(f"{r}{s}") for r in "A23456789TJQK" for s in "SHDC"][:48])


def test_returns_are_cached_by_composition() -> None:
    from punto.protection.valuation import _returns

    game = get_game("tiger-baccarat")
    composition = unseen(8, cards("7S 7H"))
    first = wager_returns(game, None, PairRule.LITERAL, composition)
    hits = _returns.cache_info().hits
    again = wager_returns(game, None, PairRule.LITERAL, unseen(8, cards("7D 7C")))
    assert again is first  # the same ranks seen: the same composition
    assert _returns.cache_info().hits == hits + 1


def test_bet_value_is_stake_times_the_exact_return() -> None:
    game = get_game("tiger-baccarat")
    ret = wager_returns(game, None, game.pair_rule, unseen(8, SEEN))["big_tiger"]
    value = BetValue("b1", "ann", "big_tiger", 2500, ret)
    assert value.expected_value == 2500 * ret
    assert value.house_edge == -ret
    assert value.theoretical_win == -2500 * ret
    assert isinstance(value.expected_value, Fraction)


def test_watched_wagers_are_the_side_bets_on_offer() -> None:
    assert watched_wagers(get_game("tiger-baccarat"), None) == (
        "tiger",
        "big_tiger",
        "small_tiger",
        "tiger_pair",
        "tiger_tie",
    )
    assert "player_insurance" not in watched_wagers(get_game("tiger-buffalo"), "A")


def test_tiger_buffalo_4_1_15_insurance_value_is_the_offer_taken() -> None:
    game = get_game("tiger-buffalo")
    composition = unseen(8, SEEN)
    on_table = cards("AS AH AD 3C")  # Player 2, Banker 4: Banker insurance offered
    value = insurance_value(game, composition, on_table, "banker_insurance", Moment.FOUR_CARDS)
    (offer,) = deal_values(game, composition, on_table)
    assert value == offer.value
    assert value != insurance_value(
        game, Composition.of_decks(8), on_table, "banker_insurance", Moment.FOUR_CARDS
    )
    with pytest.raises(ValuationError, match="no player_insurance offer"):
        insurance_value(game, composition, on_table, "player_insurance", Moment.FOUR_CARDS)
