"""The first schema: accounts, sessions, the ledger, idempotency keys, table events.

Revision ID: 0001
Revises:
Create Date: 2026-11-25

Frozen: a later change to the schema is a new revision, never an edit here.
A SQLite file that already holds the ``table_events`` of the stdlib event log
(``SQLiteEventLog``, which wrote them with raw SQL until the one event log of
:mod:`punto.store.sql_log`) keeps them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("password_changed_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("username", name=op.f("uq_accounts_username")),
        sa.CheckConstraint(
            "role IN ('player', 'dealer', 'pit_supervisor', 'pit_manager', "
            "'shift_manager', 'admin')",
            name=op.f("ck_accounts_role"),
        ),
    )
    op.create_table(
        "login_attempts",
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failure_at", TIME, nullable=False),
        sa.Column("locked_until", TIME, nullable=True),
        sa.PrimaryKeyConstraint("username", name=op.f("pk_login_attempts")),
    )
    op.create_table(
        "sessions",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", ID, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("revoked_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
    )
    op.create_index(op.f("ix_sessions_account_id"), "sessions", ["account_id"])
    op.create_table(
        "wallets",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(200), nullable=True),
        sa.Column("account_id", ID, nullable=True),
        sa.Column("table_id", sa.String(200), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wallets")),
        sa.UniqueConstraint("code", name=op.f("uq_wallets_code")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_wallets_account_id_accounts")
        ),
        sa.CheckConstraint("kind IN ('player', 'house', 'holding')", name=op.f("ck_wallets_kind")),
        sa.CheckConstraint(
            "kind = 'house' OR balance >= 0", name=op.f("ck_wallets_balance_not_negative")
        ),
    )
    op.create_index(op.f("ix_wallets_account_id"), "wallets", ["account_id"])
    op.create_table(
        "idempotency_keys",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("scope", sa.String(32), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_idempotency_keys")),
    )
    op.create_table(
        "ledger_transactions",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(200), nullable=True),
        sa.Column("round_id", sa.String(200), nullable=True),
        sa.Column("bet_id", sa.String(200), nullable=True),
        sa.Column("memo", sa.Text(), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_ledger_transactions_idempotency_key")),
        sa.ForeignKeyConstraint(
            ["idempotency_key"],
            ["idempotency_keys.key"],
            name=op.f("fk_ledger_transactions_idempotency_key_idempotency_keys"),
        ),
        sa.CheckConstraint(
            "kind IN ('deposit', 'withdrawal', 'bet', 'settlement', 'return')",
            name=op.f("ck_ledger_transactions_kind"),
        ),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("transaction_id", ID, nullable=False),
        sa.Column("wallet_id", ID, nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_entries_transaction_id_ledger_transactions"),
        ),
        sa.ForeignKeyConstraint(
            ["wallet_id"], ["wallets.id"], name=op.f("fk_ledger_entries_wallet_id_wallets")
        ),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_entries_amount_not_zero")),
    )
    op.create_index(op.f("ix_ledger_entries_transaction_id"), "ledger_entries", ["transaction_id"])
    op.create_index(op.f("ix_ledger_entries_wallet_id"), "ledger_entries", ["wallet_id"])
    op.create_table(
        "ledger_bets",
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("bet_id", sa.String(200), nullable=False),
        sa.Column("wallet_id", ID, nullable=False),
        sa.Column("round_id", sa.String(200), nullable=True),
        sa.Column("placed", sa.BigInteger(), nullable=False),
        sa.Column("held", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("placed_by", ID, nullable=False),
        sa.Column("closed_by", ID, nullable=True),
        sa.PrimaryKeyConstraint("table_id", "bet_id", name=op.f("pk_ledger_bets")),
        sa.ForeignKeyConstraint(
            ["wallet_id"], ["wallets.id"], name=op.f("fk_ledger_bets_wallet_id_wallets")
        ),
        sa.ForeignKeyConstraint(
            ["placed_by"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_bets_placed_by_ledger_transactions"),
        ),
        sa.ForeignKeyConstraint(
            ["closed_by"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_bets_closed_by_ledger_transactions"),
        ),
        sa.CheckConstraint(
            "held >= 0 AND held <= placed", name=op.f("ck_ledger_bets_held_within_placed")
        ),
        sa.CheckConstraint(
            "status IN ('open', 'settled', 'returned')", name=op.f("ck_ledger_bets_status")
        ),
    )
    op.create_index(op.f("ix_ledger_bets_wallet_id"), "ledger_bets", ["wallet_id"])
    if not context.is_offline_mode() and sa.inspect(op.get_bind()).has_table("table_events"):
        # A file the stdlib SQLiteEventLog (before punto.store.sql_log) already wrote:
        # same table, same columns, same JSON bodies.  Adopt it as it is.
        op.create_index(op.f("ix_table_events_round"), "table_events", ["table_id", "round_id"])
        return
    op.create_table(
        "table_events",
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("round_id", sa.String(200), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("recorded_at", TIME, nullable=False, server_default=sa.func.current_timestamp()),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_table_events")),
    )
    op.create_index(op.f("ix_table_events_round"), "table_events", ["table_id", "round_id"])


def downgrade() -> None:
    op.drop_table("table_events")
    op.drop_table("ledger_bets")
    op.drop_table("ledger_entries")
    op.drop_table("ledger_transactions")
    op.drop_table("idempotency_keys")
    op.drop_table("wallets")
    op.drop_table("sessions")
    op.drop_table("login_attempts")
    op.drop_table("accounts")
