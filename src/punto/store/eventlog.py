"""An append-only log of table events, written before an action is acknowledged.

Each event is stored with its table, its round and a sequence number that is
unique per table; an append either commits whole or not at all, so a process
killed at any instant leaves a prefix of the log, never half an event.

>>> from punto.table.events import RoundOpened
>>> log = SQLiteEventLog(":memory:")
>>> log.append("t1", "r1", RoundOpened("r1"))
1
>>> [(e.seq, e.round_id, e.event.type) for e in log.read("t1")]
[(1, 'r1', 'round_opened')]
"""

from __future__ import annotations

import json
import sqlite3
import threading

from punto.store.errors import StoreError
from punto.table.events import Event, event_from_json, event_to_json
from punto.table.log import EventLog, MemoryEventLog, StoredEvent

# StoredEvent, EventLog and MemoryEventLog live with the table that writes
# them (punto.table.log), so that the table does not import the store; they
# stay importable from here, where the store's logs implement them.
__all__ = [
    "EventLog",
    "MemoryEventLog",
    "SQLiteEventLog",
    "StoreError",
    "StoredEvent",
    "open_event_log",
]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    round_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (table_id, seq)
)
"""


class SQLiteEventLog:
    """The event log in a SQLite file (WAL, fully synchronous commits)."""

    def __init__(self, path: str) -> None:
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the event log {path!r}: {error}") from None
        self._lock = threading.Lock()

    def append(self, table_id: str, round_id: str, event: Event) -> int:
        body = json.dumps(event_to_json(event), sort_keys=True)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM table_events WHERE table_id = ?", (table_id,)
                ).fetchone()
                self._db.execute(
                    "INSERT INTO table_events (table_id, seq, round_id, type, body) VALUES (?, ?, ?, ?, ?)",
                    (table_id, last + 1, round_id, event.type, body),
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as error:
                self._db.execute("ROLLBACK")
                raise StoreError(f"cannot append to the event log: {error}") from None
        return int(last) + 1

    def read(self, table_id: str) -> list[StoredEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, round_id, body FROM table_events WHERE table_id = ? ORDER BY seq",
                (table_id,),
            ).fetchall()
        return [
            StoredEvent(int(seq), str(rid), event_from_json(json.loads(body)))
            for seq, rid, body in rows
        ]

    def close(self) -> None:
        self._db.close()


def open_event_log(url: str) -> EventLog:
    """``sqlite:///path/to/file.db``, a plain file path, ``memory:``, or a
    PostgreSQL URL (``postgresql+psycopg://...``) through :mod:`punto.store.db`."""
    if url in ("memory:", ":memory:"):
        return MemoryEventLog()
    if url.startswith(("postgres://", "postgresql://", "postgresql+psycopg://")):
        # Imported here so a table on SQLite or in memory does not load
        # SQLAlchemy and Alembic (punto.store.db does not import this module).
        from punto.store.db import SQLEventLog, connect

        return SQLEventLog(connect(url))
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url
    if "://" in path:
        raise StoreError(
            f"unsupported event log URL {url!r}", hint="use sqlite:///FILE or a file path"
        )
    return SQLiteEventLog(path)
