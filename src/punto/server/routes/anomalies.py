"""The pit's protection: wagers that favour the player, and dealer and table
anomalies, as JSON and CSV."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy import select

from punto.eventlog import Stored
from punto.games import get_game
from punto.protection.anomalies import (
    ALPHA,
    MAX_ALPHA,
    MIN_ALPHA,
    MIN_BETS,
    AnomalyReport,
    LogFolder,
    report,
    report_csv,
    report_json,
)
from punto.protection.edges import table_edges
from punto.server.routes.common import pit_or_admin, server_of, user_of
from punto.server.schema import server_audit
from punto.store.sql_log import read_stream
from punto.table.events import TABLE_STREAM, Event

if TYPE_CHECKING:
    from punto.server.services import Server

router = APIRouter()

#: Guards the first report of an application setting up its folders.
_SETUP = threading.Lock()
#: The audited actions that are a dealer's at a round: whoever first took one dealt it.
DEALING = ("open", "close", "key_card", "settle")


def dealers(server: Server) -> dict[str, dict[str, str]]:
    """table id -> round id -> the user who dealt it, from the audit log."""
    query = (
        select(server_audit.c.table_id, server_audit.c.round_id, server_audit.c.username)
        .where(server_audit.c.action.in_(DEALING), server_audit.c.round_id.is_not(None))
        .order_by(server_audit.c.id)
    )
    out: dict[str, dict[str, str]] = {}
    with server.engine.connect() as conn:
        for table_id, round_id, username in conn.execute(query):
            if table_id and username:
                out.setdefault(table_id, {}).setdefault(round_id, username)
    return out


def refusals(server: Server) -> Counter[tuple[str, str]]:
    """(table id, round id) -> the claims the table's record refused in that
    round, from the audit log (a refused claim writes nothing to the round)."""
    query = select(server_audit.c.table_id, server_audit.c.round_id).where(
        server_audit.c.action == "claim_refused", server_audit.c.round_id.is_not(None)
    )
    with server.engine.connect() as conn:
        return Counter((t, r) for t, r in conn.execute(query) if t)


def _new_events(server: Server, table_id: str, after: int) -> list[Stored[Event]]:
    """A table's events after sequence number ``after``, in order."""
    return read_stream(server.engine, TABLE_STREAM, table_id, after=after)


def pit_report(request: Request, alpha: float, min_bets: int) -> AnomalyReport:
    """Every table's finished rounds, from its event log, tested against the
    pit.  Each table's log is folded once: the folders are kept with the
    application, and each report reads only the events written since the last."""
    server = server_of(request)
    state = request.app.state
    with _SETUP:
        if not hasattr(state, "anomaly_folders"):
            state.anomaly_folders = {}
            state.anomaly_lock = threading.Lock()
    folders: dict[str, LogFolder] = state.anomaly_folders
    dealt = dealers(server)
    facts = []
    with state.anomaly_lock:  # one report folds at a time: the folders are shared
        for config in server.store.all():
            folder = folders.setdefault(config.id, LogFolder(config.id))
            by_round = dealt.get(config.id, {})
            folder.feed(_new_events(server, config.id, folder.seq), by_round)
            facts += folder.facts(by_round)
    refused = refusals(server)
    if refused:
        facts = [
            replace(f, claims_refused=n) if (n := refused[(f.table_id, f.round_id)]) else f
            for f in facts
        ]
    return report(facts, alpha=alpha, min_bets=min_bets)


Alpha = Annotated[
    float, Query(ge=MIN_ALPHA, le=MAX_ALPHA, description="the false-alarm rate of each test")
]
MinBets = Annotated[int, Query(ge=1, le=1_000_000, description="the fewest bets a hold test uses")]


@router.get("/pit/warnings", tags=["pit"])
def warnings(request: Request) -> list[dict[str, Any]]:
    """Every wager an open table offers that favours the player: its exact
    house edge, its clause and who confirmed it (pit supervisor or higher, or the admin)."""
    server = server_of(request)
    pit_or_admin(user_of(request), "see the pit's warnings")
    # a closed table offers nothing: its warning returns when it opens again
    return [w for config in server.store.all() if config.active for w in config.warnings_json()]


@router.get("/pit/anomalies", tags=["pit"])
def anomalies(
    request: Request, alpha: Alpha = ALPHA, min_bets: MinBets = MIN_BETS
) -> dict[str, Any]:
    """Per dealer and per table: keyed cards, voids, resettlements and
    irregularities per hundred rounds, actual hold against theoretical, and
    the alerts of the tests (stated in ``tests``; pit supervisor or higher, or
    the admin)."""
    pit_or_admin(user_of(request), "see the anomalies")
    return report_json(pit_report(request, alpha, min_bets))


@router.get("/pit/anomalies.csv", tags=["pit"], response_class=Response)
def anomalies_csv(request: Request, alpha: Alpha = ALPHA, min_bets: MinBets = MIN_BETS) -> Response:
    """:func:`anomalies` as CSV, one row per dealer and per table."""
    pit_or_admin(user_of(request), "export the anomalies")
    return Response(
        report_csv(pit_report(request, alpha, min_bets)),
        media_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="anomalies.csv"'},
    )


@router.get("/pit/edges", tags=["pit"])
def edges(
    request: Request,
    game: Annotated[str, Query(max_length=64)],
    layout: Annotated[str | None, Query(max_length=8)] = None,
    decks: Annotated[int, Query(ge=1, le=20)] = 8,
) -> list[dict[str, Any]]:
    """The exact house edge off the top of every wager a table of ``game``
    on ``layout`` with ``decks`` decks would offer (``punto odds``'s figures;
    pit supervisor or higher, or the admin): what a new table must have
    confirmed when an edge is negative."""
    pit_or_admin(user_of(request), "see the house edges")
    found = get_game(game)
    found.decks.check(decks)
    chosen = found.check_layout(layout or None)
    return [
        {**e.to_json(), "player_favoured": e.player_favoured}
        for e in table_edges(found.id, chosen, decks)
    ]
