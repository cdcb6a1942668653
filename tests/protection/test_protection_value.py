"""The value test and the table's tests:
:mod:`punto.protection.value` and :mod:`punto.protection.tablewide`."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest

from punto.protection.detection import THRESHOLD_PRESETS, DetectionError, Thresholds
from punto.protection.tablewide import (
    TABLE,
    TABLE_PRESETS,
    TABLE_STAKES,
    TABLE_VALUE,
    VALUE,
    TableWatch,
)
from punto.protection.value import VALUE_PRESETS, ValuedBet, ValueReference, ValueTest

D = Decimal


def reference_of(*values: Fraction) -> ValueReference:
    reference = ValueReference()
    for v in values:
        reference.add({"big_tiger": v})
    return reference


# values -1/10 and +1/10 in equal numbers: mean 0, spread exactly 1/10
SPREAD_TENTH = (Fraction(-1, 10), Fraction(1, 10))


def test_a_bet_scores_its_value_over_the_tables_spread_and_alerts_exactly_at_the_limit() -> None:
    # each bet at +1/10 scores 1 (one spread), less the drift 0.5: 0.5 a bet
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D("0.5"), D(4), warmup=2))
    bet = ValuedBet("r", "big_tiger", Fraction(1, 10), 100)
    assert [test.observe(bet) for _ in range(3)] == [None, None, None]
    assert test.statistic == D("1.5")
    alert = test.observe(bet)  # 2.0: exactly the limit
    assert alert is not None
    assert alert.statistic == alert.threshold == D(2)
    assert alert.bets == 4
    assert alert.staked == 400
    assert alert.value == 4 * 100 * Fraction(1, 10)
    assert [s.score for s in alert.scores] == [D(1)] * 4


def test_a_score_below_minus_cap_is_clipped_and_the_statistic_never_falls_below_zero() -> None:
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D(0), D(3), warmup=2))
    assert test.observe(ValuedBet("r1", "big_tiger", Fraction(1, 10), 100)) is None
    assert test.statistic == D(1)
    # -9 spreads: clipped to -3, and the statistic stops at 0
    assert test.observe(ValuedBet("r2", "big_tiger", Fraction(-9, 10), 100)) is None
    assert test.statistic == 0
    # +9 spreads: clipped to +3, over the limit at once
    alert = test.observe(ValuedBet("r3", "big_tiger", Fraction(9, 10), 100))
    assert alert is not None
    assert [s.score for s in alert.scores] == [D(3)]


def test_a_big_stake_weighs_by_the_mean_stake_and_a_flat_stake_weighs_one() -> None:
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(50), D(0), D(4), warmup=2))
    test.observe(ValuedBet("r1", "big_tiger", Fraction(1, 10), 100))
    test.observe(ValuedBet("r2", "big_tiger", Fraction(1, 10), 300))  # mean stake 200: 1.5
    assert test.statistic == D(1) + D("1.5")


def test_bets_wait_for_the_tables_warmup_not_the_players() -> None:
    reference = reference_of(Fraction(1, 10))
    thresholds = Thresholds(D(2), D(0), D(4), warmup=2)
    early = ValueTest(reference, thresholds)
    bet = ValuedBet("r1", "big_tiger", Fraction(1, 10), 100)
    assert early.observe(bet) is None
    assert early.statistic == 0  # held: one round of values gives no spread
    reference.add({"big_tiger": Fraction(-1, 10)})
    assert early.observe(bet) is not None  # both held bets scored: 1 + 1 = limit
    newcomer = ValueTest(reference, thresholds)
    assert newcomer.observe(bet) is None
    assert newcomer.statistic == D(1)  # scored from the first bet


def test_one_alert_a_run_until_the_statistic_stands_at_zero_again() -> None:
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D(0), D(4), warmup=2))
    good = ValuedBet("r", "big_tiger", Fraction(2, 10), 25)
    assert test.observe(good) is not None
    assert [test.observe(good) for _ in range(5)] == [None] * 5
    assert test.statistic == D(12)
    test.observe(ValuedBet("r", "big_tiger", Fraction(-10, 10), 25))  # -4 a bet: back to zero
    test.observe(ValuedBet("r", "big_tiger", Fraction(-10, 10), 25))
    assert test.statistic == 4
    test.observe(ValuedBet("r", "big_tiger", Fraction(-10, 10), 25))
    assert test.statistic == 0
    assert test.observe(good) is not None
    assert test.alerts == 2


def test_every_round_worth_the_same_scores_the_sign_of_the_value() -> None:
    test = ValueTest(
        reference_of(Fraction(37, 100), Fraction(37, 100)), Thresholds(D(8), D(0), D(4), warmup=2)
    )
    assert test.observe(ValuedBet("r1", "big_tiger", Fraction(37, 100), 25)) is None
    assert test.statistic == 4  # the cap: a spread of 0 leaves the sign
    assert test.observe(ValuedBet("r2", "big_tiger", Fraction(37, 100), 25)) is not None


def test_a_bet_without_a_stake_is_refused() -> None:
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds())
    with pytest.raises(DetectionError, match="a stake of 0 on big_tiger in round r1"):
        test.observe(ValuedBet("r1", "big_tiger", Fraction(1, 10), 0))


def test_each_preset_has_value_thresholds_that_state_their_false_alarm_rate() -> None:
    assert set(VALUE_PRESETS) == set(TABLE_PRESETS) == set(THRESHOLD_PRESETS)
    for name in THRESHOLD_PRESETS:
        for presets in (VALUE_PRESETS, TABLE_PRESETS):
            t = presets[name]
            assert t.name == name
            assert "measured through the server's feed" in t.false_alarm_rate
            assert "per 100 shoes" in t.false_alarm_rate
        # a table's stakes are every player's: its limit a step above the player's
        assert TABLE_PRESETS[name].limit > VALUE_PRESETS[name].limit


# -- the table's tests --------------------------------------------------------------------------


def a_shoe(rng: random.Random, rounds: int = 80) -> list[Fraction]:
    """Big Tiger's value round by round: about -15% (a spread of a few
    percent) until the last few rounds, when the count is high (+5% to +10%)."""
    high = rng.randint(3, 12)
    return [
        Fraction(rng.randint(5, 10), 100)
        if n >= rounds - high
        else Fraction(rng.randint(-20, -10), 100)
        for n in range(rounds)
    ]


def test_a_big_player_under_fresh_names_is_flagged_at_the_table_with_every_name() -> None:
    rng = random.Random(35)
    t = Thresholds(D(20), D("0.3"), D(4), warmup=150)
    watch = TableWatch(t, t)
    names: set[str] = set()
    found = []
    for shoe in range(12):
        entry = None
        for n, value in enumerate(a_shoe(rng)):
            bets = [("spotter", "banker", 25)]
            if rng.random() < 0.25:
                bets.append(("cover", "big_tiger", rng.randint(25, 100)))
            if value >= Fraction(5, 100):
                entry = entry or f"big-{shoe}-{n}"
                names.add(entry)
                bets.append((entry, "big_tiger", 1000))
            else:
                entry = None
            found += watch.round(f"{shoe}-{n}", {"big_tiger": value}, ["big_tiger"], bets)
    table = [f for f in found if f.player == TABLE]
    assert {f.test for f in table} <= {TABLE_STAKES, TABLE_VALUE}
    assert table, "the team was not seen at the table"
    first = table[0]
    assert first.wager == "big_tiger"
    assert first.statistic >= first.threshold
    placed = {p for b in first.bets for p, _ in b.players}
    assert placed & names  # the big players are named in the evidence
    for b in first.bets:
        assert b.stake == sum(s for _, s in b.players)
    assert len(names) > 3


def test_flat_bettors_alone_raise_no_table_alert_and_their_stakes_are_added_per_round() -> None:
    rng = random.Random(36)
    t = Thresholds(D(20), D("0.3"), D(4), warmup=150)
    watch = TableWatch(t, t)
    found = []
    for shoe in range(12):
        for n, value in enumerate(a_shoe(rng)):
            bets = [("regular", "banker", 100)]
            for k in range(4):
                if rng.random() < 0.25:
                    bets.append((f"flat-{k}", "big_tiger", rng.randint(25, 100)))
            bets.append(("flat-0", "big_tiger", 0))  # no stake: not a bet
            found += watch.round(f"{shoe}-{n}", {"big_tiger": value}, ["big_tiger"], bets)
    assert found == []
    assert watch.statistic() is not None
    assert watch.statistic("flat-0") is not None
    assert watch.statistic("nobody") is None


def test_a_player_betting_twice_on_a_wager_in_a_round_is_one_stake() -> None:
    t = Thresholds(D(2), D(0), D(4), warmup=2)
    watch = TableWatch(t, t)
    watch.round("r0", {"big_tiger": Fraction(-1, 10)}, ["big_tiger"], [("a", "banker", 1)])
    bets = [("ann", "big_tiger", 100), ("ann", "big_tiger", 50), ("bob", "big_tiger", 25)]
    found = watch.round("r1", {"big_tiger": Fraction(1, 10)}, ["big_tiger"], bets)
    found += watch.round("r2", {"big_tiger": Fraction(1, 10)}, ["big_tiger"], bets)
    by = {(f.test, f.player): f for f in found}
    table = by[(TABLE_VALUE, TABLE)]
    assert [b.players for b in table.bets] == [(("ann", 150), ("bob", 25))] * 2
    assert [b.stake for b in table.bets] == [175, 175]
    assert table.value == 2 * 175 * Fraction(1, 10)
    assert (VALUE, "ann") in by
    stakes = by[(TABLE_STAKES, TABLE)]
    assert stakes.bets[-1].players == (("ann", 150), ("bob", 25))


def test_the_alert_after_a_return_to_zero_counts_only_its_own_run() -> None:
    """The pit reads an alert's bets, staked and value as the run that
    raised it: a run ended at zero leaves nothing in the next one."""
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D(0), D(4), warmup=2))
    good = ValuedBet("r", "big_tiger", Fraction(2, 10), 25)
    assert test.observe(good) is not None
    test.observe(ValuedBet("r", "big_tiger", Fraction(-10, 10), 25))  # -4: back to zero
    assert test.statistic == 0
    again = test.observe(ValuedBet("r9", "big_tiger", Fraction(2, 10), 30))
    assert again is not None
    assert (again.bets, again.staked, again.value) == (1, 30, 30 * Fraction(2, 10))
    assert [s.bet.round_id for s in again.scores] == ["r9"]


def test_a_bet_on_a_wager_the_table_has_not_valued_yet_waits() -> None:
    """Until the table has valued a wager its spread is not known: a bet on
    it is held, not scored (and not refused)."""
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D(0), D(4), warmup=2))
    assert test.reference.count("tiger_pair") == 0
    assert test.observe(ValuedBet("r1", "tiger_pair", Fraction(1, 2), 25)) is None
    assert test.statistic == 0


def test_a_wager_worth_two_thirds_every_round_has_no_spread() -> None:
    """Four rounds at 2/3: the variance, computed to 34 digits, comes out a
    hair below zero; the spread is 0 and the bet scores the sign of its value."""
    reference = reference_of(*[Fraction(2, 3)] * 4)
    assert reference.moments("big_tiger")[1] == 0
    test = ValueTest(reference, Thresholds(D(8), D(0), D(4), warmup=2))
    assert test.observe(ValuedBet("r1", "big_tiger", Fraction(2, 3), 25)) is None
    assert test.statistic == 4


def test_each_alert_of_the_table_names_its_test_its_bets_and_who_placed_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ann (1000) and cat (1, the smallest stake) bet Big Tiger in the odd
    rounds, worth +1/10, and nothing in the even ones, worth -1/10; dan's
    stake of 0 is no bet.  The table's two tests and each player's value
    test alert, each naming the wager, its statistic, threshold and false
    alarm rate, every bet of the run with who placed it, and the run's
    expected net to the bettors.  The table keeps the bets of its latest
    3 rounds here: r1's players are still named when r3 alerts."""
    import punto.protection.tablewide as tablewide
    from punto.protection.tablewide import Finding

    monkeypatch.setattr(tablewide, "KEEP_ROUNDS", 3)
    table = Thresholds(D(2), warmup=2, false_alarm_rate="the table's rate")
    player = Thresholds(D(2), warmup=2, false_alarm_rate="a player's rate")
    watch = TableWatch(table, player)
    assert (watch.thresholds, watch.value_thresholds) == (table, player)
    found: dict[str, list[Finding]] = {}
    for i in range(6):
        value = Fraction(1, 10) if i % 2 else Fraction(-1, 10)
        bets = [("bob", "banker", 25), ("dan", "big_tiger", 0)]
        if i % 2:
            bets += [("ann", "big_tiger", 1000), ("cat", "big_tiger", 1)]
        found[f"r{i}"] = watch.round(f"r{i}", {"big_tiger": value}, ["big_tiger"], bets)
    tenth = Fraction(1, 10)
    both = (("ann", 1000), ("cat", 1))
    odd = ("r1", "r3", "r5")
    assert found["r3"] == [
        Finding(
            TABLE_STAKES,
            TABLE,
            "big_tiger",
            D("2.3"),
            D(2),
            "the table's rate",
            tuple(ValuedBet(r, "big_tiger", tenth, 1001, both) for r in ("r1", "r3")),
            2 * 1001 * tenth,
        )
    ]
    assert found["r5"] == [
        Finding(
            TABLE_VALUE,
            TABLE,
            "big_tiger",
            D("2.1"),
            D(2),
            "the table's rate",
            tuple(ValuedBet(r, "big_tiger", tenth, 1001, both) for r in odd),
            3 * 1001 * tenth,
        ),
        *(
            Finding(
                VALUE,
                name,
                "big_tiger",
                D("2.1"),
                D(2),
                "a player's rate",
                tuple(ValuedBet(r, "big_tiger", tenth, stake, ((name, stake),)) for r in odd),
                3 * stake * tenth,
            )
            for name, stake in both
        ),
    ]
    assert watch.statistic("dan") is None


