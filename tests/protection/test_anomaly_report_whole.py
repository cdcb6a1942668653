"""The pit's anomaly report read whole, as the pit page and the CSV export
show it: claims filed, confirmed, rejected and refused per dealer and
table; each count's figures and its test; the hold with no bets; the
report's refusals and its tests' words; the log folded event by event.  Pure
and quick: the tests of ``benchmarks/mutation.py anomalies`` with
``test_protection_anomalies.py``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from statistics import NormalDist

import pytest

from punto.eventlog import Stored
from punto.protection.anomalies import (
    ALPHA,
    AUTOMATIC,
    COUNTS,
    CSV_COLUMNS,
    MAX_ALPHA,
    MIN_ALPHA,
    MIN_BETS,
    AnomalyTestError,
    LogFolder,
    RoundFacts,
    TableSetting,
    anomalies_json,
    off_the_top,
    report,
    report_csv,
    report_json,
    round_facts,
)
from punto.protection.edges import WagerEdge, edge_of
from punto.protection.tails import binomial_upper_tail
from punto.rules.roles import Role
from punto.rules.wagers import PairRule
from punto.table.events import (
    ClaimConfirmed,
    ClaimRejected,
    Event,
    Method,
    MethodChosen,
    RoundSettled,
    RoundVoided,
    RulingClaimed,
    ShoeStarted,
)
from tests.protection.test_protection_anomalies import a_round, configured, log_of

D = Decimal
VOID = RoundVoided("extra cards", "5.2")


def claim(cid: str) -> RulingClaimed:
    return RulingClaimed(cid, "void", "{}", "5.2", "dana", Role.PIT_SUPERVISOR)


def pit() -> list[RoundFacts]:
    """Eight rounds: dana deals four (one claim rejected, one confirmed and
    the round voided, one keyed, one the record refused a claim of), eve
    four plain ones, one of them from a card-reading device."""
    rejected = [claim("c1"), ClaimRejected("c1", "sam", "no", Role.PIT_SUPERVISOR)]
    confirmed = [claim("c2"), ClaimConfirmed("c2", "sam", Role.PIT_SUPERVISOR), VOID]
    log = log_of(
        ("r0", a_round("r0", after=rejected)),
        ("r1", a_round("r1", after=confirmed)),
        ("r2", a_round("r2", source="keyed")),
        ("r3", a_round("r3")),
        ("r4", a_round("r4", source="device")),
        ("r5", a_round("r5")),
        ("r6", a_round("r6")),
        ("r7", a_round("r7")),
    )
    dealers = {f"r{i}": "dana" if i < 4 else "eve" for i in range(8)}
    facts = round_facts("t1", log, dealers)
    # the audit log's: the record refused a claim at r3
    return [replace(f, claims_refused=1) if f.round_id == "r3" else f for f in facts]


def test_claims_are_counted_per_round_as_filed_confirmed_and_rejected() -> None:
    facts = pit()
    assert [f.claims_filed for f in facts] == [1, 1, 0, 0, 0, 0, 0, 0]
    assert [f.claims_confirmed for f in facts] == [0, 1, 0, 0, 0, 0, 0, 0]
    assert [f.claims_rejected for f in facts] == [1, 0, 0, 0, 0, 0, 0, 0]
    assert [f.voided for f in facts] == [False, True, False, False, False, False, False, False]
    assert [f.physical for f in facts] == [False, False, True, False, True, False, False, False]
    assert [f.keyed_cards for f in facts] == [0, 0, 4, 0, 0, 0, 0, 0]
    # the log's numbers of the events that finished each round
    assert all(f.finished_seq > 0 for f in facts)
    assert [f.finished_seq for f in facts] == sorted({f.finished_seq for f in facts})


def test_each_count_of_a_dealer_is_tested_against_the_pit() -> None:
    r = report(pit(), alpha=MAX_ALPHA)
    assert [a.name for a in r.dealers] == ["dana", "eve"]
    assert [a.name for a in r.tables] == ["t1"]
    dana = {c.statistic: c for c in r.dealers[0].counts}
    assert tuple(dana) == COUNTS
    expected = {
        # statistic: (count, rounds with one, rounds where one could happen, the pit's rate)
        "keyed_cards": (4, 1, 1, Fraction(1, 2)),  # keyed only where a physical shoe dealt
        "voids": (1, 1, 4, Fraction(1, 8)),
        "resettlements": (1, 1, 4, Fraction(1, 8)),
        "irregularities": (0, 0, 4, Fraction(0)),
        "claims_filed": (2, 2, 4, Fraction(2, 8)),
        "claims_confirmed": (1, 1, 4, Fraction(1, 8)),
        "claims_rejected": (1, 1, 4, Fraction(1, 8)),
        "claims_refused": (1, 1, 4, Fraction(1, 8)),
    }
    for statistic, (count, with_one, rounds, rate) in expected.items():
        c = dana[statistic]
        assert (c.count, c.rounds_with, c.rounds, c.pit_rate) == (count, with_one, rounds, rate)
        assert c.per_hundred == 100 * count / 4
        assert c.p_value == binomial_upper_tail(with_one, rounds, rate)
        assert c.alert == (with_one > 0 and c.p_value < MAX_ALPHA), statistic
    # two claims filed in four rounds against a pit of one in four: p = 0.26
    assert not dana["claims_filed"].alert
    eve = {c.statistic: c for c in r.dealers[1].counts}
    assert (eve["keyed_cards"].count, eve["keyed_cards"].rounds) == (0, 1)
    assert eve["claims_filed"].p_value == 1.0  # none: the tail of 0 is 1
    assert not eve["claims_filed"].alert
    table = {c.statistic: c for c in r.tables[0].counts}
    assert (table["claims_filed"].count, table["claims_filed"].rounds) == (2, 8)
    assert table["claims_filed"].p_value == binomial_upper_tail(2, 8, Fraction(2, 8))


def test_an_alert_states_the_false_alarm_rate_it_was_tested_at() -> None:
    """Three voids in four rounds against a pit of three in eight: alerted
    at a false-alarm rate of 0.2, and the words say 0.2."""
    log = log_of(
        *[(f"r{i}", a_round(f"r{i}", settle=False, after=[VOID])) for i in range(3)],
        *[(f"r{i}", a_round(f"r{i}")) for i in range(3, 8)],
    )
    dealers = {f"r{i}": "dana" if i < 4 else "eve" for i in range(8)}
    r = report(round_facts("t1", log, dealers), alpha=0.2)
    dana = r.dealers[0]
    voids = next(c for c in dana.counts if c.statistic == "voids")
    assert voids.alert
    assert voids.p_value == binomial_upper_tail(3, 4, Fraction(3, 8))
    # the voids and the resettlements (none: voided before settling) are read whole
    assert dana.alerts[0] == f"voids: 3 of 4 rounds (pit 37.50%), p = {voids.p_value:.2g} < 0.2"
    assert not r.dealers[1].alerts
    # the voids saved bob's lost Player bets: dana and bob flagged, in the same words
    (flagged,) = [p for p in report_json(r)["players"] if p["alerts"]]
    assert (flagged["dealer"], flagged["player"]) == ("dana", "bob")
    assert flagged["alerts"][0] == (
        "rulings that saved: 3 of 4 (pit 18.75%), p = 0.023 < 0.2; "
        "rulings saved 300 against the cards"
    )
    # and dana's own rulings: three of her eight player-rounds saved
    (saved, _) = report_json(r)["dealers"][0]["rulings"]["tests"]
    assert (saved["statistic"], saved["count"], saved["out_of"]) == ("rulings that saved", 3, 8)
    assert report_json(r)["dealers"][1]["rulings"]["tests"][0]["count"] == 0  # eve's
    at_default = report(round_facts("t1", log, dealers))
    assert at_default.alpha == ALPHA
    assert not at_default.dealers[0].alerts  # 0.13 is not under 0.001


def test_a_hold_alert_says_its_z_and_bound() -> None:
    rounds = [(f"r{i}", a_round(f"r{i}", bets=(("bob", "player", "100"),))) for i in range(100)]
    r = report(round_facts("t1", log_of(*rounds)), min_bets=100)
    hold = r.tables[0].hold
    assert hold.alert
    assert hold.bets == 100
    assert hold.z is not None
    assert r.tables[0].alerts == [f"hold: z = {hold.z:+.2f}, beyond ±{hold.bound:.2f}"]
    assert hold.bound == NormalDist().inv_cdf(1 - ALPHA / 2)
    assert not report(round_facts("t1", log_of(*rounds)), min_bets=101).tables[0].hold.alert


def test_a_dealer_with_no_bets_has_a_hold_without_figures() -> None:
    """Every round voided: nothing staked, no hold, no z, no alert."""
    log = log_of(*[(f"r{i}", a_round(f"r{i}", settle=False, after=[VOID])) for i in range(3)])
    r = report(round_facts("t1", log), min_bets=1)
    (automatic,) = r.dealers
    assert automatic.name == AUTOMATIC
    hold = automatic.hold
    assert (hold.bets, hold.staked, hold.house_win, hold.sd) == (0, D(0), D(0), 0.0)
    assert hold.z is None
    assert hold.actual_hold is None
    assert hold.theoretical_hold is None
    assert not hold.alert
    j = anomalies_json(automatic)["hold"]
    assert j["staked"] == j["house_win"] == j["theoretical_win"] == "0.00"
    assert (j["actual_hold"], j["theoretical_hold"], j["z"], j["alert"]) == (
        None,
        None,
        None,
        False,
    )
    # no round from a physical shoe: no keyed card could happen, the pit's rate is 0
    keyed = anomalies_json(automatic)["counts"]["keyed_cards"]
    assert (keyed["rounds"], keyed["pit_rate"], keyed["p_value"]) == (0, "0/1", 1.0)
    empty = report([])
    assert (empty.rounds, empty.dealers, empty.tables, empty.players) == (0, (), (), ())


def test_the_report_json_reads_each_figure() -> None:
    r = report(pit(), alpha=MAX_ALPHA, min_bets=3)
    data = report_json(r)
    assert (data["rounds"], data["alpha"], data["min_bets"]) == (8, MAX_ALPHA, 3)
    assert set(data["tests"]) == {"counts", "hold", "rulings"}
    dana = data["dealers"][0]
    a = r.dealers[0]
    assert (dana["kind"], dana["name"], dana["rounds"]) == ("dealer", "dana", 4)
    assert dana["counts"]["claims_filed"] == {
        "count": 2,
        "per_hundred_rounds": 50.0,
        "rounds_with": 2,
        "rounds": 4,
        "pit_rate": "1/4",
        "p_value": binomial_upper_tail(2, 4, Fraction(1, 4)),
        "alert": False,
    }
    assert dana["counts"]["irregularities"]["pit_rate"] == "0/1"
    h = a.hold
    assert dana["hold"] == {
        "bets": h.bets,
        "staked": "600.00",  # three rounds of 100 on Banker and 100 on Player; one voided
        "house_win": "0.00",
        "theoretical_win": dana["hold"]["theoretical_win"],
        "actual_hold": 0.0,
        "theoretical_hold": h.theoretical_hold,
        "sd": h.sd,
        "z": h.z,
        "bound": h.bound,
        "alert": h.alert,
    }
    assert h.bets == 6
    assert Decimal(dana["hold"]["theoretical_win"]) == round(
        Decimal(h.theoretical_win.numerator) / Decimal(h.theoretical_win.denominator), 2
    )
    assert dana["rulings"] == (a.rulings.to_json() if a.rulings is not None else None)
    assert dana["alerts"] == a.alerts
    table = data["tables"][0]
    assert (table["kind"], table["name"], table["rulings"]) == ("table", "t1", None)
    assert data["players"] == [p.to_json(MAX_ALPHA) for p in r.players]


def test_the_per_hundred_figure_is_rounded_to_four_places() -> None:
    facts = [f for f in pit() if f.round_id in ("r0", "r1", "r3")]  # three rounds of dana
    (dana,) = report(facts).dealers
    counts = anomalies_json(dana)["counts"]
    assert counts["claims_filed"]["per_hundred_rounds"] == 66.6667
    assert counts["claims_confirmed"]["per_hundred_rounds"] == 33.3333


def test_the_csv_rows_are_the_json_figures_column_by_column() -> None:
    r = report(pit(), alpha=MAX_ALPHA, min_bets=3)
    data = report_json(r)
    rows = list(csv.reader(io.StringIO(report_csv(r))))
    assert rows[0] == list(CSV_COLUMNS)
    assert [row[:3] for row in rows[1:]] == [
        ["dealer", "dana", "4"],
        ["dealer", "eve", "4"],
        ["table", "t1", "8"],
    ]
    for row, j in zip(rows[1:], [*data["dealers"], *data["tables"]], strict=True):
        got = dict(zip(CSV_COLUMNS, row, strict=True))
        for s in COUNTS:
            c = j["counts"][s]
            assert got[s] == str(c["count"])
            assert got[f"{s}_per_100"] == str(c["per_hundred_rounds"])
            assert got[f"{s}_p_value"] == str(c["p_value"])
            assert got[f"{s}_alert"] == str(c["alert"])
        h = j["hold"]
        for column, key in [
            ("bets", "bets"),
            ("staked", "staked"),
            ("house_win", "house_win"),
            ("theoretical_win", "theoretical_win"),
            ("actual_hold", "actual_hold"),
            ("theoretical_hold", "theoretical_hold"),
            ("z", "z"),
            ("hold_alert", "alert"),
        ]:
            assert got[column] == ("" if h[key] is None else str(h[key])), column


def test_the_tests_are_described_with_their_parameters() -> None:
    r = report(pit(), alpha=0.01, min_bets=40)
    bound = NormalDist().inv_cdf(1 - 0.01 / 2)
    assert r.tests["counts"] == (
        "exact binomial upper tail of the rounds with one, against the pit's pooled "
        "proportion; alert when p < 0.01 (false-alarm rate at most 0.01 per statistic per "
        "dealer or table)"
    )
    assert r.tests["hold"] == (
        "z of the house win against the theoretical win, sd from each wager's exact variance; "
        f"alert when |z| >= {bound:.2f} with at least 40 bets (two-sided normal approximation: "
        "false-alarm rate about 0.01)"
    )
    assert r.tests["rulings"] == (
        "per dealer and per (dealer, player): the player-rounds in which a void, a bet "
        "returned, a withdrawal or a reconstruction left the player more than the cards gave, "
        "against the pit's pooled proportion; and of the rulings that moved a player's money, "
        "the share that saved it, against the pit's share; exact binomial upper tails, alert "
        "when p < 0.01"
    )
    assert (r.alpha, r.min_bets) == (0.01, 40)


def test_the_false_alarm_rates_at_the_bounds_are_tested_and_min_bets_below_one_refused() -> None:
    assert report(pit(), alpha=MIN_ALPHA).alpha == MIN_ALPHA == 1e-12
    assert report(pit(), alpha=MAX_ALPHA).alpha == MAX_ALPHA == 0.2
    assert report(pit()).min_bets == MIN_BETS == 100
    with pytest.raises(AnomalyTestError) as refused:
        report(pit(), min_bets=0)
    assert refused.value.message == "a hold test needs at least one bet"
    assert refused.value.hint == "give min_bets >= 1"
    assert report(pit(), min_bets=1).min_bets == 1
    with pytest.raises(AnomalyTestError) as refused:
        report(pit(), alpha=0.3)
    assert refused.value.message == "a false-alarm rate of 0.3 cannot be tested"


def test_a_round_settled_then_voided_finished_at_its_settlement() -> None:
    events: list[Event] = a_round("r1", after=[VOID])
    log: list[Stored[Event]] = [Stored(1, "", configured())]
    log += [Stored(10 + i, "r1", e) for i, e in enumerate(events)]
    folder = LogFolder("t1")
    folder.feed(log, {})
    (facts,) = folder.facts({})
    settled = next(s.seq for s in log if isinstance(s.event, RoundSettled))
    assert facts.finished_seq == settled < log[-1].seq
    assert facts.resettled
    assert folder.seq == log[-1].seq
    folder.feed(log[:3], {})  # fed an older part again: its place stays at the newest
    assert folder.seq == log[-1].seq


def _one_void_among(rounds: int) -> list[RoundFacts]:
    """``rounds`` rounds, the first voided and dealt by dana, the rest by eve."""
    log = log_of(
        ("r0", a_round("r0", settle=False, after=[VOID])),
        *[(f"r{i}", a_round(f"r{i}")) for i in range(1, rounds)],
    )
    return round_facts("t1", log, {f"r{i}": "dana" if i == 0 else "eve" for i in range(rounds)})


def test_a_single_round_can_be_improbable_enough_to_alert() -> None:
    """dana dealt one round and voided it, in a pit of eight with no other
    void: p = 1/8, under 0.2."""
    (dana, _) = report(_one_void_among(8), alpha=0.2).dealers
    voids = next(c for c in dana.counts if c.statistic == "voids")
    assert (voids.rounds_with, voids.rounds) == (1, 1)
    assert voids.p_value == pytest.approx(0.125)
    assert voids.alert


def test_a_p_value_at_the_false_alarm_rate_is_no_alert() -> None:
    """An alert is p *below* alpha: one void in one round, against a pit of
    one in five, is p = 0.2 exactly."""
    (dana, _) = report(_one_void_among(5), alpha=0.2).dealers
    voids = next(c for c in dana.counts if c.statistic == "voids")
    assert voids.p_value == 0.2
    assert not voids.alert


def test_the_csv_ends_each_row_with_a_line_feed() -> None:
    text = report_csv(report(pit()))
    assert "\r" not in text
    assert text.endswith("\n")
    assert text.count("\n") == 1 + 2 + 1  # the header, two dealers, one table


def test_a_z_that_reaches_the_bound_exactly_is_an_alert() -> None:
    """``|z| >= bound``: with an edge chosen so that one lost Player bet of
    100 is exactly ``bound`` standard deviations from its expectation."""
    bound = NormalDist().inv_cdf(1 - MAX_ALPHA / 2)

    def at_the_bound(setting: TableSetting, wager: str) -> WagerEdge | None:
        true = off_the_top(setting, wager)
        assert true is not None
        return WagerEdge(true.wager, true.name, true.clause, 1 - Fraction(bound), Fraction(1))

    log = log_of(("r1", a_round("r1", bets=(("bob", "player", "100"),))))
    r = report(round_facts("t1", log, edge=at_the_bound), alpha=MAX_ALPHA, min_bets=1)
    (table,) = r.tables
    assert table.hold.z == table.hold.bound == bound
    assert table.hold.alert


def test_a_new_folder_reads_the_log_from_its_first_event() -> None:
    """A server asks the folder for the events after ``seq``: a new folder
    is at 0, so the log's first event (1) is read."""
    assert LogFolder("t1").seq == 0
    assert LogFolder("t1").facts({}) == []


