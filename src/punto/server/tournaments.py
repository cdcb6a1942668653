"""Tournaments on the table server: the API, the live leaderboard and the page.

:func:`install` adds to an app made by :func:`punto.server.app.create_app`:

- ``POST /api/tournaments`` (pit manager or admin): ``{"id", "format", "seed", "tables"}``
- ``GET /api/tournaments``, ``GET /api/tournaments/{id}`` (the snapshot),
  ``GET /api/tournaments/{id}/leaderboard``, ``GET /api/tournaments/{id}/results``
- ``POST /api/tournaments/{id}/register``: staff register anyone (``name``,
  ``strategy`` for an automated entrant, ``entrant`` id); a player registers
  themselves, with their user name as the entrant id
- ``POST /api/tournaments/{id}/start`` (pit manager or admin): the next session
- ``POST /api/tournaments/{id}/advance`` (staff, or a timer): the next ``steps``
  actions, as :class:`punto.tournament.runner.Runner` chooses them from the
  state alone -- automated entrants (and people who have not acted) bet,
  hands are opened, closed and dealt, ties broken, sessions ended
- ``WS /ws/tournaments/{id}``: a ``snapshot`` on connecting, then a
  ``leaderboard`` message (with the event) after every settled hand, seating,
  sudden-death hand, session end and the finish
- ``GET /tournaments/{id}``: the lobby, live leaderboard and results page

Each tournament is one :class:`~punto.tournament.Tournament` in the process,
on :class:`~punto.tournament.SQLTournamentLog` in the server's database
(table ``tournament_events``, migration 0003), opened from its log on first
use after a start -- so a server killed mid-session carries on exactly where
the log stopped.  Refusals are the engine's own, as JSON with a 4xx status.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.engine import Engine

from punto.server import errors, ws
from punto.server.app import Server
from punto.server.auth import authenticate, is_staff, require_manager_or_admin
from punto.server.hub import Hub
from punto.server.pages import HEADERS, STATIC
from punto.store.accounts import PermissionDeniedError, User, UserRole
from punto.tournament import (
    BetLimitError,
    FormatError,
    MinHandsError,
    RegistrationError,
    SQLTournamentLog,
    Stage,
    TiebreakError,
    Tournament,
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
    UnknownFormatError,
    get_format,
)
from punto.tournament.events import (
    HandSettled,
    SessionEnded,
    SessionStarted,
    TiebreakDealt,
    TiebreakLots,
    TournamentEvent,
    TournamentFinished,
    event_to_json,
)
from punto.tournament.runner import Runner, bot_controller
from punto.tournament.strategies import STRATEGIES

#: The most actions one ``advance`` request may take.
MAX_STEPS = 5000
#: Events after which the leaderboard is pushed.
PUSHED = (
    HandSettled,
    SessionStarted,
    SessionEnded,
    TiebreakDealt,
    TiebreakLots,
    TournamentFinished,
)


class UnknownTournamentError(TournamentError):
    """No tournament with that id on this server."""


class TournamentExistsError(TournamentError):
    """A tournament with that id exists already."""


#: Most specific first (as :data:`punto.server.errors.STATUS`).
STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (UnknownTournamentError, 404),
    (UnknownFormatError, 404),
    (TournamentExistsError, 409),
    (TournamentPhaseError, 409),
    (TournamentLogError, 409),
    (RegistrationError, 422),
    (BetLimitError, 422),
    (MinHandsError, 422),
    (TiebreakError, 422),
    (FormatError, 422),
    (TournamentError, 422),
)


def status_of(error: TournamentError) -> int:
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 422  # pragma: no cover - TournamentError is last


def channel(tournament_id: str) -> str:
    """The hub channel of a tournament's pages."""
    return f"tournament:{tournament_id}"


@dataclass
class Entry:
    """A tournament in the process: the state, its runner, and the lock its steps take."""

    tournament: Tournament
    runner: Runner
    lock: threading.Lock = field(default_factory=threading.Lock)


