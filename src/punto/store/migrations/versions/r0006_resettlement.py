"""A posting kind for a settled round whose results change: ``resettlement``.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

A round may be voided after it was settled if that is noticed before the next
round commences (MBS 5.2 of No Commission and Tournament; RWS 5.5.3).  The
server then takes back what the settlement paid beyond the stakes, or gives
back stakes it took, with a ``resettlement`` posting per bet (see
:meth:`punto.store.ledger.Ledger.resettle`).

Only the CHECK constraint on ``ledger_transactions.kind`` widens, so no row
changes; it is changed as revision 0004 changed it.
"""

from __future__ import annotations

from alembic import op

from punto.store.migrations.versions.r0004_tournament_money import (
    NEW_POSTING_KINDS as OLD_POSTING_KINDS,
)
from punto.store.migrations.versions.r0004_tournament_money import sqlite_rewrite_checks

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

NEW_POSTING_KINDS = OLD_POSTING_KINDS.replace("'pool_surplus')", "'pool_surplus', 'resettlement')")
NAME = "ck_ledger_transactions_kind"


def change_posting_kinds(old: str, new: str) -> None:
    """Replace the ``ledger_transactions.kind`` condition ``old`` by ``new``
    (revision 0007 widens it again the same way)."""
    if op.get_bind().dialect.name == "sqlite":
        sqlite_rewrite_checks([("ledger_transactions", old, new)])
        return
    op.drop_constraint(op.f(NAME), "ledger_transactions", type_="check")
    op.create_check_constraint(op.f(NAME), "ledger_transactions", new)


def upgrade() -> None:
    change_posting_kinds(OLD_POSTING_KINDS, NEW_POSTING_KINDS)


def downgrade() -> None:
    change_posting_kinds(NEW_POSTING_KINDS, OLD_POSTING_KINDS)