def test_a_log_without_its_configuration_gives_no_rounds() -> None:
    log = log_of(("r1", a_round("r1")))[1:]  # the table's configuration left out
    assert round_facts("t1", log) == []


def test_the_events_after_a_configuration_change_in_one_feed_are_folded() -> None:
    log = log_of(("r1", a_round("r1")))
    log.append(Stored(len(log) + 1, "", configured()))  # the limits set again between rounds
    log += [Stored(len(log) + 1 + i, "r2", e) for i, e in enumerate(a_round("r2"))]
    assert [f.round_id for f in round_facts("t1", log)] == ["r1", "r2"]


def test_the_method_chosen_between_rounds_belongs_to_no_round() -> None:
    between = MethodChosen(Method.A, Role.PIT_MANAGER, "3.9.2")
    plain = log_of(("r1", a_round("r1")), ("r2", a_round("r2")))
    log: list[Stored[Event]] = [*plain[: -len(a_round("r2"))], Stored(900, "", between)]
    log += [Stored(1000 + i, "r2", e) for i, e in enumerate(a_round("r2"))]
    folded = round_facts("t1", log)
    assert [f.round_id for f in folded] == ["r1", "r2"]
    assert [replace(f, finished_seq=0) for f in folded] == [
        replace(f, finished_seq=0) for f in round_facts("t1", plain)
    ]


