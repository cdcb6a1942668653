"""Card handling on the table server (MBS Tiger Baccarat and Dragon Tiger
3.9-3.12): the table's Method and the handling actions, as routes.

The engine decides everything (:mod:`punto.table.handling`, and
:meth:`punto.table.live.LiveTable.choose_method`); this module says who is
asking and in which position, and puts the answers on the table's state.

* **The Method** (3.9.2) is a table setting kept in the table's event log
  (``method_chosen`` between rounds), so a restart restores it with the
  rounds; no column holds it.  A Pit Manager chooses A or B; an Assistant
  Casino Manager allows C, only at an HLGA table; only between rounds.
* **Method A** (3.10): the Dealer passes a hand's cards to the player the
  amounts name; that player may refuse them; the Pit Supervisor chooses
  when nobody is left (3.10.4.1), a Pit Manager at any time (3.21; Dragon
  Tiger 3.16).
* **Method C** (3.12): an Assistant Casino Manager may let a player draw
  without a wager (3.12.2); a player takes the dealing device while bets are
  open and relinquishes it between deals (3.12.8.1); the table records the
  loss of control when their wager loses (3.12.8.2) as the next round opens.

A player acts only for themselves; staff act in their own position (MBS
6.2: or a higher one), the engine naming the clause when that position is
not enough.  Every route takes an ``Idempotency-Key`` (header or field): the
event and the key's reservation are written together, and a retry gets the
first answer.  Nothing here moves money.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field

from punto.errors import PhaseError
from punto.server.security.auth import authenticate
from punto.server.tables.handling import round_json, table_method
from punto.store.accounts import PermissionDeniedError, User, UserRole
from punto.table import handling
from punto.table.roles import Role
from punto.table.round import Round

if TYPE_CHECKING:
    from punto.server.services import Server
    from punto.server.tables.runtime import TableRuntime

__all__ = ["router"]

router = APIRouter(tags=["card handling"])

Key = Annotated[str, Field(min_length=1, max_length=200)]
HandName = Annotated[str, Field(pattern="^(player|banker)$", examples=["banker"])]
PlayerName = Annotated[str, Field(min_length=1, max_length=64, examples=["demo"])]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MethodIn(_Strict):
    method: Annotated[str, Field(pattern="^[ABC]$", examples=["A", "B", "C"])]
    #: or the Idempotency-Key header
    idempotency_key: Key | None = None


class HandIn(_Strict):
    hand: HandName
    idempotency_key: Key | None = None


class SqueezerIn(_Strict):
    hand: HandName
    #: the player (user name) given the hand's cards
    player: PlayerName
    idempotency_key: Key | None = None


class PlayerIn(_Strict):
    #: the player (user name) allowed to draw without a wager
    player: PlayerName
    idempotency_key: Key | None = None


class KeyIn(_Strict):
    idempotency_key: Key | None = None


# -- who is asking ------------------------------------------------------------------------


def _server(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def _user(request: Request) -> User:
    server = _server(request)
    return authenticate(server.accounts, request, server.sessions)


def _position(user: User, action: str, clause: str) -> Role:
    """The table position ``user`` acts in; the engine checks it is enough."""
    role = user.role.table_role
    if role is None:
        raise PermissionDeniedError(
            f"an admin may not {action}",
            clause=clause,
            hint="the admin manages accounts and tables; log in with a table position",
        )
    return role


def _player(user: User, action: str, clause: str) -> str:
    """A player acting for themselves: their name."""
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not {action}",
            clause=clause,
            hint="only the player does this, for themselves",
        )
    return user.username


def _named_player(server: Server, name: str, clause: str) -> str:
    """The player account called ``name``."""
    found = server.accounts.find_user(name)
    if found is None or found.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"there is no player {name!r}",
            clause=clause,
            hint="name a player's user name",
        )
    return found.username


def _round(runtime: TableRuntime, clause: str) -> Round:
    r = runtime.round
    if r is None:
        raise PhaseError(
            "no round has been opened at this table yet",
            clause=clause,
            hint="open a round first ('Place your bets')",
        )
    return r


def _run(
    request: Request,
    runtime: TableRuntime,
    user: User,
    kind: str,
    args: dict[str, Any],
    key: str | None,
    act: Callable[[], None],
    *,
    clause: str,
    users: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Do ``act`` as a keyed action of ``runtime``; the answer is the
    handling of the round (and the table's Method) after it; audited."""

    def answer() -> dict[str, Any]:
        r = runtime.round
        return {
            "table_id": runtime.id,
            "round_id": r.round_id if r is not None else None,
            "method": table_method(runtime.table),
            "handling": round_json(r) if r is not None else None,
        }

    def audit(result: dict[str, Any]) -> None:  # once: not again for a retry
        _server(request).audit.record(
            kind, user=user, table_id=runtime.id, round_id=result["round_id"], clause=clause, **args
        )

    return runtime.keyed_action(
        user.id, kind, args, key, act, answer, clause=clause, users=users, done=audit
    )


# -- the routes ------------------------------------------------------------------------------


