"""A table's WebSocket watchers on any server process: PostgreSQL,
several servers on one database, each table run by one of them.

A watcher on a process that does not run the table gets what a watcher on
the one that does gets, in the same order (:mod:`punto.server.cluster.relay`); a
player never sees another's ``me`` nor the staff's messages there either;
and when the table's process stops, watchers elsewhere keep their sockets
and go on with the process that takes the table over.

The servers here run in this process (uvicorn in threads, each with its own
event loop and database connections); ``test_server_processes`` kills a real
process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from functools import partial
from typing import Any

import httpx2
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from punto.server.cluster.leases import LeaseSettings
from punto.server.cluster.relay import Relay
from punto.server.notices import FRAME, Frames, frames
from punto.server.tables.hub import STAFF, Hub
from tests import db_fixtures
from tests.server import test_server_support as support
from tests.server.test_server_support import (
    DEALER,
    PLAYER,
    PLAYER2,
    QUICK,
    live_server,
    login,
    make_app,
)
from tests.server.test_server_support import wait_for as _wait_for

QUICK_LEASES = LeaseSettings(seconds=3.0, renew_seconds=0.5)
#: Rounds a busy machine still follows: bets are sent when betting opens.
TIMINGS = {**QUICK, "betting_seconds": 1.5, "insurance_seconds": 0.5, "seed": "watchers"}
#: Generous: a busy 2-core machine runs this.
BOUND = 30.0


def wait_for(predicate: Callable[[], Any], timeout: float = BOUND) -> Any:
    return _wait_for(predicate, timeout=timeout, step=0.05)


class Watcher:
    """A WebSocket to a table, read in a thread of its own into :attr:`seen`."""

    def __init__(self, base: str, table: str, headers: dict[str, str] | None = None) -> None:
        url = base.replace("http", "ws", 1) + f"/ws/tables/{table}"
        self.stack = contextlib.ExitStack()
        self.ws: ClientConnection = self.stack.enter_context(
            connect(url, additional_headers=headers or {})
        )
        self.seen: list[dict[str, Any]] = []
        self.closed = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                message = json.loads(self.ws.recv())
                with self.lock:
                    self.seen.append(message)
        except (ConnectionClosed, OSError):
            self.closed = True

    def messages(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.seen)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages() if m["type"] == kind]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stack.close()
        self.thread.join(10)


@contextlib.contextmanager
def watching(*watchers: Watcher) -> Iterator[None]:
    try:
        yield
    finally:
        for watcher in watchers:
            watcher.close()


def round_of(messages: list[dict[str, Any]], round_id: str) -> list[dict[str, Any]]:
    """The messages from ``round_id``'s ``betting_open`` to its ``results``, both in."""
    start = next(
        i
        for i, m in enumerate(messages)
        if m["type"] == "betting_open" and m["round_id"] == round_id
    )
    end = next(
        i
        for i, m in enumerate(messages)
        if i > start and m["type"] == "results" and m["round_id"] == round_id
    )
    return messages[start : end + 1]


def settled(watcher: Watcher, round_id: str) -> bool:
    """Whether ``watcher`` got the results of ``round_id``."""
    return any(m["round_id"] == round_id for m in watcher.of("results"))


def number(round_id: str) -> int:
    """A round's number (its id is ``r<number>``)."""
    return int(round_id.removeprefix("r"))


def next_round(*watchers: Watcher) -> str:
    """A round whose ``betting_open`` every watcher got after its opening."""

    def found() -> str | None:
        opened = [{m["round_id"] for m in w.of("betting_open")} for w in watchers]
        common = set.intersection(*opened)
        return max(common, key=number) if common else None

    round_id: str = wait_for(found)
    return round_id


def running(base: str) -> set[str]:
    with httpx2.Client(base_url=base, timeout=10) as client:
        pit = client.get("/api/pit", headers=login(client, support.PIT)).json()
    return {t["id"] for t in pit if t["running"]}


