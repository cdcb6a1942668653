"""What the table server reads from a request, checked as the replay reads
it: money is ASCII digits with at most one decimal point, as a JSON string
or a whole JSON number (punto.money.parse_stake, the one reader), and a
table's limits name only wagers its game offers at its layout
(punto.table.bet_limits.check_limit_wagers, the one check).  A refusal
moves no money.  On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.test_server_support import DEALER, PIT, PLAYER, balance, login, new_table


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    return error


def test_server_input_a_stake_is_a_json_string_or_a_whole_json_number(client: TestClient) -> None:
    table = new_table(client, id="money", game="tiger-baccarat")
    player = login(client, PLAYER)
    assert client.post(f"/api/tables/{table}/round/open", headers=login(client, DEALER)).status_code
    bets = f"/api/tables/{table}/bets"
    for stake in (12.5, 12.0, 1e3):
        refused = client.post(bets, headers=player, json={"wager": "banker", "stake": stake})
        error = _error(refused, 422)
        assert error["type"] == "WagerError", error
        assert "JSON number with a fraction or an exponent" in error["message"], error
        assert '"12.50"' in error["hint"]
    for stake in (True, False):  # not coerced to 1 and 0
        assert (
            client.post(bets, headers=player, json={"wager": "banker", "stake": stake}).status_code
            == 422
        )
    for text in ("12.5e0", "١٢", "+12", "12.", "1_2"):
        refused = client.post(bets, headers=player, json={"wager": "banker", "stake": text})
        assert "is not an amount of money" in _error(refused, 422)["message"], text
    assert balance(client, player) == "10000.00"  # nothing refused took money
    as_text = client.post(bets, headers=player, json={"wager": "banker", "stake": "12.50"})
    assert as_text.status_code == 201, as_text.text
    whole = client.post(bets, headers=player, json={"wager": "player", "stake": 12})
    assert whole.status_code == 201, whole.text
    assert [as_text.json()["bet"]["stake"], whole.json()["bet"]["stake"]] == ["12.50", "12.00"]
    assert balance(client, player) == "9975.50"


def test_server_input_a_deposit_is_read_as_a_stake_is(client: TestClient) -> None:
    pit = login(client, PIT)
    body = {"username": "demo", "key": "cage-1"}
    refused = client.post("/api/cage/deposit", headers=pit, json={**body, "amount": 0.1})
    assert _error(refused, 422)["type"] == "WagerError"
    assert balance(client, login(client, PLAYER)) == "10000.00"
    made = client.post("/api/cage/deposit", headers=pit, json={**body, "amount": "0.10"})
    assert made.status_code == 201, made.text
    assert balance(client, login(client, PLAYER)) == "10000.10"


def test_tiger_baccarat_3_5_1_table_limits_for_a_wager_not_offered_are_refused(
    client: TestClient,
) -> None:
    pit = login(client, PIT)
    limits = {
        "minimum": "10",
        "maximum": "1000",
        "wagers": {"bankr": {"minimum": "10", "maximum": "100"}},
    }
    body = {"id": "typo", "game": "tiger-baccarat", "mode": "dealer", "limits": limits}
    error = _error(client.post("/api/tables", headers=pit, json=body), 422)
    assert error["type"] == "ConfigError"
    assert error["clause"] == "3.5.1"
    assert error["message"] == "limits.wagers: tiger-baccarat offers no 'bankr'"
    assert "banker" in error["hint"]
    assert client.get("/api/tables/typo").status_code == 404  # nothing was set up

    table = new_table(client, id="kept", game="tiger-baccarat")
    changed = client.patch(f"/api/tables/{table}", headers=pit, json={"limits": limits})
    assert _error(changed, 422)["clause"] == "3.5.1"
    state = client.get(f"/api/tables/{table}").json()
    assert state["table"]["limits"]["wagers"] == {}  # unchanged
    fine = {**limits, "wagers": {"banker": {"minimum": "10", "maximum": "100"}}}
    assert (
        client.patch(f"/api/tables/{table}", headers=pit, json={"limits": fine}).status_code == 200
    )


def test_tiger_buffalo_3_5_table_limits_name_only_the_wagers_of_the_layout(
    client: TestClient,
) -> None:
    limits = {
        "minimum": "10",
        "maximum": "1000",
        "wagers": {"tiger": {"minimum": "10", "maximum": "100"}},  # a Tiger Baccarat wager
    }
    body = {"id": "rws", "game": "tiger-buffalo", "layout": "A", "mode": "dealer"}
    error = _error(
        client.post("/api/tables", headers=login(client, PIT), json={**body, "limits": limits}), 422
    )
    assert error["message"] == "limits.wagers: tiger-buffalo offers no 'tiger' on layout A"
    assert error["clause"] == "3.5"
