"""The schema of the pit's shifts (revision 0019): ``pit_shifts``.

Defined apart from :mod:`punto.store.db` (which adds it to its metadata) to
keep that module short; :mod:`punto.store.shifts` reads and writes it.
"""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Column, Integer, MetaData, String, Table, Text

from punto.store.columns import ID, UTCDateTime


def shift_table(metadata: MetaData) -> Table:
    """``pit_shifts`` on ``metadata``: one row per shift, open or closed.

    ``is_open`` is 1 on the open shift and NULL on every closed one: its
    unique constraint (NULLs never collide, on SQLite as on PostgreSQL) lets
    the whole casino have one open shift, whichever process opens it.  The
    marks are each table's last event number when the shift opened (and
    closed), JSON ``{"table id": seq}``: a round belongs to the shift its
    settlement was recorded in.  ``report`` is the closed shift's report as
    it stood when it closed (JSON).
    """
    return Table(
        "pit_shifts",
        metadata,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("is_open", Integer, nullable=True, unique=True),
        Column("opened_at", UTCDateTime, nullable=False),
        Column("opened_by", String(64), nullable=False),
        Column("opened_role", String(32), nullable=False),
        Column("opened_marks", Text, nullable=False),
        Column("closed_at", UTCDateTime, nullable=True),
        Column("closed_by", String(64), nullable=True),
        Column("closed_role", String(32), nullable=True),
        Column("closed_marks", Text, nullable=True),
        Column("report", Text, nullable=True),
        CheckConstraint("is_open = 1", name="is_open_one"),
        CheckConstraint("(is_open IS NULL) = (closed_at IS NOT NULL)", name="open_or_closed"),
    )
