"""The server's session cache: a login's session is known at once, and a
restart reads the open sessions in, so the players' next requests do not all
go to the database together; ended sessions are never read in.  On SQLite
and PostgreSQL."""

from __future__ import annotations

from fastapi.testclient import TestClient

from punto.store.accounts import UserRole
from tests import test_server_support as support
from tests.test_server_support import PLAYER, PLAYER2, login, make_app, server_of

db_url = support.db_url


def _token(headers: dict[str, str]) -> str:
    return headers["Authorization"].removeprefix("Bearer ")


def test_a_login_is_known_without_the_database_and_a_restart_reads_it_in(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        ann = _token(login(client, PLAYER))
        bob = _token(login(client, PLAYER2))
        cache = server_of(client).sessions
        known = cache.peek(ann)
        assert known is not None
        assert known.username == PLAYER[0]
        assert client.post(
            "/api/auth/logout", headers={"Authorization": f"Bearer {bob}"}
        ).json() == {"ok": True}
        assert cache.peek(bob) is None
        accounts = server_of(client).accounts
        carl = accounts.create_user("carl", "carl-password-1", UserRole.PLAYER)
        carl_token = accounts.login("carl", "carl-password-1").token
        accounts.set_disabled(carl.id)

    with TestClient(make_app(db_url)) as client:  # the same database, a new process's cache
        cache = server_of(client).sessions
        warmed = cache.peek(ann)
        assert warmed is not None
        assert warmed.username == PLAYER[0]
        assert cache.peek(bob) is None  # logged out
        assert cache.peek(carl_token) is None  # the account was disabled
        me = client.get("/api/me", headers={"Authorization": f"Bearer {ann}"})
        assert me.status_code == 200
        assert me.json()["username"] == PLAYER[0]
        assert client.get("/api/me", headers={"Authorization": f"Bearer {bob}"}).status_code == 401
