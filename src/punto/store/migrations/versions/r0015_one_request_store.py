"""One idempotency store: the tournaments' answers move into ``server_requests``.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

Every keyed request (a bet, a dealer's action, a cage deposit, an admin's
change, a tournament entry) keeps its answer in ``server_requests`` under
the account's own key ``{account_id}:{key}`` (``punto.store.requests``).
The answers given to tournament requests (``tournament_requests``, revision
0004) are copied there (``table_id`` empty, ``round_id`` the tournament,
``bet_id`` "tournament") and the old table dropped, so a retry of a request
answered before the upgrade still gets its answer.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.execute(
        "INSERT INTO server_requests "
        "(key, account_id, request_hash, table_id, round_id, bet_id, status_code, response, "
        "created_at) "
        "SELECT CAST(account_id AS VARCHAR(40)) || ':' || key, account_id, request_hash, '', "
        "tournament_id, 'tournament', status_code, response, created_at "
        "FROM tournament_requests"
    )
    op.drop_table("tournament_requests")


def downgrade() -> None:
    op.create_table(
        "tournament_requests",
        sa.Column("account_id", ID, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("tournament_id", sa.String(200), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_tournament_requests_account_id_accounts"),
        ),
        sa.PrimaryKeyConstraint("account_id", "key", name=op.f("pk_tournament_requests")),
    )
    op.execute(
        "INSERT INTO tournament_requests "
        "(account_id, key, tournament_id, request_hash, status_code, response, created_at) "
        "SELECT account_id, substr(key, length(CAST(account_id AS VARCHAR(40))) + 2), "
        "round_id, request_hash, status_code, response, created_at "
        "FROM server_requests WHERE table_id = '' AND bet_id = 'tournament'"
    )
    op.execute("DELETE FROM server_requests WHERE table_id = '' AND bet_id = 'tournament'")
