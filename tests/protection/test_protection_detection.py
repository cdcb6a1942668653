"""The advantage-play detector: its statistic by hand, its thresholds, and a
counter flagged where a flat bettor is not."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest

from punto.analysis.composition import Composition
from punto.analysis.plan import plan_for
from punto.analysis.tables import wager_odds
from punto.protection.detection import (
    DEFAULT_THRESHOLDS,
    EVIDENCE_LIMIT,
    THRESHOLD_PRESETS,
    Alert,
    DetectionError,
    Detector,
    Observation,
    Thresholds,
)
from punto.protection.players import Counter, FlatBettor, ShoeView, big_tiger_counter
from punto.protection.tails import poisson_interval
from punto.rules.cards import DECK
from punto.rules.games import get_game
from punto.sim.reference import deal_shoe

HAND = Thresholds(limit=Decimal(2), drift=Decimal("0.5"), cap=Decimal(3), warmup=2)


def _obs(round_id: str, value: Fraction, stake: int) -> list[Observation]:
    return [Observation(round_id, "big_tiger", value, stake)]


def test_statistic_follows_a_hand_computed_sequence() -> None:
    """Four rounds worked by hand.  Each observation scores its standardized
    stake times its standardized value (population moments over the rounds
    so far); the CUSUM adds score - 0.5.

    r1 (0, not bet) and r2 (1/5, 1 unit) are held until the warm-up of two,
    then scored on values {0, 1/5} (mean 1/10, sd 1/10) and stakes {0, 1}
    (mean 1/2, sd 1/2): (-1)(-1) = 1 and (1)(1) = 1, so 0.5 then 1.0.
    r3 (0, not bet): values mean 1/15, sd sqrt(2)/15; stakes mean 1/3, sd
    sqrt(2)/3; score (-1/sqrt 2)(-1/sqrt 2) = 1/2, so 1.0 still.
    r4 (1/5, 2 units): values mean 1/10, sd 1/10; stakes mean 3/4, sd
    sqrt(11)/4; score 5/sqrt(11) * 1, so 0.5 + 5/sqrt(11) = 2.0076: alert.
    """
    d = Detector(HAND)
    assert d.observe(_obs("r1", Fraction(0), 0)) is None
    assert d.statistic == 0  # held: the warm-up is not over
    assert d.observe(_obs("r2", Fraction(1, 5), 1)) is None
    assert d.statistic == Decimal("1.0")
    assert d.observe(_obs("r3", Fraction(0), 0)) is None
    assert abs(d.statistic - Decimal(1)) < Decimal("1e-30")
    alert = d.observe(_obs("r4", Fraction(1, 5), 2))
    assert isinstance(alert, Alert)
    with localcontext() as ctx:
        ctx.prec = 50
        expected = Decimal("0.5") + 5 / Decimal(11).sqrt()
    assert abs(alert.statistic - expected) < Decimal("1e-30")
    assert alert.threshold == Decimal(2)
    assert alert.false_alarm_rate == HAND.false_alarm_rate
    # the evidence: the bets of the run, with the values at placement
    assert [(o.round_id, o.value, o.stake) for o in alert.evidence] == [
        ("r2", Fraction(1, 5), 1),
        ("r4", Fraction(1, 5), 2),
    ]
    assert alert.observations == 4
    assert [s.statistic for s in alert.scores][-1] == alert.statistic
    assert alert.scores[-1].mean_stake == Decimal("0.75")
    assert d.statistic == 0  # a new alert needs new evidence


def test_a_bet_below_the_table_value_lowers_the_statistic() -> None:
    d = Detector(HAND)
    d.observe(_obs("r1", Fraction(1, 5), 0))
    d.observe(_obs("r2", Fraction(1, 5), 1))  # every value alike: nothing to tell
    assert d.statistic == 0
    d.observe(_obs("r3", Fraction(-1, 5), 1))  # a bet when the wager is worth less
    assert d.statistic == 0


def test_thresholds_refuse_parameters_that_make_no_test() -> None:
    with pytest.raises(DetectionError, match="cannot make a test"):
        Thresholds(limit=Decimal(0))
    with pytest.raises(DetectionError, match="warm-up"):
        Thresholds(warmup=1)
    with pytest.raises(DetectionError, match="stakes are 0"):
        Detector().observe([Observation("r1", "big_tiger", Fraction(0), -1)])


def test_each_preset_states_its_measured_false_alarm_rate() -> None:
    limits = [t.limit for t in THRESHOLD_PRESETS.values()]
    assert limits == sorted(limits)
    assert len(set(limits)) == len(limits)
    for name, t in THRESHOLD_PRESETS.items():
        assert t.name == name
        assert "per 100 shoes" in t.false_alarm_rate
        assert "bench_protection" in t.false_alarm_rate
    assert DEFAULT_THRESHOLDS is THRESHOLD_PRESETS["standard"]
    assert "not measured" in Thresholds().false_alarm_rate


def _big_tiger_rounds(shoes: int, seed: int) -> Iterator[tuple[str, Fraction, ShoeView]]:
    """Every round of ``shoes`` seeded shoes: its id, Big Tiger's exact value
    on the cards seen, and the view a seat has before it."""
    game = get_game("tiger-baccarat")
    plan = plan_for(game, None, game.pair_rule)
    wager = plan.wager("big_tiger")
    for s in range(shoes):
        cards = list(DECK) * 8
        random.Random(seed * 1000 + s).shuffle(cards)
        view = ShoeView(8)
        for n, coup in enumerate(deal_shoe(cards, 8 * 52 - 14)):
            comp: Composition = view.composition
            yield f"{s}-{n}", wager_odds(wager, plan.evaluate(comp)).return_exact, view
            view.show(coup.cards)


def test_detector_flags_the_big_tiger_counter_and_not_flat_bettors() -> None:
    counter: Counter = big_tiger_counter()
    flats = [
        FlatBettor(f"flat-{k}", ("big_tiger",), rate, k) for k, rate in enumerate((0.05, 0.25))
    ]
    seats: list[Counter | FlatBettor] = [counter, *flats]
    detectors = [Detector() for _ in seats]
    first: list[int | None] = [None] * len(seats)
    bets = [0] * len(seats)
    for n, (round_id, value, view) in enumerate(_big_tiger_rounds(12, seed=3)):
        for i, seat in enumerate(seats):
            stake = seat.bets(view)["big_tiger"]
            bets[i] += stake
            alert = detectors[i].observe([Observation(round_id, "big_tiger", value, stake)])
            if alert is not None and first[i] is None:
                first[i] = n
                assert all(o.stake > 0 for o in alert.evidence)
                assert alert.threshold == DEFAULT_THRESHOLDS.limit <= alert.statistic
    assert first[0] is not None, "the counter was not flagged in 12 shoes"
    assert first[1:] == [None, None], f"a flat bettor was flagged ({bets} bets)"
    assert all(b > 0 for b in bets)


BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_protection.py"


def test_the_poisson_interval_is_garwoods_and_holds_above_745_events() -> None:
    # chi-square quantiles / 2 (R's poisson.test): k = 0 -> (0, 3.689); k = 10 ->
    # (4.795, 18.390); k = 800 -> (745.517, 857.412), where exp(-mu) underflowed
    assert [round(x, 3) for x in poisson_interval(0)] == [0.0, 3.689]
    assert [round(x, 3) for x in poisson_interval(10)] == [4.795, 18.390]
    assert [round(x, 3) for x in poisson_interval(800)] == [745.517, 857.412]
    for k in (744, 745, 746, 5000):
        low, high = poisson_interval(k)
        assert low < k < high


def test_one_off_bets_on_other_wagers_leave_the_counted_wagers_statistic_alone() -> None:
    """Each wager has its own statistic: a bet of 25 once on four other side
    bets made them scored (and charged the drift) every round after it."""
    rng = random.Random(35)
    others = ("tiger", "small_tiger", "tiger_pair", "tiger_tie")
    plain, diluted = Detector(), Detector()
    for i in range(600):
        value = Fraction(rng.randint(-20, 10), 100)
        stake = 100 if value > Fraction(5, 100) else 0
        obs = [Observation(f"r{i}", "big_tiger", value, stake)]
        plain.observe(obs)
        extra = [
            Observation(f"r{i}", w, Fraction(rng.randint(-30, 0), 100), 25 if i == 0 else 0)
            for w in others
        ]
        diluted.observe(obs + extra)
        assert diluted.statistic_of("big_tiger") == plain.statistic_of("big_tiger")
    assert plain.alerts > 0
    assert diluted.alerts >= plain.alerts


def test_benchmark_runs_every_player_at_every_preset() -> None:
    done = subprocess.run(
        [
            *(sys.executable, str(BENCHMARK), "--careers", "1", "--shoes", "3"),
            *("--flats", "1", "--rates", "0.25", "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["shoes"] == 3
    assert result["coups"] > 3 * 60
    players = {p["player"]: p for p in result["players"]}
    assert set(players) == {
        "big-tiger-counter",
        "dragon-tiger-counter",
        "insurance-player",
        "flat big_tiger",
        "flat dragon_tiger",
        "flat banker_insurance",
    }
    for p in players.values():
        assert p["bets"] > 0
        for name in THRESHOLD_PRESETS:
            figures = p[name]
            assert figures["careers"] == 1
            assert figures["per_100_shoes"][0] == 100 * figures["alerts"] / 3


def test_detector_fed_only_the_rounds_bet_cannot_score() -> None:
    """A counter seen only on the rounds it bets (every observation a stake of
    one unit) gives the test nothing to compare: the rounds not bet must be
    fed too (docs/protection.md)."""
    d = Detector(HAND)
    for n in range(50):
        assert d.observe(_obs(f"r{n}", Fraction(n % 7, 50), 1)) is None
    assert d.statistic == 0
    assert d.scored == 0


def test_alert_evidence_keeps_the_latest_bets_of_a_long_run() -> None:
    thresholds = Thresholds(limit=Decimal(1200), drift=Decimal(0), cap=Decimal(3), warmup=2)
    d = Detector(thresholds)
    alert = None
    n = 0
    while alert is None:
        # a bet on every rich round, none on the poor: each pair scores 1 + 1
        alert = d.observe(_obs(f"r{n}", Fraction(1, 5), 1)) or d.observe(
            _obs(f"s{n}", Fraction(0), 0)
        )
        n += 1
    assert len(alert.evidence) == EVIDENCE_LIMIT
    assert alert.evidence[-1].round_id == f"r{n - 1}"
    assert alert.observations > EVIDENCE_LIMIT


def test_the_poisson_interval_refuses_what_has_no_interval_and_starts_at_zero_for_none() -> None:
    """The false alarm rates state Garwood's interval: none for a negative
    count or a confidence of 0 or 1; for no alert it runs from 0; for one
    alert its lower end is the 2.5% point, 0.0253."""
    for k, confidence in ((-1, 0.95), (3, 1.0), (3, 0.0), (3, 1.5)):
        with pytest.raises(ValueError, match="no interval") as refused:
            poisson_interval(k, confidence)
        assert str(refused.value) == f"no interval for {k} events at confidence {confidence}"
    assert poisson_interval(0)[0] == 0.0
    lo, hi = poisson_interval(1)
    assert (round(lo, 4), round(hi, 3)) == (0.0253, 5.572)


def test_each_wagers_statistic_and_the_alert_name_the_wager() -> None:
    """The hand-computed sequence again: Big Tiger's statistic is 1.0 after
    r2, a wager never seen stands at 0, and the alert at r4 names Big Tiger."""
    d = Detector(HAND)
    d.observe(_obs("r1", Fraction(0), 0))
    d.observe(_obs("r2", Fraction(1, 5), 1))
    assert (d.statistic_of("big_tiger"), d.statistic_of("tiger_pair")) == (
        Decimal("1.0"),
        Decimal(0),
    )
    d.observe(_obs("r3", Fraction(0), 0))
    alert = d.observe(_obs("r4", Fraction(1, 5), 2))
    assert alert is not None
    assert alert.wager == "big_tiger"


def test_a_wager_worth_two_thirds_every_round_is_taken_without_error() -> None:
    """Four rounds at 2/3: the variance of the values, to 34 digits, comes out
    a hair below zero at the fourth; it is read as no spread (its square root
    would raise), and a stake that follows no value raises no alert."""
    d = Detector(HAND)
    for i, stake in enumerate((0, 1, 0, 1)):
        assert d.observe(_obs(f"r{i}", Fraction(2, 3), stake)) is None
    assert d.alerts == 0
