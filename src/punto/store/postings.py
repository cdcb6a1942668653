"""The ledger's posting rules, pure: balances and bet states in, entries or a typed refusal out.

Every posting the ledger knows (:class:`punto.store.ledger.Ledger`'s methods and
the server's group commit, :mod:`punto.server.tables.journal`) is decided here and
nowhere else: a *request* (:class:`Deposit`, :class:`PlaceBet`, ...) and the
state it needs (the wallets it touches as :class:`WalletState`, the bet as
:class:`BetState`) go in; a :class:`Plan` (the entries, the bet after it, the
balances after it) comes out, or a typed refusal
(:mod:`punto.store.ledger_types`) is raised.  Nothing here reads or writes a
database: the callers load the state (locked where they must) and write the
plan.

A request's ``content()`` is what its idempotency key stands for: the same key
with another content is an :class:`IdempotencyConflictError`
(:func:`check_key`), whichever path posted it first.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from punto.money import format_units
from punto.store.bounds import check_balance, check_ceiling
from punto.store.ledger_types import (
    HOUSE,
    MAX_AMOUNT,
    BetState,
    BetStateError,
    BetStatus,
    Entry,
    IdempotencyConflictError,
    InsufficientFundsError,
    LedgerError,
    PostingKind,
    UnknownWalletError,
    WalletKind,
    WalletState,
    amount,
    key,
    name,
    request_hash,
)

__all__ = [
    "HOUSE",
    "MAX_AMOUNT",
    "BetState",
    "BetStateError",
    "BetStatus",
    "Deposit",
    "Entry",
    "EntryFee",
    "IdempotencyConflictError",
    "InsufficientFundsError",
    "LedgerError",
    "PlaceBet",
    "Plan",
    "PoolRequest",
    "PoolSurplus",
    "PostingKind",
    "Prize",
    "Refund",
    "Request",
    "Resettle",
    "ReturnBet",
    "SettleBet",
    "UnknownWalletError",
    "WalletKind",
    "WalletState",
    "Withdrawal",
    "amount",
    "bet_ref",
    "check_key",
    "holding_code",
    "key",
    "name",
    "plan",
    "pool_code",
    "request_hash",
    "resettlement",
    "unopened",
    "validate",
    "wallets_needed",
]


@dataclass(frozen=True, slots=True)
class Plan:
    """What a posting writes: its entries (merged by wallet, none zero), the bet
    after it (new when ``kind`` is ``BET``), and every touched wallet's balance after it."""

    kind: PostingKind
    key: str
    request_hash: str
    entries: tuple[Entry, ...]
    balances: Mapping[str, int]
    table_id: str | None = None
    round_id: str | None = None
    bet_id: str | None = None
    memo: str | None = None
    bet: BetState | None = None
    #: the balance after it of the player wallet it is about (None: no player's)
    player_balance: int | None = None


# -- the requests ---------------------------------------------------------------------------------


class _Request:
    """What every request has: a key, and the hash of its content."""

    key: str

    def content(self) -> dict[str, Any]:  # pragma: no cover - every request defines it
        raise NotImplementedError

    @functools.cached_property
    def request_hash(self) -> str:
        return request_hash(self.content())


@dataclass(frozen=True)
class Deposit(_Request):
    """Chips bought: the house credits ``wallet``; not past ``max_balance`` (if given)."""

    wallet: str
    amount: int
    key: str
    memo: str | None = None
    max_balance: int | None = None

    def content(self) -> dict[str, Any]:
        return {"op": "deposit", "wallet": self.wallet, "amount": self.amount, "memo": self.memo}


@dataclass(frozen=True)
class Withdrawal(_Request):
    """Chips cashed: ``amount`` from ``wallet`` back to the house."""

    wallet: str
    amount: int
    key: str
    memo: str | None = None

    def content(self) -> dict[str, Any]:
        return {"op": "withdraw", "wallet": self.wallet, "amount": self.amount, "memo": self.memo}