def test_an_alert_shows_how_each_bet_of_its_run_was_scored() -> None:
    """Stakes 100, 300, 200 at one spread above the mean: each bet's weight
    is its stake over the mean stake so far (100, 200, 200), its score that
    weight times one spread; the pit sees each step."""
    from punto.protection.value import ValueScore

    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D("0.5"), D(4), warmup=2))
    bets = [ValuedBet(f"r{i}", "big_tiger", Fraction(1, 10), s) for i, s in enumerate((100, 300))]
    assert [test.observe(b) for b in bets] == [None, None]
    last = ValuedBet("r2", "big_tiger", Fraction(1, 10), 200)
    alert = test.observe(last)
    assert alert is not None
    assert (alert.wager, alert.false_alarm_rate) == ("big_tiger", test.thresholds.false_alarm_rate)
    assert alert.scores == (
        ValueScore(bets[0], D(0), D("0.1"), D(100), D(1), D("0.5")),
        ValueScore(bets[1], D(0), D("0.1"), D(200), D("1.5"), D("1.5")),
        ValueScore(last, D(0), D("0.1"), D(200), D(1), D(2)),
    )


def test_each_wager_has_a_statistic_of_its_own() -> None:
    """A bet worth one spread on Big Tiger and one on Tiger Pair: each
    wager's statistic is 1, not 2 for the player."""
    reference = ValueReference()
    for v in SPREAD_TENTH:
        reference.add({"big_tiger": v, "tiger_pair": v})
    test = ValueTest(reference, Thresholds(D(2), D(0), D(4), warmup=2))
    for wager in ("big_tiger", "tiger_pair"):
        assert test.observe(ValuedBet("r1", wager, Fraction(1, 10), 100)) is None
    assert test.statistic == 1


