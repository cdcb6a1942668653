"""The database layer, the double-entry ledger and the SQL event log, on SQLite
files and PostgreSQL (see tests/db_fixtures.py for how PostgreSQL is found)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any, TypeVar

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, inspect, select
from sqlalchemy.engine import Engine

from punto.errors import PuntoError
from punto.eventlog import EventLog
from punto.rules.cards import Card
from punto.store import db
from punto.store.errors import StoreError
from punto.store.ledger import (
    BetStateError,
    BetStatus,
    IdempotencyConflictError,
    InsufficientFundsError,
    Ledger,
    LedgerError,
    Posting,
    PostingKind,
    UnknownWalletError,
    Wallet,
    WalletKind,
)
from punto.store.sql_log import SQLEventLog
from punto.table.events import (
    TABLE_STREAM,
    BetPlaced,
    BetsClosed,
    CardDealt,
    Event,
    RoundOpened,
    RoundVoided,
    event_to_json,
)
from punto.table.roles import Role

T = TypeVar("T")


def race(n: int, work: Callable[[int], T]) -> list[T | BaseException]:
    """Run ``work(i)`` for i in range(n) in n threads released at the same instant."""
    barrier = threading.Barrier(n)
    results: list[T | BaseException] = [RuntimeError("did not run")] * n

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as error:
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def race_all(calls: Sequence[Callable[[], T]]) -> list[T | BaseException]:
    """Make every call at the same instant, each in its own thread."""
    return race(len(calls), lambda i: calls[i]())


def engines(db_url: str, n: int) -> list[Engine]:
    """``n`` engines on one migrated database, each with its own connections, as
    separate processes would have."""
    return [db.connect(db_url, migrate=i == 0) for i in range(n)]


# --- the schema ----------------------------------------------------------------------


def test_schema_is_at_head_and_matches_the_tables(engine: Engine) -> None:
    assert db.current_revision(engine) == db.head_revision() == "0020"
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, db.metadata) == []
    names = set(inspect(engine).get_table_names())
    assert {
        "accounts",
        "sessions",
        "login_attempts",
        "wallets",
        "ledger_transactions",
        "ledger_entries",
        "ledger_bets",
        "table_events",
    } <= names
    assert "idempotency_keys" not in names  # one idempotency store (revision 0017)


def test_the_scripts_names_give_alembics_one_chain() -> None:
    # db.upgrade trusts the names (rNNNN_...) to say which revision is newest.
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(db.alembic_config())
    assert scripts.get_heads() == [db.newest_script()] == [db.head_revision()]
    chain = [s.revision[:4] for s in scripts.walk_revisions()][::-1]  # 0009_face_down, ...
    assert chain == [f"{n:04d}" for n in range(1, len(chain) + 1)]
    named = sorted(p.name for p in (db.MIGRATIONS / "versions").glob("r*.py"))
    assert [n[1:5] for n in named] == chain


def test_opening_a_current_schema_does_not_load_alembic(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    db.migrate(url)
    code = (
        "import sys\n"
        "from punto.store import db\n"
        f"db.connect({url!r}).dispose()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'mako')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_migrations_go_down_and_up_again(engine: Engine) -> None:
    with db.write_transaction(engine) as conn:
        command.downgrade(db.alembic_config(conn), "base")
    assert "wallets" not in inspect(engine).get_table_names()
    db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    assert "wallets" in inspect(engine).get_table_names()


def test_concurrent_migrations_of_a_new_database_do_not_collide(db_url: str) -> None:
    results = race(4, lambda _: db.migrate(db_url))
    assert [r for r in results if r is not None] == []
    check = db.connect(db_url, migrate=False)
    try:
        assert db.current_revision(check) == db.head_revision()
    finally:
        check.dispose()


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path: Any) -> None:
    engine = db.connect(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == db.SQLITE_BUSY_TIMEOUT_MS
    finally:
        engine.dispose()


def test_urls_other_than_sqlite_and_psycopg_are_refused() -> None:
    assert db.normalize_url("postgresql://u@h/d").drivername == "postgresql+psycopg"
    assert db.normalize_url("postgres://u@h/d").drivername == "postgresql+psycopg"
    with pytest.raises(db.DatabaseError, match="unsupported database URL"):
        db.normalize_url("mysql://u@h/d")
    with pytest.raises(db.DatabaseError, match="psycopg"):
        db.normalize_url("postgresql+psycopg2://u@h/d")


def test_times_must_be_timezone_aware(engine: Engine) -> None:
    with pytest.raises(Exception, match="naive datetime"), db.write_transaction(engine) as conn:
        conn.execute(
            db.ledger_transactions.insert().values(
                idempotency_key="k",
                request_hash="h",
                kind="deposit",
                created_at=datetime(2026, 1, 1),
            )
        )


# --- the SQL event log ---------------------------------------------------------------


def test_sql_event_log_round_trips_table_events(engine: Engine) -> None:
    log: EventLog[Event] = SQLEventLog(engine, TABLE_STREAM)
    events = [
        RoundOpened("r1"),
        BetPlaced("b1", "ann", 3, "banker", Decimal("100.50")),
        BetPlaced("b2", "bob", 1, "tiger", Decimal("10"), seated=False, role=Role.DEALER),
        BetsClosed(),
        CardDealt(Card.parse("QH")),
        CardDealt(Card.parse("9C"), source="reader"),
        RoundVoided("card exposed", "5.1"),
    ]
    assert [log.append("t1", e, round_id="r1") for e in events] == list(range(1, len(events) + 1))
    assert log.append("t2", RoundOpened("r9"), round_id="r9") == 1  # sequences are per table
    stored = log.read("t1")
    assert [s.event for s in stored] == events
    assert [s.seq for s in stored] == list(range(1, len(events) + 1))
    assert {s.round_id for s in stored} == {"r1"}
    assert [s.event for s in log.read("t2")] == [RoundOpened("r9")]
    assert log.read("nowhere") == []
    with engine.connect() as conn:
        row = (
            conn.execute(select(db.table_events).where(db.table_events.c.seq == 2)).mappings().one()
        )
    assert row["type"] == "bet_placed"
    assert '"stake":"100.50"' in row["body"]
    assert row["recorded_at"].tzinfo is not None


def test_concurrent_appenders_never_share_a_sequence_number(db_url: str) -> None:
    writers, per_writer = 4, 15
    pool = engines(db_url, writers)
    try:
        logs = [SQLEventLog(e, TABLE_STREAM) for e in pool]  # one per "process": no shared lock

        def append_many(i: int) -> list[int]:
            return [
                logs[i].append(
                    "t1", BetPlaced(f"b{i}-{n}", f"p{i}", i, "banker", Decimal(n)), round_id="r1"
                )
                for n in range(per_writer)
            ]

        results = race(writers, append_many)
        seqs: list[int] = []
        for result in results:
            assert isinstance(result, list), result
            assert result == sorted(result)  # each writer's appends are in order
            seqs += result
        assert sorted(seqs) == list(range(1, writers * per_writer + 1))
        stored = logs[0].read("t1")
        assert [s.seq for s in stored] == list(range(1, writers * per_writer + 1))
        assert len({s.event for s in stored}) == writers * per_writer
    finally:
        for e in pool:
            e.dispose()


#: The table the stdlib event log (``SQLiteEventLog``, raw SQL, before the one
#: event log) made in a SQLite file of ``punto table --database``.
_STDLIB_TABLE_EVENTS = """
CREATE TABLE table_events (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, round_id TEXT NOT NULL,
    type TEXT NOT NULL, body TEXT NOT NULL,
    recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (table_id, seq)
)
"""


def test_a_sqlite_event_log_file_is_adopted_with_its_events(tmp_path: Any) -> None:
    path = tmp_path / "table.db"
    old = sqlite3.connect(path)
    old.execute(_STDLIB_TABLE_EVENTS)
    for seq, event in enumerate(
        [RoundOpened("r1"), BetPlaced("b1", "ann", 3, "banker", Decimal("25"))], 1
    ):
        old.execute(
            "INSERT INTO table_events (table_id, seq, round_id, type, body) VALUES (?, ?, ?, ?, ?)",
            ("t1", seq, "r1", event.type, json.dumps(event_to_json(event), sort_keys=True)),
        )
    old.commit()
    old.close()
    engine = db.connect(f"sqlite:///{path}")
    try:
        log = SQLEventLog(engine, TABLE_STREAM)
        assert [s.event for s in log.read("t1")] == [
            RoundOpened("r1"),
            BetPlaced("b1", "ann", 3, "banker", Decimal("25")),
        ]
        assert log.append("t1", BetsClosed(), round_id="r1") == 3
        with engine.connect() as conn:
            recorded = conn.execute(select(db.table_events.c.recorded_at)).scalars().all()
        assert all(r.tzinfo is not None for r in recorded)
        assert db.current_revision(engine) == db.head_revision()
    finally:
        engine.dispose()


def test_sql_event_log_errors_are_store_errors(tmp_path: Any) -> None:
    engine = db.connect(f"sqlite:///{tmp_path / 'bare.db'}", migrate=False)  # no tables
    try:
        log = SQLEventLog(engine, TABLE_STREAM, attempts=1)
        with pytest.raises(StoreError, match="cannot append"):
            log.append("t1", RoundOpened("r1"), round_id="r1")
        with pytest.raises(StoreError, match="cannot read"):
            log.read("t1")
    finally:
        engine.dispose()


# --- the ledger ----------------------------------------------------------------------


@pytest.fixture
def ledger(engine: Engine) -> Ledger:
    return Ledger(engine)


def funded(ledger: Ledger, player: str, amount: int) -> Wallet:
    wallet = ledger.player_wallet(player)
    ledger.deposit(wallet, amount, key=f"deposit-{player}-{uuid.uuid4().hex}")
    return wallet


def test_wallets_are_opened_once_and_named_by_code(ledger: Ledger) -> None:
    ann = ledger.player_wallet("ann")
    assert ann == ledger.player_wallet("ann")
    assert ann.code == "player:ann"
    assert ann.kind is WalletKind.PLAYER
    assert ann.owner == "ann"
    assert ledger.house().kind is WalletKind.HOUSE
    holding = ledger.holding("t1")
    assert (holding.code, holding.kind, holding.table_id) == (
        "holding:t1",
        WalletKind.HOLDING,
        "t1",
    )
    assert ledger.wallet("player:ann") == ann
    assert ledger.balance(ann) == 0
    with pytest.raises(UnknownWalletError, match="there is no wallet 'player:zed'"):
        ledger.wallet("player:zed")
    with pytest.raises(UnknownWalletError):
        ledger.balance("player:zed")


def test_a_player_wallet_may_belong_to_an_account(ledger: Ledger, engine: Engine) -> None:
    with db.write_transaction(engine) as conn:
        account_id = conn.execute(
            db.accounts.insert()
            .values(
                username="ann",
                role="player",
                password_hash="-",
                created_at=db.utc_now(),
                password_changed_at=db.utc_now(),
            )
            .returning(db.accounts.c.id)
        ).scalar_one()
    ann = ledger.player_wallet("ann", account_id=account_id)
    assert ann.account_id == account_id
    assert ledger.player_wallet("ann").account_id == account_id
    with pytest.raises(LedgerError, match="belongs to account"):
        ledger.player_wallet("ann", account_id=account_id + 1)
    with pytest.raises(LedgerError, match="there is no account 9999"):
        ledger.player_wallet("bob", account_id=9999)


def test_deposit_and_withdrawal_move_money_between_house_and_player(ledger: Ledger) -> None:
    ann = ledger.player_wallet("ann")
    posting = ledger.deposit(ann, 10_000, key="d1", memo="cage")
    assert posting.kind is PostingKind.DEPOSIT
    assert not posting.replayed
    assert sum(e.amount for e in posting.entries) == 0
    assert posting.amount_for(ann) == 10_000
    assert posting.amount_for("house") == -10_000
    ledger.withdraw(ann, 2_500, key="w1")
    assert ledger.balance(ann) == 7_500
    assert ledger.balance(ledger.house()) == -7_500
    assert ledger.trial_balance() == 0
    with pytest.raises(InsufficientFundsError, match=r"has 75\.00, not the 75\.01"):
        ledger.withdraw(ann, 7_501, key="w2")
    assert ledger.balance(ann) == 7_500
    assert [p.kind for p in ledger.history(ann)] == [PostingKind.DEPOSIT, PostingKind.WITHDRAWAL]


def test_a_winning_banker_bet_pays_stake_plus_winnings_less_commission(ledger: Ledger) -> None:
    ann = funded(ledger, "ann", 10_000)
    house_before = ledger.balance(ledger.house())
    placed = ledger.place_bet(ann, "t1", 2_000, key="t1-r1-b1", bet_id="b1", round_id="r1")
    assert placed.kind is PostingKind.BET
    assert placed.bet_id == "b1"
    assert placed.round_id == "r1"
    assert ledger.balance(ann) == 8_000
    assert ledger.balance(ledger.holding("t1")) == 2_000
    settled = ledger.settle_bet("t1", "b1", payout=3_900, key="t1-r1-b1-settle")  # 0.95:1
    assert {(e.wallet, e.amount) for e in settled.entries} == {
        ("holding:t1", -2_000),
        ("player:ann", 3_900),
        ("house", -1_900),
    }
    assert settled.round_id == "r1"
    assert ledger.balance(ann) == 11_900
    assert ledger.balance(ledger.holding("t1")) == 0
    assert ledger.balance(ledger.house()) == house_before - 1_900
    assert ledger.bet("t1", "b1").status is BetStatus.SETTLED
    assert ledger.audit().ok


def test_a_lost_bet_goes_to_the_house_and_a_push_touches_only_player_and_holding(
    ledger: Ledger,
) -> None:
    ann = funded(ledger, "ann", 1_000)
    ledger.place_bet(ann, "t1", 300, key="lose")
    ledger.place_bet(ann, "t1", 200, key="push")
    lost = ledger.settle_bet("t1", "lose", payout=0, key="lose-settle")
    assert {(e.wallet, e.amount) for e in lost.entries} == {("holding:t1", -300), ("house", 300)}
    push = ledger.settle_bet("t1", "push", payout=200, key="push-settle")
    assert {(e.wallet, e.amount) for e in push.entries} == {
        ("holding:t1", -200),
        ("player:ann", 200),
    }
    assert ledger.balance(ann) == 700
    assert ledger.totals() == {
        WalletKind.PLAYER: 700,
        WalletKind.HOUSE: -700,
        WalletKind.HOLDING: 0,
    }


def test_returned_bets_give_the_stake_back_in_part_or_whole(ledger: Ledger) -> None:
    ann = funded(ledger, "ann", 1_000)
    ledger.place_bet(ann, "t1", 500, key="b1")
    ledger.return_bet("t1", "b1", key="b1-reduce", amount=200)  # reduced for the differential
    assert ledger.bet("t1", "b1").held == 300
    assert ledger.bet("t1", "b1").status is BetStatus.OPEN
    with pytest.raises(LedgerError, match=r"cannot return 3\.01 of bet 'b1': it holds 3\.00"):
        ledger.return_bet("t1", "b1", key="b1-too-much", amount=301)
    ledger.return_bet("t1", "b1", key="b1-void")
    assert ledger.bet("t1", "b1").status is BetStatus.RETURNED
    assert ledger.balance(ann) == 1_000
    assert ledger.balance(ledger.holding("t1")) == 0
    with pytest.raises(BetStateError, match="already returned"):
        ledger.settle_bet("t1", "b1", payout=0, key="b1-settle")
    assert ledger.audit().ok


def test_mbs_5_2_a_voided_settled_round_is_resettled_to_nothing(ledger: Ledger) -> None:
    """A round voided after settlement (MBS 5.2; RWS 5.5.3) returns every
    stake: the winner's winnings less commission go back to the house, the
    loser's stake back to the loser; a reduced bet's earlier return counts."""
    ann, bob = funded(ledger, "ann", 10_000), funded(ledger, "bob", 10_000)
    ledger.place_bet(ann, "t1", 2_000, key="win")
    ledger.place_bet(bob, "t1", 1_000, key="lose")
    ledger.place_bet(bob, "t1", 500, key="reduced")
    ledger.return_bet("t1", "reduced", key="reduced-r", amount=200)
    ledger.settle_bet("t1", "win", payout=3_900, key="win-s")
    ledger.settle_bet("t1", "lose", payout=0, key="lose-s")
    ledger.settle_bet("t1", "reduced", payout=600, key="reduced-s")
    assert [ledger.bet_net("t1", b) for b in ("win", "lose", "reduced")] == [1_900, -1_000, 300]
    postings = ledger.resettle(
        "t1", {"win": 0, "lose": 0, "reduced": 0}, memo="round r1 void (5.2)"
    )
    assert [(p.bet_id, p.kind, p.amount_for(ann) + p.amount_for(bob)) for p in postings] == [
        ("lose", PostingKind.RESETTLEMENT, 1_000),
        ("reduced", PostingKind.RESETTLEMENT, -300),
        ("win", PostingKind.RESETTLEMENT, -1_900),
    ]
    assert all(p.amount_for("house") == -(p.amount_for(ann) + p.amount_for(bob)) for p in postings)
    assert all(p.memo == "round r1 void (5.2)" for p in postings)
    assert {e.wallet for p in postings for e in p.entries} == {"house", "player:ann", "player:bob"}
    assert ledger.balance(ann) == ledger.balance(bob) == 10_000
    assert ledger.resettle("t1", {"win": 0, "lose": 0, "reduced": 0}) == []  # a retry
    # Put back as settled (a start-up finding the round still settled): keys stay unique.
    back = ledger.resettle("t1", {"win": 1_900, "lose": -1_000, "reduced": 300})
    assert [p.key for p in back] == [
        "resettle:t1:lose:2",
        "resettle:t1:reduced:2",
        "resettle:t1:win:2",
    ]
    assert ledger.balance(ann) == 11_900
    assert ledger.audit().ok


def test_a_resettlement_is_all_or_nothing(ledger: Ledger) -> None:
    """A winner who has staked the winnings elsewhere refuses the whole
    resettlement (no wallet below zero); an open bet is not resettled."""
    ann, bob = funded(ledger, "ann", 1_000), funded(ledger, "bob", 1_000)
    ledger.place_bet(ann, "t1", 1_000, key="win")
    ledger.place_bet(bob, "t1", 1_000, key="lose")
    ledger.settle_bet("t1", "win", payout=2_000, key="win-s")
    ledger.settle_bet("t1", "lose", payout=0, key="lose-s")
    ledger.place_bet(ann, "t2", 1_500, key="elsewhere")
    with pytest.raises(InsufficientFundsError, match=r"player:ann has 5\.00, not the 10\.00"):
        ledger.resettle("t1", {"lose": 0, "win": 0})
    assert ledger.balance(bob) == 0  # the loser's refund was not written either
    assert ledger.bet_net("t1", "lose") == -1_000
    with pytest.raises(BetStateError, match="'elsewhere' at table 't2' is still open"):
        ledger.resettle("t2", {"elsewhere": 0})
    with pytest.raises(BetStateError, match="there is no bet 'nope'"):
        ledger.resettle("t1", {"nope": 0})
    ledger.return_bet("t2", "elsewhere", key="elsewhere-r")
    assert len(ledger.resettle("t1", {"lose": 0, "win": 0})) == 2
    assert ledger.balance(ann) == ledger.balance(bob) == 1_000
    assert ledger.audit().ok


def test_an_entry_fee_refunded_comes_from_the_pool_and_never_beyond_it(ledger: Ledger) -> None:
    ann = funded(ledger, "ann", 1_000)
    ledger.pay_entry_fee(ann, "cup", 200, key="fee")
    refund = ledger.refund_entry_fee("cup", ann, 200, key="refund", memo="cup cancelled")
    assert refund.kind is PostingKind.REFUND
    assert {(e.wallet, e.amount) for e in refund.entries} == {
        ("tournament:cup", -200),
        ("player:ann", 200),
    }
    assert ledger.refund_entry_fee("cup", ann, 200, key="refund", memo="cup cancelled").replayed
    with pytest.raises(LedgerError, match=r"holds 0\.00, not the 2\.00 to refund"):
        ledger.refund_entry_fee("cup", ann, 200, key="refund-2")
    assert ledger.balance(ann) == 1_000
    assert ledger.audit().ok


def test_bets_are_placed_and_closed_once(ledger: Ledger) -> None:
    ann = funded(ledger, "ann", 1_000)
    ledger.place_bet(ann, "t1", 100, key="k1", bet_id="b1")
    with pytest.raises(BetStateError, match="already placed"):
        ledger.place_bet(ann, "t1", 100, key="k2", bet_id="b1")
    ledger.place_bet(ann, "t2", 100, key="k3", bet_id="b1")  # bet ids are per table
    ledger.settle_bet("t1", "b1", payout=0, key="s1")
    with pytest.raises(BetStateError, match="already settled"):
        ledger.settle_bet("t1", "b1", payout=0, key="s2")
    with pytest.raises(BetStateError, match="there is no bet 'b9'"):
        ledger.settle_bet("t1", "b9", payout=0, key="s3")
    assert ledger.balance(ann) == 800


def test_postings_refuse_amounts_that_are_not_positive_whole_minor_units(ledger: Ledger) -> None:
    ann = funded(ledger, "ann", 1_000)
    bad: list[Any] = [0, -5, 1.5, Decimal("10"), True, "10", 2**63]
    for amount in bad:
        with pytest.raises(LedgerError):
            ledger.deposit(ann, amount, key=f"bad-{amount!r}")
        with pytest.raises(LedgerError):
            ledger.place_bet(ann, "t1", amount, key=f"bad-bet-{amount!r}")
    with pytest.raises(LedgerError, match="not a player wallet"):
        ledger.deposit(ledger.house(), 100, key="to-house")
    with pytest.raises(LedgerError, match="idempotency key"):
        ledger.deposit(ann, 100, key="")
    stranger = Wallet(id=999, code="player:stranger", kind=WalletKind.PLAYER)
    with pytest.raises(UnknownWalletError):
        ledger.deposit(stranger, 100, key="stranger")
    assert ledger.balance(ann) == 1_000
    assert ledger.audit().ok


def test_ledger_errors_are_punto_errors_that_say_what_to_do(ledger: Ledger) -> None:
    ann = ledger.player_wallet("ann")
    with pytest.raises(PuntoError) as caught:
        ledger.place_bet(ann, "t1", 100, key="k")
    assert isinstance(caught.value, InsufficientFundsError)
    assert caught.value.hint == "deposit more or stake less"


# --- idempotency ---------------------------------------------------------------------


def test_a_repeated_key_returns_the_first_posting_and_moves_nothing(ledger: Ledger) -> None:
    ann = ledger.player_wallet("ann")
    first = ledger.deposit(ann, 1_000, key="cage-7")
    again = ledger.deposit(ann, 1_000, key="cage-7")
    assert again == first
    assert again.replayed
    assert not first.replayed
    assert ledger.balance(ann) == 1_000
    bet = ledger.place_bet(ann, "t1", 400, key="bet-1")
    assert ledger.place_bet(ann, "t1", 400, key="bet-1") == bet
    settle = ledger.settle_bet("t1", "bet-1", payout=800, key="settle-1")
    assert (
        ledger.settle_bet("t1", "bet-1", payout=800, key="settle-1") == settle
    )  # not "already settled"
    assert ledger.balance(ann) == 1_400
    assert ledger.posting("settle-1") == settle
    assert ledger.posting("never") is None
    assert ledger.audit().transactions == 3


def test_a_repeated_key_with_other_content_is_a_conflict(ledger: Ledger) -> None:
    ann = ledger.player_wallet("ann")
    bob = ledger.player_wallet("bob")
    ledger.deposit(ann, 1_000, key="k")
    attempts: list[Callable[[], Posting]] = [
        partial(ledger.deposit, ann, 999, key="k"),
        partial(ledger.deposit, bob, 1_000, key="k"),
        partial(ledger.withdraw, ann, 1_000, key="k"),
        partial(ledger.place_bet, ann, "t1", 1_000, key="k"),
    ]
    for attempt in attempts:
        with pytest.raises(IdempotencyConflictError, match="'k' was already used"):
            attempt()
    assert ledger.balance(ann) == 1_000
    assert ledger.balance(bob) == 0


def test_a_posting_key_from_before_0017_still_answers_its_retry(engine: Engine) -> None:
    # Postings made, the schema taken back to 0016 (the keys in a table of
    # their own again) and forward: the hash each transaction carries now is
    # the one its key had, so a retry is a replay and another request a conflict.
    ledger = Ledger(engine)
    ann = ledger.player_wallet("ann")
    first = ledger.deposit(ann, 1_000, key="cage-1")
    ledger.place_bet(ann, "t1", 400, key="bet-1")
    with db.write_transaction(engine) as conn:
        command.downgrade(db.alembic_config(conn), "0016")
    with engine.connect() as conn:
        keys = conn.exec_driver_sql("SELECT key, scope FROM idempotency_keys ORDER BY key").all()
    assert [tuple(k) for k in keys] == [("bet-1", "ledger"), ("cage-1", "ledger")]
    db.upgrade(engine)
    assert "idempotency_keys" not in inspect(engine).get_table_names()
    again = Ledger(engine)
    assert again.deposit(ann, 1_000, key="cage-1") == dataclasses.replace(first, replayed=True)
    assert again.place_bet(ann, "t1", 400, key="bet-1").replayed
    with pytest.raises(IdempotencyConflictError, match="'bet-1' was already used"):
        again.place_bet(ann, "t1", 300, key="bet-1")
    assert again.balance(ann) == 600
    assert again.audit().transactions == 2


def test_a_refused_posting_records_nothing_so_its_key_can_be_retried(ledger: Ledger) -> None:
    ann = ledger.player_wallet("ann")
    with pytest.raises(InsufficientFundsError):
        ledger.place_bet(ann, "t1", 500, key="bet")
    assert ledger.posting("bet") is None
    ledger.deposit(ann, 500, key="topup")
    assert ledger.place_bet(ann, "t1", 500, key="bet").replayed is False
    assert ledger.balance(ann) == 0


# --- races ---------------------------------------------------------------------------


def test_racing_bets_for_the_last_chips_never_both_succeed(db_url: str) -> None:
    pool = engines(db_url, 6)
    try:
        ledgers = [Ledger(e) for e in pool]
        ann = funded(ledgers[0], "ann", 100)
        results = race(6, lambda i: ledgers[i].place_bet(ann, "t1", 100, key=f"last-{i}"))
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(won) == 1
        assert all(isinstance(r, InsufficientFundsError) for r in lost), lost
        assert ledgers[0].balance(ann) == 0
        assert ledgers[0].balance(ledgers[0].holding("t1")) == 100
        assert ledgers[0].audit().ok
    finally:
        for e in pool:
            e.dispose()


def test_many_small_racing_bets_stop_exactly_at_zero(db_url: str) -> None:
    pool = engines(db_url, 4)
    try:
        ledgers = [Ledger(e) for e in pool]
        ann = funded(ledgers[0], "ann", 100)

        def spend(i: int) -> int:
            ok = 0
            for n in range(6):
                try:
                    ledgers[i].place_bet(ann, f"t{n % 2}", 10, key=f"small-{i}-{n}")
                    ok += 1
                except InsufficientFundsError:
                    pass
            return ok

        results = race(4, spend)
        assert all(isinstance(r, int) for r in results), results
        assert sum(r for r in results if isinstance(r, int)) == 10
        assert ledgers[0].balance(ann) == 0
        audit = ledgers[0].audit()
        assert audit.ok, audit.problems
        assert audit.by_kind[WalletKind.HOLDING] == 100
    finally:
        for e in pool:
            e.dispose()


def test_a_withdrawal_racing_a_bet_for_the_same_chips(db_url: str) -> None:
    pool = engines(db_url, 2)
    try:
        ledgers = [Ledger(e) for e in pool]
        for round_no in range(5):
            ann = funded(ledgers[0], f"ann{round_no}", 50)
            racers = [
                partial(ledgers[0].withdraw, ann, 50, key=f"w-{round_no}"),
                partial(ledgers[1].place_bet, ann, "t1", 50, key=f"b-{round_no}"),
            ]
            results = race_all(racers)
            assert sum(not isinstance(r, BaseException) for r in results) == 1, results
            assert ledgers[0].balance(ann) == 0
        assert ledgers[0].audit().ok
    finally:
        for e in pool:
            e.dispose()


def test_racing_repeats_of_one_key_post_once(db_url: str) -> None:
    pool = engines(db_url, 6)
    try:
        ledgers = [Ledger(e) for e in pool]
        ann = ledgers[0].player_wallet("ann")
        results = race(6, lambda i: ledgers[i].deposit(ann, 700, key="same-key"))
        postings = [r for r in results if not isinstance(r, BaseException)]
        assert len(postings) == 6, results
        assert len({p.transaction_id for p in postings}) == 1
        assert sum(not p.replayed for p in postings) == 1
        assert ledgers[0].balance(ann) == 700
    finally:
        for e in pool:
            e.dispose()


def test_racing_settlements_of_one_bet_settle_it_once(db_url: str) -> None:
    pool = engines(db_url, 4)
    try:
        ledgers = [Ledger(e) for e in pool]
        ann = funded(ledgers[0], "ann", 100)
        ledgers[0].place_bet(ann, "t1", 100, key="b1")
        results = race(4, lambda i: ledgers[i].settle_bet("t1", "b1", payout=200, key=f"s{i}"))
        assert sum(not isinstance(r, BaseException) for r in results) == 1
        assert all(isinstance(r, BetStateError) for r in results if isinstance(r, BaseException))
        assert ledgers[0].balance(ann) == 200
        assert ledgers[0].audit().ok
    finally:
        for e in pool:
            e.dispose()


# --- random sequences ----------------------------------------------------------------


@dataclass
class Model:
    """What the balances should be, worked out without a database."""

    balances: dict[str, int] = field(default_factory=dict)
    bets: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)  # open: wallet, held
    house: int = 0


operations = st.lists(
    st.one_of(
        st.tuples(st.just("deposit"), st.integers(0, 2), st.integers(1, 5_000)),
        st.tuples(st.just("withdraw"), st.integers(0, 2), st.integers(1, 5_000)),
        st.tuples(st.just("bet"), st.integers(0, 2), st.integers(0, 1), st.integers(1, 3_000)),
        st.tuples(st.just("settle"), st.integers(0, 30), st.sampled_from([0, 50, 100, 195, 200])),
        st.tuples(st.just("return"), st.integers(0, 30), st.booleans()),
        st.tuples(st.just("repeat"), st.integers(0, 30)),
    ),
    max_size=25,
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=operations)
def test_random_postings_always_balance(ledger: Ledger, ops: list[tuple[Any, ...]]) -> None:
    run = uuid.uuid4().hex[:8]  # one database serves every example: fresh names each time
    players = [ledger.player_wallet(f"{run}-p{i}") for i in range(3)]
    tables = [f"{run}-t{i}" for i in range(2)]
    model = Model(balances={p.code: 0 for p in players}, house=ledger.balance(ledger.house()))
    bets: list[tuple[str, str]] = []
    done: list[tuple[Callable[[], Posting], str]] = []  # postings made, to repeat

    for n, op in enumerate(ops):
        key = f"{run}-{n}"
        call: Callable[[], Posting]
        if op[0] == "deposit":
            _, p, amount = op
            wallet = players[p]
            call = partial(ledger.deposit, wallet, amount, key=key)
            call()
            model.balances[wallet.code] += amount
            model.house -= amount
        elif op[0] == "withdraw":
            _, p, amount = op
            wallet = players[p]
            call = partial(ledger.withdraw, wallet, amount, key=key)
            if model.balances[wallet.code] < amount:
                with pytest.raises(InsufficientFundsError):
                    call()
                continue
            call()
            model.balances[wallet.code] -= amount
            model.house += amount
        elif op[0] == "bet":
            _, p, t, amount = op
            wallet, table = players[p], tables[t]
            call = partial(ledger.place_bet, wallet, table, amount, key=key)
            if model.balances[wallet.code] < amount:
                with pytest.raises(InsufficientFundsError):
                    call()
                continue
            call()
            model.balances[wallet.code] -= amount
            model.bets[(table, key)] = (wallet.code, amount)
            bets.append((table, key))
        elif op[0] in ("settle", "return"):
            if not bets:
                continue
            table, bet_id = bets[op[1] % len(bets)]
            opened = model.bets.get((table, bet_id))
            if op[0] == "settle":
                payout_percent = op[2]
                held = opened[1] if opened else 0
                payout = held * payout_percent // 100
                call = partial(ledger.settle_bet, table, bet_id, payout=payout, key=key)
            else:
                held = opened[1] if opened else 0
                amount = max(1, held // 2) if op[2] else None
                payout = held if amount is None else amount
                call = partial(ledger.return_bet, table, bet_id, key=key, amount=amount)
            if opened is None:
                with pytest.raises(BetStateError):
                    call()
                continue
            call()
            wallet_code = opened[0]
            model.balances[wallet_code] += payout
            if op[0] == "settle":
                model.house += held - payout
                del model.bets[(table, bet_id)]
            elif held - payout:
                model.bets[(table, bet_id)] = (wallet_code, held - payout)
            else:
                del model.bets[(table, bet_id)]
        else:  # repeat an earlier posting with its key: nothing moves
            if not done:
                continue
            call, _ = done[op[1] % len(done)]
            assert call().replayed
            continue
        done.append((call, key))

    for wallet in players:
        assert ledger.balance(wallet) == model.balances[wallet.code]
    assert ledger.balance(ledger.house()) == model.house
    for t in tables:
        expected = sum(held for (table, _), (_, held) in model.bets.items() if table == t)
        assert ledger.balance(ledger.holding(t)) == expected
    assert ledger.trial_balance() == 0
    audit = ledger.audit()
    assert audit.ok, audit.problems
    with ledger.engine.connect() as conn:
        assert conn.execute(select(func.sum(db.ledger_entries.c.amount))).scalar_one() in (0, None)