@dataclass(frozen=True)
class PlaceBet(_Request):
    """``amount`` from ``wallet`` (a code, ``player:NAME``) into ``table_id``'s holding
    account, placing bet ``bet_id`` of ``round_id``."""

    wallet: str
    table_id: str
    bet_id: str
    round_id: str | None
    amount: int
    key: str

    def content(self) -> dict[str, Any]:
        return {
            "op": "place_bet",
            "wallet": self.wallet,
            "table": self.table_id,
            "amount": self.amount,
            "bet": self.bet_id,
            "round": self.round_id,
        }


@dataclass(frozen=True)
class SettleBet(_Request):
    """The player gets ``payout`` of an open bet (stake + winnings - commission for a
    win, the stake for a push, 0 for a loss); the house takes or pays the rest."""

    table_id: str
    bet_id: str
    payout: int
    key: str

    def content(self) -> dict[str, Any]:
        return {
            "op": "settle_bet",
            "table": self.table_id,
            "bet": self.bet_id,
            "payout": self.payout,
        }


@dataclass(frozen=True)
class ReturnBet(_Request):
    """``amount`` (all it holds if None) of an open bet back to its player."""

    table_id: str
    bet_id: str
    key: str
    amount: int | None = None

    def content(self) -> dict[str, Any]:
        return {
            "op": "return_bet",
            "table": self.table_id,
            "bet": self.bet_id,
            "amount": self.amount,
        }


@dataclass(frozen=True)
class _PoolRequest(_Request):
    """Money between a player's wallet and a tournament's pool: the fields of
    an entry fee, a refund and a prize, which differ only in what they do."""

    #: the request's name in its content (and so in its hash)
    op: ClassVar[str]

    wallet: str
    tournament_id: str
    amount: int
    key: str
    memo: str | None = None

    def content(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "wallet": self.wallet,
            "tournament": self.tournament_id,
            "amount": self.amount,
            "memo": self.memo,
        }


@dataclass(frozen=True)
class EntryFee(_PoolRequest):
    """A tournament entry: ``amount`` from ``wallet`` into the tournament's pool."""

    op = "pay_entry_fee"


@dataclass(frozen=True)
class Refund(_PoolRequest):
    """An entry fee back from the tournament's pool into ``wallet``."""

    op = "refund_entry_fee"


@dataclass(frozen=True)
class Prize(_PoolRequest):
    """A prize into ``wallet``: from the pool as far as it goes, the rest from the house."""

    op = "pay_prize"


@dataclass(frozen=True)
class PoolSurplus(_Request):
    """What a tournament's pool holds (``amount``, as read) to the house."""

    tournament_id: str
    amount: int
    key: str

    def content(self) -> dict[str, Any]:
        return {"op": "close_pool", "tournament": self.tournament_id, "amount": self.amount}


@dataclass(frozen=True)
class Resettle(_Request):
    """``delta`` between a closed bet's player and the house (see :func:`resettlement`)."""

    table_id: str
    bet_id: str
    delta: int
    key: str
    memo: str | None = None

    def content(self) -> dict[str, Any]:
        return {"op": "resettle", "table": self.table_id, "bet": self.bet_id, "delta": self.delta}


PoolRequest = EntryFee | Refund | Prize
Request = (
    Deposit
    | Withdrawal
    | PlaceBet
    | SettleBet
    | ReturnBet
    | EntryFee
    | Refund
    | Prize
    | PoolSurplus
    | Resettle
)


def holding_code(table_id: str) -> str:
    return f"holding:{table_id}"


def pool_code(tournament_id: str) -> str:
    return f"tournament:{tournament_id}"


def bet_ref(request: Request) -> tuple[str, str] | None:
    """The (table, bet) whose state ``request`` needs (a bet placed: to be absent)."""
    if isinstance(request, PlaceBet | SettleBet | ReturnBet | Resettle):
        return (request.table_id, request.bet_id)
    return None


