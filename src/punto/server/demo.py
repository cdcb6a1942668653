"""The demo: two self-running tables and a dealer-driven one, an account of
each kind, and a tournament with automated entrants, created once (running
it again changes nothing)."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from punto.protection.edges import operator_confirmations
from punto.server.tables.config import TableConfig, limits_from_json
from punto.store.accounts import UserExistsError, UserRole
from punto.tournament.runner import bot_controller

if TYPE_CHECKING:
    from punto.server.services import Server
    from punto.server.tournaments.service import Tournaments

#: (user name, password, role): the logins printed at start-up.
DEMO_USERS = (
    ("demo", "demo-password", UserRole.PLAYER),
    ("demo2", "demo2-password", UserRole.PLAYER),
    ("dealer", "dealer-password", UserRole.DEALER),
    ("pit", "pit-password", UserRole.PIT_MANAGER),
    ("admin", "admin-password", UserRole.ADMIN),
)
#: Who confirms, as the operator, any demo table's wager that favours the
#: player: the person who starts ``punto serve --demo``.  None does: Tiger
#: Baccarat's Tiger Pair is read by rank (docs/interpretations.md), and
#: tests/server/test_server_anomalies.py keeps it so.
DEMO_OPERATOR = "punto serve --demo"
#: What each demo player starts with.
DEMO_FUNDS = Decimal("10000.00")


def demo_tables(**options: Any) -> list[TableConfig]:
    """The demo tables; ``options`` (e.g. ``betting_seconds``) apply to the automatic ones."""
    limits = limits_from_json({"minimum": "10", "maximum": "1000"})
    return [
        TableConfig(
            id="tiger",
            name="Tiger Baccarat (automatic dealer)",
            game="tiger-baccarat",
            mode="auto",
            limits=limits,
            **options,
        ),
        TableConfig(
            id="buffalo",
            name="Tiger Buffalo, layout A (automatic dealer)",
            game="tiger-buffalo",
            layout="A",
            mode="auto",
            limits=limits_from_json({"minimum": "10", "maximum": "1000", "differential": "2000"}),
            **options,
        ),
        TableConfig(
            id="dragon",
            name="Dragon Tiger (dealer console)",
            game="dragon-tiger",
            mode="dealer",
            limits=limits,
        ),
    ]


def create_demo(server: Server, **options: Any) -> None:
    for plain in demo_tables(**options):
        # Set up by the operator who starts the demo, not by a pit manager: the
        # confirmation says so, and the pit page shows it with the warning.
        config = replace(plain, confirmations=operator_confirmations(plain.edges, DEMO_OPERATOR))
        if server.store.create(config, if_missing=True):
            for c in config.confirmations:
                server.audit.record(
                    "confirm_player_favoured",
                    table_id=config.id,
                    by=c.by,
                    role=c.role,
                    wager=c.wager,
                    house_edge=c.edge,
                    at=c.at,
                )
    for username, password, role in DEMO_USERS:
        with contextlib.suppress(UserExistsError):
            server.accounts.create_user(username, password, role)
    for username, _, role in DEMO_USERS:
        if role is UserRole.PLAYER:
            user = server.accounts.find_user(username)
            assert user is not None
            wallet = server.ledger.player_wallet(username, account_id=user.id)
            server.ledger.deposit(wallet, int(DEMO_FUNDS * 100), key=f"demo-funds:{username}")


#: The demo's tournament: Turbo Baccarat on the server's clock (a betting
#: window for every hand), four automated entrants registered; the demo players
#: register on /tournaments, the pit starts it on /pit/tournaments.
DEMO_TOURNAMENT = "demo-turbo"
DEMO_TOURNAMENT_FORMAT = "turbo"
#: the automated entrants' strategies (punto.tournament.strategies)
DEMO_ENTRANTS = ("flat", "banker", "catchup", "pairs")


def create_demo_tournament(
    tournaments: Tournaments, betting_seconds: float = 20.0, pause_seconds: float = 4.0
) -> None:
    """The demo's tournament, once (it stays, with its results, when it has finished)."""
    if any(e.tournament.id == DEMO_TOURNAMENT for e in tournaments.all()):
        return
    entry = tournaments.create(
        DEMO_TOURNAMENT,
        DEMO_TOURNAMENT_FORMAT,
        None,
        None,
        betting_ms=round(betting_seconds * 1000),
        pause_ms=round(pause_seconds * 1000),
    )
    for n, strategy in enumerate(DEMO_ENTRANTS, start=1):
        tournaments.register_entrant(entry, f"Bot {n} ({strategy})", bot_controller(strategy), None)


def describe(url: str) -> str:
    """The start-up message: where to go and how to log in."""
    lines = [
        f"punto table server: {url}",
        f"  player page:    {url}/play/tiger  (and /play/buffalo, /play/dragon)",
        f"  dealer console: {url}/dealer/dragon",
        f"  scoreboard:     {url}/scoreboard/tiger",
        f"  pit:            {url}/pit",
        f"  tournaments:    {url}/tournaments  (the pit starts them: {url}/pit/tournaments)",
        f"  API:            {url}/docs  ({url}/openapi.json)",
        "demo logins (user / password / role):",
    ]
    lines += [f"  {u} / {p} / {r.words}" for u, p, r in DEMO_USERS]
    return "\n".join(lines)
