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

**One set of rules.** What each posting writes, and what it refuses, is
decided by :mod:`punto.store.postings` (pure: balances and bet states in,
entries or a typed refusal out) and written by :mod:`punto.store.ledger_sql`;
the server's group commit (:mod:`punto.server.tables.journal`) uses the same two.

**Concurrency.** On SQLite a posting runs in ``BEGIN IMMEDIATE``, so writers
take turns.  On PostgreSQL it locks the bet and then the wallets it touches
(``SELECT ... FOR UPDATE``, in id order, so two postings never deadlock), checks
the balances under the lock, and writes; a deadlock or serialization failure is
retried.  Whatever was read, a debit is written only where the database finds
the money (:mod:`punto.store.ledger_sql`): two postings racing for a player's
last chips, from any number of processes, never both succeed.

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
from collections.abc import Callable, Mapping

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from punto.store import db, ledger_sql, postings
from punto.store.db import ledger_bets, ledger_transactions, wallets
from punto.store.ledger_reads import (
    Audit,
    Posting,
    Wallet,
    audit,
    bet_net,
    history_keys,
    load_posting,
    nets,
    wallet_from_row,
)
from punto.store.postings import (
    HOUSE,
    MAX_AMOUNT,
    BetStateError,
    BetStatus,
    Entry,
    IdempotencyConflictError,
    InsufficientFundsError,
    LedgerError,
    PostingKind,
    UnknownWalletError,
    WalletKind,
)
from punto.store.postings import BetState as Bet

__all__ = [
    "MAX_AMOUNT",
    "Audit",
    "Bet",
    "BetStateError",
    "BetStatus",
    "Checks",
    "Entry",
    "IdempotencyConflictError",
    "InsufficientFundsError",
    "Ledger",
    "LedgerError",
    "Posting",
    "PostingKind",
    "UnknownWalletError",
    "Wallet",
    "WalletKind",
]

#: A hook run in every write transaction before it commits (a lease's fencing
#: check, say): it raises to refuse the commit.
Checks = Callable[[Connection], None]

#: The kinds :meth:`Ledger.totals` always reports (others once they have wallets).
_ALWAYS_TOTALLED = (WalletKind.PLAYER, WalletKind.HOUSE, WalletKind.HOLDING)


