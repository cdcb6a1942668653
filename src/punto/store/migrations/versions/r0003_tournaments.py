"""Tournaments: the ``tournament_events`` log (:class:`punto.store.sql_log.SQLEventLog`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.
A SQLite file that already holds the ``tournament_events`` of the stdlib
tournament log (``SQLiteTournamentLog``, which wrote them with raw SQL until
the one event log) keeps them: same table, same columns, same JSON bodies.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    if not context.is_offline_mode() and sa.inspect(op.get_bind()).has_table("tournament_events"):
        return  # written by the stdlib tournament log: adopted as it is
    op.create_table(
        "tournament_events",
        sa.Column("tournament_id", sa.String(200), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column(
            "recorded_at",
            sa.String(40),
            nullable=False,
            server_default=sa.text("CURRENT_TIMESTAMP"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", "seq", name=op.f("pk_tournament_events")),
    )


def downgrade() -> None:
    op.drop_table("tournament_events")
