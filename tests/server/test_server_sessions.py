"""The server's session cache: a login's session is known at once, and a
restart reads the open sessions in, so the players' next requests do not all
go to the database together; ended sessions are never read in.  On SQLite
and PostgreSQL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.sql import Select

from punto.store.accounts import UserRole
from tests.server.test_server_support import PLAYER, PLAYER2, login, make_app, server_of


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


def test_a_players_wallet_is_read_at_login_and_at_a_restart(db_url: str) -> None:
    """So that a player's first bet is taken in flight like the others rather
    than holding its table for a commit of its own (Journal.prime)."""
    with TestClient(make_app(db_url)) as client:
        journal = server_of(client).journal
        assert journal.available("player:demo") is None
        login(client, PLAYER)
        assert journal.available("player:demo") == 1_000_000  # the demo's 10,000.00
        assert journal.available("player:demo2") is None  # not logged in
        login(client, ("dealer", "dealer-password"))
        assert "player:dealer" not in journal.balances  # staff have no wallet to read
    with TestClient(make_app(db_url)) as client:
        journal = server_of(client).journal
        assert journal.available("player:demo") == 1_000_000  # its session was read in


def test_a_balance_forgotten_while_it_is_read_is_not_kept(db_url: str) -> None:
    """Money that left a wallet by another path while the journal read it (a
    tournament fee, a resettlement) makes the read stale: it is dropped, and
    the wallet is read again by the next bet's commit.  A balance the journal
    learnt meanwhile from its own commit is newer, and stays."""
    with TestClient(make_app(db_url)) as client:
        journal = server_of(client).journal
        reader_rows = journal.reader.rows

        def forgetting(query: Select[Any], params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
            rows = reader_rows(query, params)
            journal.forget_balance("player:someone-else")
            return rows

        journal.reader.rows = forgetting  # type: ignore[method-assign]
        assert journal.prime(["player:demo"]) == 0
        assert journal.available("player:demo") is None
        journal.reader.rows = reader_rows  # type: ignore[method-assign]
        journal.balances["player:demo"] = 123  # as a commit of the journal's would set it
        assert journal.prime(["player:demo", "player:demo2"]) == 1
        assert journal.available("player:demo") == 123
        assert journal.available("player:demo2") == 1_000_000
