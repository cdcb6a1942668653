"""The tournament service on its own, below the routes: what the
routes ask of :class:`punto.server.tournaments.service.Tournaments` comes back
as typed results, and a keyed money request is answered once -- the wallet
charged once, to the cent -- whoever retries it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from punto.server.tournaments.service import Tournaments
from punto.server.tournaments.views import BetLine, EntrantBets, StaffEntry
from punto.store.accounts import User
from punto.store.requests import Answer, IdempotencyKeyError
from tests.server.test_server_support import PLAYER, server_of
from tests.server.test_server_tournament_money import new_player


def service_of(client: TestClient) -> Tournaments:
    tournaments: Tournaments = client.app.state.tournaments  # type: ignore[attr-defined]
    return tournaments


def user(client: TestClient, name: str) -> User:
    found = server_of(client).accounts.find_user(name)
    assert found is not None
    return found


def test_server_tournament_service_a_keyed_entry_is_paid_once(client: TestClient) -> None:
    new_player(client, "kim", "120.00")
    tournaments = service_of(client)
    entry = tournaments.create("svc", "turbo", 3, None)
    kim = user(client, "kim")

    first = tournaments.money.register_player(entry, kim, None, "entry-1")
    assert first == Answer(
        200,
        {
            "entrant": "kim",
            "name": "kim",
            "controller": "human",
            "entry": 1,
            "fee": "50.00",
            "currency": "SGD",
            "balance": "70.00",
        },
    )
    # the same request again, as after a lost answer: the first answer, nothing paid
    assert tournaments.money.register_player(entry, kim, None, "entry-1") == first
    ledger = server_of(client).ledger
    assert ledger.balance("player:kim") == 7000  # 120.00 - 50.00, in cents
    assert ledger.balance("tournament:svc") == 5000
    assert ledger.trial_balance() == 0
    # the key used for another request is refused, and nothing moves
    with pytest.raises(IdempotencyKeyError):
        tournaments.money.withdraw_player(entry, kim, "entry-1")
    assert ledger.balance("player:kim") == 7000

    # taken back before the first session (T2.4): the fee comes back, once
    back = tournaments.money.withdraw_player(entry, kim, "back-1")
    assert back == Answer(
        200, {"entrant": "kim", "refund": "50.00", "currency": "SGD", "balance": "120.00"}
    )
    assert tournaments.money.withdraw_player(entry, kim, "back-1") == back
    assert ledger.balance("player:kim") == 12000
    assert ledger.trial_balance() == 0


def test_server_tournament_service_actions_come_back_typed(client: TestClient) -> None:
    tournaments = service_of(client)
    entry = tournaments.create("typed", "daily", 1, None)
    comped = tournaments.money.comp_player(entry, PLAYER[0], None, None)
    assert comped == Answer(
        200,
        {
            "entrant": "demo",
            "name": "demo",
            "controller": "human",
            "entry": 1,
            "fee": None,
            "currency": "SGD",
            "wallet": "player:demo",
        },
    )
    bots = [tournaments.register_entrant(entry, f"Bot {n}", "bot:flat", None) for n in range(5)]
    assert all(isinstance(b, StaffEntry) for b in bots)
    assert [(b.name, b.controller) for b in bots] == [(f"Bot {n}", "bot:flat") for n in range(5)]
    assert len({b.entrant for b in bots}) == 5

    summary = tournaments.start_session(entry)
    assert (summary["id"], summary["entrants"], summary["entry_fee"]) == ("typed", 6, "200.00")
    assert tournaments.advance("typed", 1) == 1  # "Place your bets, please"
    hand = entry.tournament.tables[1].hand

    placed = tournaments.place_bets(entry, "demo", [("banker", 1000)])
    assert placed == EntrantBets("demo", 100_000, hand, (BetLine("banker", 1000),), False)
    replaced = tournaments.place_bets(entry, "demo", [("player", 2000)], replace=True)
    assert replaced.bets == (BetLine("player", 2000),)  # T4.6: the first bet withdrawn
    assert tournaments.withdraw_bets(entry, "demo") == EntrantBets("demo", 100_000, hand, (), False)
    assert tournaments.place_bets(entry, "demo", [], pass_hand=True).passed
