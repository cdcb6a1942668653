"""What the ledger's posting rules refuse before any money moves
(``punto.store.postings``): amounts that would move money the wrong way, a
wallet taken past the ledger's limit or the cage's ceiling, an account
other than the house taken below zero -- each refusal as the cage or the
pit reads it, and the wallets a request for an unknown bet needs -- and what
a plan records beside its entries: the memo given, the bet after it.

Wallets, unless a test says otherwise: ann 100.00, the house -100.00, the
holding account of table t1 20.00, the pool of tournament cup 30.00; bet b1
at t1 is ann's, 20.00 open.
"""

from __future__ import annotations

import pytest

from punto.errors import PuntoError
from punto.store import postings
from punto.store.bounds import LEDGER_LIMIT
from punto.store.postings import BetState, BetStatus, WalletKind, WalletState

ANN = WalletState("player:ann", WalletKind.PLAYER, 10_000)
HOUSE = WalletState("house", WalletKind.HOUSE, -10_000)
HOLDING = WalletState("holding:t1", WalletKind.HOLDING, 2_000)
POOL = WalletState("tournament:cup", WalletKind.TOURNAMENT, 3_000)
WALLETS = {w.code: w for w in (ANN, HOUSE, HOLDING, POOL)}
OPEN = BetState("t1", "b1", "player:ann", "r1", 2_000, 2_000, BetStatus.OPEN)


def refused(
    request: postings.Request,
    wallets: dict[str, WalletState] = WALLETS,
    bet: BetState | None = None,
) -> str:
    with pytest.raises(PuntoError) as refusal:
        postings.plan(request, wallets, bet)
    return str(refusal.value)


#: Amounts that, taken as given, would move money against the posting's
#: sense: a "return" taking stake from the player, a "fee" paying the player
#: out of the pool, a "refund" taking from the player into the pool.
WRONG_WAY: list[tuple[postings.Request, str]] = [
    (postings.ReturnBet("t1", "b1", "k", -500), "amount -5.00 must be positive"),
    (postings.ReturnBet("t1", "b1", "k", 0), "amount 0.00 must be positive"),
    (postings.EntryFee("player:ann", "cup", -1_000, "k"), "entry fee -10.00 must be positive"),
    (postings.Refund("player:ann", "cup", -1_000, "k"), "refund -10.00 must be positive"),
    (postings.Prize("player:ann", "cup", -1_000, "k"), "prize -10.00 must be positive"),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "refusal"), WRONG_WAY)
def test_an_amount_that_would_move_money_the_wrong_way_is_refused(
    request_: postings.Request, refusal: str
) -> None:
    assert refused(request_, bet=OPEN) == refusal


#: Names and amounts the ledger cannot file a posting under: refused
#: before a wallet is read, saying what to give.
NOT_USABLE: list[tuple[postings.Request, str]] = [
    (postings.PlaceBet("player:ann", "", "b2", "r1", 100, "k"),
     "table '' is not usable; give 1 to 150 characters"),
    (postings.PlaceBet("player:ann", "t1", "", "r1", 100, "k"),
     "bet id '' is not usable; give 1 to 150 characters"),
    (postings.Resettle("t1", "", 10, "k"), "bet id '' is not usable; give 1 to 150 characters"),
    (postings.EntryFee("player:ann", "", 1_000, "k"),
     "tournament '' is not usable; give 1 to 150 characters"),
    (postings.Refund("player:ann", "", 1_000, "k"),
     "tournament '' is not usable; give 1 to 150 characters"),
    (postings.Prize("player:ann", "", 1_000, "k"),
     "tournament '' is not usable; give 1 to 150 characters"),
    (postings.PoolSurplus("", 3_000, "k"), "tournament '' is not usable; give 1 to 150 characters"),
    # a pool that never took a fee closes with nothing: no posting of nothing
    (postings.PoolSurplus("new", 0, "k"), "pool surplus 0.00 must be positive"),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "refusal"), NOT_USABLE)
def test_a_name_or_amount_the_ledger_cannot_file_is_refused_saying_what_to_give(
    request_: postings.Request, refusal: str
) -> None:
    assert refused(request_) == refusal


def test_winnings_that_would_take_a_wallet_past_the_ledgers_limit_are_refused_whole() -> None:
    rich = {**WALLETS, ANN.code: WalletState(ANN.code, WalletKind.PLAYER, LEDGER_LIMIT - 100)}
    assert refused(postings.SettleBet("t1", "b1", 3_900, "k"), rich, OPEN) == (
        "wallet player:ann would hold 10000000000000038.00, past the ledger's limit of "
        "10000000000000000.00 (it holds 9999999999999999.00); nothing was written; no table "
        "or cage moves that much"
    )


def test_a_deposit_one_minor_unit_past_the_wallets_ceiling_is_refused_whole() -> None:
    assert refused(postings.Deposit("player:ann", 1, "k", max_balance=10_000)) == (
        "wallet player:ann holds 100.00; this would take it to 100.01, past the most a wallet "
        "may hold (100.00); deposit at most the difference, or ask the operator to raise "
        "punto serve --max-balance"
    )
    up_to = postings.plan(postings.Deposit("player:ann", 1, "k", max_balance=10_001), WALLETS)
    assert up_to.player_balance == 10_001


