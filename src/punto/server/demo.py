"""The demo: two self-running tables and a dealer-driven one, and an account
of each kind, created once (running it again changes nothing)."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from punto.server.config import TableConfig, limits_from_json
from punto.store.accounts import UserExistsError, UserRole

if TYPE_CHECKING:
    from punto.server.services import Server

#: (user name, password, role): the logins printed at start-up.
DEMO_USERS = (
    ("demo", "demo-password", UserRole.PLAYER),
    ("demo2", "demo2-password", UserRole.PLAYER),
    ("dealer", "dealer-password", UserRole.DEALER),
    ("pit", "pit-password", UserRole.PIT_MANAGER),
    ("admin", "admin-password", UserRole.ADMIN),
)
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
    for config in demo_tables(**options):
        server.store.create(config, if_missing=True)
    for username, password, role in DEMO_USERS:
        with contextlib.suppress(UserExistsError):
            server.accounts.create_user(username, password, role)
    for username, _, role in DEMO_USERS:
        if role is UserRole.PLAYER:
            user = server.accounts.find_user(username)
            assert user is not None
            wallet = server.ledger.player_wallet(username, account_id=user.id)
            server.ledger.deposit(wallet, int(DEMO_FUNDS * 100), key=f"demo-funds:{username}")


def describe(url: str) -> str:
    """The start-up message: where to go and how to log in."""
    lines = [
        f"punto table server: {url}",
        f"  player page:    {url}/play/tiger  (and /play/buffalo, /play/dragon)",
        f"  dealer console: {url}/dealer/dragon",
        f"  scoreboard:     {url}/scoreboard/tiger",
        f"  pit:            {url}/pit",
        f"  API:            {url}/docs  ({url}/openapi.json)",
        "demo logins (user / password / role):",
    ]
    lines += [f"  {u} / {p} / {r.words}" for u, p, r in DEMO_USERS]
    return "\n".join(lines)
