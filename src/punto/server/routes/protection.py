"""Game protection for the pit: players' ratings (JSON or CSV) and the
advantage-play alerts with their evidence (pit supervisor or higher, or the admin)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field

from punto.errors import ActionError
from punto.protection.detection import DEFAULT_THRESHOLDS, THRESHOLD_PRESETS, Thresholds
from punto.protection.ratings import Play, Shifts, ratings, ratings_csv
from punto.server.routes.common import pit_or_admin, server_of, user_of
from punto.server.security.auth import table_role
from punto.server.tables.advantage import AdvantageWatch, alert_test
from punto.server.tables.config import ConfigError
from punto.store.protection import rated_bets, read_alerts
from punto.table.roles import Role

if TYPE_CHECKING:
    from punto.server.services import Server

router = APIRouter()

#: A time as ISO 8601 writes it, with its offset from UTC.
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)")


def _iso_time(value: object) -> object:
    # pydantic would also take a number of seconds since 1970 ("17"), which
    # the schema's date-time does not allow and nobody means
    if isinstance(value, str) and not _ISO_TIME.fullmatch(value):
        raise ValueError("a time is written as in ISO 8601 with its offset, e.g. 2026-11-26T18:00Z")
    return value


#: A bound of the period rated: ISO 8601 with its offset from UTC.
Bound = Annotated[
    AwareDatetime | None,
    BeforeValidator(_iso_time),
    Query(description="ISO 8601 with its offset from UTC, e.g. 2026-11-26T06:00:00Z"),
]


@router.get("/pit/ratings", tags=["pit"], response_model=None)
def pit_ratings(
    request: Request,
    by: Literal["player", "table", "shift"] = "player",
    format: Literal["json", "csv"] = "json",
    since: Bound = None,
    until: Bound = None,
    shift_hours: Annotated[int, Query(ge=1, le=24)] = 8,
    shift_start: Annotated[int, Query(ge=0, le=23)] = 0,
) -> dict[str, Any] | Response:
    """Players' ratings by player, table or shift: hands, staked, actual win,
    theoretical win (Σ stake × house edge at placement, exact), average bet
    and house edge, over the settled bets placed in [since, until); shifts of
    ``shift_hours`` hours of UTC time from ``shift_start`` o'clock."""
    server = server_of(request)
    pit_or_admin(user_of(request), "see the players' ratings")
    shifts = Shifts(shift_hours, shift_start)
    plays = [
        Play(b.table_id, b.player, b.round_id, b.stake, b.expected_value, b.player_net, b.placed_at)
        for b in rated_bets(server.engine, since=since, until=until)
    ]
    rows = ratings(plays, by, shifts)
    if format == "csv":
        return Response(
            ratings_csv(by, rows),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="ratings-by-{by}.csv"'},
        )
    return {"by": by, "rows": [row.to_json() for row in rows]}


@router.get("/pit/alerts", tags=["pit"])
def pit_alerts(
    request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> dict[str, Any]:
    """The advantage-play alerts, latest first, each with its statistic, the
    threshold it reached, that threshold's false-alarm rate and the evidence
    (the bets and rounds, their values and shoe states at placement)."""
    server = server_of(request)
    pit_or_admin(user_of(request), "see the protection alerts")
    return {
        "alerts": [
            {
                "id": a.id,
                "player": a.player,
                "test": alert_test(a),
                "table_id": a.table_id,
                "raised_at": a.raised_at.isoformat(),
                "statistic": a.statistic,
                "threshold": a.threshold,
                "false_alarm_rate": a.false_alarm_rate,
                "evidence": list(a.evidence),
            }
            for a in read_alerts(server.engine, limit=limit)
        ]
    }


class ThresholdsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: str = Field(min_length=1, max_length=32)


def _thresholds_json(t: Thresholds) -> dict[str, Any]:
    return {
        "limit": str(t.limit),
        "drift": str(t.drift),
        "cap": str(t.cap),
        "warmup": t.warmup,
        "false_alarm_rate": t.false_alarm_rate,
    }


@router.get("/pit/protection/thresholds", tags=["pit"])
def thresholds(request: Request) -> dict[str, Any]:
    """The detection thresholds presets (each with its false-alarm rate) and
    the preset each table uses (the standard one unless set)."""
    server = server_of(request)
    pit_or_admin(user_of(request), "see the detection thresholds")
    advantage = _advantage(server)
    return {
        "presets": {name: _thresholds_json(t) for name, t in THRESHOLD_PRESETS.items()},
        "default": DEFAULT_THRESHOLDS.name,
        "tables": {t: advantage.thresholds(t).name for t in sorted(server.tables)},
    }


@router.put("/pit/protection/thresholds/{table_id}", tags=["pit"])
def set_thresholds(table_id: str, body: ThresholdsIn, request: Request) -> dict[str, Any]:
    """Use a thresholds preset at a table from now on (pit manager or higher)."""
    server = server_of(request)
    user = user_of(request)
    table_role(user, Role.PIT_MANAGER, "set the detection thresholds")
    server.table(table_id)
    if body.preset not in THRESHOLD_PRESETS:
        raise ConfigError(
            f"there is no detection thresholds preset {body.preset!r}",
            hint=f"one of {', '.join(THRESHOLD_PRESETS)}",
        )
    chosen = _advantage(server).set_preset(table_id, body.preset)
    server.audit.record("protection_thresholds", user=user, table_id=table_id, preset=body.preset)
    return {"table_id": table_id, "preset": chosen.name, **_thresholds_json(chosen)}


def _advantage(server: Server) -> AdvantageWatch:
    if server.advantage is None:
        raise ActionError(
            "this server runs no advantage-play detection",
            hint="start it with punto serve (the detection comes with the valuation)",
        )
    return server.advantage
