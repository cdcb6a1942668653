"""The table server's HTTP API, on SQLite files and PostgreSQL: a round from
bet to payment, roles, idempotency, races for the last chips, hostile input,
the card-reading shoe and Insurance Plus."""

from __future__ import annotations

import gc
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from punto.server.app import SWITCH_INTERVAL, YOUNG_THRESHOLD
from punto.store.db import connect
from tests.db_fixtures import POSTGRESQL
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    SHIFT,
    balance,
    check_books,
    deal_cards,
    error_of,
    login,
    make_app,
    new_table,
    physical_shoe,
    shift_manager,
)

# -- the service --------------------------------------------------------------------------


def test_the_interpreter_is_tuned_while_the_server_runs_and_given_back_after(
    tmp_path: Path,
) -> None:
    """The young collections are rarer, what has lived a while is frozen, and
    the thread switch interval is short -- only while the server runs."""
    before = (gc.get_threshold(), sys.getswitchinterval())
    with TestClient(make_app(f"sqlite:///{tmp_path / 'punto.db'}")) as client:
        assert client.get("/api/health").status_code == 200
        assert gc.get_threshold()[0] >= YOUNG_THRESHOLD
        assert gc.get_threshold()[1:] == before[0][1:]
        assert sys.getswitchinterval() <= SWITCH_INTERVAL
        assert gc.get_freeze_count() > 0
    assert (gc.get_threshold(), sys.getswitchinterval()) == before
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("db_url", [POSTGRESQL], indirect=True)
def test_a_young_databases_tables_are_analysed_as_they_grow_while_the_server_runs(
    db_url: str,
) -> None:
    """On PostgreSQL the server makes the statistics of a table that has grown
    (punto.store.statistics), sooner than autovacuum: a table never analysed
    is planned as if nearly empty."""
    counted = text("SELECT reltuples FROM pg_class WHERE oid = 'ledger_transactions'::regclass")
    engine = connect(db_url, migrate=False)
    with TestClient(make_app(db_url)) as client:
        assert client.get("/api/health").status_code == 200
        with engine.begin() as conn:  # only the server may analyse it now
            conn.execute(text("ALTER TABLE ledger_transactions SET (autovacuum_enabled = false)"))
            conn.execute(
                text(
                    "INSERT INTO ledger_transactions (idempotency_key, request_hash, kind, "
                    "created_at) SELECT 'k' || g, 'h', 'deposit', now() "
                    "FROM generate_series(1, 2000) g"
                )
            )
        deadline = time.monotonic() + 60  # a turn every 5 s, on a busy machine
        while True:
            with engine.connect() as conn:
                if conn.scalar(counted) >= 2000:
                    break
            assert time.monotonic() < deadline, "the server never analysed the grown table"
            time.sleep(0.5)
    engine.dispose()


def test_health_openapi_and_pages(client: TestClient) -> None:
    health = client.get("/api/health").json()
    assert health["status"] == "ok"
    assert health["revision"] == "0020"
    assert health["tables"] == 3
    spec = client.get("/openapi.json").json()
    assert "/api/tables/{table_id}/bets" in spec["paths"]
    for page in ("/", "/play/tiger", "/dealer/dragon", "/scoreboard/tiger", "/pit"):
        response = client.get(page)
        assert response.status_code == 200, page
        assert 'data-testid="page"' in response.text, page
    assert client.get("/static/app.css").status_code == 200
    assert client.get("/api/session").json() == {"user": None}
    player = login(client, PLAYER)
    assert client.get("/api/session", headers=player).json()["user"]["balance"] == "10000.00"
    assert client.get("/static/../app.py").status_code == 404


# -- a round from bet to payment -------------------------------------------------------------


