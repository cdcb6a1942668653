"""The dealer's actions, the irregularity procedures and the card-reading shoe."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Request, Response
from fastapi.responses import JSONResponse
from pydantic import (
    ValidationError,
)

from punto.errors import PuntoError
from punto.server import errors
from punto.server.auth import (
    is_staff,
    table_role,
)
from punto.server.idempotency import IdempotencyKey, table_action
from punto.server.models import (
    CardOut,
    IrregularityOut,
    ProceduresOut,
    RoundClosedOut,
    RoundIdOut,
    RoundOpenedOut,
    ShoeReplacedOut,
    documented,
)
from punto.server.routes.common import (
    CardIn,
    DealIn,
    ManagerIn,
    PowerFailureIn,
    ReplaceShoeIn,
    VoidIn,
    confirm_manager,
    confirmed_role,
    read_card,
    record_actor,
    role_under,
    server_of,
    user_of,
)
from punto.server.runtime import (
    DEDICATED_PROCEDURES,
)
from punto.store.accounts import (
    PermissionDeniedError,
    SessionInvalidError,
)
from punto.table.replay import IRREGULARITIES, KIND_HELP, ActionInputError, Param, read_action
from punto.table.roles import Role

router = APIRouter()


# -- the dealer -----------------------------------------------------------------------------------------


@router.post("/tables/{table_id}/round/open", tags=["dealer"], **documented(RoundOpenedOut))
def open_round(
    table_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """'Place your bets, please' (a new shoe first when the cut card came out).
    An ``Idempotency-Key`` (as for every dealer action) makes a retry get the
    first answer, and the round is opened once."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "open betting")
    runtime = server.table(table_id)
    return table_action(
        runtime,
        user,
        "open",
        {},
        idempotency_key,
        lambda: runtime.open_round(role),
        done=lambda _: record_actor(server, user, runtime, "open"),
    )


@router.post("/tables/{table_id}/round/close", tags=["dealer"], **documented(RoundClosedOut))
def close_round(
    table_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """'No more bets'."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "close betting")
    runtime = server.table(table_id)
    return table_action(
        runtime,
        user,
        "close",
        {},
        idempotency_key,
        lambda: runtime.close_betting(role),
        done=lambda result: record_actor(
            server, user, runtime, "close", rejected=result["rejected"]
        ),
    )


@router.post("/tables/{table_id}/round/deal", tags=["dealer"], **documented(CardOut))
def deal(
    table_id: str,
    request: Request,
    body: DealIn | None = None,
    idempotency_key: IdempotencyKey = None,
) -> dict[str, Any]:
    """The next card: drawn from the server's shoe (card source ``virtual``), or
    keyed in from the table's physical shoe (``{"card": "QH"}``, card source
    ``device``).  The engine refuses a keyed card at a virtual table (2.1), a
    card the physical shoe's decks no longer hold (2.1), and a card the Table
    of Play does not call for.  Drawing the next card closes any Insurance
    offer.  A retry with the ``Idempotency-Key`` deals no second card."""
    server = server_of(request)
    user = user_of(request)
    table_role(user, Role.DEALER, "deal")
    runtime = server.table(table_id)
    card = read_card(body.card) if body is not None and body.card else None

    def done(_: dict[str, Any]) -> None:
        if card is not None:
            record_actor(server, user, runtime, "key_card", card=str(card))

    return table_action(
        runtime,
        user,
        "deal",
        {"card": None if card is None else str(card)},
        idempotency_key,
        lambda: runtime.deal(card, source="keyed" if card is not None else "shoe"),
        done=done,
    )


@router.post("/tables/{table_id}/round/settle", tags=["dealer"])
def settle(
    table_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """Announce the result and settle every bet on the ledger."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "settle")
    runtime = server.table(table_id)
    return table_action(
        runtime,
        user,
        "settle",
        {},
        idempotency_key,
        lambda: runtime.settle(role),
        done=lambda _: record_actor(server, user, runtime, "settle"),
    )