@router.post("/tables/{table_id}/handling/method")
def choose_method(
    table_id: str,
    body: MethodIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """The Method the table's rounds are conducted by from the next one on
    (MBS 3.9.2): Method A or B at a Pit Manager's discretion (or higher);
    Method C allowed by an Assistant Casino Manager, only at an HLGA table.
    Only between rounds (none in play); logged, restored on restart, and
    recorded again in every round it governs."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "method_choice")
    method = handling.method_named(body.method)
    role = _position(user, f"choose Method {method.value}", clause)

    def act() -> None:
        runtime.table.choose_method(method, role)

    return _run(
        request,
        runtime,
        user,
        "choose_method",
        {"method": method.value, "acting_role": role.value},
        idempotency_key or body.idempotency_key,
        act,
        clause=clause,
    )


@router.post("/tables/{table_id}/handling/pass")
def pass_cards(
    table_id: str,
    body: HandIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Method A: the Dealer (or higher) passes the hand's cards face down to
    the player the amounts wagered name (3.10.2-3.10.5): the highest, the
    first placed among equal highest, then counter-clockwise, then the next
    highest.  After 'No more bets', before settlement."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "squeeze_highest")
    side = handling.hand_named(body.hand)
    role = _position(user, "pass the cards", clause)

    def act() -> None:
        handling.pass_cards(_round(runtime, clause), side, role)

    return _run(
        request,
        runtime,
        user,
        "pass_cards",
        {"hand": side.value, "acting_role": role.value},
        idempotency_key or body.idempotency_key,
        act,
        clause=clause,
    )


@router.post("/tables/{table_id}/handling/refuse")
def refuse_cards(
    table_id: str,
    body: HandIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Method A: the player holding the hand's cards refuses them (3.10.3,
    3.10.5); the Dealer then passes them on."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "squeeze_next_highest")
    side = handling.hand_named(body.hand)
    player = _player(user, "refuse a player's cards", clause)

    def act() -> None:
        handling.refuse_cards(_round(runtime, clause), side, player)

    return _run(
        request,
        runtime,
        user,
        "refuse_cards",
        {"hand": side.value},
        idempotency_key or body.idempotency_key,
        act,
        clause=clause,
        users=(player,),
    )


@router.post("/tables/{table_id}/handling/squeezer")
def choose_squeezer(
    table_id: str,
    body: SqueezerIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Method A: who handles the hand's cards at the Pit Supervisor's
    discretion when the amounts name nobody left (3.10.4.1), or at a Pit
    Manager's while they still do (Tiger Baccarat 3.21; Dragon Tiger 3.16)."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "squeeze_discretion")
    side = handling.hand_named(body.hand)
    role = _position(user, "choose who handles the cards", clause)
    player = _named_player(server, body.player, clause)

    def act() -> None:
        handling.choose_squeezer(_round(runtime, clause), side, player, role)

    return _run(
        request,
        runtime,
        user,
        "choose_squeezer",
        {"hand": side.value, "player": player, "acting_role": role.value},
        idempotency_key or body.idempotency_key,
        act,
        clause=clause,
        users=(player,),
    )


@router.post("/tables/{table_id}/handling/allow-draw")
def allow_draw(
    table_id: str,
    body: PlayerIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Method C: an Assistant Casino Manager lets a player draw from the
    dealing device without a valid wager (3.12.2), while bets are open."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "draw_without_wager")
    role = _position(user, "let a player draw without a valid wager", clause)
    player = _named_player(server, body.player, clause)

    def act() -> None:
        handling.allow_draw(_round(runtime, clause), player, role)

    return _run(
        request,
        runtime,
        user,
        "allow_draw",
        {"player": player, "acting_role": role.value},
        idempotency_key or body.idempotency_key,
        act,
        clause=clause,
        users=(player,),
    )


@router.post("/tables/{table_id}/handling/take-device")
def take_device(
    table_id: str,
    request: Request,
    body: KeyIn | None = None,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Method C: the player accepts the dealing device and draws the cards
    (3.12.1), while bets are open, with a wager of the round or an Assistant
    Casino Manager's permission (3.12.2); nobody else may hold it."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "device_draw")
    player = _player(user, "take the dealing device", clause)

    def act() -> None:
        handling.take_device(_round(runtime, clause), player)

    return _run(
        request,
        runtime,
        user,
        "take_device",
        {},
        idempotency_key or (body.idempotency_key if body is not None else None),
        act,
        clause=clause,
        users=(player,),
    )


@router.post("/tables/{table_id}/handling/relinquish-device")
def relinquish_device(
    table_id: str,
    request: Request,
    body: KeyIn | None = None,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict[str, Any]:
    """Method C: the player holding the dealing device gives up control
    (3.12.8.1), any time but while the cards are being dealt."""
    server = _server(request)
    user = _user(request)
    runtime = server.table(table_id)
    clause = handling.rule(runtime.game, "device_relinquished")
    player = _player(user, "relinquish the dealing device", clause)

    def act() -> None:
        handling.relinquish_device(_round(runtime, clause), player)

    return _run(
        request,
        runtime,
        user,
        "relinquish_device",
        {},
        idempotency_key or (body.idempotency_key if body is not None else None),
        act,
        clause=clause,
        users=(player,),
    )
