"""Security review, money bounds: very large cage deposits overflowed the ledger (a
deposit past 2**63 minor units answered 500 on SQLite); ``true`` was taken as
a deposit of 1.00; "insufficient funds" gave cents as if they were money.
Each is reproduced as found and shown refused, on SQLite and PostgreSQL, with
exact balances and the trial balance 0 (``docs/security.md``, "Money")."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.store.db import connect
from punto.store.ledger import InsufficientFundsError, Ledger, LedgerError
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    balance,
    check_books,
    error_of,
    login,
    make_app,
    server_of,
)


def deposit(client: TestClient, pit: dict[str, str], amount: Any, key: str) -> Any:
    return client.post(
        "/api/cage/deposit",
        headers=pit,
        json={"username": PLAYER[0], "amount": amount, "key": key},
    )


def totals(client: TestClient, pit: dict[str, str]) -> dict[str, Any]:
    response = client.get("/api/pit/ledger", headers=pit)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_security_money_the_deposits_that_overflowed_the_ledger_are_refused(
    client: TestClient,
) -> None:
    pit = login(client, PIT)
    player = login(client, PLAYER)
    transactions = server_of(client).ledger.audit().transactions
    # As found: the largest deposit the cage took (15 digits), again and again,
    # until a balance passed 2**63 minor units (the 92nd: 500).  Now the first is
    # refused, and so is each retry.
    for attempt in range(3):
        refused = deposit(client, pit, "999999999999999", f"big-{attempt}")
        assert refused.status_code == 422, refused.text
        error = error_of(refused)
        assert error["type"] == "MoneyBoundError"
        assert error["message"] == (
            "a deposit of 999999999999999.00 is more than the cage takes at once (1000000000.00)"
        )
        assert "--max-cage-amount" in error["hint"]
    assert balance(client, player) == "10000.00"
    assert server_of(client).ledger.audit().transactions == transactions  # nothing written
    assert totals(client, pit)["trial_balance"] == "0.00"
    check_books(client)


def test_security_money_the_cage_stops_a_wallet_at_the_maximum_balance(
    client: TestClient,
) -> None:
    pit = login(client, PIT)
    player = login(client, PLAYER)
    for n in range(9):  # the most the cage takes at once, nine times
        taken = deposit(client, pit, "1000000000.00", f"max-{n}")
        assert taken.status_code == 201, taken.text
    assert balance(client, player) == "9000010000.00"
    over = deposit(client, pit, "1000000000", "max-9")
    assert over.status_code == 422, over.text
    error = error_of(over)
    assert error["type"] == "MoneyBoundError"
    assert error["message"] == (
        "wallet player:demo holds 9000010000.00; this would take it to 10000010000.00, "
        "past the most a wallet may hold (10000000000.00)"
    )
    assert balance(client, player) == "9000010000.00"
    exact = deposit(client, pit, "999990000.00", "max-10")  # up to the maximum exactly
    assert exact.status_code == 201, exact.text
    assert exact.json()["balance"] == "10000000000.00"
    assert deposit(client, pit, "0.01", "max-11").status_code == 422
    assert balance(client, player) == "10000000000.00"
    assert totals(client, pit) == {
        "trial_balance": "0.00",
        "totals": {"player": "10000010000.00", "house": "-10000010000.00", "holding": "0.00"},
    }
    check_books(client)


def test_security_money_the_cage_bounds_are_settings(db_url: str) -> None:
    # imported here, so that the other tests run (and fail) on the code before the bounds
    from punto.store.bounds import LEDGER_LIMIT, MoneyBoundError, MoneyBounds

    bounds = MoneyBounds(max_balance=20_000_00, max_cage_amount=5_000_00)
    with TestClient(make_app(db_url, money_bounds=bounds)) as client:
        pit = login(client, PIT)
        player = login(client, PLAYER)
        over = deposit(client, pit, "5000.01", "a")
        assert over.status_code == 422, over.text
        assert error_of(over)["message"] == (
            "a deposit of 5000.01 is more than the cage takes at once (5000.00)"
        )
        assert deposit(client, pit, "5000", "b").status_code == 201
        assert deposit(client, pit, "5000", "c").status_code == 201
        assert deposit(client, pit, "0.01", "d").status_code == 422  # 20,000.00 held
        assert balance(client, player) == "20000.00"
        check_books(client)
    with pytest.raises(MoneyBoundError, match="max_balance 0 must be a positive"):
        MoneyBounds(max_balance=0)
    with pytest.raises(MoneyBoundError, match="over the ledger's limit"):
        MoneyBounds(max_balance=LEDGER_LIMIT + 1)


def test_security_money_no_wallet_passes_the_ledgers_limit(db_url: str) -> None:
    from punto.store.bounds import LEDGER_LIMIT, MoneyBoundError

    ledger = Ledger(connect(db_url))
    ann, bob = ledger.player_wallet("ann"), ledger.player_wallet("bob")
    # As found: 2**62 minor units twice into one wallet went past 2**63.
    with pytest.raises(LedgerError, match="more than the ledger moves at once"):
        ledger.deposit(ann, 2**62, key="k0")
    half = LEDGER_LIMIT // 2
    ledger.deposit(ann, half, key="k1")
    ledger.deposit(bob, half, key="k2")  # the house owes the limit exactly
    with pytest.raises(MoneyBoundError, match=r"wallet house would hold -10000000000000000\.01"):
        ledger.deposit(bob, 1, key="k3")
    with pytest.raises(MoneyBoundError, match="wallet player:ann would hold"):
        ledger.deposit(ann, half + 1, key="k4")
    assert ledger.balance(ann) == half
    assert ledger.balance(bob) == half
    assert ledger.balance(ledger.house()) == -LEDGER_LIMIT
    assert ledger.trial_balance() == 0
    assert ledger.totals()[ledger.house().kind] == -LEDGER_LIMIT
    audit = ledger.audit()
    assert audit.ok, audit.problems
    assert audit.transactions == 2


@pytest.mark.parametrize(
    ("amount", "told"),
    [
        (True, "a deposit of true is not an amount of money"),
        (False, "a deposit of false is not an amount of money"),
        (12.5, "a deposit of 12.5 is not an amount of money"),
        ("1e3", "a deposit of '1e3' is not an amount of money"),
        ("0", "a deposit of '0' must be a positive amount"),
    ],
)
def test_security_money_a_boolean_or_a_float_is_not_a_deposit(
    client: TestClient, amount: Any, told: str
) -> None:
    pit = login(client, PIT)
    player = login(client, PLAYER)
    refused = deposit(client, pit, amount, "bool")  # as found: true was 1.00
    assert refused.status_code == 422, refused.text
    error = error_of(refused)
    assert error["type"] == "WagerError"
    assert error["message"] == told
    assert balance(client, player) == "10000.00"
    assert totals(client, pit)["trial_balance"] == "0.00"
    check_books(client)


def test_security_money_insufficient_funds_are_told_in_money(client: TestClient) -> None:
    admin, pit = login(client, ADMIN), login(client, PIT)
    made = client.post(
        "/api/users",
        headers=admin,
        json={"username": "ann", "password": "ann-password-1", "role": "player"},
    )
    assert made.status_code == 201, made.text
    credit = {"username": "ann", "amount": "40.00", "key": "ann-40"}
    assert client.post("/api/cage/deposit", headers=pit, json=credit).status_code == 201
    ann = login(client, ("ann", "ann-password-1"))
    dealer = login(client, ("dealer", "dealer-password"))
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    short = client.post(
        "/api/tables/dragon/bets", headers=ann, json={"wager": "banker", "stake": "60.00"}
    )
    assert short.status_code == 402, short.text
    # as found: "wallet player:ann has 4000, not the 6000 asked for"
    assert error_of(short)["message"] == "wallet player:ann has 40.00, not the 60.00 asked for"
    assert balance(client, ann) == "40.00"
    ledger = server_of(client).ledger
    wallet = ledger.player_wallet("ann")
    with pytest.raises(InsufficientFundsError) as direct:
        ledger.withdraw(wallet, 6000, key="cash-60")
    assert direct.value.message == "wallet player:ann has 40.00, not the 60.00 asked for"
    assert ledger.balance(wallet) == 4000
    check_books(client)


def test_security_money_a_boolean_is_not_a_tournament_stake(client: TestClient) -> None:
    pit, player, dealer = login(client, PIT), login(client, PLAYER), login(client, DEALER)
    made = client.post("/api/tournaments", headers=pit, json={"id": "p", "seed": 1})
    assert made.status_code == 200, made.text
    assert client.post("/api/tournaments/p/register", headers=player).status_code == 200
    for i in range(5):
        bot = {"name": f"Bot {i}", "strategy": "flat"}
        assert client.post("/api/tournaments/p/register", headers=pit, json=bot).status_code == 200
    assert client.post("/api/tournaments/p/start", headers=pit).status_code == 200
    opened = client.post("/api/tournaments/p/advance", headers=dealer, json={"steps": 1})
    assert opened.status_code == 200, opened.text  # "Place your bets, please"
    before = client.get("/api/tournaments/p").json()["entrants"]
    chips = next(e["chips"] for e in before if e["entrant"] == PLAYER[0])
    # As found: a JSON true was read as a stake of 1 chip (then refused only by the limits).
    refused = client.post(
        "/api/tournaments/p/bets",
        headers=player,
        json={"bets": [{"wager": "banker", "stake": True}]},
    )
    assert refused.status_code == 422, refused.text
    assert error_of(refused)["type"] == "RequestValidationError"
    after = client.get("/api/tournaments/p").json()["entrants"]
    assert next(e["chips"] for e in after if e["entrant"] == PLAYER[0]) == chips
    assert balance(client, player) == "9800.00"  # 200.00 of entry fee, no more
    check_books(client)


class StartedError(Exception):
    """Raised in place of starting the server, once the settings are seen."""


def test_security_money_serve_sets_the_cage_bounds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from punto.cli import main
    from punto.server import app
    from punto.store.bounds import MoneyBounds

    seen: dict[str, Any] = {}

    def create_app(database_url: str, **options: Any) -> Any:
        seen.update(options)
        raise StartedError

    monkeypatch.setattr(app, "create_app", create_app)
    # main() reports the StartedError as a failure: no server is started
    assert main(["serve", "--max-balance", "5000000", "--max-cage-amount", "100000.50"]) != 0
    assert seen["money_bounds"] == MoneyBounds(max_balance=500_000_000, max_cage_amount=10_000_050)
    assert main(["serve"]) != 0
    assert seen["money_bounds"] == MoneyBounds(max_balance=10**12, max_cage_amount=10**11)
    assert main(["serve", "--max-balance", "1e99"]) != 0
    assert "--max-balance: '1e99' is not an amount of money" in capsys.readouterr().err
    assert main(["serve", "--max-cage-amount", "0"]) != 0
    assert "--max-cage-amount: '0' must be a positive amount" in capsys.readouterr().err
