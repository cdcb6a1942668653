"""What a live table needs of its event log, and a log in memory.

The table writes each event before an action is acknowledged
(:class:`punto.table.live.LiveTable`); the store's logs implement
:class:`EventLog` on SQLite and PostgreSQL (:mod:`punto.store.eventlog`).
The protocol lives here, with the table, so the table never imports the store.

>>> from punto.table.events import RoundOpened
>>> log = MemoryEventLog()
>>> log.append("t1", "r1", RoundOpened("r1"))
1
>>> [(e.seq, e.round_id, e.event.type) for e in log.read("t1")]
[(1, 'r1', 'round_opened')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from punto.table.events import Event

__all__ = ["EventLog", "MemoryEventLog", "StoredEvent"]


@dataclass(frozen=True, slots=True)
class StoredEvent:
    seq: int
    round_id: str
    event: Event


class EventLog(Protocol):
    def append(self, table_id: str, round_id: str, event: Event) -> int:
        """Store ``event`` durably; returns its sequence number in the table."""
        ...

    def read(self, table_id: str) -> list[StoredEvent]:
        """Every event of the table, in order."""
        ...


class MemoryEventLog:
    """An event log in memory, for tests and throwaway tables."""

    def __init__(self) -> None:
        self._events: dict[str, list[StoredEvent]] = {}

    def append(self, table_id: str, round_id: str, event: Event) -> int:
        events = self._events.setdefault(table_id, [])
        events.append(StoredEvent(len(events) + 1, round_id, event))
        return len(events)

    def read(self, table_id: str) -> list[StoredEvent]:
        return list(self._events.get(table_id, []))