def wallets_needed(request: Request, bet: BetState | None = None) -> tuple[str, ...]:
    """The codes of the wallets :func:`plan` needs for ``request`` (``bet``: its
    bet, whose player's wallet a settlement, return or resettlement touches)."""
    player = bet.wallet if bet is not None else None
    match request:
        case Deposit() | Withdrawal():
            return (request.wallet, HOUSE)
        case PlaceBet():
            return (request.wallet, holding_code(request.table_id))
        case SettleBet():
            return (holding_code(request.table_id), HOUSE, *((player,) if player else ()))
        case ReturnBet():
            return (holding_code(request.table_id), *((player,) if player else ()))
        case EntryFee() | Refund():
            return (request.wallet, pool_code(request.tournament_id))
        case Prize():
            return (request.wallet, pool_code(request.tournament_id), HOUSE)
        case PoolSurplus():
            return (pool_code(request.tournament_id), HOUSE)
        case Resettle():
            return (HOUSE, *((player,) if player else ()))


# -- the rules ------------------------------------------------------------------------------------


def check_key(request: Request, known: str | None) -> bool:
    """Whether ``request`` was posted before, from the request hash its key was
    posted with (``known``, None if unused): False to post it, True for a
    replay; an :class:`IdempotencyConflictError` for a key used otherwise."""
    if known is None:
        return False
    if known != request.request_hash:
        raise IdempotencyConflictError(
            f"idempotency key {request.key!r} was already used for a different request",
            hint="use a new key for a new posting; repeat a key only to retry the same one",
        )
    return True


def validate(request: Request) -> None:
    """Refuse a request whose values the ledger cannot take (before reading anything)."""
    key(request.key)
    match request:
        case Deposit() | Withdrawal():
            amount(request.amount)
        case PlaceBet():
            amount(request.amount, "stake")
            name(request.table_id, "table")
            name(request.bet_id, "bet id")
        case SettleBet():
            amount(request.payout, "payout", zero=True)
        case ReturnBet():
            if request.amount is not None:
                amount(request.amount)
        case EntryFee():
            amount(request.amount, "entry fee")
            name(request.tournament_id, "tournament")
        case Refund():
            amount(request.amount, "refund")
            name(request.tournament_id, "tournament")
        case Prize():
            amount(request.amount, "prize")
            name(request.tournament_id, "tournament")
        case PoolSurplus():
            amount(request.amount, "pool surplus")
            name(request.tournament_id, "tournament")
        case Resettle():
            name(request.bet_id, "bet id")


