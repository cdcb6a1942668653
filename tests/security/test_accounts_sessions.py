"""Security review: a session ended in the database kept working for up to 20 s in
another process's session cache, and ``login_attempts`` grew by a row per
unknown name for ever.  On SQLite (a file two processes share) and PostgreSQL."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from punto.server.security.auth import SessionCache
from punto.store import db
from punto.store.accounts import Accounts, LoginFailedError, UserRole
from tests.security.accounts_support import ADMIN, FAST, headers_for
from tests.server.test_server_support import PLAYER, balance, make_app


def _until_refused(client: TestClient, headers: dict[str, str], within: float) -> float:
    """Seconds until ``headers`` are refused (401) by ``client``; fails after ``within``."""
    start = time.monotonic()
    while client.get("/api/me", headers=headers).status_code == 200:
        assert time.monotonic() - start < within, "the ended session still works"
        time.sleep(0.02)
    return time.monotonic() - start


def test_accounts_a_session_ended_elsewhere_stops_at_once_in_every_process(db_url: str) -> None:
    with TestClient(make_app(db_url)) as one, TestClient(make_app(db_url, demo=False)) as two:
        player = headers_for(one, PLAYER)
        assert balance(two, player) == "10000.00"  # the second process has it cached now
        assert one.post("/api/auth/logout", headers=player).json() == {"ok": True}
        assert _until_refused(two, player, within=2.0) < 2.0

        player = headers_for(one, PLAYER)
        assert balance(two, player) == "10000.00"
        admin = headers_for(one, ADMIN)
        assert one.post("/api/admin/accounts/demo/revoke", headers=admin).status_code == 200
        assert _until_refused(one, player, within=0.1) < 0.1  # this process: at once
        assert _until_refused(two, player, within=2.0) < 2.0


def test_accounts_failed_logins_under_unknown_names_are_pruned(engine: Engine) -> None:
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    clock = [now]
    accounts = Accounts(engine, hasher=FAST, clock=lambda: clock[0])

    def rows() -> int:
        with engine.connect() as conn:
            return int(
                conn.execute(select(func.count()).select_from(db.login_attempts)).scalar_one()
            )

    for n in range(50):
        with pytest.raises(LoginFailedError):
            accounts.login(f"nobody-{n}", "some password")
    # two rows a name: its failures from this client, and from strangers together
    assert rows() == 100
    clock[0] = now + timedelta(minutes=16)  # a lockout later, all of them are forgotten
    with pytest.raises(LoginFailedError):
        accounts.login("nobody-else", "some password")
    assert rows() == 2


def test_accounts_a_cached_session_stands_while_the_invalidations_are_read(engine: Engine) -> None:
    """A session kept by a process stands, without asking the database, for as
    long as the process reads the ended sessions -- not for 20 s at most, which
    sent every active player's request to the database that often.  Should
    the reading stop, an entry stands only ``ttl`` after it was checked, as
    before; an ended session goes at the next read either way."""
    accounts = Accounts(engine, hasher=FAST)
    accounts.create_user("kim", "kim's long password", UserRole.PLAYER)
    now = [1_000.0]
    cache = SessionCache(ttl=20.0, fresh=5.0, clock=lambda: now[0])
    session = accounts.login("kim", "kim's long password")
    cache.remember(session)
    assert cache.peek(session.token) == session.user  # checked lately
    now[0] += 60  # long past the ttl, and nobody has read the invalidations
    assert cache.peek(session.token) is None
    cache.catch_up(accounts)  # the watcher's read
    assert cache.peek(session.token) == session.user
    now[0] += 3_600  # an hour of reads, each within ``fresh`` of the next
    cache.catch_up(accounts)
    assert cache.peek(session.token) == session.user
    now[0] += 6  # the reads stopped (the database out of reach): the ttl again
    assert cache.peek(session.token) is None
    assert cache.authenticate(accounts, session.token) == session.user  # checked: kept
    now[0] += 6
    assert cache.peek(session.token) == session.user
    # ended elsewhere: gone at the next read
    cache.catch_up(accounts)
    Accounts(engine, hasher=FAST).logout(session.token)
    assert cache.peek(session.token) == session.user  # not read yet
    cache.catch_up(accounts)
    assert cache.peek(session.token) is None
