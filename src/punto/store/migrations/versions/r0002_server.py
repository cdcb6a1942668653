"""The table server: table configuration, bet request idempotency, audit log.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.
The tables are described for SQLAlchemy in :mod:`punto.server.tables.schema`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "server_tables",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("layout", sa.String(8), nullable=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("card_source", sa.String(16), nullable=False),
        sa.Column("limits", sa.Text(), nullable=False),
        sa.Column("decks", sa.Integer(), nullable=False),
        sa.Column("betting_seconds", sa.Float(), nullable=False),
        sa.Column("card_delay", sa.Float(), nullable=False),
        sa.Column("insurance_seconds", sa.Float(), nullable=False),
        sa.Column("result_seconds", sa.Float(), nullable=False),
        sa.Column("seed", sa.String(200), nullable=True),
        sa.Column("device_token_hash", sa.String(64), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_tables")),
        sa.CheckConstraint("mode IN ('auto', 'dealer')", name=op.f("ck_server_tables_mode")),
        sa.CheckConstraint(
            "card_source IN ('virtual', 'device')", name=op.f("ck_server_tables_card_source")
        ),
    )
    op.create_table(
        "server_requests",
        sa.Column("key", sa.String(300), nullable=False),
        sa.Column("account_id", ID, nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("round_id", sa.String(200), nullable=False),
        sa.Column("bet_id", sa.String(200), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("response", sa.Text(), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_server_requests")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_server_requests_account_id_accounts")
        ),
    )
    op.create_table(
        "server_audit",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("at", TIME, nullable=False),
        sa.Column("account_id", ID, nullable=True),
        sa.Column("username", sa.String(64), nullable=True),
        sa.Column("role", sa.String(32), nullable=True),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("round_id", sa.String(200), nullable=True),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_audit")),
    )
    op.create_index(op.f("ix_server_audit_table"), "server_audit", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_server_audit_table"), table_name="server_audit")
    op.drop_table("server_audit")
    op.drop_table("server_requests")
    op.drop_table("server_tables")