@contextlib.contextmanager
def servers(db_url: str, count: int) -> Iterator[tuple[list[str], contextlib.ExitStack]]:
    """``count`` servers on one database, the first holding the demo tables
    (automatic dealers on quick timings); the first's stack closes it alone."""
    with contextlib.ExitStack() as all_of_them:
        first = contextlib.ExitStack()
        all_of_them.callback(first.close)
        app = make_app(db_url, leases=QUICK_LEASES, auto_dealers=True, demo_options=TIMINGS)
        bases = [first.enter_context(live_server(app))]
        assert running(bases[0]) == {"tiger", "buffalo", "dragon"}
        for _ in range(count - 1):
            other = make_app(db_url, demo=False, leases=QUICK_LEASES, auto_dealers=True)
            bases.append(all_of_them.enter_context(live_server(other)))
        for base in bases[1:]:
            assert running(base) == set()
        yield bases, first


def bet(base: str, headers: dict[str, str], table: str, round_id: str, key: str) -> str:
    answer = httpx2.post(
        f"{base}/api/tables/{table}/bets",
        headers={**headers, "Idempotency-Key": key},
        json={"wager": "banker", "stake": "25", "round_id": round_id},
        timeout=BOUND,
    )
    assert answer.status_code == 201, answer.text
    bet_id: str = answer.json()["bet"]["bet_id"]
    return bet_id


@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_watcher_on_another_process_gets_the_owners_messages_in_the_same_order(
    db_url: str,
) -> None:
    with servers(db_url, 2) as ([one, two], _):
        with httpx2.Client(base_url=one, timeout=10) as client:
            player = login(client, PLAYER)
        here, there = Watcher(one, "tiger", player), Watcher(two, "tiger", player)
        with watching(here, there):
            # The opening, as on the owner: the state with the player's own part, the roads.
            wait_for(lambda: len(there.messages()) >= 2)
            state, board = there.messages()[:2]
            assert state["type"] == "state"
            assert state["table"]["id"] == "tiger"
            assert state["me"]["balance"] == "10000.00"
            assert state["user"]["username"] == "demo"
            assert board["type"] == "scoreboard"
            round_id = next_round(here, there)
            bet_id = bet(two, player, "tiger", round_id, "watchers-1")  # forwarded to the owner
            for watcher in (here, there):
                wait_for(partial(settled, watcher, round_id))
            seen_here, seen_there = (
                round_of(here.messages(), round_id),
                round_of(there.messages(), round_id),
            )
            kinds = {m["type"] for m in seen_there}
            assert {"betting_open", "betting_closed", "card", "results", "state", "me"} <= kinds
            assert seen_there == seen_here
            mine = [m["me"] for m in seen_there if m["type"] == "me"]
            assert any(b["bet_id"] == bet_id for me in mine for b in me["bets"]), mine
            cards = [m for m in seen_there if m["type"] == "card"]
            assert [m["index"] for m in cards] == list(range(len(cards)))
            assert 4 <= len(cards) <= 6
            assert not there.closed


