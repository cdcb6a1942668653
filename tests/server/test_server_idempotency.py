"""One idempotency store for every state-changing request:
each route replayed with the same ``Idempotency-Key`` answers as it did the
first time and acts no second time (the events and the money counted
exactly); the same key for another request is refused (409); a key is the
account's own.  On SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select, text, update
from sqlalchemy.engine import Engine

from punto.server.routes.idempotency import REPLAYED
from punto.store import db
from punto.store.accounts import Accounts, UserRole
from punto.store.db import ledger_transactions, server_audit, server_requests, table_events
from punto.store.requests import Answer, full_key, hash_request, stored_request
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    FAST,
    PIT,
    PLAYER,
    PLAYER2,
    balance,
    check_books,
    error_of,
    login,
    make_app,
    new_table,
    server_of,
    shift_manager,
)


def events(client: TestClient, table: str) -> int:
    with server_of(client).engine.connect() as conn:
        count = conn.execute(
            select(func.count()).select_from(table_events).where(table_events.c.table_id == table)
        ).scalar_one()
    return int(count)


def postings(client: TestClient) -> int:
    with server_of(client).engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(ledger_transactions)).scalar_one())


def twice(
    client: TestClient, path: str, headers: dict[str, str], key: str, json: Any = None
) -> dict[str, Any]:
    """POST ``path`` with ``key``, then again as a retry: the same answer, said
    to be one given again; the first answer."""
    keyed = {**headers, "Idempotency-Key": key}
    first = client.post(path, headers=keyed, json=json)
    assert first.status_code in (200, 201), first.text
    seen = events(client, path.split("/")[3]) if path.startswith("/api/tables/") else None
    again = client.post(path, headers=keyed, json=json)
    assert again.status_code == first.status_code, again.text
    assert again.json() == first.json()
    assert again.headers.get(REPLAYED) == "true" or seen is not None
    if seen is not None:
        assert events(client, path.split("/")[3]) == seen  # nothing written again
    body: dict[str, Any] = first.json()
    return body


def refused_409(response: Any) -> None:
    assert response.status_code == 409, response.text
    error = error_of(response)
    assert error["type"] == "IdempotencyKeyError"
    assert "different request" in error["message"]
    assert error["hint"]


def test_a_dealers_round_retried_key_by_key_is_dealt_and_settled_once(client: TestClient) -> None:
    table = new_table(client, id="idem-1", game="tiger-baccarat")
    dealer = login(client, DEALER)
    player = login(client, PLAYER)
    before = Decimal(balance(client, player))
    api = f"/api/tables/{table}"
    opened = twice(client, f"{api}/round/open", dealer, "open-1")
    bet = client.post(f"{api}/bets", headers=player, json={"wager": "banker", "stake": "100"})
    assert bet.status_code == 201, bet.text
    twice(client, f"{api}/round/close", dealer, "close-1")
    indexes = []
    for n in range(7):  # a card per key: a retry draws none
        dealt = twice(client, f"{api}/round/deal", dealer, f"deal-{n}")
        indexes.append(dealt["index"])
        if dealt["complete"]:
            break
    assert indexes == list(range(len(indexes)))  # each key its own card, in order
    assert 4 <= len(indexes) <= 6
    settled = twice(client, f"{api}/round/settle", dealer, "settle-1")
    assert settled["round_id"] == opened["round_id"]
    assert settled["settled"]
    with server_of(client).engine.connect() as conn:
        kinds = conn.execute(
            select(ledger_transactions.c.kind).where(
                ledger_transactions.c.table_id == table,
                ledger_transactions.c.bet_id == bet.json()["bet"]["bet_id"],
            )
        ).scalars()
        assert sorted(kinds) == ["bet", "settlement"]  # the stake taken and settled, each once
    wallet = client.get("/api/wallet", headers=player).json()["postings"]
    paid = sum(Decimal(p["amount"]) for p in wallet if p["round_id"] == opened["round_id"])
    assert Decimal(balance(client, player)) == before + paid
    check_books(client)


def test_the_same_key_for_another_dealer_action_is_refused(client: TestClient) -> None:
    table = new_table(client, id="idem-2", game="tiger-baccarat")
    dealer = login(client, DEALER)
    api = f"/api/tables/{table}"
    keyed = {**dealer, "Idempotency-Key": "k-1"}
    assert client.post(f"{api}/round/open", headers=keyed).status_code == 200
    written = events(client, table)
    refused_409(client.post(f"{api}/round/close", headers=keyed))
    assert events(client, table) == written
    assert client.get(api, headers=dealer).json()["round"]["phase"] == "betting"


def test_a_withdrawn_bet_retried_with_its_key_is_returned_once(client: TestClient) -> None:
    table = new_table(client, id="idem-3", game="tiger-baccarat")
    dealer = login(client, DEALER)
    player = login(client, PLAYER)
    api = f"/api/tables/{table}"
    assert client.post(f"{api}/round/open", headers=dealer).status_code == 200
    before = balance(client, player)
    keyed = {**player, "Idempotency-Key": "bet-1"}
    bet = client.post(f"{api}/bets", headers=keyed, json={"wager": "banker", "stake": "100"})
    assert bet.status_code == 201, bet.text
    bet_id = bet.json()["bet"]["bet_id"]
    assert Decimal(balance(client, player)) == Decimal(before) - 100
    # the bet's key for the withdrawal: another request
    refused_409(client.delete(f"{api}/bets/{bet_id}", headers=keyed))
    withdrawn = {**player, "Idempotency-Key": "take-back-1"}
    first = client.delete(f"{api}/bets/{bet_id}", headers=withdrawn)
    assert first.status_code == 200, first.text
    written, posted = events(client, table), postings(client)
    again = client.delete(f"{api}/bets/{bet_id}", headers=withdrawn)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    assert (events(client, table), postings(client)) == (written, posted)
    assert balance(client, player) == before
    check_books(client)


def test_a_void_retried_with_its_key_returns_the_stakes_once(client: TestClient) -> None:
    table = new_table(client, id="idem-4", game="tiger-baccarat")
    dealer = login(client, DEALER)
    player = login(client, PLAYER)
    api = f"/api/tables/{table}"
    assert client.post(f"{api}/round/open", headers=dealer).status_code == 200
    before = balance(client, player)
    bet = client.post(f"{api}/bets", headers=player, json={"wager": "player", "stake": "250"})
    assert bet.status_code == 201, bet.text
    shift = shift_manager(client)
    written = events(client, table)
    voided = twice(client, f"{api}/round/void", shift, "void-1", {"reason": "a card fell"})
    assert voided["ruling"]["consequence"]
    assert events(client, table) > written
    assert balance(client, player) == before
    # the same key, another reason: another request
    refused_409(
        client.post(
            f"{api}/round/void",
            headers={**shift, "Idempotency-Key": "void-1"},
            json={"reason": "something else"},
        )
    )
    check_books(client)


def test_a_cage_deposit_retried_with_its_key_credits_once(client: TestClient) -> None:
    pit = login(client, PIT)
    player = login(client, PLAYER)
    before = Decimal(balance(client, player))
    posted = postings(client)
    body = {"username": PLAYER[0], "amount": "500.00", "key": "receipt-77"}
    first = twice(client, "/api/cage/deposit", pit, "cage-1", body)
    assert Decimal(first["balance"]) == before + 500
    assert Decimal(balance(client, player)) == before + 500
    assert postings(client) == posted + 1
    # the same key for another amount (a new receipt): refused, nothing credited
    refused_409(
        client.post(
            "/api/cage/deposit",
            headers={**pit, "Idempotency-Key": "cage-1"},
            json={**body, "amount": "600.00", "key": "receipt-78"},
        )
    )
    assert Decimal(balance(client, player)) == before + 500
    assert postings(client) == posted + 1
    check_books(client)


def test_a_key_is_the_accounts_own(client: TestClient) -> None:
    pit = login(client, PIT)
    admin = login(client, ADMIN)
    one = {"username": PLAYER[0], "amount": "10", "key": "receipt-a"}
    two = {"username": PLAYER2[0], "amount": "20", "key": "receipt-b"}
    key = {"Idempotency-Key": "shared"}
    assert client.post("/api/cage/deposit", headers={**pit, **key}, json=one).status_code == 201
    second = client.post("/api/cage/deposit", headers={**admin, **key}, json=two)
    assert second.status_code == 201, second.text
    assert REPLAYED not in second.headers
    with server_of(client).engine.connect() as conn:
        keys = conn.execute(
            select(server_requests.c.key).where(server_requests.c.key.like("%:shared"))
        ).scalars()
        assert len(set(keys)) == 2


def test_an_admins_change_retried_with_its_key_acts_once(client: TestClient) -> None:
    admin = login(client, ADMIN)
    login(client, PLAYER)
    login(client, PLAYER)
    path = f"/api/admin/accounts/{PLAYER[0]}/revoke"
    keyed = {**admin, "Idempotency-Key": "revoke-1"}
    first = client.post(path, headers=keyed)
    assert first.status_code == 200, first.text
    assert first.json()["sessions_ended"] >= 2
    player = login(client, PLAYER)  # a session begun after the change
    again = client.post(path, headers=keyed)
    assert again.status_code == 200
    assert again.headers[REPLAYED] == "true"
    assert again.json() == first.json()
    assert client.get("/api/me", headers=player).status_code == 200  # not ended by the retry
    # the key for another change: refused, and the account stays enabled
    refused_409(client.post(f"/api/admin/accounts/{PLAYER[0]}/disable", headers=keyed))
    assert client.get("/api/me", headers=player).status_code == 200


def test_a_request_without_a_key_still_acts(client: TestClient) -> None:
    table = new_table(client, id="idem-5", game="tiger-baccarat")
    dealer = login(client, DEALER)
    api = f"/api/tables/{table}"
    opened = client.post(f"{api}/round/open", headers=dealer)
    assert opened.status_code == 200, opened.text
    closed = client.post(f"{api}/round/close", headers=dealer)
    assert closed.status_code == 200, closed.text
    assert closed.json()["round_id"] == opened.json()["round_id"]


def audited(client: TestClient, action: str) -> int:
    with server_of(client).engine.connect() as conn:
        count = conn.execute(
            select(func.count()).select_from(server_audit).where(server_audit.c.action == action)
        ).scalar_one()
    return int(count)


def test_a_pit_table_change_retried_with_its_key_is_made_once(client: TestClient) -> None:
    pit = login(client, PIT)
    new = {
        "id": "idem-pit",
        "game": "tiger-baccarat",
        "mode": "dealer",
        "limits": {"minimum": "10", "maximum": "1000"},
        # Tiger Pair favours the player under the literal 1.1.14 (docs/protection.md)
        "confirm_player_favoured": ["tiger_pair"],
    }
    made = twice(client, "/api/tables", pit, "make-1", new)
    assert made["id"] == "idem-pit"
    assert audited(client, "create_table") == 1
    keyed = {**pit, "Idempotency-Key": "limits-1"}
    change = {"limits": {"minimum": "25", "maximum": "1000"}}
    first = client.patch("/api/tables/idem-pit", headers=keyed, json=change)
    assert first.status_code == 200, first.text
    again = client.patch("/api/tables/idem-pit", headers=keyed, json=change)
    assert again.status_code == 200
    assert again.headers[REPLAYED] == "true"
    assert again.json() == first.json()
    assert audited(client, "update_table") == 1  # changed once
    refused_409(
        client.patch(
            "/api/tables/idem-pit",
            headers=keyed,
            json={"limits": {"minimum": "50", "maximum": "1000"}},
        )
    )
    shown = client.get("/api/tables/idem-pit", headers=pit).json()
    assert shown["table"]["limits"]["minimum"] == "25.00"


def test_a_tournament_answer_from_before_0015_answers_its_retry_after_it(
    engine: Engine,
) -> None:
    with db.write_transaction(engine) as conn:
        command.downgrade(db.alembic_config(conn), "0012")
    kim = Accounts(engine, hasher=FAST).create_user("kim", "kim-password-9", UserRole.PLAYER)
    with db.write_transaction(engine) as conn:
        conn.execute(
            text(
                "INSERT INTO tournament_requests (account_id, key, tournament_id, request_hash, "
                "status_code, response, created_at) VALUES (:a, 'reg-1', 'cup', :h, 200, "
                '\'{"entrant": "kim"}\', :t)'
            ),
            {
                "a": kim.id,
                "h": hash_request({"op": "register", "tournament": "cup"}),
                "t": db.utc_now(),
            },
        )
    db.upgrade(engine)
    assert "tournament_requests" not in inspect(engine).get_table_names()
    with engine.connect() as conn:
        found = stored_request(conn, full_key(kim.id, "reg-1"))
    assert found is not None
    assert (found.table_id, found.round_id, found.bet_id) == ("", "cup", "tournament")
    assert found.answer == Answer(200, {"entrant": "kim"})
    assert found.request_hash == hash_request({"op": "register", "tournament": "cup"})


def test_one_key_space_for_tournaments_tables_and_the_cage(client: TestClient) -> None:
    pit = login(client, PIT)
    made = client.post("/api/tournaments", headers=pit, json={"id": "cup", "format": "daily"})
    assert made.status_code == 200, made.text
    player = login(client, PLAYER)
    keyed = {**player, "Idempotency-Key": "mine-1"}
    registered = client.post("/api/tournaments/cup/register", headers=keyed)
    assert registered.status_code == 200, registered.text
    table = new_table(client, id="idem-one", game="tiger-baccarat")
    assert client.post(f"/api/tables/{table}/round/open", headers=login(client, DEALER)).is_success
    before = balance(client, player)
    # the tournament entry's key for a bet: another request, nothing staked
    refused_409(
        client.post(
            f"/api/tables/{table}/bets", headers=keyed, json={"wager": "banker", "stake": "10"}
        )
    )
    assert balance(client, player) == before
    state = client.get(f"/api/tables/{table}", headers=player).json()
    assert state["me"]["bets"] == []


def test_a_dealer_action_whose_answer_died_with_its_process_is_answered_from_the_table(
    db_url: str,
) -> None:
    # The action and its key commit together; the answer follows.  A process
    # that dies in between leaves the key without its answer: the next one
    # answers the retry from the table, and does nothing again.
    with TestClient(make_app(db_url)) as first:
        table = new_table(first, id="idem-crash", game="tiger-baccarat")
        dealer = login(first, DEALER)
        keyed = {**dealer, "Idempotency-Key": "open-crash"}
        opened = first.post(f"/api/tables/{table}/round/open", headers=keyed)
        assert opened.status_code == 200, opened.text
        written = events(first, table)
        server_of(first).journal.barrier()  # the answer is written ...
        with server_of(first).engine.begin() as conn:  # ... and lost, as with a SIGKILL
            conn.execute(
                update(server_requests)
                .where(server_requests.c.key.like("%:open-crash"))
                .values(status_code=None, response=None)
            )
    with TestClient(make_app(db_url)) as second:
        dealer = login(second, DEALER)
        keyed = {**dealer, "Idempotency-Key": "open-crash"}
        again = second.post(f"/api/tables/{table}/round/open", headers=keyed)
        assert again.status_code == 200, again.text
        body = again.json()
        assert body["round_id"] == opened.json()["round_id"]
        assert body["replayed"] is True
        assert body["phase"] == "betting"
        assert events(second, table) == written  # not opened again
        # and it is kept now: the same answer once more
        assert second.post(f"/api/tables/{table}/round/open", headers=keyed).json() == body
