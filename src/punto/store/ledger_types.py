"""The ledger's vocabulary: its errors, kinds, and the typed states a posting is decided on.

Shared by the pure posting rules (:mod:`punto.store.postings`), the ledger
(:mod:`punto.store.ledger`, which re-exports them) and the SQL that reads and
writes its rows (:mod:`punto.store.ledger_sql`).
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from punto.errors import PuntoError
from punto.jsontext import ascii_dumps
from punto.money import format_units
from punto.store.bounds import LEDGER_LIMIT

#: The largest amount one posting may move: no wallet may hold more (:mod:`punto.store.bounds`).
MAX_AMOUNT = LEDGER_LIMIT
#: The house's wallet code.
HOUSE = "house"


class LedgerError(PuntoError):
    """A posting the ledger refuses, or a ledger that does not add up."""


class InsufficientFundsError(LedgerError):
    """A player wallet would go below zero."""


class IdempotencyConflictError(LedgerError):
    """An idempotency key already used for a different posting."""


class UnknownWalletError(LedgerError, KeyError):
    """No wallet with that code."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return PuntoError.__str__(self)


class BetStateError(LedgerError):
    """A bet that is unknown, already placed, or already settled or returned."""


class WalletKind(enum.Enum):
    PLAYER = "player"
    HOUSE = "house"
    HOLDING = "holding"
    TOURNAMENT = "tournament"


class PostingKind(enum.Enum):
    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    BET = "bet"
    SETTLEMENT = "settlement"
    RETURN = "return"
    ENTRY_FEE = "entry_fee"
    PRIZE = "prize"
    POOL_SURPLUS = "pool_surplus"
    RESETTLEMENT = "resettlement"
    REFUND = "refund"


class BetStatus(enum.Enum):
    OPEN = "open"
    SETTLED = "settled"
    RETURNED = "returned"


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a posting: ``amount`` minor units into (+) or out of (-) ``wallet``."""

    wallet: str
    amount: int


@dataclass(frozen=True, slots=True)
class WalletState:
    """A wallet as a posting sees it: its code, kind and balance."""

    code: str
    kind: WalletKind
    balance: int


@dataclass(frozen=True, slots=True)
class BetState:
    """A bet's stake as the ledger holds it (``wallet``: its player's wallet code)."""

    table_id: str
    bet_id: str
    wallet: str
    round_id: str | None
    placed: int
    held: int
    status: BetStatus


# -- checks of a request's values ----------------------------------------------------------------


def amount(value: int, what: str = "amount", *, zero: bool = False) -> int:
    """``value``, a usable amount of minor units, or a :class:`LedgerError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise LedgerError(
            f"{what} {value!r} is not a whole number of minor units",
            hint="give money to the ledger as an int of minor units (cents)",
        )
    if value < 0 or (value == 0 and not zero):
        raise LedgerError(
            f"{what} {format_units(value)} must be {'zero or ' if zero else ''}positive"
        )
    if value > MAX_AMOUNT:
        raise LedgerError(
            f"{what} {format_units(value)} is more than the ledger moves at once "
            f"({format_units(MAX_AMOUNT)})"
        )
    return value


def key(value: str) -> str:
    """``value``, a usable idempotency key, or a :class:`LedgerError`."""
    if not isinstance(value, str) or not value or len(value) > 200:
        raise LedgerError(
            f"idempotency key {value!r} is not usable", hint="give 1 to 200 characters"
        )
    return value


def name(value: str, what: str) -> str:
    """``value``, a usable name (of a player, table, bet, tournament), or a :class:`LedgerError`."""
    if not isinstance(value, str) or not value or len(value) > 150:
        raise LedgerError(f"{what} {value!r} is not usable", hint="give 1 to 150 characters")
    return value


def request_hash(content: Mapping[str, Any]) -> str:
    """The hash an idempotency key keeps of its request's content."""
    return hashlib.sha256(ascii_dumps(content).encode()).hexdigest()