@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_watcher_elsewhere_sees_only_what_its_user_may(db_url: str) -> None:
    with servers(db_url, 2) as ([one, two], _):
        with httpx2.Client(base_url=one, timeout=10) as client:
            ann, bob, dealer = login(client, PLAYER), login(client, PLAYER2), login(client, DEALER)
        watchers = [Watcher(two, "tiger", who) for who in (ann, bob, dealer, None)]
        with watching(*watchers):
            ann_sees, bob_sees, staff_sees, anyone_sees = watchers
            round_id = next_round(*watchers)
            ann_bet = bet(one, ann, "tiger", round_id, "private-ann")
            bob_bet = bet(two, bob, "tiger", round_id, "private-bob")
            for watcher in watchers:
                wait_for(partial(settled, watcher, round_id))
            wait_for(lambda: any(m["me"]["results"] for m in ann_sees.of("me")))
            wait_for(lambda: any(m["me"]["results"] for m in bob_sees.of("me")))

            def bet_ids(watcher: Watcher) -> set[str]:
                found = set()
                for m in watcher.messages():
                    me = m.get("me") or {}
                    found |= {b["bet_id"] for b in me.get("bets", ())}
                    found |= {b["bet_id"] for b in me.get("results") or ()}
                return found

            # Each player's own bets reach them (so the checks below can fail) ...
            assert ann_bet in bet_ids(ann_sees)
            assert bob_bet in bet_ids(bob_sees)
            # ... and never anyone else.
            assert bob_bet not in bet_ids(ann_sees)
            assert ann_bet not in bet_ids(bob_sees)
            assert not bet_ids(anyone_sees)
            assert not bet_ids(staff_sees)
            # The staff's messages reach the staff alone.
            staff_only = {"event", "staff", "cards_held"}
            assert {"event", "staff"} <= {m["type"] for m in staff_sees.messages()}
            assert any("staff" in m for m in staff_sees.of("state"))
            for watcher in (ann_sees, bob_sees, anyone_sees):
                assert not staff_only & {m["type"] for m in watcher.messages()}
                assert not any("staff" in m for m in watcher.of("state"))
            assert "user" not in anyone_sees.messages()[0]
            assert ann_sees.messages()[0]["user"]["username"] == "demo"
            # The balance after the round: the player's own, as the owner says.
            last = [m["me"] for m in ann_sees.of("me") if m["me"]["results"]][-1]
            with httpx2.Client(base_url=one, timeout=10) as client:
                balance = client.get("/api/me", headers=ann).json()["balance"]
            assert Decimal(last["balance"]) == Decimal(balance)


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_watchers_elsewhere_keep_their_sockets_when_another_process_takes_the_table_over(
    db_url: str,
) -> None:
    with servers(db_url, 3) as ([_, two, three], first):
        watchers = [Watcher(two, "tiger"), Watcher(three, "tiger")]
        with watching(*watchers):
            before = next_round(*watchers)
            first.close()  # the owner stops (its leases released); one of the others takes over
            taker = wait_for(lambda: next((b for b in (two, three) if "tiger" in running(b)), None))
            survivor = three if taker == two else two
            assert "tiger" not in running(survivor)
            counts = [len(w.messages()) for w in watchers]

            def later_round(watcher: Watcher, count: int) -> bool:
                """A fresh state (from the new owner), then a later round, whole."""
                after = watcher.messages()[count:]
                fresh = next((i for i, m in enumerate(after) if m["type"] == "state"), None)
                if fresh is None:
                    return False
                since = after[fresh:]
                opened = {
                    m["round_id"]
                    for m in since
                    if m["type"] == "betting_open" and number(m["round_id"]) > number(before)
                }
                return any(m["type"] == "results" and m["round_id"] in opened for m in since)

            for watcher, count in zip(watchers, counts, strict=True):
                wait_for(partial(later_round, watcher, count))
                assert not watcher.closed


def test_notice_frames_put_a_long_message_together_again() -> None:
    message = json.dumps({"type": "state", "text": "x" * (3 * FRAME + 5)})
    parts = frames("host/1/ab", 7, message)
    assert len(parts) == 4
    assert all(len(p.encode()) < 8000 for p in parts)
    joined = Frames()
    # Another sender's message in between is put together on its own.
    assert joined.feed(parts[0]) is None
    assert joined.feed(frames("host/2/cd", 7, "short")[0]) == ("host/2/cd", "short")
    assert [joined.feed(p) for p in parts[1:3]] == [None, None]
    assert joined.feed(parts[3]) == ("host/1/ab", message)
    assert joined.feed("not a frame") is None


def _sent(relay: Relay) -> list[dict[str, Any]]:
    """What the relay has queued to send, taken off its queue."""
    out = []
    with contextlib.suppress(queue.Empty):
        while True:
            item = relay._out.get_nowait()
            assert item is not None
            out.append(json.loads(item))
    return out


