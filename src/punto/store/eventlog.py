"""Opening an event log by URL: in memory, a SQLite file, or PostgreSQL.

The log is :class:`punto.eventlog.MemoryEventLog` or, in a database,
:class:`punto.store.sql_log.SQLEventLog` on the schema the migrations keep
(a SQLite file is brought to the newest revision as the server's is).  The
database is imported only when one is asked for, so a log in memory needs
neither SQLAlchemy nor Alembic (the ``store`` extra; ``postgres`` for PostgreSQL).
"""

from __future__ import annotations

import importlib
from typing import TypeVar

from punto.eventlog import EventLog, MemoryEventLog, Stream
from punto.store.errors import StoreError

__all__ = ["open_event_log"]

R = TypeVar("R")

_SCHEMES = ("sqlite://", "postgres://", "postgresql://", "postgresql+psycopg://")


def open_event_log(url: str, stream: Stream[R]) -> EventLog[R]:
    """``memory:``, a SQLite file path (or ``sqlite:///FILE``), or a PostgreSQL
    URL (``postgresql+psycopg://...``): the streams of ``stream``'s family there."""
    if url in ("memory:", ":memory:"):
        return MemoryEventLog(stream)
    if "://" not in url:
        url = f"sqlite:///{url}"
    elif not url.startswith(_SCHEMES):
        raise StoreError(
            f"unsupported event log URL {url!r}",
            hint="use sqlite:///FILE, a file path or postgresql+psycopg://USER@HOST/DATABASE",
        )
    if not url.startswith("sqlite://"):
        # The driver first: without it, the extra to name is postgres (which
        # brings SQLAlchemy too), not store.
        importlib.import_module("psycopg")
    from punto.store.db import connect
    from punto.store.sql_log import SQLEventLog

    return SQLEventLog(connect(url), stream)
