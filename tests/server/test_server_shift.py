"""The casino's shift on the server: opened and closed by a pit manager, the
same for every pit session and every server process, in the audit log; its
report per table and in total, summing exactly to the tables' own figures."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from punto.protection.edges import edge_of
from tests import db_fixtures
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    deal_cards,
    error_of,
    free_port,
    healthy,
    login,
    make_app,
    new_table,
    physical_shoe,
    serve_process,
    wait_for,
)

#: A second pit manager and a pit supervisor (made by the admin).
PIT2 = ("pit2", "pit2-password")
SUPERVISOR = ("super", "super-password")
#: Banker 6 beats Player 5; Banker's natural 9 beats Player 7.
BANKER_SIX = "QH 2C 2D KS 3H 4D"
BANKER_NINE = "8S 6H 9D 3S"


def staff(client: TestClient, who: tuple[str, str], role: str) -> dict[str, str]:
    made = client.post(
        "/api/users",
        headers=login(client, ADMIN),
        json={"username": who[0], "password": who[1], "role": role},
    )
    assert made.status_code in (201, 409), made.text
    return login(client, who)


Bets = list[tuple[tuple[str, str], str, str]]


def play(client: TestClient, table: str, cards: str, bets: Bets) -> None:
    """One round at ``table``: ``bets`` (who, wager, stake), the dealer keys ``cards``."""
    dealer = login(client, DEALER)
    opened = client.post(f"/api/tables/{table}/round/open", headers=dealer)
    assert opened.status_code == 200, opened.text
    for who, wager, stake in bets:
        bet = client.post(
            f"/api/tables/{table}/bets",
            headers=login(client, who),
            json={"wager": wager, "stake": stake},
        )
        assert bet.status_code == 201, bet.text
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    deal_cards(client, dealer, table, cards)
    settled = client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text


def pit_figures(client: TestClient) -> dict[str, dict[str, Decimal]]:
    """Each table's own figures since it opened (the ledger's handle and win,
    the commission of its rounds), as the pit's table list gives them."""
    tables = client.get("/api/pit", headers=login(client, PIT)).json()
    return {
        t["id"]: {k: Decimal(t["figures"][k]) for k in ("handle", "win", "commission")}
        for t in tables
        if "figures" in t
    }


def theoretical(game: str, layout: str | None, bets: Bets) -> Fraction:
    """Σ stake × the wager's exact house edge off the top (8 decks)."""
    total = Fraction(0)
    for _, wager, stake in bets:
        found = edge_of(game, layout, 8, wager)
        assert found is not None, wager
        total += Fraction(stake) * found.edge
    return total


def by_table(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["table_id"]: t for t in report["tables"]}


def test_the_shift_report_sums_exactly_to_the_tables_figures(client: TestClient) -> None:
    tiger = new_table(client, id="tg", game="tiger-baccarat")
    for table in ("dragon", tiger):
        physical_shoe(client, table)
    # a round before the shift: not the shift's
    play(client, "dragon", BANKER_NINE, [(PLAYER, "banker", "300")])
    before = pit_figures(client)
    pit = login(client, PIT)
    opened = client.post("/api/pit/shift", headers=pit)
    assert opened.status_code == 201, opened.text
    shift = opened.json()["shift"]
    assert (shift["opened_by"], shift["opened_role"], shift["open"]) == ("pit", "pit_manager", True)
    assert by_table(opened.json()["report"])["dragon"]["rounds"] == 0

    dragon_rounds: list[tuple[str, Bets]] = [
        (BANKER_SIX, [(PLAYER, "banker", "100"), (PLAYER2, "player", "50"), (PLAYER, "tie", "10")]),
        (BANKER_NINE, [(PLAYER2, "banker", "200")]),
    ]
    tiger_rounds: list[tuple[str, Bets]] = [
        (BANKER_SIX, [(PLAYER, "banker", "100"), (PLAYER, "tiger", "20")]),
        (BANKER_NINE, [(PLAYER, "banker", "40"), (PLAYER, "player", "30")]),
        (BANKER_SIX, [(PLAYER, "player", "60"), (PLAYER, "big_tiger", "10")]),
    ]
    for table, rounds in (("dragon", dragon_rounds), (tiger, tiger_rounds)):
        for cards, bets in rounds:
            play(client, table, cards, bets)

    # a second pit manager's session, with nothing of the first's, sees it all
    seen = client.get("/api/pit/shift", headers=staff(client, PIT2, "pit_manager"))
    assert seen.status_code == 200, seen.text
    assert seen.json()["shift"] == shift
    report = seen.json()["report"]
    now = pit_figures(client)
    expected = {
        "dragon": ("dragon-tiger", dragon_rounds, {"demo", "demo2"}),
        tiger: ("tiger-baccarat", tiger_rounds, {"demo"}),
    }
    total = {k: Decimal(0) for k in ("handle", "win", "commission")}
    total_theoretical = Fraction(0)
    lines = by_table(report)
    for table, (game, rounds, players) in expected.items():
        line = lines[table]
        for k in total:
            assert Decimal(line[k]) == now[table][k] - before.get(table, {}).get(k, 0), (table, k)
            total[k] += Decimal(line[k])
        assert line["rounds"] == len(rounds)
        assert line["players"] == len(players)
        exact = sum((theoretical(game, None, bets) for _, bets in rounds), Fraction(0))
        assert Fraction(line["theoretical_win_exact"]) == exact
        assert line["hold"] == f"{Decimal(line['win']) / Decimal(line['handle']) * 100:.2f}"
        total_theoretical += exact
    # by hand: Dragon's Banker 100 won on 6 (95: commission 5) and Banker 200 on 9 (190: 10)
    assert lines["dragon"]["commission"] == "15.00"
    assert lines["dragon"]["handle"] == "360.00"
    assert {t for t, line in lines.items() if line["rounds"]} == set(expected)
    assert report["total"]["handle"] == f"{total['handle']:.2f}"
    assert report["total"]["win"] == f"{total['win']:.2f}"
    assert report["total"]["commission"] == f"{total['commission']:.2f}"
    assert report["total"]["rounds"] == len(dragon_rounds) + len(tiger_rounds)
    assert report["total"]["players"] == 2  # demo played at both tables: counted once
    assert Fraction(report["total"]["theoretical_win_exact"]) == total_theoretical

    # closed by the second pit manager: the report is kept as it stood
    closed = client.post(f"/api/pit/shift/{shift['id']}/close", headers=login(client, PIT2))
    assert closed.status_code == 200, closed.text
    assert closed.json()["report"] == report
    assert (closed.json()["shift"]["closed_by"], closed.json()["shift"]["open"]) == ("pit2", False)
    play(client, "dragon", BANKER_SIX, [(PLAYER, "banker", "500")])  # after the shift
    listed = client.get("/api/pit/shifts", headers=pit).json()
    assert [s["shift"]["id"] for s in listed] == [shift["id"]]
    assert listed[0]["report"] == report
    assert client.get("/api/pit/shift", headers=pit).json() == {"shift": None, "report": None}
    audit = client.get("/api/pit/audit", headers=pit).json()
    assert [(a["action"], a["username"]) for a in audit if a["action"].startswith("shift")] == [
        ("shift_close", "pit2"),
        ("shift_open", "pit"),
    ]
    # the next shift counts from its own opening
    again = client.post("/api/pit/shift", headers=pit).json()
    assert again["report"]["total"]["rounds"] == 0


