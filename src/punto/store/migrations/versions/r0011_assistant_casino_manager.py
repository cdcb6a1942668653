"""A user role for the Assistant Casino Manager: ``assistant_casino_manager``.

Revision ID: 0011
Revises: 0010_accounts
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

MBS 3.9.2 and 3.12.2 name an Assistant Casino Manager: the position that
allows Method C at an HLGA table and lets a player draw from the dealing
device without a valid wager.  The table engine ranks it directly above the
Gaming Shift Manager (docs/interpretations.md); a user holding it acts in
that position.  Existing accounts keep their roles: only the CHECK
constraint on ``accounts.role`` widens, so no row changes.  A downgrade with
such an account left fails on PostgreSQL (give it another role first).
"""

from __future__ import annotations

from alembic import op

from punto.store.migrations.versions.r0004_tournament_money import sqlite_rewrite_checks

revision: str = "0011"
down_revision: str | None = "0010_accounts"
branch_labels: str | None = None
depends_on: str | None = None

OLD_ROLES = (
    "role IN ('player', 'dealer', 'pit_supervisor', 'pit_manager', 'shift_manager', 'admin')"
)
NEW_ROLES = (
    "role IN ('player', 'dealer', 'pit_supervisor', 'pit_manager', 'shift_manager', "
    "'assistant_casino_manager', 'admin')"
)
NAME = "ck_accounts_role"


def change_roles(old: str, new: str) -> None:
    """Replace the ``accounts.role`` condition ``old`` by ``new``."""
    if op.get_bind().dialect.name == "sqlite":
        sqlite_rewrite_checks([("accounts", old, new)])
        return
    op.drop_constraint(op.f(NAME), "accounts", type_="check")
    op.create_check_constraint(op.f(NAME), "accounts", new)


def upgrade() -> None:
    change_roles(OLD_ROLES, NEW_ROLES)


def downgrade() -> None:
    change_roles(NEW_ROLES, OLD_ROLES)
