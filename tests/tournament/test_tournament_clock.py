"""The live tournament's clock (punto.tournament.clock), on a clock the tests
move by hand: betting windows, people who bet in them and people who sit
out, automated entrants who never wait, a fresh window after a restart, the
sudden-death choice with its default -- and the fees and prizes of
tournaments on the ledger itself, on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from punto.eventlog import MemoryEventLog
from punto.store.ledger import Ledger, PostingKind
from punto.tournament import Phase, Stage, Tournament, get_format, load_format
from punto.tournament.clock import TIEBREAK, Clock, Window
from punto.tournament.events import (
    TOURNAMENT_STREAM,
    EntrantRegistered,
    HandSettled,
    TiebreakChosen,
    TournamentEvent,
)
from punto.tournament.runner import Runner, bot_controller


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def live_turbo(
    humans: tuple[str, ...], bots: int, *, log: MemoryEventLog[TournamentEvent] | None = None
) -> Tournament:
    t = Tournament.create(
        log or MemoryEventLog(TOURNAMENT_STREAM),
        "live",
        get_format("turbo"),
        seed=3,
        tables=1,
        betting_ms=2000,
        pause_ms=500,
    )
    for name in humans:
        t.register(name, "human", entrant=name)
    for i in range(bots):
        t.register(f"Bot {i}", bot_controller("flat"))
    return t


def phase(t: Tournament) -> Phase:
    """Table 1's phase (a call, so that a type checker does not pin it down)."""
    return t.tables[1].phase


def run_until_waiting(clock: Clock, limit: int = 1000) -> float | None:
    """Step while actions are due now; the wait that follows."""
    for _ in range(limit):
        delay = clock.step()
        if delay != 0:
            return delay
    raise AssertionError("the clock never waited")


def test_a_person_bets_in_the_window_and_a_person_who_does_not_sits_out() -> None:
    t = live_turbo(("ann", "bo"), 2)
    t.start_session()
    time = FakeTime()
    opened: list[Window] = []
    clock = Clock(t, Runner(t), on_window=opened.append, now=time)
    wait = run_until_waiting(clock)
    table = t.tables[1]
    assert table.phase is Phase.BETTING
    assert table.hand == 1
    assert wait == pytest.approx(2.0)
    assert [(w.table, w.hand, w.deadline) for w in opened] == [(1, 1, time.now + 2.0)]
    # the automated entrants decided at once; the people are still to act
    assert sorted(t.awaiting(1)) == ["ann", "bo"]
    time.now += 1.0
    t.place_bets("ann", [("banker", 200)])
    t.replace_bets("ann", [("player", 300)])  # changed within the window (T4.6)
    assert run_until_waiting(clock) == pytest.approx(1.0)  # still open for bo
    time.now += 1.0
    run_until_waiting(clock)
    settled = table.last
    assert isinstance(settled, HandSettled)
    assert settled.hand == 1
    results = {r.entrant: r for r in settled.results}
    assert results["ann"].staked == 300
    assert results["bo"].staked == 0  # sat out: nobody bet for them
    assert t.entrants["bo"].hands_bet == 0
    assert t.entrants["bo"].chips == 20000  # no penalty while the minimum is reachable (T5.3)
    # the pause after the hand, then the next window
    assert phase(t) is Phase.IDLE
    time.now += 0.5
    run_until_waiting(clock)
    assert phase(t) is Phase.BETTING
    assert t.tables[1].hand == 2


def test_a_table_of_automated_entrants_does_not_wait_for_its_window() -> None:
    t = live_turbo((), 4)
    t.start_session()
    time = FakeTime()
    clock = Clock(t, Runner(t), now=time)
    run_until_waiting(clock)  # hand 1 dealt at once, then the pause
    assert t.tables[1].settled == 1
    assert t.tables[1].phase is Phase.IDLE


def test_a_person_who_never_bets_is_penalised_only_when_the_minimum_requires_it() -> None:
    t = live_turbo(("ann",), 3)
    t.start_session()
    time = FakeTime()
    clock = Clock(t, Runner(t), now=time)
    for _ in range(6):  # 15 hands, at least 10 to bet: hand 6 is the first she must bet
        run_until_waiting(clock)
        time.now += 2.0
        run_until_waiting(clock)
        time.now += 0.5
    ann = t.entrants["ann"]
    assert ann.hands_bet == 0
    assert ann.penalties == 1
    assert ann.chips == 20000 - 200


def test_a_restarted_clock_opens_a_fresh_window_for_the_hand_being_bet() -> None:
    log = MemoryEventLog(TOURNAMENT_STREAM)
    t = live_turbo(("ann",), 3, log=log)
    t.start_session()
    time = FakeTime()
    run_until_waiting(Clock(t, Runner(t), now=time))
    assert t.tables[1].phase is Phase.BETTING
    # the server stops; it starts again much later, from the log
    time.now += 3600
    again = Tournament.open(log, "live")
    opened: list[Window] = []
    clock = Clock(again, Runner(again), on_window=opened.append, now=time)
    assert run_until_waiting(clock) == pytest.approx(2.0)
    assert [(w.table, w.hand, w.deadline) for w in opened] == [(1, 1, time.now + 2.0)]
    again.place_bets("ann", [("banker", 200)])
    time.now += 2.0
    run_until_waiting(clock)
    assert again.tables[1].settled == 1


