"""Persistence: the append-only event log behind every live table."""

# The lease table is part of the schema (db.metadata) wherever the schema is used.
from punto.store import leases as leases
from punto.store.eventlog import (
    EventLog,
    MemoryEventLog,
    SQLiteEventLog,
    StoredEvent,
    open_event_log,
)

__all__ = ["EventLog", "MemoryEventLog", "SQLiteEventLog", "StoredEvent", "open_event_log"]
