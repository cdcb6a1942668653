"""A posting kind for an entry fee given back: ``refund``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

An entrant who takes their entry back before the first session (T2.4), and
every entrant of a cancelled tournament (T8.4), gets the entry fees back from
the tournament's pool (see :meth:`punto.store.ledger.Ledger.refund_entry_fee`).

Only the CHECK constraint on ``ledger_transactions.kind`` widens, so no row
changes; it is changed as revision 0004 changed it.
"""

from __future__ import annotations

from punto.store.migrations.versions.r0006_resettlement import (
    NEW_POSTING_KINDS as OLD_POSTING_KINDS,
)
from punto.store.migrations.versions.r0006_resettlement import change_posting_kinds

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

NEW_POSTING_KINDS = OLD_POSTING_KINDS.replace("'resettlement')", "'resettlement', 'refund')")


def upgrade() -> None:
    change_posting_kinds(OLD_POSTING_KINDS, NEW_POSTING_KINDS)


def downgrade() -> None:
    change_posting_kinds(NEW_POSTING_KINDS, OLD_POSTING_KINDS)