class Tournaments:
    """Every tournament of the server's database, opened from its log on first use."""

    def __init__(self, engine: Engine, hub: Hub) -> None:
        self.hub = hub
        self.log = SQLTournamentLog(engine, create=False)
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()
        for tournament_id in self.log.tournaments():
            self._add(Tournament.open(self.log, tournament_id))

    def _add(self, t: Tournament) -> Entry:
        entry = Entry(t, Runner(t))
        t.subscribe(lambda _seq, event: self._publish(t, event))
        self._entries[t.id] = entry
        return entry

    def _publish(self, t: Tournament, event: TournamentEvent) -> None:
        name = channel(t.id)
        if isinstance(event, PUSHED) and self.hub.count(name):
            self.hub.publish(
                name,
                {
                    "type": "leaderboard",
                    "event": event_to_json(event),
                    "leaderboard": t.leaderboard(),
                },
            )

    def get(self, tournament_id: str) -> Entry:
        entry = self._entries.get(tournament_id)
        if entry is None:
            raise UnknownTournamentError(
                f"there is no tournament {tournament_id!r}",
                hint="GET /api/tournaments lists them",
            )
        return entry

    def all(self) -> list[Entry]:
        with self._lock:
            return [self._entries[k] for k in sorted(self._entries)]

    def create(
        self, tournament_id: str, format_id: str, seed: int | str | None, tables: int | None
    ) -> Entry:
        fmt = get_format(format_id)
        with self._lock:
            if tournament_id in self._entries:
                raise TournamentExistsError(
                    f"tournament {tournament_id!r} already exists", hint="choose another id"
                )
            t = Tournament.create(self.log, tournament_id, fmt, seed=seed, tables=tables)
            return self._add(t)

    def advance(self, tournament_id: str, steps: int) -> int:
        """Take up to ``steps`` actions; how many were taken (fewer once finished)."""
        entry = self.get(tournament_id)
        done = 0
        with entry.lock:
            for _ in range(steps):
                if not entry.runner.step():
                    break
                done += 1
        return done


# -- the API --------------------------------------------------------------------------


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Ident = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class CreateIn(Strict):
    id: Ident
    format: Annotated[str, Field(min_length=1, max_length=64, examples=["daily"])] = "daily"
    seed: Annotated[int, Field(ge=0)] | Annotated[str, Field(max_length=200)] | None = None
    tables: Annotated[int, Field(ge=1, le=100)] | None = None


class RegisterIn(Strict):
    #: the entrant's name (default: the player's user name)
    name: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    #: an automated entrant's strategy (staff only): banker, flat, catchup, pairs
    strategy: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    entrant: Ident | None = None


class BetLineIn(Strict):
    wager: Annotated[str, Field(min_length=1, max_length=32, examples=["banker"])]
    stake: Annotated[int, Field(ge=0, le=10**12)]


class BetsIn(Strict):
    #: the bets on the hand being bet at the player's table (all together, T4.1)
    bets: Annotated[list[BetLineIn], Field(max_length=10)] = []
    #: sit this hand out instead (T5.2 allowing)
    pass_hand: bool = False


class AdvanceIn(Strict):
    steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 1


def service(request: Request | WebSocket) -> Tournaments:
    """The app's tournaments, opened on first use (after the lifespan has started)."""
    state = request.app.state
    found: Tournaments | None = getattr(state, "tournaments", None)
    if found is None:
        lock: threading.Lock = state.tournaments_lock
        with lock:
            found = getattr(state, "tournaments", None)
            if found is None:
                server: Server = state.server
                found = Tournaments(server.engine, server.hub)
                state.tournaments = found
    return found


def _user(request: Request) -> User:
    server: Server = request.app.state.server
    return authenticate(server.accounts, request, server.sessions)


def _staff(user: User, action: str) -> None:
    if not is_staff(user):
        raise PermissionDeniedError(
            f"a player may not {action}", hint="it takes a dealer or higher, or the admin"
        )


def _summary(t: Tournament) -> dict[str, Any]:
    s = t.session
    return {
        "id": t.id,
        "format": t.fmt.id,
        "title": t.fmt.title,
        "stage": t.stage.value,
        "session": None if s is None else {"number": s.number, "name": s.name},
        "entrants": len(t.entrants),
        "tables": len(t.tables),
        "seq": t.seq,
    }


def _results(t: Tournament) -> dict[str, Any]:
    return {
        "tournament": t.id,
        "finished": t.stage is Stage.FINISHED,
        "currency": t.fmt.currency,
        "results": t.result_rows(),
    }


router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses=errors.RESPONSES)


@router.get("")
def list_tournaments(request: Request) -> list[dict[str, Any]]:
    """Every tournament on the server."""
    return [_summary(e.tournament) for e in service(request).all()]


@router.post("")
def create_tournament(body: CreateIn, request: Request) -> dict[str, Any]:
    """A new tournament (a pit manager or the admin): its format, seed and first tables."""
    require_manager_or_admin(_user(request), "create a tournament")
    entry = service(request).create(body.id, body.format, body.seed, body.tables)
    return _summary(entry.tournament)


@router.get("/{tournament_id}")
def tournament_snapshot(tournament_id: str, request: Request) -> dict[str, Any]:
    """Everything the lobby shows (never the shoe's order or the seed)."""
    entry = service(request).get(tournament_id)
    with entry.lock:
        return entry.tournament.snapshot()


@router.get("/{tournament_id}/leaderboard")
def tournament_leaderboard(tournament_id: str, request: Request) -> dict[str, Any]:
    """Standings per table and overall."""
    entry = service(request).get(tournament_id)
    with entry.lock:
        return entry.tournament.leaderboard()


