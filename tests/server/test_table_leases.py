"""Table leases: each table run by one process, and a fencing token
checked in every write -- on SQLite and PostgreSQL.

The store's leases (:mod:`punto.store.leases`), the journal refusing the
writes of a table whose lease was taken over while the other tables write on
(:mod:`punto.server.cluster.ownership`), and two servers on one database: the second
runs none of the first's tables, answers 503 for them, and takes them over
when the first stops.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, insert, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from punto.server.cluster.forwarding import REQUESTS, Forwarding
from punto.server.cluster.leases import LeaseSettings
from punto.server.cluster.ownership import Ownership, owner_gone, process_owner
from punto.server.forwarded import ANSWERS, unpack
from punto.server.tables.journal import EventAppend, Journal, PlaceBet
from punto.store import db, leases
from punto.store.db import server_requests, table_events, table_requests
from punto.store.leases import LeaseLostError
from punto.store.ledger import Ledger
from punto.table.events import BetPlaced, RoundOpened
from tests import db_fixtures
from tests.server.test_server_notices import ARRIVES, heard_on
from tests.server.test_server_support import login, make_app, server_of, wait_for

A, B = "host-a/101/aaaa", "host-b/202/bbbb"


def _acquire(
    engine: Engine,
    table_id: str,
    owner: str,
    seconds: float = 10.0,
    dead: Callable[[str], bool] = lambda _owner: False,
) -> int | None:
    with db.write_transaction(engine) as conn:
        lease = leases.acquire(conn, table_id, owner, seconds, dead=dead)
    return None if lease is None else lease.token


# -- the store -----------------------------------------------------------------------------


def test_lease_is_taken_when_free_refused_while_held_and_taken_over_with_the_next_token(
    engine: Engine,
) -> None:
    assert _acquire(engine, "t1", A) == 1
    assert _acquire(engine, "t1", B) is None  # A holds it
    assert _acquire(engine, "t1", A) == 1  # A again: the same token
    # A lease that has run out (length 0: it ends as it is taken) goes to the next holder.
    assert _acquire(engine, "t2", A, seconds=0) == 1
    assert _acquire(engine, "t2", B) == 2
    assert _acquire(engine, "t2", A) is None
    with engine.connect() as conn:
        held = leases.holders(conn)
    assert {t: (lease.owner, lease.token) for t, lease in held.items()} == {
        "t1": (A, 1),
        "t2": (B, 2),
    }


def test_lease_of_a_dead_owner_or_a_released_one_is_taken_at_once(engine: Engine) -> None:
    assert _acquire(engine, "t1", A) == 1
    assert _acquire(engine, "t1", B, dead=lambda owner: owner == A) == 2
    with db.write_transaction(engine) as conn:
        leases.release(conn, B, ["t1"])
    assert _acquire(engine, "t1", A) == 3


def test_lease_renewal_keeps_what_is_held_and_reports_what_was_taken(engine: Engine) -> None:
    _acquire(engine, "t1", A)
    _acquire(engine, "t2", A)
    _acquire(engine, "t2", B, dead=lambda owner: owner == A)  # B took t2 over
    with db.write_transaction(engine) as conn:
        assert leases.renew(conn, A, ["t1", "t2"], 10.0) == {"t1"}
        before = leases.holders(conn)["t1"].expires_at
        now = leases.db_now(conn)
    assert now + 9 < before <= now + 10.5


def test_lease_check_refuses_a_write_once_another_process_took_the_table(engine: Engine) -> None:
    _acquire(engine, "t1", A)
    with db.write_transaction(engine) as conn:
        leases.check(conn, A, {"t1": 1}, {"t1"})
        with pytest.raises(LeaseLostError, match="no longer runs table"):
            leases.check(conn, A, {"t1": 1}, {"t1", "t9"})  # t9: never leased
    _acquire(engine, "t1", B, dead=lambda owner: owner == A)
    with db.write_transaction(engine) as conn, pytest.raises(LeaseLostError, match="t1"):
        leases.check(conn, A, {"t1": 1}, {"t1"})
    # Even the old holder's token from before is not enough: the holder changed.
    with db.write_transaction(engine) as conn, pytest.raises(LeaseLostError):
        leases.check(conn, A, {"t1": 2}, {"t1"})


@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_lease_check_holds_off_a_take_over_until_the_write_commits_but_not_a_renewal(
    engine: Engine,
) -> None:
    """The fence of a write in progress makes a take-over wait (then it sees
    the write), while the holder's renewal goes through at once: with the
    rows read ``FOR SHARE`` each renewal waited for the write, and the next
    write for the renewal."""
    _acquire(engine, "t1", A, seconds=0)  # run out: B may take it
    with engine.connect() as writer, engine.connect() as other:
        other.execute(text("SET lock_timeout = '2s'"))
        other.commit()
        with writer.begin():
            leases.check(writer, A, {"t1": 1}, {"t1"})
            with other.begin():  # the holder renews (keeping it run out): no wait
                assert leases.renew(other, A, ["t1"], 0.0) == {"t1"}
            other.execute(text("SET lock_timeout = '200ms'"))
            other.commit()
            with pytest.raises(OperationalError, match="lock timeout"), other.begin():
                leases.acquire(other, "t1", B, 10.0)  # waits for the write
    assert _acquire(engine, "t1", B) == 2  # once it committed


def test_lease_owner_names_this_process_and_knows_a_dead_local_pid() -> None:
    import os
    import socket

    me = process_owner()
    host, pid, instance = me.split("/")
    assert (host, int(pid)) == (socket.gethostname(), os.getpid())
    assert len(instance) == 12
    assert not owner_gone(me)  # this very process
    assert not owner_gone("elsewhere/1/x")  # another machine's: waited out
    assert owner_gone(f"{socket.gethostname()}/{2**22 + 12345}/x")  # no such pid


# -- the journal's fence ------------------------------------------------------------------


@pytest.fixture
def fenced(engine: Engine) -> Iterator[tuple[Ownership, Journal]]:
    ownership = Ownership(engine, LeaseSettings(10.0, 3.0), owner=A)
    journal = Journal(engine, checks=ownership.check)
    try:
        yield ownership, journal
    finally:
        journal.close()


def _events(engine: Engine, table_id: str) -> int:
    with engine.connect() as conn:
        query = select(func.count()).where(table_events.c.table_id == table_id)
        return int(conn.execute(query).scalar_one())


def test_lease_lost_means_the_tables_writes_are_refused_and_the_others_go_on(
    engine: Engine, fenced: tuple[Ownership, Journal]
) -> None:
    ownership, journal = fenced
    ledger = Ledger(engine)
    ledger.deposit(ledger.player_wallet("ann"), 10000, key="fund-ann")
    assert ownership.claim("t1")
    assert ownership.claim("t2")
    for table in ("t1", "t2"):
        journal.append(EventAppend(table, f"{table}-r1", RoundOpened(f"{table}-r1")))
    # A table this process never claimed is not written either.
    with pytest.raises(LeaseLostError, match="t3"):
        journal.append(EventAppend("t3", "t3-r1", RoundOpened("t3-r1")))
    # Another process takes t1 over (as if this one had been paused past its lease).
    assert _acquire(engine, "t1", B, dead=lambda owner: owner == A) == 2

    def bet(table: str) -> EventAppend:
        placed = BetPlaced(f"{table}-b1", "ann", 1, "banker", Decimal("25.00"))
        posting = PlaceBet("player:ann", table, f"{table}-b1", f"{table}-r1", 2500, f"k-{table}")
        return EventAppend(table, f"{table}-r1", placed, postings=[posting])

    # Both in flight at once (one group, most likely): t1's refused alone.
    lost, kept = journal.submit(bet("t1")), journal.submit(bet("t2"))
    with pytest.raises(LeaseLostError, match="table\\(s\\) t1:"):
        lost.result(30)
    seq, posted = kept.result(30)
    assert seq == 2
    assert posted[0].player_balance == 7500
    assert (_events(engine, "t1"), _events(engine, "t2"), _events(engine, "t3")) == (1, 2, 0)
    assert ledger.balance("player:ann") == 7500  # t1's stake never left the wallet
    assert ledger.balance("holding:t2") == 2500
    assert ledger.trial_balance() == 0
    # The renewal finds it out and forgets the table; the other lease is renewed.
    assert ownership.renew() == {"t1"}
    assert ownership.held() == {"t2": 1}


# -- two servers on one database ------------------------------------------------------------


@contextmanager
def _two_servers(db_url: str) -> Iterator[tuple[TestClient, TestClient, Callable[[], None]]]:
    """Two servers on one database, the second started beside the first (which
    holds the demo tables); and how to stop the first before the second."""
    quick = LeaseSettings(seconds=3.0, renew_seconds=0.5)
    first = TestClient(make_app(db_url, leases=quick))
    second = TestClient(make_app(db_url, demo=False, leases=quick))
    first.__enter__()
    running = [True]

    def stop_first() -> None:
        if running.pop():
            first.__exit__(None, None, None)

    try:
        assert first.get("/api/health").json()["tables"] == 3
        second.__enter__()
        try:
            assert second.get("/api/health").json()["tables"] == 0
            yield first, second, stop_first
        finally:
            if running:
                stop_first()
            second.__exit__(None, None, None)
    finally:
        if running:
            stop_first()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_lease_second_server_answers_503_for_the_first_servers_tables_then_takes_them_over(
    db_url: str,
) -> None:
    """Without forwarding (SQLite: no LISTEN/NOTIFY; leases are asked for here)."""
    with _two_servers(db_url) as (first, second, stop_first):
        answer = second.get("/api/tables/tiger")
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "1"
        error = answer.json()["error"]
        assert error["type"] == "TableElsewhereError"
        assert error["message"].startswith("table tiger is run by another server process")
        bet = second.post(
            "/api/tables/tiger/bets",
            headers={**login(second, ("demo", "demo-password")), "Idempotency-Key": "k1"},
            json={"wager": "banker", "stake": "10"},
        )
        assert bet.status_code == 503, bet.text
        assert first.get("/api/tables/tiger").status_code == 200
        stop_first()
        # The first stopped and let its leases go: the second takes the tables over.
        wait_for(lambda: second.get("/api/health").json()["tables"] == 3, timeout=60, step=0.1)
        assert second.get("/api/tables/tiger").status_code == 200


@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_lease_second_server_forwards_bets_to_the_first_then_takes_the_tables_over(
    db_url: str,
) -> None:
    """PostgreSQL: a request for the other process's table is answered by it."""
    with _two_servers(db_url) as (first, second, stop_first):
        player = login(second, ("demo", "demo-password"))
        shown = second.get("/api/tables/tiger", headers=player)
        assert shown.status_code == 200, shown.text
        assert shown.json()["table"]["id"] == "tiger"
        # No round open yet: the owner's refusal, forwarded as it is.
        closed = second.post(
            "/api/tables/tiger/bets",
            headers={**player, "Idempotency-Key": "k0"},
            json={"wager": "banker", "stake": "10"},
        )
        direct = first.post(
            "/api/tables/tiger/bets",
            headers={**player, "Idempotency-Key": "k0"},
            json={"wager": "banker", "stake": "10"},
        )
        assert closed.status_code == direct.status_code == 409, closed.text
        assert closed.json()["error"]["type"] == direct.json()["error"]["type"]
        runtime = server_of(first).tables["tiger"]
        runtime.next_round_at = 0.0
        runtime.step()  # "Place your bets, please"
        before = Decimal(first.get("/api/me", headers=player).json()["balance"])
        bet = second.post(
            "/api/tables/tiger/bets",
            headers={**player, "Idempotency-Key": "k1"},
            json={"wager": "banker", "stake": "10"},
        )
        assert bet.status_code == 201, bet.text
        placed = bet.json()["bet"]
        assert Decimal(bet.json()["balance"]) == before - Decimal("10.00")
        assert runtime.round is not None
        # the answer goes out with the bet's commit (docs/deployment.md): the
        # owner's round takes the bet as its journal group lands, a moment later
        wait_for(lambda: [b.bet_id for b in runtime.round.bets] == [placed["bet_id"]])  # type: ignore[union-attr]
        assert [b.bet_id for b in runtime.round.bets] == [placed["bet_id"]]
        # The same request again, to the owner itself: the same bet, not a second.
        again = first.post(
            "/api/tables/tiger/bets",
            headers={**player, "Idempotency-Key": "k1"},
            json={"wager": "banker", "stake": "10"},
        )
        assert again.status_code == 201, again.text
        assert again.json()["bet"]["bet_id"] == placed["bet_id"]
        assert Decimal(first.get("/api/me", headers=player).json()["balance"]) == before - 10
        stop_first()
        wait_for(lambda: second.get("/api/health").json()["tables"] == 3, timeout=60, step=0.1)
        # Taken over: the round resumes from the log, the bet in it.
        state = second.get("/api/tables/tiger", headers=player).json()
        assert state["round"]["bets"] == 1
        assert [b["bet_id"] for b in state["me"]["bets"]] == [placed["bet_id"]]


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_lease_a_listener_on_the_database_hears_no_credentials_of_a_forwarded_request(
    db_url: str,
) -> None:
    """Any session of the database may LISTEN on any channel (another
    deployment's, say): a forwarded request is announced by its id and table,
    never with the player's token or what they asked."""
    with _two_servers(db_url) as (_first, second, _), ExitStack() as stack:
        engine = db.connect(db_url, migrate=False)
        stack.callback(engine.dispose)
        heard = heard_on(engine, REQUESTS, stack)
        player = login(second, ("demo", "demo-password"))
        token = player["Authorization"].removeprefix("Bearer ")
        asked = second.post(
            "/api/tables/tiger/bets",
            headers={**player, "Idempotency-Key": "overheard"},
            json={"wager": "banker", "stake": "10"},
        )
        assert asked.status_code == 409, asked.text  # no round open: the owner's refusal
        payloads = [heard.get(timeout=ARRIVES)]
        while not heard.empty():
            payloads.append(heard.get_nowait())
        assert all(token not in p and "overheard" not in p for p in payloads), payloads
        assert any(p.endswith(" tiger") for p in payloads), payloads


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_lease_a_forwarded_bets_answer_is_announced_once_by_the_commit_of_the_bet(
    db_url: str,
) -> None:
    """The owner announces a forwarded bet's answer in the transaction that
    commits the bet (so it goes out exactly when the bet is durable), and
    does not announce it a second time after."""
    with _two_servers(db_url) as (first, second, _), ExitStack() as stack:
        engine = db.connect(db_url, migrate=False)
        stack.callback(engine.dispose)
        heard = heard_on(engine, ANSWERS, stack)
        player = login(second, ("demo", "demo-password"))
        runtime = server_of(first).tables["tiger"]
        runtime.next_round_at = 0.0
        runtime.step()  # "Place your bets, please"
        bet = second.post(
            "/api/tables/tiger/bets",
            headers={**player, "Idempotency-Key": "announced"},
            json={"wager": "banker", "stake": "10"},
        )
        assert bet.status_code == 201, bet.text
        payload = heard.get(timeout=ARRIVES)
        number, _, packed = payload.partition(" ")
        status, headers, body = unpack(packed)
        assert (status, headers) == (201, [["content-type", "application/json"]])
        assert json.loads(body) == bet.json()
        with engine.connect() as conn:  # the very text committed with the bet
            stored = conn.execute(
                select(server_requests.c.response).where(
                    server_requests.c.key.endswith(":announced")
                )
            ).scalar_one()
        assert body.decode() == stored
        # The owner's own answer to the request came after, and was not announced.
        request_id = int(number)
        wait_for(lambda: _answer_of(engine, request_id) is not None, timeout=ARRIVES, step=0.05)
        assert unpack(str(_answer_of(engine, request_id)))[0] == 201
        assert heard.empty()


