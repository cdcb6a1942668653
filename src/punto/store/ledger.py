"""Double-entry wallets in integer minor units.

Every movement of money is a *posting*: one transaction whose entries sum to
zero.  There are four kinds of ledger account ("wallets"):

- a **player** wallet, what a player has to bet with (never below zero);
- the **house**, the other side of every deposit, withdrawal, win and loss;
- a table's **holding** account, the stakes of the bets in play at that table
  (never below zero; exactly the sum of the stakes its open bets still hold);
- a **tournament** pool, ``tournament:<id>``: the entry fees a tournament
  holds until its prizes are paid (never below zero).

A player's balance is what the house owes the player, so the house's balance
is negative by what it owes, and house + players + holding + pools is always
zero (:meth:`Ledger.trial_balance`).

Postings:

==============  ============================================  ==========================
posting         entries                                       when
==============  ============================================  ==========================
deposit         house -a, player +a                           chips bought
withdrawal      player -a, house +a                           chips cashed
bet             player -a, holding +a                         a bet is placed
settlement      holding -stake, player +payout,               the coup is settled
                house +(stake - payout)
return          holding -a, player +a                         withdrawn, reduced, voided
entry_fee       player -a, pool +a                            a tournament entry bought
prize           pool -p, house -(a - p), player +a            a tournament prize paid
pool_surplus    pool -a, house +a                             the fees the prizes left
resettlement    player +d, house -d  (d may be negative)      a settled round voided
refund          pool -a, player +a                            an entry fee given back
==============  ============================================  ==========================

A resettlement changes what a bet already settled or returned came to for
its player (:meth:`Ledger.resettle`): a round voided after it was settled,
before the next round commenced (MBS 5.2 of No Commission and Tournament;
RWS 5.5.3), gives every stake back, so the winnings paid are taken back and
the stakes lost are given back.

A prize is paid from the tournament's pool as far as the pool goes (``p`` is
what the pool holds, at most ``a``) and by the house beyond it.

``payout`` in a settlement is everything the player gets back for the bet:
the stake plus the winnings less any commission for a win, the stake for a
push, nothing for a loss, part of the stake for a pro-rata or half-lost bet.
The house's entry is what is left, so commission is implied by the net.

**Idempotency.** Every posting carries a key.  Posting again with the same key
and the same content returns the first posting (``replayed=True``) and moves
no money; the same key with different content is an
:class:`IdempotencyConflictError`.  A posting that was refused (not enough
money, say) records nothing, so its key may be used again.

**Concurrency.** On SQLite a posting runs in ``BEGIN IMMEDIATE``, so writers
take turns.  On PostgreSQL it locks the bet and then the wallets it touches
(``SELECT ... FOR UPDATE``, in id order, so two postings never deadlock), checks
the balances under the lock, and writes; a deadlock or serialization failure is
retried.  Two postings racing for a player's last chips never both succeed.

>>> from punto.store.db import connect
>>> ledger = Ledger(connect("sqlite://"))
>>> ann = ledger.player_wallet("ann")
>>> _ = ledger.deposit(ann, 10_000, key="cage-1")
>>> _ = ledger.place_bet(ann, "t1", 2_000, key="t1-r1-b1", bet_id="b1")
>>> _ = ledger.settle_bet("t1", "b1", payout=3_900, key="t1-r1-b1-settle")   # banker, 0.95:1
>>> ledger.balance(ann), ledger.balance(ledger.house()), ledger.trial_balance()
(11900, -11900, 0)
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine, RowMapping
from sqlalchemy.exc import DBAPIError, IntegrityError

from punto.errors import PuntoError
from punto.money import format_units
from punto.store import db
from punto.store.bounds import LEDGER_LIMIT, check_balance, check_ceiling
from punto.store.db import (
    idempotency_keys,
    ledger_bets,
    ledger_entries,
    ledger_transactions,
    wallets,
)

#: Idempotency keys written by the ledger carry this scope.
SCOPE = "ledger"
#: The largest amount one posting may move: no wallet may hold more (:mod:`punto.store.bounds`).
MAX_AMOUNT = LEDGER_LIMIT


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


#: The kinds :meth:`Ledger.totals` always reports (others once they have wallets).
_ALWAYS_TOTALLED = (WalletKind.PLAYER, WalletKind.HOUSE, WalletKind.HOLDING)


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
class Wallet:
    """A ledger account.  ``code`` names it: ``player:ann``, ``house``, ``holding:t1``."""

    id: int
    code: str
    kind: WalletKind
    owner: str | None = None
    table_id: str | None = None
    account_id: int | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a posting: ``amount`` minor units into (+) or out of (-) ``wallet``."""

    wallet: str
    amount: int


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
class Bet:
    """A bet's stake as the ledger holds it."""

    table_id: str
    bet_id: str
    wallet: str
    round_id: str | None
    placed: int
    held: int
    status: BetStatus


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


