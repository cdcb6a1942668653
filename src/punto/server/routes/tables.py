"""Tables: the list, setting one up and changing it, its state, roads and rounds."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse

from punto.server.routes.common import (
    server_of,
    user_json,
    user_of,
)
from punto.server.routes.edge_checks import confirm_edges, record_confirmations
from punto.server.routes.idempotency import IdempotencyKey, after_acting_async, respond
from punto.server.routes.models import (
    DeviceTokenOut,
    documented,
)
from punto.server.security.auth import (
    is_staff,
    optional_user,
    require_manager_or_admin,
    table_role,
)
from punto.server.tables.card_source import check_change_role
from punto.server.tables.config import ConfigError, TableConfig
from punto.server.tables.runtime import (
    TableRuntime,
)
from punto.server.tables.valuation import value_json
from punto.store.accounts import (
    PermissionDeniedError,
    UserRole,
)
from punto.store.protection import StoredValue, round_values
from punto.store.requests import Answer
from punto.table.roles import Role

if TYPE_CHECKING:
    from punto.server.services import Server

router = APIRouter()


# -- tables -------------------------------------------------------------------------------------


@router.get("/tables", tags=["tables"])
def tables(request: Request) -> list[dict[str, Any]]:
    """The running tables and where their rounds stand."""
    server = server_of(request)
    out = []
    for runtime in list(server.tables.values()):
        r = runtime.snapshot().pit_round
        out.append(
            {
                **runtime.config.to_json(),
                "round": None if r is None else {"id": r.id, "phase": r.phase},
                "watchers": server.hub.count(runtime.id),
            }
        )
    return out


@router.post("/tables", tags=["tables"], status_code=201)
async def create_table(
    request: Request,
    body: Annotated[dict[str, Any], Body()],
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """A new table (pit manager or higher, or the admin): ``{"id", "game",
    "layout"?, "mode": "auto"|"dealer", "card_source": "virtual"|"device",
    "limits": {"minimum", "maximum", "differential"?, "wagers"?}, ...}``;
    ``"confirm_player_favoured": [wager, ...]``: a pit manager's confirmation
    of the wagers offered that favour the player (without it such a table is
    refused, 422, naming the wager, its exact edge and its clause).
    ``"pair_rule": "literal"``: Tiger Baccarat 1.1.14 read as written (an
    explicit option; by rank otherwise), under which Tiger Pair favours the
    player: it needs that confirmation, the table's state carries
    ``pair_rule_warning``, and the protection raises its alert of a wager
    that favours the player.  Set when the table is made, never changed.  An ``Idempotency-Key`` makes a retry get the first answer
    and change nothing again."""
    user = await asyncio.to_thread(user_of, request)

    async def act() -> Answer:
        return Answer(201, await _create_table(request, body))

    asked = {"op": "create_table", "body": body}
    done = await after_acting_async(server_of(request), user, idempotency_key, asked, act)
    return respond(*done)


async def _create_table(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """The new table, as :func:`create_table` describes it."""
    server = server_of(request)
    user = await asyncio.to_thread(user_of, request)
    require_manager_or_admin(user, "set up tables")
    config, confirming = confirm_edges(body, None, user)
    await asyncio.to_thread(server.store.create, config)
    runtime = await asyncio.to_thread(server.start_table, config)
    await server.run_dealer(runtime)
    await asyncio.to_thread(
        server.audit.record, "create_table", user=user, table_id=config.id, config=config.to_json()
    )
    await asyncio.to_thread(record_confirmations, server, user, (), config, confirming)
    return runtime.config.to_json()


@router.patch("/tables/{table_id}", tags=["tables"])
async def update_table(
    table_id: str,
    request: Request,
    body: Annotated[dict[str, Any], Body()],
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Change a table's name, limits, timings, mode or activity (pit manager or
    higher, or the admin).  New limits apply from the next round.
    ``insurance_offered`` false: a private Tiger Buffalo table where the House
    allows a player's request that Insurance is not offered (RWS 4.2.2), its
    notice shown to every player; changed only between rounds.
    ``face_down``: the cards are dealt face down, where a card dealt face up
    is the irregularity of RWS 5.10; applies from the next round, logged.  The game,
    layout and ``pair_rule`` never change, and the decks and seed only before the first
    round: open a new table instead.  ``card_source`` changes only between
    shoes (3.22), by a pit manager or higher at the table (not the admin),
    and is audited as ``card_source``.

    A table offering a wager whose house edge is negative for its shoe
    (e.g. Tiger Pair under the literal reading of 1.1.14) is set up or
    changed only with ``"confirm_player_favoured": [wager, ...]`` from a pit
    manager or higher; the confirmation is audited and kept with the table.  An ``Idempotency-Key`` makes a retry get the first answer
    and change nothing again."""
    user = await asyncio.to_thread(user_of, request)

    async def act() -> Answer:
        return Answer(200, await _update_table(table_id, request, body))

    asked = {"op": "update_table", "table": table_id, "body": body}
    done = await after_acting_async(server_of(request), user, idempotency_key, asked, act)
    return respond(*done)


