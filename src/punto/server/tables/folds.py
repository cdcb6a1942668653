"""The tables' event logs folded into finished rounds, once per application.

The pit's anomalies and its shift report read the same rounds
(:class:`punto.protection.anomalies.RoundFacts`); replaying a table's whole
log costs a few milliseconds a round, so it is done once and kept: each read
folds only the events written since the last.  Who dealt a round is the
audit log's, which the anomalies put on the facts they read; the folders
themselves are fed without it (every round "automatic").
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from sqlalchemy.engine import Engine

from punto.protection.anomalies import LogFolder, RoundFacts
from punto.store.sql_log import read_stream
from punto.table.events import TABLE_STREAM

__all__ = ["FoldedLogs", "folded_logs"]

#: Guards the first read of an application setting up its folders.
_SETUP = threading.Lock()


class FoldedLogs:
    """Each table's log in ``engine``, folded as it grows."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._folders: dict[str, LogFolder] = {}
        #: one read folds at a time: the folders are shared
        self._lock = threading.Lock()

    def facts(self, table_ids: Iterable[str]) -> dict[str, list[RoundFacts]]:
        """Every finished round of each table so far, in order."""
        out = {}
        with self._lock:
            for table_id in table_ids:
                folder = self._folders.setdefault(table_id, LogFolder(table_id))
                folder.feed(read_stream(self.engine, TABLE_STREAM, table_id, after=folder.seq), {})
                out[table_id] = folder.facts({})
        return out


def folded_logs(state: Any, engine: Engine) -> FoldedLogs:
    """The application's folded logs (``state``: its ``app.state``)."""
    with _SETUP:
        if not hasattr(state, "folded_logs"):
            state.folded_logs = FoldedLogs(engine)
    logs: FoldedLogs = state.folded_logs
    return logs
