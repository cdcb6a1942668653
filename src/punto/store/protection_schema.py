"""The schema of game protection (revision 0013): bets' values and the pit's alerts.

Defined apart from :mod:`punto.store.db` (which adds them to its metadata) to
keep that module short; :mod:`punto.store.protection` reads and writes them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
)

from punto.store.columns import ID, UTCDateTime


def protection_tables(metadata: MetaData) -> tuple[Table, Table, Table]:
    """``bet_values``, ``protection_alerts`` and ``protection_thresholds`` on ``metadata``."""
    # One row per bet valued: the ledger's bet reference (table, bet id), whose
    # it was, and its exact value when it was placed (fractions as "num/den").
    bet_values = Table(
        "bet_values",
        metadata,
        Column("table_id", String(200), nullable=False),
        Column("bet_id", String(200), nullable=False),
        Column("round_id", String(200), nullable=False),
        Column("shoe_id", String(200), nullable=False),
        Column("player", String(200), nullable=False),
        Column("wager", String(64), nullable=False),
        Column("moment", String(32), nullable=True),  # Insurance Plus: when it was taken
        Column("stake", BigInteger, nullable=False),
        Column("return_exact", Text, nullable=False),
        Column("expected_value", Text, nullable=False),
        Column("cards_seen", Integer, nullable=False),
        Column("composition", Text, nullable=False),
        Column("computed_at", UTCDateTime, nullable=False),
        PrimaryKeyConstraint("table_id", "bet_id"),
        CheckConstraint("stake > 0", name="stake_positive"),
        CheckConstraint("cards_seen >= 0", name="cards_seen_not_negative"),
    )
    Index("ix_bet_values_player", bet_values.c.player)
    Index("ix_bet_values_table_id_round_id", bet_values.c.table_id, bet_values.c.round_id)
    alerts = Table(
        "protection_alerts",
        metadata,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("table_id", String(200), nullable=False),
        Column("player", String(200), nullable=False),
        Column("raised_at", UTCDateTime, nullable=False),
        Column("statistic", Text, nullable=False),
        Column("threshold", Text, nullable=False),
        Column("false_alarm_rate", Text, nullable=False),
        Column("evidence", Text, nullable=False),  # JSON: the observations
    )
    Index("ix_protection_alerts_table_id_player", alerts.c.table_id, alerts.c.player)
    # The detection thresholds preset each table uses (the standard one if none).
    thresholds = Table(
        "protection_thresholds",
        metadata,
        Column("table_id", String(200), primary_key=True),
        Column("preset", String(32), nullable=False),
    )
    return bet_values, alerts, thresholds
