"""One posting implementation: the pure rules, the Ledger and the
journal deciding alike, and the database as the authority for balances --
on SQLite files and PostgreSQL (see tests/db_fixtures.py)."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import threading
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Connection, Engine

from punto.errors import PuntoError
from punto.server.tables.journal import EventAppend, Journal, Posted
from punto.store import db, ledger_sql, postings
from punto.store.bounds import MoneyBoundError
from punto.store.ledger import (
    BetStateError,
    BetStatus,
    IdempotencyConflictError,
    InsufficientFundsError,
    Ledger,
    LedgerError,
)
from punto.store.postings import (
    BetState,
    Entry,
    PlaceBet,
    PostingKind,
    ReturnBet,
    SettleBet,
    WalletKind,
    WalletState,
)
from punto.store.sql_log import read_stream
from punto.table.events import TABLE_STREAM, BetPlaced

ANN = WalletState("player:ann", WalletKind.PLAYER, 10_000)
HOUSE = WalletState("house", WalletKind.HOUSE, -10_000)
HOLDING = WalletState("holding:t1", WalletKind.HOLDING, 2_000)
POOL = WalletState("tournament:cup", WalletKind.TOURNAMENT, 3_000)
WALLETS = {w.code: w for w in (ANN, HOUSE, HOLDING, POOL)}
OPEN = BetState("t1", "b1", "player:ann", "r1", 2_000, 2_000, BetStatus.OPEN)
SETTLED = BetState("t1", "b1", "player:ann", "r1", 2_000, 0, BetStatus.SETTLED)


# -- the pure rules ------------------------------------------------------------------------------


PLANS: list[tuple[postings.Request, BetState | None, PostingKind, dict[str, int], int | None]] = [
    (postings.Deposit("player:ann", 500, "k"), None, PostingKind.DEPOSIT,
     {"player:ann": 500, "house": -500}, 10_500),
    (postings.Withdrawal("player:ann", 10_000, "k"), None, PostingKind.WITHDRAWAL,
     {"player:ann": -10_000, "house": 10_000}, 0),
    (PlaceBet("player:ann", "t1", "b2", "r1", 1_500, "k"), None, PostingKind.BET,
     {"player:ann": -1_500, "holding:t1": 1_500}, 8_500),
    (SettleBet("t1", "b1", 3_900, "k"), OPEN, PostingKind.SETTLEMENT,
     {"holding:t1": -2_000, "player:ann": 3_900, "house": -1_900}, 13_900),
    (SettleBet("t1", "b1", 0, "k"), OPEN, PostingKind.SETTLEMENT,
     {"holding:t1": -2_000, "house": 2_000}, 10_000),
    (SettleBet("t1", "b1", 2_000, "k"), OPEN, PostingKind.SETTLEMENT,
     {"holding:t1": -2_000, "player:ann": 2_000}, 12_000),
    (ReturnBet("t1", "b1", "k", 500), OPEN, PostingKind.RETURN,
     {"holding:t1": -500, "player:ann": 500}, 10_500),
    (postings.EntryFee("player:ann", "cup", 1_000, "k"), None, PostingKind.ENTRY_FEE,
     {"player:ann": -1_000, "tournament:cup": 1_000}, 9_000),
    (postings.Refund("player:ann", "cup", 1_000, "k"), None, PostingKind.REFUND,
     {"tournament:cup": -1_000, "player:ann": 1_000}, 11_000),
    (postings.Prize("player:ann", "cup", 5_000, "k"), None, PostingKind.PRIZE,
     {"tournament:cup": -3_000, "house": -2_000, "player:ann": 5_000}, 15_000),
    (postings.PoolSurplus("cup", 3_000, "k"), None, PostingKind.POOL_SURPLUS,
     {"tournament:cup": -3_000, "house": 3_000}, None),
    (postings.Resettle("t1", "b1", -1_900, "k"), SETTLED, PostingKind.RESETTLEMENT,
     {"player:ann": -1_900, "house": 1_900}, 8_100),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "bet", "kind", "entries", "player"), PLANS)
def test_every_posting_kind_plans_its_entries_exactly(
    request_: postings.Request,
    bet: BetState | None,
    kind: PostingKind,
    entries: dict[str, int],
    player: int | None,
) -> None:
    made = postings.plan(request_, WALLETS, bet)
    assert made.kind is kind
    assert {e.wallet: e.amount for e in made.entries} == entries
    assert sum(e.amount for e in made.entries) == 0
    assert all(e.amount != 0 for e in made.entries)
    assert made.player_balance == player
    for code, amount in entries.items():
        assert made.balances[code] == WALLETS[code].balance + amount


REFUSALS: list[tuple[postings.Request, BetState | None, type[Exception], str]] = [
    (PlaceBet("player:ann", "t1", "b2", "r1", 10_001, "k"), None, InsufficientFundsError,
     "wallet player:ann has 100.00, not the 100.01 asked for"),
    (PlaceBet("player:zed", "t1", "b2", "r1", 1, "k"), None, InsufficientFundsError,
     "wallet player:zed has 0.00"),
    (PlaceBet("player:ann", "t1", "b1", "r1", 100, "k"), OPEN, BetStateError,
     "bet 'b1' at table 't1' was already placed"),
    (PlaceBet("player:ann", "t1", "b2", "r1", 0, "k"), None, LedgerError,
     "stake 0.00 must be positive"),
    (PlaceBet("house", "t1", "b2", "r1", 100, "k"), None, LedgerError,
     "wallet 'house' is not a player wallet"),
    (SettleBet("t1", "b9", 100, "k"), None, BetStateError, "there is no bet 'b9' at table 't1'"),
    (SettleBet("t1", "b1", 100, "k"), SETTLED, BetStateError, "is already settled"),
    (SettleBet("t1", "b1", -1, "k"), OPEN, LedgerError, "payout -0.01 must be zero or positive"),
    (ReturnBet("t1", "b1", "k", 2_001), OPEN, LedgerError, "cannot return 20.01 of bet 'b1'"),
    (postings.Withdrawal("player:ann", 10_001, "k"), None, InsufficientFundsError,
     "not the 100.01 asked for"),
    (postings.Refund("player:ann", "cup", 3_001, "k"), None, LedgerError,
     "holds 30.00, not the 30.01 to refund"),
    (postings.PoolSurplus("cup", 2_999, "k"), None, LedgerError, "changed while it was being closed"),
    (postings.Resettle("t1", "b1", 0, "k"), OPEN, BetStateError, "is still open"),
    (postings.Resettle("t1", "b1", -10_001, "k"), SETTLED, InsufficientFundsError,
     "not the 100.01 asked for"),
    (postings.Deposit("player:ann", 500, "k", max_balance=10_499), None, MoneyBoundError,
     "past the most a wallet may hold"),
    (postings.Deposit("player:ann", 500, ""), None, LedgerError, "idempotency key '' is not usable"),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "bet", "error", "message"), REFUSALS)
def test_every_refusal_is_typed(
    request_: postings.Request, bet: BetState | None, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        postings.plan(request_, WALLETS, bet)


def test_a_key_is_a_replay_only_for_the_same_content() -> None:
    bet = PlaceBet("player:ann", "t1", "b2", "r1", 100, "k")
    assert not postings.check_key(bet, None)
    assert postings.check_key(bet, bet.request_hash)
    other = PlaceBet("player:ann", "t1", "b2", "r1", 101, "k")
    with pytest.raises(IdempotencyConflictError, match="already used for a different request"):
        postings.check_key(other, bet.request_hash)


# -- the Ledger path and the journal path decide alike --------------------------------------------

# An operation: ("bet", player, bet, amount), ("settle", bet, payout), ("return", bet,
# amount or None), ("again", i) -- operation i's request again -- or ("other", i) --
# operation i's key for another request.
Op = tuple[Any, ...]
PLAYERS = ("ann", "bob")
BETS = ("b1", "b2", "b3")
amounts = st.sampled_from([-1, 0, 1, 700, 2_000, 4_999, 5_000, 5_001])
operation = st.one_of(
    st.tuples(st.just("bet"), st.sampled_from(PLAYERS), st.sampled_from(BETS), amounts),
    st.tuples(st.just("settle"), st.sampled_from(BETS), st.sampled_from([0, 1, 2_000, 9_500])),
    st.tuples(st.just("return"), st.sampled_from(BETS), st.sampled_from([None, 0, 1, 700, 5_000])),
    st.tuples(st.just("again"), st.integers(0, 9)),
    st.tuples(st.just("other"), st.integers(0, 9)),
)
operations = st.lists(operation, min_size=1, max_size=10)

Outcome = tuple[Any, ...]


def _requests(ops: Sequence[Op], p: str) -> list[PlaceBet | SettleBet | ReturnBet]:
    """The requests of ``ops`` with every name prefixed by ``p`` (one database, two paths)."""
    made: list[PlaceBet | SettleBet | ReturnBet] = []
    for i, op in enumerate(ops):
        kind = op[0]
        if kind in ("again", "other") and op[1] >= len(made):
            kind, op = "return", ("return", "b1", None)  # nothing to repeat yet
        if kind == "bet":
            made.append(PlaceBet(f"player:{p}{op[1]}", f"{p}t", op[2], "r1", op[3], f"{p}k{i}"))
        elif kind == "settle":
            made.append(SettleBet(f"{p}t", op[1], op[2], f"{p}k{i}"))
        elif kind == "return":
            made.append(ReturnBet(f"{p}t", op[1], f"{p}k{i}", op[2]))
        elif kind == "again":
            made.append(made[op[1]])
        else:  # the same key, another request: a settlement of a bet of its own
            made.append(SettleBet(f"{p}t", "b-other", 1, made[op[1]].key))
    return made


def _outcome(done: Posted | LedgerError, key: str, ledger: Ledger, p: str) -> Outcome:
    if isinstance(done, LedgerError):
        return (type(done).__name__, str(done).replace(p, ""))
    posting = ledger.posting(key)
    assert posting is not None
    entries = {e.wallet.replace(p, ""): e.amount for e in posting.entries}
    return ("replayed" if done.replayed else "posted", posting.kind, entries)


def _via_ledger(ledger: Ledger, request: PlaceBet | SettleBet | ReturnBet) -> Posted | LedgerError:
    try:
        posting = ledger.post(request)
    except LedgerError as refused:
        return refused
    return Posted(posting.key, replayed=posting.replayed)


def _fund(ledger: Ledger, p: str) -> None:
    for name in PLAYERS:
        ledger.deposit(ledger.player_wallet(f"{p}{name}"), 5_000, key=f"{p}cage-{name}")


def _state(ledger: Ledger, p: str) -> tuple[dict[str, int], dict[str, tuple[int, BetStatus]]]:
    balances = {name: ledger.balance(f"player:{p}{name}") for name in PLAYERS}
    with ledger.engine.connect() as conn:
        bets = ledger_sql.load_bets(conn, [(f"{p}t", b) for b in BETS], lock=False)
    return balances, {ref[1]: (bet.held, bet.status) for ref, bet in bets.items()}


def _compare(engine: Engine, journal: Journal, ops: Sequence[Op], *, together: bool) -> None:
    """Run ``ops`` through the Ledger and through the journal (one posting a group,
    or all in one group with ``together``); the same outcomes, exact to the unit."""
    ledger = Ledger(engine)
    run = uuid.uuid4().hex[:8]
    lp, jp = f"L{run}-", f"J{run}-"
    _fund(ledger, lp)
    _fund(ledger, jp)
    by_ledger = [_outcome(_via_ledger(ledger, r), r.key, ledger, lp) for r in _requests(ops, lp)]
    asked = _requests(ops, jp)
    done = journal.post(asked) if together else [journal.post([r])[0] for r in asked]
    by_journal = [_outcome(d, r.key, ledger, jp) for d, r in zip(done, asked, strict=True)]
    assert by_journal == by_ledger
    assert _state(ledger, jp) == _state(ledger, lp)
    assert ledger.trial_balance() == 0
    assert ledger.audit().ok, ledger.audit().problems


TABLE: list[list[Op]] = [
    [("bet", "ann", "b1", 2_000), ("settle", "b1", 3_900)],
    [("bet", "ann", "b1", 5_001), ("bet", "ann", "b1", 5_000), ("bet", "ann", "b2", 1)],
    [("bet", "ann", "b1", 2_000), ("bet", "bob", "b1", 2_000), ("settle", "b1", 0),
     ("settle", "b1", 0)],
    [("bet", "ann", "b1", 2_000), ("return", "b1", 700), ("return", "b1", 5_000),
     ("settle", "b1", 9_500), ("return", "b1", None)],
    [("bet", "ann", "b1", 700), ("again", 0), ("other", 0), ("settle", "b2", 1)],
    [("bet", "bob", "b3", 0), ("bet", "bob", "b3", -1), ("return", "b3", None)],
]  # fmt: skip


@pytest.mark.parametrize("ops", TABLE)
@pytest.mark.parametrize("together", [False, True], ids=["alone", "one-group"])
def test_ledger_and_journal_give_the_same_entries_and_refusals(
    engine: Engine, ops: list[Op], together: bool
) -> None:
    journal = Journal(engine)
    try:
        _compare(engine, journal, ops, together=together)
    finally:
        journal.close()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=operations, together=st.booleans())
def test_ledger_and_journal_agree_on_any_sequence(
    engine: Engine, ops: list[Op], together: bool
) -> None:
    journal = Journal(engine)
    try:
        _compare(engine, journal, ops, together=together)
    finally:
        journal.close()


# -- the database is the authority for balances ---------------------------------------------------


def test_a_debit_decided_on_a_stale_balance_is_refused_by_the_database(engine: Engine) -> None:
    ledger = Ledger(engine)
    ann = ledger.player_wallet("ann")
    ledger.deposit(ann, 10_000, key="cage")
    ledger.holding("t1")
    with engine.connect() as conn:
        rows = ledger_sql.load_wallets(conn, ["player:ann", "holding:t1"], lock=False)
    stale = postings.plan(
        PlaceBet("player:ann", "t1", "b1", "r1", 8_000, "bet-1"),
        {code: row.state for code, row in rows.items()},
    )
    ledger.withdraw(ann, 5_000, key="cashed")  # meanwhile, elsewhere
    ids = {code: row.id for code, row in rows.items()}

    def write(conn: Connection) -> None:
        (tid,) = ledger_sql.new_transaction_ids(conn, 1)
        ledger_sql.write_plans(conn, [(tid, stale)], ids, db.utc_now())

    with pytest.raises(ledger_sql.BalanceChangedError, match="the database refused the debit"):
        db.run_transaction(engine, write)
    assert isinstance(ledger_sql.BalanceChangedError("x"), InsufficientFundsError)
    assert ledger.balance(ann) == 5_000
    assert ledger.posting("bet-1") is None
    assert ledger.audit().ok
    assert ledger.trial_balance() == 0


def test_two_journals_on_one_database_never_overdraw_a_wallet(db_url: str) -> None:
    """Two server processes (two engines, two journals) both knowing ann's 100.00
    and each taking 10.00 bets that together ask 160.00: exactly ten are taken."""
    engines = [db.connect(db_url, migrate=i == 0) for i in range(2)]
    ledger = Ledger(engines[0])
    ledger.deposit(ledger.player_wallet("ann"), 10_000, key="cage")
    journals = [Journal(e) for e in engines]
    try:
        for journal in journals:
            assert journal.prime(["player:ann"]) == 1
            assert journal.available("player:ann") == 10_000
        counter = itertools.count()
        lock = threading.Lock()

        def bet(journal: Journal, table: str) -> tuple[int, list[Posted]] | BaseException:
            with lock:
                n = next(counter)
            bet_id = f"b{n}"
            event = BetPlaced(
                bet_id=bet_id, player="ann", position=1, wager="banker", stake=Decimal("10.00")
            )
            spec = PlaceBet("player:ann", table, bet_id, "r1", 1_000, f"bet:{table}:{bet_id}")
            try:
                return journal.append(EventAppend(table, "r1", event, [spec]))
            except BaseException as error:
                return error

        calls = [functools.partial(bet, journals[j], t) for j, t in [(0, "t1"), (1, "t2")] * 8]
        results = _race(calls)
    finally:
        for journal in journals:
            journal.close()
    taken = [r for r in results if isinstance(r, tuple)]
    refused = [r for r in results if not isinstance(r, tuple)]
    assert len(taken) == 10, refused
    assert len(refused) == 6
    assert all(isinstance(r, InsufficientFundsError) for r in refused), refused
    assert ledger.balance("player:ann") == 0
    assert ledger.balance("holding:t1") + ledger.balance("holding:t2") == 10_000
    assert ledger.trial_balance() == 0
    audit = ledger.audit()
    assert audit.ok, audit.problems
    events = read_stream(engines[0], TABLE_STREAM, "t1") + read_stream(
        engines[0], TABLE_STREAM, "t2"
    )
    assert len(events) == 10  # an event for each bet taken, none for a bet refused
    for e in engines:
        e.dispose()


def test_a_journal_that_decided_on_a_stale_balance_decides_again(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a group reads balances without a lock: money taken by another
    process between the read and the write makes the database refuse the debit,
    and the journal reads and decides again -- a refusal, nothing overdrawn."""
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite's journal reads inside its write lock: no one writes between")
    engines = [db.connect(db_url, migrate=i == 0) for i in range(2)]
    elsewhere = Ledger(engines[1])
    ann = elsewhere.player_wallet("ann")
    elsewhere.deposit(ann, 10_000, key="cage")
    load = ledger_sql.load_wallets
    spent = threading.Event()

    def load_then_spend(conn: Connection, codes: Any, *, lock: bool) -> Any:
        found = load(conn, codes, lock=lock)
        if not lock and not spent.is_set():  # the journal's read: then another process cashes
            spent.set()
            elsewhere.withdraw(ann, 9_500, key="cashed")
        return found

    monkeypatch.setattr(ledger_sql, "load_wallets", load_then_spend)
    journal = Journal(engines[0])
    try:
        (done,) = journal.post([PlaceBet("player:ann", "t1", "b1", "r1", 1_000, "bet-1")])
    finally:
        journal.close()
    assert spent.is_set()
    assert isinstance(done, InsufficientFundsError)
    assert "has 5.00, not the 10.00 asked for" in str(done)
    ledger = Ledger(engines[0])
    assert ledger.balance(ann) == 500
    assert ledger.posting("bet-1") is None
    assert ledger.trial_balance() == 0
    assert ledger.audit().ok
    for e in engines:
        e.dispose()


