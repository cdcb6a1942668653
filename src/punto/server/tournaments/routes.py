"""The tournaments' routes: the API, the socket and the page.

:func:`install` adds to an app made by :func:`punto.server.app.create_app`:

- ``POST /api/tournaments`` (pit manager or admin): ``{"id", "format", "seed",
  "tables", "live", "betting_seconds", "pause_seconds"}``
- ``GET /api/tournament-formats``: the formats a tournament is created from
- ``GET /api/tournaments``, ``GET /api/tournaments/{id}`` (the snapshot, with
  the betting windows open now), ``GET /api/tournaments/{id}/leaderboard``,
  ``GET /api/tournaments/{id}/results`` (places, prizes and their payment)
- ``POST /api/tournaments/{id}/register``: a player registers themselves and
  pays the format's entry fee from their wallet (``Idempotency-Key``); staff
  register anyone, for free (``name``, ``strategy`` for an automated entrant)
- ``DELETE /api/tournaments/{id}/register``: a player takes their entry back
  before the first session (T2.4), the fee refunded in the same transaction
- ``POST /api/tournaments/{id}/reenter``: a player out of chips buys a new
  stack where the format allows, paying the entry fee again
- ``POST /api/tournaments/{id}/bets`` (``replace`` to change them),
  ``DELETE /api/tournaments/{id}/bets``: a player's bets on the hand being bet
- ``POST /api/tournaments/{id}/tiebreak``: a tied player's side in a sudden-death hand
- ``POST /api/tournaments/{id}/start`` (pit manager or admin): the next session
- ``POST /api/tournaments/{id}/cancel`` (pit manager or admin): call it off
  (T8.4), every entry fee paid given back
- ``POST /api/tournaments/{id}/irregularities/{procedure}`` (pit supervisor or
  higher): Baccarat Tournament 5.1-5.4 on the hand in play at a table
  (:mod:`punto.server.tournaments.pit`)
- ``POST /api/tournaments/{id}/advance`` (staff; not for a live tournament):
  the next ``steps`` actions, as :class:`punto.tournament.runner.Runner`
  chooses them from the state alone -- automated entrants (and people who have
  not acted) bet, hands are opened, closed and dealt, ties broken, sessions ended
- ``WS /ws/tournaments/{id}``: a ``snapshot`` on connecting, then a
  ``leaderboard`` message (with the event) after every hand opened, closed and
  settled, seating, sudden-death hand, session end and the finish, and a
  ``window`` message (with its deadline) as each betting window opens
- ``GET /tournaments/{id}``: the tournament's table -- the hand on the felt,
  the betting window's clock, chips, live leaderboard, login, registration,
  betting and results -- with the pit's "start the next session" and
  "cancel the tournament" for a pit manager or higher (the list of
  tournaments, their big screens and the pit's page of them are
  :mod:`punto.server.routes.pages`')

What each route does is :class:`punto.server.tournaments.service.Tournaments`'
(and its money, :class:`punto.server.tournaments.money.Cashier`'s): a route
checks who asks and what they send, and never takes a tournament's lock.
Refusals are the engine's own, as JSON with a 4xx status.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from punto.server import http_errors
from punto.server.routes import errors
from punto.server.routes.idempotency import IdempotencyKey
from punto.server.routes.models import Money, documented
from punto.server.routes.pages import HEADERS, STATIC
from punto.server.routes.streams import refuse, stream
from punto.server.security.auth import is_staff, require_manager_or_admin
from punto.server.services import Server
from punto.server.tournaments import pit
from punto.server.tournaments.deps import service, service_of, user_of
from punto.server.tournaments.entry import channel
from punto.server.tournaments.errors import status_of
from punto.store.accounts import PermissionDeniedError, User, UserRole
from punto.store.requests import Answer
from punto.tournament import RegistrationError, Stage, TournamentError
from punto.tournament.formats import all_formats
from punto.tournament.runner import bot_controller
from punto.tournament.strategies import STRATEGIES

#: The most actions one ``advance`` request may take.
MAX_STEPS = 5000


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Ident = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class CreateIn(Strict):
    id: Ident
    format: Annotated[str, Field(min_length=1, max_length=64, examples=["daily"])] = "daily"
    seed: Annotated[int, Field(ge=0)] | Annotated[str, Field(max_length=200)] | None = None
    tables: Annotated[int, Field(ge=1, le=100)] | None = None
    live: bool = Field(
        False,
        description="run by the server's clock: a betting window for every hand, "
        "nobody played for (then `advance` is refused)",
    )
    betting_seconds: Annotated[float, Field(ge=0.1, le=600)] = Field(
        20.0, description="a live tournament's betting window for each hand"
    )
    pause_seconds: Annotated[float, Field(ge=0, le=600)] = Field(
        3.0, description="a live tournament's pause after each hand (and between sessions)"
    )


class RegisterIn(Strict):
    #: the entrant's name (default: the player's user name)
    name: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    #: an automated entrant's strategy (staff only): banker, flat, catchup, pairs
    strategy: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    entrant: Ident | None = None
    #: a player account the staff enter for free (a comped entry): the player
    #: is the entrant, acts for themselves, and prizes go to their wallet
    player: Ident | None = None


class RegisteredOut(BaseModel):
    """An entry made: by a player, with the fee paid and the balance left."""

    model_config = ConfigDict(extra="allow")

    entrant: str
    name: str
    controller: str
    entry: int | None = None
    fee: Money | None = Field(None, description="the entry fee paid from the wallet")
    currency: str | None = None
    balance: Money | None = Field(None, description="the wallet's balance after the fee")
    chips: int | None = None


class BetLineIn(Strict):
    wager: Annotated[str, Field(min_length=1, max_length=32, examples=["banker"])]
    #: strict: a JSON true is not 1 chip
    stake: Annotated[StrictInt, Field(ge=0, le=10**12)]


class BetsIn(Strict):
    #: the bets on the hand being bet at the player's table (all together, T4.1)
    bets: Annotated[list[BetLineIn], Field(max_length=10)] = []
    #: sit this hand out instead (T5.2 allowing)
    pass_hand: bool = False
    replace: bool = Field(
        False, description="withdraw the bets already placed on this hand and place these (T4.6)"
    )


class TiebreakIn(Strict):
    side: Annotated[str, Field(min_length=1, max_length=16, examples=["banker", "player"])]


class CancelIn(Strict):
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class AdvanceIn(Strict):
    steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 1


async def start(app: FastAPI) -> None:
    """Open the tournaments, finish interrupted payouts, start the live clocks
    (from the app's lifespan, once the server has started)."""
    if not hasattr(app.state, "tournaments_lock"):
        return  # not installed
    tournaments = await asyncio.to_thread(service_of, app)
    await tournaments.start()


async def stop(app: FastAPI) -> None:
    """Stop the live clocks (from the app's lifespan, before the server stops)."""
    tournaments = getattr(app.state, "tournaments", None)
    if tournaments is not None:
        await tournaments.stop()


def _answer(answer: Answer) -> JSONResponse:
    return JSONResponse(answer.body, status_code=answer.status)


def _staff(user: User, action: str) -> None:
    if not is_staff(user):
        raise PermissionDeniedError(
            f"a player may not {action}", hint="it takes a dealer or higher, or the admin"
        )


def _player(user: User, action: str) -> None:
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not {action}", hint="entrants act for themselves"
        )