def plan(request: Request, wallets: Mapping[str, WalletState], bet: BetState | None = None) -> Plan:
    """The posting ``request`` makes given ``wallets`` (at least those of
    :func:`wallets_needed`) and ``bet`` (the state of :func:`bet_ref`'s bet,
    None if there is none), or the refusal raised."""
    validate(request)
    match request:
        case Deposit():
            _player(wallets, request.wallet)
            return _post(
                request,
                PostingKind.DEPOSIT,
                wallets,
                request.wallet,
                [(request.wallet, request.amount), (HOUSE, -request.amount)],
                memo=request.memo,
                ceiling=request.max_balance,
            )
        case Withdrawal():
            _player(wallets, request.wallet)
            return _post(
                request,
                PostingKind.WITHDRAWAL,
                wallets,
                request.wallet,
                [(request.wallet, -request.amount), (HOUSE, request.amount)],
                memo=request.memo,
            )
        case PlaceBet():
            _player(wallets, request.wallet)
            if bet is not None:
                raise BetStateError(
                    f"bet {request.bet_id!r} at table {request.table_id!r} was already placed",
                    hint="give each bet at a table its own bet id",
                )
            placed = BetState(
                request.table_id,
                request.bet_id,
                request.wallet,
                request.round_id,
                request.amount,
                request.amount,
                BetStatus.OPEN,
            )
            return _post(
                request,
                PostingKind.BET,
                wallets,
                request.wallet,
                [
                    (request.wallet, -request.amount),
                    (holding_code(request.table_id), request.amount),
                ],
                bet=placed,
            )
        case SettleBet():
            open_bet = _open(request, bet)
            return _post(
                request,
                PostingKind.SETTLEMENT,
                wallets,
                open_bet.wallet,
                [
                    (holding_code(request.table_id), -open_bet.held),
                    (open_bet.wallet, request.payout),
                    (HOUSE, open_bet.held - request.payout),
                ],
                bet=_replace_bet(open_bet, 0, BetStatus.SETTLED),
            )
        case ReturnBet():
            open_bet = _open(request, bet)
            back = open_bet.held if request.amount is None else request.amount
            if back > open_bet.held:
                raise LedgerError(
                    f"cannot return {format_units(back)} of bet {request.bet_id!r}: "
                    f"it holds {format_units(open_bet.held)}",
                    hint="return at most what the bet still holds",
                )
            left = open_bet.held - back
            return _post(
                request,
                PostingKind.RETURN,
                wallets,
                open_bet.wallet,
                [(holding_code(request.table_id), -back), (open_bet.wallet, back)],
                bet=_replace_bet(open_bet, left, BetStatus.OPEN if left else BetStatus.RETURNED),
            )
        case EntryFee():
            _player(wallets, request.wallet)
            return _post(
                request,
                PostingKind.ENTRY_FEE,
                wallets,
                request.wallet,
                [
                    (request.wallet, -request.amount),
                    (pool_code(request.tournament_id), request.amount),
                ],
                memo=request.memo,
            )
        case Refund():
            _player(wallets, request.wallet)
            pool = _pool(wallets, request.tournament_id)
            if pool.balance < request.amount:
                raise LedgerError(
                    f"the pool of tournament {request.tournament_id!r} holds "
                    f"{format_units(pool.balance)}, not the {format_units(request.amount)} to refund",
                    hint="a refund gives back only fees the pool took",
                )
            return _post(
                request,
                PostingKind.REFUND,
                wallets,
                request.wallet,
                [(pool.code, -request.amount), (request.wallet, request.amount)],
                memo=request.memo,
            )
        case Prize():
            _player(wallets, request.wallet)
            pool = _pool(wallets, request.tournament_id)
            from_pool = min(request.amount, max(pool.balance, 0))
            return _post(
                request,
                PostingKind.PRIZE,
                wallets,
                request.wallet,
                [
                    (pool.code, -from_pool),
                    (HOUSE, -(request.amount - from_pool)),
                    (request.wallet, request.amount),
                ],
                memo=request.memo,
            )
        case PoolSurplus():
            pool = _pool(wallets, request.tournament_id)
            if pool.balance != request.amount:
                # money moved in between: not the posting asked for
                raise LedgerError(
                    f"the pool of tournament {request.tournament_id!r} changed while it was "
                    "being closed",
                    hint="close it again",
                )
            return _post(
                request,
                PostingKind.POOL_SURPLUS,
                wallets,
                None,
                [(pool.code, -request.amount), (HOUSE, request.amount)],
            )
        case Resettle():
            closed = _closed(request, bet)
            return _post(
                request,
                PostingKind.RESETTLEMENT,
                wallets,
                closed.wallet,
                [(closed.wallet, request.delta), (HOUSE, -request.delta)],
                bet=closed,
                memo=request.memo,
            )


def resettlement(
    bet: BetState, net_now: int, net_wanted: int, done: int, *, memo: str | None = None
) -> Resettle | None:
    """The resettlement making closed ``bet`` come to ``net_wanted`` for its player
    from ``net_now`` (None if it does already); ``done``: the resettlements it had
    (its key counts them, so that each is posted once)."""
    delta = net_wanted - net_now
    if delta == 0:
        return None
    return Resettle(
        bet.table_id,
        bet.bet_id,
        delta,
        key=f"resettle:{bet.table_id}:{bet.bet_id}:{done + 1}",
        memo=memo,
    )


def _player(wallets: Mapping[str, WalletState], code: str) -> None:
    found = wallets.get(code)
    if found is not None and found.kind is not WalletKind.PLAYER:
        raise LedgerError(
            f"wallet {code!r} is not a player wallet",
            hint="deposits, withdrawals and bets move a player's money",
        )