def test_a_wallet_changed_elsewhere_after_the_journal_kept_it(db_url: str) -> None:
    """On PostgreSQL a journal decides on the wallets as its last group left them
    and checks them against the database at the write: money moved by another
    process meanwhile -- in or out -- is seen, every balance an answer gives is
    the database's, and a bet refused on a kept balance is decided again."""
    engines = [db.connect(db_url, migrate=i == 0) for i in range(2)]
    elsewhere = Ledger(engines[1])
    ann = elsewhere.player_wallet("ann")
    elsewhere.deposit(ann, 10_000, key="cage-1")
    journal = Journal(engines[0])

    def bet(n: int, stake: int) -> Posted | LedgerError:
        (done,) = journal.post([PlaceBet("player:ann", "t1", f"b{n}", "r1", stake, f"bet-{n}")])
        return done

    try:
        first = bet(1, 1_000)
        assert isinstance(first, Posted)
        assert first.player_balance == 9_000
        elsewhere.deposit(ann, 5_000, key="cage-2")  # in, elsewhere
        second = bet(2, 1_000)
        assert isinstance(second, Posted)
        assert second.player_balance == 13_000
        elsewhere.withdraw(ann, 12_500, key="cashed")  # out, elsewhere
        third = bet(3, 1_000)
        assert isinstance(third, InsufficientFundsError)
        assert "has 5.00, not the 10.00 asked for" in str(third)
        elsewhere.deposit(ann, 20_000, key="cage-3")  # the journal last saw 5.00
        fourth = bet(4, 10_000)
        assert isinstance(fourth, Posted)
        assert fourth.player_balance == 10_500
    finally:
        journal.close()
    ledger = Ledger(engines[0])
    assert ledger.balance(ann) == 10_500
    assert ledger.balance("holding:t1") == 12_000
    assert ledger.posting("bet-3") is None
    assert ledger.trial_balance() == 0
    assert ledger.audit().ok
    for e in engines:
        e.dispose()


