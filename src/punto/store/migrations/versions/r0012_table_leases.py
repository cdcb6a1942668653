"""Table leases (which server process runs each table, with a fencing token),
and the requests one process forwards to the process that runs a table.

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

``table_requests`` (``punto.server.cluster.forwarding``): a request for a table that
another process runs, written by the process that got it, taken and
answered by the process that runs the table (PostgreSQL ``NOTIFY`` wakes
each side); the answer is what the owner's own application answered.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

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
    op.create_table(
        "table_requests",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("taken_by", sa.String(200), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_requests")),
    )
    op.create_index(
        op.f("ix_table_requests_table_id_taken_by"),
        "table_requests",
        ["table_id", "taken_by"],
    )


def downgrade() -> None:
    op.drop_table("table_requests")
    op.drop_table("table_leases")
