"""Opening a tournament's event log by URL, in memory, SQLite or PostgreSQL.

The logs are :mod:`punto.tournament.store`'s; choosing one by URL needs the
store's :func:`punto.store.db.connect`, so it lives here, above the
tournament, as :func:`punto.store.eventlog.open_event_log` does for tables.
"""

from __future__ import annotations

from punto.tournament.errors import TournamentLogError
from punto.tournament.store import (
    MemoryTournamentLog,
    SQLiteTournamentLog,
    SQLTournamentLog,
    TournamentLog,
)

__all__ = ["open_tournament_log"]


def open_tournament_log(url: str) -> TournamentLog:
    """``memory:``, a SQLite file path (or ``sqlite:///FILE``), or a
    PostgreSQL URL (through :func:`punto.store.db.connect`)."""
    if url in ("memory:", ":memory:"):
        return MemoryTournamentLog()
    if url.startswith(("postgres://", "postgresql://", "postgresql+psycopg://")):
        # Imported here so a tournament on SQLite or in memory does not load
        # SQLAlchemy and Alembic.
        from punto.store.db import connect

        return SQLTournamentLog(connect(url))
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url
    if "://" in path:
        raise TournamentLogError(
            f"unsupported tournament log URL {url!r}", hint="use sqlite:///FILE or a file path"
        )
    return SQLiteTournamentLog(path)