def two_player_final() -> Any:
    """A one-session format for two, no minimum hands: two people who sit
    out every hand are tied for first place (T7.1)."""
    data = copy.deepcopy(dict(get_format("turbo").data))
    data["id"] = "duel"
    data["registration"] = {
        **data["registration"],
        "min_entrants": 2,
        "max_entrants": 6,
        "late_until_hand": 0,
        "reentries": 0,
    }
    data["sessions"] = [
        {"name": "Final", "hands": 1, "min_bet": 200, "min_hands": 0, "announce_last": 0}
    ]
    data["prizes"] = [{"place": 1, "amount": "100.00"}]
    return load_format(data, "test")


def test_the_sudden_death_side_is_chosen_in_its_window_or_by_default() -> None:
    log = MemoryEventLog(TOURNAMENT_STREAM)
    t = Tournament.create(log, "duel", two_player_final(), seed=1, betting_ms=1000)
    t.register("Ann", "human", entrant="ann")
    t.register("Bo", "human", entrant="bo")
    t.start_session()
    time = FakeTime()
    opened: list[Window] = []
    clock = Clock(t, Runner(t), on_window=opened.append, now=time)
    run_until_waiting(clock)
    time.now += 1.0  # neither bets: both sit out, level on chips
    assert run_until_waiting(clock) == pytest.approx(1.0)
    assert t.tiebreak is not None
    assert opened[-1].table == TIEBREAK
    t.choose_tiebreak("bo", "player")
    assert run_until_waiting(clock) == pytest.approx(1.0)  # Ann still has her window
    time.now += 1.0
    run_until_waiting(clock)
    # Ann got the default: the side still open (T7.2)
    chosen = [
        (e.event.entrant, e.event.wager)
        for e in log.read("duel")
        if isinstance(e.event, TiebreakChosen)
    ]
    assert chosen == [("bo", "player"), ("ann", "banker")]
    assert t.stage is Stage.FINISHED
    assert sorted(p.place for p in t.results) == [1, 2]


def test_fees_and_prizes_balance_on_the_ledger(engine: Engine) -> None:
    ledger = Ledger(engine)
    ann, bo = ledger.player_wallet("ann"), ledger.player_wallet("bo")
    ledger.deposit(ann, 10_000, key="d-ann")
    ledger.deposit(bo, 10_000, key="d-bo")
    house = ledger.balance(ledger.house())
    # fees cover the prizes: what is left goes to the house
    ledger.pay_entry_fee(ann, "cup", 5_000, key="cup-fee-ann")
    ledger.pay_entry_fee(bo, "cup", 5_000, key="cup-fee-bo")
    ledger.pay_prize("cup", ann, 7_000, key="cup-prize-ann")
    surplus = ledger.close_pool("cup", "cup-surplus")
    assert surplus is not None
    assert surplus.kind is PostingKind.POOL_SURPLUS
    assert surplus.amount_for(ledger.house()) == 3_000
    assert ledger.balance("tournament:cup") == 0
    assert ledger.balance(ann) == 12_000
    assert ledger.balance(ledger.house()) == house + 3_000
    # fees short of the prizes: the house pays the rest
    ledger.pay_entry_fee(bo, "big", 1_000, key="big-fee-bo")
    prize = ledger.pay_prize("big", bo, 4_000, key="big-prize-bo")
    assert prize.amount_for("tournament:big") == -1_000
    assert prize.amount_for(ledger.house()) == -3_000
    assert ledger.close_pool("big", "big-surplus") is None
    # a prize paid again by its key moves nothing
    assert ledger.pay_prize("big", bo, 4_000, key="big-prize-bo").replayed
    assert ledger.balance(bo) == 10_000 - 5_000 - 1_000 + 4_000
    assert ledger.trial_balance() == 0
    audit = ledger.audit()
    assert audit.ok, audit.problems


def test_an_entry_fee_and_its_registration_commit_together(engine: Engine) -> None:
    from punto.store import db
    from punto.store.ledger import InsufficientFundsError
    from punto.store.sql_log import SQLEventLog

    ledger = Ledger(engine)
    log = SQLEventLog(engine, TOURNAMENT_STREAM)
    t = Tournament.create(log, "cup", get_format("turbo"), seed=1)
    ann = ledger.player_wallet("ann")
    ledger.deposit(ann, 4_000, key="d-ann")

    def register(conn: Any) -> int:
        event = t.registration("Ann", "human", "ann", wallet=ann.code, fee="50.00")
        ledger.pay_entry_fee(ann, "cup", 5_000, key="cup-fee-ann", within=conn)
        return log.append_within(conn, "cup", event, expected=t.seq + 1)

    with pytest.raises(InsufficientFundsError):
        db.run_transaction(engine, register)
    assert [e.event.type for e in log.read("cup")] == ["tournament_created"]
    assert ledger.balance(ann) == 4_000
    assert ledger.posting("cup-fee-ann") is None

    ledger.deposit(ann, 1_000, key="d-ann-2")
    seq = db.run_transaction(engine, register)
    event = log.read("cup")[-1].event
    assert isinstance(event, EntrantRegistered)
    assert event.fee == "50.00"
    t.adopt(seq, event)
    assert t.entrants["ann"].wallet == "player:ann"
    assert ledger.balance(ann) == 0
    assert ledger.balance("tournament:cup") == 5_000
    assert Tournament.open(log, "cup").entrants["ann"].fees == t.entrants["ann"].fees
