"""What the routes share: the request's server and user, the request bodies,
reading money and cards, and the roles a request acts in."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Request
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
)

from punto.errors import WagerError
from punto.money import parse_stake
from punto.rules.cards import Card
from punto.server.routes.cage import CageAmount
from punto.server.security.auth import (
    authenticate,
    table_role,
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

if TYPE_CHECKING:
    from punto.server.services import Server

Text64 = Annotated[str, Field(min_length=1, max_length=64)]
#: Money as sent: a JSON string or a JSON number, taken as it came (strict: no
#: coercion turns ``true`` into 1 or ``12.0`` into 12); :func:`read_stake` reads it.
Amount = Annotated[StrictStr | StrictInt | StrictFloat, Field(union_mode="left_to_right")]


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def user_of(request: Request) -> User:
    server = server_of(request)
    return authenticate(server.accounts, request, server.sessions)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BetIn(Strict):
    wager: Annotated[Text64, Field(examples=["banker", "player", "tie", "player_insurance"])]
    stake: Annotated[Amount, Field(examples=["100", "12.50", 25])]
    position: Annotated[int, Field(ge=0, le=1000)] | None = None
    #: or the Idempotency-Key header
    idempotency_key: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    #: the round the bet is for (the one the player sees): refused as a late bet if
    #: that round is no longer taking bets; left out, the round open when it arrives
    round_id: Annotated[str, Field(min_length=1, max_length=64, examples=["r12"])] | None = None


class CardIn(Strict):
    card: Annotated[str, Field(min_length=2, max_length=8, examples=["QH", "10S", "9D"])]


class DealIn(Strict):
    card: Annotated[str, Field(min_length=2, max_length=8, examples=["QH", "10S"])] | None = None


class VoidIn(Strict):
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    #: not taken: the clause of a void is its procedure's (refused with a hint if sent)
    clause: Annotated[str, Field(max_length=32)] | None = None


class RejectIn(Strict):
    #: why the claim is rejected (or withdrawn), for the round's log and the audit
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class DecreaseIn(Strict):
    #: the wager's new, smaller stake
    stake: Annotated[Amount, Field(examples=["400", "250.50"])]
    #: or the Idempotency-Key header
    idempotency_key: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class RemoveIn(Strict):
    #: or the Idempotency-Key header
    idempotency_key: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class ReplaceShoeIn(Strict):
    #: the clause the cards are replaced under (MBS 5.11.5, 5.12.2, 5.13; RWS 5.11.2),
    #: checked by the engine; left out, the one that applies now
    clause: Annotated[str, Field(min_length=1, max_length=32, examples=["5.12.2"])] | None = None


class DepositIn(Strict):
    username: Annotated[Text64, Field(examples=["demo"])]
    amount: Annotated[CageAmount, Field(examples=["500.00"])]
    key: Annotated[str, Field(min_length=1, max_length=150, examples=["cage-receipt-1041"])]


class UserIn(Strict):
    username: Text64
    password: Annotated[str, Field(min_length=1, max_length=1024)]
    role: UserRole


def read_stake(value: str | int | float) -> Decimal:
    """Money as a request sends it: ASCII digits with at most one decimal
    point in a JSON string, or a whole JSON number (no fraction, no
    exponent), read by :func:`punto.money.parse_stake`, the one reader.  A
    JSON number with a fraction is refused: it is a binary float on the way
    in, and ``12.5`` and ``12.50`` must not depend on how a client prints."""
    if isinstance(value, bool) or len(str(value)) > 40:
        raise WagerError(
            f"stake {str(value)[:40]!r} is not an amount of money",
            hint="write it like 100 or 12.50",
        )
    if isinstance(value, float):
        raise WagerError(
            f"stake {value!r} is a JSON number with a fraction or an exponent, not an exact "
            "amount of money",
            hint='send it as a string, like "12.50", or as a whole number, like 12',
        )
    try:
        return parse_stake(value)
    except ArithmeticError:  # e.g. 1e400: no whole number of cents
        raise WagerError(
            f"stake {str(value)!r} is not an amount of money", hint="write it like 100 or 12.50"
        ) from None


def read_card(text: str) -> Card:
    return Card.parse(text)


def user_json(user: User) -> dict[str, Any]:
    return {"id": user.id, "username": user.username, "role": user.role.value}


def record_actor(
    server: Server, user: User, runtime: TableRuntime, action: str, **detail: Any
) -> None:
    r = runtime.round
    server.audit.record(
        action,
        user=user,
        table_id=runtime.id,
        round_id=r.round_id if r else None,
        **detail,
    )


def pit_or_admin(user: User, action: str) -> None:
    """The pit's own figures (the tables, the audit log, the ledger, ratings,
    alerts, anomalies): a pit supervisor or higher, or the admin."""
    if user.role is not UserRole.ADMIN:
        table_role(user, Role.PIT_SUPERVISOR, action)


def role_under(user: User, required: Role, action: str, clause: str | None) -> Role:
    """:func:`table_role`, a refusal citing ``clause`` (the clause of the action)."""
    try:
        return table_role(user, required, action)
    except PermissionDeniedError as refused:
        raise PermissionDeniedError(refused.message, clause=clause, hint=refused.hint) from None