def _race(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Make every call at the same instant, each in its own thread."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [RuntimeError("did not run")] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_entries_of_a_plan_are_the_ledgers_entries() -> None:
    made = postings.plan(SettleBet("t1", "b1", 3_900, "k"), WALLETS, OPEN)
    assert made.entries == (
        Entry("holding:t1", -2_000),
        Entry("player:ann", 3_900),
        Entry("house", -1_900),
    )


class _LeaseLostError(PuntoError):
    """What a lease's fencing check would raise."""


def test_a_check_run_before_every_commit_can_refuse_it(engine: Engine) -> None:
    """The hook a table lease plugs in (``checks``): run in every write transaction
    of the Ledger and of the journal before it commits; refusing, nothing is written."""
    ledger = Ledger(engine)
    ann = ledger.player_wallet("ann")
    ledger.deposit(ann, 1_000, key="cage")
    seen: list[Connection] = []

    def fence(conn: Connection) -> None:
        seen.append(conn)
        raise _LeaseLostError("this process no longer holds the table's lease")

    tables: list[frozenset[str]] = []

    def fence_tables(conn: Connection, written: frozenset[str]) -> None:
        tables.append(written)  # the journal says which tables the group writes for
        fence(conn)

    with pytest.raises(_LeaseLostError):
        Ledger(engine, checks=fence).withdraw(ann, 500, key="cashed")
    journal = Journal(engine, checks=fence_tables)
    try:
        with pytest.raises(_LeaseLostError):
            journal.post([PlaceBet("player:ann", "t1", "b1", "r1", 500, "bet-1")])
    finally:
        journal.close()
    assert len(seen) == 2
    assert tables == [frozenset({"t1"})]
    assert ledger.balance(ann) == 1_000
    assert ledger.posting("cashed") is None
    assert ledger.posting("bet-1") is None
    assert ledger.trial_balance() == 0


@pytest.mark.parametrize("keyed_by", ["request", "bet id"])
def test_a_tables_bet_under_an_id_taken_is_refused_alone_as_the_ledger_refuses_it(
    engine: Engine, keyed_by: str
) -> None:
    """The group does not read the bets a table's events place (their ids are
    drawn at random, so new), nor, when the key is the bet's own
    (``bet:<table>:<bet id>``, as the server's), their keys: were one ever
    taken, a primary key refuses the write, and that bet alone is refused with
    the ledger's own error; the other bets of its group are made."""
    ledger = Ledger(engine)
    p = f"D{uuid.uuid4().hex[:8]}-"
    _fund(ledger, p)
    journal = Journal(engine)

    def bet(player: str, bet_id: str) -> EventAppend:
        event = BetPlaced(bet_id, f"{p}{player}", 1, "banker", Decimal(10))
        wallet = f"player:{p}{player}"
        key = f"{p}bet-{player}-{bet_id}" if keyed_by == "request" else f"bet:{p}t:{bet_id}"
        posting = PlaceBet(wallet, f"{p}t", bet_id, "r1", 1_000, key=key)
        return EventAppend(f"{p}t", "r1", event, [posting])

    try:
        journal.append(bet("ann", "b1"))
        again, other = journal.submit(bet("bob", "b1")), journal.submit(bet("bob", "b2"))
        with pytest.raises(BetStateError, match=r"'b1' at table .* was already placed"):
            again.result(timeout=30)
        assert other.result(timeout=30)[1][0].player_balance == 4_000
    finally:
        journal.close()
    assert ledger.balance(f"player:{p}ann") == 4_000
    assert ledger.balance(f"player:{p}bob") == 4_000
    assert ledger.trial_balance() == 0


def test_a_bets_request_key_taken_already_refuses_that_bet_alone(engine: Engine) -> None:
    """A group does not read its requests' keys first (each is new, but for a
    retry the table's answers missed): a key taken makes the database refuse
    the write, and the journal writes the group again reading them -- that bet
    alone is refused (``RequestKeyTakenError``, which the table answers from
    the stored request), the others of its group are made."""
    from argon2 import PasswordHasher

    from punto.server.tables.journal import RequestKeyTakenError
    from punto.store.accounts import Accounts, UserRole

    ledger = Ledger(engine)
    p = f"K{uuid.uuid4().hex[:8]}-"
    _fund(ledger, p)
    accounts = Accounts(engine, hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    account = accounts.create_user(f"{p}ann", "a long enough password", UserRole.PLAYER)
    journal = Journal(engine)

    def bet(player: str, bet_id: str, key: str) -> EventAppend:
        event = BetPlaced(bet_id, f"{p}{player}", 1, "banker", Decimal(10))
        posting = PlaceBet(
            f"player:{p}{player}", f"{p}t", bet_id, "r1", 1_000, f"bet:{p}t:{bet_id}"
        )
        request = {
            "key": key,
            "account_id": account.id,
            "request_hash": "h",
            "table_id": f"{p}t",
            "round_id": "r1",
            "bet_id": bet_id,
        }
        return EventAppend(f"{p}t", "r1", event, [posting], request)

    try:
        journal.append(bet("ann", "b1", f"{p}key-1"))
        # submitted together, so that they are written in one group (or not: either way)
        futures = [journal.submit(bet("ann", "b2", f"{p}key-1"))]
        futures += [journal.submit(bet("bob", f"b{n}", f"{p}key-{n}")) for n in range(3, 6)]
        with pytest.raises(RequestKeyTakenError, match="in use by another request"):
            futures[0].result(timeout=30)
        made = [f.result(timeout=30) for f in futures[1:]]
    finally:
        journal.close()
    assert [posted[0].player_balance for _seq, posted in made] == [4_000, 3_000, 2_000]
    assert ledger.balance(f"player:{p}ann") == 4_000  # b1 only
    assert ledger.posting(f"bet:{p}t:b2") is None
    events = read_stream(engine, TABLE_STREAM, f"{p}t")
    assert sorted(e.event.bet_id for e in events) == ["b1", "b3", "b4", "b5"]  # type: ignore[attr-defined]
    assert ledger.trial_balance() == 0
    assert ledger.audit().ok


# -- what a key stands for, and a pool never opened ----------------------------------------------


#: The content each request's key stands for, as the ledger stores its hash
#: (ledger_transactions.request_hash): a request retried with its key after
#: an upgrade must hash as it did, or it is refused as a conflict.
CONTENTS: list[tuple[postings.Request, dict[str, Any]]] = [
    (postings.Deposit("player:ann", 500, "k", memo="cage 2"),
     {"op": "deposit", "wallet": "player:ann", "amount": 500, "memo": "cage 2"}),
    (postings.Withdrawal("player:ann", 500, "k", memo="cage 2"),
     {"op": "withdraw", "wallet": "player:ann", "amount": 500, "memo": "cage 2"}),
    (PlaceBet("player:ann", "t1", "b2", "r1", 1_500, "k"),
     {"op": "place_bet", "wallet": "player:ann", "table": "t1", "amount": 1_500, "bet": "b2",
      "round": "r1"}),
    (SettleBet("t1", "b1", 3_900, "k"),
     {"op": "settle_bet", "table": "t1", "bet": "b1", "payout": 3_900}),
    (ReturnBet("t1", "b1", "k", 500),
     {"op": "return_bet", "table": "t1", "bet": "b1", "amount": 500}),
    (postings.Resettle("t1", "b1", -1_900, "k"),
     {"op": "resettle", "table": "t1", "bet": "b1", "delta": -1_900}),
    (postings.EntryFee("player:ann", "cup", 1_000, "k", memo="seat 3"),
     {"op": "pay_entry_fee", "wallet": "player:ann", "tournament": "cup", "amount": 1_000,
      "memo": "seat 3"}),
    (postings.Refund("player:ann", "cup", 1_000, "k"),
     {"op": "refund_entry_fee", "wallet": "player:ann", "tournament": "cup", "amount": 1_000,
      "memo": None}),
    (postings.Prize("player:ann", "cup", 5_000, "k"),
     {"op": "pay_prize", "wallet": "player:ann", "tournament": "cup", "amount": 5_000,
      "memo": None}),
    (postings.PoolSurplus("cup", 3_000, "k"),
     {"op": "close_pool", "tournament": "cup", "amount": 3_000}),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "content"), CONTENTS)
def test_a_key_stands_for_the_content_the_ledger_stored_its_hash_of(
    request_: postings.Request, content: dict[str, Any]
) -> None:
    from punto.store.ledger_types import request_hash

    # a request of its own: the hash is cached on the request once computed
    assert dataclasses.replace(request_).request_hash == request_hash(content)


def test_a_pool_never_opened_holds_nothing() -> None:
    """A tournament nobody paid an entry fee to: its prize is the house's
    whole, no refund comes out of it, and it closes with nothing in it."""
    wallets = {w.code: w for w in (ANN, HOUSE)}
    prize = postings.plan(postings.Prize("player:ann", "new", 700, "k"), wallets)
    assert {e.wallet: e.amount for e in prize.entries} == {"house": -700, "player:ann": 700}
    with pytest.raises(LedgerError, match=r"the pool of tournament 'new' holds 0\.00"):
        postings.plan(postings.Refund("player:ann", "new", 1, "k"), wallets)
    with pytest.raises(LedgerError, match="changed while it was being closed"):
        postings.plan(postings.PoolSurplus("new", 1, "k"), wallets)


#: Each refusal as the cage or the dealer reads it: what was wrong and what
#: to do instead.
REFUSED_WHOLE: list[tuple[postings.Request, BetState | None, str]] = [
    (PlaceBet("player:zed", "t1", "b2", "r1", 1, "k"), None,
     "wallet player:zed has 0.00, not the 0.01 asked for; deposit more or stake less"),
    (PlaceBet("player:ann", "t1", "b1", "r1", 100, "k"), OPEN,
     "bet 'b1' at table 't1' was already placed; give each bet at a table its own bet id"),
    (PlaceBet("house", "t1", "b2", "r1", 100, "k"), None,
     "wallet 'house' is not a player wallet; deposits, withdrawals and bets move a player's "
     "money"),
    (SettleBet("t1", "b9", 100, "k"), None,
     "there is no bet 'b9' at table 't1'; settle or return only a bet the ledger placed"),
    (SettleBet("t1", "b1", 100, "k"), SETTLED,
     "bet 'b1' at table 't1' is already settled; a bet is settled or returned once"),
    (ReturnBet("t1", "b1", "k", 2_001), OPEN,
     "cannot return 20.01 of bet 'b1': it holds 20.00; return at most what the bet still holds"),
    (postings.Refund("player:ann", "cup", 3_001, "k"), None,
     "the pool of tournament 'cup' holds 30.00, not the 30.01 to refund; a refund gives back "
     "only fees the pool took"),
    (postings.PoolSurplus("cup", 2_999, "k"), None,
     "the pool of tournament 'cup' changed while it was being closed; close it again"),
    (postings.Resettle("t1", "b9", 10, "k"), None,
     "there is no bet 'b9' at table 't1'; resettle only a bet the ledger placed"),
    (postings.Resettle("t1", "b1", 0, "k"), OPEN,
     "bet 'b1' at table 't1' is still open; settle or return it; only a closed bet is "
     "resettled"),
    (postings.Deposit("player:ann", 500, ""), None,
     "idempotency key '' is not usable; give 1 to 200 characters"),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "bet", "refusal"), REFUSED_WHOLE)
