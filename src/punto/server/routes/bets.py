"""A player's bets: placed, withdrawn, decreased or removed (MBS 5.18), the withdrawal option."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response

from punto.errors import WagerError
from punto.server.json_response import JSONText
from punto.server.routes.common import (
    BetIn,
    DecreaseIn,
    RemoveIn,
    read_stake,
    record_actor,
    role_under,
    server_of,
    user_of,
)
from punto.server.routes.idempotency import IdempotencyKey, table_action
from punto.server.routes.models import (
    BalanceOut,
    BetChangedOut,
    BetOut,
    WithdrawnOut,
    documented,
)
from punto.server.security.auth import (
    FORWARDED_IDENTITY,
    Identity,
    check_identity,
    require_player,
    session_digest,
)
from punto.server.tables.runtime import (
    TableRuntime,
)
from punto.store.accounts import (
    PermissionDeniedError,
    User,
    UserRole,
)
from punto.table.roles import Role

router = APIRouter()


# -- players ----------------------------------------------------------------------------------------


@router.post(
    "/tables/{table_id}/bets",
    tags=["players"],
    status_code=201,
    **documented(BetOut, 201),
)
async def place_bet(
    table_id: str,
    body: BetIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> Response:
    """A bet from the player's own wallet; an ``*_insurance`` wager is an
    Insurance Plus bet on the offer open now.  Acknowledged (201) only once
    the stake is posted to the ledger and the bet is in the round's log.  An
    ``Idempotency-Key`` header (or ``idempotency_key`` field) makes a retry
    return the first answer instead of betting twice."""
    server = server_of(request)
    digest = session_digest(request)
    user = server.sessions.peek_digest(digest) if digest else None
    identity = request.scope.get(FORWARDED_IDENTITY)
    if user is not None and isinstance(identity, Identity):
        check_identity(identity, user)
    if user is None:  # not a session seen lately: ask the database, off the loop
        user = await asyncio.to_thread(user_of, request)
    require_player(user, "bet")
    return await take_bet(server.table(table_id), user, body, idempotency_key)


async def take_bet(
    runtime: TableRuntime, user: User, body: BetIn, idempotency_key: str | None
) -> JSONText:
    """A player's bet into the table, answered as the route answers it (the
    fast lane, :mod:`punto.server.routes.fastlane`, calls this too)."""
    key = idempotency_key or body.idempotency_key
    status, data = await runtime.place_bet_async(
        user.id,
        user.username,
        body.wager,
        read_stake(body.stake),
        position=body.position,
        key=key,
        round_id=body.round_id,
    )
    return JSONText(data, status_code=status)


@router.delete("/tables/{table_id}/bets/{bet_id}", tags=["players"], **documented(WithdrawnOut))
def withdraw_bet(
    table_id: str, bet_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """Take one's own bet back before 'No more bets' (an ``Idempotency-Key``
    makes a retry get the first answer)."""
    server = server_of(request)
    user = user_of(request)
    require_player(user, "withdraw a bet")
    runtime = server.table(table_id)
    return table_action(
        runtime,
        user,
        "withdraw_bet",
        {"bet": bet_id[:200]},
        idempotency_key,
        lambda: runtime.withdraw_bet(user.username, bet_id[:200]),
        users=(user.username,),
    )


@router.post(
    "/tables/{table_id}/bets/{bet_id}/decrease", tags=["players"], **documented(BetChangedOut)
)
def decrease_bet(
    table_id: str,
    bet_id: str,
    body: DecreaseIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Decrease one's own wager when the table differential is exceeded (MBS
    5.18.1: the Dealer asks the players on the hand with the highest total;
    Tiger Baccarat, Dragon Tiger).  Only while betting is open, only a wager
    on the heavier hand, to a smaller stake not under the minimum (to take it
    off, withdraw it).  The difference goes back to the wallet on the ledger
    (``returned``).  The players on the other hand may increase theirs with
    a new bet (5.18.2).  An ``Idempotency-Key`` makes a retry get the first
    answer.  At Tiger Buffalo the House rejects the excess itself (RWS 5.1):
    refused."""
    server = server_of(request)
    user = user_of(request)
    runtime = server.table(table_id)
    clause = runtime.game.clause("differential_decrease") or runtime.game.clause("differential")
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not decrease a player's wager",
            clause=clause,
            hint="the players decrease their own wagers; the Pit Manager removes wagers "
            "(POST .../remove)",
        )
    try:
        stake = read_stake(body.stake)
    except WagerError as bad:
        raise WagerError(
            f"{bad.message}: a decrease is to a smaller stake",
            clause=clause,
            hint="to take the wager off, withdraw it (DELETE the bet)",
        ) from None
    return runtime.decrease_bet(
        user.id, user.username, bet_id[:200], stake, idempotency_key or body.idempotency_key
    )


@router.post(
    "/tables/{table_id}/bets/{bet_id}/remove", tags=["dealer"], **documented(BetChangedOut)
)
def remove_bet(
    table_id: str,
    bet_id: str,
    request: Request,
    body: RemoveIn | None = None,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """The Pit Manager removes a wager when the decreases and increases the
    Dealer asked for are not enough to meet the table differential (MBS
    5.18.3; Tiger Baccarat, Dragon Tiger): a pit manager or above, from their
    own session; only while betting is open, after the Dealer's request
    (5.18.1, logged when 'No more bets' is refused or the betting time ends),
    and only a wager on the heavier hand.  The whole stake goes back to the
    player on the ledger.  An ``Idempotency-Key`` makes a retry get the first
    answer."""
    server = server_of(request)
    user = user_of(request)
    runtime = server.table(table_id)
    clause = runtime.game.clause("differential_remove") or runtime.game.clause("differential")
    action = "remove a wager to meet the differential"
    role = role_under(user, Role.PIT_MANAGER, action, clause)
    key = idempotency_key or (body.idempotency_key if body is not None else None)
    result = runtime.remove_bet(user.id, bet_id[:200], role, key)
    record_actor(
        server,
        user,
        runtime,
        "remove_bet",
        bet=bet_id[:200],
        player=result["bet"]["player"],
        returned=result["returned"],
        clause=clause,
        acting_role=role.value,
    )
    return result


@router.post("/tables/{table_id}/withdrawal", tags=["players"], **documented(BalanceOut))
def take_withdrawal(
    table_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> dict[str, Any]:
    """Take the withdrawal option open now (e.g. after a power failure): all
    one's wagers of the round are returned (an ``Idempotency-Key`` makes a
    retry get the first answer)."""
    server = server_of(request)
    user = user_of(request)
    require_player(user, "withdraw")
    runtime = server.table(table_id)
    return table_action(
        runtime,
        user,
        "take_withdrawal",
        {},
        idempotency_key,
        lambda: runtime.take_withdrawal(user.username),
        users=(user.username,),
    )
