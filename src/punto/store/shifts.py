"""The pit's shifts: one open at a time for the whole casino, in the database.

A pit manager opens a shift and closes it; every pit page and every server
process reads the same one (``pit_shifts``, :mod:`punto.store.shifts_schema`).
Opening takes each table's *mark*, the number of its last event then; closing
takes the marks again and keeps the shift's report as it stood.  A round is
the shift's when its settlement (or void) was recorded between the two marks
(the server's :mod:`punto.server.routes.shift_report` folds the logs).  Each opening
and closing writes its audit row in the same transaction as the shift.

>>> from punto.store.db import connect
>>> book = ShiftBook(connect("sqlite://"))
>>> shift = book.open(Staff(1, "pat", "pit_manager"))
>>> (shift.id, shift.opened_by, shift.is_open, book.current() == shift)
(1, 'pat', True, True)
>>> book.open(Staff(2, "kim", "pit_manager"))
Traceback (most recent call last):
...
punto.store.shifts.ShiftError: a shift is open already: shift 1, opened by pat; close it first (one shift is open at a time)
>>> closed = book.close(1, Staff(2, "kim", "pit_manager"), book.marks(), {"total": {}})
>>> (closed.closed_by, closed.report, book.current())
('kim', {'total': {}}, None)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, Engine, RowMapping

from punto.store.db import (
    pit_shifts,
    read_transaction,
    run_transaction,
    server_audit,
    server_tables,
    table_events,
    utc_now,
)
from punto.store.errors import StoreError

__all__ = ["Shift", "ShiftBook", "ShiftError", "Staff"]

#: The audit log's actions for a shift.
OPENED, CLOSED = "shift_open", "shift_close"


class ShiftError(StoreError):
    """A shift opened while one is open, or closed when it is not the open one."""


@dataclass(frozen=True, slots=True)
class Staff:
    """Who opens or closes a shift, as the audit log records them."""

    account_id: int | None
    username: str
    role: str


@dataclass(frozen=True, slots=True)
class Shift:
    """One shift: who opened it and when, each table's mark then; once closed,
    who closed it, when, the marks then and the report as it stood."""

    id: int
    opened_at: datetime
    opened_by: str
    opened_role: str
    opened_marks: Mapping[str, int]
    closed_at: datetime | None = None
    closed_by: str | None = None
    closed_role: str | None = None
    closed_marks: Mapping[str, int] | None = None
    report: dict[str, Any] | None = None

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    def to_json(self) -> dict[str, Any]:
        """The shift for the API (its marks and report apart)."""
        return {
            "id": self.id,
            "open": self.is_open,
            "opened_at": self.opened_at.isoformat(),
            "opened_by": self.opened_by,
            "opened_role": self.opened_role,
            "closed_at": None if self.closed_at is None else self.closed_at.isoformat(),
            "closed_by": self.closed_by,
            "closed_role": self.closed_role,
        }


def _shift(row: RowMapping) -> Shift:
    return Shift(
        id=int(row["id"]),
        opened_at=row["opened_at"],
        opened_by=row["opened_by"],
        opened_role=row["opened_role"],
        opened_marks=json.loads(row["opened_marks"]),
        closed_at=row["closed_at"],
        closed_by=row["closed_by"],
        closed_role=row["closed_role"],
        closed_marks=None if row["closed_marks"] is None else json.loads(row["closed_marks"]),
        report=None if row["report"] is None else json.loads(row["report"]),
    )


def _marks(conn: Connection) -> dict[str, int]:
    """Each table's last event number (tables without events left out).  One
    look-up per table on the log's primary key, never a scan of the log."""
    last = (
        select(func.max(table_events.c.seq))
        .where(table_events.c.table_id == server_tables.c.id)
        .scalar_subquery()
    )
    rows = conn.execute(select(server_tables.c.id, last).order_by(server_tables.c.id))
    return {str(table_id): int(seq) for table_id, seq in rows if seq is not None}


def _audit(conn: Connection, action: str, who: Staff, at: datetime, **detail: Any) -> None:
    conn.execute(
        insert(server_audit).values(
            at=at,
            account_id=who.account_id,
            username=who.username,
            role=who.role,
            action=action,
            detail=json.dumps(detail, sort_keys=True, default=str),
        )
    )