def test_a_rounds_handle_win_and_commission_are_over_the_bets_played() -> None:
    """Banker 100 wins (5% commission), Player 100 and Tie 10 lose: 210
    played, the house wins 15 net of the 5 it took."""
    bets = (("ann", "banker", "100"), ("bob", "player", "100"), ("cy", "tie", "10"))
    log = log_of(
        ("r1", a_round("r1", bets=bets)),
        ("r2", a_round("r2", bets=bets, settle=False, after=[VOID])),
        game="tiger-baccarat",
    )
    played, voided = round_facts("t1", log)
    assert (played.handle, played.win, played.commission) == (D(210), D(15), D(5))
    assert (played.staked, played.house_win, played.bets) == (D(210), D(15), 3)
    assert (voided.handle, voided.win, voided.commission) == (D(0), D(0), D(0))
    # money, even when none moved (a shift of voids only is still reported in money)
    assert all(isinstance(x, Decimal) for x in (voided.handle, voided.win, voided.commission))
    assert voided.players == played.players == ("ann", "bob", "cy")


def test_a_bet_without_an_edge_leaves_out_only_itself() -> None:
    def no_player(setting: TableSetting, wager: str) -> WagerEdge | None:
        return None if wager == "player" else off_the_top(setting, wager)

    bets = (("bob", "player", "100"), ("ann", "banker", "100"), ("cy", "banker", "50"))
    (f,) = round_facts("t1", log_of(("r1", a_round("r1", bets=bets))), edge=no_player)
    assert (f.bets, f.staked, f.house_win) == (2, D(150), D(-150))