def _amount(value: int, what: str = "amount", *, zero: bool = False) -> int:
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


def _key(key: str) -> str:
    if not isinstance(key, str) or not key or len(key) > 200:
        raise LedgerError(f"idempotency key {key!r} is not usable", hint="give 1 to 200 characters")
    return key


def _name(value: str, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 150:
        raise LedgerError(f"{what} {value!r} is not usable", hint="give 1 to 150 characters")
    return value


def _request_hash(content: Mapping[str, Any]) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _wallet_from_row(row: RowMapping) -> Wallet:
    return Wallet(
        id=int(row["id"]),
        code=str(row["code"]),
        kind=WalletKind(row["kind"]),
        owner=row["owner"],
        table_id=row["table_id"],
        account_id=None if row["account_id"] is None else int(row["account_id"]),
    )


class _AlreadyPostedError(Exception):
    """The key was used before with the same content: here is the first posting."""

    def __init__(self, posting: Posting) -> None:
        self.posting = posting


class Ledger:
    """The wallets and postings in one database (see the module's docstring)."""

    HOUSE = "house"

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @property
    def engine(self) -> Engine:
        return self._engine

    # --- wallets ---------------------------------------------------------------------

    def player_wallet(self, player: str, *, account_id: int | None = None) -> Wallet:
        """The wallet of ``player`` (the name the table knows them by), opened if new."""
        player = _name(player, "player")
        return self._open_wallet(
            f"player:{player}", WalletKind.PLAYER, owner=player, account_id=account_id
        )

    def house(self) -> Wallet:
        """The house's account."""
        return self._open_wallet(self.HOUSE, WalletKind.HOUSE)

    def holding(self, table_id: str) -> Wallet:
        """The account holding the stakes in play at ``table_id``."""
        table_id = _name(table_id, "table")
        return self._open_wallet(f"holding:{table_id}", WalletKind.HOLDING, table_id=table_id)

    def tournament_pool(self, tournament_id: str) -> Wallet:
        """The wallet holding the entry fees of ``tournament_id``, opened if new."""
        tournament_id = _name(tournament_id, "tournament")
        return self._open_wallet(f"tournament:{tournament_id}", WalletKind.TOURNAMENT)

    def wallet(self, code: str) -> Wallet:
        """The wallet named ``code``; :class:`UnknownWalletError` if there is none."""
        with self._engine.connect() as conn:
            row = conn.execute(select(wallets).where(wallets.c.code == code)).mappings().first()
        if row is None:
            raise UnknownWalletError(f"there is no wallet {code!r}")
        return _wallet_from_row(row)

    def wallets(self, kind: WalletKind | None = None) -> list[Wallet]:
        query = select(wallets).order_by(wallets.c.id)
        if kind is not None:
            query = query.where(wallets.c.kind == kind.value)
        with self._engine.connect() as conn:
            return [_wallet_from_row(row) for row in conn.execute(query).mappings()]

    def _open_wallet(
        self,
        code: str,
        kind: WalletKind,
        *,
        owner: str | None = None,
        table_id: str | None = None,
        account_id: int | None = None,
    ) -> Wallet:
        values = {
            "code": code,
            "kind": kind.value,
            "owner": owner,
            "table_id": table_id,
            "account_id": account_id,
            "balance": 0,
            "created_at": db.utc_now(),
        }

        with self._engine.connect() as conn:
            found = conn.execute(select(wallets).where(wallets.c.code == code)).mappings().first()

        def work(conn: Connection) -> Wallet:
            row = conn.execute(select(wallets).where(wallets.c.code == code)).mappings().first()
            if row is None:
                dialect_insert = sqlite_insert if db.is_sqlite(conn) else pg_insert
                conn.execute(
                    dialect_insert(wallets)
                    .values(**values)
                    .on_conflict_do_nothing(index_elements=["code"])
                )
                row = conn.execute(select(wallets).where(wallets.c.code == code)).mappings().one()
            return _wallet_from_row(row)

        try:
            wallet = _wallet_from_row(found) if found else db.run_transaction(self._engine, work)
        except IntegrityError:
            raise LedgerError(
                f"cannot open wallet {code!r}: there is no account {account_id}",
                hint="open a player's wallet with the id of an existing account, or none",
            ) from None
        if account_id is not None and wallet.account_id not in (None, account_id):
            raise LedgerError(
                f"wallet {code!r} belongs to account {wallet.account_id}, not {account_id}"
            )
        return wallet

    # --- reading ---------------------------------------------------------------------

    def balance(self, wallet: Wallet | str) -> int:
        """The balance of ``wallet`` (a :class:`Wallet` or its code), in minor units."""
        code = wallet.code if isinstance(wallet, Wallet) else wallet
        with self._engine.connect() as conn:
            value = conn.execute(
                select(wallets.c.balance).where(wallets.c.code == code)
            ).scalar_one_or_none()
        if value is None:
            raise UnknownWalletError(f"there is no wallet {code!r}")
        return int(value)

    def trial_balance(self) -> int:
        """The sum of every balance: house + players + holding.  Always 0."""
        with db.read_transaction(self._engine) as conn:
            return int(
                conn.execute(select(func.coalesce(func.sum(wallets.c.balance), 0))).scalar_one()
            )

    def totals(self) -> dict[WalletKind, int]:
        """The sum of the balances of each kind of wallet."""
        with db.read_transaction(self._engine) as conn:
            rows = conn.execute(
                select(wallets.c.kind, func.sum(wallets.c.balance)).group_by(wallets.c.kind)
            ).all()
        totals = dict.fromkeys(_ALWAYS_TOTALLED, 0)
        for kind, total in rows:
            totals[WalletKind(kind)] = int(total)
        return totals

    def bet(self, table_id: str, bet_id: str) -> Bet:
        with self._engine.connect() as conn:
            return self._load_bet(conn, table_id, bet_id, lock=False)

    def posting(self, key: str) -> Posting | None:
        """The posting made with idempotency key ``key``, if there is one."""
        with self._engine.connect() as conn:
            return self._load_posting(conn, key)

    def history(self, wallet: Wallet | str) -> list[Posting]:
        """Every posting that touched ``wallet``, oldest first."""
        code = wallet.code if isinstance(wallet, Wallet) else wallet
        with db.read_transaction(self._engine) as conn:
            keys = conn.execute(
                select(ledger_transactions.c.idempotency_key)
                .join(ledger_entries, ledger_entries.c.transaction_id == ledger_transactions.c.id)
                .join(wallets, wallets.c.id == ledger_entries.c.wallet_id)
                .where(wallets.c.code == code)
                .group_by(ledger_transactions.c.id, ledger_transactions.c.idempotency_key)
                .order_by(ledger_transactions.c.id)
            ).scalars()
            postings = [self._load_posting(conn, key) for key in list(keys)]
        return [p for p in postings if p is not None]

    def audit(self) -> Audit:
        """Check the whole ledger in one snapshot: every transaction sums to zero,
        every balance is the sum of its entries, no player or holding balance is
        negative, each holding account holds exactly its open bets' stakes, and
        everything sums to zero."""
        problems: list[str] = []
        with db.read_transaction(self._engine) as conn:
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
            count = int(
                conn.execute(select(func.count()).select_from(ledger_transactions)).scalar_one()
            )
        total = sum(by_kind.values())
        if total != 0:
            problems.append(f"the trial balance is {format_units(total)}, not 0.00")
        return Audit(total, by_kind, count, tuple(problems))

    # --- postings --------------------------------------------------------------------

    def deposit(
        self,
        wallet: Wallet,
        amount: int,
        key: str,
        *,
        memo: str | None = None,
        max_balance: int | None = None,
    ) -> Posting:
        """Chips bought: the house credits ``wallet`` with ``amount``; refused
        (:class:`~punto.store.bounds.MoneyBoundError`, nothing written) if that
        would take the wallet past ``max_balance``."""
        amount = _amount(amount)
        self._check_player(wallet)
        content = {"op": "deposit", "wallet": wallet.code, "amount": amount, "memo": memo}

        def post(conn: Connection) -> Posting:
            player = self._wallet_row(conn, wallet.code, WalletKind.PLAYER)
            house = self._wallet_row(conn, self.HOUSE, WalletKind.HOUSE)
            changes = {player.id: amount, house.id: -amount}
            return self._write(
                conn, key, PostingKind.DEPOSIT, changes, memo=memo, ceiling=max_balance
            )

        return self._post(key, content, post)

    def withdraw(
        self, wallet: Wallet, amount: int, key: str, *, memo: str | None = None
    ) -> Posting:
        """Chips cashed: ``amount`` from ``wallet`` back to the house."""
        amount = _amount(amount)
        self._check_player(wallet)
        content = {"op": "withdraw", "wallet": wallet.code, "amount": amount, "memo": memo}

        def post(conn: Connection) -> Posting:
            player = self._wallet_row(conn, wallet.code, WalletKind.PLAYER)
            house = self._wallet_row(conn, self.HOUSE, WalletKind.HOUSE)
            changes = {player.id: -amount, house.id: amount}
            return self._write(conn, key, PostingKind.WITHDRAWAL, changes, memo=memo)

        return self._post(key, content, post)

    def place_bet(
        self,
        wallet: Wallet,
        table_id: str,
        amount: int,
        key: str,
        *,
        bet_id: str | None = None,
        round_id: str | None = None,
    ) -> Posting:
        """A bet of ``amount`` from ``wallet`` into ``table_id``'s holding account.

        ``bet_id`` (default: the key) names the bet at the table for
        :meth:`settle_bet` and :meth:`return_bet`; a bet id is placed once.
        """
        amount = _amount(amount, "stake")
        self._check_player(wallet)
        table_id = _name(table_id, "table")
        bet_id = _name(key if bet_id is None else bet_id, "bet id")
        content = {
            "op": "place_bet",
            "wallet": wallet.code,
            "table": table_id,
            "amount": amount,
            "bet": bet_id,
            "round": round_id,
        }

        def post(conn: Connection) -> Posting:
            existing = conn.execute(
                select(ledger_bets.c.status).where(
                    ledger_bets.c.table_id == table_id, ledger_bets.c.bet_id == bet_id
                )
            ).first()
            if existing is not None:
                raise BetStateError(
                    f"bet {bet_id!r} at table {table_id!r} was already placed",
                    hint="give each bet at a table its own bet id",
                )
            player = self._wallet_row(conn, wallet.code, WalletKind.PLAYER)
            holding = self._wallet_row(conn, f"holding:{table_id}", WalletKind.HOLDING, table_id)
            changes = {player.id: -amount, holding.id: amount}
            posting = self._write(
                conn,
                key,
                PostingKind.BET,
                changes,
                table_id=table_id,
                round_id=round_id,
                bet_id=bet_id,
            )
            conn.execute(
                insert(ledger_bets).values(
                    table_id=table_id,
                    bet_id=bet_id,
                    wallet_id=player.id,
                    round_id=round_id,
                    placed=amount,
                    held=amount,
                    status=BetStatus.OPEN.value,
                    placed_by=posting.transaction_id,
                )
            )
            return posting

        return self._post(key, content, post)

    def settle_bet(self, table_id: str, bet_id: str, payout: int, key: str) -> Posting:
        """Settle an open bet: its whole stake leaves the holding account, the
        player gets ``payout`` (stake + winnings - commission for a win, the
        stake for a push, 0 for a loss), and the house takes or pays the rest."""
        payout = _amount(payout, "payout", zero=True)
        content = {"op": "settle_bet", "table": table_id, "bet": bet_id, "payout": payout}

        def post(conn: Connection) -> Posting:
            bet = self._load_bet(conn, table_id, bet_id, lock=True)
            self._check_open(bet)
            holding = self._wallet_row(conn, f"holding:{table_id}", WalletKind.HOLDING, table_id)
            house = self._wallet_row(conn, self.HOUSE, WalletKind.HOUSE)
            player = self._wallet_row(conn, bet.wallet, WalletKind.PLAYER)
            changes: dict[int, int] = {}
            for wallet_id, delta in (
                (holding.id, -bet.held),
                (player.id, payout),
                (house.id, bet.held - payout),
            ):
                changes[wallet_id] = changes.get(wallet_id, 0) + delta
            posting = self._write(
                conn,
                key,
                PostingKind.SETTLEMENT,
                changes,
                table_id=table_id,
                round_id=bet.round_id,
                bet_id=bet_id,
            )
            self._close_bet(conn, bet, BetStatus.SETTLED, 0, posting.transaction_id)
            return posting

        return self._post(key, content, post)

    def return_bet(
        self, table_id: str, bet_id: str, key: str, *, amount: int | None = None
    ) -> Posting:
        """Give back ``amount`` of an open bet's stake (all of it by default):
        withdrawn before "No more bets", reduced to meet a limit, or voided."""
        if amount is not None:
            amount = _amount(amount)
        content = {"op": "return_bet", "table": table_id, "bet": bet_id, "amount": amount}

        def post(conn: Connection) -> Posting:
            bet = self._load_bet(conn, table_id, bet_id, lock=True)
            self._check_open(bet)
            back = bet.held if amount is None else amount
            if back > bet.held:
                raise LedgerError(
                    f"cannot return {format_units(back)} of bet {bet_id!r}: "
                    f"it holds {format_units(bet.held)}",
                    hint="return at most what the bet still holds",
                )
            holding = self._wallet_row(conn, f"holding:{table_id}", WalletKind.HOLDING, table_id)
            player = self._wallet_row(conn, bet.wallet, WalletKind.PLAYER)
            changes = {holding.id: -back, player.id: back}
            posting = self._write(
                conn,
                key,
                PostingKind.RETURN,
                changes,
                table_id=table_id,
                round_id=bet.round_id,
                bet_id=bet_id,
            )
            left = bet.held - back
            status = BetStatus.OPEN if left else BetStatus.RETURNED
            self._close_bet(conn, bet, status, left, posting.transaction_id)
            return posting

        return self._post(key, content, post)

    def bet_net(self, table_id: str, bet_id: str) -> int:
        """What bet ``bet_id`` has come to for its player so far, all its postings
        together: minus the stake while it is open or once lost, the winnings less
        any commission once won, 0 once pushed or returned.

        >>> from punto.store.db import connect
        >>> ledger = Ledger(connect("sqlite://"))
        >>> ann = ledger.player_wallet("ann")
        >>> _ = ledger.deposit(ann, 10_000, key="cage-1")
        >>> _ = ledger.place_bet(ann, "t1", 2_000, key="b1")
        >>> ledger.bet_net("t1", "b1")
        -2000
        >>> _ = ledger.settle_bet("t1", "b1", payout=3_900, key="b1-settle")
        >>> ledger.bet_net("t1", "b1")
        1900
        """
        with self._engine.connect() as conn:
            bet = self._load_bet(conn, table_id, bet_id, lock=False)
            return self._bet_net(conn, bet)

    def resettle(
        self, table_id: str, nets: Mapping[str, int], *, memo: str | None = None
    ) -> list[Posting]:
        """Make each closed bet of ``nets`` come to ``nets[bet_id]`` for its
        player (see :meth:`bet_net`), with a ``resettlement`` posting of the
        difference between the player and the house; all of them in one
        transaction, or none.

        For a settled round voided before the next round commenced (MBS 5.2;
        RWS 5.5.3) every net is 0: winnings paid come back to the house and lost
        stakes go back to their players.  A player wallet that has not the
        winnings to give back refuses the whole resettlement
        (:class:`InsufficientFundsError`, nothing written).  Asking again for the
        nets a bet already has posts nothing, so a retry is harmless.

        >>> from punto.store.db import connect
        >>> ledger = Ledger(connect("sqlite://"))
        >>> ann, bob = ledger.player_wallet("ann"), ledger.player_wallet("bob")
        >>> _ = ledger.deposit(ann, 10_000, key="cage-1")
        >>> _ = ledger.deposit(bob, 10_000, key="cage-2")
        >>> _ = ledger.place_bet(ann, "t1", 2_000, key="b1")
        >>> _ = ledger.place_bet(bob, "t1", 1_000, key="b2")
        >>> _ = ledger.settle_bet("t1", "b1", payout=3_900, key="b1-settle")
        >>> _ = ledger.settle_bet("t1", "b2", payout=0, key="b2-settle")
        >>> [p.amount_for(p.entries[0].wallet) for p in ledger.resettle("t1", {"b1": 0, "b2": 0})]
        [-1900, 1000]
        >>> ledger.balance(ann), ledger.balance(bob), ledger.trial_balance()
        (10000, 10000, 0)
        >>> ledger.resettle("t1", {"b1": 0, "b2": 0})
        []
        """
        for bet_id in nets:
            _name(bet_id, "bet id")

        def work(conn: Connection) -> list[Posting]:
            bets = [self._load_bet(conn, table_id, b, lock=True) for b in sorted(nets)]
            for bet in bets:
                if bet.status is BetStatus.OPEN:
                    raise BetStateError(
                        f"bet {bet.bet_id!r} at table {table_id!r} is still open",
                        hint="settle or return it; only a closed bet is resettled",
                    )
            house = self._wallet_row(conn, self.HOUSE, WalletKind.HOUSE)
            players = {b.wallet: self._wallet_row(conn, b.wallet, WalletKind.PLAYER) for b in bets}
            # Every wallet locked up front, in id order (the order every posting keeps).
            self._lock_wallets(conn, sorted({house.id, *(w.id for w in players.values())}))
            postings: list[Posting] = []
            for bet in bets:
                delta = nets[bet.bet_id] - self._bet_net(conn, bet)
                if delta == 0:
                    continue
                done = conn.execute(
                    select(func.count())
                    .select_from(ledger_transactions)
                    .where(
                        ledger_transactions.c.table_id == table_id,
                        ledger_transactions.c.bet_id == bet.bet_id,
                        ledger_transactions.c.kind == PostingKind.RESETTLEMENT.value,
                    )
                ).scalar_one()
                key = f"resettle:{table_id}:{bet.bet_id}:{int(done) + 1}"
                content = {"op": "resettle", "table": table_id, "bet": bet.bet_id, "delta": delta}
                changes = {players[bet.wallet].id: delta, house.id: -delta}
                postings.append(
                    self._post_within(
                        conn,
                        key,
                        content,
                        functools.partial(
                            self._write,
                            key=key,
                            kind=PostingKind.RESETTLEMENT,
                            changes=changes,
                            table_id=table_id,
                            round_id=bet.round_id,
                            bet_id=bet.bet_id,
                            memo=memo,
                        ),
                    )
                )
            return postings

        try:
            return db.run_transaction(self._engine, work)
        except IntegrityError as error:
            raise LedgerError(f"the ledger refused the resettlement: {error.orig}") from error
        except DBAPIError as error:
            raise LedgerError(f"the ledger could not resettle: {error.orig}") from error

    def closed_nets(self, table_id: str, round_id: str) -> dict[str, tuple[str, int]]:
        """The closed bets of a round (settled or returned), each with its
        player's wallet and what it has come to (:meth:`bet_net`), in one
        read: what :meth:`resettle` would compare, without taking a lock."""
        with self._engine.connect() as conn:
            return self._nets(
                conn,
                table_id,
                ledger_bets.c.round_id == round_id,
                ledger_bets.c.status != BetStatus.OPEN.value,
            )

    @classmethod
    def _bet_net(cls, conn: Connection, bet: Bet) -> int:
        return cls._nets(conn, bet.table_id, ledger_bets.c.bet_id == bet.bet_id)[bet.bet_id][1]

    @staticmethod
    def _nets(
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

    # --- tournaments -----------------------------------------------------------------

    def pay_entry_fee(
        self,
        wallet: Wallet,
        tournament_id: str,
        amount: int,
        key: str,
        *,
        memo: str | None = None,
        within: Connection | None = None,
    ) -> Posting:
        """A tournament entry: ``amount`` from ``wallet`` into the tournament's pool.

        ``within``: post in the caller's open write transaction (from
        :func:`punto.store.db.run_transaction`), so that the fee and what it
        buys (the registration in the tournament's log) commit together or
        not at all.  A refusal then raises out of the caller's transaction,
        which rolls back; a key claimed concurrently raises ``IntegrityError``
        for the caller's retry (``retry_integrity=True``) to find the posting.
        """

        def post(conn: Connection, pool: Wallet, amount: int) -> Posting:
            player = self._wallet_row(conn, wallet.code, WalletKind.PLAYER)
            changes = {player.id: -amount, pool.id: amount}
            return self._write(conn, key, PostingKind.ENTRY_FEE, changes, memo=memo)

        return self._pool_posting(
            "pay_entry_fee", "entry fee", tournament_id, wallet, amount, key, memo, within, post
        )

    def refund_entry_fee(
        self,
        tournament_id: str,
        wallet: Wallet,
        amount: int,
        key: str,
        *,
        memo: str | None = None,
        within: Connection | None = None,
    ) -> Posting:
        """An entry fee of ``amount`` back from the tournament's pool into
        ``wallet`` (an entry taken back, T2.4; a tournament cancelled, T8.4).
        ``within`` as for :meth:`pay_entry_fee`.  The pool never goes below
        zero: a refund it cannot cover is refused."""

        def post(conn: Connection, pool: Wallet, amount: int) -> Posting:
            player = self._wallet_row(conn, wallet.code, WalletKind.PLAYER)
            held = self._lock_wallets(conn, sorted({pool.id, player.id}))[pool.id]
            if int(held["balance"]) < amount:
                raise LedgerError(
                    f"the pool of tournament {tournament_id!r} holds "
                    f"{format_units(int(held['balance']))}, not the {format_units(amount)} to refund",
                    hint="a refund gives back only fees the pool took",
                )
            changes = {pool.id: -amount, player.id: amount}
            return self._write(conn, key, PostingKind.REFUND, changes, memo=memo)

        return self._pool_posting(
            "refund_entry_fee", "refund", tournament_id, wallet, amount, key, memo, within, post
        )

    def pay_prize(
        self,
        tournament_id: str,
        wallet: Wallet,
        amount: int,
        key: str,
        *,
        memo: str | None = None,
    ) -> Posting:
        """A tournament prize of ``amount`` into ``wallet``: from the tournament's
        pool as far as it goes, the rest from the house.  The split is made
        under the wallets' locks when first posted; a retry with the same key
        returns that posting and moves nothing."""

        def post(conn: Connection, pool: Wallet, amount: int) -> Posting:
            house = self._wallet_row(conn, self.HOUSE, WalletKind.HOUSE)
            player = self._wallet_row(conn, wallet.code, WalletKind.PLAYER)
            # every wallet locked in id order first (as _write does): no deadlocks
            held = self._lock_wallets(conn, sorted({pool.id, house.id, player.id}))[pool.id]
            from_pool = min(amount, int(held["balance"]))
            changes = {pool.id: -from_pool, house.id: -(amount - from_pool), player.id: amount}
            return self._write(conn, key, PostingKind.PRIZE, changes, memo=memo)

        return self._pool_posting(
            "pay_prize", "prize", tournament_id, wallet, amount, key, memo, None, post
        )

    def _pool_posting(
        self,
        op: str,
        what: str,
        tournament_id: str,
        wallet: Wallet,
        amount: int,
        key: str,
        memo: str | None,
        within: Connection | None,
        post: Callable[[Connection, Wallet, int], Posting],
    ) -> Posting:
        """What the postings between a player and a tournament's pool share:
        the checks of ``amount`` (``what`` it is) and ``wallet``, the request
        content behind the key, and posting ``post(conn, pool, amount)`` on
        its own or ``within`` the caller's transaction."""
        amount = _amount(amount, what)
        self._check_player(wallet)
        tournament_id = _name(tournament_id, "tournament")
        content = {
            "op": op,
            "wallet": wallet.code,
            "tournament": tournament_id,
            "amount": amount,
            "memo": memo,
        }

        def work(conn: Connection) -> Posting:
            pool = self._wallet_row(conn, f"tournament:{tournament_id}", WalletKind.TOURNAMENT)
            return post(conn, pool, amount)

        if within is not None:
            return self._post_within(within, key, content, work)
        return self._post(key, content, work)

    def close_pool(self, tournament_id: str, key: str) -> Posting | None:
        """What a tournament's pool still holds, to the house (the fees its
        prizes did not take); None when it holds nothing.  Post it once the
        prizes are paid: a prize paid later would come from the house alone."""
        tournament_id = _name(tournament_id, "tournament")
        found = self.posting(_key(key))
        if found is not None:
            return dataclasses.replace(found, replayed=True)
        try:
            left = self.balance(f"tournament:{tournament_id}")
        except UnknownWalletError:
            return None
        if left == 0:
            return None
        content = {"op": "close_pool", "tournament": tournament_id, "amount": left}

        def post(conn: Connection) -> Posting:
            pool = self._wallet_row(conn, f"tournament:{tournament_id}", WalletKind.TOURNAMENT)
            house = self._wallet_row(conn, self.HOUSE, WalletKind.HOUSE)
            locked = self._lock_wallets(conn, sorted({pool.id, house.id}))
            held = int(locked[pool.id]["balance"])
            if held != left:
                # money moved in between: not the posting asked for
                raise LedgerError(
                    f"the pool of tournament {tournament_id!r} changed while it was being closed",
                    hint="close it again",
                )
            return self._write(
                conn, key, PostingKind.POOL_SURPLUS, {pool.id: -left, house.id: left}
            )

        return self._post(key, content, post)

    # --- the machinery ---------------------------------------------------------------

    def _post_within(
        self,
        conn: Connection,
        key: str,
        content: Mapping[str, Any],
        post: Callable[[Connection], Posting],
    ) -> Posting:
        """Post in the caller's transaction under ``key``: look first (a repeated
        key returns the first posting, or is a conflict), then claim the key
        and ``post``."""
        key = _key(key)
        request_hash = _request_hash(content)
        try:
            self._check_key(conn, key, request_hash)
        except _AlreadyPostedError as replay:
            return replay.posting
        conn.execute(
            insert(idempotency_keys).values(
                key=key, scope=SCOPE, request_hash=request_hash, created_at=db.utc_now()
            )
        )
        return post(conn)

    def _post(
        self, key: str, content: Mapping[str, Any], post: Callable[[Connection], Posting]
    ) -> Posting:
        _key(key)  # refused before any transaction

        def work(conn: Connection) -> Posting:
            # A concurrent poster with the same key blocks on claiming it
            # (PostgreSQL) until the first commits, then fails the unique key
            # and is retried, and the look then finds the first posting.
            return self._post_within(conn, key, content, post)

        try:
            return db.run_transaction(self._engine, work, retry_integrity=True, attempts=30)
        except IntegrityError as error:
            raise LedgerError(f"the ledger refused the posting: {error.orig}") from error
        except DBAPIError as error:
            raise LedgerError(f"the ledger could not post: {error.orig}") from error

    def _check_key(self, conn: Connection, key: str, request_hash: str) -> None:
        row = conn.execute(
            select(idempotency_keys.c.scope, idempotency_keys.c.request_hash).where(
                idempotency_keys.c.key == key
            )
        ).first()
        if row is None:
            return
        if row.scope != SCOPE or row.request_hash != request_hash:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used for a different request",
                hint="use a new key for a new posting; repeat a key only to retry the same one",
            )
        posting = self._load_posting(conn, key)
        if posting is None:  # pragma: no cover - the key and its posting commit together
            raise LedgerError(f"idempotency key {key!r} has no posting")
        raise _AlreadyPostedError(dataclasses.replace(posting, replayed=True))

    @staticmethod
    def _check_player(wallet: Wallet) -> None:
        if wallet.kind is not WalletKind.PLAYER:
            raise LedgerError(
                f"wallet {wallet.code!r} is not a player wallet",
                hint="deposits, withdrawals and bets move a player's money",
            )

    @staticmethod
    def _check_open(bet: Bet) -> None:
        if bet.status is not BetStatus.OPEN:
            raise BetStateError(
                f"bet {bet.bet_id!r} at table {bet.table_id!r} is already {bet.status.value}",
                hint="a bet is settled or returned once",
            )

    def _wallet_row(
        self, conn: Connection, code: str, kind: WalletKind, table_id: str | None = None
    ) -> Wallet:
        row = conn.execute(select(wallets).where(wallets.c.code == code)).mappings().first()
        if row is not None:
            return _wallet_from_row(row)
        if kind is WalletKind.PLAYER:
            raise UnknownWalletError(f"there is no wallet {code!r}")
        dialect_insert = sqlite_insert if db.is_sqlite(conn) else pg_insert
        conn.execute(
            dialect_insert(wallets)
            .values(
                code=code,
                kind=kind.value,
                table_id=table_id,
                balance=0,
                created_at=db.utc_now(),
            )
            .on_conflict_do_nothing(index_elements=["code"])
        )
        return _wallet_from_row(
            conn.execute(select(wallets).where(wallets.c.code == code)).mappings().one()
        )

    def _load_bet(self, conn: Connection, table_id: str, bet_id: str, *, lock: bool) -> Bet:
        query = (
            select(ledger_bets, wallets.c.code)
            .join(wallets, wallets.c.id == ledger_bets.c.wallet_id)
            .where(ledger_bets.c.table_id == table_id, ledger_bets.c.bet_id == bet_id)
        )
        if lock:
            query = query.with_for_update(of=ledger_bets)
        row = conn.execute(query).mappings().first()
        if row is None:
            raise BetStateError(
                f"there is no bet {bet_id!r} at table {table_id!r}",
                hint="settle or return only a bet the ledger placed",
            )
        return Bet(
            table_id=row["table_id"],
            bet_id=row["bet_id"],
            wallet=row["code"],
            round_id=row["round_id"],
            placed=int(row["placed"]),
            held=int(row["held"]),
            status=BetStatus(row["status"]),
        )

    @staticmethod
    def _close_bet(
        conn: Connection, bet: Bet, status: BetStatus, held: int, transaction_id: int
    ) -> None:
        conn.execute(
            update(ledger_bets)
            .where(ledger_bets.c.table_id == bet.table_id, ledger_bets.c.bet_id == bet.bet_id)
            .values(
                held=held,
                status=status.value,
                closed_by=None if status is BetStatus.OPEN else transaction_id,
            )
        )

    def _write(
        self,
        conn: Connection,
        key: str,
        kind: PostingKind,
        changes: Mapping[int, int],
        *,
        table_id: str | None = None,
        round_id: str | None = None,
        bet_id: str | None = None,
        memo: str | None = None,
        ceiling: int | None = None,
    ) -> Posting:
        """Lock the wallets, check no player or holding wallet goes negative,
        none passes the ledger's limit and no player wallet that gains passes
        ``ceiling`` (a deposit's), and write the transaction, its entries and
        the new balances."""
        changes = {wallet_id: delta for wallet_id, delta in changes.items() if delta != 0}
        if sum(changes.values()) != 0:  # pragma: no cover - every posting above balances
            raise LedgerError(f"a {kind.value} posting that does not sum to zero: {changes}")
        rows = self._lock_wallets(conn, sorted(changes))
        for wallet_id, delta in changes.items():
            row = rows[wallet_id]
            after = int(row["balance"]) + delta
            if after < 0 and row["kind"] == WalletKind.PLAYER.value:
                raise InsufficientFundsError(
                    f"wallet {row['code']} has {format_units(int(row['balance']))}, "
                    f"not the {format_units(-delta)} asked for",
                    hint="deposit more or stake less",
                )
            check_balance(str(row["code"]), int(row["balance"]), after)
            if ceiling is not None and delta > 0 and row["kind"] == WalletKind.PLAYER.value:
                check_ceiling(str(row["code"]), int(row["balance"]), after, ceiling)
            if after < 0 and row["kind"] == WalletKind.HOLDING.value:  # pragma: no cover
                raise LedgerError(f"wallet {row['code']} would go below zero")
            if after < 0 and row["kind"] == WalletKind.TOURNAMENT.value:  # pragma: no cover
                raise LedgerError(f"wallet {row['code']} would go below zero")
        now = db.utc_now()
        transaction_id = int(
            conn.execute(
                insert(ledger_transactions)
                .values(
                    idempotency_key=key,
                    kind=kind.value,
                    table_id=table_id,
                    round_id=round_id,
                    bet_id=bet_id,
                    memo=memo,
                    created_at=now,
                )
                .returning(ledger_transactions.c.id)
            ).scalar_one()
        )
        conn.execute(
            insert(ledger_entries),
            [
                {"transaction_id": transaction_id, "wallet_id": wallet_id, "amount": delta}
                for wallet_id, delta in sorted(changes.items())
            ],
        )
        for wallet_id, delta in sorted(changes.items()):
            conn.execute(
                update(wallets)
                .where(wallets.c.id == wallet_id)
                .values(balance=int(rows[wallet_id]["balance"]) + delta)
            )
        return Posting(
            transaction_id=transaction_id,
            kind=kind,
            key=key,
            entries=tuple(
                Entry(str(rows[wallet_id]["code"]), delta)
                for wallet_id, delta in sorted(changes.items())
            ),
            created_at=now,
            table_id=table_id,
            round_id=round_id,
            bet_id=bet_id,
            memo=memo,
        )

    @staticmethod
    def _lock_wallets(conn: Connection, ids: Iterable[int]) -> dict[int, RowMapping]:
        """Lock the wallets one at a time in id order (a global order: no deadlocks)."""
        rows: dict[int, RowMapping] = {}
        for wallet_id in ids:
            row = (
                conn.execute(select(wallets).where(wallets.c.id == wallet_id).with_for_update())
                .mappings()
                .one()
            )
            rows[wallet_id] = row
        return rows

    def _load_posting(self, conn: Connection, key: str) -> Posting | None:
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
