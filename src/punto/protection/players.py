"""Automated players for the detection benchmark, the load generator and the
tests: card counters, an Insurance Plus player who takes only the offers
that favour them, and flat bettors who bet the same wagers at random rounds.

Each decides from what a seat sees -- the cards shown so far in the shoe and
how many cards have left it -- through a :class:`ShoeView`; none is ever
given the undealt order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from punto.analysis.composition import Composition
from punto.analysis.insurance_values import DealValue, deal_values
from punto.rules.cards import Card
from punto.rules.coup import Side
from punto.rules.game import Game
from punto.sim.count_tags import derive_tags, effects_floats, parse_tags

#: The published Big Tiger count (advancedadvantageplay.com, 2024; punto's
#: own derivation gives the same tags: docs/interpretations.md).
BIG_TIGER_TAGS = "0,0,-1,-1,-1,-2,+1,+2,+2,0"
BIG_TIGER_THRESHOLD = 8

#: The best threshold ``punto counting dragon-tiger --wager dragon_tiger``
#: reports for the count it derives (100,000 shoes, seed 7: true count >= +9,
#: exact edge +7.98% when betting, 5.2% of coups).
DRAGON_TIGER_THRESHOLD = 9


class ShoeView:
    """What a seat sees of one shoe: the ranks shown and the cards gone.

    A burn's face-down cards leave the shoe unseen: they count among the cards
    gone but not among those shown, so the composition a player (or the
    server) values against is the full shoe less what was shown.
    """

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.shown = [0] * 13
        self.gone = 0

    def show(self, cards: Iterable[Card]) -> None:
        """Cards dealt face up (a round's cards, a burn's first card)."""
        for card in cards:
            self.shown[card.rank - 1] += 1
            self.gone += 1

    def burn_face_down(self, count: int) -> None:
        self.gone += count

    @property
    def cards_left(self) -> int:
        return self.decks * 52 - self.gone

    @property
    def composition(self) -> Composition:
        """The shoe as far as the cards seen tell: the full shoe less them."""
        full = Composition.of_decks(self.decks).counts
        return Composition(tuple(n - s for n, s in zip(full, self.shown, strict=True)))


@dataclass(frozen=True)
class Counter:
    """Bets ``stake`` on ``wager`` when the true count (52 x running count /
    cards left, floored, as ``punto counting``) is at least ``threshold``."""

    name: str
    wager: str
    tags: tuple[int, ...]  # A..K
    threshold: int
    stake: int = 1

    def running_count(self, view: ShoeView) -> int:
        return sum(t * n for t, n in zip(self.tags, view.shown, strict=True))

    def true_count(self, view: ShoeView) -> int:
        return (52 * self.running_count(view)) // view.cards_left

    def bets(self, view: ShoeView) -> dict[str, int]:
        """Stakes for the next round (0: not taken)."""
        return {self.wager: self.stake if self.true_count(view) >= self.threshold else 0}


def big_tiger_counter(stake: int = 1) -> Counter:
    """The published Big Tiger count at true count >= +8 (Tiger Baccarat)."""
    return Counter(
        "big-tiger-counter", "big_tiger", parse_tags(BIG_TIGER_TAGS), BIG_TIGER_THRESHOLD, stake
    )


def dragon_tiger_counter(game: Game, decks: int = 8, stake: int = 1) -> Counter:
    """The count ``punto counting`` derives for the Dragon Tiger wager of
    ``game`` (from the exact effects of removal of a full shoe)."""
    effects = effects_floats(game.id, None, game.pair_rule, decks)["dragon_tiger"]
    return Counter(
        "dragon-tiger-counter",
        "dragon_tiger",
        derive_tags(effects).values,
        DRAGON_TIGER_THRESHOLD,
        stake,
    )


@dataclass
class FlatBettor:
    """Bets ``stake`` on each of ``wagers`` at a ``rate`` of rounds chosen at
    random, whatever the cards: the detector's null hypothesis."""

    name: str
    wagers: tuple[str, ...]
    rate: float
    seed: int
    stake: int = 1
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def bets(self, view: ShoeView) -> dict[str, int]:
        return {w: self.stake if self.rng.random() < self.rate else 0 for w in self.wagers}

    def takes(self, offer: DealValue) -> bool:
        """Takes an Insurance Plus offer at random (the same rate)."""
        return self.rng.random() < self.rate


@dataclass(frozen=True)
class InsuranceOffered:
    """An Insurance Plus offer open to a seat, with its exact value for the
    cards on the table and the cards seen before the round."""

    wager: str  # player_insurance or banker_insurance
    offer: DealValue

    @property
    def value(self) -> Fraction:
        return self.offer.value


def insurance_offers(
    game: Game, view: ShoeView, cards: Sequence[Card], original: Side
) -> list[InsuranceOffered]:
    """The offers insuring ``original`` (the seat's Original Bet, 3.11) on
    these cards, valued from what the seat has seen: the shoe before the
    round (``view``) less the cards on the table."""
    wager = f"{original.value}_insurance"
    return [
        InsuranceOffered(wager, dv)
        for dv in deal_values(game, view.composition, cards)
        if dv.offer.insures is original
    ]


@dataclass(frozen=True)
class InsurancePlayer:
    """Keeps an Original Bet on ``original`` and takes an offer on it only
    when its exact value for the cards seen is positive."""

    name: str = "insurance-player"
    original: Side = Side.BANKER
    stake: int = 1

    def takes(self, offer: DealValue) -> bool:
        return offer.value > 0