def test_player_bets_dealer_deals_player_sees_settlement(client: TestClient) -> None:
    physical_shoe(client, "dragon")  # the cards are keyed in
    player, dealer = login(client, PLAYER), login(client, DEALER)
    assert balance(client, player) == "10000.00"
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    first = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert first.status_code == 201, first.text
    assert first.json()["balance"] == "9900.00"
    tiger = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "big_tiger", "stake": 10}
    )
    assert tiger.status_code == 201
    assert tiger.json()["balance"] == "9890.00"
    state = client.get("/api/tables/dragon", headers=player).json()
    assert state["round"]["totals"] == {"banker": "100.00", "big_tiger": "10.00"}
    assert [b["wager"] for b in state["me"]["bets"]] == ["banker", "big_tiger"]
    assert client.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
    # Banker 6 with three cards against Player 5: Banker wins 0.95 to 1, Big Tiger 50 to 1.
    deal_cards(client, dealer, "dragon", "QH 2C 2D KS 3H 4D")
    settled = client.post("/api/tables/dragon/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text
    assert settled.json()["winner"] == "banker"
    me = client.get("/api/tables/dragon", headers=player).json()["me"]
    results = {r["wager"]: r for r in me["results"]}
    assert results["banker"]["outcome"] == "win"
    assert results["banker"]["net"] == "95.00"
    assert results["banker"]["payout"] == "195.00"
    assert results["big_tiger"]["net"] == "500.00"
    assert results["big_tiger"]["payout"] == "510.00"
    assert me["balance"] == balance(client, player) == "10595.00"
    check_books(client)
    pit = login(client, PIT)
    tables = {t["id"]: t for t in client.get("/api/pit", headers=pit).json()}
    figures = tables["dragon"]["figures"]
    assert figures == {
        "handle": "110.00",
        "win": "-595.00",
        "hold": "-540.91",
        "commission": "5.00",
        "in_play": "0.00",
    }
    audit = client.get("/api/pit/audit", headers=pit, params={"table_id": "dragon"}).json()
    assert [a["action"] for a in audit][:2] == ["settle", "key_card"]
    assert client.get("/api/pit/ledger", headers=pit).json()["trial_balance"] == "0.00"
    wallet = client.get("/api/wallet", headers=player).json()
    assert [p["kind"] for p in wallet["postings"]][:2] == ["settlement", "settlement"]
    board = client.get("/api/tables/dragon/scoreboard").json()
    assert board["stats"]["coups"] == 1
    assert board["results"][0]["winner"] == "banker"


def test_withdraw_before_no_more_bets_returns_the_stake(client: TestClient) -> None:
    player, player2, dealer = login(client, PLAYER), login(client, PLAYER2), login(client, DEALER)
    client.post("/api/tables/dragon/round/open", headers=dealer)
    bet = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "player", "stake": "50"}
    ).json()["bet"]
    stranger = client.delete(f"/api/tables/dragon/bets/{bet['bet_id']}", headers=player2)
    assert stranger.status_code == 404
    back = client.delete(f"/api/tables/dragon/bets/{bet['bet_id']}", headers=player)
    assert back.status_code == 200, back.text
    assert back.json()["balance"] == "10000.00"
    assert back.json()["bet"]["status"] == "withdrawn"
    again = client.post(
        "/api/tables/dragon/bets", headers=player, json={"wager": "player", "stake": "50"}
    ).json()["bet"]
    client.post("/api/tables/dragon/round/close", headers=dealer)
    late = client.delete(f"/api/tables/dragon/bets/{again['bet_id']}", headers=player)
    assert late.status_code == 409
    assert error_of(late)["clause"] == "5.5"
    check_books(client)


# -- people and roles ----------------------------------------------------------------------------