def _answer_of(engine: Engine, request_id: int) -> str | None:
    with engine.connect() as conn:
        query = select(table_requests.c.answer).where(table_requests.c.id == request_id)
        return conn.execute(query).scalar_one_or_none()


@pytest.mark.parametrize("db_url", db_fixtures.BACKENDS, indirect=True)
def test_lease_taken_by_another_process_stops_the_table_here(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A process that finds its lease taken (it was paused past it, say) stops the
    table -- no runtime, no dealer -- logs it, and answers for it as another's."""
    quick = LeaseSettings(seconds=3.0, renew_seconds=0.5)
    with TestClient(make_app(db_url, leases=quick)) as client:
        server = server_of(client)
        assert server.ownership is not None
        assert "tiger" in server.tables
        other = "elsewhere/1/cccc"  # another machine's process: its lease is waited out
        with db.write_transaction(server.engine) as conn:
            taken = leases.acquire(conn, "tiger", other, 60.0, dead=lambda _owner: True)
        assert taken is not None
        assert taken.token == 2
        wait_for(lambda: "tiger" not in server.tables, timeout=60, step=0.1)
        assert "tiger" not in server.dealers
        assert not server.ownership.holds("tiger")
        assert "table tiger: this process lost its lease" in caplog.text
        answer = client.get("/api/tables/tiger")
        assert answer.status_code == 503, answer.text
        # (on PostgreSQL after 10 s: forwarded, and the other process does not exist)
        assert answer.json()["error"]["message"].startswith(
            "table tiger is run by another server process"
        )
        assert answer.headers["retry-after"] == "1"
        # The other tables run on.
        assert {"buffalo", "dragon"} <= set(server.tables)
        assert client.get("/api/tables/dragon").status_code == 200


def test_lease_serve_refuses_a_renewal_not_under_the_lease(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from punto.cli import main

    for renew in ("10", "0", "-1"):
        assert main(["serve", "--lease-seconds", "10", "--lease-renew-seconds", renew]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert len(captured.err.splitlines()) == 1
        assert f"--lease-renew-seconds {renew} must be above 0 and under --lease-seconds 10" in (
            captured.err
        )


@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)  # forwarding's
def test_lease_requests_a_former_owner_took_and_never_answered_are_taken_again(
    engine: Engine,
) -> None:
    """A request forwarded to a process that then died (or lost the lease)
    half-way is taken again by the process that runs the table now, not left
    for its client to wait out FORWARD_SECONDS; one it answered, one this
    process took itself and one for a table run elsewhere are not."""

    class Holding:
        owner = A

        def held(self) -> dict[str, int]:
            return {"t1": 2}

    def row(table_id: str, taken_by: str | None, answer: str | None = None) -> int:
        with db.write_transaction(engine) as conn:
            return int(
                conn.execute(
                    insert(table_requests)
                    .values(
                        table_id=table_id,
                        request=json.dumps({"n": table_id}),
                        taken_by=taken_by,
                        answer=answer,
                        created_at=0.0,
                    )
                    .returning(table_requests.c.id)
                ).scalar_one()
            )

    waiting = row("t1", None)
    orphaned = row("t1", B)
    row("t1", B, answer="{}")  # answered before B went
    row("t1", A)  # this process has it in hand
    row("t2", None)  # t2 is run elsewhere
    forwarding = Forwarding()
    forwarding.engine, forwarding.ownership = engine, Holding()  # type: ignore[assignment]
    assert [i for i, _ in forwarding.take_waiting()] == [waiting, orphaned]
    assert forwarding.take_waiting() == []  # taken: not again


@pytest.mark.parametrize("db_url", [db_fixtures.POSTGRESQL], indirect=True)
def test_forwarding_outlives_the_database_cutting_its_kept_connections(engine: Engine) -> None:
    """Forwarding keeps a connection for each kind of batch (no pool's ping a
    batch).  One the server cut is found gone and replaced: a read or an
    answer is tried again at once; a request's write fails alone (it may
    have committed: its client retries) and the next one goes through."""
    name = f"punto-cut-{uuid.uuid4().hex[:8]}"
    own = create_engine(engine.url.update_query_dict({"application_name": name}))
    forwarding = Forwarding()
    forwarding.engine = own

    def cut() -> int:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE application_name = :name"
                    ),
                    {"name": name},
                ).scalar_one()
            )

    try:
        [first] = forwarding.send_requests([("t1", '{"n": 1}')])
        assert forwarding.read_requests([first]) == [{"n": 1}]
        forwarding.write_answers([(first, '{"status": 200}', False)])
        assert cut() == 3  # the requests', the reads' and the answers' connections
        assert forwarding.read_requests([first]) == [None]  # answered: tried again, read
        forwarding.write_answers([(first, '{"status": 201}', False)])
        with pytest.raises(DBAPIError):
            forwarding.send_requests([("t1", '{"n": 2}')])
        [third] = forwarding.send_requests([("t1", '{"n": 3}')])
        assert third > first
        with engine.connect() as conn:
            answer = conn.execute(
                select(table_requests.c.answer).where(table_requests.c.id == first)
            ).scalar_one()
        assert answer == '{"status": 201}'
    finally:
        own.dispose()
