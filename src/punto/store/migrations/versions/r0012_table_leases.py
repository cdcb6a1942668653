"""Table leases: which server process runs each table, with a fencing token.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

One row per table ever leased (``punto.store.leases``): the process that
holds it (``host/pid/instance``), a fencing token that grows by one at every
change of holder, and when the lease ends, in seconds since the epoch by the
database's own clock (so the processes of several machines agree on it).
Every write of a table's events and money checks, in its transaction, that
the writer still holds the lease with its token.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_leases")),
        sa.CheckConstraint("token > 0", name=op.f("ck_table_leases_token_positive")),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