async def _update_table(table_id: str, request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """The change, as :func:`update_table` describes it."""
    server = server_of(request)
    user = await asyncio.to_thread(user_of, request)
    old = await asyncio.to_thread(server.store.get, table_id)
    try:
        require_manager_or_admin(user, "change tables")
    except PermissionDeniedError as refused:
        if "insurance_offered" in body:  # the House's discretion (RWS 4.2.2)
            refused.clause = old.game_.clause("no_insurance_notice") or refused.clause
        raise
    config, confirming = confirm_edges(body, old, user)
    if config.card_source != old.card_source:
        check_change_role(user)  # a pit manager's decision (MBS 6.2), not the admin's
    await server.stop_dealer(table_id)  # no automatic move while the table changes
    try:
        runtime = await asyncio.to_thread(_reconfigure, server, old, config)
    finally:
        current = server.tables.get(table_id)
        if current is not None:
            await server.run_dealer(current)
    if runtime is not None:
        await asyncio.to_thread(runtime.changed)
    await asyncio.to_thread(
        server.audit.record, "update_table", user=user, table_id=table_id, changes=body
    )
    await asyncio.to_thread(
        record_confirmations, server, user, old.confirmations, config, confirming
    )
    if config.card_source != old.card_source:
        await asyncio.to_thread(
            server.audit.record,
            "card_source",
            user=user,
            table_id=table_id,
            old=old.card_source,
            new=config.card_source,
        )
    return config.to_json()


def _reconfigure(server: Server, old: TableConfig, config: TableConfig) -> TableRuntime | None:
    """Store a table's new configuration and apply it (a worker thread's job).

    The game and layout never change: the table's log is written for them.
    The decks and seed change only before the first round (the table is
    set up afresh).  Other changes apply to the running table (new limits
    from the next round).  Returns the running table, if it runs.
    """
    table_id = config.id
    for name in ("game", "layout"):
        if getattr(config, name) != getattr(old, name):
            raise ConfigError(
                f"the {name} of table {table_id} cannot change: its log is written for "
                f"{old.game}{f' layout {old.layout}' if old.layout else ''}",
                hint="set up a new table for another game or layout",
            )
    if config.rule is not old.rule:
        # every round and road of the table was read under one rule, and its
        # log says which (TableConfigured)
        raise ConfigError(
            f"table {table_id} reads a Pair by {old.rule.value}: that is set when the table "
            "is made",
            hint="set up a new table for the other reading",
        )
    fixed = [name for name in ("decks", "seed") if getattr(config, name) != getattr(old, name)]

    def store() -> None:
        if fixed and server.store.has_dealt(table_id):
            raise ConfigError(
                f"the {fixed[0]} of table {table_id} cannot change once it has dealt",
                hint="set up a new table for another shoe",
            )
        server.store.save(config)

    runtime = server.tables.get(table_id)
    if runtime is None:
        if config.card_source != old.card_source and server.store.has_dealt(table_id):
            # A table's card source changes only between shoes (3.22): not known here.
            raise ConfigError(
                f"table {config.id} is not running: whether its shoe is in use is not known",
                hint="activate the table, and change its card source once its shoe has ended",
            )
        store()
    else:
        restart = bool(fixed) or not config.active
        runtime.reconfigure(config, store, apply=not restart)
        if not restart:
            return runtime
        runtime.stop()
        server.tables.pop(table_id, None)
        runtime = None
    if config.active:
        runtime = server.start_table(config)
    return runtime


@router.post("/tables/{table_id}/device-token", tags=["tables"], **documented(DeviceTokenOut))
def device_token(table_id: str, request: Request) -> dict[str, Any]:
    """A new token for the table's card-reading shoe (shown once; the old one stops working).
    Answered by whichever process gets it, never forwarded: the token in the
    answer would lie in ``table_requests`` (docs/security.md)."""
    server = server_of(request)
    user = user_of(request)
    require_manager_or_admin(user, "issue a device token")
    token = server.store.new_device_token(table_id)
    server.audit.record("device_token", user=user, table_id=table_id)
    return {"table_id": table_id, "token": token}


@router.get("/tables/{table_id}", tags=["tables"])
def table_state(table_id: str, request: Request) -> dict[str, Any]:
    """The table now: configuration, wagers and pays, the round (phase,
    countdown, cards, totals, Insurance offers, result), the shoe; with
    ``me`` (balance, bets, results) for a logged-in player and ``staff`` for
    the dealer and above."""
    server = server_of(request)
    runtime = server.table(table_id)
    user = optional_user(server.accounts, request, server.sessions)
    player = user.username if user is not None and user.role is UserRole.PLAYER else None
    data = runtime.state(player, staff=is_staff(user))
    if user is not None:
        data["user"] = user_json(user)
    return data


@router.get("/tables/{table_id}/scoreboard", tags=["tables"])
def scoreboard(table_id: str, request: Request) -> dict[str, Any]:
    """The roads of the current shoe (bead plate, big road, derived roads, ask)."""
    return dict(server_of(request).table(table_id).snapshot().scoreboard)


@router.get("/tables/{table_id}/rounds", tags=["tables"])
def rounds(
    table_id: str, request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> list[dict[str, Any]]:
    """The latest rounds (dealer or higher)."""
    server = server_of(request)
    user = user_of(request)
    table_role(user, Role.DEALER, "see the rounds")
    history = server.table(table_id).snapshot().history
    return [summary.to_json() for summary in history[:limit]]


@router.get("/tables/{table_id}/rounds/{round_id}", tags=["tables"])
def round_detail(table_id: str, round_id: str, request: Request) -> dict[str, Any]:
    """One round: its events (the audit trail) and results (dealer or higher)."""
    server = server_of(request)
    user = user_of(request)
    table_role(user, Role.DEALER, "see a round's events")
    detail = server.table(table_id).round_detail(round_id)
    if detail.get("results"):
        # each bet's exact value when it was placed, beside its result
        valued = round_values(server.engine, table_id, round_id)
        detail["results"] = [
            {**s, "value_at_placement": _value(valued.get(s.get("bet_id", "")))}
            for s in detail["results"]
        ]
    return detail


def _value(value: StoredValue | None) -> dict[str, Any] | None:
    return None if value is None else value_json(value)
