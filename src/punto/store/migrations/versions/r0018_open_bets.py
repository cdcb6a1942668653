"""The open bets of a table, by an index of their own.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28

Frozen: a later change to the schema is a new revision, never an edit here.

Every action that ends bets (a settlement, a void, a withdrawal) reads the
table's open bets (``punto.server.tables.books.Books.reconcile``), and so do
the pit's figures.  With only the primary key ``(table_id, bet_id)`` that
read went through every bet the table ever took to find the few still
open: a table taking 300 bets a round adds some 400,000 rows a day.  A
partial index holds the open bets alone, so the read is as long as the
round, however long the table's history.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | None = None
depends_on: str | None = None

OPEN = sa.text("status = 'open'")


def upgrade() -> None:
    op.create_index(
        "ix_ledger_bets_open",
        "ledger_bets",
        ["table_id"],
        postgresql_where=OPEN,
        sqlite_where=OPEN,
    )


def downgrade() -> None:
    op.drop_index("ix_ledger_bets_open", table_name="ledger_bets")