def test_every_refusal_says_what_to_do_instead(
    request_: postings.Request, bet: BetState | None, refusal: str
) -> None:
    with pytest.raises(PuntoError) as refused:
        postings.plan(request_, WALLETS, bet)
    assert str(refused.value) == refusal


#: The wallets the ledger loads and locks before it plans a request: a wallet
#: left out would be planned as if it held nothing.
NEEDED: list[tuple[postings.Request, BetState | None, tuple[str, ...]]] = [
    (postings.Deposit("player:ann", 500, "k"), None, ("player:ann", "house")),
    (PlaceBet("player:ann", "t1", "b2", "r1", 1_500, "k"), None, ("player:ann", "holding:t1")),
    (SettleBet("t1", "b1", 3_900, "k"), OPEN, ("holding:t1", "house", "player:ann")),
    (ReturnBet("t1", "b1", "k", 500), OPEN, ("holding:t1", "player:ann")),
    (postings.EntryFee("player:ann", "cup", 1_000, "k"), None, ("player:ann", "tournament:cup")),
    (postings.Prize("player:ann", "cup", 5_000, "k"), None,
     ("player:ann", "tournament:cup", "house")),
    (postings.PoolSurplus("cup", 3_000, "k"), None, ("tournament:cup", "house")),
    (postings.Resettle("t1", "b1", -1_900, "k"), SETTLED, ("house", "player:ann")),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "bet", "codes"), NEEDED)