def test_with_no_spread_a_bet_scores_the_sign_of_its_value_either_way() -> None:
    """Every round worth 37/100: a bet worth more scores the cap, one worth
    exactly nothing scores 0, one worth less scores minus the cap."""
    test = ValueTest(
        reference_of(Fraction(37, 100), Fraction(37, 100)), Thresholds(D(9), D(0), D(4), warmup=2)
    )
    observed = [
        (Fraction(37, 100), D(4)),
        (Fraction(0), D(4)),
        (Fraction(1, 100), D(8)),
        (Fraction(-1, 100), D(4)),
    ]
    for value, statistic in observed:
        assert test.observe(ValuedBet("r", "big_tiger", value, 25)) is None
        assert test.statistic == statistic


def test_a_stake_of_nothing_is_refused_saying_which_bets_the_test_takes() -> None:
    test = ValueTest(reference_of(*SPREAD_TENTH), Thresholds(D(2), D(0), D(4), warmup=2))
    with pytest.raises(DetectionError) as refused:
        test.observe(ValuedBet("r7", "big_tiger", Fraction(1, 10), 0))
    assert str(refused.value) == (
        "a stake of 0 on big_tiger in round r7; "
        "the value test takes the bets placed (stakes above 0)"
    )
    assert test.observe(ValuedBet("r8", "big_tiger", Fraction(1, 10), 1)) is None


