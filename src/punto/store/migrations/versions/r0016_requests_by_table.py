"""The keyed requests of a table, by time: what a table's new process reads.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27

Frozen: a later change to the schema is a new revision, never an edit here.

When a table comes to a process (its start, a takeover), the process reads
the keys of the table's requests made lately (``punto.store.requests.
recent_keys``): a retry of one of those is answered as stored, and every
other request is known new without a read of its own.  The index on
``(table_id, created_at)`` makes that read a range of the index, however
many requests the table has answered.
"""

from __future__ import annotations

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index(
        "ix_server_requests_table_id_created_at",
        "server_requests",
        ["table_id", "created_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_server_requests_table_id_created_at", table_name="server_requests")