def test_a_holding_account_is_never_taken_below_zero_whatever_the_bet_says() -> None:
    """A table's holding account holds the stakes of its open bets: a bet
    that says it holds more than the account does is refused, not paid out
    of nothing."""
    short = {**WALLETS, HOLDING.code: WalletState(HOLDING.code, WalletKind.HOLDING, 1_000)}
    assert refused(postings.SettleBet("t1", "b1", 0, "k"), short, OPEN) == (
        "wallet holding:t1 would go below zero"
    )


def test_a_request_for_a_bet_the_ledger_does_not_hold_needs_no_players_wallet() -> None:
    """Without the bet there is no player to load: only the table's and the
    house's accounts, and the plan then refuses the unknown bet."""
    assert postings.wallets_needed(postings.Resettle("t1", "b9", 10, "k")) == ("house",)
    assert postings.wallets_needed(postings.SettleBet("t1", "b9", 10, "k")) == (
        "holding:t1",
        "house",
    )
    assert postings.wallets_needed(postings.ReturnBet("t1", "b9", "k")) == ("holding:t1",)
    assert refused(postings.Resettle("t1", "b9", 10, "k")) == (
        "there is no bet 'b9' at table 't1'; resettle only a bet the ledger placed"
    )


def test_a_lost_bet_of_a_wallet_never_loaded_leaves_its_player_with_nothing() -> None:
    """A loss moves nothing to the player: their balance after it is what
    their wallet held -- nothing, for a wallet the caller did not load."""
    without_ann = {c: w for c, w in WALLETS.items() if c != ANN.code}
    lost = postings.plan(postings.SettleBet("t1", "b1", 0, "k"), without_ann, OPEN)
    assert {e.wallet: e.amount for e in lost.entries} == {"holding:t1": -2_000, "house": 2_000}
    assert lost.player_balance == 0


SETTLED = BetState("t1", "b1", "player:ann", "r1", 2_000, 0, BetStatus.SETTLED)

#: What a plan records beyond its entries: the memo the cage or the pit gave
#: (the journal's and the audit's words) and the bet as it stands after it.
RECORDED: list[tuple[postings.Request, BetState | None, str | None, BetState | None]] = [
    (postings.Deposit("player:ann", 500, "k", memo="cash"), None, "cash", None),
    (postings.Withdrawal("player:ann", 500, "k", memo="chips out"), None, "chips out", None),
    (postings.EntryFee("player:ann", "cup", 1_000, "k", memo="seat 3"), None, "seat 3", None),
    (postings.Refund("player:ann", "cup", 1_000, "k", memo="withdrew"), None, "withdrew", None),
    (postings.Prize("player:ann", "cup", 5_000, "k", memo="1st"), None, "1st", None),
    (postings.PlaceBet("player:ann", "t1", "b2", "r1", 1_500, "k"), None, None,
     BetState("t1", "b2", "player:ann", "r1", 1_500, 1_500, BetStatus.OPEN)),
    (postings.SettleBet("t1", "b1", 3_900, "k"), OPEN, None, SETTLED),
    (postings.ReturnBet("t1", "b1", "k", 500), OPEN, None,
     BetState("t1", "b1", "player:ann", "r1", 2_000, 1_500, BetStatus.OPEN)),
    (postings.ReturnBet("t1", "b1", "k"), OPEN, None,
     BetState("t1", "b1", "player:ann", "r1", 2_000, 0, BetStatus.RETURNED)),
    (postings.Resettle("t1", "b1", -1_900, "k", memo="5.2 void"), SETTLED, "5.2 void", SETTLED),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "bet", "memo", "after"), RECORDED)
def test_a_plan_keeps_the_memo_given_and_the_bet_as_it_stands_after_it(
    request_: postings.Request, bet: BetState | None, memo: str | None, after: BetState | None
) -> None:
    made = postings.plan(request_, WALLETS, bet)
    assert (made.memo, made.bet) == (memo, after)
    assert (made.table_id, made.round_id, made.bet_id) == (
        (after.table_id, after.round_id, after.bet_id) if after else (None, None, None)
    )
    assert (made.key, made.request_hash) == ("k", request_.request_hash)


#: The cage, a table and a tournament move a player's money: the house, a
#: table's holding account and a pool are never the player of a posting.
NOT_A_PLAYER: list[postings.Request] = [
    postings.Deposit("house", 500, "k"),
    postings.Withdrawal("house", 500, "k"),
    postings.PlaceBet("holding:t1", "t1", "b2", "r1", 500, "k"),
    postings.EntryFee("holding:t1", "cup", 500, "k"),
    postings.Refund("house", "cup", 500, "k"),
    postings.Prize("tournament:cup", "cup", 500, "k"),
]


@pytest.mark.parametrize("request_", NOT_A_PLAYER)
def test_no_posting_treats_the_house_a_holding_or_a_pool_as_a_player(
    request_: postings.Request,
) -> None:
    code = request_.wallet  # type: ignore[union-attr]
    assert refused(request_) == (
        f"wallet {code!r} is not a player wallet; deposits, withdrawals and bets move a "
        "player's money"
    )