@router.post("/tables/{table_id}/round/void", tags=["dealer"], **documented(IrregularityOut))
def void(
    table_id: str, body: VoidIn, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """A discretionary void: an irregularity the rules do not cover, referred
    to the Gaming Shift Manager, who voids the round (MBS 6.1; RWS 5.19, the
    Table Game Shift Manager or above): every bet is returned.  It is the
    ``unforeseen`` procedure with ``void`` true: a shift manager acts alone;
    anyone below needs a shift manager's confirmation in ``manager``.  No
    clause is taken from the request: a void the rules provide for (a
    foreign card, insufficient cards, ...) is applied through its own
    procedure, ``POST .../irregularities/{name}``, which checks its conditions
    and cites its clause."""
    server = server_of(request)
    user = user_of(request)
    action = "void the round"
    runtime = server.table(table_id)
    clause = runtime.game.clause("unforeseen")
    role_under(user, Role.DEALER, action, clause)
    if body.clause is not None:
        raise ActionInputError(
            f"a void's clause is not chosen by hand ({body.clause[:32]!r} given)",
            clause=clause,
            hint="leave it out for a void the Gaming Shift Manager decides; apply a void the "
            "rules provide for through its procedure: POST "
            f"/api/tables/{runtime.id}/irregularities/{{name}}",
        )
    role = confirmed_role(server, user, body.manager, action, Role.SHIFT_MANAGER, clause)
    _, args = read_action(
        {"action": "unforeseen", "reason": body.reason, "void": True, "role": role.value}
    )
    confirmed_by = body.manager.username if body.manager else None

    def done(result: dict[str, Any]) -> None:
        record_actor(
            server,
            user,
            runtime,
            "void",
            reason=body.reason,
            clause=result["ruling"]["clause"],
            acting_role=role.value,
            confirmed_by=confirmed_by,
        )

    return table_action(
        runtime,
        user,
        "void",
        {"reason": body.reason, "confirmed_by": confirmed_by},  # never a password
        idempotency_key,
        lambda: runtime.irregularity(IRREGULARITIES["unforeseen"], args),
        clause=clause,
        done=done,
    )


@router.post("/tables/{table_id}/round/power-failure", tags=["dealer"])
def power_failure(
    table_id: str,
    request: Request,
    body: PowerFailureIn | None = None,
    idempotency_key: IdempotencyKey = None,
) -> dict[str, Any]:
    """A power failure or other interruption: play continues if an outcome
    is established; otherwise the game's rule applies (withdrawal option,
    MBS 5.17; void, RWS 5.4)."""
    server = server_of(request)
    user = user_of(request)
    role = confirm_manager(server, user, body.manager if body else None, "declare a power failure")
    runtime = server.table(table_id)
    confirmed_by = body.manager.username if body and body.manager else None

    def done(result: dict[str, Any]) -> None:
        record_actor(
            server,
            user,
            runtime,
            "power_failure",
            consequence=result["consequence"],
            confirmed_by=confirmed_by,
        )

    return table_action(
        runtime,
        user,
        "power_failure",
        {"confirmed_by": confirmed_by},
        idempotency_key,
        lambda: runtime.power_failure(role),
        done=done,
    )


@router.post("/tables/{table_id}/shoe/replace", tags=["dealer"], **documented(ShoeReplacedOut))
def replace_shoe(
    table_id: str,
    request: Request,
    body: ReplaceShoeIn | None = None,
    idempotency_key: IdempotencyKey = None,
) -> dict[str, Any]:
    """Replace the cards with a new shuffled set, where the rules say so: before
    the next round after a player left with cards or a Method C void (MBS
    5.11.5, 5.12.2; a dealer or above), after a void (MBS 5.13), or after a
    simultaneous draw, even mid-round (RWS 5.11.2; a pit supervisor or above).
    The clause is the one that applies now (the replacement due first); a
    ``clause`` given must be one the engine finds applies.  The new shoe's
    commitment is published and the roads start again."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "replace the cards")
    runtime = server.table(table_id)
    asked = body.clause if body is not None else None
    return table_action(
        runtime,
        user,
        "replace_shoe",
        {"clause": asked},
        idempotency_key,
        lambda: runtime.replace_shoe(asked, role),
        done=lambda result: record_actor(
            server, user, runtime, "replace_shoe", clause=result["clause"], shoe=result["shoe_id"]
        ),
    )


@router.post(
    "/tables/{table_id}/round/withdrawal/close",
    tags=["dealer"],
    **documented(RoundIdOut),
)
def close_withdrawal(
    table_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """End the withdrawal option; play continues for the bets that stayed."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "close the withdrawal option")
    runtime = server.table(table_id)
    return table_action(
        runtime,
        user,
        "close_withdrawal",
        {},
        idempotency_key,
        lambda: runtime.close_withdrawal(role),
        done=lambda _: record_actor(server, user, runtime, "close_withdrawal"),
    )


# -- the irregularity procedures ------------------------------------------------------------------
#
# The procedures are replay's (punto.table.replay.IRREGULARITIES), with its
# parameter readers: a request body is a replay file's action without
# "action" and "role".


def _refusal(error: PuntoError, status: int) -> JSONResponse:
    """A refusal whose status the error's class does not say (errors.STATUS)."""
    body = errors.error_body(
        type(error).__name__, error.message, clause=error.clause, hint=error.hint, text=str(error)
    )
    return JSONResponse(body, status_code=status)


def _json_default(value: Any) -> Any:
    if isinstance(value, Role):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


def _param_json(param: Param) -> dict[str, Any]:
    return {
        "name": param.name,
        "kind": param.kind,
        "required": param.required,
        "default": _json_default(param.default),
        "help": KIND_HELP[param.kind],
    }


@router.get("/tables/{table_id}/irregularities", tags=["dealer"], **documented(ProceduresOut))
def irregularities(table_id: str, request: Request) -> dict[str, Any]:
    """The irregularity procedures of the rules (sections 5 and 6) that this
    table's game covers, each with its parameters as a replay file writes
    them (docs/replay.md); the acting ``role`` is not one of them (the
    server sets it).  The power failure has its own endpoint (``dedicated``)."""
    server = server_of(request)
    user = user_of(request)
    if not is_staff(user):
        raise PermissionDeniedError(
            "the irregularity procedures are for the dealer and the pit",
            hint="log in with a dealer's account",
        )
    runtime = server.table(table_id)
    procedures = []
    for name in runtime.procedures():
        spec = IRREGULARITIES[name]
        params = [_param_json(p) for p in spec.params if p.name != "role"]
        procedures.append({"name": name, "summary": spec.summary, "params": params})
    return {
        "table_id": runtime.id,
        "game": runtime.game.id,
        "procedures": procedures,
        "dedicated": dict(DEDICATED_PROCEDURES),
    }


IRREGULARITY_EXAMPLES = [
    {"card": "QH", "manager": {"username": "pit", "password": "pit-password"}},
    {"cards": "9H 2C 5D", "reconstructable": True, "withdrawing": ["demo"]},
    {"reason": "a card fell off the table", "void": False},
]


@router.post(
    "/tables/{table_id}/irregularities/{name}", tags=["dealer"], **documented(IrregularityOut)
)
def irregularity(
    table_id: str,
    name: str,
    request: Request,
    body: Annotated[dict[str, Any] | None, Body(examples=IRREGULARITY_EXAMPLES)] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response | dict[str, Any]:
    """Apply an irregularity procedure (see ``GET .../irregularities``) to the
    round in play, or to the last round where the procedure allows a finished
    one.  The body holds the procedure's parameters as in a replay file
    (docs/replay.md), ``withdrawing`` being the players (by user name) who take
    a withdrawal option the procedure gives, and optionally ``manager``
    ({username, password}) whose position is used when it is higher than the
    user's own.  The procedure is tried on a copy of the round first: a refusal
    writes nothing.  Voided and withdrawn wagers are returned on the ledger.
    Unknown procedure: 404; parameters that cannot be read: 422.  An
    ``Idempotency-Key`` makes a retry get the first answer, applied once."""
    server = server_of(request)
    user = user_of(request)
    action = f"apply the procedure for {name.replace('_', ' ')[:64]}"
    own = table_role(user, Role.DEALER, action)
    runtime = server.table(table_id)
    spec = IRREGULARITIES.get(name)
    if spec is None or name in DEDICATED_PROCEDURES:
        hint = f"procedures of this table: {', '.join(runtime.procedures())}"
        if name in DEDICATED_PROCEDURES:
            hint = f"use POST /api/tables/{{table_id}}{DEDICATED_PROCEDURES[name]}"
        return _refusal(
            ActionInputError(f"no irregularity procedure {name[:64]!r}", hint=hint), 404
        )
    data = dict(body or {})
    given = {k: v for k, v in data.items() if k != "manager"}
    try:
        manager = ManagerIn.model_validate(data.pop("manager")) if "manager" in data else None
    except ValidationError:
        return _refusal(
            ActionInputError(
                "manager: the confirming person's user name and password",
                hint='"manager": {"username": "pit", "password": "..."}',
            ),
            422,
        )
    for key in ("role", "action"):
        if key in data:
            return _refusal(
                ActionInputError(
                    f"{name} takes no {key} here",
                    hint="the server applies it in your position, or the confirming "
                    "manager's (manager)"
                    if key == "role"
                    else "the procedure is named in the path",
                ),
                422,
            )
    decks = runtime.game.decks
    for param in spec.params:
        value = data.get(param.name)
        if param.kind != "shoe" or not isinstance(value, int) or isinstance(value, bool):
            continue
        # a number of decks the game allows (and no billion decks made to check it)
        if not decks.minimum <= value <= decks.maximum:
            return _refusal(
                ActionInputError(
                    f"{param.name}: {str(value)[:20]} decks are not in use at this table",
                    clause=decks.clause,
                    hint=f"{decks.minimum} to {decks.maximum} decks, or leave it out: "
                    "the table's shoe",
                ),
                422,
            )
    data = {**runtime.server_defaults(spec), **data, "action": name, "role": own.value}
    try:
        _, args = read_action(data)
    except ActionInputError as bad:
        return _refusal(bad, 422)
    # a procedure is confirmed by a pit supervisor or above (MBS 6.2)
    args["role"] = confirmed_role(server, user, manager, action, Role.PIT_SUPERVISOR)
    confirmed_by = manager.username if manager else None

    def done(result: dict[str, Any]) -> None:
        ruling = result["ruling"]
        record_actor(
            server,
            user,
            runtime,
            "irregularity",
            procedure=name,
            clause=ruling["clause"],
            consequence=ruling["consequence"],
            acting_role=ruling["role"],
            parameters=given,
            confirmed_by=confirmed_by,
        )

    try:
        return table_action(
            runtime,
            user,
            "irregularity",
            # what was asked, the confirming manager by name (never a password)
            {"procedure": name, "parameters": given, "confirmed_by": confirmed_by},
            idempotency_key,
            lambda: runtime.irregularity(spec, args),
            done=done,
        )
    except ActionInputError as bad:
        return _refusal(bad, 422)


# -- the card-reading shoe ---------------------------------------------------------------------------------


@router.post("/tables/{table_id}/device/card", tags=["device"], **documented(CardOut))
def device_card(
    table_id: str,
    body: CardIn,
    request: Request,
    x_device_token: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """A card read by the table's card-reading shoe (``X-Device-Token`` or
    ``Authorization: Device TOKEN``).  The engine checks it against the
    table's physical shoe (none at a virtual table; no more of a card than
    its decks hold, 2.1), the Table of Play and the round: a refused card is
    a 4xx with its message."""
    server = server_of(request)
    token = x_device_token
    if token is None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        token = value.strip() if scheme.lower() == "device" else None
    runtime = server.table(table_id)
    if not token or not server.store.check_device_token(table_id, token[:200]):
        raise SessionInvalidError(
            "this device is not allowed to deal at this table",
            hint="send the table's device token in X-Device-Token",
        )
    return runtime.deal(read_card(body.card), source="device")
