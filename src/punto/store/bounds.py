"""How much money the ledger holds: the bounds that keep every sum an integer.

The ledger keeps money in integer minor units in 64-bit columns (``BIGINT``
on PostgreSQL, SQLite's 8-byte ``INTEGER``).  Past 2**63 - 1 (about 9.22e18)
SQLite refuses the value (``OverflowError``) or, in an expression, turns it
into a float, and PostgreSQL raises "bigint out of range".  The security review found
exactly that: repeated cage deposits took a wallet past it and the server
answered 500.  The bounds below keep every balance and every sum the ledger
takes far below it:

- **No wallet's balance, the house's included, may pass** :data:`LEDGER_LIMIT`
  (10**18 minor units) in magnitude, whatever the posting.  Every wallet but
  the house is never negative and the house is minus the sum of the others,
  so the sum of the magnitudes of all balances is at most 2 * 10**18; no
  partial sum the database computes over ``wallets.balance`` (the trial
  balance, the totals by kind) can leave 64 bits.  A posting that would pass
  the limit is refused before anything is written.
- **A player wallet may not be taken past** :attr:`MoneyBounds.max_balance`
  **by the cage** (a deposit).  Winnings, returns, refunds and prizes are paid
  even past it: what the rules say is owed is never refused; only the
  ledger's hard limit holds them.
- **One cage amount** (a deposit, a withdrawal) **is at most**
  :attr:`MoneyBounds.max_cage_amount`.

The defaults are far above any real wallet (ten thousand million of the
currency in one wallet, a thousand million in one deposit) and far below 2**63;
an operator sets others with ``punto serve --max-balance`` and
``--max-cage-amount``.
"""

from __future__ import annotations

from dataclasses import dataclass

from punto.errors import PuntoError
from punto.money import format_units

#: The most any wallet may hold, in magnitude, in minor units (the house owes at
#: most this much): 10**18, against 2**63 - 1 = 9,223,372,036,854,775,807.
LEDGER_LIMIT = 10**18

#: The default most one player wallet may be taken to by the cage: 10,000,000,000.00.
MAX_BALANCE = 10**12

#: The default most one cage amount may be: 1,000,000,000.00.
MAX_CAGE_AMOUNT = 10**11


class MoneyBoundError(PuntoError):
    """An amount over a bound of the ledger or the cage (:mod:`punto.store.bounds`)."""


@dataclass(frozen=True)
class MoneyBounds:
    """The cage's bounds, in minor units (settings of ``punto serve``)."""

    max_balance: int = MAX_BALANCE
    max_cage_amount: int = MAX_CAGE_AMOUNT

    def __post_init__(self) -> None:
        for name in ("max_balance", "max_cage_amount"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise MoneyBoundError(f"{name} {value!r} must be a positive number of minor units")
            if value > LEDGER_LIMIT:
                raise MoneyBoundError(
                    f"{name} {format_units(value)} is over the ledger's limit "
                    f"of {format_units(LEDGER_LIMIT)}",
                    hint="choose a smaller bound",
                )

    def check_cage_amount(self, units: int, what: str) -> None:
        """Refuse a cage ``what`` ("deposit", "withdrawal") over the cage's maximum."""
        if units > self.max_cage_amount:
            raise MoneyBoundError(
                f"a {what} of {format_units(units)} is more than the cage takes at once "
                f"({format_units(self.max_cage_amount)})",
                hint=f"split it into amounts of at most {format_units(self.max_cage_amount)}, "
                "or ask the operator to raise punto serve --max-cage-amount",
            )


def check_balance(code: str, before: int, after: int) -> None:
    """Refuse a posting that would take wallet ``code`` past :data:`LEDGER_LIMIT`."""
    if abs(after) > LEDGER_LIMIT:
        raise MoneyBoundError(
            f"wallet {code} would hold {format_units(after)}, past the ledger's limit "
            f"of {format_units(LEDGER_LIMIT)} (it holds {format_units(before)})",
            hint="nothing was written; no table or cage moves that much",
        )


def check_ceiling(code: str, before: int, after: int, ceiling: int) -> None:
    """Refuse a deposit that would take player wallet ``code`` past ``ceiling``."""
    if after > ceiling:
        raise MoneyBoundError(
            f"wallet {code} holds {format_units(before)}; this would take it to "
            f"{format_units(after)}, past the most a wallet may hold "
            f"({format_units(ceiling)})",
            hint="deposit at most the difference, or ask the operator to raise "
            "punto serve --max-balance",
        )
