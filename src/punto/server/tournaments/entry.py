"""A tournament in the server's process (:class:`Entry`), and what the
tournament service and its routes both read of it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from punto.tournament import Tournament
from punto.tournament.clock import Clock
from punto.tournament.runner import Runner


@dataclass
class Entry:
    """A tournament in the process: the state, its runner, the lock its steps
    take, and for a live tournament its clock."""

    tournament: Tournament
    runner: Runner
    lock: threading.Lock = field(default_factory=threading.Lock)
    clock: Clock | None = None
    #: every prize (or, cancelled, every refund) paid and the pool closed (in this process)
    paid: bool = False


def channel(tournament_id: str) -> str:
    """The hub channel of a tournament's pages."""
    return f"tournament:{tournament_id}"


def windows(entry: Entry) -> list[dict[str, object]]:
    """The betting windows open now (none unless the tournament is live)."""
    return [w.to_json() for w in entry.clock.windows()] if entry.clock is not None else []
