"""The fast enumerators count exactly what dealing card by card counts.

* A small shoe is dealt card by card through the engine (:class:`punto.rules.coup.Deal`),
  every ordered sequence of physical cards, and every wager of every game is
  settled on each coup by its own kind function: the counts must equal the
  plan's, under both readings of a Pair.
* The compiled kernel, the pure-Python fallback and the plain reference
  enumerator give identical integers.
* A Monte Carlo run of coups dealt by the engine lands within its confidence
  interval of the exact probabilities.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from punto.analysis import enumeration, kernel
from punto.analysis.classes import (
    class_coups,
    pattern_events,
    patterns,
    python_patterns,
    rank_categories,
)
from punto.analysis.composition import Composition, CompositionError, falling
from punto.analysis.enumeration import class_index, tuple_index
from punto.analysis.plan import kind_counts, plan_for
from punto.rules.cards import DECK, Card, Rank, parse_cards
from punto.rules.coup import Coup, Deal, deal
from punto.rules.games import all_games, get_game
from punto.rules.wagers import KINDS, Basis, PairRule

needs_kernel = pytest.mark.skipif(kernel.compiled() is None, reason="C kernel not built")

#: A small shoe with naturals, draws, a Ten, two Jacks and a Queen (so that the
#: two readings of a Pair differ).
SMALL = parse_cards("AS 3S 5S 6S 6H 9S TS JS JH QS")


def _deal_every_sequence(cards: tuple[Card, ...]) -> Counter[tuple[Card, ...]]:
    """Every coup dealt from every ordering of ``cards``, weighted by the
    orderings of the cards left for the positions of the six it does not use."""
    found: Counter[tuple[Card, ...]] = Counter()

    def walk(state: Deal, left: tuple[Card, ...]) -> None:
        if state.is_complete:
            found[state.cards] += falling(len(left), 6 - len(state.cards))
            return
        for i, card in enumerate(left):
            walk(state.add(card), left[:i] + left[i + 1 :])

    walk(Deal(), cards)
    return found


@pytest.fixture(scope="module")
def small_coups() -> dict[tuple[Rank, ...], tuple[Coup, int]]:
    """The coups of the small shoe by their ranks, with their weights."""
    by_ranks: dict[tuple[Rank, ...], tuple[Coup, int]] = {}
    for cards, weight in _deal_every_sequence(SMALL).items():
        key = tuple(c.rank for c in cards)
        coup, before = by_ranks.get(key, (Coup(cards), 0))
        by_ranks[key] = (coup, before + weight)
    return by_ranks


def test_brute_force_total(small_coups: dict[tuple[Rank, ...], tuple[Coup, int]]) -> None:
    assert sum(w for _, w in small_coups.values()) == falling(len(SMALL), 6) == 151_200


@pytest.mark.parametrize("rule", list(PairRule))
@pytest.mark.parametrize("game_id", [g.id for g in all_games()])
def test_brute_force_every_wager(
    small_coups: dict[tuple[Rank, ...], tuple[Coup, int]], game_id: str, rule: PairRule
) -> None:
    """Every wager of every game, settled card by card, against the plan."""
    game = get_game(game_id)
    counts = plan_for(game, None, rule).evaluate(Composition.of_cards(SMALL))
    for planned in counts.plan.wagers:
        settled: Counter[str] = Counter()
        for coup, weight in small_coups.values():
            settled[planned.kind(coup, rule) or "lose"] += weight
        expected = {e: settled[e] for e in (*planned.events, "lose")}
        assert counts.events(planned.id) == expected, planned.id


def test_brute_force_classes(small_coups: dict[tuple[Rank, ...], tuple[Coup, int]]) -> None:
    classes = [0] * 400
    for coup, weight in small_coups.values():
        classes[class_index(*coup.coup_class)] += weight
    ranks = Composition.of_cards(SMALL).counts
    assert kernel.class_counts(ranks) == classes
    assert enumeration.class_counts(ranks) == classes
    assert enumeration.reference_class_counts(ranks) == classes


def _compositions() -> Iterator[tuple[int, ...]]:
    rng = random.Random(20240601)
    for decks in (1, 4, 6, 8, 10):
        yield (4 * decks,) * 13
    for _ in range(6):  # shoes part-dealt from eight decks
        shoe = [r for r in range(13) for _ in range(32)]
        rng.shuffle(shoe)
        counts = [0] * 13
        for r in shoe[: rng.randint(6, 300)]:
            counts[r] += 1
        yield tuple(counts)
    yield (0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0)  # six Tens: every coup a tie
    yield (1, 0, 2, 0, 3, 0, 0, 0, 0, 1, 0, 0, 0)  # seven cards


@pytest.mark.parametrize("counts", list(_compositions()))
def test_fallback_and_reference_agree(counts: tuple[int, ...]) -> None:
    fallback = enumeration.class_counts(counts)
    assert sum(fallback) == falling(sum(counts), 6)
    assert enumeration.reference_class_counts(counts) == fallback
    assert kernel.class_counts(counts) == fallback
    assert kernel.path_counts(counts) == enumeration.path_counts(counts)


@needs_kernel
@pytest.mark.parametrize("counts", list(_compositions()))
def test_kernel_patterns_agree(counts: tuple[int, ...]) -> None:
    pats = patterns()
    ids = memoryview(pats.table).cast("H")
    for symmetric in (False, True):
        fast = kernel.pattern_counts(counts, pats.table, len(pats), symmetric)
        slow = enumeration.pattern_counts(counts, ids, len(pats), symmetric)
        assert fast == slow
        assert sum(fast) == falling(sum(counts), 6)


@needs_kernel
def test_kernel_pattern_table_matches_python() -> None:
    table, reps = python_patterns()
    assert list(memoryview(patterns().table).cast("H")) == table
    assert list(patterns().representatives) == reps


def test_pure_python_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole plan without the kernel gives the same integers."""
    game = get_game("tiger-buffalo")
    shoe = Composition.of_decks(6)
    fast = plan_for(game, None, PairRule.RANK).evaluate(shoe).slots
    monkeypatch.setenv("PUNTO_PURE_PYTHON", "1")
    assert kernel.compiled() is None
    assert plan_for(game, None, PairRule.RANK).evaluate(shoe).slots == fast


