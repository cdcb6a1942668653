"""Security review: an admin could give a shift manager the password ``12345678``,
and Argon2id ran at 64 MiB x 4 lanes a hash.  Now staff passwords need 12
characters and no password may be a common one; the parameters are OWASP's
and an older hash is made anew at the next login.  On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.engine import Engine

from punto.store import db
from punto.store.accounts import Accounts, UserRole
from tests.security.accounts_support import ADMIN, headers_for, login_as
from tests.server.test_server_support import make_app


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url)) as client:
        yield client


@pytest.mark.parametrize(
    ("role", "password", "why"),
    [
        ("shift_manager", "12345678", "too short for a staff account"),
        ("dealer", "dealer-1234", "too short for a staff account"),
        ("shift_manager", "Password1234", "one of the commonest passwords"),
        ("player", "password123", "one of the commonest passwords"),
        ("player", "qwertyuiop", "one of the commonest passwords"),
        ("pit_manager", "zzzzzzzzzzzzzz", "one character repeated"),
        ("player", "short", "too short for an account"),
    ],
)
def test_accounts_weak_passwords_are_refused_with_a_clear_message(
    client: TestClient, role: str, password: str, why: str
) -> None:
    admin = headers_for(client, ADMIN)
    refused = client.post(
        "/api/users", headers=admin, json={"username": "sam", "password": password, "role": role}
    )
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert error["type"] == "PasswordPolicyError"
    assert why in error["message"]
    assert error["hint"]
    assert login_as(client, ("sam", password)).status_code == 401  # no account was made


def test_accounts_a_good_staff_password_is_taken(client: TestClient) -> None:
    admin = headers_for(client, ADMIN)
    made = client.post(
        "/api/users",
        headers=admin,
        json={"username": "sam", "password": "lamp ferry orbit", "role": "shift_manager"},
    )
    assert made.status_code == 201, made.text
    assert login_as(client, ("sam", "lamp ferry orbit")).status_code == 200


def test_accounts_argon2id_runs_at_owasps_parameters_and_old_hashes_are_rehashed(
    engine: Engine,
) -> None:
    old = PasswordHasher()  # argon2-cffi's default: 64 MiB, 3 passes, 4 lanes
    Accounts(engine, hasher=old).create_user("ann", "correct horse battery", UserRole.DEALER)
    accounts = Accounts(engine)  # the server's own parameters
    assert accounts.login("ann", "correct horse battery").user.username == "ann"
    with engine.connect() as conn:
        stored = conn.execute(select(db.accounts.c.password_hash)).scalar_one()
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert accounts.login("ann", "correct horse battery").user.username == "ann"
