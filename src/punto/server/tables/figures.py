"""The pit's figures of a table (:func:`table_figures`): handle (the total
wagered), win (hold), commission and the money in play, from the ledger and
the rounds.  Not "drop": the chips are bought at the cage, not at the table,
so no table has a drop to show."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Engine

from punto.server.tables.forms import money
from punto.store.db import ledger_bets, ledger_entries, ledger_transactions, wallets
from punto.store.ledger import Ledger

__all__ = ["TableFigures", "table_figures"]


@dataclass(frozen=True, slots=True)
class TableFigures:
    """A table's figures, in minor units (the commission as money)."""

    #: the total wagered: every bet placed at the table
    handle: int
    win: int
    commission: Decimal
    in_play: int

    def to_json(self) -> dict[str, str | None]:
        handle, house = self.handle, self.win
        return {
            "handle": money(handle),
            "win": money(house),
            "hold": f"{(Decimal(house) / Decimal(handle) * 100):.2f}" if handle else None,
            "commission": money(self.commission),
            "in_play": money(self.in_play),
        }


def table_figures(engine: Engine, table_id: str, commission: Decimal) -> TableFigures:
    """Handle, win and money in play of table ``table_id`` from the ledger
    (``commission``: from its rounds, which the ledger does not know)."""
    with engine.connect() as conn:
        handle = conn.execute(
            select(func.coalesce(func.sum(ledger_bets.c.placed), 0)).where(
                ledger_bets.c.table_id == table_id
            )
        ).scalar_one()
        house = conn.execute(
            select(func.coalesce(func.sum(ledger_entries.c.amount), 0))
            .select_from(ledger_entries)
            .join(
                ledger_transactions,
                ledger_transactions.c.id == ledger_entries.c.transaction_id,
            )
            .join(wallets, wallets.c.id == ledger_entries.c.wallet_id)
            .where(
                and_(
                    ledger_transactions.c.table_id == table_id,
                    # a resettlement (a settled round voided) corrects a settlement
                    ledger_transactions.c.kind.in_(("settlement", "resettlement")),
                    wallets.c.code == Ledger.HOUSE,
                )
            )
        ).scalar_one()
        held = conn.execute(
            select(func.coalesce(func.sum(ledger_bets.c.held), 0)).where(
                ledger_bets.c.table_id == table_id, ledger_bets.c.status == "open"
            )
        ).scalar_one()
    return TableFigures(int(handle), int(house), commission, int(held))
