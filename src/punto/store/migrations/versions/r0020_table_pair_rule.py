"""How a table reads a Pair: ``server_tables.pair_rule``.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29

Frozen: a later change to the schema is a new revision, never an edit here.

Tiger Baccarat 1.1.14 is read by rank by default; its literal reading (a
Ten with a Jack, Queen or King is a Pair, and the approved Tiger Pair
paytable then favours the player) is an explicit option of a table, set
when the table is made, flagged wherever it is used, and confirmed by a pit
manager like any wager that favours the player.  NULL: the game's default,
which every table set up before this revision keeps.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("server_tables", sa.Column("pair_rule", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("server_tables") as batch:
        batch.drop_column("pair_rule")