def test_each_action_only_for_its_role(client: TestClient) -> None:
    player, dealer, pit, admin = (login(client, who) for who in (PLAYER, DEALER, PIT, ADMIN))
    assert client.post("/api/tables/dragon/round/open").status_code == 401
    refused = client.post("/api/tables/dragon/round/open", headers=player)
    assert refused.status_code == 403
    assert error_of(refused)["clause"] == "6.2"
    assert client.post("/api/tables/dragon/round/open", headers=admin).status_code == 403
    assert client.post("/api/tables/dragon/round/open", headers=dealer).status_code == 200
    for who in (dealer, pit, admin):
        response = client.post(
            "/api/tables/dragon/bets", headers=who, json={"wager": "banker", "stake": "10"}
        )
        assert response.status_code == 403, response.text
    assert (
        client.post("/api/tables/dragon/bets", json={"wager": "banker", "stake": "10"}).status_code
        == 401
    )
    client.post("/api/tables/dragon/bets", headers=player, json={"wager": "banker", "stake": "10"})
    # A discretionary void is the Gaming Shift Manager's (6.1): while bets are
    # open (nothing decided for anyone) neither the dealer nor a pit manager
    # may; a confirmation is never a password in the body (422).
    void = {"reason": "a card fell on the floor"}
    alone = client.post("/api/tables/dragon/round/void", headers=dealer, json=void)
    assert alone.status_code == 403
    assert error_of(alone)["clause"] == "6.1"
    assert "shift manager" in error_of(alone)["hint"]
    for name, password in (("pit", "not the password"), ("dealer", DEALER[1]), ("pit", PIT[1])):
        with_password = {**void, "manager": {"username": name, "password": password}}
        refused = client.post("/api/tables/dragon/round/void", headers=dealer, json=with_password)
        assert refused.status_code == 422, refused.text
    refused = client.post("/api/tables/dragon/round/void", headers=pit, json=void)
    assert refused.status_code == 403
    assert error_of(refused)["clause"] == "6.1"
    shift_manager(client)
    voided = client.post("/api/tables/dragon/round/void", headers=login(client, SHIFT), json=void)
    assert voided.status_code == 200, voided.text
    assert voided.json()["void"]["clause"] == "6.1"
    assert balance(client, player) == "10000.00"
    audit = client.get("/api/pit/audit", headers=pit).json()
    assert audit[0]["action"] == "void"
    assert audit[0]["username"] == SHIFT[0]
    # The shift manager voids alone; only the pit sees the pit; only the admin makes users.
    client.post("/api/tables/dragon/round/open", headers=dealer)
    shift = login(client, SHIFT)
    assert client.post("/api/tables/dragon/round/void", headers=shift, json=void).status_code == 200
    assert client.get("/api/pit", headers=player).status_code == 403
    assert client.get("/api/pit", headers=dealer).status_code == 403
    new_user = {"username": "bob", "password": "bob-password", "role": "player"}
    assert client.post("/api/users", headers=pit, json=new_user).status_code == 403
    assert client.post("/api/users", headers=admin, json=new_user).status_code == 201
    # Logging out ends the session.
    assert client.post("/api/auth/logout", headers=player).status_code == 200
    assert client.get("/api/me", headers=player).status_code == 401
    check_books(client)


def test_login_cookie_and_lockout(client: TestClient) -> None:
    response = client.post("/api/auth/login", json={"username": "demo", "password": PLAYER[1]})
    assert response.status_code == 200
    assert "punto_session" in response.cookies
    assert client.get("/api/me").json()["username"] == "demo"  # the cookie
    client.cookies.clear()
    for _ in range(5):
        bad = client.post("/api/auth/login", json={"username": "demo2", "password": "wrong-one"})
    assert bad.status_code == 429
    assert error_of(bad)["until"]
    locked = client.post("/api/auth/login", json={"username": "demo2", "password": PLAYER2[1]})
    assert locked.status_code == 429


# -- idempotency and races ------------------------------------------------------------------------


def test_bets_are_idempotent(client: TestClient) -> None:
    player, dealer = login(client, PLAYER), login(client, DEALER)
    client.post("/api/tables/dragon/round/open", headers=dealer)
    bet = {"wager": "player", "stake": "25"}
    keyed = {**player, "Idempotency-Key": "bet-1"}
    first = client.post("/api/tables/dragon/bets", headers=keyed, json=bet)
    second = client.post("/api/tables/dragon/bets", headers=keyed, json=bet)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    in_body = client.post(
        "/api/tables/dragon/bets", headers=player, json={**bet, "idempotency_key": "bet-1"}
    )
    assert in_body.json() == first.json()
    other = client.post("/api/tables/dragon/bets", headers=keyed, json={**bet, "stake": "30"})
    assert other.status_code == 409
    assert "Idempotency-Key" in error_of(other)["message"]
    assert balance(client, player) == "9975.00"
    # The same key, many times at once: one bet.
    answers: list[Any] = []

    def send() -> None:
        answers.append(
            client.post(
                "/api/tables/dragon/bets",
                headers={**player, "Idempotency-Key": "bet-2"},
                json={"wager": "banker", "stake": "40"},
            )
        )

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {a.status_code for a in answers} == {201}
    assert len({a.json()["bet"]["bet_id"] for a in answers}) == 1
    state = client.get("/api/tables/dragon", headers=player).json()
    assert len(state["me"]["bets"]) == 2
    assert balance(client, player) == "9935.00"
    # Keys belong to their user: another player's same key is their own bet.
    player2 = login(client, PLAYER2)
    theirs = client.post(
        "/api/tables/dragon/bets", headers={**player2, "Idempotency-Key": "bet-1"}, json=bet
    )
    assert theirs.status_code == 201
    assert theirs.json()["bet"] != first.json()["bet"]
    check_books(client)


