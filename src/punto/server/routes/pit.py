"""The pit: every table's figures, the audit log and the ledger's totals."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from punto.server.models import (
    LedgerOut,
    documented,
)
from punto.server.routes.common import (
    pit_or_admin,
    server_of,
    user_of,
)
from punto.server.runtime import (
    money,
)

router = APIRouter()


# -- the pit ------------------------------------------------------------------------------------------------


@router.get("/pit", tags=["pit"])
def pit(request: Request) -> list[dict[str, Any]]:
    """Every table: limits, the round in play, drop, win, hold and commission
    (pit supervisor or higher, or the admin)."""
    server = server_of(request)
    user = user_of(request)
    pit_or_admin(user, "see the pit")
    out = []
    for config in server.store.all():
        runtime = server.tables.get(config.id)
        entry: dict[str, Any] = {**config.to_json(), "running": runtime is not None}
        if runtime is not None:
            snapshot = runtime.snapshot()
            entry["round"] = None if snapshot.pit_round is None else snapshot.pit_round.to_json()
            entry["rounds"] = snapshot.rounds
            entry["figures"] = runtime.figures()
            entry["alerts"] = runtime.alerts()
            entry["recovered"] = runtime.recovered
        out.append(entry)
    return out


@router.get("/pit/audit", tags=["pit"])
def audit(
    request: Request,
    table_id: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[dict[str, Any]]:
    """Who did what, latest first (pit supervisor or higher, or the admin)."""
    server = server_of(request)
    user = user_of(request)
    pit_or_admin(user, "see the audit log")
    return server.audit.entries(table_id, limit)


@router.get("/pit/ledger", tags=["pit"], **documented(LedgerOut))
def ledger_totals(request: Request) -> dict[str, Any]:
    """The ledger's trial balance (always 0) and totals by kind of wallet."""
    server = server_of(request)
    user = user_of(request)
    pit_or_admin(user, "see the ledger")
    totals = server.ledger.totals()
    return {
        "trial_balance": money(server.ledger.trial_balance()),
        "totals": {kind.value: money(v) for kind, v in totals.items()},
    }
