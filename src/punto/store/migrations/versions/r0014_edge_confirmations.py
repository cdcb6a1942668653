"""A pit manager's confirmations of the wagers a table offers that favour
the player: ``server_tables.edge_confirmations``.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

A table offering a wager whose house edge is negative for
its shoe is set up only with a pit manager's confirmation (who, when, the
wager, its exact edge), kept with the table as JSON.  Tables set up before
this revision carry none: the pit page warns of their player-favoured wagers
as unconfirmed until a pit manager confirms them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # a plain ADD COLUMN: SQLite adds a NOT NULL column with a constant default in place
    op.add_column(
        "server_tables",
        sa.Column("edge_confirmations", sa.Text(), nullable=False, server_default="[]"),
    )


def downgrade() -> None:
    with op.batch_alter_table("server_tables") as batch:
        batch.drop_column("edge_confirmations")
