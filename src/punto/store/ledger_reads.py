"""Reading the ledger: wallets, postings, what a bet came to, and the audit.

What :class:`punto.store.ledger.Ledger` reports, as functions of a connection
(the caller chooses the transaction: a snapshot for the audit, the posting's
own transaction for a replay or a resettlement).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.engine import Connection, RowMapping

from punto.money import format_units
from punto.store.db import ledger_bets, ledger_entries, ledger_transactions, wallets
from punto.store.postings import BetStatus, Entry, PostingKind, WalletKind


@dataclass(frozen=True, slots=True)
class Wallet:
    """A ledger account.  ``code`` names it: ``player:ann``, ``house``, ``holding:t1``."""

    id: int
    code: str
    kind: WalletKind
    owner: str | None = None
    table_id: str | None = None
    account_id: int | None = None


@dataclass(frozen=True, slots=True)
class Posting:
    """A transaction of the ledger; its entries sum to zero."""

    transaction_id: int
    kind: PostingKind
    key: str
    entries: tuple[Entry, ...]
    created_at: datetime
    table_id: str | None = None
    round_id: str | None = None
    bet_id: str | None = None
    memo: str | None = None
    #: True when this is the first posting returned again for a repeated key.
    replayed: bool = field(default=False, compare=False)

    def amount_for(self, wallet: Wallet | str) -> int:
        """The net amount this posting moved into ``wallet`` (0 if it did not touch it)."""
        code = wallet.code if isinstance(wallet, Wallet) else wallet
        return sum(e.amount for e in self.entries if e.wallet == code)


@dataclass(frozen=True, slots=True)
class Audit:
    """What :meth:`Ledger.audit` found; ``ok`` when there are no problems."""

    total: int
    by_kind: Mapping[WalletKind, int]
    transactions: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def wallet_from_row(row: RowMapping) -> Wallet:
    return Wallet(
        id=int(row["id"]),
        code=str(row["code"]),
        kind=WalletKind(row["kind"]),
        owner=row["owner"],
        table_id=row["table_id"],
        account_id=None if row["account_id"] is None else int(row["account_id"]),
    )


def load_posting(conn: Connection, key: str) -> Posting | None:
    """The posting made with idempotency key ``key``, if there is one."""
    tx = (
        conn.execute(
            select(ledger_transactions).where(ledger_transactions.c.idempotency_key == key)
        )
        .mappings()
        .first()
    )
    if tx is None:
        return None
    entries = conn.execute(
        select(wallets.c.code, ledger_entries.c.amount)
        .join(wallets, wallets.c.id == ledger_entries.c.wallet_id)
        .where(ledger_entries.c.transaction_id == tx["id"])
        .order_by(ledger_entries.c.wallet_id)
    ).all()
    return Posting(
        transaction_id=int(tx["id"]),
        kind=PostingKind(tx["kind"]),
        key=str(tx["idempotency_key"]),
        entries=tuple(Entry(str(code), int(amount)) for code, amount in entries),
        created_at=tx["created_at"],
        table_id=tx["table_id"],
        round_id=tx["round_id"],
        bet_id=tx["bet_id"],
        memo=tx["memo"],
    )


def history_keys(conn: Connection, code: str) -> list[str]:
    """The keys of every posting that touched wallet ``code``, oldest first."""
    return [
        str(key)
        for key in conn.execute(
            select(ledger_transactions.c.idempotency_key)
            .join(ledger_entries, ledger_entries.c.transaction_id == ledger_transactions.c.id)
            .join(wallets, wallets.c.id == ledger_entries.c.wallet_id)
            .where(wallets.c.code == code)
            .group_by(ledger_transactions.c.id, ledger_transactions.c.idempotency_key)
            .order_by(ledger_transactions.c.id)
        ).scalars()
    ]


def bet_net(conn: Connection, table_id: str, bet_id: str) -> int:
    """What bet ``bet_id`` has come to for its player so far (see :meth:`Ledger.bet_net`)."""
    return nets(conn, table_id, ledger_bets.c.bet_id == bet_id)[bet_id][1]


def nets(
    conn: Connection, table_id: str, *where: ColumnElement[bool]
) -> dict[str, tuple[str, int]]:
    """bet id -> (its player's wallet, the sum of that wallet's entries in
    the bet's postings), for the table's bets that match ``where``."""
    rows = conn.execute(
        select(ledger_bets.c.bet_id, wallets.c.code, func.sum(ledger_entries.c.amount))
        .select_from(ledger_bets)
        .join(wallets, wallets.c.id == ledger_bets.c.wallet_id)
        .join(
            ledger_transactions,
            and_(
                ledger_transactions.c.table_id == ledger_bets.c.table_id,
                ledger_transactions.c.bet_id == ledger_bets.c.bet_id,
            ),
        )
        .join(
            ledger_entries,
            and_(
                ledger_entries.c.transaction_id == ledger_transactions.c.id,
                ledger_entries.c.wallet_id == ledger_bets.c.wallet_id,
            ),
        )
        .where(ledger_bets.c.table_id == table_id, *where)
        .group_by(ledger_bets.c.bet_id, wallets.c.code)
    ).all()
    return {str(bet_id): (str(code), int(total)) for bet_id, code, total in rows}


def audit(conn: Connection) -> Audit:
    """Check the whole ledger in one snapshot: every transaction sums to zero,
    every balance is the sum of its entries, no player or holding balance is
    negative, each holding account holds exactly its open bets' stakes, and
    everything sums to zero."""
    problems: list[str] = []
    unbalanced = conn.execute(
        select(ledger_entries.c.transaction_id, func.sum(ledger_entries.c.amount))
        .group_by(ledger_entries.c.transaction_id)
        .having(func.sum(ledger_entries.c.amount) != 0)
    ).all()
    problems += [f"transaction {t} sums to {s}, not 0" for t, s in unbalanced]
    sums = (
        select(
            ledger_entries.c.wallet_id,
            func.sum(ledger_entries.c.amount).label("total"),
        )
        .group_by(ledger_entries.c.wallet_id)
        .subquery()
    )
    rows = conn.execute(
        select(
            wallets.c.code,
            wallets.c.kind,
            wallets.c.balance,
            func.coalesce(sums.c.total, 0),
        ).outerjoin(sums, sums.c.wallet_id == wallets.c.id)
    ).all()
    by_kind = dict.fromkeys(WalletKind, 0)
    for code, kind, balance, total in rows:
        by_kind[WalletKind(kind)] += int(balance)
        if int(balance) != int(total):
            problems.append(
                f"wallet {code} has balance {format_units(int(balance))} "
                f"but entries sum {format_units(int(total))}"
            )
        if kind != WalletKind.HOUSE.value and int(balance) < 0:
            problems.append(f"wallet {code} is negative: {format_units(int(balance))}")
    held: dict[str, int] = {
        str(table_id): int(total)
        for table_id, total in conn.execute(
            select(ledger_bets.c.table_id, func.sum(ledger_bets.c.held))
            .where(ledger_bets.c.status == BetStatus.OPEN.value)
            .group_by(ledger_bets.c.table_id)
        )
    }
    for code, kind, balance, _ in rows:
        if kind == WalletKind.HOLDING.value:
            table_id = code.removeprefix("holding:")
            expected = int(held.get(table_id, 0))
            if int(balance) != expected:
                problems.append(
                    f"wallet {code} has {format_units(int(balance))} "
                    f"but its open bets hold {format_units(expected)}"
                )
    closed_holding = conn.execute(
        select(func.count())
        .select_from(ledger_bets)
        .where(ledger_bets.c.status != BetStatus.OPEN.value, ledger_bets.c.held != 0)
    ).scalar_one()
    if closed_holding:
        problems.append(f"{closed_holding} closed bets still hold a stake")
    count = int(conn.execute(select(func.count()).select_from(ledger_transactions)).scalar_one())
    total = sum(by_kind.values())
    if total != 0:
        problems.append(f"the trial balance is {format_units(total)}, not 0.00")
    return Audit(total, by_kind, count, tuple(problems))
