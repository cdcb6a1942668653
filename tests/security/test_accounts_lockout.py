"""Security review: anyone could lock out any account, and nobody could unlock it.

Five wrong passwords for ``pit`` -- from anywhere, or through a void's
manager confirmation as a dealer -- locked the pit manager out for 15
minutes.  Now failures lock out the name *from that client* only, with
exponential back-off, and the admin can unlock.  On SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from punto.store.accounts import Accounts, LoginFailedError, LoginLockedError, UserRole
from tests.security.accounts_support import ADMIN, FAST, client_from, headers_for, login_as
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    SHIFT,
    balance,
    make_app,
    shift_manager,
)

STRANGER = "203.0.113.7"
PIT_DESK = "198.51.100.20"
WRONG = ("pit", "not-the-password")


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url), client=(PIT_DESK, 50000)) as client:
        yield client


def test_accounts_a_strangers_wrong_passwords_do_not_lock_the_pit_manager_out(
    client: TestClient,
) -> None:
    with client_from(client.app, STRANGER) as stranger:
        answers = [login_as(stranger, WRONG).status_code for _ in range(6)]
        assert answers == [401, 401, 401, 401, 429, 429]  # the stranger is locked out ...
        locked = login_as(stranger, PIT)
        assert locked.status_code == 429  # ... even with the right password
        assert int(locked.headers["Retry-After"]) > 0
        assert "ask an admin to unlock it" in locked.json()["error"]["hint"]
    assert login_as(client, PIT).status_code == 200  # the pit manager, at the pit's desk, is not


def test_accounts_a_dealers_wrong_confirmations_do_not_lock_the_manager_out(
    client: TestClient,
) -> None:
    """A confirmation is the confirming person's own session: a password in a
    request body is refused at once (422), before any password is hashed, so
    guesses neither lock the manager out nor cost the server a hash."""
    shift = shift_manager(client)
    dealer = headers_for(client, DEALER)
    player = headers_for(client, PLAYER)
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    bet = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert bet.status_code == 201, bet.text
    assert balance(client, player) == "9900.00"
    for password in ["guess"] * 6 + [SHIFT[1]]:
        refused = client.post(
            "/api/tables/dragon/round/void",
            headers=dealer,
            json={"reason": "misdeal", "manager": {"username": SHIFT[0], "password": password}},
        )
        assert refused.status_code == 422, refused.text
    assert balance(client, player) == "9900.00"  # nothing voided: the stake is still on the table
    assert login_as(client, SHIFT).status_code == 200  # the shift manager logs in as ever
    voided = client.post("/api/tables/dragon/round/void", headers=shift, json={"reason": "misdeal"})
    assert voided.status_code == 200, voided.text  # bets still open: the shift manager alone
    assert balance(client, player) == "10000.00"  # the void returned the stake


def test_accounts_the_admin_unlocks_a_locked_account(client: TestClient) -> None:
    with client_from(client.app, STRANGER) as stranger:
        for _ in range(5):
            login_as(stranger, WRONG)
        assert login_as(stranger, PIT).status_code == 429
        admin = headers_for(client, ADMIN)
        listed = client.get("/api/admin/accounts", headers=admin).json()
        pit = next(a for a in listed if a["username"] == "pit")
        assert [lock["client"] for lock in pit["locked"]] == [STRANGER]
        unlocked = client.post("/api/admin/accounts/pit/unlock", headers=admin)
        assert unlocked.status_code == 200, unlocked.text
        assert unlocked.json()["unlocked"] == 1
        assert unlocked.json()["locked"] == []
        assert login_as(stranger, PIT).status_code == 200


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_accounts_each_lock_after_the_last_is_twice_as_long(engine: Engine) -> None:
    clock = Clock()
    accounts = Accounts(engine, hasher=FAST, clock=clock)
    accounts.create_user("pit", "pit-password-long", UserRole.PIT_MANAGER)
    for _ in range(4):
        with pytest.raises(LoginFailedError):
            accounts.login("pit", "wrong", client=STRANGER)
    lengths = []
    for _ in range(4):
        with pytest.raises(LoginLockedError) as locked:
            accounts.login("pit", "wrong", client=STRANGER)
        lengths.append(locked.value.until - clock.now)
        clock.now = locked.value.until + timedelta(seconds=1)  # the lock runs out; guess again
    assert lengths == [timedelta(minutes=15 * 2**n) for n in range(4)]
    # all the while, the pit manager logs in from the desk
    assert accounts.login("pit", "pit-password-long", client=PIT_DESK).user.username == "pit"
