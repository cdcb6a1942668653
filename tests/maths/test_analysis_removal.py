"""Effect of removal of each rank on every wager."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from punto.analysis.composition import RANKS, Composition
from punto.analysis.removal import effects_of_removal, pair_readings, removal_json
from punto.rules.game import Game
from punto.rules.games import all_games, get_game
from punto.rules.odds import Pays
from punto.rules.wagers import PairRule

EIGHT = Composition.of_decks(8)


def _lucky_six() -> Game:
    """Lucky 6 as a game of its own: the Tiger wager paying 12 and 23."""
    game = get_game("tiger-baccarat")
    pays = {"two_cards": Pays.parse("12 to 1"), "three_cards": Pays.parse("23 to 1")}
    lucky = replace(game.wagers["tiger"], id="lucky_6", name="Lucky 6", pays=pays)
    return replace(game, id="lucky-6", wagers={"lucky_6": lucky})


def test_lucky_six_effects() -> None:
    """Wizard of Odds, wizardofodds.com/games/baccarat/counting-lucky-6/: effect of
    removal per rank 0-9 of Lucky 6 (12 / 23), 8 decks."""
    effects = effects_of_removal(_lucky_six(), EIGHT)["lucky_6"].effects
    by_value = {rank.points: effects[rank - 1] or Fraction(0) for rank in RANKS}
    assert None not in effects
    published = (
        "-.000611 -.000329 -.000323 -.001131 -.000393 -.000278 -.005386 +.003907 +.003537 +.002838"
    )
    got = " ".join(f"{float(by_value[v]):+.6f}".replace("0.", ".", 1) for v in range(10))
    assert got == published


@pytest.mark.parametrize("game_id", [g.id for g in all_games()])
def test_effects_balance(game_id: str) -> None:
    """Taking out a card at random changes nothing on average (the cards are
    exchangeable), so the effects weighted by the cards of each rank sum to
    exactly zero -- for any shoe."""
    game = get_game(game_id)
    for shoe in (EIGHT, Composition((20, 31, 28, 32, 25, 30, 32, 27, 29, 30, 24, 31, 26))):
        for removal in effects_of_removal(game, shoe).values():
            total = sum(n * x for n, x in zip(shoe.counts, removal.effects, strict=True) if x)
            assert total == 0, removal.wager


def test_value_wagers_see_point_values_only() -> None:
    for removal in effects_of_removal(get_game("dragon-tiger"), EIGHT).values():
        assert len(set(removal.effects[9:])) == 1


def test_tiger_pair_under_both_readings() -> None:
    """Tiger Baccarat 1.1.14: read literally, a Ten pairs with a face card and
    the Ten's effect parts from the face cards'; read by rank, a full shoe is
    symmetric in the ranks and every effect is zero."""
    readings = pair_readings(get_game("tiger-baccarat"), EIGHT)
    literal = readings[PairRule.LITERAL]["tiger_pair"].effects
    rank = readings[PairRule.RANK]["tiger_pair"].effects
    assert set(rank) == {Fraction(0)}
    assert literal[9] != literal[10] == literal[11] == literal[12]
    data = removal_json(effects_of_removal(get_game("tiger-baccarat"), EIGHT), readings)
    assert set(data["pair_readings"]) == {"literal", "rank"}
    assert data["ranks"][9] == "10"


def test_missing_rank() -> None:
    shoe = Composition((32,) * 12 + (0,))
    effects = effects_of_removal(get_game("tiger-baccarat"), shoe)["banker"].effects
    assert effects[12] is None
    assert effects[11] is not None


def test_big_tiger_count_tags_follow_the_effects() -> None:
    """advancedadvantageplay.com, "card counting the Big Tiger" (2024): tags A..9, 10
    = 0, 0, -1, -1, -1, -2, +1, +2, +2, 0.  A count's tags should follow the effects
    of removal: every non-zero tag has the sign of its rank's effect, and the two
    correlate (weighted by the cards of each value) above 0.97.  (The article's
    bet frequency, edge and win rate come from simulating the count through
    whole shoes, which is not an exact figure of one composition.)"""
    effects = effects_of_removal(get_game("tiger-baccarat"), EIGHT)["big_tiger"].effects
    by_value = [float(effects[v - 1] or 0) for v in range(1, 10)] + [float(effects[9] or 0)]
    tags = [0, 0, -1, -1, -1, -2, +1, +2, +2, 0]
    weights = [1] * 9 + [4]
    for tag, effect in zip(tags, by_value, strict=True):
        assert tag == 0 or (tag > 0) == (effect > 0)
    assert _correlation(tags, by_value, weights) > 0.97


def _correlation(xs: list[int], ys: list[float], ws: list[int]) -> float:
    total = sum(ws)
    mx = sum(x * w for x, w in zip(xs, ws, strict=True)) / total
    my = sum(y * w for y, w in zip(ys, ws, strict=True)) / total
    cov = sum(w * (x - mx) * (y - my) for x, y, w in zip(xs, ys, ws, strict=True))
    vx = sum(w * (x - mx) ** 2 for x, w in zip(xs, ws, strict=True))
    vy = sum(w * (y - my) ** 2 for y, w in zip(ys, ws, strict=True))
    return float(cov / (vx * vy) ** 0.5)
