"""Game protection: the exact value of each bet at placement, and the pit's alerts.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26

Frozen: a later change to the schema is a new revision, never an edit here.

``bet_values`` (``punto.store.protection``): one row per bet valued, keyed by
the ledger's bet reference (table, bet id): the player, wager, stake (minor
units), the exact return per unit and expected value (fractions as text,
``num/den``), how many cards had been seen and the composition unseen (13
counts, Ace to King), and when it was computed.  ``protection_alerts``: an
advantage-play alert on a player at a table, its statistic and threshold
(exact decimals as text), the false-alarm rate the threshold gives, and the
evidence (the observations, JSON).  ``protection_thresholds``: the detection
thresholds preset each table uses.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

TIME = sa.DateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "bet_values",
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("bet_id", sa.String(200), nullable=False),
        sa.Column("round_id", sa.String(200), nullable=False),
        sa.Column("shoe_id", sa.String(200), nullable=False),
        sa.Column("player", sa.String(200), nullable=False),
        sa.Column("wager", sa.String(64), nullable=False),
        sa.Column("moment", sa.String(32), nullable=True),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("return_exact", sa.Text(), nullable=False),
        sa.Column("expected_value", sa.Text(), nullable=False),
        sa.Column("cards_seen", sa.Integer(), nullable=False),
        sa.Column("composition", sa.Text(), nullable=False),
        sa.Column("computed_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "bet_id", name=op.f("pk_bet_values")),
        sa.CheckConstraint("stake > 0", name=op.f("ck_bet_values_stake_positive")),
        sa.CheckConstraint("cards_seen >= 0", name=op.f("ck_bet_values_cards_seen_not_negative")),
    )
    op.create_index(op.f("ix_bet_values_player"), "bet_values", ["player"])
    op.create_index(op.f("ix_bet_values_table_id_round_id"), "bet_values", ["table_id", "round_id"])
    op.create_table(
        "protection_alerts",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("player", sa.String(200), nullable=False),
        sa.Column("raised_at", TIME, nullable=False),
        sa.Column("statistic", sa.Text(), nullable=False),
        sa.Column("threshold", sa.Text(), nullable=False),
        sa.Column("false_alarm_rate", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_protection_alerts")),
    )
    op.create_index(
        op.f("ix_protection_alerts_table_id_player"),
        "protection_alerts",
        ["table_id", "player"],
    )
    op.create_table(
        "protection_thresholds",
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_protection_thresholds")),
    )


def downgrade() -> None:
    op.drop_table("protection_thresholds")
    op.drop_table("protection_alerts")
    op.drop_table("bet_values")
