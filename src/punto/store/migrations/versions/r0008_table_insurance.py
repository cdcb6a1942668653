"""A table may not offer Insurance: ``server_tables.insurance_offered``.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

RWS 4.2.2: at a private table the House may allow a player's request that
Insurance is not offered; a notice is then displayed at the table.  Tables
set up before this revision offer Insurance where their game has it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch rebuild): SQLite adds a NOT NULL column with
    # a constant default in place.
    op.add_column(
        "server_tables",
        sa.Column("insurance_offered", sa.Boolean(), nullable=False, server_default=sa.true()),
    )


def downgrade() -> None:
    with op.batch_alter_table("server_tables") as batch:
        batch.drop_column("insurance_offered")