router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses=errors.RESPONSES)
formats_router = APIRouter(
    prefix="/api/tournament-formats", tags=["tournaments"], responses=errors.RESPONSES
)


@formats_router.get("")
def list_formats() -> list[dict[str, Any]]:
    """The formats a tournament is created from: each one's rules as people
    read them (sessions, registration, entry fee, prizes)."""
    return [{**f.to_json(), "description": f.description} for f in all_formats()]


@router.get("")
def list_tournaments(request: Request) -> list[dict[str, Any]]:
    """Every tournament on the server."""
    tournaments = service(request)
    return [tournaments.summary(e) for e in tournaments.all()]


@router.post("")
def create_tournament(body: CreateIn, request: Request) -> dict[str, Any]:
    """A new tournament (a pit manager or the admin): its format, seed and first
    tables; ``live`` to have the server's clock run it, with a betting window of
    ``betting_seconds`` for every hand and ``pause_seconds`` between hands."""
    require_manager_or_admin(user_of(request), "create a tournament")
    tournaments = service(request)
    entry = tournaments.create(
        body.id,
        body.format,
        body.seed,
        body.tables,
        betting_ms=round(body.betting_seconds * 1000) if body.live else 0,
        pause_ms=round(body.pause_seconds * 1000) if body.live else 0,
    )
    return tournaments.summary(entry)


