"""Persistence: the append-only event log behind every live table."""

from punto.store.eventlog import (
    EventLog,
    MemoryEventLog,
    SQLiteEventLog,
    StoredEvent,
    open_event_log,
)

__all__ = ["EventLog", "MemoryEventLog", "SQLiteEventLog", "StoredEvent", "open_event_log"]