def test_race_for_the_last_chips(client: TestClient) -> None:
    admin, pit, dealer = login(client, ADMIN), login(client, PIT), login(client, DEALER)
    client.post(
        "/api/users",
        headers=admin,
        json={"username": "ann", "password": "ann-password", "role": "player"},
    )
    credit = {"username": "ann", "amount": "100", "key": "ann-1"}
    assert client.post("/api/cage/deposit", headers=pit, json=credit).json()["balance"] == "100.00"
    assert client.post("/api/cage/deposit", headers=pit, json=credit).json()["balance"] == "100.00"
    second = new_table(client, id="second", game="baccarat-tournament")
    for table in ("dragon", second):
        assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    ann = login(client, ("ann", "ann-password"))
    answers: list[Any] = []
    barrier = threading.Barrier(10)

    def bet(i: int) -> None:
        table = "dragon" if i % 2 else second
        barrier.wait()
        answers.append(
            client.post(
                f"/api/tables/{table}/bets",
                headers={**ann, "Idempotency-Key": f"race-{i}"},
                json={"wager": "player", "stake": "100"},
            )
        )

    threads = [threading.Thread(target=bet, args=(i,)) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] + [402] * 9, [a.text for a in answers]
    refused = next(a for a in answers if a.status_code == 402)
    assert error_of(refused)["type"] == "InsufficientFundsError"
    assert balance(client, ann) == "0.00"
    bets = sum(
        len(client.get(f"/api/tables/{t}", headers=ann).json()["me"]["bets"])
        for t in ("dragon", second)
    )
    assert bets == 1
    check_books(client)


# -- hostile input -----------------------------------------------------------------------------------


