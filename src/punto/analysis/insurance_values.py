"""What Insurance Plus is worth (Tiger Buffalo 3.11-3.14, 4.1.15, 4.2).

For every offer of the pay table -- a row and the points it matched, at one
of the two moments -- the exact chance that the insured hand loses, ties and
wins, and the expected value of one unit of insurance: the odds when the hand
loses (and on the 4.2.1 Ties), the stake back on other Ties, the stake lost
when the hand wins.

Two views:

* **averaged** over every way of reaching the offer from a full shoe: the
  weight of each situation is the number of ordered six-card sequences
  passing through it;
* **exact cards**: given the cards on the table (and so the rest of the
  shoe), the value of the offer.  The table gives, for each offer, the worst
  and best exact-card value over all the ways of reaching it, and how often
  (by weight) the exact-card value favours the bettor.

Which situations are offers, and how each finished coup settles the bet, are
the engine's: :meth:`punto.rules.insurance.InsuranceTable.offers` and
:func:`punto.rules.insurance.insurance_event` are called on real deals.

>>> from punto.rules.games import get_game
>>> game = get_game("tiger-buffalo")
>>> values = insurance_values(game, Composition.of_decks(8))
>>> first = values[0]
>>> str(first.offer), f"{float(first.value):+.4f}"
('player insurance after four cards: Player 5 v Banker 4, 3 to 2', '-0.1632')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from punto.analysis import kernel
from punto.analysis.classes import value_card
from punto.analysis.composition import Composition, falling
from punto.analysis.enumeration import NONE, path_index
from punto.analysis.tabular import Tabular
from punto.errors import InsuranceError
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Coup, Deal, Side, Winner
from punto.rules.game import Game
from punto.rules.insurance import (
    INSURANCE_EVENTS,
    InsuranceOffer,
    InsuranceTable,
    Moment,
    insurance_event,
    moment_of,
)

#: How the insured hand ends: loses, ties, wins.
ENDINGS = ("loses", "ties", "wins")

_RANKS = tuple(Rank)


@dataclass(frozen=True)
class Situation:
    """Where an offer is made: the two-card totals, and the Player's third
    card's point value (None at the four-card moment)."""

    player: int
    banker: int
    third: int | None

    @property
    def deal(self) -> Deal:
        """A deal standing at this situation (Tens and a card of each total)."""
        cards = [value_card(0), value_card(0), value_card(self.player), value_card(self.banker)]
        if self.third is not None:
            cards.append(value_card(self.third))
        return Deal(tuple(cards))


@dataclass(frozen=True)
class Completion:
    """One way the coup goes on from a situation: the third cards (10: none),
    the finished coup, and what the insurance bet and the insured hand do."""

    path: int
    coup: Coup
    event: str | None
    ending: str


@dataclass(frozen=True)
class OfferValue:
    """An offer's exact value, averaged over every way of reaching it, with
    the spread of its exact-card values."""

    offer: InsuranceOffer
    situations: tuple[Situation, ...]
    reach: Fraction  # chance a coup passes through this offer
    loses: Fraction
    ties: Fraction
    wins: Fraction
    value: Fraction
    exact_min: Fraction
    exact_max: Fraction
    positive_share: Fraction  # of the reach, where the exact-card value is positive

    @property
    def positive(self) -> bool:
        """The averaged value favours the bettor."""
        return self.value > 0

    @property
    def sometimes_positive(self) -> bool:
        """Some cards on the table make the offer favour the bettor."""
        return self.exact_max > 0

    @property
    def player_points(self) -> int:
        return (
            self.offer.hand_points if self.offer.insures is Side.PLAYER else self.offer.other_points
        )

    @property
    def banker_points(self) -> int:
        return (
            self.offer.other_points if self.offer.insures is Side.PLAYER else self.offer.hand_points
        )

    def to_json(self) -> dict[str, Any]:
        row = self.offer.row
        return {
            "insures": self.offer.insures.value,
            "moment": self.offer.moment.value,
            "player_points": self.player_points,
            "banker_points": self.banker_points,
            "pays": str(row.pays),
            "tie_pays": row.tie_pays,
            "clause": row.clause,
            "reach": float(self.reach),
            "loses": float(self.loses),
            "ties": float(self.ties),
            "wins": float(self.wins),
            "value": float(self.value),
            "value_exact": str(self.value),
            "positive": self.positive,
            "exact_cards": {
                "min_value": float(self.exact_min),
                "max_value": float(self.exact_max),
                "positive_share": float(self.positive_share),
            },
        }