class Ledger:
    """The wallets and postings in one database (see the module's docstring)."""

    HOUSE = HOUSE

    def __init__(self, engine: Engine, *, checks: Checks | None = None) -> None:
        self._engine = engine
        #: run in every write transaction of the ledger before it commits
        self._checks = checks

    @property
    def engine(self) -> Engine:
        return self._engine

    # --- wallets ---------------------------------------------------------------------

    def player_wallet(self, player: str, *, account_id: int | None = None) -> Wallet:
        """The wallet of ``player`` (the name the table knows them by), opened if new."""
        player = postings.name(player, "player")
        return self._open_wallet(
            f"player:{player}", WalletKind.PLAYER, owner=player, account_id=account_id
        )

    def house(self) -> Wallet:
        """The house's account."""
        return self._open_wallet(self.HOUSE, WalletKind.HOUSE)

    def holding(self, table_id: str) -> Wallet:
        """The account holding the stakes in play at ``table_id``."""
        table_id = postings.name(table_id, "table")
        return self._open_wallet(f"holding:{table_id}", WalletKind.HOLDING, table_id=table_id)

    def tournament_pool(self, tournament_id: str) -> Wallet:
        """The wallet holding the entry fees of ``tournament_id``, opened if new."""
        tournament_id = postings.name(tournament_id, "tournament")
        return self._open_wallet(f"tournament:{tournament_id}", WalletKind.TOURNAMENT)

    def wallet(self, code: str) -> Wallet:
        """The wallet named ``code``; :class:`UnknownWalletError` if there is none."""
        with self._engine.connect() as conn:
            row = conn.execute(select(wallets).where(wallets.c.code == code)).mappings().first()
        if row is None:
            raise UnknownWalletError(f"there is no wallet {code!r}")
        return wallet_from_row(row)

    def wallets(self, kind: WalletKind | None = None) -> list[Wallet]:
        query = select(wallets).order_by(wallets.c.id)
        if kind is not None:
            query = query.where(wallets.c.kind == kind.value)
        with self._engine.connect() as conn:
            return [wallet_from_row(row) for row in conn.execute(query).mappings()]

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
                self._check(conn)
            return wallet_from_row(row)

        try:
            wallet = wallet_from_row(found) if found else db.run_transaction(self._engine, work)
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
            return self._bet(conn, table_id, bet_id, lock=False)

    def posting(self, key: str) -> Posting | None:
        """The posting made with idempotency key ``key``, if there is one."""
        with self._engine.connect() as conn:
            return load_posting(conn, key)

    def history(self, wallet: Wallet | str) -> list[Posting]:
        """Every posting that touched ``wallet``, oldest first."""
        code = wallet.code if isinstance(wallet, Wallet) else wallet
        with db.read_transaction(self._engine) as conn:
            found = [load_posting(conn, key) for key in history_keys(conn, code)]
        return [p for p in found if p is not None]

    def audit(self) -> Audit:
        """Check the whole ledger in one snapshot: every transaction sums to zero,
        every balance is the sum of its entries, no player or holding balance is
        negative, each holding account holds exactly its open bets' stakes, and
        everything sums to zero."""
        with db.read_transaction(self._engine) as conn:
            return audit(conn)

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
        return self.post(postings.Deposit(wallet.code, amount, key, memo, max_balance))

    def withdraw(
        self, wallet: Wallet, amount: int, key: str, *, memo: str | None = None
    ) -> Posting:
        """Chips cashed: ``amount`` from ``wallet`` back to the house."""
        return self.post(postings.Withdrawal(wallet.code, amount, key, memo))

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
        bet = key if bet_id is None else bet_id
        return self.post(postings.PlaceBet(wallet.code, table_id, bet, round_id, amount, key))

    def settle_bet(self, table_id: str, bet_id: str, payout: int, key: str) -> Posting:
        """Settle an open bet: its whole stake leaves the holding account, the
        player gets ``payout`` (stake + winnings - commission for a win, the
        stake for a push, 0 for a loss), and the house takes or pays the rest."""
        return self.post(postings.SettleBet(table_id, bet_id, payout, key))

    def return_bet(
        self, table_id: str, bet_id: str, key: str, *, amount: int | None = None
    ) -> Posting:
        """Give back ``amount`` of an open bet's stake (all of it by default):
        withdrawn before "No more bets", reduced to meet a limit, or voided."""
        return self.post(postings.ReturnBet(table_id, bet_id, key, amount))

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
            self._bet(conn, table_id, bet_id, lock=False)
            return bet_net(conn, table_id, bet_id)

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
            postings.name(bet_id, "bet id")

        def work(conn: Connection) -> list[Posting]:
            bets = [self._bet(conn, table_id, b, lock=True) for b in sorted(nets)]
            for bet in bets:
                if bet.status is BetStatus.OPEN:
                    raise BetStateError(
                        f"bet {bet.bet_id!r} at table {table_id!r} is still open",
                        hint="settle or return it; only a closed bet is resettled",
                    )
            # Every wallet locked up front, in id order (the order every posting keeps).
            ledger_sql.load_wallets(conn, {HOUSE, *(b.wallet for b in bets)}, lock=True)
            made: list[Posting] = []
            for bet in bets:
                done = conn.execute(
                    select(func.count())
                    .select_from(ledger_transactions)
                    .where(
                        ledger_transactions.c.table_id == table_id,
                        ledger_transactions.c.bet_id == bet.bet_id,
                        ledger_transactions.c.kind == PostingKind.RESETTLEMENT.value,
                    )
                ).scalar_one()
                now = bet_net(conn, table_id, bet.bet_id)
                request = postings.resettlement(bet, now, nets[bet.bet_id], int(done), memo=memo)
                if request is not None:
                    made.append(self._post_in(conn, request))
            self._check(conn)
            return made

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
            return nets(
                conn,
                table_id,
                ledger_bets.c.round_id == round_id,
                ledger_bets.c.status != BetStatus.OPEN.value,
            )

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
        request = postings.EntryFee(wallet.code, tournament_id, amount, key, memo)
        return self.post(request, within=within)

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
        request = postings.Refund(wallet.code, tournament_id, amount, key, memo)
        return self.post(request, within=within)

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
        return self.post(postings.Prize(wallet.code, tournament_id, amount, key, memo))

    def close_pool(self, tournament_id: str, key: str) -> Posting | None:
        """What a tournament's pool still holds, to the house (the fees its
        prizes did not take); None when it holds nothing.  Post it once the
        prizes are paid: a prize paid later would come from the house alone."""
        tournament_id = postings.name(tournament_id, "tournament")
        found = self.posting(postings.key(key))
        if found is not None:
            return dataclasses.replace(found, replayed=True)
        try:
            left = self.balance(postings.pool_code(tournament_id))
        except UnknownWalletError:
            return None
        if left == 0:
            return None
        return self.post(postings.PoolSurplus(tournament_id, left, key))

    # --- the machinery ---------------------------------------------------------------

    def post(self, request: postings.Request, *, within: Connection | None = None) -> Posting:
        """Make the posting ``request`` asks for (:mod:`punto.store.postings`), on
        its own or ``within`` the caller's write transaction; a repeated key
        returns the first posting (``replayed``), or is a conflict."""
        postings.validate(request)  # refused before any transaction
        if within is not None:
            return self._post_in(within, request)

        def work(conn: Connection) -> Posting:
            # A concurrent poster with the same key waits for the first's locks
            # (PostgreSQL), then fails the unique key and is retried, and the
            # look then finds the first posting.
            posting = self._post_in(conn, request)
            if not posting.replayed:
                self._check(conn)
            return posting

        try:
            return db.run_transaction(self._engine, work, retry_integrity=True, attempts=30)
        except IntegrityError as error:
            raise LedgerError(f"the ledger refused the posting: {error.orig}") from error
        except DBAPIError as error:
            raise LedgerError(f"the ledger could not post: {error.orig}") from error

    def _post_in(self, conn: Connection, request: postings.Request) -> Posting:
        """Post ``request`` in ``conn``'s transaction: look at its key, lock the
        bet and then the wallets (id order), plan it, write it."""
        known = ledger_sql.load_keys(conn, [request.key]).get(request.key)
        if postings.check_key(request, known):
            posting = load_posting(conn, request.key)
            if posting is None:  # pragma: no cover - the key and its posting commit together
                raise LedgerError(f"idempotency key {request.key!r} has no posting")
            return dataclasses.replace(posting, replayed=True)
        ref = postings.bet_ref(request)
        bet = None if ref is None else ledger_sql.load_bets(conn, [ref], lock=True).get(ref)
        codes = postings.wallets_needed(request, bet)
        rows = ledger_sql.load_wallets(conn, codes, lock=True)
        missing = [code for code in codes if code not in rows]
        if missing:
            players = [c for c in missing if postings.unopened(c).kind is WalletKind.PLAYER]
            if players:
                raise UnknownWalletError(f"there is no wallet {players[0]!r}")
            ledger_sql.open_wallets(conn, missing)
            rows = ledger_sql.load_wallets(conn, codes, lock=True)
        made = postings.plan(request, {code: row.state for code, row in rows.items()}, bet)
        (transaction_id,) = ledger_sql.new_transaction_ids(conn, 1)
        ids = {code: row.id for code, row in rows.items()}
        now = db.utc_now()
        ledger_sql.write_plans(conn, [(transaction_id, made)], ids, now)
        return Posting(
            transaction_id=transaction_id,
            kind=made.kind,
            key=made.key,
            entries=tuple(sorted(made.entries, key=lambda e: ids[e.wallet])),
            created_at=now,
            table_id=made.table_id,
            round_id=made.round_id,
            bet_id=made.bet_id,
            memo=made.memo,
        )

    def _check(self, conn: Connection) -> None:
        if self._checks is not None:
            self._checks(conn)

    @staticmethod
    def _bet(conn: Connection, table_id: str, bet_id: str, *, lock: bool) -> Bet:
        found = ledger_sql.load_bets(conn, [(table_id, bet_id)], lock=lock).get((table_id, bet_id))
        if found is None:
            raise BetStateError(
                f"there is no bet {bet_id!r} at table {table_id!r}",
                hint="settle or return only a bet the ledger placed",
            )
        return found
