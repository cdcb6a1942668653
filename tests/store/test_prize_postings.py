"""A tournament prize smaller than the pool (review 2026-11-29, section 4):
it comes from the pool alone -- pool minus the prize, the player plus the
prize, and no entry for the house.  Catches the split taking the whole pool
(``max`` for ``min``) or the house paying what the pool holds."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from punto.store import postings
from punto.store.ledger import Ledger, PostingKind, WalletKind
from punto.store.postings import WalletState


def test_a_prize_smaller_than_the_pool_is_planned_from_the_pool_alone() -> None:
    wallets = {
        w.code: w
        for w in (
            WalletState("player:ann", WalletKind.PLAYER, 500),
            WalletState("house", WalletKind.HOUSE, 0),
            WalletState("tournament:cup", WalletKind.TOURNAMENT, 3_000),
        )
    }
    made = postings.plan(postings.Prize("player:ann", "cup", 1_000, "k"), wallets, None)
    assert made.kind is PostingKind.PRIZE
    assert {e.wallet: e.amount for e in made.entries} == {
        "tournament:cup": -1_000,
        "player:ann": 1_000,
    }
    assert (made.balances["tournament:cup"], made.player_balance) == (2_000, 1_500)


@pytest.fixture
def ledger(engine: Engine) -> Ledger:
    return Ledger(engine)


def test_a_prize_smaller_than_the_pool_posts_only_pool_and_player(ledger: Ledger) -> None:
    ann, bob = ledger.player_wallet("ann"), ledger.player_wallet("bob")
    for wallet in (ann, bob):
        ledger.deposit(wallet, 2_000, key=f"cage-{wallet.code}")
        ledger.pay_entry_fee(wallet, "cup", 1_500, key=f"fee-{wallet.code}")
    house = ledger.balance("house")
    prize = ledger.pay_prize("cup", ann, 1_000, key="prize-ann")
    assert prize.kind is PostingKind.PRIZE
    assert sorted((e.wallet, e.amount) for e in prize.entries) == [
        ("player:ann", 1_000),
        ("tournament:cup", -1_000),
    ]
    assert ledger.balance("tournament:cup") == 2_000
    assert ledger.balance(ann) == 1_500
    assert ledger.balance("house") == house
    assert ledger.audit().ok
