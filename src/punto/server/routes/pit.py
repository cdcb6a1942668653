"""The pit: every table's figures, the audit log and the ledger's totals."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from punto.server.routes.common import (
    pit_or_admin,
    server_of,
    user_of,
)
from punto.server.routes.models import (
    LedgerOut,
    ShiftOut,
    documented,
)
from punto.server.routes.shift_report import shift_report
from punto.server.security.auth import table_role
from punto.server.tables.folds import folded_logs
from punto.server.tables.runtime import (
    money,
)
from punto.store.shifts import Shift, ShiftBook, Staff
from punto.table.roles import Role

router = APIRouter()


# -- the pit ------------------------------------------------------------------------------------------------


@router.get("/pit", tags=["pit"])
def pit(request: Request) -> list[dict[str, Any]]:
    """Every table: limits, the round in play, and since it opened its handle
    (total wagered), win, hold, commission and the money in play (pit
    supervisor or higher, or the admin)."""
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


# -- the shift ----------------------------------------------------------------------------------------------

#: The position that opens and closes the casino's shift (or higher).
OPENS_SHIFTS = Role.PIT_MANAGER


def _shift_json(request: Request, shift: Shift | None) -> dict[str, Any]:
    """The shift and its report: kept at closing, or made now for the open one."""
    if shift is None:
        return {"shift": None, "report": None}
    report = shift.report
    if report is None:
        tables = server_of(request).store.all()
        logs = folded_logs(request.app.state, server_of(request).engine)
        report = shift_report(logs, tables, shift).to_json()
    return {"shift": shift.to_json(), "report": report}


def _staff(request: Request, action: str) -> Staff:
    user = user_of(request)
    role = table_role(user, OPENS_SHIFTS, action)
    return Staff(user.id, user.username, role.value)


@router.get("/pit/shift", tags=["pit"], **documented(ShiftOut))
def shift(request: Request) -> dict[str, Any]:
    """The casino's open shift (the same for every pit page and every server
    process): who opened it, when, and its report so far, per table and in
    total (pit supervisor or higher, or the admin)."""
    pit_or_admin(user_of(request), "see the shift")
    return _shift_json(request, ShiftBook(server_of(request).engine).current())


@router.post("/pit/shift", tags=["pit"], status_code=201, **documented(ShiftOut, 201))
def open_shift(request: Request) -> dict[str, Any]:
    """Open a shift now (a pit manager or higher; one open at a time): its
    figures count the rounds finished from now on.  In the audit log."""
    who = _staff(request, "open a shift")
    return _shift_json(request, ShiftBook(server_of(request).engine).open(who))


@router.post("/pit/shift/{shift_id}/close", tags=["pit"], **documented(ShiftOut))
def close_shift(shift_id: Annotated[int, Path(ge=1, le=2**53)], request: Request) -> dict[str, Any]:
    """Close the open shift ``shift_id`` (a pit manager or higher), keeping its
    report as it stands now.  In the audit log."""
    who = _staff(request, "close a shift")
    server = server_of(request)
    book = ShiftBook(server.engine)
    marks = book.marks()
    logs = folded_logs(request.app.state, server.engine)
    report = shift_report(logs, server.store.all(), book.get(shift_id), marks)
    return _shift_json(request, book.close(shift_id, who, marks, report.to_json()))


@router.get(
    "/pit/shifts",
    tags=["pit"],
    responses={200: {"model": list[ShiftOut]}},
    response_model=None,
)
def closed_shifts(
    request: Request, limit: Annotated[int, Query(ge=1, le=100)] = 10
) -> list[dict[str, Any]]:
    """The last ``limit`` closed shifts with their reports, the latest first
    (pit supervisor or higher, or the admin)."""
    pit_or_admin(user_of(request), "see the shifts")
    return [_shift_json(request, s) for s in ShiftBook(server_of(request).engine).closed(limit)]
