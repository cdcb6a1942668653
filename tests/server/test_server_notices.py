"""Notices between server processes stay within their deployment (PostgreSQL)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from punto.server.notices import Notices, notify
from punto.store.db import connect
from tests.db_fixtures import POSTGRESQL, fresh_database

#: How long a notice may take to arrive on a busy machine (it takes milliseconds).
ARRIVES = 30.0


def heard_on(engine: Engine, channel: str, stack: ExitStack) -> queue.Queue[str]:
    """What a process on ``engine`` hears on ``channel``, listening already."""
    heard: queue.Queue[str] = queue.Queue()
    notices = Notices()
    notices.listen(channel, heard.put)
    listening = threading.Event()
    notices.on_connect(listening.set)
    notices.start(engine)
    stack.callback(notices.stop)
    assert listening.wait(ARRIVES)
    return heard


@pytest.fixture
def two_deployments(db_url: str, tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    """Two schemas of one database, each a deployment of its own."""
    with fresh_database("postgresql", tmp_path) as other:
        ours, theirs = connect(db_url, migrate=False), connect(other, migrate=False)
        yield ours, theirs
        ours.dispose()
        theirs.dispose()


@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)
def test_two_deployments_in_one_database_never_hear_each_other(
    two_deployments: tuple[Engine, Engine],
) -> None:
    # Before channels carried their schema, a process waiting for the answer to
    # its request 17 took another deployment's answer 17, and a watcher got
    # another casino's table of the same name.
    ours, theirs = two_deployments
    with ExitStack() as stack:
        heard = {e: heard_on(e, "punto_requests", stack) for e in (ours, theirs)}
        for engine, said in ((ours, "ours"), (theirs, "theirs"), (ours, "ours, again")):
            with engine.begin() as conn:
                notify(conn, "punto_requests", [said])
        # One listener hears its schema's notices in the order they committed:
        # had it heard the other's, it would be between the two.
        assert heard[ours].get(timeout=ARRIVES) == "ours"
        assert heard[ours].get(timeout=ARRIVES) == "ours, again"
        assert heard[theirs].get(timeout=ARRIVES) == "theirs"
        with theirs.begin() as conn:
            notify(conn, "punto_requests", ["theirs, again"])
        assert heard[theirs].get(timeout=ARRIVES) == "theirs, again"
        assert heard[ours].empty()


@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)
@pytest.mark.parametrize("payloads", [["one", "two"], []])
def test_an_unhurried_notice_commits_its_transaction_alone_unhurried(
    db_url: str, payloads: list[str]
) -> None:
    """A notice sent ``unhurried`` sets the transaction to commit without
    waiting for the disk (in the same statement), and nothing after it:
    the next transaction on the connection waits as every other does."""
    engine = connect(db_url, migrate=False)
    try:
        with engine.connect() as conn:
            # The test cluster commits unhurried throughout (scripts/postgres.sh): on
            # here, as a durable one has it.
            conn.execute(text("SET synchronous_commit TO on"))
            conn.commit()
            with conn.begin():
                assert conn.execute(text("SHOW synchronous_commit")).scalar_one() == "on"
                notify(conn, "punto_requests", payloads, unhurried=True)
                assert conn.execute(text("SHOW synchronous_commit")).scalar_one() == "off"
            with conn.begin():
                assert conn.execute(text("SHOW synchronous_commit")).scalar_one() == "on"
    finally:
        engine.dispose()


@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)
@pytest.mark.parametrize("unhurried", [False, True])
def test_many_notices_of_one_transaction_are_heard_in_the_order_sent(
    db_url: str, unhurried: bool
) -> None:
    """One statement sends them all (:func:`notify`), in the order given: the
    watchers' messages of a table are relayed in its log's order."""
    engine = connect(db_url, migrate=False)
    with ExitStack() as stack:
        stack.callback(engine.dispose)
        heard = heard_on(engine, "punto_relay", stack)
        sent = [f"message {n}" for n in range(300)]
        with engine.begin() as conn:
            notify(conn, "punto_relay", sent, unhurried=unhurried)
        assert [heard.get(timeout=ARRIVES) for _ in sent] == sent
        assert heard.empty()
