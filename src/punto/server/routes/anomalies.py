"""The pit's protection: wagers that favour the player, and dealer and table
anomalies, as JSON and CSV."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy import select

from punto.protection.anomalies import (
    ALPHA,
    AUTOMATIC,
    MAX_ALPHA,
    MIN_ALPHA,
    MIN_BETS,
    AnomalyReport,
    report,
    report_csv,
    report_json,
)
from punto.protection.edges import table_edges
from punto.rules.games import get_game
from punto.server.routes.common import pit_or_admin, server_of, user_of
from punto.server.tables.folds import folded_logs
from punto.server.tables.schema import server_audit

if TYPE_CHECKING:
    from punto.server.services import Server

router = APIRouter()

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


def pit_report(request: Request, alpha: float, min_bets: int) -> AnomalyReport:
    """Every table's finished rounds, from its event log (folded once and kept
    with the application: :mod:`punto.server.tables.folds`), each given the dealer
    the audit log names, tested against the pit."""
    server = server_of(request)
    logs = folded_logs(request.app.state, server.engine)
    dealt = dealers(server)
    refused = refusals(server)
    facts = []
    for table_id, rounds in logs.facts(c.id for c in server.store.all()).items():
        by_round = dealt.get(table_id, {})
        facts += [
            replace(
                f,
                dealer=by_round.get(f.round_id, AUTOMATIC),
                claims_refused=refused[(table_id, f.round_id)],
            )
            for f in rounds
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