@dataclass(frozen=True)
class DealValue:
    """An offer's exact value for the cards on the table."""

    offer: InsuranceOffer
    loses: Fraction
    ties: Fraction
    wins: Fraction
    value: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "offer": str(self.offer),
            "insures": self.offer.insures.value,
            "moment": self.offer.moment.value,
            "pays": str(self.offer.row.pays),
            "loses": float(self.loses),
            "ties": float(self.ties),
            "wins": float(self.wins),
            "value": float(self.value),
            "value_exact": str(self.value),
            "positive": self.value > 0,
        }


def _ending(coup: Coup, insures: Side) -> str:
    if coup.winner is Winner.TIE:
        return "ties"
    return "wins" if coup.winner.value == insures.value else "loses"


def _payoff(event: str | None, offer: InsuranceOffer) -> Fraction:
    """What one unit of insurance nets on ``event`` (4.1.15, 4.2.1)."""
    if event is None:
        return Fraction(-1)
    return offer.odds if INSURANCE_EVENTS[event] else Fraction(0)


def _scaled_payoff(event: str | None, offer: InsuranceOffer) -> int:
    """:func:`_payoff` times the denominator of the offer's odds."""
    x = _payoff(event, offer) * offer.odds.denominator
    assert x.denominator == 1
    return x.numerator


def _completions(situation: Situation, offer: InsuranceOffer) -> list[Completion]:
    """Every way the coup can go on, by point value, dealt by the engine."""
    found = []
    start = situation.deal
    for coup, path in _complete(start, situation):
        found.append(
            Completion(path, coup, insurance_event(coup, offer), _ending(coup, offer.insures))
        )
    return found


def _complete(deal: Deal, situation: Situation) -> list[tuple[Coup, int]]:
    """The finished coups from ``deal``, with their paths."""
    if deal.is_complete:
        coup = deal.to_coup()
        player, banker = coup.player.cards, coup.banker.cards
        e = player[2].value if len(player) == 3 else NONE
        f = banker[2].value if len(banker) == 3 else NONE
        return [(coup, path_index(situation.player, situation.banker, e, f))]
    out = []
    for v in range(10):
        out += _complete(deal.add(value_card(v, Suit.HEARTS)), situation)
    return out


@dataclass(frozen=True)
class _OfferPlan:
    offer: InsuranceOffer
    situations: tuple[tuple[Situation, tuple[Completion, ...]], ...]


@cache
def _plans(table: InsuranceTable) -> tuple[_OfferPlan, ...]:
    """Every offer of the table with the situations it is made in."""
    by_offer: dict[InsuranceOffer, list[tuple[Situation, tuple[Completion, ...]]]] = {}
    for p in range(10):
        for b in range(10):
            four = Situation(p, b, None)
            deal = four.deal
            situations = [four]
            if not deal.is_complete:
                for e in range(10):
                    five = Situation(p, b, e)
                    if moment_of(five.deal) is Moment.PLAYER_THIRD_CARD:
                        situations.append(five)
            for situation in situations:
                for offer in table.offers(situation.deal):
                    entry = (situation, tuple(_completions(situation, offer)))
                    by_offer.setdefault(offer, []).append(entry)
    order = {row: i for i, row in enumerate(table.rows)}
    offers = sorted(by_offer, key=lambda o: (order[o.row], o.hand_points, o.other_points))
    return tuple(_OfferPlan(o, tuple(by_offer[o])) for o in offers)