def test_the_wallets_a_request_needs_are_the_ones_it_posts_to(
    request_: postings.Request, bet: BetState | None, codes: tuple[str, ...]
) -> None:
    assert postings.wallets_needed(request_, bet) == codes
    made = postings.plan(request_, {c: WALLETS.get(c) or postings.unopened(c) for c in codes}, bet)
    assert {e.wallet for e in made.entries} <= set(codes)


def test_a_key_used_for_another_request_is_refused_saying_what_to_do() -> None:
    bet = PlaceBet("player:ann", "t1", "b2", "r1", 100, "k")
    other = PlaceBet("player:ann", "t1", "b2", "r1", 101, "k")
    with pytest.raises(IdempotencyConflictError) as refused:
        postings.check_key(other, bet.request_hash)
    assert str(refused.value) == (
        "idempotency key 'k' was already used for a different request; use a new key for a "
        "new posting; repeat a key only to retry the same one"
    )


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("house", WalletKind.HOUSE),
        ("holding:t1", WalletKind.HOLDING),
        ("tournament:cup", WalletKind.TOURNAMENT),
        ("player:ann", WalletKind.PLAYER),
    ],
)
def test_a_wallet_not_opened_yet_holds_nothing_and_has_its_kind(
    code: str, kind: WalletKind
) -> None:
    """The kind decides what a wallet may do: the house alone goes below zero."""
    assert postings.unopened(code) == WalletState(code, kind, 0)
