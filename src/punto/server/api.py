"""The HTTP API (``/api``).  The OpenAPI description is at ``/openapi.json``.

Handlers are plain functions: FastAPI runs them in worker threads, where the
table actions take the table's lock and write to the database.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)
from sqlalchemy import select

from punto.cards import Card
from punto.errors import PuntoError, WagerError
from punto.games import all_games, get_game
from punto.money import parse_stake
from punto.server import errors
from punto.server import handling as card_handling
from punto.server.app import Server
from punto.server.auth import (
    COOKIE,
    authenticate,
    is_staff,
    optional_user,
    require_manager_or_admin,
    require_player,
    table_role,
    token_from,
)
from punto.server.cage import CageAmount, cage_units
from punto.server.card_source import check_change_role
from punto.server.config import ConfigError, TableConfig
from punto.server.models import (
    BalanceOut,
    BetChangedOut,
    BetOut,
    CardOut,
    DepositOut,
    DeviceTokenOut,
    HealthOut,
    IrregularityOut,
    LedgerOut,
    MeOut,
    OkOut,
    ProceduresOut,
    RoundClosedOut,
    RoundIdOut,
    RoundOpenedOut,
    SessionOut,
    ShoeReplacedOut,
    UserOut,
    WalletOut,
    WithdrawnOut,
    documented,
)
from punto.server.runtime import (
    DEDICATED_PROCEDURES,
    TableRuntime,
    money,
)
from punto.store import db
from punto.store.accounts import (
    PermissionDeniedError,
    SessionInvalidError,
    User,
    UserRole,
)
from punto.store.ledger import LedgerError
from punto.table.replay import IRREGULARITIES, KIND_HELP, ActionInputError, Param, read_action
from punto.table.roles import Role

router = APIRouter(prefix="/api", responses=errors.RESPONSES)
router.include_router(card_handling.router)  # card handling, MBS 3.9-3.12

Text64 = Annotated[str, Field(min_length=1, max_length=64)]
#: Money as sent: a JSON string or a JSON number, taken as it came (strict: no
#: coercion turns ``true`` into 1 or ``12.0`` into 12); :func:`_stake` reads it.
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


class ManagerIn(Strict):
    username: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


class VoidIn(Strict):
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    #: not taken: the clause of a void is its procedure's (refused with a hint if sent)
    clause: Annotated[str, Field(max_length=32)] | None = None
    #: a Gaming Shift Manager's (or higher) confirmation, when the person at the console is below
    manager: ManagerIn | None = None


class DecreaseIn(Strict):
    #: the wager's new, smaller stake
    stake: Annotated[Amount, Field(examples=["400", "250.50"])]
    #: or the Idempotency-Key header
    idempotency_key: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class RemoveIn(Strict):
    #: a pit manager's (or higher) confirmation, when the person at the console is below
    manager: ManagerIn | None = None
    #: or the Idempotency-Key header
    idempotency_key: Annotated[str, Field(min_length=1, max_length=200)] | None = None


class PowerFailureIn(Strict):
    manager: ManagerIn | None = None


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


def _stake(value: str | int | float) -> Decimal:
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


def _card(text: str) -> Card:
    return Card.parse(text)


def _user_json(user: User) -> dict[str, Any]:
    return {"id": user.id, "username": user.username, "role": user.role.value}


def _actor(server: Server, user: User, runtime: TableRuntime, action: str, **detail: Any) -> None:
    r = runtime.round
    server.audit.record(
        action,
        user=user,
        table_id=runtime.id,
        round_id=r.round_id if r else None,
        **detail,
    )


def _role_under(user: User, required: Role, action: str, clause: str | None) -> Role:
    """:func:`table_role`, a refusal citing ``clause`` (the clause of the action)."""
    try:
        return table_role(user, required, action)
    except PermissionDeniedError as refused:
        raise PermissionDeniedError(refused.message, clause=clause, hint=refused.hint) from None


def _confirm_manager(server: Server, user: User, manager: ManagerIn | None, action: str) -> Role:
    """The position to act in: the user's own, or a confirming manager's if higher
    (a pit manager or above; asked only of a user below one)."""
    own = table_role(user, Role.DEALER, action)
    if own.may_act_as(Role.PIT_MANAGER):
        return own
    return _confirmed_role(server, user, manager, action, Role.PIT_MANAGER)


def _confirmed_role(
    server: Server,
    user: User,
    manager: ManagerIn | None,
    action: str,
    confirming: Role,
    clause: str | None = None,
) -> Role:
    """The position to act in: the user's own, or that of the ``manager`` who
    confirms (``confirming`` or above, logged in and out again) when higher.
    ``clause``: the clause that names the confirming position, cited when the
    manager holds a lower one (else MBS 6.2's)."""
    own = table_role(user, Role.DEALER, action)
    if manager is None:
        return own
    # Failures count against the manager's name from this console only: a
    # dealer's wrong guesses lock the dealer's confirmations, not the manager.
    try:
        session = server.accounts.login(
            manager.username, manager.password, client=f"confirmation by {user.username}"
        )
    except PuntoError as refused:  # a wrong password, a locked account: whose confirmation
        if refused.clause is None:
            refused.clause = clause
        raise
    try:
        role = table_role(session.user, confirming, f"confirm: {action}")
    except PermissionDeniedError as refused:
        raise PermissionDeniedError(
            refused.message, clause=clause or refused.clause, hint=refused.hint
        ) from None
    finally:
        server.accounts.logout(session.token)
    return role if role.rank > own.rank else own


# -- service ----------------------------------------------------------------------------


@router.get("/health", tags=["service"], **documented(HealthOut))
def health(request: Request) -> dict[str, Any]:
    """The server is up and its database answers."""
    server = server_of(request)
    with server.engine.connect() as conn:
        conn.execute(select(1)).scalar_one()
    return {
        "status": "ok",
        "database": server.engine.dialect.name,
        "revision": db.current_revision(server.engine),
        "tables": len(server.tables),
    }


# -- accounts ------------------------------------------------------------------------------


# POST /auth/login is in punto.server.logins (rate limits, the hashing bound).


@router.post("/auth/logout", tags=["accounts"], **documented(OkOut))
def logout(request: Request, response: Response) -> dict[str, Any]:
    """End the session (the token stops working)."""
    token = token_from(request)
    if token:
        server = server_of(request)
        server.accounts.logout(token)
        server.sessions.forget(token)
    response.delete_cookie(COOKIE, path="/")
    return {"ok": True}


@router.get("/session", tags=["accounts"], **documented(SessionOut))
def session(request: Request) -> dict[str, Any]:
    """Who is logged in, if anyone (``{"user": null}`` otherwise): what a page
    asks when it opens."""
    server = server_of(request)
    user = optional_user(server.accounts, request, server.sessions)
    return {"user": None if user is None else me(request)}


@router.get("/me", tags=["accounts"], **documented(MeOut))
def me(request: Request) -> dict[str, Any]:
    """Who is logged in, and their balance."""
    server = server_of(request)
    user = user_of(request)
    data = _user_json(user)
    if user.role is UserRole.PLAYER:
        try:
            data["balance"] = money(server.ledger.balance(f"player:{user.username}"))
        except LedgerError:
            data["balance"] = "0.00"
    return data


@router.get("/wallet", tags=["accounts"], **documented(WalletOut))
def wallet(request: Request, limit: Annotated[int, Query(ge=1, le=200)] = 20) -> dict[str, Any]:
    """The player's balance and latest postings."""
    server = server_of(request)
    user = user_of(request)
    require_player(user, "have a wallet")
    code = f"player:{user.username}"
    try:
        balance = server.ledger.balance(code)
        history = server.ledger.history(code)[-limit:]
    except LedgerError:
        balance, history = 0, []
    return {
        "balance": money(balance),
        "postings": [
            {
                "kind": p.kind.value,
                "amount": money(p.amount_for(code)),
                "table_id": p.table_id,
                "round_id": p.round_id,
                "bet_id": p.bet_id,
                "at": p.created_at.isoformat(),
            }
            for p in reversed(history)
        ],
    }


@router.post("/users", tags=["accounts"], status_code=201, **documented(UserOut, 201))
def create_user(body: UserIn, request: Request) -> dict[str, Any]:
    """A new account (admin only)."""
    server = server_of(request)
    user = user_of(request)
    if user.role is not UserRole.ADMIN:
        raise PermissionDeniedError(
            f"a {user.role.words} may not create accounts", hint="it takes the admin"
        )
    created = server.accounts.create_user(body.username, body.password, body.role)
    server.audit.record("create_user", user=user, created=created.username, role=body.role.value)
    return _user_json(created)


@router.post("/cage/deposit", tags=["accounts"], status_code=201, **documented(DepositOut, 201))
def deposit(body: DepositIn, request: Request) -> dict[str, Any]:
    """Chips bought at the cage: money into a player's wallet (pit manager or
    higher, or the admin); ``key`` makes it idempotent."""
    server = server_of(request)
    user = user_of(request)
    require_manager_or_admin(user, "credit a player's wallet")
    player = server.accounts.find_user(body.username)
    if player is None or player.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"{body.username!r} is not a player", hint="deposits go to players' wallets"
        )
    units = cage_units(body.amount, "deposit", server.money_bounds)
    wallet = server.ledger.player_wallet(player.username, account_id=player.id)
    posting = server.ledger.deposit(
        wallet, units, key=f"cage:{body.key}", max_balance=server.money_bounds.max_balance
    )
    server.journal.forget_balance(wallet.code)  # it has more now
    if not posting.replayed:
        server.audit.record("deposit", user=user, player=player.username, amount=money(units))
    return {"username": player.username, "balance": money(server.ledger.balance(wallet))}