def test_who_may_open_close_and_see_the_shift(client: TestClient) -> None:
    supervisor = staff(client, SUPERVISOR, "pit_supervisor")
    admin, player = login(client, ADMIN), login(client, PLAYER)
    for headers, what in ((supervisor, "a pit supervisor"), (admin, "an admin")):
        refused = client.post("/api/pit/shift", headers=headers)
        assert refused.status_code == 403, refused.text
        assert error_of(refused)["message"] == f"{what} may not open a shift"
    refused = client.get("/api/pit/shift", headers=player)
    assert refused.status_code == 403
    shift = client.post("/api/pit/shift", headers=login(client, PIT)).json()["shift"]
    assert client.get("/api/pit/shift", headers=supervisor).json()["shift"] == shift
    assert client.get("/api/pit/shift", headers=admin).json()["shift"] == shift
    twice = client.post("/api/pit/shift", headers=login(client, PIT))
    assert twice.status_code == 409
    assert error_of(twice)["message"] == (
        f"a shift is open already: shift {shift['id']}, opened by pit"
    )
    refused = client.post(f"/api/pit/shift/{shift['id']}/close", headers=supervisor)
    assert refused.status_code == 403
    assert error_of(refused)["hint"] == "it takes a pit manager or higher"
    closed = client.post(f"/api/pit/shift/{shift['id']}/close", headers=login(client, PIT))
    assert closed.status_code == 200
    again = client.post(f"/api/pit/shift/{shift['id']}/close", headers=login(client, PIT))
    assert again.status_code == 409
    assert error_of(again)["message"] == f"shift {shift['id']} is closed already, by pit"
    assert client.post("/api/pit/shift/99/close", headers=login(client, PIT)).status_code == 409


def test_the_shift_endpoints_are_documented(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    schema = paths["/api/pit/shift"]["get"]["responses"]["200"]["content"]["application/json"]
    assert schema["schema"]["$ref"].endswith("/ShiftOut")
    assert "201" in paths["/api/pit/shift"]["post"]["responses"]
    assert "200" in paths["/api/pit/shift/{shift_id}/close"]["post"]["responses"]
    assert "/api/pit/shifts" in paths


@pytest.fixture
def postgres_url(tmp_path: Path) -> Iterator[str]:
    with db_fixtures.fresh_database("postgresql", tmp_path) as url:
        yield url


@pytest.mark.postgres
@pytest.mark.slow
def test_a_second_server_process_sees_and_closes_the_same_shift(postgres_url: str) -> None:
    with TestClient(make_app(postgres_url)) as client:
        shift = client.post("/api/pit/shift", headers=login(client, PIT)).json()["shift"]
        port = free_port()
        other = serve_process(postgres_url, port)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: healthy(base), timeout=60, step=0.2)
            with httpx2.Client(base_url=base, timeout=30) as second:
                pit = login(second, PIT)
                seen = second.get("/api/pit/shift", headers=pit)
                assert seen.status_code == 200, seen.text
                assert seen.json()["shift"] == shift
                closed = second.post(f"/api/pit/shift/{shift['id']}/close", headers=pit)
                assert closed.status_code == 200, closed.text
            after = client.get("/api/pit/shift", headers=login(client, PIT)).json()
            assert after == {"shift": None, "report": None}
            listed = client.get("/api/pit/shifts", headers=login(client, PIT)).json()
            assert [s["shift"]["closed_by"] for s in listed] == ["pit"]
        finally:
            other.send_signal(signal.SIGTERM)
            other.wait(30)