def test_hostile_input_gets_a_clear_4xx(client: TestClient) -> None:
    player, dealer = login(client, PLAYER), login(client, DEALER)
    client.post("/api/tables/dragon/round/open", headers=dealer)
    url = "/api/tables/dragon/bets"
    cases: list[tuple[Any, int, str | None]] = [
        ({"wager": "banker", "stake": "5"}, 422, "3.5.1"),  # under the minimum
        ({"wager": "banker", "stake": "2000"}, 422, "3.5.1"),  # over the maximum
        ({"wager": "banker", "stake": "-10"}, 422, None),
        ({"wager": "banker", "stake": "10.001"}, 422, None),
        ({"wager": "banker", "stake": "1e400"}, 422, None),
        ({"wager": "banker", "stake": "NaN"}, 422, None),
        ({"wager": "banker", "stake": True}, 422, None),
        ({"wager": "banker", "stake": [1]}, 422, None),
        ({"wager": "tiger_pair", "stake": "10"}, 422, None),  # not a Dragon Tiger wager
        ({"wager": "banker", "stake": "10", "position": 99}, 409, None),
        ({"wager": "banker"}, 422, None),
        ({"wager": "banker", "stake": "10", "extra": 1}, 422, None),
        ({"wager": "x" * 100, "stake": "10"}, 422, None),
        ([1, 2, 3], 422, None),
        ("banker", 422, None),
    ]
    for body, status, clause in cases:
        response = client.post(url, headers=player, json=body)
        assert response.status_code == status, (body, response.text)
        error = error_of(response)
        if clause:
            assert error["clause"] == clause, (body, error)
    raw = [
        (b"{not json", 422),
        (b"", 422),
        (b"\xff\xfe", 422),
        (b"{" * 5000, 422),
    ]
    for content, status in raw:
        response = client.post(
            url, headers={**player, "Content-Type": "application/json"}, content=content
        )
        assert response.status_code == status, (content[:20], response.text)
        error_of(response)
    huge = client.post(
        url,
        headers={**player, "Content-Type": "application/json"},
        content=b'{"wager": "' + b"a" * 100_000 + b'"}',
    )
    assert huge.status_code == 413
    assert error_of(huge)["type"] == "RequestTooLarge"
    too_long_key = client.post(
        url, headers={**player, "Idempotency-Key": "k" * 300}, json={"wager": "banker", "stake": 10}
    )
    assert too_long_key.status_code == 422
    assert client.get("/api/tables/nowhere").status_code == 404
    assert (
        client.post(
            "/api/tables/nowhere/bets", headers=player, json={"wager": "banker", "stake": 10}
        ).status_code
        == 404
    )
    bad_token = client.get("/api/me", headers={"Authorization": "Bearer " + "x" * 5000})
    assert bad_token.status_code == 401
    assert client.get("/api/games/punto-banco").status_code == 404
    # Engine refusals carry the engine's message and clause.
    client.post("/api/tables/dragon/round/close", headers=dealer)
    late = client.post(url, headers=player, json={"wager": "banker", "stake": "10"})
    assert late.status_code == 409
    error = error_of(late)
    assert error["clause"] == "5.4"
    assert "No more bets" in error["message"]
    bad_card = client.post("/api/tables/dragon/round/deal", headers=dealer, json={"card": "ZZ"})
    assert bad_card.status_code == 422
    assert "cannot read card" in error_of(bad_card)["message"]
    settle_early = client.post("/api/tables/dragon/round/settle", headers=dealer)
    assert settle_early.status_code == 409
    bad_table = login(client, PIT)
    for config, status in (
        ({"id": "Bad Id", "game": "dragon-tiger"}, 422),
        ({"id": "x1", "game": "punto-banco"}, 404),
        ({"id": "x2", "game": "tiger-buffalo"}, 422),  # which layout?
        ({"id": "x3", "game": "dragon-tiger", "decks": 3}, 422),
        ({"id": "x4", "game": "dragon-tiger", "betting_seconds": -1}, 422),
        ({"id": "x5", "game": "dragon-tiger", "limits": {"minimum": "100", "maximum": "10"}}, 422),
        ({"id": "x6", "game": "dragon-tiger", "colour": "red"}, 422),
        ({"id": "dragon", "game": "dragon-tiger"}, 422),  # taken
    ):
        response = client.post("/api/tables", headers=bad_table, json=config)
        assert response.status_code == status, (config, response.text)
        error_of(response)


# -- the card-reading shoe -------------------------------------------------------------------------------


def test_card_reading_shoe_posts_cards_the_engine_checks(client: TestClient) -> None:
    table = new_table(client, id="reader", game="tiger-baccarat", card_source="device")
    pit, dealer, player = login(client, PIT), login(client, DEALER), login(client, PLAYER)
    token = client.post(f"/api/tables/{table}/device-token", headers=pit).json()["token"]
    assert client.post(f"/api/tables/{table}/device-token", headers=dealer).status_code == 403
    device = {"X-Device-Token": token}
    url = f"/api/tables/{table}/device/card"
    client.post(f"/api/tables/{table}/round/open", headers=dealer)
    early = client.post(url, headers=device, json={"card": "9H"})
    assert early.status_code == 409
    assert error_of(early)["clause"] == "3.2"
    client.post(f"/api/tables/{table}/bets", headers=player, json={"wager": "player", "stake": 100})
    client.post(f"/api/tables/{table}/round/close", headers=dealer)
    assert client.post(url, json={"card": "9H"}).status_code == 401
    assert (
        client.post(url, headers={"X-Device-Token": "forged"}, json={"card": "9H"}).status_code
        == 401
    )
    assert client.post(url, headers=player, json={"card": "9H"}).status_code == 401
    draw = client.post(f"/api/tables/{table}/round/deal", headers=dealer)
    assert draw.status_code == 409
    assert "card-reading shoe" in error_of(draw)["message"]
    for card in ("9H", "2C", "KD"):
        assert client.post(url, headers=device, json={"card": card}).status_code == 200
    as_device = client.post(url, headers={"Authorization": f"Device {token}"}, json={"card": "3S"})
    assert as_device.json()["phase"] == "result"  # natural 9: the coup is complete
    extra = client.post(url, headers=device, json={"card": "5D"})
    assert extra.status_code == 409
    assert error_of(extra)["clause"] == "3.2"
    client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    assert balance(client, player) == "10100.00"
    events = client.get(f"/api/tables/{table}/rounds/r1", headers=dealer).json()["events"]
    assert {e["source"] for e in events if e["type"] == "card_dealt"} == {"device"}
    check_books(client)


