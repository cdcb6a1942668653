"""The database's column types and the vocabularies its CHECK constraints allow.

Shared by the schema (:mod:`punto.store.db`, which still exports every
name here) and the Alembic migrations that create it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    DateTime,
    Dialect,
    Integer,
    TypeDecorator,
)


class UTCDateTime(TypeDecorator[datetime]):
    """A point in time, always timezone-aware UTC in Python.

    PostgreSQL stores ``timestamptz``; SQLite stores the UTC wall time as text.
    Naive datetimes are refused: a naive time is a bug waiting for a time zone.
    """

    impl = DateTime(timezone=True)
    #: Statements using this type may be cached: it keeps no state of its own.
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: give a timezone-aware time (UTC)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_now() -> datetime:
    return datetime.now(UTC)


#: Surrogate keys: BIGINT on PostgreSQL, INTEGER (the rowid) on SQLite.
ID = BigInteger().with_variant(Integer(), "sqlite")


#: User roles, in the order of :class:`punto.store.accounts.UserRole`
#: (assistant_casino_manager: revision 0011, MBS 3.9.2 and 3.12.2).
ROLES = (
    "player",
    "dealer",
    "pit_supervisor",
    "pit_manager",
    "shift_manager",
    "assistant_casino_manager",
    "admin",
)


#: Ledger account kinds, see :class:`punto.store.ledger.WalletKind` ("tournament": revision 0004).
WALLET_KINDS = ("player", "house", "holding", "tournament")


#: Ledger transaction kinds, see :class:`punto.store.ledger.PostingKind`
#: (entry_fee, prize and pool_surplus: revision 0004, a tournament's entry fees
#: and prizes; resettlement: revision 0006, a settled round voided; refund:
#: revision 0007, an entry fee given back).
POSTING_KINDS = (
    "deposit",
    "withdrawal",
    "bet",
    "settlement",
    "return",
    "entry_fee",
    "prize",
    "pool_surplus",
    "resettlement",
    "refund",
)


#: Bet states in the ledger.
BET_STATUSES = ("open", "settled", "returned")
