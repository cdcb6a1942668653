"""Guards of the protection that no test held before (review 2026-11-29,
section 4, items 8-10): each test fails against the single-point change its
docstring names."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from punto.analysis.composition import Composition
from punto.analysis.insurance_values import deal_values
from punto.protection.detection import Detector, Observation, Thresholds
from punto.protection.valuation import insurance_value
from punto.rules.cards import parse_cards
from punto.rules.games import get_game
from punto.rules.insurance import Moment


def test_tiger_buffalo_4_1_15_a_player_third_card_offer_is_valued_on_its_five_cards() -> None:
    """The round's six cards are given; the offer after the Player's third
    card was taken on the first five, and is valued on them.  Catches the
    sixth card (the Banker's third) left on the table."""
    game = get_game("tiger-buffalo")
    composition = Composition.of_decks(8)
    six = parse_cards("3H 4C 2D KS 3S 5D")  # Player 5 draws 3 (8) v Banker 4, who draws
    five = six[:5]
    (offer,) = [
        v
        for v in deal_values(game, composition, five)
        if v.offer.insures.value == "player" and v.offer.moment is Moment.PLAYER_THIRD_CARD
    ]
    value = insurance_value(game, composition, six, "player_insurance", Moment.PLAYER_THIRD_CARD)
    assert value == offer.value
    assert value == insurance_value(
        game, composition, five, "player_insurance", Moment.PLAYER_THIRD_CARD
    )


def _rounds(detector: Detector, pairs: list[tuple[Fraction, int]]) -> list[bool]:
    """Feed one Big Tiger observation a round; whether each round alerted."""
    return [
        detector.observe([Observation(f"r{i}", "big_tiger", value, stake)]) is not None
        for i, (value, stake) in enumerate(pairs, start=1)
    ]


def test_detection_alerts_at_a_statistic_exactly_equal_to_the_limit() -> None:
    """Two rounds, a value and a stake each either low or high together:
    each scores (-1)(-1) = 1 and (1)(1) = 1 with no drift, so the statistic
    reaches 2 = the limit exactly on the second, which alerts.  Catches
    ``stat < limit`` made ``stat <= limit``."""
    d = Detector(Thresholds(limit=Decimal(2), drift=Decimal(0), cap=Decimal(3), warmup=2))
    assert _rounds(d, [(Fraction(0), 0), (Fraction(1, 5), 1)]) == [False, True]
    assert d.statistic == 0  # the alert starts the test again


def test_detection_a_score_below_minus_cap_lowers_the_statistic_by_cap_plus_drift() -> None:
    """The statistic is built up by rounds where the stake follows the value,
    then one large stake on the lowest value scores far below -cap: it
    counts as -cap, so the statistic falls by exactly cap + drift.
    Catches the score's lower clip dropped."""
    t = Thresholds(limit=Decimal(1000), drift=Decimal("0.25"), cap=Decimal(1), warmup=2)
    d = Detector(t)
    high, low = Fraction(1, 5), Fraction(0)
    _rounds(d, [(low, 0), (high, 4)] * 6)
    before = d.statistic
    assert before > t.cap + t.drift
    assert _rounds(d, [(low, 40)]) == [False]
    assert d.statistic == before - (t.cap + t.drift)


def test_detection_thresholds_refused_say_why_and_what_to_give() -> None:
    from punto.protection.detection import DetectionError

    for bad in (
        {"limit": Decimal(0)},
        {"drift": Decimal("-0.1")},
        {"cap": Decimal(0)},
    ):
        with pytest.raises(DetectionError) as refused:
            Thresholds(**bad)  # type: ignore[arg-type]
        assert refused.value.message.endswith("cannot make a test")
        assert refused.value.hint == "limit and cap above zero, drift zero or above"
    with pytest.raises(DetectionError) as refused:
        Thresholds(warmup=1)
    assert refused.value.hint == "at least 2 (150 is about two shoes)"
    with pytest.raises(DetectionError) as refused:
        Detector().observe([Observation("r1", "big_tiger", Fraction(0), -1)])
    assert refused.value.hint == "stakes are 0 (not taken) or more"
    # a limit under one unit is a test (a sensitive one)
    assert Thresholds(limit=Decimal("0.5")).limit == Decimal("0.5")


def test_detection_counts_what_it_scored_and_keeps_each_scores_reference() -> None:
    """The hand sequence of test_protection_detection (two wagers here: the
    second joins later and is held until its own warm-up, while the first is
    scored on).  Counts of scores and alerts, and each Score's reference."""
    t = Thresholds(limit=Decimal(2), drift=Decimal(0), cap=Decimal(3), warmup=2)
    d = Detector(t)
    assert (d.scored, d.alerts) == (0, 0)
    d.observe([Observation("r1", "big_tiger", Fraction(0), 0)])
    alert = d.observe(
        [
            Observation("r2", "tiger_pair", Fraction(0), 0),  # its first: held
            Observation("r2", "big_tiger", Fraction(1, 5), 1),  # scored with r1
        ]
    )
    assert alert is not None
    assert (d.scored, d.alerts) == (2, 1)
    assert alert.observations == 2
    (score,) = alert.scores
    assert (score.mean, score.spread, score.mean_stake, score.stake_spread, score.score) == (
        Decimal("0.1"),
        Decimal("0.1"),
        Decimal("0.5"),
        Decimal("0.5"),
        Decimal(1),
    )
    # tiger_pair's warm-up ends: its two held rounds score 1 each, a second alert
    assert d.observe([Observation("r3", "tiger_pair", Fraction(1, 5), 1)]) is not None
    assert (d.scored, d.alerts) == (4, 2)
