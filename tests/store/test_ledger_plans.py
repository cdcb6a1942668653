"""How PostgreSQL runs the ledger's reads and writes: by key, whatever the tables hold.

A write that updates rows by key (a bet settled, the wallets' balances
shifted) joins the rows it sends to the table.  The planner must find those
rows through the primary key even in a young database whose tables have no
statistics yet -- a scan of every bet ever placed, on the one write path, is
a cost that grows with the casino's history.
"""

from __future__ import annotations

import time

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from punto.store import ledger_sql
from punto.store.ledger import Ledger
from punto.store.postings import SettleBet
from punto.store.statistics import analyze_grown
from tests.db_fixtures import POSTGRESQL

#: Rows a busy day leaves in the keyed tables: enough that a scan costs more
#: than looking the few settled rows up, and, sent as a JSON document the
#: planner takes for 100 rows, few enough that it chose the scan.
ROWS = 20_000

#: Sequential scans of the ledger's keyed tables by this backend (none: all listed).
SCANS = text(
    "SELECT t.name, coalesce(s.seq_scan, 0) "
    "FROM (VALUES ('ledger_bets'), ('wallets'), ('ledger_transactions')) t(name) "
    "LEFT JOIN pg_stat_xact_user_tables s "
    "ON s.relname = t.name AND s.schemaname = current_schema()"
)


def scans(conn: Connection) -> dict[str, int]:
    return {str(name): int(count) for name, count in conn.execute(SCANS)}


@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)
def test_a_settlement_finds_its_bet_and_wallets_by_key_in_a_young_database(
    engine: Engine,
) -> None:
    ledger = Ledger(engine)
    ann = ledger.player_wallet("ann")
    ledger.deposit(ann, 10_000, key="deposit-ann")
    placed = ledger.place_bet(ann, "t1", 1_000, key="bet-1")
    with engine.begin() as conn:  # other players' wallets and bets, never analysed
        conn.execute(
            text(
                "INSERT INTO wallets (code, kind, balance, created_at) "
                "SELECT 'player:p' || g, 'player', 0, now() FROM generate_series(1, :n) g"
            ),
            {"n": ROWS},
        )
        conn.execute(
            text(
                "INSERT INTO ledger_bets (table_id, bet_id, wallet_id, placed, held, status, "
                "placed_by) SELECT 't2', 'b' || g, :wallet, 100, 100, 'open', :tid "
                "FROM generate_series(1, :n) g"
            ),
            {"wallet": ann.id, "tid": placed.transaction_id, "n": ROWS},
        )
    with engine.begin() as conn:
        # Scans this backend made before and has not reported yet count too:
        # only the difference is the settlement's (nothing is reported in a
        # transaction).
        before = scans(conn)
        ledger.post(SettleBet("t1", "bet-1", 2_000, "settle-1"), within=conn)
        after = scans(conn)
    assert after == before
    assert ledger.balance(ann) == 11_000
    assert ledger.trial_balance() == 0


@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)
def test_a_young_tables_statistics_are_made_as_it_grows_and_its_keys_found_by_key(
    engine: Engine,
) -> None:
    # The stall of a young database: in a 20 s load on a new database, a group's
    # 100 bet keys were looked up by a sequential scan of every posting ever
    # made (a table never analysed is taken for a fraction of its rows), 100-
    # 130 ms a lookup by the end.
    ledger = Ledger(engine)
    ledger.deposit(ledger.player_wallet("ann"), 10_000, key="deposit-ann")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO ledger_transactions (idempotency_key, request_hash, kind, "
                "created_at) SELECT 'k' || g, 'h', 'deposit', now() FROM generate_series(1, :n) g"
            ),
            {"n": ROWS},
        )
    # PostgreSQL counts the rows changed a moment after the commit.
    deadline = time.monotonic() + 60
    while "ledger_transactions" not in (analysed := analyze_grown(engine)):
        assert time.monotonic() < deadline, analysed
        time.sleep(0.2)
    assert "ledger_transactions" not in analyze_grown(engine)  # nothing changed since
    keys = ["deposit-ann", *(f"k{i}" for i in range(1, 100))]  # a busy group's keys
    with engine.connect() as conn:
        before = scans(conn)
        assert ledger_sql.load_keys(conn, keys).keys() == set(keys)
        after = scans(conn)
    assert after == before