def _pool(wallets: Mapping[str, WalletState], tournament_id: str) -> WalletState:
    code = pool_code(tournament_id)
    return wallets.get(code) or WalletState(code, WalletKind.TOURNAMENT, 0)


def _open(request: SettleBet | ReturnBet, bet: BetState | None) -> BetState:
    if bet is None:
        raise BetStateError(
            f"there is no bet {request.bet_id!r} at table {request.table_id!r}",
            hint="settle or return only a bet the ledger placed",
        )
    if bet.status is not BetStatus.OPEN:
        raise BetStateError(
            f"bet {bet.bet_id!r} at table {bet.table_id!r} is already {bet.status.value}",
            hint="a bet is settled or returned once",
        )
    return bet


def _closed(request: Resettle, bet: BetState | None) -> BetState:
    if bet is None:
        raise BetStateError(
            f"there is no bet {request.bet_id!r} at table {request.table_id!r}",
            hint="resettle only a bet the ledger placed",
        )
    if bet.status is BetStatus.OPEN:
        raise BetStateError(
            f"bet {bet.bet_id!r} at table {bet.table_id!r} is still open",
            hint="settle or return it; only a closed bet is resettled",
        )
    return bet


def _replace_bet(bet: BetState, held: int, status: BetStatus) -> BetState:
    return BetState(bet.table_id, bet.bet_id, bet.wallet, bet.round_id, bet.placed, held, status)


def _post(
    request: Request,
    kind: PostingKind,
    wallets: Mapping[str, WalletState],
    player: str | None,
    changes: list[tuple[str, int]],
    *,
    bet: BetState | None = None,
    memo: str | None = None,
    ceiling: int | None = None,
) -> Plan:
    """Check the changes (no player, holding or pool wallet below zero, none past
    the ledger's limit, no player wallet that gains past ``ceiling``) and plan them."""
    merged: dict[str, int] = {}
    for code, delta in changes:
        merged[code] = merged.get(code, 0) + delta
    merged = {code: delta for code, delta in merged.items() if delta != 0}
    if sum(merged.values()) != 0:  # pragma: no cover - every posting above balances
        raise LedgerError(f"a {kind.value} posting that does not sum to zero: {merged}")
    balances: dict[str, int] = {}
    for code, delta in merged.items():
        state = wallets.get(code) or unopened(code)
        after = state.balance + delta
        if after < 0 and state.kind is WalletKind.PLAYER:
            raise InsufficientFundsError(
                f"wallet {code} has {format_units(state.balance)}, "
                f"not the {format_units(-delta)} asked for",
                hint="deposit more or stake less",
            )
        check_balance(code, state.balance, after)
        if ceiling is not None and delta > 0 and state.kind is WalletKind.PLAYER:
            check_ceiling(code, state.balance, after, ceiling)
        if after < 0 and state.kind is not WalletKind.HOUSE:  # pragma: no cover
            raise LedgerError(f"wallet {code} would go below zero")
        balances[code] = after
    return Plan(
        kind=kind,
        key=request.key,
        request_hash=request.request_hash,
        entries=tuple(Entry(code, delta) for code, delta in merged.items()),
        balances=balances,
        table_id=bet.table_id if bet is not None else None,
        round_id=bet.round_id if bet is not None else None,
        bet_id=bet.bet_id if bet is not None else None,
        memo=memo,
        bet=bet,
        player_balance=None
        if player is None
        else balances.get(player, (wallets.get(player) or unopened(player)).balance),
    )


def unopened(code: str) -> WalletState:
    """A wallet not opened yet holds nothing (the house, a holding account and a
    pool are opened when first needed; a player's at the cage)."""
    if code == HOUSE:
        return WalletState(code, WalletKind.HOUSE, 0)
    if code.startswith("holding:"):
        return WalletState(code, WalletKind.HOLDING, 0)
    if code.startswith("tournament:"):
        return WalletState(code, WalletKind.TOURNAMENT, 0)
    return WalletState(code, WalletKind.PLAYER, 0)
