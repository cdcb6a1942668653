"""Security review: there was no unlock, disable, password reset or session
revocation in the server.  Now the admin has each (audited: who, when, what),
and every other role is refused them with 403.  On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from punto.store.accounts import UserRole
from tests.security.accounts_support import ADMIN, headers_for, login_as
from tests.server.test_server_support import DEALER, PIT, PLAYER, balance, make_app, server_of

SUPERVISOR = ("sup", "supervisor-password")
SHIFT = ("shift", "shift-manager-password")
ACTIONS = ("unlock", "disable", "enable", "password", "revoke")


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url)) as client:
        accounts = server_of(client).accounts
        accounts.create_user(*SUPERVISOR, UserRole.PIT_SUPERVISOR)
        accounts.create_user(*SHIFT, UserRole.SHIFT_MANAGER)
        yield client


def _post(client: TestClient, headers: dict[str, str], action: str, username: str) -> int:
    body = {"password": "a brand new password"} if action == "password" else None
    response = client.post(f"/api/admin/accounts/{username}/{action}", headers=headers, json=body)
    status: int = response.status_code
    return status


def test_accounts_admin_controls_are_refused_to_every_other_role(client: TestClient) -> None:
    for who in (PLAYER, DEALER, SUPERVISOR, PIT, SHIFT):
        headers = headers_for(client, who)
        assert client.get("/api/admin/accounts", headers=headers).status_code == 403
        for action in ACTIONS:
            assert _post(client, headers, action, "demo2") == 403, (who, action)
    for action in ACTIONS:
        assert _post(client, {}, action, "demo2") == 401
    # nothing was done: demo2 logs in with the old password, wallet as it was
    demo2 = headers_for(client, ("demo2", "demo2-password"))
    assert balance(client, demo2) == "10000.00"
    audited = [e["action"] for e in server_of(client).audit.entries(limit=200)]
    assert not {"unlock", "disable", "enable", "reset_password", "revoke_sessions"} & set(audited)


def test_accounts_admin_disables_resets_revokes_each_audited(client: TestClient) -> None:
    admin = headers_for(client, ADMIN)
    player = headers_for(client, PLAYER)
    assert balance(client, player) == "10000.00"

    assert _post(client, admin, "revoke", "demo") == 200
    assert client.get("/api/me", headers=player).status_code == 401  # at once

    player = headers_for(client, PLAYER)
    assert _post(client, admin, "disable", "demo") == 200
    assert client.get("/api/me", headers=player).status_code == 401
    assert login_as(client, PLAYER).status_code == 403  # the right password, a disabled account
    assert _post(client, admin, "enable", "demo") == 200
    player = headers_for(client, PLAYER)

    weak = client.post(
        "/api/admin/accounts/pit/password", headers=admin, json={"password": "12345678"}
    )
    assert weak.status_code == 422
    assert weak.json()["error"]["type"] == "PasswordPolicyError"
    assert _post(client, admin, "password", "demo") == 200
    assert client.get("/api/me", headers=player).status_code == 401  # the reset ended it
    assert login_as(client, PLAYER).status_code == 401  # the old password no longer works
    player = headers_for(client, ("demo", "a brand new password"))
    assert balance(client, player) == "10000.00"  # the wallet is untouched by all of it

    disabling_self = client.post("/api/admin/accounts/admin/disable", headers=admin)
    assert disabling_self.status_code == 403

    entries = server_of(client).audit.entries(limit=200)
    done = [
        (e["action"], e["username"], e["detail"]["account"])
        for e in entries
        if e["action"] in ("revoke_sessions", "disable", "enable", "reset_password")
    ]
    assert done == [
        ("reset_password", "admin", "demo"),
        ("enable", "admin", "demo"),
        ("disable", "admin", "demo"),
        ("revoke_sessions", "admin", "demo"),
    ]
    assert all(e["at"] for e in entries)
