"""A table may deal its cards face down: ``server_tables.face_down``.

Revision ID: 0009_face_down
Revises: 0008
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

RWS 5.10 applies "on specific tables where the cards are dealt face down":
a card dealt face up is an irregularity only there.  Tables set up before
this revision deal face up.  (The revision id is ``0009_face_down``, not
``0009``, so that a revision another branch numbers 0009 does not collide;
the merge orders them.)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009_face_down"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch rebuild): SQLite adds a NOT NULL column with
    # a constant default in place.
    op.add_column(
        "server_tables",
        sa.Column("face_down", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("server_tables") as batch:
        batch.drop_column("face_down")
