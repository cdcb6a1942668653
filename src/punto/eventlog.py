"""The event log: ordered, append-only streams of records, one per table or tournament.

Every stream is keyed by its id (a table's, a tournament's) and numbers its
records 1, 2, 3, ...; a record is kept in the JSON form of its family's
:class:`~punto.rules.records.RecordCodec`, so what is read back is what a database
would give back.  :class:`EventLog` is what the table and the tournament need
of a log; :class:`MemoryEventLog` keeps one in memory, and the store keeps
one in the database (:class:`punto.store.sql_log.SQLEventLog`; the server
writes a table's through its journal).  They live here, below the table and
the tournament, so that neither imports the store.

An append may say which number it expects to write (``expected``): a number
another writer took already is refused with the stream's conflict error and
nothing is written -- the writer is behind and must reload.

>>> from punto.tournament.events import TOURNAMENT_STREAM, TournamentFinished
>>> log = MemoryEventLog(TOURNAMENT_STREAM)
>>> log.append("cup", TournamentFinished(()), expected=1)
1
>>> [(e.seq, e.event.type) for e in log.read("cup")]
[(1, 'tournament_finished')]
>>> log.append("cup", TournamentFinished(()), expected=1)
Traceback (most recent call last):
...
punto.tournament.errors.TournamentLogError: event 1 of tournament 'cup' was written by someone else; reload the tournament from its log
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from punto.errors import PuntoError
from punto.jsontext import dumps, loads
from punto.rules.records import RecordCodec

__all__ = ["EventLog", "LogConflictError", "MemoryEventLog", "Stored", "Stream"]

R = TypeVar("R")


class LogConflictError(PuntoError):
    """An append whose number another writer of the stream took first."""


@dataclass(frozen=True, slots=True)
class Stream(Generic[R]):
    """One family of streams: ``name`` ("table", "tournament") names it in
    messages and in the database (its ``{name}_events`` table, keyed by
    ``{name}_id``); ``rounds``: its records carry the round they belong to."""

    name: str
    codec: RecordCodec[R]
    #: what the stream's refusals raise: a number taken, a round id where there are none
    error: type[PuntoError]
    rounds: bool = False

    def encode(self, stream_id: str, event: R, round_id: str) -> str:
        """The stored form of ``event`` (refusing a round id where there are none)."""
        if round_id and not self.rounds:
            raise self.error(
                f"{self.name} {stream_id!r}: {self.name} events belong to no round,"
                f" not to {round_id!r}",
                hint="append it without a round id",
            )
        return dumps(self.codec.to_json(event), sort_keys=True)

    def decode(self, body: str) -> R:
        return self.codec.from_json(loads(body))

    def conflicting(self, stream_id: str, seq: int) -> PuntoError:
        return self.error(
            f"event {seq} of {self.name} {stream_id!r} was written by someone else",
            hint=f"reload the {self.name} from its log",
        )


@dataclass(frozen=True, slots=True)
class Stored(Generic[R]):
    """A record as its log keeps it: its number in the stream and its round
    (empty between rounds, and in a stream without rounds)."""

    seq: int
    round_id: str
    event: R


class EventLog(Protocol[R]):
    def append(
        self, stream_id: str, event: R, *, round_id: str = "", expected: int | None = None
    ) -> int:
        """Store ``event`` durably as the next record of the stream; returns its
        number.  With ``expected``, only as that number (else the stream's
        conflict error, nothing written)."""
        ...

    def read(self, stream_id: str) -> list[Stored[R]]:
        """Every record of the stream, in order."""
        ...

    def streams(self) -> list[str]:
        """The ids of the streams that have records, in order."""
        ...


class MemoryEventLog(Generic[R]):
    """An event log in memory, for tests, the command line and throwaway runs.

    Records are kept in their stored JSON form, as the database keeps them,
    so a record that would not survive the database does not survive here."""

    def __init__(self, stream: Stream[R]) -> None:
        self.stream = stream
        self._records: dict[str, list[tuple[str, str]]] = {}
        self._lock = threading.Lock()

    def append(
        self, stream_id: str, event: R, *, round_id: str = "", expected: int | None = None
    ) -> int:
        body = self.stream.encode(stream_id, event, round_id)
        with self._lock:
            records = self._records.setdefault(stream_id, [])
            seq = len(records) + 1
            if expected is not None and expected != seq:
                raise self.stream.conflicting(stream_id, expected)
            records.append((round_id, body))
        return seq

    def read(self, stream_id: str) -> list[Stored[R]]:
        with self._lock:
            records = list(self._records.get(stream_id, ()))
        decode = self.stream.decode
        return [Stored(seq, r, decode(body)) for seq, (r, body) in enumerate(records, 1)]

    def streams(self) -> list[str]:
        with self._lock:
            return sorted(k for k, v in self._records.items() if v)