class ShiftBook:
    """The shifts in the database ``engine``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def current(self) -> Shift | None:
        """The open shift (None: no shift is open)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(pit_shifts).where(pit_shifts.c.is_open == 1)).mappings()
            found = row.one_or_none()
        return None if found is None else _shift(found)

    def get(self, shift_id: int) -> Shift:
        with self.engine.connect() as conn:
            found = (
                conn.execute(select(pit_shifts).where(pit_shifts.c.id == shift_id))
                .mappings()
                .one_or_none()
            )
        if found is None:
            raise ShiftError(f"there is no shift {shift_id}", hint="see the shifts listed")
        return _shift(found)

    def closed(self, limit: int = 10) -> list[Shift]:
        """The last ``limit`` closed shifts, the latest first."""
        query = (
            select(pit_shifts)
            .where(pit_shifts.c.is_open.is_(None))
            .order_by(pit_shifts.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_shift(row) for row in conn.execute(query).mappings()]

    def marks(self) -> dict[str, int]:
        """Each table's last event number now."""
        with read_transaction(self.engine) as conn:
            return _marks(conn)

    def open(self, who: Staff) -> Shift:
        """Open a shift now, marking every table's log; refused while one is open.

        Two pit managers opening at once: the unique ``is_open`` lets one
        insert, and the other's retry sees that shift and is refused.
        """

        def work(conn: Connection) -> Shift:
            _refuse_if_open(conn)
            at = utc_now()
            marks = _marks(conn)
            shift_id = conn.execute(
                insert(pit_shifts)
                .values(
                    is_open=1,
                    opened_at=at,
                    opened_by=who.username,
                    opened_role=who.role,
                    opened_marks=json.dumps(marks, sort_keys=True),
                )
                .returning(pit_shifts.c.id)
            ).scalar_one()
            _audit(conn, OPENED, who, at, shift=int(shift_id))
            return Shift(int(shift_id), at, who.username, who.role, marks)

        return run_transaction(self.engine, work, retry_integrity=True)

    def close(
        self, shift_id: int, who: Staff, marks: Mapping[str, int], report: dict[str, Any]
    ) -> Shift:
        """Close the open shift ``shift_id`` with the marks its report was made
        to and the report itself; refused if it is not the open shift (closed
        already, or another opened since the page was read)."""

        def work(conn: Connection) -> Shift:
            at = utc_now()
            done = conn.execute(
                update(pit_shifts)
                .where(pit_shifts.c.id == shift_id, pit_shifts.c.is_open == 1)
                .values(
                    is_open=None,
                    closed_at=at,
                    closed_by=who.username,
                    closed_role=who.role,
                    closed_marks=json.dumps(dict(marks), sort_keys=True),
                    report=json.dumps(report, sort_keys=True),
                )
            )
            if done.rowcount != 1:
                _refuse_closing(conn, shift_id)
            _audit(conn, CLOSED, who, at, shift=shift_id)
            row = conn.execute(select(pit_shifts).where(pit_shifts.c.id == shift_id))
            return _shift(row.mappings().one())

        return run_transaction(self.engine, work)


def _refuse_if_open(conn: Connection) -> None:
    row = (
        conn.execute(
            select(pit_shifts.c.id, pit_shifts.c.opened_by).where(pit_shifts.c.is_open == 1)
        )
        .mappings()
        .one_or_none()
    )
    if row is not None:
        raise ShiftError(
            f"a shift is open already: shift {row['id']}, opened by {row['opened_by']}",
            hint="close it first (one shift is open at a time)",
        )


def _refuse_closing(conn: Connection, shift_id: int) -> None:
    row = (
        conn.execute(select(pit_shifts).where(pit_shifts.c.id == shift_id)).mappings().one_or_none()
    )
    if row is None:
        raise ShiftError(f"there is no shift {shift_id}", hint="close the open shift")
    raise ShiftError(
        f"shift {shift_id} is closed already, by {row['closed_by']}",
        hint="reload the pit page: it shows the open shift, if any",
    )
