"""The HTTP API (``/api``).  The OpenAPI description is at ``/openapi.json``.

Handlers are plain functions: FastAPI runs them in worker threads, where the
table actions take the table's lock and write to the database.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import select

from punto.rules.games import all_games, get_game
from punto.server.routes import anomalies, bets, cage, dealer, errors, pit, protection, tables
from punto.server.routes import handling as card_handling
from punto.server.routes.cage import cage_units
from punto.server.routes.common import (
    DepositIn,
    UserIn,
    server_of,
    user_json,
    user_of,
)
from punto.server.routes.idempotency import IdempotencyKey, after_acting, respond
from punto.server.routes.models import (
    DepositOut,
    HealthOut,
    MeOut,
    OkOut,
    SessionOut,
    UserOut,
    WalletOut,
    documented,
)
from punto.server.security.auth import (
    COOKIE,
    optional_user,
    require_manager_or_admin,
    require_player,
    token_from,
)
from punto.server.tables.runtime import (
    money,
)
from punto.server.tables.valuation import value_json
from punto.store import db
from punto.store.accounts import (
    PermissionDeniedError,
    UserRole,
)
from punto.store.ledger import LedgerError
from punto.store.protection import StoredValue, values_of_bets
from punto.store.requests import Answer

router = APIRouter(prefix="/api", responses=errors.RESPONSES)
router.include_router(card_handling.router)  # card handling, MBS 3.9-3.12


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


# POST /auth/login is in punto.server.routes.logins (rate limits, the hashing bound).


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
    data = user_json(user)
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
    # each bet's exact value when it was placed, beside its postings
    valued = values_of_bets(
        server.engine, ((p.table_id, p.bet_id) for p in history if p.table_id and p.bet_id)
    )
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
                "value_at_placement": _value_of(valued, p.table_id, p.bet_id),
            }
            for p in reversed(history)
        ],
    }


def _value_of(
    valued: dict[tuple[str, str], StoredValue], table_id: str | None, bet_id: str | None
) -> dict[str, Any] | None:
    value = valued.get((table_id or "", bet_id or ""))
    return None if value is None else value_json(value)


@router.post("/users", tags=["accounts"], status_code=201, **documented(UserOut, 201))
def create_user(
    body: UserIn, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A new account (admin only); an ``Idempotency-Key`` makes a retry get
    the first answer (the password is not part of what the key remembers)."""
    server = server_of(request)
    user = user_of(request)
    if user.role is not UserRole.ADMIN:
        raise PermissionDeniedError(
            f"a {user.role.words} may not create accounts", hint="it takes the admin"
        )

    def act() -> Answer:
        created = server.accounts.create_user(body.username, body.password, body.role)
        server.audit.record(
            "create_user", user=user, created=created.username, role=body.role.value
        )
        return Answer(201, user_json(created))

    asked = {"op": "create_user", "username": body.username, "role": body.role.value}
    answer, fresh = after_acting(
        server, user, idempotency_key, asked, act, where=("", "create_user")
    )
    return respond(answer, fresh)


@router.post("/cage/deposit", tags=["accounts"], status_code=201, **documented(DepositOut, 201))
def deposit(
    body: DepositIn, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Chips bought at the cage: money into a player's wallet (pit manager or
    higher, or the admin); ``key`` (the cage's receipt) credits it once, and
    an ``Idempotency-Key`` makes a retry get the first answer."""
    server = server_of(request)
    user = user_of(request)
    require_manager_or_admin(user, "credit a player's wallet")
    player = server.accounts.find_user(body.username)
    if player is None or player.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"{body.username!r} is not a player", hint="deposits go to players' wallets"
        )
    units = cage_units(body.amount, "deposit", server.money_bounds)
    answer, fresh = cage.deposit(server, user, player, units, f"cage:{body.key}", idempotency_key)
    return respond(answer, fresh)


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


# The routes of each area, in the order they are described (:mod:`punto.server.routes`).
router.include_router(tables.router)
router.include_router(bets.router)
router.include_router(dealer.router)
router.include_router(pit.router)
router.include_router(protection.router)  # ratings and alerts
router.include_router(anomalies.router)  # the pit's protection
