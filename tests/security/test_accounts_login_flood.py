"""Security review: an unauthenticated login flood stalled the server (64 logins at
once with random names and 1 KB passwords: 92 MiB to 1.7 GiB, bets up to
13 s).  Bounded here for CI -- 16 logins at once against a server on
loopback whose hashing pool is one slot and two waiting -- the flood is
refused with 429 and ``Retry-After`` before any hashing, a 1 KB password is
refused before hashing, and a bet goes through meanwhile.  The full-size
flood, with timings and memory, is ``benchmarks/bench_login_flood.py``."""

from __future__ import annotations

import secrets
import threading
from pathlib import Path

import httpx2
from argon2 import PasswordHasher

from punto.server.app import create_app
from punto.server.security.login_guard import LoginGuard
from punto.server.services import Server
from tests.server.test_server_support import DEALER, PLAYER, PLAYER2, live_server

#: Dearer than the tests' usual hashing, so that logins overlap.
SLOW = PasswordHasher(time_cost=3, memory_cost=19 * 1024, parallelism=1)


def _small_pool(server: Server) -> None:
    server.logins.close()
    server.logins = LoginGuard(slots=1, queue=2)


def _login(base: str, who: tuple[str, str]) -> dict[str, str]:
    r = httpx2.post(f"{base}/api/auth/login", json={"username": who[0], "password": who[1]})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def test_accounts_a_login_flood_is_refused_with_429_and_a_bet_still_goes_through(
    tmp_path: Path,
) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'flood.db'}",
        demo=True,
        auto_dealers=False,
        hasher=SLOW,
        on_ready=_small_pool,
    )
    with live_server(app) as base:
        dealer = _login(base, DEALER)
        player = _login(base, PLAYER)
        opened = httpx2.post(f"{base}/api/tables/dragon/round/open", headers=dealer)
        assert opened.status_code == 200, opened.text

        answers: list[tuple[int, httpx2.Response]] = []
        barrier = threading.Barrier(16)

        def flood(password_length: int) -> None:
            body = {"username": secrets.token_hex(8), "password": "x" * password_length}
            barrier.wait()
            answers.append(
                (password_length, httpx2.post(f"{base}/api/auth/login", json=body, timeout=30))
            )

        threads = [threading.Thread(target=flood, args=(20,)) for _ in range(12)]
        threads += [threading.Thread(target=flood, args=(1024,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        bet = httpx2.post(
            f"{base}/api/tables/dragon/bets",
            headers=player,
            json={"wager": "banker", "stake": "100"},
            timeout=30,
        )
        for thread in threads:
            thread.join(60)

        assert bet.status_code == 201, bet.text
        assert bet.json()["balance"] == "9900.00"
        assert len(answers) == 16
        long = [r.status_code for n, r in answers if n == 1024]
        assert long == [422] * 4  # the 1 KB passwords: refused before the pool, never hashed
        statuses = [r.status_code for _, r in answers]
        assert 429 in statuses, statuses  # more than the pool holds: refused at once
        assert {r.status_code for n, r in answers if n == 20} <= {401, 429}
        for _, r in answers:
            if r.status_code == 429:
                assert int(r.headers["Retry-After"]) >= 1
                assert r.json()["error"]["type"] == "LoginThrottledError"
        me = httpx2.get(f"{base}/api/me", headers=player)
        assert me.json()["balance"] == "9900.00"


def test_accounts_failed_logins_from_one_address_are_limited(tmp_path: Path) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'limit.db'}",
        demo=True,
        auto_dealers=False,
        hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1),
    )
    with live_server(app) as base:
        _login(base, PLAYER2)  # a player who has logged in from this address before
        answers = [
            httpx2.post(
                f"{base}/api/auth/login",
                json={"username": secrets.token_hex(8), "password": "wrong password"},
            )
            for _ in range(32)
        ]
        statuses = [r.status_code for r in answers]
        assert statuses == [401] * 30 + [429] * 2  # 30 failures a minute from one address
        assert int(answers[-1].headers["Retry-After"]) > 1
        # a player new to that address is kept waiting too (that address is guessing) ...
        kept = httpx2.post(
            f"{base}/api/auth/login", json={"username": PLAYER[0], "password": PLAYER[1]}
        )
        assert kept.status_code == 429
        # ... but not a player who logged in from it before: only their own lockout holds them
        _login(base, PLAYER2)
