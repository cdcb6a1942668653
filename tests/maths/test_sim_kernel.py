"""The simulation kernels deal exactly as the engine does.

* the generator is xoshiro256++ (its reference outputs);
* the outcome table the kernels read agrees, for every (two-card totals,
  fifth card, sixth card), with a coup the engine deals card by card;
* on the very shoes the kernel shuffled, the engine (``Deal`` through a
  ``Shoe`` with its cut card, the wager kinds settling every wager) counts
  the same coups of every class and pair pattern, and every wager's events;
* settling every wager coup by coup gives what settling by class counts gives;
* the shuffle is uniform (chi-square) and reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from punto.analysis.classes import value_card
from punto.analysis.enumeration import class_index
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Deal
from punto.rules.games import get_game
from punto.sim import kernel, reference
from punto.sim.run import ShoeRules, SimCounts, SimJob, chunk_state, figures, simulate_chunks
from punto.sim.tables import (
    CLASS_MASK,
    EXTRA_SHIFT,
    outcome_index,
    outcome_table,
    pattern_ids,
    rank_values,
    shoe_template,
    sim_tables,
)

GAMES = (
    "tiger-baccarat",
    "tiger-no-commission",
    "tiger-buffalo",
    "baccarat-tournament",
    "dragon-tiger",
)


def test_xoshiro256plusplus_reference_outputs() -> None:
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert tuple(int(x) for x in kernel.xoshiro_outputs(state, 4)) == kernel.XOSHIRO_CHECK


def test_outcome_table_agrees_with_the_engine_table_of_play() -> None:
    """Every entry, against a coup dealt by :class:`punto.rules.coup.Deal`."""
    table = outcome_table()
    for p in range(10):
        for b in range(10):
            for fifth in range(10):
                for sixth in range(10):
                    cards = [value_card(0), value_card(0), value_card(p), value_card(b)]
                    cards += [value_card(fifth, Suit.HEARTS), value_card(sixth, Suit.CLUBS)]
                    deal = Deal()
                    for card in cards:
                        if deal.is_complete:
                            break
                        deal = deal.add(card)
                    coup = deal.to_coup()
                    code = int(table[outcome_index(p, b, fifth, sixth)])
                    assert code & CLASS_MASK == class_index(*coup.coup_class)
                    assert 4 + (code >> EXTRA_SHIFT) == len(coup.cards)


RULES = (
    ShoeRules(8, 14),
    ShoeRules(6, 16, burn=True),
    ShoeRules(4, 6),  # the fewest: a round starting at the cut card may take all six
    ShoeRules(8, 8 * 52 - 1),  # one coup per shoe
)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.decks}d-{r.behind}-{r.burn}")
def test_kernel_deals_the_engine_coups_on_the_same_shoes(game_id: str, rules: ShoeRules) -> None:
    game = get_game(game_id)
    shoes = 12
    job = SimJob(game_id, None, game.pair_rule.value, rules, seed=2026, shoes=shoes)
    orders = kernel.shuffled_shoes(
        chunk_state(job.seed, 0), shoe_template(rules.decks), shoes, rules.cut
    )
    counts = simulate_chunks(job, [0], plain=False)
    tally, keys = reference.deal_orders(game, None, game.pair_rule, orders, rules)
    assert counts.coups == tally.coups
    assert counts.keys == keys[: len(counts.keys)]
    for w in figures(job, counts):
        assert w.events == tally.events[w.id], w.id


def test_deal_order_is_the_engine_shoe_with_its_cut_card() -> None:
    """The first coups of one shoe, card by card: positions, cards taken, class."""
    orders = kernel.shuffled_shoes(chunk_state(9, 0), shoe_template(8), 1, 402)
    rows = kernel.deal_order(
        orders[0], 402, False, outcome_table(), rank_values(), pattern_ids()[0]
    )
    cards = [Card(Rank(int(r) + 1), Suit.SPADES) for r in orders[0]]
    coups = reference.deal_shoe(cards, 402)
    assert len(rows) == len(coups)
    position = 0
    for row, coup in zip(rows, coups, strict=True):
        assert int(row[0]) == position
        assert int(row[1]) == len(coup.cards)
        assert int(row[2]) == class_index(*coup.coup_class)
        position += len(coup.cards)
    # The cut card came out in the last coup: the card behind it was drawn then.
    assert position > 402 >= position - len(coups[-1].cards)


@pytest.mark.parametrize("game_id", ["tiger-baccarat", "tiger-buffalo"])
def test_settling_coup_by_coup_equals_settling_by_class_counts(game_id: str) -> None:
    game = get_game(game_id)
    rules = ShoeRules(8, 14)
    job = SimJob(game_id, None, game.pair_rule.value, rules, seed=5, shoes=500)
    tables = sim_tables(game, None, game.pair_rule)
    npat = pattern_ids()[1]
    slot = np.zeros((len(tables.wager_ids), 400 + npat), dtype=np.int8)
    slot[:, : tables.nkeys] = tables.slot
    events = np.zeros((len(tables.wager_ids), tables.value.shape[1]), dtype=np.int64)
    coups = kernel.settle_shoes(
        chunk_state(5, 0),
        shoe_template(8),
        500,
        rules.cut,
        False,
        outcome_table(),
        rank_values(),
        pattern_ids()[0],
        slot,
        events,
    )
    counts = simulate_chunks(job, [0], plain=False)
    assert coups == counts.coups
    for w, fig in enumerate(figures(job, counts)):
        names = ("lose", *tables.events[w])
        assert {names[e]: int(events[w, e]) for e in range(len(names))} == fig.events


def test_shuffle_is_uniform() -> None:
    """Each position of a shuffled one-deck shoe holds each card equally often
    (chi-square per position, 51 degrees of freedom, far from significance),
    including the last position shuffled by a partial shuffle."""
    template = np.arange(52, dtype=np.uint8)
    shoes = 20_000
    orders = kernel.shuffled_shoes(chunk_state(1, 0), template, shoes, 52 - 5)
    expected = shoes / 52
    for position in (0, 1, 25, 46):
        observed = np.bincount(orders[:, position], minlength=52)
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        # mean 51, sd 10.1: beyond 110 has probability below 1e-6
        assert chi2 < 110, (position, chi2)
    # every shoe is a permutation of the template
    assert (np.sort(orders, axis=1) == template).all()


def test_shuffle_large_bounds_take_the_rejection_path() -> None:
    """Bounds close to 2^16, where Lemire's rejection step runs on most
    draws, still give permutations and a uniform first card."""
    template = (np.arange(60_000) % 250).astype(np.uint8)
    orders = kernel.shuffled_shoes(chunk_state(3, 0), template, 20, 59_000)
    assert all(np.array_equal(np.sort(o), np.sort(template)) for o in orders)
    firsts = kernel.shuffled_shoes(chunk_state(4, 0), template, 5_000, 1)[:, 0]
    observed = np.bincount(firsts // 25, minlength=10)  # ten bands of 25 ranks
    chi2 = float(((observed - 500) ** 2 / 500).sum())
    assert chi2 < 45  # 9 degrees of freedom: probability below 1e-6


def test_same_seed_same_counts_whatever_the_grouping() -> None:
    job = SimJob("dragon-tiger", None, "rank", ShoeRules(8, 14), seed=77, shoes=30_000)
    assert job.nchunks >= 3
    one = simulate_chunks(job, list(range(job.nchunks)))
    merged = SimCounts.empty(len(one.keys), len(one.batch) // 2)
    for chunk in reversed(range(job.nchunks)):
        merged.add(simulate_chunks(job, [chunk]))
    assert merged.same_as(one)
    other = simulate_chunks(SimJob("dragon-tiger", None, "rank", ShoeRules(8, 14), 78, 30_000), [0])
    assert other.keys != simulate_chunks(job, [0]).keys


def test_batches_add_up_to_the_run() -> None:
    job = SimJob("baccarat-tournament", None, "rank", ShoeRules(8, 14), seed=1, shoes=2_000)
    counts = simulate_chunks(job, [0])
    for sums in counts.batch:
        assert sums[2] == counts.coups  # sum of coups over batches
        assert sums[5] == math.ceil(2_000 / job.batch_shoes)