def test_relay_gives_a_watcher_its_opening_then_what_follows_and_starts_again_at_a_gap() -> None:
    async def scenario() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        relay = Relay(hub, {})
        relay.me = "here/1/aa"
        user = {"id": 7, "username": "ann", "role": "player"}
        ann = hub.subscribe("t", "ann", False, watcher=True, ready=False, user=user)
        relay.watch(ann)
        [asked] = _sent(relay)
        assert asked | {"w": None} == {
            "k": "q", "f": "here/1/aa", "t": "t", "id": ann.id, "n": 0,
            "u": "ann", "st": False, "w": None,
        }  # fmt: skip
        assert asked["w"] == {"*": 1, "ann": 1}

        def relayed(sender: str, seq: int, kind: str = "m", **more: Any) -> None:
            relay._received(sender, {"k": kind, "f": sender, "t": "t", "s": seq, **more})

        messages: list[dict[str, Any]] = []

        def got() -> list[Any]:
            out = []
            while not ann.queue.empty():
                text = ann.queue.get_nowait()
                assert text is not None
                message = json.loads(text)
                messages.append(message)
                out.append(message["type"])
            return out

        relayed("owner/2/bb", 1, a="*", m={"type": "card"})  # before its opening: not its
        opening = [{"type": "state"}, {"type": "scoreboard"}]
        relayed("owner/2/bb", 2, "o", to="here/1/aa", id=ann.id, n=0, m=opening)
        relayed("owner/2/bb", 3, a="*", m={"type": "card"})
        relayed("owner/2/bb", 4, a="bob", m={"type": "me"})  # another player's
        relayed("owner/2/bb", 5, a="@staff", m={"type": "staff"})
        relayed("owner/2/bb", 6, a="ann", m={"type": "me"})
        assert got() == ["state", "scoreboard", "card", "me"]
        assert ann.ready
        assert messages[0] == {"type": "state", "user": user}  # who is watching, added here
        # A number skipped: it waits, and asks again (a fresh nonce).
        relayed("owner/2/bb", 8, a="*", m={"type": "card"})
        assert not ann.ready
        [again] = _sent(relay)
        assert (again["k"], again["n"]) == ("q", 1)
        relayed("owner/2/bb", 9, "o", to="here/1/aa", id=ann.id, n=0, m=opening)  # stale
        relayed("owner/2/bb", 10, a="*", m={"type": "card"})
        assert got() == []
        relayed("owner/2/bb", 11, "o", to="here/1/aa", id=ann.id, n=1, m=opening)
        relayed("owner/2/bb", 12, a="*", m={"type": "results"})
        assert got() == ["state", "scoreboard", "results"]
        # Another process's stream (a take-over): it starts again there.
        relayed("other/3/cc", 1, a="*", m={"type": "card"})
        assert not ann.ready
        assert [(m["k"], m["n"]) for m in _sent(relay)] == [("q", 2)]
        assert got() == []
        # ... as when a process says it now runs the table.
        relayed("other/3/cc", 2, "o", to="here/1/aa", id=ann.id, n=2, m=opening)
        assert got() == ["state", "scoreboard"]
        relay._received("third/4/dd", {"k": "r", "f": "third/4/dd", "tables": ["t"]})
        assert not ann.ready
        assert [(m["k"], m["n"]) for m in _sent(relay)] == [("q", 3)]

    asyncio.run(scenario())


def test_relay_sends_only_what_a_process_elsewhere_watches_and_counts_it() -> None:
    async def scenario() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        relay = Relay(hub, {})
        relay.me = "owner/2/bb"
        hub.beyond = relay
        assert hub.count("t") == 0
        relay._received("here/1/aa", {"k": "w", "f": "here/1/aa", "w": {"t": {"*": 2, "ann": 1}}})
        assert (hub.count("t"), hub.count("t", "ann"), hub.count("t", STAFF)) == (2, 1, 0)
        assert hub.count("other") == 0
        hub.publish("t", {"type": "me", "me": {}}, "bob")
        hub.publish("t", {"type": "staff", "staff": {}}, STAFF)
        hub.publish("other", {"type": "card"})
        assert _sent(relay) == []
        hub.publish("t", {"type": "card"})
        hub.publish("t", {"type": "me", "me": {"balance": "1.00"}}, "ann")
        assert [(m["s"], m["a"], m["m"]["type"]) for m in _sent(relay)] == [
            (1, "*", "card"),
            (2, "ann", "me"),
        ]
        # Its next announcement says it watches less.
        relay._received("here/1/aa", {"k": "w", "f": "here/1/aa", "w": {}})
        assert hub.count("t") == 0
        hub.publish("t", {"type": "card"})
        assert _sent(relay) == []

    asyncio.run(scenario())