def insurance_values(game: Game, composition: Composition) -> list[OfferValue]:
    """The value of every Insurance Plus offer of ``game`` for a shoe."""
    table = _table(game)
    paths = kernel.path_counts(composition.counts)
    exact = _ExactCards(composition)
    total = composition.sequences
    values = []
    for plan in _plans(table):
        sums = dict.fromkeys(ENDINGS, 0)
        value_sum = 0
        reach = 0
        low: Fraction | None = None
        high: Fraction | None = None
        positive = 0
        for situation, completions in plan.situations:
            for c in completions:
                w = paths[c.path]
                sums[c.ending] += w
                reach += w
                value_sum += w * _scaled_payoff(c.event, plan.offer)
            for weight, value in exact.values(situation, completions, plan.offer):
                low = value if low is None or value < low else low
                high = value if high is None or value > high else high
                if value > 0:
                    positive += weight
        if reach == 0 or low is None or high is None:
            continue  # the shoe cannot reach this offer
        values.append(
            OfferValue(
                plan.offer,
                tuple(s for s, _ in plan.situations),
                Fraction(reach, total),
                Fraction(sums["loses"], reach),
                Fraction(sums["ties"], reach),
                Fraction(sums["wins"], reach),
                Fraction(value_sum, reach * plan.offer.odds.denominator),
                low,
                high,
                Fraction(positive, reach),
            )
        )
    return values


class _ExactCards:
    """The exact-card values of an offer over all four-card (and five-card)
    situations, from one composition, by unordered pairs of point values."""

    def __init__(self, composition: Composition) -> None:
        self.n = list(composition.by_value)
        self.total = composition.total

    def values(
        self, situation: Situation, completions: Sequence[Completion], offer: InsuranceOffer
    ) -> list[tuple[int, Fraction]]:
        """(weight, exact value) for each set of cards standing at ``situation``;
        the weight counts ordered six-card sequences."""
        n, total = self.n, self.total
        scale = offer.odds.denominator
        payoff = {c.path: _scaled_payoff(c.event, offer) for c in completions}
        out = []
        for hands, w4 in _four_cards(n, situation.player, situation.banker):
            left = list(n)
            for v in hands:
                left[v] -= 1
            if situation.third is None:
                weight = w4 * (total - 4) * (total - 5)
                num = den = 0
                for path, x in payoff.items():
                    w = _completion_weight(left, total - 4, path)
                    num += w * x
                    den += w
                if den:
                    out.append((weight, Fraction(num, den * scale)))
                continue
            e = situation.third
            if left[e] <= 0:
                continue
            weight = w4 * left[e] * (total - 5)
            left[e] -= 1
            num = den = 0
            for path, x in payoff.items():
                f = path % 11
                w = (total - 5) if f == NONE else left[f]
                num += w * x
                den += w
            if den:
                out.append((weight, Fraction(num, den * scale)))
        return out