# -- games ------------------------------------------------------------------------------------


@router.get("/games", tags=["games"])
def games() -> list[dict[str, Any]]:
    """The five games: versions, deck ranges, layouts and their wagers."""
    return [_game_json(game.id) for game in all_games()]


@router.get("/games/{game_id}", tags=["games"])
def game(game_id: str) -> dict[str, Any]:
    """One game: layouts, wagers, pays and clauses."""
    return _game_json(game_id)


def _game_json(game_id: str) -> dict[str, Any]:
    game = get_game(game_id)
    return {
        "id": game.id,
        "title": game.title,
        "version": game.version,
        "rules_file": game.rules_file,
        "decks": {"min": game.decks.minimum, "max": game.decks.maximum},
        "layouts_differ": game.layouts_differ,
        "insurance": game.insurance is not None,
        "layouts": {
            lid: {
                "positions": list(layout.positions),
                "clause": layout.clause,
                "wagers": list(layout.wagers),
            }
            for lid, layout in game.layouts.items()
        },
        "wagers": {
            w.id: {
                "name": w.name,
                "pays": {event: str(p) for event, p in w.pays.items()},
                "clause": w.clause,
                "insures": w.insures.value if w.insures else None,
            }
            for w in game.wagers.values()
        },
    }


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
async def create_table(request: Request, body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
    """A new table (pit manager or higher, or the admin): ``{"id", "game",
    "layout"?, "mode": "auto"|"dealer", "card_source": "virtual"|"device",
    "limits": {"minimum", "maximum", "differential"?, "wagers"?}, ...}``."""
    server = server_of(request)
    user = await asyncio.to_thread(user_of, request)
    require_manager_or_admin(user, "set up tables")
    config = TableConfig.from_json(body)
    await asyncio.to_thread(server.store.create, config)
    runtime = await asyncio.to_thread(server.start_table, config)
    await server.run_dealer(runtime)
    await asyncio.to_thread(
        server.audit.record, "create_table", user=user, table_id=config.id, config=config.to_json()
    )
    return runtime.config.to_json()


@router.patch("/tables/{table_id}", tags=["tables"])
async def update_table(
    table_id: str, request: Request, body: Annotated[dict[str, Any], Body()]
) -> dict[str, Any]:
    """Change a table's name, limits, timings, mode or activity (pit manager or
    higher, or the admin).  New limits apply from the next round.
    ``insurance_offered`` false: a private Tiger Buffalo table where the House
    allows a player's request that Insurance is not offered (RWS 4.2.2), its
    notice shown to every player; changed only between rounds.
    ``face_down``: the cards are dealt face down, where a card dealt face up
    is the irregularity of RWS 5.10; applies from the next round, logged.  The game
    and layout never change, and the decks and seed only before the first
    round: open a new table instead.  ``card_source`` changes only between
    shoes (3.22), by a pit manager or higher at the table (not the admin),
    and is audited as ``card_source``."""
    server = server_of(request)
    user = await asyncio.to_thread(user_of, request)
    old = await asyncio.to_thread(server.store.get, table_id)
    try:
        require_manager_or_admin(user, "change tables")
    except PermissionDeniedError as refused:
        if "insurance_offered" in body:  # the House's discretion (RWS 4.2.2)
            refused.clause = old.game_.clause("no_insurance_notice") or refused.clause
        raise
    config = TableConfig.from_json(body, base=old)
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
    """A new token for the table's card-reading shoe (shown once; the old one stops working)."""
    server = server_of(request)
    user = user_of(request)
    require_manager_or_admin(user, "issue a device token")
    server.table(table_id)
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
        data["user"] = _user_json(user)
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
    return server.table(table_id).round_detail(round_id)


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
    token = token_from(request)
    user = server.sessions.peek(token) if token else None
    if user is None:  # not a session seen lately: ask the database, off the loop
        user = await asyncio.to_thread(user_of, request)
    require_player(user, "bet")
    return await take_bet(server.table(table_id), user, body, idempotency_key)


async def take_bet(
    runtime: TableRuntime, user: User, body: BetIn, idempotency_key: str | None
) -> JSONResponse:
    """A player's bet into the table, answered as the route answers it (the
    fast lane, :mod:`punto.server.fastlane`, calls this too)."""
    key = idempotency_key or body.idempotency_key
    status, data = await runtime.place_bet_async(
        user.id,
        user.username,
        body.wager,
        _stake(body.stake),
        position=body.position,
        key=key,
        round_id=body.round_id,
    )
    return JSONResponse(data, status_code=status)


@router.delete("/tables/{table_id}/bets/{bet_id}", tags=["players"], **documented(WithdrawnOut))
def withdraw_bet(table_id: str, bet_id: str, request: Request) -> dict[str, Any]:
    """Take one's own bet back before 'No more bets'."""
    server = server_of(request)
    user = user_of(request)
    require_player(user, "withdraw a bet")
    return server.table(table_id).withdraw_bet(user.username, bet_id[:200])


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
        stake = _stake(body.stake)
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
    5.18.3; Tiger Baccarat, Dragon Tiger): a pit manager or above, or a
    dealer with a pit manager's confirmation in ``manager``; only while
    betting is open, after the Dealer's request (5.18.1, logged when 'No more
    bets' is refused or the betting time ends), and only a wager on the
    heavier hand.  The whole stake goes back to the player on the ledger.
    An ``Idempotency-Key`` makes a retry get the first answer."""
    server = server_of(request)
    user = user_of(request)
    runtime = server.table(table_id)
    clause = runtime.game.clause("differential_remove") or runtime.game.clause("differential")
    manager = body.manager if body is not None else None
    action = "remove a wager to meet the differential"
    _role_under(user, Role.DEALER, action, clause)
    role = _confirmed_role(server, user, manager, action, Role.PIT_MANAGER, clause)
    key = idempotency_key or (body.idempotency_key if body is not None else None)
    result = runtime.remove_bet(user.id, bet_id[:200], role, key)
    _actor(
        server,
        user,
        runtime,
        "remove_bet",
        bet=bet_id[:200],
        player=result["bet"]["player"],
        returned=result["returned"],
        clause=clause,
        acting_role=role.value,
        confirmed_by=manager.username if manager else None,
    )
    return result


@router.post("/tables/{table_id}/withdrawal", tags=["players"], **documented(BalanceOut))
def take_withdrawal(table_id: str, request: Request) -> dict[str, Any]:
    """Take the withdrawal option open now (e.g. after a power failure): all
    one's wagers of the round are returned."""
    server = server_of(request)
    user = user_of(request)
    require_player(user, "withdraw")
    return server.table(table_id).take_withdrawal(user.username)