def test_beyond_the_kernel() -> None:
    """Shoes past 2^64 six-card sequences are counted in Python, exactly."""
    big = Composition((130,) * 13)  # 1,690 cards
    counts = kind_counts(KINDS["player"], big)
    assert sum(counts.values()) == big.sequences > 2**64


def test_every_reachable_class_has_a_coup() -> None:
    """The engine deals a representative of each class the Table of Play reaches,
    and the 8-deck counts are positive exactly there."""
    counts = kernel.class_counts(Composition.of_decks(8).counts)
    reached = {i for i, c in enumerate(counts) if c}
    assert reached == set(class_coups())


@pytest.mark.parametrize("rule", list(PairRule))
def test_pair_patterns_cover_every_rank_tuple(rule: PairRule) -> None:
    """A pair kind gives every ordered rank tuple the event of its pattern."""
    pats = patterns()
    pair_kinds = [k for k in KINDS.values() if k.basis is Basis.PAIRS]
    rng = random.Random(3)
    tuples = [(r, r, r, r) for r in range(13)] + [
        tuple(rng.randrange(13) for _ in range(4)) for _ in range(400)
    ]
    tens = parse_cards("TC TC")
    for ranks in tuples:
        first = tuple(Card(Rank(r + 1), DECK[i].suit) for i, r in enumerate(ranks))
        state = Deal(first)
        for card in tens:
            if not state.is_complete:
                state = state.add(card)
        coup = state.to_coup()
        pattern = pats.ids[tuple_index(*ranks)]
        for kind in pair_kinds:
            assert kind(coup, rule) == pattern_events(kind, rule)[pattern], (ranks, kind.name)


def test_rank_categories() -> None:
    assert len(patterns()) == 226
    assert rank_categories()[Rank.TEN - 1] != rank_categories()[Rank.JACK - 1]


def test_composition_errors() -> None:
    with pytest.raises(CompositionError, match="cannot deal a coup"):
        Composition((1,) * 5 + (0,) * 8)
    with pytest.raises(CompositionError, match="whole numbers"):
        Composition.parse("a,b")
    with pytest.raises(CompositionError, match="no K is left"):
        Composition((1,) * 12 + (0,)).without(Rank.KING)


def test_monte_carlo_within_confidence() -> None:
    """20,000 coups dealt by the engine from fresh 8-deck shoes (six cards drawn
    at random, which is an ordered six-card sequence drawn uniformly): each
    frequency within 4.5 standard errors of the exact probability."""
    game = get_game("tiger-buffalo")
    counts = plan_for(game, None, PairRule.RANK).evaluate(Composition.of_decks(8))
    shoe = list(DECK) * 8
    rng = random.Random(8)
    rounds = 20_000
    watched = [
        ("banker", "win"),
        ("player", "win"),
        ("tie", "tie"),
        ("tiger", "two_cards"),
        ("tiger", "three_cards"),
        ("player_pair", "pair"),
        ("tiger_pair", "single"),
        ("player_char_siu", "five_cards"),
    ]
    kinds = {wager: counts.plan.wager(wager).kind for wager, _ in watched}
    hits: Counter[tuple[str, str]] = Counter()
    for _ in range(rounds):
        coup = deal(rng.sample(shoe, 6))
        for wager, event in watched:
            if kinds[wager](coup, PairRule.RANK) == event:
                hits[wager, event] += 1
    for wager, event in watched:
        p = counts.of(wager, event) / counts.total
        error = math.sqrt(p * (1 - p) / rounds)
        assert abs(hits[wager, event] / rounds - p) < 4.5 * error, (wager, event)
