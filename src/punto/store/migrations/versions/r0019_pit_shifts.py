"""The pit's shifts: ``pit_shifts``.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29

Frozen: a later change to the schema is a new revision, never an edit here.

A shift is the casino's, not a browser's: opened and closed by a pit manager,
one open at a time for every pit page and every server process (the unique
``is_open``: 1 on the open shift, NULL on the closed ones), with each table's
last event number when it opened and closed (the marks that say which
rounds are the shift's) and, once closed, its report as it stood then
(``punto.store.shifts``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

TIME = sa.DateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "pit_shifts",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("is_open", sa.Integer(), nullable=True),
        sa.Column("opened_at", TIME, nullable=False),
        sa.Column("opened_by", sa.String(64), nullable=False),
        sa.Column("opened_role", sa.String(32), nullable=False),
        sa.Column("opened_marks", sa.Text(), nullable=False),
        sa.Column("closed_at", TIME, nullable=True),
        sa.Column("closed_by", sa.String(64), nullable=True),
        sa.Column("closed_role", sa.String(32), nullable=True),
        sa.Column("closed_marks", sa.Text(), nullable=True),
        sa.Column("report", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pit_shifts")),
        sa.UniqueConstraint("is_open", name=op.f("uq_pit_shifts_is_open")),
        sa.CheckConstraint("is_open = 1", name=op.f("ck_pit_shifts_is_open_one")),
        sa.CheckConstraint(
            "(is_open IS NULL) = (closed_at IS NOT NULL)",
            name=op.f("ck_pit_shifts_open_or_closed"),
        ),
    )


def downgrade() -> None:
    op.drop_table("pit_shifts")
