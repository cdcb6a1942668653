"""A posting's key and request hash on its transaction; ``idempotency_keys`` dropped.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27

Frozen: a later change to the schema is a new revision, never an edit here.

The ledger kept its posting keys in a table of their own (key, a scope that
was always ``ledger``, the request's hash, a time) beside the one store of
request answers (``server_requests``), and each transaction pointed at its
key.  A posting's key is already unique on ``ledger_transactions``; with the
request's hash beside it there, the second key table goes (one
idempotency store).  Every transaction's hash is copied from its key's row.

SQLite cannot drop a foreign key, and rebuilding ``ledger_transactions``
(Alembic's batch mode) would drop it under the foreign key of
``ledger_entries`` while the migration's transaction cannot turn them off; so,
as revision 0004 does for a CHECK, the stored ``CREATE TABLE`` text is
rewritten in place: the column is added with a default (SQLite's ``ADD
COLUMN ... NOT NULL`` needs one), every row is then written with its hash,
and the default and the foreign key leave the text -- neither is in the file
format of a row once every row holds the column.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from punto.store.migrations.versions.r0004_tournament_money import sqlite_rewrite_checks

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None

TIME = sa.DateTime(timezone=True)
FOREIGN_KEY = "fk_ledger_transactions_idempotency_key_idempotency_keys"
#: the text SQLite stores for the foreign key, and for the added column
SQLITE_FOREIGN_KEY = (
    f"\tCONSTRAINT {FOREIGN_KEY} FOREIGN KEY(idempotency_key) "
    'REFERENCES idempotency_keys ("key"), \n'
)
SQLITE_ADDED = "request_hash VARCHAR(64) DEFAULT '' NOT NULL"
SQLITE_COLUMN = "request_hash VARCHAR(64) NOT NULL"

_COPY_HASHES = (
    "UPDATE ledger_transactions SET request_hash = (SELECT k.request_hash "
    "FROM idempotency_keys AS k WHERE k.key = ledger_transactions.idempotency_key)"
)


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column(
        "ledger_transactions",
        sa.Column("request_hash", sa.String(64), nullable=False, server_default=""),
    )
    op.execute(_COPY_HASHES)
    if sqlite:
        # one change a call: each reads the text as stored
        sqlite_rewrite_checks([("ledger_transactions", SQLITE_FOREIGN_KEY, "")])
        sqlite_rewrite_checks([("ledger_transactions", SQLITE_ADDED, SQLITE_COLUMN)])
    else:
        op.alter_column("ledger_transactions", "request_hash", server_default=None)
        op.drop_constraint(op.f(FOREIGN_KEY), "ledger_transactions", type_="foreignkey")
    op.drop_table("idempotency_keys")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "idempotency_keys",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("scope", sa.String(32), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_idempotency_keys")),
    )
    op.execute(
        "INSERT INTO idempotency_keys (key, scope, request_hash, created_at) "
        "SELECT idempotency_key, 'ledger', request_hash, created_at FROM ledger_transactions"
    )
    # SQLite drops a column in no constraint in place (3.35 and later)
    op.drop_column("ledger_transactions", "request_hash")
    if sqlite:
        sqlite_rewrite_checks(
            [
                (
                    "ledger_transactions",
                    "\tCONSTRAINT ck_ledger_transactions_kind",
                    SQLITE_FOREIGN_KEY + "\tCONSTRAINT ck_ledger_transactions_kind",
                ),
            ]
        )
        return
    op.create_foreign_key(
        op.f(FOREIGN_KEY),
        "ledger_transactions",
        "idempotency_keys",
        ["idempotency_key"],
        ["key"],
    )