@router.get("/{tournament_id}")
def tournament_snapshot(tournament_id: str, request: Request) -> dict[str, Any]:
    """Everything the lobby shows (never the shoe's order or the seed), with
    the betting windows open now (``deadline`` in seconds since the epoch) and
    ``server_time``."""
    tournaments = service(request)
    return tournaments.snapshot(tournaments.get(tournament_id))


@router.get("/{tournament_id}/leaderboard")
def tournament_leaderboard(tournament_id: str, request: Request) -> dict[str, Any]:
    """Standings per table and overall."""
    tournaments = service(request)
    return tournaments.leaderboard(tournaments.get(tournament_id))


@router.get("/{tournament_id}/results")
def tournament_results(tournament_id: str, request: Request) -> dict[str, Any]:
    """The places and prizes (empty until the tournament has finished), each
    prize's ``payment`` (``paid`` to the winner's wallet, ``due``, or
    ``off_ledger`` for an entrant the staff registered), and the entry fees taken."""
    tournaments = service(request)
    return tournaments.results(tournaments.get(tournament_id))


@router.post("/{tournament_id}/register", **documented(RegisteredOut))
def register(
    tournament_id: str,
    request: Request,
    body: RegisterIn | None = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Enter the tournament.  A player enters themselves (their user name is the
    entrant id) and pays the format's entry fee from their wallet, in the same
    transaction: refused, with nothing written, when the wallet is short
    (402) or registration is closed (422).  An ``Idempotency-Key`` makes a
    retry return the first answer.  Staff enter anyone, for free (``name``;
    ``strategy`` for an automated entrant; ``player`` for a player account,
    who then plays for themselves and whose prizes go to their wallet -- a
    re-entry they pay for)."""
    user = user_of(request)
    body = body or RegisterIn()
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    if user.role is UserRole.PLAYER:
        if (
            body.strategy is not None
            or body.player is not None
            or body.entrant not in (None, user.username)
        ):
            raise PermissionDeniedError(
                "a player may only register themselves",
                hint="send no entrant, player or strategy",
            )
        return _answer(tournaments.money.register_player(entry, user, body.name, idempotency_key))
    _staff(user, "register entrants")
    if body.player is not None:
        return _answer(tournaments.money.comp_player(entry, body.player, body.name, body.strategy))
    if body.name is None:
        raise RegistrationError("an entrant needs a name", hint='send {"name": ...}')
    controller = "human"
    if body.strategy is not None:
        if body.strategy not in STRATEGIES:
            raise RegistrationError(
                f"no automated entrant {body.strategy!r}",
                hint=f"choose from {', '.join(STRATEGIES)}",
            )
        controller = bot_controller(body.strategy)
    added = tournaments.register_entrant(entry, body.name, controller, body.entrant)
    return JSONResponse(asdict(added))


@router.post("/{tournament_id}/reenter", **documented(RegisteredOut))
def reenter(
    tournament_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A player out of chips buys a new starting stack (T2.3, where the format
    allows), paying the entry fee again from their wallet; ``Idempotency-Key``
    as for registering."""
    user = user_of(request)
    _player(user, "re-enter a tournament")
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    return _answer(tournaments.money.reenter_player(entry, user, idempotency_key))


@router.delete("/{tournament_id}/register")
def withdraw_entry(
    tournament_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A player takes their entry back before the first session starts (T2.4):
    the entry fee comes back to their wallet in the same transaction
    (``refund``, with the ``balance`` after it).  They may register again.
    ``Idempotency-Key`` as for registering."""
    user = user_of(request)
    _player(user, "take back a tournament entry")
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    return _answer(tournaments.money.withdraw_player(entry, user, idempotency_key))


@router.post("/{tournament_id}/cancel")
def cancel(tournament_id: str, body: CancelIn, request: Request) -> dict[str, Any]:
    """Call the tournament off (a pit manager or the admin; T8.4): no more
    hands, no places, and every entry fee paid given back to its wallet
    (``results`` shows each refund's payment).  A finished tournament's
    results stand (409)."""
    require_manager_or_admin(user_of(request), "cancel a tournament")
    tournaments = service(request)
    return tournaments.cancel(tournaments.get(tournament_id), body.reason)


@router.post("/{tournament_id}/bets")
def bets(tournament_id: str, body: BetsIn, request: Request) -> dict[str, Any]:
    """A player's bets on the hand being bet at their table, or ``pass_hand``;
    with ``replace``, the bets already placed on the hand are withdrawn and
    these placed instead (until "No more bets", T4.6)."""
    user = user_of(request)
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not bet in a tournament", hint="entrants bet for themselves"
        )
    tournaments = service(request)
    placed = tournaments.place_bets(
        tournaments.get(tournament_id),
        user.username,
        [(b.wager, b.stake) for b in body.bets],
        pass_hand=body.pass_hand,
        replace=body.replace,
    )
    return asdict(placed)


@router.delete("/{tournament_id}/bets")
def withdraw_bets(tournament_id: str, request: Request) -> dict[str, Any]:
    """Take back one's bets on the hand being bet, until "No more bets" (T4.6)."""
    user = user_of(request)
    _player(user, "withdraw tournament bets")
    tournaments = service(request)
    return asdict(tournaments.withdraw_bets(tournaments.get(tournament_id), user.username))


@router.post("/{tournament_id}/tiebreak")
def tiebreak(tournament_id: str, body: TiebreakIn, request: Request) -> dict[str, Any]:
    """A tied player's side, Banker or Player, in the open sudden-death hand
    (T7.2; while a side is open it must be taken).  In a live tournament,
    whoever has not chosen when its window closes gets the default choice."""
    user = user_of(request)
    _player(user, "choose a sudden-death side")
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    return asdict(tournaments.choose_tiebreak(entry, user.username, body.side.lower()))


@router.post("/{tournament_id}/start")
def start_session(tournament_id: str, request: Request) -> dict[str, Any]:
    """Start the next session: the seats are drawn (a pit manager or the admin).
    A live tournament's clock starts the sessions after the first by itself."""
    require_manager_or_admin(user_of(request), "start a tournament session")
    tournaments = service(request)
    return tournaments.start_session(tournaments.get(tournament_id))


@router.post("/{tournament_id}/advance")
def advance(tournament_id: str, request: Request, body: AdvanceIn | None = None) -> dict[str, Any]:
    """Play the next ``steps`` actions (staff), for a tournament that is not
    live: people who have not acted are played by the catch-up bettor.  When
    the tournament finishes, the prizes are paid."""
    _staff(user_of(request), "advance a tournament")
    body = body or AdvanceIn()
    tournaments = service(request)
    done = tournaments.advance(tournament_id, body.steps)
    entry = tournaments.get(tournament_id)
    finished = entry.tournament.stage is Stage.FINISHED
    return {**tournaments.summary(entry), "steps": done, "finished": finished}


# -- the socket and the page ----------------------------------------------------------


async def tournament_socket(websocket: WebSocket, tournament_id: str) -> None:
    """A ``snapshot``, then a ``leaderboard`` after every hand and session
    change and a ``window`` as each betting window opens."""
    server: Server = websocket.app.state.server
    try:
        tournaments = await asyncio.to_thread(service, websocket)
        entry = tournaments.get(tournament_id)
    except TournamentError as error:
        await refuse(websocket, error)  # 4404 after the handshake, as for a table
        return
    await websocket.accept()
    subscriber = server.hub.subscribe(channel(tournament_id), None, False)

    async def opening() -> list[dict[str, Any]]:
        snapshot = await asyncio.to_thread(tournaments.snapshot, entry)
        return [{"type": "snapshot", "snapshot": snapshot}]

    await stream(websocket, server.hub, subscriber, opening)


def tournament_page() -> HTMLResponse:
    return HTMLResponse((STATIC / "tournament.html").read_text("utf-8"), headers=HEADERS)


def install(app: FastAPI) -> None:
    """Add the tournaments to an app made by ``create_app`` (before it starts)."""
    app.state.tournaments_lock = threading.Lock()

    async def tournament_error(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, TournamentError)
        body = http_errors.error_body(
            type(error).__name__,
            error.message,
            clause=error.clause,
            hint=error.hint,
            text=str(error),
        )
        return JSONResponse(body, status_code=status_of(error))

    app.add_exception_handler(TournamentError, tournament_error)
    app.include_router(router)
    app.include_router(formats_router)
    app.include_router(pit.router)
    app.add_api_websocket_route("/ws/tournaments/{tournament_id}", tournament_socket)
    app.add_api_route(
        "/tournaments/{tournament_id}",
        tournament_page,
        methods=["GET", "HEAD"],
        include_in_schema=False,
    )
