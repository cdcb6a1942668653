"""The pit's shifts in the database: one open at a time for the whole casino,
whoever opens it and from whichever connection; the marks; the audit rows."""

from __future__ import annotations

import json
import threading

import pytest
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from punto.store.db import (
    connect,
    pit_shifts,
    server_audit,
    server_tables,
    table_events,
    utc_now,
    write_transaction,
)
from punto.store.shifts import ShiftBook, ShiftError, Staff

PAT = Staff(1, "pat", "pit_manager")
KIM = Staff(2, "kim", "shift_manager")


def _table(engine: Engine, table_id: str, events: int) -> None:
    """A table with ``events`` events in its log (their bodies do not matter here)."""
    now = utc_now()
    with write_transaction(engine) as conn:
        conn.execute(
            insert(server_tables).values(
                id=table_id,
                name=table_id,
                game="dragon-tiger",
                mode="dealer",
                card_source="virtual",
                limits="{}",
                decks=8,
                betting_seconds=1,
                card_delay=0,
                insurance_seconds=0,
                result_seconds=0,
                active=True,
                created_at=now,
                updated_at=now,
            )
        )
        for seq in range(1, events + 1):
            conn.execute(
                insert(table_events).values(
                    table_id=table_id, seq=seq, round_id="", type="x", body="{}"
                )
            )


def test_a_shift_opened_on_one_connection_is_the_one_another_sees(db_url: str) -> None:
    first, second = connect(db_url), connect(db_url)
    try:
        opened = ShiftBook(first).open(PAT)
        seen = ShiftBook(second).current()
        assert seen is not None
        assert (seen.id, seen.opened_by, seen.opened_role, seen.is_open) == (
            opened.id,
            "pat",
            "pit_manager",
            True,
        )
        assert seen.opened_at == opened.opened_at
    finally:
        first.dispose()
        second.dispose()


def test_one_shift_is_open_at_a_time_and_the_refusal_says_whose(engine: Engine) -> None:
    book = ShiftBook(engine)
    book.open(PAT)
    with pytest.raises(ShiftError) as refused:
        book.open(KIM)
    assert str(refused.value) == (
        "a shift is open already: shift 1, opened by pat; close it first "
        "(one shift is open at a time)"
    )
    # the database itself holds it, whatever a writer forgot to look at
    with pytest.raises(IntegrityError), write_transaction(engine) as conn:
        conn.execute(
            insert(pit_shifts).values(
                is_open=1, opened_at=utc_now(), opened_by="x", opened_role="x", opened_marks="{}"
            )
        )


def test_two_managers_opening_at_once_open_one_shift(db_url: str) -> None:
    engines = [connect(db_url) for _ in range(4)]
    outcomes: list[str] = []
    start = threading.Barrier(len(engines))

    def open_one(engine: Engine, who: Staff) -> None:
        start.wait()
        try:
            ShiftBook(engine).open(who)
            outcomes.append("opened")
        except ShiftError:
            outcomes.append("refused")

    try:
        threads = [
            threading.Thread(target=open_one, args=(e, Staff(i, f"m{i}", "pit_manager")))
            for i, e in enumerate(engines)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(outcomes) == ["opened", "refused", "refused", "refused"]
        with engines[0].connect() as conn:
            assert len(conn.execute(select(pit_shifts.c.id)).all()) == 1
    finally:
        for e in engines:
            e.dispose()


def test_the_marks_are_each_tables_last_event_when_the_shift_opens_and_closes(
    engine: Engine,
) -> None:
    _table(engine, "t1", 5)
    _table(engine, "t2", 0)  # no events yet: no mark, every event of it comes later
    book = ShiftBook(engine)
    opened = book.open(PAT)
    assert opened.opened_marks == {"t1": 5}
    assert book.current() == opened
    with write_transaction(engine) as conn:
        conn.execute(
            insert(table_events).values(table_id="t2", seq=1, round_id="", type="x", body="{}")
        )
    report = {"tables": [], "total": {"handle": "0.00"}}
    closed = book.close(opened.id, KIM, book.marks(), report)
    assert closed.closed_marks == {"t1": 5, "t2": 1}
    assert (closed.closed_by, closed.closed_role, closed.report) == ("kim", "shift_manager", report)
    assert closed.closed_at is not None
    assert closed.closed_at >= closed.opened_at
    assert book.current() is None
    assert book.closed() == [closed]


def test_a_shift_is_closed_once_and_a_stale_close_is_refused(engine: Engine) -> None:
    book = ShiftBook(engine)
    first = book.open(PAT)
    book.close(first.id, PAT, {}, {})
    second = book.open(KIM)
    # a page that still shows the first shift cannot close the second by mistake
    with pytest.raises(ShiftError, match=r"shift 1 is closed already, by pat"):
        book.close(first.id, KIM, {}, {})
    with pytest.raises(ShiftError, match=r"there is no shift 7"):
        book.close(7, KIM, {}, {})
    assert book.current() == second
    book.close(second.id, KIM, {}, {"n": 2})
    assert [s.id for s in book.closed()] == [second.id, first.id]
    assert [s.id for s in book.closed(limit=1)] == [second.id]


def test_opening_and_closing_are_in_the_audit_log(engine: Engine) -> None:
    book = ShiftBook(engine)
    opened = book.open(PAT)
    book.close(opened.id, KIM, {}, {})
    with engine.connect() as conn:
        rows = conn.execute(select(server_audit).order_by(server_audit.c.id)).mappings().all()
    assert [(r["action"], r["username"], r["role"], r["account_id"]) for r in rows] == [
        ("shift_open", "pat", "pit_manager", 1),
        ("shift_close", "kim", "shift_manager", 2),
    ]
    assert [json.loads(r["detail"]) for r in rows] == [{"shift": opened.id}] * 2