def _completion_weight(left: Sequence[int], rest: int, path: int) -> int:
    """Ordered two-card completions (of ``rest`` cards left) along ``path``."""
    f = path % 11
    e = (path // 11) % 11
    if e == NONE and f == NONE:
        return rest * (rest - 1)
    if e == NONE:
        return left[f] * (rest - 1)
    if f == NONE:
        return left[e] * (rest - 1)
    return left[e] * (left[f] - (f == e))


def _four_cards(
    n: Sequence[int], player: int, banker: int
) -> list[tuple[tuple[int, int, int, int], int]]:
    """Unordered two-card hands of these totals, with their ordered weights."""
    out: list[tuple[tuple[int, int, int, int], int]] = []
    for a in range(10):
        c = (player - a) % 10
        if c < a:
            continue
        wp = n[a] * (n[c] - (c == a)) * (1 if a == c else 2)
        if wp <= 0:
            continue
        used = [0] * 10
        used[a] += 1
        used[c] += 1
        for b in range(10):
            d = (banker - b) % 10
            if d < b:
                continue
            kb = n[b] - used[b]
            kd = n[d] - used[d] - (d == b)
            if kb <= 0 or kd <= 0:
                continue
            out.append(((a, c, b, d), wp * kb * kd * (1 if b == d else 2)))
    return out


def deal_values(game: Game, composition: Composition, cards: Sequence[Card]) -> list[DealValue]:
    """The exact value of every offer open on the cards on the table, dealt
    from a shoe of ``composition`` (the cards are taken out of it)."""
    table = _table(game)
    deal = Deal(tuple(cards))
    moment = moment_of(deal)
    if moment is None:
        raise InsuranceError(
            f"no insurance is offered after {len(cards)} cards "
            f"({' '.join(str(c) for c in cards) or 'none'})",
            clause="4.1.15",
            hint="insurance is offered after the four cards of the initial deal and after "
            "the Player's third card, while the coup is undecided",
        )
    left = composition.without(*cards)
    remaining = list(left.counts)
    found = []
    for offer in table.offers(deal):
        sums = dict.fromkeys(ENDINGS, 0)
        value = Fraction(0)
        for coup, weight in _exact_completions(deal, remaining):
            sums[_ending(coup, offer.insures)] += weight
            value += weight * _payoff(insurance_event(coup, offer), offer)
        den = sum(sums.values())
        if den == 0:
            continue
        found.append(
            DealValue(
                offer,
                Fraction(sums["loses"], den),
                Fraction(sums["ties"], den),
                Fraction(sums["wins"], den),
                value / den,
            )
        )
    return found


def _exact_completions(deal: Deal, remaining: list[int]) -> list[tuple[Coup, int]]:
    """Every finished coup from ``deal``, rank by rank, weighted by the
    ordered draws of its cards from what is left, and of cards for the
    positions of the six it does not use."""
    if deal.is_complete:
        return [(deal.to_coup(), falling(sum(remaining), 6 - len(deal.cards)))]
    out = []
    for rank_index, count in enumerate(remaining):
        if count <= 0:
            continue
        remaining[rank_index] -= 1
        card = Card(_RANKS[rank_index], Suit.HEARTS)
        for coup, w in _exact_completions(deal.add(card), remaining):
            out.append((coup, w * count))
        remaining[rank_index] += 1
    return out


def _table(game: Game) -> InsuranceTable:
    if game.insurance is None:
        raise InsuranceError(
            f"{game.id} offers no Insurance Plus",
            hint="Insurance Plus is a Tiger Buffalo wager (4.1.15)",
        )
    return game.insurance


def two_card_outcomes(
    composition: Composition, player: int, banker: int
) -> tuple[Fraction, Fraction, Fraction]:
    """Chances of a Player win, a Banker win and a Tie given the two-card
    totals, over every way of dealing them from the shoe.

    >>> p, b, t = two_card_outcomes(Composition.of_decks(8), 5, 6)
    >>> f"{float(p):.6f} {float(b):.6f} {float(t):.6f}"
    '0.248909 0.662332 0.088759'
    """
    paths = kernel.path_counts(composition.counts)
    sums = {Winner.PLAYER: 0, Winner.BANKER: 0, Winner.TIE: 0}
    situation = Situation(player, banker, None)
    for coup, path in _complete(situation.deal, situation):
        sums[coup.winner] += paths[path]
    total = sum(sums.values())
    if total == 0:
        raise InsuranceError(f"the shoe cannot deal Player {player} v Banker {banker}")
    return (
        Fraction(sums[Winner.PLAYER], total),
        Fraction(sums[Winner.BANKER], total),
        Fraction(sums[Winner.TIE], total),
    )


def insurance_table(offers: Sequence[OfferValue]) -> Tabular:
    """The offers' values as a table (for notebooks: it shows itself as HTML,
    and ``.to_frame()`` gives a pandas DataFrame)."""
    return Tabular(
        "Insurance Plus: value of every offer (4.1.15, 4.2.1)",
        ("offer", "reach", "loses", "ties", "wins", "value", "exact min", "exact max"),
        tuple(
            (
                str(o.offer),
                float(o.reach),
                float(o.loses),
                float(o.ties),
                float(o.wins),
                o.value,
                o.exact_min,
                o.exact_max,
            )
            for o in offers
        ),
    )
