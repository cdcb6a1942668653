"""Automated players: their counts are punto counting's, they decide from the
cards seen, and the Insurance Plus player takes exactly the positive offers."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from fractions import Fraction
from pathlib import Path

from punto.analysis.insurance_values import deal_values
from punto.protection.players import (
    BIG_TIGER_THRESHOLD,
    FlatBettor,
    InsurancePlayer,
    ShoeView,
    big_tiger_counter,
    dragon_tiger_counter,
    insurance_offers,
)
from punto.rules.cards import DECK, parse_cards
from punto.rules.coup import Deal, Side
from punto.rules.games import get_game
from punto.rules.insurance import moment_of
from punto.sim.count_tags import Tags, derive_tags, effects_floats, parse_tags
from punto.sim.counting import CountJob, counting
from punto.sim.reference import deal_shoe
from punto.sim.run import ShoeRules


def test_big_tiger_counter_counts_the_published_tags_punto_counting_derives() -> None:
    game = get_game("tiger-baccarat")
    counter = big_tiger_counter()
    assert counter.tags == parse_tags("0,0,-1,-1,-1,-2,+1,+2,+2,0")
    derived = derive_tags(effects_floats(game.id, None, game.pair_rule, 8)["big_tiger"])
    assert counter.tags == derived.values
    assert (counter.wager, counter.threshold) == ("big_tiger", 8)


def test_dragon_tiger_counter_counts_the_tags_punto_counting_derives() -> None:
    counter = dragon_tiger_counter(get_game("dragon-tiger"))
    # as `punto counting dragon-tiger` prints them, best threshold >= +9
    assert counter.tags == parse_tags("+1,-1,-1,-1,-1,-3,-2,+2,+2,+1")
    assert (counter.wager, counter.threshold) == ("dragon_tiger", 9)


def test_true_count_is_52_times_the_running_count_over_the_cards_left() -> None:
    counter = big_tiger_counter()
    view = ShoeView(8)
    view.show(parse_cards("8S 8H 9C 9D 7S"))  # +2 +2 +2 +2 +1
    assert counter.running_count(view) == 9
    assert counter.true_count(view) == (52 * 9) // 411 == 1
    view.burn_face_down(300)  # unseen cards leave the shoe uncounted
    assert view.cards_left == 111
    assert counter.true_count(view) == (52 * 9) // 111 == 4
    assert counter.bets(view) == {"big_tiger": 0}
    view.show(parse_cards("8S 8H 8C 8D"))  # running count 17: 884 // 107 = 8
    assert counter.true_count(view) == BIG_TIGER_THRESHOLD
    assert counter.bets(view) == {"big_tiger": 1}
    view.show(parse_cards("6S"))  # -2: 780 // 106 = 7
    assert counter.bets(view) == {"big_tiger": 0}
    assert sum(view.composition.counts) == 416 - 10  # the seen cards only


def test_big_tiger_counter_bets_as_often_as_punto_counting_says() -> None:
    """The counter's bet frequency over shoes dealt by the engine agrees with
    the counting kernel's at true count >= +8 (within four standard errors
    of the difference; both measured, shoes independent)."""
    counter = big_tiger_counter()
    per_shoe: list[tuple[int, int]] = []
    for s in range(250):
        cards = list(DECK) * 8
        random.Random(9000 + s).shuffle(cards)
        view = ShoeView(8)
        shoe_bets = 0
        dealt = deal_shoe(cards, 8 * 52 - 14)
        for coup in dealt:
            shoe_bets += counter.bets(view)["big_tiger"]
            view.show(coup.cards)
        per_shoe.append((shoe_bets, len(dealt)))
    n = len(per_shoe)
    bets = sum(b for b, _ in per_shoe)
    coups = sum(c for _, c in per_shoe)
    freq = bets / coups
    # ratio estimator's standard error over independent shoes
    resid = [b - freq * c for b, c in per_shoe]
    se = math.sqrt(sum(r * r for r in resid) / (n - 1) / n) / (coups / n)
    tags = Tags(counter.tags, "given")
    job = CountJob(
        "tiger-baccarat",
        None,
        "literal",
        ShoeRules(8, 14),
        seed=15,
        shoes=20_000,
        wagers=("big_tiger",),
        tags=(tags.values,),
        samples=0,  # no exact curve (exact=False): no samples kept
    )
    chosen = counting(job, [tags], exact=False, threshold=8, workers=0).wagers[0].chosen
    assert chosen is not None
    diff = abs(freq - chosen.bet_frequency)
    assert diff < 4 * math.hypot(se, chosen.bet_frequency_se), (freq, se, chosen.bet_frequency)


def test_flat_bettor_ignores_the_cards() -> None:
    a = FlatBettor("a", ("big_tiger",), 0.25, seed=4)
    b = FlatBettor("b", ("big_tiger",), 0.25, seed=4)
    rich, poor = ShoeView(8), ShoeView(8)
    rich.show(parse_cards("8S 8H 8C 8D 9S 9H 9C 9D"))
    poor.show(parse_cards("6S 6H 6C 6D 5S 5H 5C 5D"))
    first = [a.bets(rich)["big_tiger"] for _ in range(4000)]
    assert first == [b.bets(poor)["big_tiger"] for _ in range(4000)]
    share = sum(first) / len(first)
    assert abs(share - 0.25) < 4 * math.sqrt(0.25 * 0.75 / len(first))


def test_insurance_player_takes_exactly_the_positive_banker_offers() -> None:
    game = get_game("tiger-buffalo")
    player = InsurancePlayer()
    taken: list[Fraction] = []
    declined = 0
    for s in range(4):
        cards = list(DECK) * 8
        random.Random(s).shuffle(cards)
        view = ShoeView(8)
        for coup in deal_shoe(cards, 8 * 52 - 14):
            for k in (4, 5):
                table = coup.cards[:k]
                if moment_of(Deal(table)) is None:
                    continue
                offers = insurance_offers(game, view, table, Side.BANKER)
                # the same values as the exact analysis on the cards seen
                expected = [
                    dv.value
                    for dv in deal_values(game, view.composition, table)
                    if dv.offer.insures is Side.BANKER
                ]
                assert [o.value for o in offers] == expected
                assert all(o.wager == "banker_insurance" for o in offers)
                for o in offers:
                    if player.takes(o.offer):
                        taken.append(o.value)
                    else:
                        declined += 1
                        assert o.value <= 0
            view.show(coup.cards)
    assert taken
    assert all(v > 0 for v in taken)
    assert declined > len(taken)  # most offers favour the house


def test_load_generator_eyes_follow_the_shoe_from_the_table_messages() -> None:
    """bench_server_load --bettors: a seat's view of the shoe from its
    watcher's messages (cards once each, the cards gone from each state, a
    new shoe a fresh view)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_server_load.py"
    spec = importlib.util.spec_from_file_location("bench_server_load", path)
    assert spec is not None
    assert spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    try:
        spec.loader.exec_module(bench)
    finally:
        del sys.modules[spec.name]
    eyes = bench.TableEyes()

    def state(shoe: str, left: int, phase: str = "dealing") -> dict[str, object]:
        return {
            "type": "state",
            "table": {"decks": 8},
            "shoe": {"id": shoe, "cards_left": left},
            "round": {"phase": phase},
        }

    eyes.message(state("s1", 410))  # six cards dealt before this seat watched
    assert eyes.view.gone == 6
    assert sum(eyes.view.shown) == 0
    for index, card in enumerate(("8S", "8H", "9C", "9D")):
        message = {"type": "card", "round_id": "r2", "index": index, "card": card}
        eyes.message(message)
        eyes.message(message)  # the same card again is not seen twice
    assert eyes.view.shown[7] == 2
    assert eyes.view.shown[8] == 2
    assert eyes.view.gone == 10
    eyes.message({"type": "betting_open", "round_id": "r3"})
    assert eyes.windows == 1
    assert big_tiger_counter().running_count(eyes.view) == 8
    eyes.message(state("s2", 416, "betting"))  # a new shoe
    assert sum(eyes.view.shown) == 0
    assert eyes.view.gone == 0
