"""A plain-Python simulator: the engine's own dealing and the wager kinds.

Nothing here is fast or clever.  Cards go one at a time through
:class:`punto.rules.coup.Deal`, which follows the Table of Play, and every wager of
the game is settled by calling its wager kind on the finished coup.  It is
the baseline of ``benchmarks/bench_sim.py`` and, dealing the very shoes the
kernel shuffled (:func:`deal_orders`), the check that the kernel's counts are
the engine's.

>>> from punto.rules.cards import parse_cards
>>> shoe = parse_cards("9H 8S 2C 3D KH 4C 5S 6D 7C 8H AS 2S")
>>> [str(c) for c in deal_shoe(shoe, cut=7)]   # the cut card comes out in the second round
['9H 8S 2C 3D KH 4C', '5S 6D 7C 8H AS']
>>> [str(c) for c in deal_shoe(shoe, cut=6)]   # ... as its first card (3.22.1)
['9H 8S 2C 3D KH 4C', '5S 6D 7C 8H AS']
>>> [str(c) for c in deal_shoe(shoe, cut=5)]   # ... or in the first, which ends the shoe
['9H 8S 2C 3D KH 4C']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from punto.analysis.classes import patterns
from punto.analysis.enumeration import class_index, tuple_index
from punto.rules.cards import DECK, Card, Rank, Suit
from punto.rules.coup import Coup, Deal
from punto.rules.game import Game
from punto.rules.shoe import Shoe
from punto.rules.wagers import PairRule
from punto.sim.run import ShoeRules

_CARDS = tuple(Card(rank, Suit.SPADES) for rank in Rank)


def burn_length(first: Card) -> int:
    """Cards taken by the burn: the card shown and as many as its point value
    (ten for a zero)."""
    return 1 + (10 if first.value == 0 else first.value)


def deal_shoe(cards: Sequence[Card], cut: int, *, burn: bool = False) -> list[Coup]:
    """The coups of one shoe in this order, by a :class:`~punto.rules.shoe.Shoe`
    with the cut card ``cut`` cards deep: rounds are dealt card by card
    until the cut card has come out (3.22)."""
    shoe = Shoe(cards, cut_card=cut)
    if burn:
        shoe.burn(burn_length(shoe.peek()))
    coups = []
    while not shoe.cut_card_reached:
        deal = Deal()
        while not deal.is_complete:
            deal = deal.add(shoe.draw())
        coups.append(deal.to_coup())
    return coups


@dataclass
class Tally:
    """Coups, and each wager's count of each event (``lose`` included)."""

    shoes: int
    coups: int
    events: dict[str, dict[str, int]]


def _empty(game: Game, layout: str | None) -> dict[str, dict[str, int]]:
    return {
        wid: {**dict.fromkeys(w.kind.events, 0), "lose": 0}
        for wid, w in game.offered(layout).items()
        if w.kind is not None
    }


def settle(
    game: Game, layout: str | None, rule: PairRule, coups: Iterable[Coup], tally: Tally
) -> None:
    """Settle every wager on each coup by calling its wager kind."""
    kinds = [(wid, w.kind) for wid, w in game.offered(layout).items() if w.kind is not None]
    for coup in coups:
        tally.coups += 1
        for wid, kind in kinds:
            tally.events[wid][kind(coup, rule) or "lose"] += 1


def simulate(
    game: Game, layout: str | None, rule: PairRule, rules: ShoeRules, shoes: int, seed: int
) -> Tally:
    """``shoes`` shoes shuffled by :class:`random.Random` (seeded), dealt by
    the engine and settled by the wager kinds."""
    rng = random.Random(seed)
    cards = list(DECK) * rules.decks
    tally = Tally(0, 0, _empty(game, layout))
    for _ in range(shoes):
        rng.shuffle(cards)
        settle(game, layout, rule, deal_shoe(cards, rules.cut, burn=rules.burn), tally)
        tally.shoes += 1
    return tally


def deal_orders(
    game: Game,
    layout: str | None,
    rule: PairRule,
    orders: npt.NDArray[np.uint8],
    rules: ShoeRules,
) -> tuple[Tally, list[int]]:
    """Deal shoes given as rows of ranks 0-12 (e.g. the kernel's shuffles)
    through the engine: every wager settled, and the coups of each class and
    pair pattern, as the kernel keys them (class, then 400 + pattern)."""
    pats = patterns()
    keys = [0] * (400 + len(pats))
    tally = Tally(0, 0, _empty(game, layout))
    for row in orders:
        cards = [_CARDS[int(r)] for r in row]
        coups = deal_shoe(cards, rules.cut, burn=rules.burn)
        for coup in coups:
            keys[class_index(*coup.coup_class)] += 1
            first = [coup.cards[i].rank - 1 for i in range(4)]
            keys[400 + pats.ids[tuple_index(*first)]] += 1
        settle(game, layout, rule, coups, tally)
        tally.shoes += 1
    return tally, keys
