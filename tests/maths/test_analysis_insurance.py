"""Insurance Plus values (Tiger Buffalo 3.11-3.14, 4.1.15, 4.2.1)."""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from punto.analysis.composition import Composition, falling
from punto.analysis.insurance_values import (
    OfferValue,
    deal_values,
    insurance_values,
    two_card_outcomes,
)
from punto.errors import InsuranceError
from punto.rules.cards import Card, Rank, Suit, parse_cards
from punto.rules.coup import Deal
from punto.rules.games import get_game
from punto.rules.insurance import InsuranceOffer, Moment, moment_of

BUFFALO = get_game("tiger-buffalo")
EIGHT = Composition.of_decks(8)


@pytest.fixture(scope="module")
def eight_deck_values() -> list[OfferValue]:
    return insurance_values(BUFFALO, EIGHT)


@pytest.mark.parametrize(
    ("player", "banker", "expected"),
    [
        (5, 6, (".248909", ".662332", ".088759")),
        (4, 6, (".236160", ".675002", ".088838")),
        (0, 5, (".319950", ".638715", ".041335")),
        (0, 7, (".154340", ".769393", ".076268")),
        (5, 4, (".597782", ".289715", ".112503")),
    ],
)
def test_wizard_of_odds_two_card_totals(
    player: int, banker: int, expected: tuple[str, str, str]
) -> None:
    """Wizard of Odds, "Baccarat insurance at Marina Bay Sands": Player win / Banker
    win / Tie given the two two-card totals, 8 decks."""
    got = two_card_outcomes(EIGHT, player, banker)
    assert tuple(f"{float(x):.6f}"[1:] for x in got) == expected


def test_offers_carry_the_two_card_figures(eight_deck_values: list[OfferValue]) -> None:
    """A four-card offer's chances are the conditional chances of its totals:
    Banker insurance on Banker 6 v Player 5 (5 to 2, 4.1.15) loses when the Player
    wins, .248909 (Wizard of Odds, as above)."""
    offer = _find(eight_deck_values, "banker", Moment.FOUR_CARDS, player=5, banker=6)
    player_wins, banker_wins, tie = two_card_outcomes(EIGHT, 5, 6)
    assert (offer.loses, offer.ties, offer.wins) == (player_wins, tie, banker_wins)
    assert offer.value == player_wins * Fraction(5, 2) - banker_wins


def _find(values: list[OfferValue], insures: str, moment: Moment, **points: int) -> OfferValue:
    for v in values:
        if (
            v.offer.insures.value == insures
            and v.offer.moment is moment
            and v.player_points == points["player"]
            and v.banker_points == points["banker"]
        ):
            return v
    raise LookupError((insures, moment, points))


def test_every_row_is_valued(eight_deck_values: list[OfferValue]) -> None:
    """Every row of the pay table yields offers, and only undecided deals are
    offers: the Player at 9 after the third card cannot lose (only the 4.2.1(a)
    Tie pays)."""
    rows = {v.offer.row for v in eight_deck_values}
    assert rows == set(BUFFALO.insurance.rows)  # type: ignore[union-attr]
    nine = _find(eight_deck_values, "player", Moment.PLAYER_THIRD_CARD, player=9, banker=3)
    assert nine.loses == 0
    assert nine.ties > 0
    assert sum(v.reach for v in eight_deck_values) < 1


def test_value_formula_with_tie_exceptions(eight_deck_values: list[OfferValue]) -> None:
    """Paid at the odds when the insured hand loses; a Tie returns the bet except
    in the 4.2.1 exceptions, where it is paid; a win loses the bet."""
    for v in eight_deck_values:
        odds = v.offer.odds
        paid = v.loses + (v.ties if v.offer.row.tie_pays else 0)
        assert v.value == paid * odds - v.wins, str(v.offer)
        assert v.loses + v.ties + v.wins == 1
        assert v.exact_min <= v.value <= v.exact_max
        assert 0 <= v.positive_share <= 1
        assert v.positive == (v.value > 0)


def test_no_eight_deck_offer_favours_the_bettor(eight_deck_values: list[OfferValue]) -> None:
    assert not any(v.positive or v.sometimes_positive for v in eight_deck_values)


def test_a_depleted_shoe_can_favour_the_bettor() -> None:
    """Take most of the Deuces out and some offer is worth more than it costs."""
    shoe = Composition((32, 4) + (32,) * 11)
    values = insurance_values(BUFFALO, shoe)
    flagged = [v for v in values if v.positive]
    assert flagged
    assert all(v.value > 0 and v.sometimes_positive for v in flagged)


# A small shoe, so that every deal can be valued card by card.
SMALL = Composition((2, 2, 0, 2, 2, 2, 0, 0, 0, 2, 0, 0, 0))  # A 2 4 5 6 10, two each


def test_averaged_is_the_mean_of_exact_cards() -> None:
    """The averaged value of an offer is the mean of its exact-card values over
    every deal reaching it (dealt by the engine, card by card), each deal weighted
    by the ordered ways of dealing its cards."""
    averaged = {v.offer: v for v in insurance_values(BUFFALO, SMALL)}
    sums: dict[InsuranceOffer, list[Fraction]] = defaultdict(lambda: [Fraction(0)] * 5)
    for cards, weight in _prefixes(SMALL).items():
        for dv in deal_values(BUFFALO, SMALL, cards):
            acc = sums[dv.offer]
            w = Fraction(weight * falling(SMALL.total - len(cards), 6 - len(cards)))
            acc[0] += w
            acc[1] += w * dv.loses
            acc[2] += w * dv.ties
            acc[3] += w * dv.wins
            acc[4] += w * dv.value
    assert set(sums) == set(averaged)
    for offer, (w, loses, ties, wins, value) in sums.items():
        v = averaged[offer]
        assert (loses / w, ties / w, wins / w, value / w) == (v.loses, v.ties, v.wins, v.value)
        assert v.reach == w / SMALL.sequences


def _prefixes(shoe: Composition) -> Counter[tuple[Card, ...]]:
    """The four- and five-card deals at an insurance moment, by ranks, with the
    number of ways to deal them in order."""
    found: Counter[tuple[Card, ...]] = Counter()

    def walk(cards: tuple[Card, ...], left: list[int], weight: int) -> None:
        if len(cards) >= 4:
            state = Deal(cards)
            moment = moment_of(state)
            if moment is not None:
                found[cards] += weight
            if len(cards) == 5 or state.is_complete:
                return
        for r, n in enumerate(left):
            if n:
                left[r] -= 1
                walk((*cards, Card(Rank(r + 1), Suit.CLUBS)), left, weight * n)
                left[r] += 1

    walk((), list(shoe.counts), 1)
    return found


def test_deal_values() -> None:
    values = deal_values(BUFFALO, EIGHT, parse_cards("3H 4C 2D KS"))
    assert [str(v.offer) for v in values] == [
        "player insurance after four cards: Player 5 v Banker 4, 3 to 2"
    ]
    (v,) = values
    assert v.loses + v.ties + v.wins == 1
    assert v.value == v.loses * Fraction(3, 2) - v.wins


def test_deal_values_refusals() -> None:
    with pytest.raises(InsuranceError, match="no insurance is offered after 3 cards"):
        deal_values(BUFFALO, EIGHT, parse_cards("3H 4C 2D"))
    with pytest.raises(InsuranceError, match="offers no Insurance Plus"):
        deal_values(get_game("tiger-baccarat"), EIGHT, parse_cards("3H 4C 2D KS"))
