"""Tournament money through the HTTP API, on SQLite and PostgreSQL: entry fees
from the players' wallets (idempotent, refused with nothing written), prizes
to the winners' wallets with exact money, the house covering or keeping the
difference, the trial balance 0 and a clean audit -- and a payout cut short
by a crash finished at the next start, each prize paid once."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from punto.server.tournaments.money import prize_key
from punto.store.db import ledger_transactions, server_requests, tournament_events
from punto.store.ledger import Ledger, PostingKind
from tests.server.test_server_support import ADMIN, DEALER, PIT, PLAYER, login, make_app, server_of

CENT = Decimal("0.01")


def new_player(client: TestClient, name: str, funds: str | None) -> dict[str, str]:
    """A player account (by the admin) with ``funds`` bought at the cage; their headers."""
    admin = login(client, ADMIN)
    r = client.post(
        "/api/users",
        headers=admin,
        json={"username": name, "password": f"{name}-password", "role": "player"},
    )
    assert r.status_code == 201, r.text
    if funds is not None:
        r = client.post(
            "/api/cage/deposit",
            headers=login(client, PIT),
            json={"username": name, "amount": funds, "key": f"funds-{name}"},
        )
        assert r.status_code == 201, r.text
    return login(client, (name, f"{name}-password"))


def balance(client: TestClient, headers: dict[str, str]) -> Decimal:
    return Decimal(client.get("/api/me", headers=headers).json()["balance"])


def create(client: TestClient, tid: str, fmt: str, **extra: Any) -> None:
    r = client.post(
        "/api/tournaments", headers=login(client, PIT), json={"id": tid, "format": fmt, **extra}
    )
    assert r.status_code == 200, r.text


def ledger_of(client: TestClient) -> Ledger:
    return server_of(client).ledger


def clean(client: TestClient) -> None:
    ledger = ledger_of(client)
    assert ledger.trial_balance() == 0
    audit = ledger.audit()
    assert audit.ok, audit.problems


def counts(client: TestClient, tid: str) -> tuple[int, int, int]:
    """Events of the tournament, ledger transactions, remembered requests."""
    with server_of(client).engine.connect() as conn:
        events = conn.execute(
            select(func.count())
            .select_from(tournament_events)
            .where(tournament_events.c.tournament_id == tid)
        ).scalar_one()
        postings = conn.execute(select(func.count()).select_from(ledger_transactions)).scalar_one()
        requests = conn.execute(select(func.count()).select_from(server_requests)).scalar_one()
    return int(events), int(postings), int(requests)


def test_a_player_pays_the_entry_fee_once_to_register(client: TestClient) -> None:
    create(client, "cup", "daily")
    player = login(client, PLAYER)
    before = balance(client, player)
    key = {"Idempotency-Key": "reg-1"}
    r = client.post("/api/tournaments/cup/register", headers={**player, **key})
    assert r.status_code == 200, r.text
    first = r.json()
    assert first["entrant"] == PLAYER[0]
    assert first["fee"] == "200.00"
    assert Decimal(first["balance"]) == before - Decimal("200.00")
    assert balance(client, player) == before - Decimal("200.00")
    assert ledger_of(client).balance("tournament:cup") == 20_000
    # the same request again: the same answer, no second fee
    again = client.post("/api/tournaments/cup/register", headers={**player, **key})
    assert again.status_code == 200
    assert again.json() == first
    assert balance(client, player) == before - Decimal("200.00")
    # the same key for another request: refused
    r = client.post(
        "/api/tournaments/cup/register", headers={**player, **key}, json={"name": "Someone"}
    )
    assert r.status_code == 409
    assert r.json()["error"]["type"] == "IdempotencyKeyError"
    # registering again (a new key): already registered, nothing paid
    r = client.post("/api/tournaments/cup/register", headers={**player, "Idempotency-Key": "reg-2"})
    assert r.status_code == 422
    assert "already registered" in r.json()["error"]["message"]
    assert balance(client, player) == before - Decimal("200.00")
    history = ledger_of(client).history(f"player:{PLAYER[0]}")
    assert [p.kind for p in history].count(PostingKind.ENTRY_FEE) == 1
    # the wallet page shows the fee
    wallet = client.get("/api/wallet", headers=player).json()
    assert wallet["postings"][0] == {
        **wallet["postings"][0],
        "kind": "entry_fee",
        "amount": "-200.00",
    }
    clean(client)


def test_refused_registrations_write_nothing(client: TestClient) -> None:
    create(client, "cup", "daily")
    poor = new_player(client, "poor", "150.00")
    broke = new_player(client, "broke", None)
    before = counts(client, "cup")
    r = client.post("/api/tournaments/cup/register", headers={**poor, "Idempotency-Key": "p1"})
    assert r.status_code == 402, r.text
    error = r.json()["error"]
    assert error["type"] == "InsufficientFundsError"
    assert "200.00" in error["message"]
    assert "150.00" in error["message"]
    assert error["clause"].startswith("T2.1")
    assert error["hint"]
    r = client.post("/api/tournaments/cup/register", headers=broke)
    assert r.status_code == 402, r.text
    assert counts(client, "cup") == before
    assert balance(client, poor) == Decimal("150.00")
    snapshot = client.get("/api/tournaments/cup").json()
    assert snapshot["entrants"] == []
    # the key of a refused request is free for the retry once the money is there
    client.post(
        "/api/cage/deposit",
        headers=login(client, PIT),
        json={"username": "poor", "amount": "50.00", "key": "top-up"},
    )
    r = client.post("/api/tournaments/cup/register", headers={**poor, "Idempotency-Key": "p1"})
    assert r.status_code == 200, r.text
    assert r.json()["balance"] == "0.00"

    # the wrong role: staff do not pay, re-enter or bet for themselves
    dealer = login(client, DEALER)
    assert client.post("/api/tournaments/cup/reenter", headers=dealer).status_code == 403
    # staff-registered entrants pay nothing
    pit = login(client, PIT)
    postings = counts(client, "cup")[1]
    for i in range(6):
        r = client.post(
            "/api/tournaments/cup/register",
            headers=pit,
            json={"name": f"Bot {i}", "strategy": "flat"},
        )
        assert r.status_code == 200, r.text
    assert counts(client, "cup")[1] == postings

    # registration closed: the championship takes no late entries
    create(client, "champ", "championship")
    for i in range(16):
        client.post(
            "/api/tournaments/champ/register",
            headers=pit,
            json={"name": f"B{i}", "strategy": "banker"},
        )
    assert client.post("/api/tournaments/champ/start", headers=pit).status_code == 200
    player = login(client, PLAYER)
    money_before = balance(client, player)
    before = counts(client, "champ")
    r = client.post("/api/tournaments/champ/register", headers={**player, "Idempotency-Key": "c1"})
    assert r.status_code == 422
    assert r.json()["error"]["type"] == "RegistrationError"
    assert "closed" in r.json()["error"]["message"]
    assert counts(client, "champ") == before
    assert balance(client, player) == money_before
    clean(client)


def players(client: TestClient, n: int) -> list[tuple[str, dict[str, str]]]:
    return [(f"p{i}", new_player(client, f"p{i}", "1000.00")) for i in range(n)]


def run_to_end(client: TestClient, tid: str) -> None:
    pit = login(client, PIT)
    assert client.post(f"/api/tournaments/{tid}/start", headers=pit).status_code == 200
    for _ in range(100):
        r = client.post(f"/api/tournaments/{tid}/advance", headers=pit, json={"steps": 500})
        assert r.status_code == 200, r.text
        if r.json()["finished"]:
            return
    raise AssertionError("the tournament did not finish")


def test_prizes_are_paid_to_the_winners_wallets_with_exact_money(client: TestClient) -> None:
    create(client, "turbo", "turbo", seed=5, tables=1)
    people = players(client, 4)
    ledger = ledger_of(client)
    house = ledger.balance("house")
    for _name, headers in people:
        r = client.post("/api/tournaments/turbo/register", headers=headers)
        assert r.status_code == 200, r.text
        assert r.json()["balance"] == "950.00"
    run_to_end(client, "turbo")
    results = client.get("/api/tournaments/turbo/results").json()
    assert results["entry_fees"] == "200.00"
    prizes = {row["entrant"]: Decimal(row["prize"]) for row in results["results"]}
    # 500 + 250 + 100, places shared split rounded down to the cent (T7.4)
    total = sum(prizes.values())
    assert Decimal("849.97") <= total <= Decimal("850.00")
    for name, headers in people:
        row = next(x for x in results["results"] if x["entrant"] == name)
        if prizes[name]:
            assert row["payment"] == "paid"
            assert Decimal(row["paid"]) == prizes[name]
        assert (
            balance(client, headers)
            == Decimal("1000.00") - Decimal("50.00") * row["entries"] + prizes[name]
        )
    fees = sum(Decimal("50.00") * row["entries"] for row in results["results"])
    # the fees did not cover the prizes: the house paid the rest, the pool is empty
    assert ledger.balance("tournament:turbo") == 0
    assert Decimal(ledger.balance("house") - house) * CENT == fees - total
    clean(client)


def test_what_the_prizes_leave_of_the_fees_goes_to_the_house(client: TestClient) -> None:
    create(client, "cup", "turbo", seed=1, tables=1)
    pit = login(client, PIT)
    people = players(client, 1)
    for _name, headers in people:
        assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
    for i in range(5):
        client.post(
            "/api/tournaments/cup/register",
            headers=pit,
            json={"name": f"B{i}", "strategy": "banker"},
        )
    house = ledger_of(client).balance("house")
    run_to_end(client, "cup")
    results = client.get("/api/tournaments/cup/results").json()
    won = Decimal(next(x["prize"] for x in results["results"] if x["entrant"] == "p0"))
    bots = [x for x in results["results"] if x["controller"].startswith("bot:")]
    assert all(x["payment"] in (None, "off_ledger") for x in bots)
    fees = Decimal(results["entry_fees"])
    assert fees == Decimal("50.00")
    ledger = ledger_of(client)
    assert ledger.balance("tournament:cup") == 0
    assert Decimal(ledger.balance("house") - house) * CENT == fees - won
    assert won == 0  # with this seed the only person is not among the prizes
    surplus = ledger.posting("tournament:cup:surplus")
    assert surplus is not None
    assert Decimal(surplus.amount_for("house")) * CENT == fees - won
    clean(client)


def test_a_restart_in_the_middle_of_the_payout_pays_each_prize_once(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Ledger.pay_prize
    paid: list[str] = []

    def crash_after_one(self: Ledger, *args: Any, **kwargs: Any) -> Any:
        if paid:
            raise RuntimeError("the server dies in the middle of the payout")
        posting = real(self, *args, **kwargs)
        paid.append(posting.key)
        return posting

    with TestClient(make_app(db_url)) as client:
        create(client, "cup", "turbo", seed=9, tables=1)
        people = players(client, 4)
        for _name, headers in people:
            assert client.post("/api/tournaments/cup/register", headers=headers).status_code == 200
        monkeypatch.setattr(Ledger, "pay_prize", crash_after_one)
        run_to_end(client, "cup")
        results = client.get("/api/tournaments/cup/results").json()["results"]
        payments = [x["payment"] for x in results if x["payment"]]
        assert len(payments) >= 3  # places 1-3 (shared places split them)
        assert payments.count("paid") == 1
        assert payments.count("due") == len(payments) - 1
        monkeypatch.setattr(Ledger, "pay_prize", real)

    with TestClient(make_app(db_url)) as client:  # the start finishes the payout
        results = client.get("/api/tournaments/cup/results").json()["results"]
        ledger = ledger_of(client)
        for row in results:
            prize = Decimal(row["prize"])
            headers = login(client, (row["entrant"], f"{row['entrant']}-password"))
            assert (
                balance(client, headers)
                == Decimal("1000.00") - Decimal("50.00") * row["entries"] + prize
            )
            if prize:
                assert row["payment"] == "paid"
                kinds = [p.kind for p in ledger.history(f"player:{row['entrant']}")]
                assert kinds.count(PostingKind.PRIZE) == 1
                assert ledger.posting(prize_key("cup", row["entrant"])) is not None
        assert ledger.balance("tournament:cup") == 0
        clean(client)