# -- Insurance Plus --------------------------------------------------------------------------------------


def test_tiger_buffalo_insurance_plus_settles_on_the_ledger(client: TestClient) -> None:
    table = new_table(client, id="ins", game="tiger-buffalo", layout="A", card_source="device")
    dealer, player = login(client, DEALER), login(client, PLAYER)
    client.post(f"/api/tables/{table}/round/open", headers=dealer)
    bets = f"/api/tables/{table}/bets"
    assert (
        client.post(bets, headers=player, json={"wager": "player", "stake": 100}).status_code == 201
    )
    early = client.post(bets, headers=player, json={"wager": "player_insurance", "stake": 10})
    assert early.status_code == 422
    assert error_of(early)["clause"] == "3.12"  # Insurance comes after four cards
    client.post(f"/api/tables/{table}/round/close", headers=dealer)
    deal_cards(client, dealer, table, "3H 4C 2D KS")  # Player 5 v Banker 4
    state = client.get(f"/api/tables/{table}", headers=player).json()
    offers = state["round"]["insurance"]["offers"]
    assert [(o["wager"], o["odds"]) for o in offers] == [("player_insurance", "3 to 2")]
    assert state["me"]["insurance_caps"] == {"player_insurance": "100.00"}
    over = client.post(bets, headers=player, json={"wager": "player_insurance", "stake": 150})
    assert over.status_code == 422
    assert error_of(over)["clause"] == "3.11, 3.12.2"
    taken = client.post(bets, headers=player, json={"wager": "player_insurance", "stake": 50})
    assert taken.status_code == 201
    assert taken.json()["bet"]["moment"] == "four_cards"
    deal_cards(client, dealer, table, "3S 5D")  # Player 8, Banker draws to 9: Banker wins
    client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    me = client.get(f"/api/tables/{table}", headers=player).json()["me"]
    outcomes = {r["wager"]: (r["outcome"], r["payout"]) for r in me["results"]}
    assert outcomes == {"player": ("lose", "0.00"), "player_insurance": ("win", "125.00")}
    assert me["balance"] == "9975.00"
    check_books(client)


def test_table_set_up_and_changed_by_the_pit(client: TestClient) -> None:
    pit, player, dealer = login(client, PIT), login(client, PLAYER), login(client, DEALER)
    body = {"id": "t9", "game": "tiger-no-commission", "mode": "dealer"}
    assert client.post("/api/tables", headers=player, json=body).status_code == 403
    table = new_table(client, id="t9", game="tiger-no-commission")
    changed = client.patch(
        f"/api/tables/{table}",
        headers=pit,
        json={"limits": {"minimum": "25", "maximum": "500"}, "name": "High table"},
    )
    assert changed.status_code == 200
    assert changed.json()["limits"]["minimum"] == "25.00"
    client.post(f"/api/tables/{table}/round/open", headers=dealer)
    under = client.post(
        f"/api/tables/{table}/bets", headers=player, json={"wager": "banker", "stake": 20}
    )
    assert under.status_code == 422
    game = client.patch(f"/api/tables/{table}", headers=pit, json={"game": "dragon-tiger"})
    assert game.status_code == 422
    assert "cannot change" in error_of(game)["message"]
    listed = {t["id"]: t for t in client.get("/api/tables").json()}
    assert listed[table]["name"] == "High table"
    assert listed[table]["round"]["phase"] == "betting"
    off = client.patch(f"/api/tables/{table}", headers=pit, json={"active": False})
    assert off.status_code == 200
    assert client.get(f"/api/tables/{table}").status_code == 404


def test_serve_command_refuses_a_bad_port_or_database(capsys: pytest.CaptureFixture[str]) -> None:
    from punto.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "not a TCP port" in capsys.readouterr().err
    assert main(["serve", "--database", "mysql://somewhere/db"]) == 2
    captured = capsys.readouterr()
    assert "unsupported database URL" in captured.err
    assert captured.out == ""
