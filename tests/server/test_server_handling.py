"""Card handling through the table server (MBS Tiger Baccarat 3.9-3.12;
punto.server.routes.handling): the table's Method, who may choose it and when, the
Dealer passing the cards, refusals, the Pit Supervisor's choice, and the
dealing device by Method C.  Every refusal names its clause; every round
that is played checks each player's money exactly (card handling moves
none).  On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from punto.store import db
from punto.store.accounts import Accounts, UserRole
from punto.table.events import CardsPassed, DeviceLost, MethodChosen
from punto.table.roles import Role
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    FAST,
    PIT,
    PLAYER,
    PLAYER2,
    assistant_casino_manager,
    balance,
    login,
    make_app,
    method_c,
    new_table,
    server_of,
)

START = "10000.00"  # each demo player's wallet

#: A natural 9 for the Player hand against the Banker's 5: the Player wins.
PLAYER_WINS = ("9H", "2C", "KD", "3S")
#: A natural 9 for the Banker hand against the Player's 5: the Banker wins.
BANKER_WINS = ("2C", "9H", "3S", "KD")


def _post(client: TestClient, path: str, who: tuple[str, str], **body: Any) -> Any:
    return client.post(path, headers=login(client, who), json=body)


def _refused(response: Any, status: int, clause: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["clause"] == clause, error
    return error


def _bet(client: TestClient, table: str, who: tuple[str, str], wager: str, stake: str) -> None:
    placed = _post(client, f"/api/tables/{table}/bets", who, wager=wager, stake=stake)
    assert placed.status_code == 201, placed.text


def _open(client: TestClient, table: str) -> None:
    opened = client.post(f"/api/tables/{table}/round/open", headers=login(client, DEALER))
    assert opened.status_code == 200, opened.text


def _close(client: TestClient, table: str) -> None:
    closed = client.post(f"/api/tables/{table}/round/close", headers=login(client, DEALER))
    assert closed.status_code == 200, closed.text


def _deal_and_settle(client: TestClient, table: str, cards: tuple[str, ...]) -> None:
    dealer = login(client, DEALER)
    for card in cards:
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    settled = client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text


def _handling(client: TestClient, table: str) -> dict[str, Any]:
    state = client.get(f"/api/tables/{table}", headers=login(client, DEALER)).json()
    found: dict[str, Any] = state["round"]["handling"]
    return found


def _balances(client: TestClient) -> tuple[str, str]:
    return balance(client, login(client, PLAYER)), balance(client, login(client, PLAYER2))


def _choose(client: TestClient, table: str, who: tuple[str, str], method: str) -> Any:
    return _post(client, f"/api/tables/{table}/handling/method", who, method=method)


# -- the Method (3.9.2) ------------------------------------------------------------------------


def test_tiger_baccarat_3_9_2_method_a_or_b_by_a_pit_manager_only_between_rounds(
    client: TestClient,
) -> None:
    table = new_table(client, id="mb", game="tiger-baccarat", card_source="device")
    assert client.get(f"/api/tables/{table}").json()["table"]["method"] == "A"  # never chosen
    for who in (PLAYER, DEALER, ADMIN):
        _refused(_choose(client, table, who, "B"), 403, "3.9.2")
    chosen = _choose(client, table, PIT, "B")
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["method"] == "B"
    assert client.get(f"/api/tables/{table}").json()["table"]["method"] == "B"
    audit = client.get("/api/pit/audit", headers=login(client, PIT), params={"table_id": table})
    entry = next(e for e in audit.json() if e["action"] == "choose_method")
    assert (entry["username"], entry["role"]) == ("pit", "pit_manager")
    assert entry["detail"] == {"method": "B", "clause": "3.9.2", "acting_role": "pit_manager"}

    _open(client, table)
    _refused(_choose(client, table, PIT, "A"), 409, "3.9.2")  # a round is in play
    assert _handling(client, table)["method"] == "B"  # recorded again in the round
    _bet(client, table, PLAYER, "banker", "100")
    _close(client, table)
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("9900.00", START)  # the banker bet lost 100
    assert _choose(client, table, PIT, "A").status_code == 200  # settled: between rounds
    _open(client, table)
    assert _handling(client, table)["method"] == "A"


def test_tiger_baccarat_3_9_2_method_c_by_an_assistant_casino_manager_only_in_hlga(
    client: TestClient,
) -> None:
    plain = new_table(client, id="plain", game="tiger-baccarat", card_source="device")
    acm = assistant_casino_manager(client)
    refused = client.post(f"/api/tables/{plain}/handling/method", headers=acm, json={"method": "C"})
    assert "HLGA" in _refused(refused, 409, "3.9.2")["message"]
    hlga = new_table(client, id="hlga", game="tiger-baccarat", card_source="device", hlga=True)
    error = _refused(_choose(client, hlga, PIT, "C"), 403, "3.9.2")  # a Pit Manager may not
    assert "assistant casino manager" in error["hint"]
    method_c(client, hlga)
    assert client.get(f"/api/tables/{hlga}").json()["table"]["method"] == "C"
    # The Assistant Casino Manager ranks above the Pit Manager (6.2): A and B too.
    assert (
        client.post(
            f"/api/tables/{plain}/handling/method", headers=acm, json={"method": "B"}
        ).status_code
        == 200
    )


def test_tiger_baccarat_3_9_2_the_method_is_restored_after_a_restart(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        table = new_table(client, id="kept", game="tiger-baccarat", card_source="device", hlga=True)
        method_c(client, table)
    with TestClient(make_app(db_url)) as client:  # the same database, a new server
        assert client.get(f"/api/tables/{table}").json()["table"]["method"] == "C"
        _open(client, table)
        r = server_of(client).tables[table].round
        assert r is not None
        assert [e.method.value for e in r.events if isinstance(e, MethodChosen)] == ["C"]


def test_server_handling_is_refused_where_the_rules_have_no_methods(client: TestClient) -> None:
    table = new_table(client, id="rws", game="tiger-buffalo", card_source="device", layout="A")
    refused = _choose(client, table, PIT, "B")
    assert refused.status_code == 409, refused.text
    assert "no Methods" in refused.json()["error"]["message"]
    assert client.get(f"/api/tables/{table}").json()["table"]["method"] is None


# -- Method A (3.10) ----------------------------------------------------------------------------


def test_tiger_baccarat_3_10_2_the_dealer_passes_the_cards_to_the_highest_bettor(
    client: TestClient,
) -> None:
    table = new_table(client, id="sq", game="tiger-baccarat", card_source="device")
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "100")
    _bet(client, table, PLAYER2, "banker", "300")
    early = _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="banker")
    _refused(early, 409, "3.10.2")  # not before 'No more bets'
    _close(client, table)
    assert _handling(client, table)["next"] == {"player": None, "banker": "demo2"}
    _refused(
        _post(client, f"/api/tables/{table}/handling/pass", PLAYER, hand="banker"), 403, "3.10.2"
    )
    passed = _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="banker")
    assert passed.status_code == 200, passed.text
    assert passed.json()["handling"]["squeezers"] == {"player": None, "banker": "demo2"}
    assert _handling(client, table)["text"] == "Method A · banker: demo2 squeezes"
    again = _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="banker")
    _refused(again, 409, "3.10.2")  # demo2 has them
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("9900.00", "9700.00")  # both banker bets lost


def test_tiger_baccarat_3_10_3_a_refusal_passes_the_cards_to_the_next_highest(
    client: TestClient,
) -> None:
    table = new_table(client, id="rf", game="tiger-baccarat", card_source="device")
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "100")
    _bet(client, table, PLAYER2, "banker", "300")
    _close(client, table)
    assert (
        _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="banker").status_code
        == 200
    )
    refuse = f"/api/tables/{table}/handling/refuse"
    _refused(_post(client, refuse, DEALER, hand="banker"), 403, "3.10.3")  # the player refuses
    _refused(_post(client, refuse, PLAYER, hand="banker"), 409, "3.10.3")  # demo has none
    refused = _post(client, refuse, PLAYER2, hand="banker")
    assert refused.status_code == 200, refused.text
    assert refused.json()["handling"]["refused"]["banker"] == ["demo2"]
    assert refused.json()["handling"]["next"]["banker"] == "demo"
    passed = _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="banker")
    assert passed.json()["handling"]["squeezers"]["banker"] == "demo"
    r = server_of(client).tables[table].round
    assert r is not None
    assert [(e.player, e.clause) for e in r.events if isinstance(e, CardsPassed)] == [
        ("demo2", "3.10.2"),
        ("demo", "3.10.3"),
    ]
    _deal_and_settle(client, table, BANKER_WINS)
    # Banker wins 0.95 to 1 at Tiger Baccarat with a natural 9 (not a Tiger 6).
    assert _balances(client) == ("10095.00", "10285.00")
    # The round's audit trail says who had which cards.
    detail = client.get(f"/api/tables/{table}/rounds/r1", headers=login(client, DEALER)).json()
    assert detail["handling"]["squeezers"] == {"player": None, "banker": "demo"}
    assert detail["handling"]["cards"]["banker"] == ["9H", "KD"]
    assert detail["handling"]["refused"] == {"player": [], "banker": ["demo2"]}


def test_tiger_baccarat_3_10_4_1_the_pit_supervisor_chooses_when_nobody_is_left(
    client: TestClient,
) -> None:
    table = new_table(client, id="ps", game="tiger-baccarat", card_source="device")
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "200")
    _close(client, table)
    nobody = _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="player")
    assert "choose" in _refused(nobody, 409, "3.10.4.1")["hint"]
    squeezer = f"/api/tables/{table}/handling/squeezer"
    _refused(_post(client, squeezer, DEALER, hand="player", player="demo2"), 403, "3.10.4.1")
    _refused(_post(client, squeezer, PIT, hand="player", player="dealer"), 403, "3.10.4.1")
    chosen = _post(client, squeezer, PIT, hand="player", player="demo2")
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["handling"]["squeezers"] == {"player": "demo2", "banker": None}
    # While the amounts name demo, only a Pit Manager's discretion gives the banker
    # cards to another (3.21): the Dealer may not.
    _refused(_post(client, squeezer, DEALER, hand="banker", player="demo2"), 403, "3.21")
    assert _post(client, squeezer, PIT, hand="banker", player="demo2").status_code == 200
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("9800.00", START)


def test_tiger_baccarat_3_10_2_a_retried_pass_gets_the_first_answer(client: TestClient) -> None:
    table = new_table(client, id="key", game="tiger-baccarat", card_source="device")
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "100")
    _close(client, table)
    dealer = {**login(client, DEALER), "Idempotency-Key": "pass-1"}
    path = f"/api/tables/{table}/handling/pass"
    first = client.post(path, headers=dealer, json={"hand": "banker"})
    retried = client.post(path, headers=dealer, json={"hand": "banker"})
    assert first.status_code == retried.status_code == 200, retried.text
    assert retried.json() == first.json()
    other = client.post(path, headers=dealer, json={"hand": "player"})
    _refused(other, 409, "3.10.2")
    assert "Idempotency-Key" in other.json()["error"]["message"]
    r = server_of(client).tables[table].round
    assert r is not None
    assert len([e for e in r.events if isinstance(e, CardsPassed)]) == 1
    audit = client.get("/api/pit/audit", headers=login(client, PIT), params={"table_id": table})
    assert [e["action"] for e in audit.json()].count("pass_cards") == 1  # a retry is not audited
    _deal_and_settle(client, table, BANKER_WINS)
    assert _balances(client) == ("10095.00", START)


# -- Method B (3.11) -----------------------------------------------------------------------------


def test_tiger_baccarat_3_11_2_by_method_b_players_do_not_handle_the_cards(
    client: TestClient,
) -> None:
    table = new_table(client, id="mbb", game="tiger-baccarat", card_source="device")
    assert _choose(client, table, PIT, "B").status_code == 200
    _open(client, table)
    _bet(client, table, PLAYER, "player", "100")
    _close(client, table)
    _refused(
        _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="player"), 409, "3.11.2"
    )
    assert _handling(client, table)["next"] == {"player": None, "banker": None}
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("10100.00", START)


# -- Method C (3.12) -----------------------------------------------------------------------------


def test_tiger_baccarat_3_12_1_a_player_with_a_wager_takes_the_device(client: TestClient) -> None:
    table = new_table(client, id="dev", game="tiger-baccarat", card_source="device", hlga=True)
    take = f"/api/tables/{table}/handling/take-device"
    relinquish = f"/api/tables/{table}/handling/relinquish-device"
    _open(client, table)
    _refused(_post(client, take, PLAYER), 409, "3.9.1")  # by Method A the Dealer keeps it
    _close(client, table)
    _deal_and_settle(client, table, PLAYER_WINS)
    method_c(client, table)
    _open(client, table)
    _refused(_post(client, take, DEALER), 403, "3.12.1")  # a player draws
    _refused(_post(client, take, PLAYER), 409, "3.12.2")  # without a wager, not allowed
    _bet(client, table, PLAYER, "banker", "100")
    taken = _post(client, take, PLAYER)
    assert taken.status_code == 200, taken.text
    assert taken.json()["handling"]["device"] == "demo"
    _bet(client, table, PLAYER2, "player", "100")
    _refused(_post(client, take, PLAYER2), 409, "3.12.8")  # demo controls it
    _refused(_post(client, relinquish, PLAYER2), 409, "3.12.8.1")  # not theirs
    _close(client, table)
    _refused(_post(client, relinquish, PLAYER), 409, "3.12.8.1")  # not while dealing
    _deal_and_settle(client, table, BANKER_WINS)
    assert _balances(client) == ("10095.00", "9900.00")
    _open(client, table)
    assert _handling(client, table)["device"] == "demo"  # kept: the wager won (3.12.8)
    given_up = _post(client, relinquish, PLAYER)
    assert given_up.status_code == 200, given_up.text
    assert given_up.json()["handling"]["device"] is None
    assert _balances(client) == ("10095.00", "9900.00")


def test_tiger_baccarat_3_12_2_an_assistant_casino_manager_lets_a_player_draw_without_a_wager(
    client: TestClient,
) -> None:
    table = new_table(client, id="draw", game="tiger-baccarat", card_source="device", hlga=True)
    method_c(client, table)
    _open(client, table)
    allow = f"/api/tables/{table}/handling/allow-draw"
    for who in (DEALER, PIT, PLAYER):
        _refused(_post(client, allow, who, player="demo2"), 403, "3.12.2")
    acm = assistant_casino_manager(client)
    _refused(client.post(allow, headers=acm, json={"player": "pit"}), 403, "3.12.2")
    allowed = client.post(allow, headers=acm, json={"player": "demo2"})
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["handling"]["allowed"] == ["demo2"]
    taken = _post(client, f"/api/tables/{table}/handling/take-device", PLAYER2)
    assert taken.status_code == 200, taken.text
    assert taken.json()["handling"]["device"] == "demo2"
    _bet(client, table, PLAYER, "player", "50")
    _close(client, table)
    _refused(client.post(allow, headers=acm, json={"player": "demo"}), 409, "3.12.2")
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("10050.00", START)  # demo2 drew with no money at stake


def test_tiger_baccarat_3_12_8_2_the_holder_loses_the_device_when_the_wager_loses(
    client: TestClient,
) -> None:
    table = new_table(client, id="lost", game="tiger-baccarat", card_source="device", hlga=True)
    method_c(client, table)
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "100")
    assert _post(client, f"/api/tables/{table}/handling/take-device", PLAYER).status_code == 200
    _close(client, table)
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("9900.00", START)
    _open(client, table)
    assert _handling(client, table)["device"] is None
    rounds = server_of(client).tables[table].table.rounds
    assert [(e.player, e.clause) for e in rounds[-2].events if isinstance(e, DeviceLost)] == [
        ("demo", "3.12.8.2")
    ]


def test_tiger_baccarat_3_9_2_a_method_c_table_stays_in_hlga_until_the_method_changes(
    client: TestClient,
) -> None:
    table = new_table(client, id="stay", game="tiger-baccarat", card_source="device", hlga=True)
    method_c(client, table)
    pit = login(client, PIT)
    left = client.patch(f"/api/tables/{table}", headers=pit, json={"hlga": False})
    assert "Method A or B first" in _refused(left, 409, "3.9.2")["hint"]
    assert client.get(f"/api/tables/{table}").json()["table"]["hlga"] is True
    assert _choose(client, table, PIT, "A").status_code == 200
    changed = client.patch(f"/api/tables/{table}", headers=pit, json={"hlga": False})
    assert changed.status_code == 200, changed.text
    _open(client, table)  # the next round opens by Method A, outside HLGA
    _bet(client, table, PLAYER, "tie", "10")
    _close(client, table)
    _deal_and_settle(client, table, PLAYER_WINS)
    assert _balances(client) == ("9990.00", START)


def test_tiger_baccarat_3_12_1_the_device_changes_hands_only_while_bets_are_open(
    client: TestClient,
) -> None:
    table = new_table(client, id="when", game="tiger-baccarat", card_source="device", hlga=True)
    take = f"/api/tables/{table}/handling/take-device"
    _refused(_post(client, take, PLAYER), 409, "3.12.1")  # no round yet
    method_c(client, table)
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "100")
    _close(client, table)
    _refused(_post(client, take, PLAYER), 409, "3.12.8")  # accepted before the cards
    _refused(
        _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="banker"), 409, "3.10.2"
    )  # nobody squeezes by Method C
    _deal_and_settle(client, table, BANKER_WINS)
    assert _balances(client) == ("10095.00", START)
    assert _handling(client, table)["device"] is None


def test_dragon_tiger_3_16_a_pit_manager_gives_the_cards_to_any_player(client: TestClient) -> None:
    table = new_table(client, id="dt", game="dragon-tiger", card_source="device")
    _open(client, table)
    _bet(client, table, PLAYER, "banker", "100")
    _bet(client, table, PLAYER2, "player", "50")
    _close(client, table)
    squeezer = f"/api/tables/{table}/handling/squeezer"
    _refused(_post(client, squeezer, DEALER, hand="banker", player="demo2"), 403, "3.16")
    given = _post(client, squeezer, PIT, hand="banker", player="demo2")
    assert given.status_code == 200, given.text
    passed = _post(client, f"/api/tables/{table}/handling/pass", DEALER, hand="player")
    assert passed.json()["handling"]["squeezers"] == {"player": "demo2", "banker": "demo2"}
    r = server_of(client).tables[table].round
    assert r is not None
    assert [
        (e.side.value, e.player, e.clause, e.role.value)
        for e in r.events
        if isinstance(e, CardsPassed)
    ] == [
        ("banker", "demo2", "3.16", "pit_manager"),
        ("player", "demo2", "3.10.2", "dealer"),
    ]
    assert _balances(client) == ("9900.00", "9950.00")  # the stakes, held; handling took none


def test_tiger_baccarat_3_9_2_revision_0011_adds_the_assistant_casino_manager_role(
    db_url: str,
) -> None:
    """A database at revision 0010 keeps its accounts and takes an Assistant
    Casino Manager after 0011 (and refuses one before it)."""
    engine = db.connect(db_url, migrate=False)
    try:
        with db.write_transaction(engine) as conn:
            command.upgrade(db.alembic_config(conn), "0010_accounts")
        accounts = Accounts(engine, hasher=FAST)
        pit = accounts.create_user("pit", "pit-password", UserRole.PIT_MANAGER)
        row = {
            "username": "early",
            "role": "assistant_casino_manager",
            "password_hash": "-",
            "created_at": db.utc_now(),
            "password_changed_at": db.utc_now(),
        }
        with pytest.raises(IntegrityError), db.write_transaction(engine) as conn:
            conn.execute(insert(db.accounts).values(**row))  # the CHECK of revision 0001
        db.upgrade(engine, "0011")  # (later revisions change nothing here)
        assert db.current_revision(engine) == "0011"
        acm = accounts.create_user("acm", "acm-password", UserRole.ASSISTANT_CASINO_MANAGER)
        assert accounts.find_user("pit") == pit
        assert acm.role.table_role is Role.ASSISTANT_CASINO_MANAGER
        assert acm.role.may_act_as(UserRole.SHIFT_MANAGER)
        assert not UserRole.SHIFT_MANAGER.may_act_as(UserRole.ASSISTANT_CASINO_MANAGER)
    finally:
        engine.dispose()
