"""Accounts security: lockout per user name *and* client, and session invalidations.

Revision ID: 0010_accounts
Revises: 0009_face_down
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

(Written beside revisions 0008 and 0009 on other branches the same day, and
put after them when the branches were merged.)

- ``login_attempts`` was keyed by user name alone, so anyone could lock any
  account out; it is now keyed by user name and client address, with a count
  of locks in a row (each lock twice as long as the one before).  The table
  holds only failure counts, so it is made anew, empty: a lock in force when
  the server is upgraded ends with the upgrade.
- ``session_invalidations``: sessions ended (a logout, every session of an
  account) and accounts changed, one row each, which every process's session
  cache reads a few times a second to forget them at once.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010_accounts"
down_revision: str | None = "0009_face_down"
branch_labels: str | None = None
depends_on: str | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.drop_table("login_attempts")
    op.create_table(
        "login_attempts",
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("client", sa.String(80), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("locks", sa.Integer(), nullable=False),
        sa.Column("last_failure_at", TIME, nullable=False),
        sa.Column("locked_until", TIME, nullable=True),
        sa.PrimaryKeyConstraint("username", "client", name=op.f("pk_login_attempts")),
    )
    op.create_index(
        op.f("ix_login_attempts_last_failure_at"), "login_attempts", ["last_failure_at"]
    )
    op.create_table(
        "session_invalidations",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("account_id", ID, nullable=True),
        sa.Column("at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session_invalidations")),
    )
    op.create_index(op.f("ix_session_invalidations_at"), "session_invalidations", ["at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_session_invalidations_at"), table_name="session_invalidations")
    op.drop_table("session_invalidations")
    op.drop_index(op.f("ix_login_attempts_last_failure_at"), table_name="login_attempts")
    op.drop_table("login_attempts")
    op.create_table(
        "login_attempts",
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failure_at", TIME, nullable=False),
        sa.Column("locked_until", TIME, nullable=True),
        sa.PrimaryKeyConstraint("username", name=op.f("pk_login_attempts")),
    )