# -- the dealer -----------------------------------------------------------------------------------------


@router.post("/tables/{table_id}/round/open", tags=["dealer"], **documented(RoundOpenedOut))
def open_round(table_id: str, request: Request) -> dict[str, Any]:
    """'Place your bets, please' (a new shoe first when the cut card came out)."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "open betting")
    runtime = server.table(table_id)
    result = runtime.open_round(role)
    _actor(server, user, runtime, "open")
    return result


@router.post("/tables/{table_id}/round/close", tags=["dealer"], **documented(RoundClosedOut))
def close_round(table_id: str, request: Request) -> dict[str, Any]:
    """'No more bets'."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "close betting")
    runtime = server.table(table_id)
    result = runtime.close_betting(role)
    _actor(server, user, runtime, "close", rejected=result["rejected"])
    return result


@router.post("/tables/{table_id}/round/deal", tags=["dealer"], **documented(CardOut))
def deal(table_id: str, request: Request, body: DealIn | None = None) -> dict[str, Any]:
    """The next card: drawn from the server's shoe (card source ``virtual``), or
    keyed in from the table's physical shoe (``{"card": "QH"}``, card source
    ``device``).  The engine refuses a keyed card at a virtual table (2.1), a
    card the physical shoe's decks no longer hold (2.1), and a card the Table
    of Play does not call for.  Drawing the next card closes any Insurance
    offer."""
    server = server_of(request)
    user = user_of(request)
    table_role(user, Role.DEALER, "deal")
    runtime = server.table(table_id)
    card = _card(body.card) if body is not None and body.card else None
    result = runtime.deal(card, source="keyed" if card is not None else "shoe")
    if card is not None:
        _actor(server, user, runtime, "key_card", card=str(card))
    return result


