"""Dealer and table anomalies, from event logs written
here round by round (:mod:`punto.protection.anomalies`).

Every round below is dealt "8S 6H 9D 3S": Player 8+9=7, Banker 6+3=9, a
Natural -- Banker wins; a Banker bet of 100 wins 95 (Tiger No Commission:
100 on a Banker 9 that is not a Tiger), a Player bet of 100 loses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction

import pytest

from punto.eventlog import Stored
from punto.protection.anomalies import (
    ALPHA,
    AUTOMATIC,
    CSV_COLUMNS,
    AnomalyTestError,
    LogFolder,
    TableSetting,
    off_the_top,
    report,
    report_csv,
    report_json,
    round_facts,
)
from punto.protection.edges import WagerEdge, edge_of
from punto.protection.tails import binomial_upper_tail
from punto.rules.cards import parse_cards
from punto.rules.games import get_game
from punto.table.events import (
    BetPlaced,
    BetsClosed,
    CardDealt,
    Event,
    IrregularityNoted,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableConfigured,
)
from punto.table.limits import TableLimits
from punto.table.round import Round

D = Decimal
GAME = "tiger-no-commission"
CARDS = "8S 6H 9D 3S"
LIMITS = TableLimits(D(10), D(1000))


def configured(game: str = GAME) -> TableConfigured:
    return TableConfigured(
        game, None, get_game(game).pair_rule.value, 8, 16, True, json.dumps(LIMITS.to_json())
    )


def a_round(
    rid: str,
    *,
    bets: Sequence[tuple[str, str, str]] = (("ann", "banker", "100"), ("bob", "player", "100")),
    source: str = "shoe",
    after: Iterable[Event] = (),
    settle: bool = True,
) -> list[Event]:
    events: list[Event] = [RoundOpened(rid)]
    events += [
        BetPlaced(f"{rid}-{i}", who, i + 1, wager, D(stake))
        for i, (who, wager, stake) in enumerate(bets)
    ]
    events.append(BetsClosed())
    events += [CardDealt(card, source) for card in parse_cards(CARDS)]
    if settle:
        events.append(RoundSettled())
    events += after
    return events


def log_of(*rounds: tuple[str, list[Event]], game: str = GAME) -> list[Stored[Event]]:
    stored: list[Stored[Event]] = [Stored(1, "", configured(game))]
    for rid, events in rounds:
        stored += [Stored(len(stored) + 1, rid, e) for e in events]
    return stored


def test_round_facts_count_keyed_cards_voids_resettlements_and_irregularities() -> None:
    void = RoundVoided("extra cards", "5.2")
    noted = IrregularityNoted("5.6", "a card exposed")
    log = log_of(
        ("r1", a_round("r1")),
        ("r2", a_round("r2", source="keyed", after=[noted])),
        ("r3", a_round("r3", after=[void])),  # voided once settled: a resettlement
        ("r4", a_round("r4", settle=False, after=[void])),
        ("r5", a_round("r5", settle=False)),  # not finished: not counted yet
    )
    facts = round_facts("t", log, {"r2": "dana"})
    assert [f.round_id for f in facts] == ["r1", "r2", "r3", "r4"]
    assert [f.dealer for f in facts] == [AUTOMATIC, "dana", AUTOMATIC, AUTOMATIC]
    assert [f.keyed_cards for f in facts] == [0, 4, 0, 0]
    assert [f.physical for f in facts] == [False, True, False, False]
    assert [f.voided for f in facts] == [False, False, True, True]
    assert [f.resettled for f in facts] == [False, False, True, False]
    assert [f.irregularities for f in facts] == [0, 1, 0, 0]
    # a void returns every bet: nothing staked, nothing won
    assert [f.staked for f in facts] == [D(200), D(200), D(0), D(0)]


def test_house_win_and_theoretical_win_are_exact_over_the_bets_taken() -> None:
    rounds = [(f"r{i}", a_round(f"r{i}")) for i in range(1, 4)]
    facts = round_facts("t", log_of(*rounds))
    game = get_game(GAME)
    for f, (_, events) in zip(facts, rounds, strict=True):
        r = Round.replay(game, events, limits=LIMITS)
        assert f.house_win == r.house_net() == D(0)  # Banker +100, Player -100 (no commission)
    banker = edge_of(GAME, None, 8, "banker")
    player = edge_of(GAME, None, 8, "player")
    assert banker is not None
    assert player is not None
    assert facts[0].theoretical_win == 100 * banker.edge + 100 * player.edge
    # stakes on different wagers add variances; on one wager, stakes add first
    assert facts[0].variance == 100**2 * banker.variance + 100**2 * player.variance
    doubled = round_facts(
        "t",
        log_of(("r1", a_round("r1", bets=(("ann", "banker", "100"), ("bob", "banker", "100"))))),
    )
    assert doubled[0].variance == 200**2 * banker.variance


def test_insurance_and_other_wagers_without_an_edge_off_the_top_are_left_out_of_the_hold() -> None:
    def no_player(setting: TableSetting, wager: str) -> WagerEdge | None:
        return None if wager == "player" else off_the_top(setting, wager)

    (f,) = round_facts("t", log_of(("r1", a_round("r1"))), edge=no_player)
    assert (f.bets, f.staked, f.house_win) == (1, D(100), D(-100))


def test_binomial_upper_tail_is_the_exact_sum() -> None:
    for n, p in ((10, Fraction(1, 10)), (25, Fraction(3, 7)), (40, Fraction(1, 100))):
        for k in range(n + 2):
            exact = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
            assert binomial_upper_tail(k, n, p) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


def test_the_count_tests_false_alarm_rate_is_at_most_alpha() -> None:
    """Under the hypothesis (a dealer with the pit's rate), the chance of an
    alert, summed exactly over every count it could show, is at most ALPHA."""
    for n in (50, 200, 1000):
        for p in (Fraction(1, 100), Fraction(1, 20), Fraction(1, 5)):
            alarm = sum(
                math.comb(n, k) * float(p) ** k * float(1 - p) ** (n - k)
                for k in range(1, n + 1)
                if binomial_upper_tail(k, n, p) < ALPHA
            )
            assert alarm <= ALPHA


def test_a_dealer_who_voids_far_more_often_than_the_pit_is_flagged() -> None:
    void = RoundVoided("extra cards", "5.2")
    rounds, dealers = [], {}
    for i in range(400):
        rid = f"r{i}"
        dealer = ("ann", "bob", "cat", "dan")[i % 4]
        dealers[rid] = dealer
        # ann voids 4 of her 100 rounds (i = 0, 100, ...), dan 20 of his (i = 3, 23, ...)
        voided = (dealer == "dan" and i % 20 == 3) or i % 100 == 0
        rounds.append((rid, a_round(rid, settle=not voided, after=[void] if voided else [])))
    r = report(round_facts("t", log_of(*rounds), dealers))
    flagged = {a.name: [c.statistic for c in a.counts if c.alert] for a in r.dealers}
    assert flagged == {"ann": [], "bob": [], "cat": [], "dan": ["voids"]}
    dan = next(a for a in r.dealers if a.name == "dan")
    voids = next(c for c in dan.counts if c.statistic == "voids")
    assert (voids.count, voids.rounds, voids.per_hundred) == (20, 100, 20.0)
    assert voids.pit_rate == Fraction(24, 400)
    assert voids.p_value < ALPHA
    assert dan.alerts[0].startswith("voids: 20 of 100 rounds (pit 6.00%)")


def test_a_hold_far_from_the_theoretical_is_flagged_and_a_likely_one_is_not() -> None:
    likely = [(f"r{i}", a_round(f"r{i}")) for i in range(200)]  # Banker wins what Player loses
    one_sided = [(f"r{i}", a_round(f"r{i}", bets=(("bob", "player", "100"),))) for i in range(200)]
    hold = report(round_facts("t", log_of(*likely))).tables[0].hold
    assert hold.house_win == D(0)
    assert hold.z is not None
    assert abs(hold.z) < hold.bound
    assert not hold.alert
    # 200 Player bets in a row all lost: the house won 20,000 against about 247 expected
    hold = report(round_facts("t", log_of(*one_sided))).tables[0].hold
    assert hold.house_win == D(20000)
    assert hold.z is not None
    assert hold.z > hold.bound
    assert hold.alert
    assert float(hold.theoretical_win) == pytest.approx(20000 * float(off_edge("player")))
    assert hold.z == pytest.approx((20000 - float(hold.theoretical_win)) / hold.sd)


def test_the_theoretical_edge_is_a_parameter() -> None:
    """Values at placement can take the place of the edge off the top."""
    rounds = [(f"r{i}", a_round(f"r{i}", bets=(("bob", "player", "100"),))) for i in range(200)]

    def half(setting: TableSetting, wager: str) -> WagerEdge | None:
        true = off_the_top(setting, wager)
        assert true is not None
        return WagerEdge(true.wager, true.name, true.clause, Fraction(1, 2), true.variance)

    hold = report(round_facts("t", log_of(*rounds), edge=half)).tables[0].hold
    assert hold.theoretical_win == Fraction(10000)
    assert hold.theoretical_hold == 0.5
    assert hold.actual_hold == 1.0


def off_edge(wager: str) -> Fraction:
    found = edge_of(GAME, None, 8, wager)
    assert found is not None
    return found.edge


def test_too_few_bets_give_no_hold_alert() -> None:
    rounds = [(f"r{i}", a_round(f"r{i}", bets=(("bob", "player", "100"),))) for i in range(20)]
    hold = report(round_facts("t", log_of(*rounds))).tables[0].hold
    assert hold.z is not None
    assert abs(hold.z) > hold.bound
    assert not hold.alert  # 20 bets: under MIN_BETS, no normal approximation


def test_the_csv_export_has_the_json_figures() -> None:
    rounds = [(f"r{i}", a_round(f"r{i}")) for i in range(5)]
    r = report(round_facts("t", log_of(*rounds), {"r0": "ann"}))
    data = report_json(r)
    lines = report_csv(r).splitlines()
    assert lines[0].split(",") == list(CSV_COLUMNS)
    assert len(lines) == 1 + len(data["dealers"]) + len(data["tables"])
    ann = dict(zip(CSV_COLUMNS, lines[1].split(","), strict=True))
    j = data["dealers"][0]
    assert (ann["kind"], ann["name"], ann["rounds"]) == ("dealer", j["name"], str(j["rounds"]))
    assert ann["staked"] == j["hold"]["staked"] == "200.00"
    assert ann["theoretical_win"] == j["hold"]["theoretical_win"]


def test_a_log_fed_in_pieces_folds_as_the_whole_and_a_late_void_is_a_resettlement() -> None:
    void = RoundVoided("extra cards", "5.2")
    log = log_of(
        ("r1", a_round("r1")),
        ("r2", a_round("r2", source="keyed")),
        ("r3", a_round("r3", after=[void])),
        ("r4", a_round("r4")),
    )
    whole = round_facts("t", log, {"r2": "dana"})
    folder = LogFolder("t")
    cut = next(
        i for i, s in enumerate(log) if s.round_id == "r3" and isinstance(s.event, RoundSettled)
    )
    folder.feed(log[: cut + 1], {"r2": "dana"})
    # r3 settled, not yet voided: counted as it stands, no resettlement yet
    assert [f.resettled for f in folder.facts({})] == [False, False, False]
    folder.feed(log[cut + 1 :], {"r2": "dana"})
    assert folder.seq == log[-1].seq
    assert folder.facts({"r2": "dana"}) == whole
    assert [f.resettled for f in whole] == [False, False, True, False]


@pytest.mark.parametrize("alpha", [5e-324, 0.0, 0.5, 1.0, float("nan")])
def test_a_false_alarm_rate_that_cannot_be_tested_is_refused(alpha: float) -> None:
    with pytest.raises(AnomalyTestError, match="cannot be tested") as refused:
        report([], alpha=alpha)
    assert refused.value.hint == "give alpha from 1e-12 to 0.2"