def test_thresholds_changed_at_a_table_apply_from_the_next_round_to_every_test() -> None:
    """The pit lowers a table's limits mid-shoe (another preset): the
    statistics so far are kept, and the table's two tests and each player's
    value test alert at the new limits."""
    high = Thresholds(D(100), warmup=2)
    watch = TableWatch(high, high)
    found = []
    for i in range(6):
        if i == 2:
            low = Thresholds(D(2), warmup=2, false_alarm_rate="the table's, lowered")
            mine = Thresholds(D(2), warmup=2, false_alarm_rate="a player's, lowered")
            watch.set_thresholds(low, mine)
            assert (watch.thresholds, watch.value_thresholds) == (low, mine)
        value = Fraction(1, 10) if i % 2 else Fraction(-1, 10)
        bets = [("bob", "banker", 25)] + ([("ann", "big_tiger", 1000)] if i % 2 else [])
        found += watch.round(f"r{i}", {"big_tiger": value}, ["big_tiger"], bets)
    assert sorted((f.test, f.player, f.false_alarm_rate) for f in found) == [
        (TABLE_STAKES, TABLE, "the table's, lowered"),
        (TABLE_VALUE, TABLE, "the table's, lowered"),
        (VALUE, "ann", "a player's, lowered"),
    ]


def test_an_alert_reaching_back_past_the_rounds_kept_names_nobody_for_those_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table keeps the bets of its latest rounds only (here 1): when r3
    alerts, r1's bet is still evidence, with its stake, but its players are
    no longer known."""
    import punto.protection.tablewide as tablewide

    monkeypatch.setattr(tablewide, "KEEP_ROUNDS", 1)
    t = Thresholds(D(2), warmup=2)
    watch = TableWatch(t, t)
    found = []
    for i in range(4):
        value = Fraction(1, 10) if i % 2 else Fraction(-1, 10)
        bets = [("bob", "banker", 25)] + ([("ann", "big_tiger", 1000)] if i % 2 else [])
        found += watch.round(f"r{i}", {"big_tiger": value}, ["big_tiger"], bets)
    (stakes,) = [f for f in found if f.test == TABLE_STAKES]
    assert [(b.round_id, b.stake, b.players) for b in stakes.bets] == [
        ("r1", 1000, ()),
        ("r3", 1000, (("ann", 1000),)),
    ]
