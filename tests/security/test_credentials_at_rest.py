"""No credential at rest: a request forwarded between two ``punto serve``
processes (PostgreSQL) carries who is asking -- the session's digest, the
account and its role -- never the bearer token, the session cookie's value
or a device token.

As found: ``SELECT * FROM table_requests`` during forwarded requests showed
``["authorization", "Bearer ..."]``, kept 300 s, and the token worked on the
other process (200 as the dealer).  Here every table of the database and
every notice on the deployment's channels is read while players, a dealer
(by cookie), the pit and a card-reading device act through the process that
does not run their table, and no secret is found in any of them.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from punto.server.cluster.forwarding import REQUESTS
from punto.server.cluster.relay import CHANNEL as WATCHERS
from punto.server.forwarded import ANSWERS
from punto.store import db
from tests import db_fixtures
from tests.server.test_server_notices import heard_on
from tests.server.test_server_processes import running, serve
from tests.server.test_server_support import DEALER, PIT, PLAYER, free_port, login, wait_for


def every_row(engine: Engine) -> Iterator[str]:
    """Every row of every table of the deployment's schema, as text."""
    with engine.connect() as conn:
        names = conn.execute(
            text(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
        ).scalars()
        for name in list(names):
            quoted = '"' + name.replace('"', '""') + '"'
            yield from conn.execute(text(f"SELECT CAST(t AS text) FROM {quoted} AS t")).scalars()


class Reader(threading.Thread):
    """Reads every table again and again while the traffic runs."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(daemon=True)
        self.engine = engine
        self.stop = threading.Event()
        self.rows: set[str] = set()
        self.reads = 0

    def run(self) -> None:
        while not self.stop.is_set():
            self.rows.update(every_row(self.engine))
            self.reads += 1
            self.stop.wait(0.05)


def token_of(headers: dict[str, str]) -> str:
    return headers["Authorization"].removeprefix("Bearer ")


def drained(heard: queue.Queue[str]) -> list[str]:
    out = []
    while not heard.empty():
        out.append(heard.get_nowait())
    return out


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_security_a_forwarded_request_leaves_no_token_or_cookie_in_the_database(
    db_url: str, tmp_path: Path
) -> None:
    first_port, second_port = free_port(), free_port()
    first = serve(db_url, first_port, tmp_path / "first.log", demo=True)
    with running(first, first_port) as one, ExitStack() as stack:
        second = serve(db_url, second_port, tmp_path / "second.log", demo=False)
        two = stack.enter_context(running(second, second_port))
        engine = db.connect(db_url, migrate=False)
        stack.callback(engine.dispose)
        channels = {c: heard_on(engine, c, stack) for c in (REQUESTS, ANSWERS, WATCHERS)}
        reader = Reader(engine)
        reader.start()
        stack.callback(reader.stop.set)
        client = stack.enter_context(httpx2.Client(base_url=two, timeout=15))
        with httpx2.Client(base_url=one, timeout=15) as owner:
            running_there = {
                t["id"] for t in owner.get("/api/pit", headers=login(owner, PIT)).json()
            }
        assert "dragon" in running_there  # the dealer's table runs on the first process
        player, dealer, pit = login(client, PLAYER), login(client, DEALER), login(client, PIT)
        # The dealer acts by cookie, as the console does: the cookie's value is the token.
        cookie_login = client.post(
            "/api/auth/login", json={"username": DEALER[0], "password": DEALER[1]}
        )
        cookie = cookie_login.cookies["punto_session"]
        client.cookies.clear()
        by_cookie = {
            "Cookie": f"punto_session={cookie}",
            "Origin": two,
            "Content-Type": "application/json",
        }
        opened = client.post("/api/tables/dragon/round/open", headers=by_cookie, content=b"{}")
        assert opened.status_code == 200, opened.text
        bet = client.post(
            "/api/tables/dragon/bets",
            headers={**player, "Idempotency-Key": "forwarded-1"},
            json={"wager": "banker", "stake": "10"},
        )
        assert bet.status_code == 201, bet.text  # answered by the first, as this player
        assert bet.json()["bet"]["wager"] == "banker"
        shown = client.get("/api/tables/dragon", headers=player)
        assert shown.status_code == 200, shown.text
        assert [b["bet_id"] for b in shown.json()["me"]["bets"]] == [bet.json()["bet"]["bet_id"]]
        # A device token (issued here, not forwarded: its answer holds it) used both ways.
        issued = client.post("/api/tables/dragon/device-token", headers=pit)
        assert issued.status_code == 200, issued.text
        device = issued.json()["token"]
        closed = client.post("/api/tables/dragon/round/close", headers=dealer)
        assert closed.status_code == 200, closed.text
        for header in ({"X-Device-Token": device}, {"Authorization": f"Device {device}"}):
            card = client.post(
                "/api/tables/dragon/device/card", headers=header, json={"card": "AS"}
            )
            # Let in as the device (a virtual shoe refuses a read card, 2.1), not refused as no one.
            assert card.status_code == 409, card.text
            assert card.json()["error"]["type"] == "OutsideCardError", card.text
        wrong = client.post(
            "/api/tables/dragon/device/card",
            headers={"X-Device-Token": "x" * 43},
            json={"card": "AS"},
        )
        assert wrong.status_code == 401, wrong.text
        # A digest read from the database is no token: sent as one, it is hashed again.
        digest = hashlib.sha256(token_of(dealer).encode()).hexdigest()
        replayed = client.post(
            "/api/tables/dragon/round/open", headers={"Authorization": f"Bearer {digest}"}
        )
        assert replayed.status_code == 401, replayed.text
        wait_for(lambda: reader.reads >= 3, timeout=30)
        reader.stop.set()
        reader.join(30)
        rows = reader.rows | set(every_row(engine))
        notices = [p for heard in channels.values() for p in drained(heard)]
    forwarded = [r for r in rows if '"identity"' in r]
    assert len(forwarded) >= 7, "the requests were not forwarded through table_requests"
    assert any(digest in r for r in forwarded)  # who asked, by the session's digest
    secrets = {
        "player's token": token_of(player),
        "dealer's token": token_of(dealer),
        "pit manager's token": token_of(pit),
        "dealer's cookie": cookie,
        "device token": device,
    }
    for what, secret in secrets.items():
        assert not [r for r in rows if secret in r], f"the {what} is in the database"
        assert not [n for n in notices if secret in n], f"the {what} is in a notice"
