"""Staff that strangers cannot lock out.

As found: 10 wrong passwords for ``pit`` from 10 addresses, and the right
password from an address ``pit`` had not used was refused 429
(``Retry-After: 58``); the admin's unlock answered ``{"unlocked": 0}`` and
did not lift it; the admin's account list showed no lock.  Now strangers'
failures under a name are counted together in the database, with an
exponential back-off; the user's own address, or their browser's device
cookie, is never held by them; the admin's unlock lifts every lock, the
admin's list shows each with its reason and end, and each lock and unlock is
in the audit log.  On SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from punto.server.routes.logins import DEVICE_COOKIE
from punto.store.accounts import Accounts, LoginFailedError, LoginLockedError, UserRole
from punto.store.lockout import STRANGERS
from tests.security.accounts_support import ADMIN, FAST, client_from, headers_for, login_as
from tests.server.test_server_support import PIT, make_app, server_of

PIT_DESK = "198.51.100.20"
NEW_DESK = "198.51.100.99"
WRONG = ("pit", "not-the-password")
STRANGERS_ADDRESSES = [f"203.0.113.{n}" for n in range(1, 13)]


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url), client=(PIT_DESK, 50000)) as client:
        yield client


def guess_from_twelve_strangers(client: TestClient) -> list[int]:
    statuses = []
    for address in STRANGERS_ADDRESSES:
        with client_from(client.app, address) as stranger:
            statuses.append(login_as(stranger, WRONG).status_code)
    return statuses


def test_security_strangers_do_not_keep_the_pit_manager_out_of_an_address_they_used(
    client: TestClient,
) -> None:
    assert login_as(client, PIT).status_code == 200  # the pit manager's desk, before
    statuses = guess_from_twelve_strangers(client)
    # the tenth stranger's failure locks every stranger out of the name (429 from it on)
    assert statuses == [401] * 9 + [429] * 3
    assert login_as(client, PIT).status_code == 200  # from the desk: let in
    with client_from(client.app, NEW_DESK) as elsewhere:
        held = login_as(elsewhere, PIT)
        assert held.status_code == 429, held.text
        assert "from addresses it has not logged in from" in held.json()["error"]["message"]
        admin = headers_for(client, ADMIN)
        listed = client.get("/api/admin/accounts", headers=admin).json()
        locks = next(a for a in listed if a["username"] == "pit")["locked"]
        assert [lock["client"] for lock in locks] == [STRANGERS]
        assert "addresses the account has not logged in from" in locks[0]["reason"]
        until = datetime.fromisoformat(locks[0]["until"])
        assert timedelta(0) < until - datetime.now(UTC) <= timedelta(minutes=1)
        unlocked = client.post("/api/admin/accounts/pit/unlock", headers=admin)
        assert unlocked.status_code == 200, unlocked.text
        assert unlocked.json()["unlocked"] == 1
        assert unlocked.json()["locked"] == []
        assert login_as(elsewhere, PIT).status_code == 200  # a new address, after the unlock
    audited = server_of(client).audit.entries(limit=300)
    locked = [e for e in audited if e["action"] == "login_locked"]
    assert [(e["detail"]["account"], e["detail"]["client"]) for e in locked] == [("pit", STRANGERS)]
    assert [e["detail"]["account"] for e in audited if e["action"] == "unlock"] == ["pit"]


def test_security_the_device_cookie_lets_the_pit_manager_in_from_a_new_address(
    client: TestClient,
) -> None:
    """OWASP's device cookies: the browser the pit manager logged in with
    before is let in from an address the strangers' lock holds."""
    first = client.post("/api/auth/login", json={"username": PIT[0], "password": PIT[1]})
    assert first.status_code == 200, first.text
    device = first.cookies[DEVICE_COOKIE]
    client.cookies.clear()
    guess_from_twelve_strangers(client)
    with client_from(client.app, NEW_DESK) as elsewhere:
        assert login_as(elsewhere, PIT).status_code == 429  # a new address, no cookie
        elsewhere.cookies.set(DEVICE_COOKIE, device)
        let_in = elsewhere.post("/api/auth/login", json={"username": PIT[0], "password": PIT[1]})
        assert let_in.status_code == 200, let_in.text
    # a forged cookie is no device cookie of pit's (from a third address: the
    # second is known now, pit logged in from it)
    with client_from(client.app, "198.51.100.100") as third:
        third.cookies.set(DEVICE_COOKIE, device[:-4] + "0000")
        forged = third.post("/api/auth/login", json={"username": PIT[0], "password": PIT[1]})
        assert forged.status_code == 429, forged.text


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_security_strangers_are_backed_off_exponentially_not_locked_flat(engine: Engine) -> None:
    clock = Clock()
    accounts = Accounts(engine, hasher=FAST, clock=clock)
    accounts.create_user("pit", "pit manager's long password", UserRole.PIT_MANAGER)

    def stranger_fails(n: int) -> LoginLockedError | None:
        try:
            accounts.login("pit", "wrong", client=f"203.0.113.{n}")
        except LoginFailedError:
            return None
        except LoginLockedError as locked:
            return locked
        raise AssertionError("a wrong password let in")

    for n in range(9):
        assert stranger_fails(n) is None
    locked = stranger_fails(9)
    assert locked is not None
    assert locked.new
    assert locked.client == STRANGERS
    lengths = [locked.until - clock.now]
    for _ in range(3):  # each failure just after a lock ends locks again, twice as long
        clock.now = locked.until + timedelta(seconds=1)
        locked = stranger_fails(50)
        assert locked is not None
        assert locked.new
        lengths.append(locked.until - clock.now)
    assert lengths == [timedelta(minutes=m) for m in (1, 2, 4, 8)]
    # held all the while: a stranger's right password too; not the user's trusted address
    with pytest.raises(LoginLockedError):
        accounts.login("pit", "pit manager's long password", client="203.0.113.77")
    session = accounts.login("pit", "pit manager's long password", client="x", trusted=True)
    assert session.user.username == "pit"
    # a trusted address's failures do not count against the name
    clock.now = locked.until + timedelta(minutes=30)
    for _ in range(4):
        with pytest.raises(LoginFailedError):
            accounts.login("pit", "wrong", client="x", trusted=True)
    assert accounts.locks("pit") == []


def test_security_failures_from_an_address_the_name_used_do_not_count_against_it(
    client: TestClient,
) -> None:
    """The review's item 13, through the server: the pit manager's own typing
    errors at the desk (an address the name logged in from lately) do not
    count toward the strangers' limit on the name."""
    assert login_as(client, PIT).status_code == 200
    for _ in range(4):  # under the desk's own lock (five in a row)
        assert login_as(client, WRONG).status_code == 401
    statuses = guess_from_twelve_strangers(client)
    assert statuses == [401] * 9 + [429] * 3  # the tenth stranger, not the sixth, locks it