@router.post("/tables/{table_id}/round/settle", tags=["dealer"])
def settle(table_id: str, request: Request) -> dict[str, Any]:
    """Announce the result and settle every bet on the ledger."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "settle")
    runtime = server.table(table_id)
    result = runtime.settle(role)
    _actor(server, user, runtime, "settle")
    return result


@router.post("/tables/{table_id}/round/void", tags=["dealer"], **documented(IrregularityOut))
def void(table_id: str, body: VoidIn, request: Request) -> dict[str, Any]:
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
    _role_under(user, Role.DEALER, action, clause)
    if body.clause is not None:
        raise ActionInputError(
            f"a void's clause is not chosen by hand ({body.clause[:32]!r} given)",
            clause=clause,
            hint="leave it out for a void the Gaming Shift Manager decides; apply a void the "
            "rules provide for through its procedure: POST "
            f"/api/tables/{runtime.id}/irregularities/{{name}}",
        )
    role = _confirmed_role(server, user, body.manager, action, Role.SHIFT_MANAGER, clause)
    _, args = read_action(
        {"action": "unforeseen", "reason": body.reason, "void": True, "role": role.value}
    )
    result = runtime.irregularity(IRREGULARITIES["unforeseen"], args)
    _actor(
        server,
        user,
        runtime,
        "void",
        reason=body.reason,
        clause=result["ruling"]["clause"],
        acting_role=role.value,
        confirmed_by=body.manager.username if body.manager else None,
    )
    return result


@router.post("/tables/{table_id}/round/power-failure", tags=["dealer"])
def power_failure(
    table_id: str, request: Request, body: PowerFailureIn | None = None
) -> dict[str, Any]:
    """A power failure or other interruption: play continues if an outcome
    is established; otherwise the game's rule applies (withdrawal option,
    MBS 5.17; void, RWS 5.4)."""
    server = server_of(request)
    user = user_of(request)
    role = _confirm_manager(server, user, body.manager if body else None, "declare a power failure")
    runtime = server.table(table_id)
    result = runtime.power_failure(role)
    _actor(
        server,
        user,
        runtime,
        "power_failure",
        consequence=result["consequence"],
        confirmed_by=body.manager.username if body and body.manager else None,
    )
    return result


@router.post("/tables/{table_id}/shoe/replace", tags=["dealer"], **documented(ShoeReplacedOut))
def replace_shoe(
    table_id: str, request: Request, body: ReplaceShoeIn | None = None
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
    result = runtime.replace_shoe(body.clause if body is not None else None, role)
    _actor(server, user, runtime, "replace_shoe", clause=result["clause"], shoe=result["shoe_id"])
    return result


@router.post(
    "/tables/{table_id}/round/withdrawal/close",
    tags=["dealer"],
    **documented(RoundIdOut),
)
def close_withdrawal(table_id: str, request: Request) -> dict[str, Any]:
    """End the withdrawal option; play continues for the bets that stayed."""
    server = server_of(request)
    user = user_of(request)
    role = table_role(user, Role.DEALER, "close the withdrawal option")
    runtime = server.table(table_id)
    result = runtime.close_withdrawal(role)
    _actor(server, user, runtime, "close_withdrawal")
    return result


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
) -> Response | dict[str, Any]:
    """Apply an irregularity procedure (see ``GET .../irregularities``) to the
    round in play, or to the last round where the procedure allows a finished
    one.  The body holds the procedure's parameters as in a replay file
    (docs/replay.md), ``withdrawing`` being the players (by user name) who take
    a withdrawal option the procedure gives, and optionally ``manager``
    ({username, password}) whose position is used when it is higher than the
    user's own.  The procedure is tried on a copy of the round first: a refusal
    writes nothing.  Voided and withdrawn wagers are returned on the ledger.
    Unknown procedure: 404; parameters that cannot be read: 422."""
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
    args["role"] = _confirmed_role(server, user, manager, action, Role.PIT_SUPERVISOR)
    try:
        result = runtime.irregularity(spec, args)
    except ActionInputError as bad:
        return _refusal(bad, 422)
    ruling = result["ruling"]
    _actor(
        server,
        user,
        runtime,
        "irregularity",
        procedure=name,
        clause=ruling["clause"],
        consequence=ruling["consequence"],
        acting_role=ruling["role"],
        parameters=given,
        confirmed_by=manager.username if manager else None,
    )
    return result


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
    return runtime.deal(_card(body.card), source="device")


# -- the pit ------------------------------------------------------------------------------------------------


@router.get("/pit", tags=["pit"])
def pit(request: Request) -> list[dict[str, Any]]:
    """Every table: limits, the round in play, drop, win, hold and commission
    (pit supervisor or higher, or the admin)."""
    server = server_of(request)
    user = user_of(request)
    if user.role is not UserRole.ADMIN:
        table_role(user, Role.PIT_SUPERVISOR, "see the pit")
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
    if user.role is not UserRole.ADMIN:
        table_role(user, Role.PIT_SUPERVISOR, "see the audit log")
    return server.audit.entries(table_id, limit)


@router.get("/pit/ledger", tags=["pit"], **documented(LedgerOut))
def ledger_totals(request: Request) -> dict[str, Any]:
    """The ledger's trial balance (always 0) and totals by kind of wallet."""
    server = server_of(request)
    user = user_of(request)
    if user.role is not UserRole.ADMIN:
        table_role(user, Role.PIT_SUPERVISOR, "see the ledger")
    totals = server.ledger.totals()
    return {
        "trial_balance": money(server.ledger.trial_balance()),
        "totals": {kind.value: money(v) for kind, v in totals.items()},
    }