@router.get("/{tournament_id}/results")
def tournament_results(tournament_id: str, request: Request) -> dict[str, Any]:
    """The places and prizes (empty until the tournament has finished)."""
    entry = service(request).get(tournament_id)
    with entry.lock:
        return _results(entry.tournament)


@router.post("/{tournament_id}/register")
def register(
    tournament_id: str, request: Request, body: RegisterIn | None = None
) -> dict[str, Any]:
    """Enter the tournament: a player themselves, or anyone entered by the staff."""
    user = _user(request)
    body = body or RegisterIn()
    entry = service(request).get(tournament_id)
    t = entry.tournament
    if user.role is UserRole.PLAYER:
        if body.strategy is not None or body.entrant not in (None, user.username):
            raise PermissionDeniedError(
                "a player may only register themselves", hint="send no entrant or strategy"
            )
        name, controller = body.name or user.username, "human"
        eid: str | None = user.username
    else:
        _staff(user, "register entrants")
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
        name, eid = body.name, body.entrant
    with entry.lock:
        new_id = t.register(name, controller, entrant=eid)
        return {"entrant": new_id, "name": t.entrants[new_id].name, "controller": controller}


@router.post("/{tournament_id}/bets")
def bets(tournament_id: str, body: BetsIn, request: Request) -> dict[str, Any]:
    """A player's bets on the hand being bet at their table, or ``pass_hand``."""
    user = _user(request)
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not bet in a tournament", hint="entrants bet for themselves"
        )
    entry = service(request).get(tournament_id)
    t = entry.tournament
    with entry.lock:
        t.entrant(user.username)
        if body.pass_hand:
            t.pass_hand(user.username)
        else:
            t.place_bets(user.username, [(b.wager, b.stake) for b in body.bets])
        e = t.entrants[user.username]
        table = t.tables[e.table] if e.table is not None else None
        return {
            "entrant": e.id,
            "chips": e.chips,
            "hand": None if table is None else table.hand,
            "bets": []
            if table is None
            else [{"wager": x.wager, "stake": x.stake} for x in table.bets.get(e.id, ())],
            "passed": table is not None and e.id in table.passed,
        }


@router.post("/{tournament_id}/start")
def start(tournament_id: str, request: Request) -> dict[str, Any]:
    """Start the next session: the seats are drawn (a pit manager or the admin)."""
    require_manager_or_admin(_user(request), "start a tournament session")
    entry = service(request).get(tournament_id)
    with entry.lock:
        entry.tournament.start_session()
        return _summary(entry.tournament)


@router.post("/{tournament_id}/advance")
def advance(tournament_id: str, request: Request, body: AdvanceIn | None = None) -> dict[str, Any]:
    """Play the next ``steps`` actions (staff, or a timer)."""
    _staff(_user(request), "advance a tournament")
    body = body or AdvanceIn()
    tournaments = service(request)
    done = tournaments.advance(tournament_id, body.steps)
    t = tournaments.get(tournament_id).tournament
    return {**_summary(t), "steps": done, "finished": t.stage is Stage.FINISHED}


# -- the socket and the page ----------------------------------------------------------


async def tournament_socket(websocket: WebSocket, tournament_id: str) -> None:
    """A ``snapshot``, then a ``leaderboard`` after every settled hand and session change."""
    server: Server = websocket.app.state.server
    try:
        entry = await asyncio.to_thread(lambda: service(websocket).get(tournament_id))
    except TournamentError as error:
        await websocket.close(code=4404, reason=str(error)[:120])
        return
    await websocket.accept()
    subscriber = server.hub.subscribe(channel(tournament_id), None, False)

    async def opening() -> list[dict[str, Any]]:
        def snapshot() -> dict[str, Any]:
            with entry.lock:
                return entry.tournament.snapshot()

        return [{"type": "snapshot", "snapshot": await asyncio.to_thread(snapshot)}]

    await ws.stream(websocket, server, subscriber, opening)


def tournament_page() -> HTMLResponse:
    return HTMLResponse((STATIC / "tournament.html").read_text("utf-8"), headers=HEADERS)


def install(app: FastAPI) -> None:
    """Add the tournaments to an app made by ``create_app`` (before it starts)."""
    app.state.tournaments_lock = threading.Lock()

    async def tournament_error(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, TournamentError)
        body = errors.error_body(
            type(error).__name__,
            error.message,
            clause=error.clause,
            hint=error.hint,
            text=str(error),
        )
        return JSONResponse(body, status_code=status_of(error))

    app.add_exception_handler(TournamentError, tournament_error)
    app.include_router(router)
    app.add_api_websocket_route("/ws/tournaments/{tournament_id}", tournament_socket)
    app.add_api_route(
        "/tournaments/{tournament_id}", tournament_page, methods=["GET"], include_in_schema=False
    )
