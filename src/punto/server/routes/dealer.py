"""The dealer's actions, the irregularity procedures and the card-reading shoe."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, Header, Request, Response
from fastapi.responses import JSONResponse

from punto.errors import PuntoError
from punto.server import http_errors
from punto.server.routes.common import (
    CardIn,
    DealIn,
    RejectIn,
    ReplaceShoeIn,
    VoidIn,
    read_card,
    record_actor,
    role_under,
    server_of,
    user_of,
)
from punto.server.routes.idempotency import IdempotencyKey, table_action
from punto.server.routes.models import (
    CardOut,
    IrregularityOut,
    ProceduresOut,
    RoundClosedOut,
    RoundIdOut,
    RoundOpenedOut,
    ShoeReplacedOut,
    documented,
)
from punto.server.security.auth import (
    is_staff,
    table_role,
)
from punto.server.tables.procedures import Person
from punto.server.tables.runtime import (
    DEDICATED_PROCEDURES,
    TableRuntime,
)
from punto.server.tables.valuation import value_json
from punto.store.accounts import (
    PermissionDeniedError,
    SessionInvalidError,
    User,
)
from punto.store.protection import round_values
from punto.table.record import RecordError
from punto.table.replay import IRREGULARITIES, KIND_HELP, ActionInputError, Param, read_action
from punto.table.roles import Role

if TYPE_CHECKING:
    from punto.server.services import Server

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


@router.post(
    "/tables/{table_id}/round/void", tags=["dealer"], **documented(IrregularityOut, 200, 202)
)
def void(
    table_id: str, body: VoidIn, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A discretionary void: an irregularity the rules do not cover, referred
    to the Gaming Shift Manager, who voids the round (MBS 6.1; RWS 5.19, the
    Table Game Shift Manager or above): every bet is returned.  It is the
    ``unforeseen`` procedure with ``void`` true.  After "No more bets" it is
    filed as a claim (202) that a Gaming Shift Manager or above other than
    the person filing it confirms from their own session
    (``POST .../claims/{claim_id}/confirm``).  No clause is taken from the
    request: a void the rules provide for (a foreign card, insufficient
    cards, ...) is applied through its own procedure,
    ``POST .../irregularities/{name}``, which checks its conditions and the
    table's record and cites its clause."""
    server = server_of(request)
    user = user_of(request)
    action = "void the round"
    runtime = server.table(table_id)
    clause = runtime.game.clause("unforeseen")
    own = role_under(user, Role.DEALER, action, clause)
    if body.clause is not None:
        raise ActionInputError(
            f"a void's clause is not chosen by hand ({body.clause[:32]!r} given)",
            clause=clause,
            hint="leave it out for a void the Gaming Shift Manager decides; apply a void the "
            "rules provide for through its procedure: POST "
            f"/api/tables/{runtime.id}/irregularities/{{name}}",
        )
    return _rule(
        server,
        user,
        runtime,
        "unforeseen",
        {"reason": body.reason, "void": True},
        own,
        idempotency_key,
        kind="void",
    )


