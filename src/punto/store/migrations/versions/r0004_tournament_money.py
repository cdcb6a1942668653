"""Tournament money: a wallet kind for a tournament's entry fees, three posting
kinds, and the ``tournament_requests`` idempotency table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

- ``wallets.kind`` may also be ``tournament`` (``tournament:<id>``: the entry
  fees a tournament holds until its prizes are paid);
- ``ledger_transactions.kind`` may also be ``entry_fee``, ``prize`` and
  ``pool_surplus`` (see :class:`punto.store.ledger.PostingKind`);
- ``tournament_requests``: the answers to registrations and re-entries made
  with an Idempotency-Key.

Only CHECK constraints widen, so no row changes.  PostgreSQL drops and adds
the two constraints.  SQLite cannot alter a constraint, and rebuilding the
tables (Alembic's batch mode) would drop ``wallets`` under the foreign keys
of ``ledger_entries`` while the migration's transaction cannot turn them off;
so the table's stored ``CREATE TABLE`` text is rewritten in place, the way the
SQLite documentation gives for changing a CHECK constraint ("Making Other
Kinds Of Table Schema Changes", ALTER TABLE section 7): the file format is
unchanged and every existing row satisfies the wider constraint.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)

OLD_WALLET_KINDS = "kind IN ('player', 'house', 'holding')"
NEW_WALLET_KINDS = "kind IN ('player', 'house', 'holding', 'tournament')"
OLD_POSTING_KINDS = "kind IN ('deposit', 'withdrawal', 'bet', 'settlement', 'return')"
NEW_POSTING_KINDS = (
    "kind IN ('deposit', 'withdrawal', 'bet', 'settlement', 'return', "
    "'entry_fee', 'prize', 'pool_surplus')"
)

#: (table, constraint name, old condition, new condition)
CHECKS = (
    ("wallets", "ck_wallets_kind", OLD_WALLET_KINDS, NEW_WALLET_KINDS),
    ("ledger_transactions", "ck_ledger_transactions_kind", OLD_POSTING_KINDS, NEW_POSTING_KINDS),
)


def sqlite_rewrite_checks(old_to_new: list[tuple[str, str, str]]) -> None:
    """Replace each table's condition text in ``sqlite_schema`` (one transaction)."""
    bind = op.get_bind()
    statements: list[tuple[str, str]] = []
    for table, old, new in old_to_new:
        sql = bind.exec_driver_sql(
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)
        ).scalar_one()
        if old not in sql:
            raise RuntimeError(f"table {table}: constraint {old!r} not found in {sql!r}")
        statements.append((table, sql.replace(old, new)))
    version = int(bind.exec_driver_sql("PRAGMA schema_version").scalar_one())
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    try:
        for table, sql in statements:
            bind.exec_driver_sql(
                "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", (sql, table)
            )
        # A new schema version makes every connection read the schema again.
        bind.exec_driver_sql(f"PRAGMA schema_version = {version + 1}")
    finally:
        bind.exec_driver_sql("PRAGMA writable_schema = OFF")


# The name later migrations imported before it was public; kept so a migration
# written against it still runs (new code imports sqlite_rewrite_checks).
_sqlite_rewrite_checks = sqlite_rewrite_checks


def _change_checks(forward: bool) -> None:
    if op.get_bind().dialect.name == "sqlite":
        sqlite_rewrite_checks(
            [(table, old, new) if forward else (table, new, old) for table, _, old, new in CHECKS]
        )
        return
    for table, name, old, new in CHECKS:
        # op.f(): the name as given, not run through the naming convention again
        op.drop_constraint(op.f(name), table, type_="check")
        op.create_check_constraint(op.f(name), table, new if forward else old)


def upgrade() -> None:
    _change_checks(forward=True)
    op.create_table(
        "tournament_requests",
        sa.Column("account_id", ID, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("tournament_id", sa.String(200), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "key", name=op.f("pk_tournament_requests")),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_tournament_requests_account_id_accounts"),
        ),
    )


def downgrade() -> None:
    op.drop_table("tournament_requests")
    _change_checks(forward=False)
