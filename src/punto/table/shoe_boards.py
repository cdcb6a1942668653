"""The scoreboard of every shoe of a table, from its rounds and its event log:
for ``punto roads`` (a replay file, or a table's event log).

The same fold as the live table's own board (``server/runtime.py``): a new
board at each ``ShoeStarted``; a round goes on the board when it is settled
with a complete deal, in the order of settlement -- and a round voided after
it was settled (MBS 5.2) has no result on the roads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from punto.errors import PuntoError
from punto.eventlog import EventLog, MemoryEventLog
from punto.rules.games import get_game
from punto.rules.roads import Result, Scoreboard
from punto.rules.wagers import PairRule
from punto.table.events import TABLE_STREAM, Event, RoundSettled, ShoeStarted, TableConfigured
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.round import Phase, Round

__all__ = ["ShoeBoardError", "logged_boards", "shoe_boards"]


class ShoeBoardError(PuntoError):
    """An event log that holds no table to draw."""


def shoe_boards(
    rounds: Sequence[Round], events: Iterable[tuple[str, Event]], pair_rule: PairRule
) -> list[Scoreboard]:
    """One board per shoe, in order (a table that logged no shoe: one board)."""
    by_id = {r.round_id: r for r in rounds}
    boards: list[Scoreboard] = []
    for round_id, event in events:
        if isinstance(event, ShoeStarted):
            boards.append(Scoreboard(pair_rule=pair_rule))
        elif isinstance(event, RoundSettled):
            if not boards:
                boards.append(Scoreboard(pair_rule=pair_rule))
            r = by_id.get(round_id)
            if r is not None and r.deal.is_complete and r.phase is Phase.SETTLED:
                boards[-1].add(Result.from_coup(r.deal.to_coup(), pair_rule))
    return boards or [Scoreboard(pair_rule=pair_rule)]


def logged_boards(log: EventLog[Event], table_id: str) -> tuple[LiveTable, list[Scoreboard]]:
    """The boards of a table's event log (``punto table --database``, the
    server's database), the table restored from a copy of the log so that
    reading it never writes to it."""
    stored = log.read(table_id)
    config = next((s.event for s in stored if isinstance(s.event, TableConfigured)), None)
    if config is None:
        raise ShoeBoardError(
            f"the event log holds no table {table_id!r} (or its configuration)",
            hint="give the --table-id the table was run with",
        )
    copy = MemoryEventLog(TABLE_STREAM)
    for s in stored:
        copy.append(table_id, s.event, round_id=s.round_id)
    table = LiveTable(
        table_id,
        get_game(config.game),
        limits=TableLimits.from_json(json.loads(config.limits)),
        log=copy,
        layout=config.layout,
        decks=config.decks,
        cut_card_from_end=config.cut_card_from_end,
        pair_rule=PairRule(config.pair_rule),
        insurance_offered=config.insurance_offered,
        hlga=config.hlga,
        electronic_device=config.electronic_device,
        face_down=config.face_down,
        recover=False,
    )
    events = [(s.round_id, s.event) for s in stored]
    return table, shoe_boards(table.rounds, events, table.pair_rule)
