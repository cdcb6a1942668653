"""A table may be in HLGA: ``server_tables.hlga``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

In HLGA, when the cut card comes out as the first card of a round, the
players may withdraw their wagers (MBS 3.22.1; Dragon Tiger 3.17.1).  Tables
set up before this revision are not in HLGA.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch rebuild): SQLite adds a NOT NULL column with
    # a constant default in place.
    op.add_column(
        "server_tables",
        sa.Column("hlga", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("server_tables") as batch:
        batch.drop_column("hlga")