@router.post(
    "/tables/{table_id}/round/power-failure",
    tags=["dealer"],
    **documented(IrregularityOut, 200, 202),
)
def power_failure(
    table_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A power failure or other interruption: play continues if an outcome
    is established; otherwise the game's rule applies (withdrawal option,
    MBS 5.17; void, RWS 5.4) -- once a Pit Supervisor or above other than
    the person declaring it confirms it (a claim, 202, until then)."""
    server = server_of(request)
    user = user_of(request)
    own = table_role(user, Role.DEALER, "declare a power failure")
    runtime = server.table(table_id)
    return _rule(server, user, runtime, "power_failure", {}, own, idempotency_key)


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
    body = http_errors.error_body(
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
    {"card": "QH"},
    {"cards": "9H 2C 5D", "reconstructable": True, "withdrawing": ["demo"]},
    {"reason": "a card fell off the table", "void": False},
]


@router.post(
    "/tables/{table_id}/irregularities/{name}",
    tags=["dealer"],
    **documented(IrregularityOut, 200, 202),
)
def irregularity(
    table_id: str,
    name: str,
    request: Request,
    body: Annotated[dict[str, Any] | None, Body(examples=IRREGULARITY_EXAMPLES)] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """Apply an irregularity procedure (see ``GET .../irregularities``) to the
    round in play, or to the last round where the procedure allows a finished
    one.  The body holds the procedure's parameters as in a replay file
    (docs/replay.md), ``withdrawing`` being the players (by user name) who take
    a withdrawal option the procedure gives.

    The table's own record checks the claim first: at a table whose cards it
    shuffled and dealt there is no foreign card, no unshuffled card, no card
    out of order, and its shoe's count says whether cards ran out -- a claim
    the record contradicts is refused (409), naming it.  A ruling that would
    move money after "No more bets" (a void, a withdrawal option, a bet
    returned, betting reopened, cards reconstructed) is filed as a claim:
    202, the round waits until a Pit Supervisor or above (or the position its
    clause names) other than the person filing it confirms it from their own
    session (``POST .../claims/{claim_id}/confirm``) or rejects it.  Any
    other ruling is applied at once (200).  Unknown procedure: 404;
    parameters that cannot be read: 422.  An ``Idempotency-Key`` makes a
    retry get the first answer, applied once."""
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
    for key in ("role", "action", "manager"):
        if key in data:
            return _refusal(
                ActionInputError(
                    f"{name} takes no {key} here",
                    hint={
                        "role": "the server applies it in your position",
                        "action": "the procedure is named in the path",
                        "manager": "a second person confirms a ruling from their own session: "
                        f"POST /api/tables/{runtime.id}/claims/{{claim_id}}/confirm",
                    }[key],
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
    parameters = {**runtime.server_defaults(spec), **data}
    try:
        read_action({**parameters, "action": name, "role": own.value})
    except ActionInputError as bad:
        return _refusal(bad, 422)
    try:
        return _rule(server, user, runtime, name, parameters, own, idempotency_key, given=data)
    except ActionInputError as bad:
        return _refusal(bad, 422)


def _rule(
    server: Server,
    user: User,
    runtime: TableRuntime,
    name: str,
    parameters: dict[str, Any],
    own: Role,
    idempotency_key: str | None,
    *,
    kind: str = "irregularity",
    given: dict[str, Any] | None = None,
) -> JSONResponse:
    """Apply, or file as a claim, the procedure ``name`` for ``user``; the
    audit log says which, with the parameters as given (never a credential)."""
    person = Person(user.username, own)
    asked = parameters if given is None else given

    def done(result: dict[str, Any]) -> None:
        if result.get("pending"):
            claim = result["claim"]
            record_actor(
                server,
                user,
                runtime,
                "claim_filed",
                procedure=name,
                claim=claim["claim_id"],
                clause=claim["clause"],
                confirming=claim["confirming"],
                acting_role=own.value,
                parameters=asked,
            )
            return
        ruling = result["ruling"]
        record_actor(
            server,
            user,
            runtime,
            kind,
            procedure=name,
            clause=ruling["clause"],
            consequence=ruling["consequence"],
            acting_role=ruling["role"],
            parameters=asked,
        )

    try:
        result = table_action(
            runtime,
            user,
            kind,
            {"procedure": name, "parameters": asked},
            idempotency_key,
            lambda: runtime.rule(name, parameters, person),
            done=done,
        )
    except RecordError as refused:
        record_actor(
            server,
            user,
            runtime,
            "claim_refused",
            procedure=name,
            clause=refused.clause,
            record=refused.message,
            acting_role=own.value,
            parameters=asked,
        )
        raise
    if kind == "void" or name == "power_failure":
        result = {
            **result,
            "consequence": "pending" if result.get("pending") else result["ruling"]["consequence"],
        }
    return JSONResponse(result, status_code=202 if result.get("pending") else 200)


# -- claims: a second person's confirmation -------------------------------------------------------


@router.get("/tables/{table_id}/claims", tags=["dealer"])
def table_claims(table_id: str, request: Request) -> dict[str, Any]:
    """The claims of the round in play (or the last round): who filed each,
    for which procedure and clause, the position that may confirm it, and
    what became of it (pending, confirmed, rejected, withdrawn), and when it
    was filed (``filed_at``, from the audit log; null for a claim the log
    does not hold, one filed through a replay)."""
    server = server_of(request)
    user = user_of(request)
    table_role(user, Role.DEALER, "see the claims of a round")
    out = server.table(table_id).claims()
    if out["claims"]:
        # The events carry no clock: the audit log says when each was filed.
        filed = {
            e["detail"].get("claim"): e["at"]
            for e in reversed(server.audit.entries(table_id, limit=200))
            if e["action"] == "claim_filed" and e["round_id"] == out["round_id"]
        }
        for claim in out["claims"]:
            claim["filed_at"] = filed.get(claim["claim_id"])
    if out["affected"]:  # each wager's value when it was placed, as the pit weighs it
        values = round_values(server.engine, table_id, out["round_id"])
        for bet in out["affected"]:
            value = values.get(bet["bet_id"])
            bet["value"] = None if value is None else value_json(value)
    return out


@router.post("/tables/{table_id}/claims/{claim_id}/confirm", tags=["pit"])
def confirm_claim(
    table_id: str, claim_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """Confirm the pending claim: a Pit Supervisor or above (the position its
    clause names, where higher: a Gaming Shift Manager for MBS 6.1), not the
    person who filed it, from their own session.  The procedure is applied
    with the parameters as filed, and the ledger follows."""
    server = server_of(request)
    user = user_of(request)
    own = table_role(user, Role.DEALER, "confirm a ruling")  # the claim says whose
    runtime = server.table(table_id)
    person = Person(user.username, own)

    def done(result: dict[str, Any]) -> None:
        ruling = result["ruling"]
        record_actor(
            server,
            user,
            runtime,
            "claim_confirmed",
            claim=claim_id[:16],
            procedure=ruling["irregularity"],
            clause=ruling["clause"],
            consequence=ruling["consequence"],
            acting_role=own.value,
        )

    return table_action(
        runtime,
        user,
        "confirm_claim",
        {"claim": claim_id[:16]},
        idempotency_key,
        lambda: runtime.confirm_claim(claim_id[:16], person),
        done=done,
    )


@router.post("/tables/{table_id}/claims/{claim_id}/reject", tags=["pit"])
def reject_claim(
    table_id: str,
    claim_id: str,
    body: RejectIn,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> dict[str, Any]:
    """Reject the pending claim (a person who may confirm it), or withdraw
    it (the person who filed it): nothing moves, the round goes on."""
    server = server_of(request)
    user = user_of(request)
    own = table_role(user, Role.DEALER, "reject a ruling")
    runtime = server.table(table_id)
    person = Person(user.username, own)
    return table_action(
        runtime,
        user,
        "reject_claim",
        {"claim": claim_id[:16], "reason": body.reason},
        idempotency_key,
        lambda: runtime.reject_claim(claim_id[:16], person, body.reason),
        done=lambda result: record_actor(
            server,
            user,
            runtime,
            f"claim_{result['claim']['status']}",
            claim=claim_id[:16],
            procedure=result["claim"]["procedure"],
            reason=body.reason,
            acting_role=own.value,
        ),
    )


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