def test_the_edge_is_taken_under_the_tables_own_pair_reading() -> None:
    """A Tiger Pair bet at a table configured for the literal reading of
    1.1.14 is weighed by that reading's edge, not the game's default."""
    literal = replace(configured("tiger-baccarat"), pair_rule=PairRule.LITERAL.value)
    events = a_round("r1", bets=(("ann", "tiger_pair", "100"),))
    log: list[Stored[Event]] = [Stored(1, "", literal)]
    log += [Stored(2 + i, "r1", e) for i, e in enumerate(events)]
    (f,) = round_facts("t1", log)
    edge = edge_of("tiger-baccarat", None, 8, "tiger_pair", PairRule.LITERAL)
    assert edge is not None
    assert f.theoretical_win == 100 * edge.edge
    assert f.variance == 100**2 * edge.variance


def test_the_rounds_after_a_new_shoe_in_one_feed_are_folded() -> None:
    def shoe(name: str) -> ShoeStarted:
        return ShoeStarted(name, (), None, "", "", decks=8)

    log: list[Stored[Event]] = [Stored(1, "", configured()), Stored(2, "", shoe("s1"))]
    for rid in ("r1", "r2"):
        log += [Stored(len(log) + 1 + i, rid, e) for i, e in enumerate(a_round(rid))]
        log.append(Stored(len(log) + 1, "", shoe(f"after-{rid}")))
    assert [f.round_id for f in round_facts("t1", log)] == ["r1", "r2"]
