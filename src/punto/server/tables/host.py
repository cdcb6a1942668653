"""What the parts of a table's runtime need of it: :class:`TableHost`.

:class:`punto.server.tables.runtime.TableRuntime` coordinates its parts (the
views, the publisher, the books, the bet intake, ...), each in a module of
its own; a part names its host by this protocol, not by the runtime's class,
so the parts sit below the runtime and no import runs in a circle.  A part
that also needs another part names it in a protocol of its own, built on
this one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from sqlalchemy.engine import Engine

from punto.rules.cards import Card
from punto.rules.game import Game
from punto.rules.roads import Scoreboard
from punto.server.tables.config import TableConfig
from punto.server.tables.hub import Hub
from punto.server.tables.journal import Journal, JournalEventLog
from punto.store.ledger import Ledger
from punto.table.live import LiveTable
from punto.table.roles import Role
from punto.table.round import BetSettlement, Round

__all__ = ["TableHost"]


class TableHost(Protocol):
    """A table running on the server, as its parts see it."""

    id: str
    config: TableConfig
    game: Game
    table: LiveTable
    engine: Engine
    ledger: Ledger
    journal: Journal
    log: JournalEventLog
    hub: Hub
    lock: threading.RLock
    clock: Callable[[], float]
    #: what restoring did to a round interrupted mid-deal
    recovered: str | None
    #: the betting deadline of the round open now (epoch seconds), auto mode
    deadline: float | None
    #: the insurance or withdrawal window open now: (round id, cards, ends at)
    window: tuple[str, int, float] | None
    next_card_at: float
    next_round_at: float | None
    scoreboard: Scoreboard
    on_change: Callable[[bool], None] | None
    on_events: Callable[[], None] | None
    #: how many times the table was restored from its log
    generation: int
    stopped: bool

    @property
    def round(self) -> Round | None: ...

    def positions(self) -> tuple[int, int]: ...

    def results(self, r: Round) -> list[BetSettlement]: ...

    def wagers_json(self) -> list[dict[str, Any]]: ...

    def balance(self, username: str) -> int: ...

    def publish(self, message: dict[str, Any], audience: str = ...) -> None: ...

    def audit_event(self, action: str, *, user: Any = None, **detail: Any) -> None: ...

    def reconcile(self) -> list[str]: ...

    def live_round(self) -> Round: ...

    def resync(self, why: str) -> None: ...

    def forget_results(self, round_id: str) -> None: ...

    def rebuild_scoreboard(self) -> Scoreboard: ...

    def open_round(self, role: Role = ..., user: Any = None) -> dict[str, Any]: ...

    def replace_shoe(self, clause: str | None, role: Role) -> dict[str, Any]: ...

    def close_betting(self, role: Role = ..., user: Any = None) -> dict[str, Any]: ...

    def ask_differential(self, r: Round) -> bool: ...

    def deal(self, card: Card | None = None, *, source: str = "shoe") -> dict[str, Any]: ...

    def settle(self, role: Role = ...) -> dict[str, Any]: ...

    def close_withdrawal(self, role: Role = ...) -> dict[str, Any]: ...
