"""The live table enforces the clauses, on SQLite and PostgreSQL:

* a discretionary void is the Gaming Shift Manager's (MBS 6.1; RWS 5.19),
  and no route takes a void's clause from the request;
* an exceeded differential at an MBS table (5.18): the Dealer asks the
  heavier hand to decrease (5.18.1), the lighter may increase (5.18.2), the
  Pit Manager removes wagers if that is not enough (5.18.3); the automatic
  dealer holds betting open meanwhile instead of trying again and again;
* RWS 4.2.2: a private table without Insurance, with its notice.

Every refusal names its clause; every test checks each player's money to the
cent, through the API and on the ledger.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from punto.server.routes.models import BetChangedOut, IrregularityOut
from punto.server.tables.schema import server_requests
from punto.table.events import IrregularityNoted, TableConfigured
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    QUICK,
    SHIFT,
    balance,
    check_books,
    deal_cards,
    error_of,
    login,
    make_app,
    new_table,
    server_of,
    shift_manager,
    wait_for,
)

START = "10000.00"


def _ledger(client: TestClient, who: tuple[str, str]) -> str:
    """The player's wallet on the ledger itself (minor units), as money."""
    cents = server_of(client).ledger.balance(f"player:{who[0]}")
    return f"{cents // 100}.{cents % 100:02d}"


def _money(client: TestClient, **expected: str) -> None:
    """Each player's balance, through the API and on the ledger."""
    for name, amount in expected.items():
        who = {"demo": PLAYER, "demo2": PLAYER2}[name]
        assert balance(client, login(client, who)) == amount, name
        assert _ledger(client, who) == amount, name
    check_books(client)


def _bet(client: TestClient, table: str, who: tuple[str, str], wager: str, stake: str) -> str:
    placed = client.post(
        f"/api/tables/{table}/bets",
        headers=login(client, who),
        json={"wager": wager, "stake": stake},
    )
    assert placed.status_code == 201, placed.text
    bet_id: str = placed.json()["bet"]["bet_id"]
    return bet_id


def _post(client: TestClient, path: str, who: dict[str, str], body: Any = None) -> Any:
    return client.post(path, headers=who, json=body)


# -- MBS 6.1 / RWS 5.19: a discretionary void is the Gaming Shift Manager's --------------------


def _natural_for_player(client: TestClient, table: str) -> None:
    """A round: demo on Player 1,000; the coup complete, Player 9 v Banker 5."""
    dealer = login(client, DEALER)
    assert _post(client, f"/api/tables/{table}/round/open", dealer).status_code == 200
    _bet(client, table, PLAYER, "player", "1000")
    assert _post(client, f"/api/tables/{table}/round/close", dealer).status_code == 200
    deal_cards(client, dealer, table, "9H 2C KD 3S")


def _claim(response: Any) -> dict[str, Any]:
    """The claim a ruling was filed as (202): nothing has moved yet."""
    assert response.status_code == 202, response.text
    claim: dict[str, Any] = response.json()["claim"]
    assert claim["status"] == "pending"
    return claim


def _decide(
    client: TestClient, table: str, claim: dict[str, Any], who: dict[str, str], how: str = "confirm"
) -> Any:
    path = f"/api/tables/{table}/claims/{claim['claim_id']}/{how}"
    return client.post(path, headers=who, json={"reason": "no"} if how == "reject" else None)


def _second_shift_manager(client: TestClient) -> dict[str, str]:
    made = client.post(
        "/api/users",
        headers=login(client, ADMIN),
        json={"username": "shift2", "password": "shift2-password", "role": "shift_manager"},
    )
    assert made.status_code in (201, 409), made.text
    return login(client, ("shift2", "shift2-password"))


def test_tiger_baccarat_6_1_pit_manager_may_not_void_a_decided_coup(client: TestClient) -> None:
    """The audit's reproduction: a Player 1,000 winning on a natural, voided by
    a Pit Manager citing 6.1.  The Pit Manager's word moves nothing: the claim
    waits for a Gaming Shift Manager, whom neither the dealer nor the Pit
    Manager is; withdrawn, the win stands and is paid."""
    table = new_table(client, id="natural", game="tiger-baccarat", card_source="device")
    _natural_for_player(client, table)
    pit, dealer = login(client, PIT), login(client, DEALER)
    void = {"reason": "the pit does not like this coup"}
    claim = _claim(_post(client, f"/api/tables/{table}/round/void", pit, void))
    assert (claim["clause"], claim["confirming"]) == ("6.1", "shift_manager")
    _money(client, demo="9000.00")
    refused = _decide(client, table, claim, dealer)
    assert refused.status_code == 403, refused.text
    assert error_of(refused)["clause"] == "6.1"
    assert "shift manager" in error_of(refused)["hint"]
    own = _decide(client, table, claim, pit)  # not by the person who filed it
    assert own.status_code in (403, 409), own.text
    assert error_of(own)["clause"] == "6.1"
    assert _post(client, f"/api/tables/{table}/round/settle", dealer).status_code == 409
    withdrawn = _decide(client, table, claim, pit, "reject")
    assert withdrawn.status_code == 200, withdrawn.text
    assert withdrawn.json()["claim"]["status"] == "withdrawn"
    # Nor through the procedures endpoint under the same clause.
    unforeseen = {"reason": "the pit does not like this coup", "void": True}
    again = _claim(_post(client, f"/api/tables/{table}/irregularities/unforeseen", pit, unforeseen))
    assert _decide(client, table, again, dealer, "reject").status_code == 403
    assert _decide(client, table, again, pit, "reject").status_code == 200
    assert client.get(f"/api/tables/{table}").json()["round"]["phase"] == "result"
    _money(client, demo="9000.00")
    assert _post(client, f"/api/tables/{table}/round/settle", dealer).status_code == 200
    _money(client, demo="11000.00")  # Player wins 1 to 1


def test_dragon_tiger_6_1_pit_manager_may_not_void_a_decided_coup(client: TestClient) -> None:
    table = new_table(client, id="natural-dt", game="dragon-tiger", card_source="device")
    _natural_for_player(client, table)
    pit = login(client, PIT)
    claim = _claim(_post(client, f"/api/tables/{table}/round/void", pit, {"reason": "x"}))
    assert claim["clause"] == "6.1"
    refused = _decide(client, table, claim, login(client, DEALER))
    assert refused.status_code == 403, refused.text
    assert error_of(refused)["clause"] == "6.1"
    assert _decide(client, table, claim, pit, "reject").status_code == 200
    dealer = login(client, DEALER)
    assert _post(client, f"/api/tables/{table}/round/settle", dealer).status_code == 200
    _money(client, demo="11000.00")


def test_tiger_baccarat_6_1_shift_manager_voids_and_every_bet_returns(client: TestClient) -> None:
    table = new_table(client, id="shift", game="tiger-baccarat", card_source="device")
    _natural_for_player(client, table)
    _money(client, demo="9000.00")
    shift = shift_manager(client)
    filed = _post(
        client, f"/api/tables/{table}/round/void", shift, {"reason": "a dispute at the table"}
    )
    claim = _claim(filed)
    _money(client, demo="9000.00")  # one shift manager's word moves nothing either
    voided = _decide(client, table, claim, _second_shift_manager(client))
    assert voided.status_code == 200, voided.text
    assert voided.json()["void"] == {"reason": "a dispute at the table", "clause": "6.1"}
    assert voided.json()["ruling"]["role"] == "shift_manager"
    IrregularityOut.model_validate(voided.json())  # as the OpenAPI description says
    _money(client, demo=START)
    audit = client.get("/api/pit/audit", headers=login(client, PIT)).json()
    filing = next(a for a in audit if a["action"] == "claim_filed")
    assert (filing["username"], filing["detail"]["clause"]) == (SHIFT[0], "6.1")
    confirming = next(a for a in audit if a["action"] == "claim_confirmed")
    assert (confirming["username"], confirming["detail"]["consequence"]) == ("shift2", "void")
    # A finished round is not voided again: previous rounds stand.
    again = _post(client, f"/api/tables/{table}/round/void", shift, {"reason": "once more"})
    assert again.status_code == 409, again.text
    assert error_of(again)["clause"] == "6.1"
    _money(client, demo=START)


def test_tiger_baccarat_6_1_void_takes_no_clause_from_the_request(client: TestClient) -> None:
    table = new_table(client, id="free", game="tiger-baccarat", card_source="device")
    _natural_for_player(client, table)
    shift = shift_manager(client)
    body = {"reason": "a foreign card", "clause": "5.1"}
    refused = _post(client, f"/api/tables/{table}/round/void", shift, body)
    assert refused.status_code == 400, refused.text
    assert error_of(refused)["clause"] == "6.1"
    assert "irregularities" in error_of(refused)["hint"]
    assert client.get(f"/api/tables/{table}").json()["round"]["phase"] == "result"
    _money(client, demo="9000.00")


def test_tiger_baccarat_6_1_void_refused_to_every_role_below_the_shift_manager(
    client: TestClient,
) -> None:
    table = new_table(client, id="roles", game="tiger-baccarat", card_source="device")
    _natural_for_player(client, table)
    dealer = login(client, DEALER)
    void = {"reason": "not covered"}
    for who in (PLAYER, ADMIN):  # no position at the table: not even a claim
        refused = _post(client, f"/api/tables/{table}/round/void", login(client, who), void)
        assert refused.status_code == 403, (who, refused.text)
    claim = _claim(_post(client, f"/api/tables/{table}/round/void", dealer, void))
    for who in (PLAYER, ADMIN, PIT):
        refused = _decide(client, table, claim, login(client, who))
        assert refused.status_code == 403, (who, refused.text)
    assert error_of(refused)["clause"] == "6.1"
    # a confirmation is a session of its own, never a password in the body
    wrong = {**void, "manager": {"username": SHIFT[0], "password": "not the password"}}
    in_body = _post(client, f"/api/tables/{table}/round/void", dealer, wrong)
    assert in_body.status_code == 422, in_body.text
    _money(client, demo="9000.00")


def test_tiger_buffalo_5_19_void_is_the_table_game_shift_managers(client: TestClient) -> None:
    table = new_table(client, id="rws-void", game="tiger-buffalo", layout="A")
    dealer, pit = login(client, DEALER), login(client, PIT)
    assert _post(client, f"/api/tables/{table}/round/open", dealer).status_code == 200
    _bet(client, table, PLAYER, "banker", "300")
    _bet(client, table, PLAYER2, "player", "200")
    assert _post(client, f"/api/tables/{table}/round/close", dealer).status_code == 200
    claim = _claim(
        _post(client, f"/api/tables/{table}/round/void", dealer, {"reason": "a dispute"})
    )
    refused = _decide(client, table, claim, pit)
    assert refused.status_code == 403, refused.text
    assert error_of(refused)["clause"] == "5.19"
    _money(client, demo="9700.00", demo2="9800.00")
    voided = _decide(client, table, claim, shift_manager(client))
    assert voided.status_code == 200, voided.text
    assert voided.json()["void"]["clause"] == "5.19"
    _money(client, demo=START, demo2=START)


# -- MBS 5.18: the table differential ----------------------------------------------------------

DIFFERENTIAL = {"minimum": "10", "maximum": "1000", "differential": "500"}


def _exceeded(client: TestClient, table: str, game: str) -> tuple[str, str]:
    """A round at a table with a differential of 500: demo Banker 1,000, demo2
    Player 200 (800 apart); returns their bet ids."""
    new_table(client, id=table, game=game, limits=DIFFERENTIAL, card_source="device")
    dealer = login(client, DEALER)
    assert _post(client, f"/api/tables/{table}/round/open", dealer).status_code == 200
    heavy = _bet(client, table, PLAYER, "banker", "1000")
    light = _bet(client, table, PLAYER2, "player", "200")
    return heavy, light


def _close_refused(client: TestClient, table: str) -> None:
    """'No more bets' refused (5.18): the Dealer's request is logged instead."""
    refused = _post(client, f"/api/tables/{table}/round/close", login(client, DEALER))
    assert refused.status_code == 422, refused.text
    assert error_of(refused)["clause"] == "5.18"


def _notes(client: TestClient, table: str) -> list[IrregularityNoted]:
    r = server_of(client).tables[table].round
    assert r is not None
    return [e for e in r.events if isinstance(e, IrregularityNoted)]


def test_tiger_baccarat_5_18_1_player_decreases_own_wager_and_the_ledger_returns_it(
    client: TestClient,
) -> None:
    heavy, _ = _exceeded(client, "dec", "tiger-baccarat")
    player = login(client, PLAYER)
    state = client.get("/api/tables/dec", headers=player).json()["round"]["differential"]
    assert (state["exceeded"], state["now"], state["limit"]) == (True, "800.00", "500.00")
    assert state["request"]["decrease"] == "banker"
    assert state["request"]["increase"] == "player"
    assert state["asked"] is False
    dealer = login(client, DEALER)
    can = client.get("/api/tables/dec", headers=dealer).json()["staff"]["can"]
    assert can["close"] is True  # pressing it is how the Dealer asks
    _close_refused(client, "dec")
    assert [(n.clause, n.role.value) for n in _notes(client, "dec")] == [("5.18.1", "dealer")]
    _close_refused(client, "dec")  # asked once, not at every try
    assert len(_notes(client, "dec")) == 1
    state = client.get("/api/tables/dec", headers=player).json()["round"]["differential"]
    assert state["asked"] is True
    assert "asks the players on Banker to decrease" in state["request"]["text"]

    path = f"/api/tables/dec/bets/{heavy}/decrease"
    keyed = {**player, "Idempotency-Key": "dec-1"}
    decreased = client.post(path, headers=keyed, json={"stake": "600"})
    assert decreased.status_code == 200, decreased.text
    body = decreased.json()
    BetChangedOut.model_validate(body)  # as the OpenAPI description says
    assert (body["bet"]["stake"], body["returned"], body["balance"]) == (
        "600.00",
        "400.00",
        "9400.00",
    )
    assert body["differential"]["exceeded"] is False
    again = client.post(path, headers=keyed, json={"stake": "600"})
    assert again.status_code == 200, again.text
    assert again.json() == body  # the first answer, not a second decrease
    reused = client.post(path, headers=keyed, json={"stake": "550"})
    assert reused.status_code == 409, reused.text
    assert error_of(reused)["clause"] == "5.18.1"
    _money(client, demo="9400.00", demo2="9800.00")

    assert _post(client, "/api/tables/dec/round/close", dealer).status_code == 200
    deal_cards(client, dealer, "dec", "9H 2C KD 3S")  # Player 9 v Banker 5
    assert _post(client, "/api/tables/dec/round/settle", dealer).status_code == 200
    _money(client, demo="9400.00", demo2="10200.00")  # Banker 600 lost; Player 200 won


def test_dragon_tiger_5_18_1_player_decreases_own_wager_and_the_round_closes(
    client: TestClient,
) -> None:
    heavy, _ = _exceeded(client, "dec-dt", "dragon-tiger")
    _close_refused(client, "dec-dt")
    decreased = client.post(
        f"/api/tables/dec-dt/bets/{heavy}/decrease",
        headers=login(client, PLAYER),
        json={"stake": "700"},
    )
    assert decreased.status_code == 200, decreased.text
    assert decreased.json()["returned"] == "300.00"
    dealer = login(client, DEALER)
    assert _post(client, "/api/tables/dec-dt/round/close", dealer).status_code == 200
    deal_cards(client, dealer, "dec-dt", "9H 2C KD 3S")  # Player 9 v Banker 5
    assert _post(client, "/api/tables/dec-dt/round/settle", dealer).status_code == 200
    _money(client, demo="9300.00", demo2="10200.00")


def test_tiger_baccarat_5_18_1_retried_decrease_rebuilt_from_the_round_once_its_answer_is_lost(
    db_url: str,
) -> None:
    """The decrease and its key's reservation are written together; the answer
    after them.  Should the answer be lost (the process died in between), a
    retry after a restart gets it rebuilt from the round, never a second
    decrease."""
    with TestClient(make_app(db_url)) as client:
        heavy, _ = _exceeded(client, "lost", "tiger-baccarat")
        keyed = {**login(client, PLAYER), "Idempotency-Key": "lost-1"}
        path = f"/api/tables/lost/bets/{heavy}/decrease"
        first = client.post(path, headers=keyed, json={"stake": "700"})
        assert first.status_code == 200, first.text
        assert first.json()["returned"] == "300.00"
    with TestClient(make_app(db_url)) as client:  # a restart: no answer in memory
        with server_of(client).engine.begin() as conn:  # and none stored
            conn.execute(
                update(server_requests)
                .where(server_requests.c.key.like("%:decrease:lost-1"))
                .values(response=None, status_code=None)
            )
        keyed = {**login(client, PLAYER), "Idempotency-Key": "lost-1"}
        again = client.post(path, headers=keyed, json={"stake": "700"})
        assert again.status_code == 200, again.text
        assert again.json() == first.json()
        _money(client, demo="9300.00", demo2="9800.00")


def test_tiger_baccarat_5_18_1_decrease_refused_outside_its_conditions(
    client: TestClient,
) -> None:
    heavy, light = _exceeded(client, "cond", "tiger-baccarat")
    player, player2 = login(client, PLAYER), login(client, PLAYER2)

    def decrease(who: dict[str, str], bet: str, stake: str) -> Any:
        return client.post(
            f"/api/tables/cond/bets/{bet}/decrease", headers=who, json={"stake": stake}
        )

    cases = [
        (player2, light, "100", 409, "5.18.1", "Banker"),  # the lighter hand is not asked
        (player2, heavy, "600", 404, "5.18.1", "no bet"),  # not one's own bet
        (player, heavy, "1000", 422, "5.18.1", "cannot be decreased"),  # not less
        (player, heavy, "0", 422, "5.18.1", "positive"),  # that is a withdrawal
        (player, heavy, "5", 422, "3.5.1", "minimum"),  # under the minimum
    ]
    for who, bet, stake, status, clause, words in cases:
        refused = decrease(who, bet, stake)
        assert refused.status_code == status, (stake, refused.text)
        assert error_of(refused)["clause"] == clause, stake
        assert words in error_of(refused)["message"], stake
    shift_manager(client)
    for staff in (DEALER, PIT, SHIFT, ADMIN):
        refused = decrease(login(client, staff), heavy, "600")
        assert refused.status_code == 403, refused.text
        assert error_of(refused)["clause"] == "5.18.1"
    _money(client, demo="9000.00", demo2="9800.00")
    # Not exceeded: nobody is asked to decrease.
    _bet(client, "cond", PLAYER2, "player", "400")  # 5.18.2: the lighter hand increases
    _money(client, demo2="9400.00")
    refused = decrease(player, heavy, "900")
    assert refused.status_code == 409, refused.text
    assert error_of(refused)["clause"] == "5.18.1"
    assert "not exceeded" in error_of(refused)["message"]
    dealer = login(client, DEALER)
    assert _post(client, "/api/tables/cond/round/close", dealer).status_code == 200
    # After 'No more bets' no wager changes.
    refused = decrease(player, heavy, "900")
    assert refused.status_code == 409, refused.text
    assert error_of(refused)["clause"] == "5.18.1"
    _money(client, demo="9000.00", demo2="9400.00")


def test_tiger_baccarat_5_18_2_lighter_hand_increases_and_the_round_closes(
    client: TestClient,
) -> None:
    _exceeded(client, "inc", "tiger-baccarat")
    _close_refused(client, "inc")
    _bet(client, "inc", PLAYER2, "player", "300")  # 1,000 v 500: within the differential
    dealer = login(client, DEALER)
    assert _post(client, "/api/tables/inc/round/close", dealer).status_code == 200
    deal_cards(client, dealer, "inc", "9H 2C KD 3S")  # Player 9 v Banker 5
    assert _post(client, "/api/tables/inc/round/settle", dealer).status_code == 200
    _money(client, demo="9000.00", demo2="10500.00")


def _pit_manager_removes(client: TestClient, table: str, game: str) -> None:
    heavy, light = _exceeded(client, table, game)
    pit, dealer, player = login(client, PIT), login(client, DEALER), login(client, PLAYER)
    remove = f"/api/tables/{table}/bets/{heavy}/remove"
    early = _post(client, remove, pit)
    assert early.status_code == 409, early.text  # the Dealer has not asked yet
    assert error_of(early)["clause"] == "5.18.3"
    _close_refused(client, table)
    alerts = next(t for t in client.get("/api/pit", headers=pit).json() if t["id"] == table)
    assert [a["clause"] for a in alerts["alerts"]] == ["5.18.3"]
    for who in (dealer, player, login(client, ADMIN)):
        refused = _post(client, remove, who)
        assert refused.status_code == 403, refused.text
        assert error_of(refused)["clause"] == "5.18.3"
    wrong_hand = _post(client, f"/api/tables/{table}/bets/{light}/remove", pit)
    assert wrong_hand.status_code == 409, wrong_hand.text
    assert error_of(wrong_hand)["clause"] == "5.18.3"
    _money(client, demo="9000.00", demo2="9800.00")

    keyed = {**pit, "Idempotency-Key": "rm-1"}
    removed = client.post(remove, headers=keyed)
    assert removed.status_code == 200, removed.text
    body = removed.json()
    BetChangedOut.model_validate(body)
    assert (body["bet"]["status"], body["bet"]["clause"], body["returned"]) == (
        "withdrawn",
        "5.18.3",
        "1000.00",
    )
    assert client.post(remove, headers=keyed).json() == body  # a retry: the same answer
    _money(client, demo=START, demo2="9800.00")
    alerts = next(t for t in client.get("/api/pit", headers=pit).json() if t["id"] == table)
    assert alerts["alerts"] == []
    audit = client.get(f"/api/pit/audit?table_id={table}", headers=pit).json()
    assert [a["action"] for a in audit[:2]] == ["remove_bet", "remove_bet"]
    assert audit[0]["detail"]["clause"] == "5.18.3"

    assert _post(client, f"/api/tables/{table}/round/close", dealer).status_code == 200
    late = _post(client, f"/api/tables/{table}/bets/{light}/remove", pit)
    assert late.status_code == 409, late.text  # after 'No more bets' nothing is removed
    assert error_of(late)["clause"] == "5.18.3"
    deal_cards(client, dealer, table, "9H 2C KD 3S")  # Player 9 v Banker 5
    assert _post(client, f"/api/tables/{table}/round/settle", dealer).status_code == 200
    _money(client, demo=START, demo2="10200.00")  # Player 200 won


def test_tiger_baccarat_5_18_3_pit_manager_removes_a_wager(client: TestClient) -> None:
    _pit_manager_removes(client, "rm-tb", "tiger-baccarat")


def test_dragon_tiger_5_18_3_pit_manager_removes_a_wager(client: TestClient) -> None:
    _pit_manager_removes(client, "rm-dt", "dragon-tiger")


def test_dragon_tiger_5_18_3_a_dealer_alone_removes_nothing(client: TestClient) -> None:
    heavy, _ = _exceeded(client, "rm-conf", "dragon-tiger")
    _close_refused(client, "rm-conf")
    dealer = login(client, DEALER)
    remove = f"/api/tables/rm-conf/bets/{heavy}/remove"
    refused = _post(client, remove, dealer)
    assert refused.status_code == 403, refused.text
    assert error_of(refused)["clause"] == "5.18.3"
    # no password in the body: the Pit Manager removes it from their own session
    confirmed = {"manager": {"username": PIT[0], "password": PIT[1]}}
    assert _post(client, remove, dealer, confirmed).status_code == 422
    _money(client, demo="9000.00", demo2="9800.00")
    removed = _post(client, remove, login(client, PIT))
    assert removed.status_code == 200, removed.text
    assert removed.json()["returned"] == "1000.00"
    _money(client, demo=START, demo2="9800.00")


def test_tiger_baccarat_5_18_automatic_dealer_holds_betting_open_until_it_is_met(
    client: TestClient,
) -> None:
    """The automatic dealer does not try 'No more bets' again and again: it
    asks once, waits (no next move) and the pit is alerted; once the pit
    removes the wager it closes."""
    heavy, _ = _exceeded(client, "auto-diff", "tiger-baccarat")
    pit = login(client, PIT)
    auto = {"mode": "auto", **QUICK}
    assert client.patch("/api/tables/auto-diff", headers=pit, json=auto).status_code == 200
    runtime = server_of(client).tables["auto-diff"]
    runtime.deadline = 0.0  # the betting time is over
    assert runtime.step() is None  # nothing to do until someone acts
    assert runtime.step() is None
    r = runtime.round
    assert r is not None
    assert r.phase.value == "betting"
    assert [n.clause for n in _notes(client, "auto-diff")] == ["5.18.1"]
    assert [a["clause"] for a in runtime.alerts()] == ["5.18.3"]
    removed = _post(client, f"/api/tables/auto-diff/bets/{heavy}/remove", pit)
    assert removed.status_code == 200, removed.text
    runtime.step()
    assert r.phase.value == "dealing"
    assert runtime.alerts() == []
    _money(client, demo=START, demo2="9800.00")


def _held_table(client: TestClient, betting_seconds: float) -> None:
    """An automatic Tiger Baccarat table with a differential of 500, betting open."""
    body = {
        "id": "held",
        "game": "tiger-baccarat",
        "mode": "auto",
        "confirm_player_favoured": ["tiger_pair"],  # the literal reading of 1.1.14
        "limits": DIFFERENTIAL,
        **QUICK,
        "betting_seconds": betting_seconds,
    }
    assert client.post("/api/tables", headers=login(client, PIT), json=body).status_code == 201
    wait_for(
        lambda: (client.get("/api/tables/held").json()["round"] or {}).get("phase") == "betting"
    )


def test_tiger_baccarat_5_18_running_automatic_dealer_waits_for_the_pit_without_retrying(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """With its dealer task running: the betting time ends with the
    differential exceeded; the dealer asks, and no step fails (it used to
    retry 'No more bets' every second, logging a failure each time); the
    pit's removal wakes it and the round goes on and settles on the ledger."""
    with TestClient(make_app(db_url, auto_dealers=True)) as client:
        pit = login(client, PIT)
        _held_table(client, betting_seconds=2.0)

        def phase() -> str | None:
            r = client.get("/api/tables/held").json()["round"]
            return None if r is None else str(r["phase"])

        wait_for(lambda: phase() == "betting")
        heavy = _bet(client, "held", PLAYER, "banker", "1000")
        _bet(client, "held", PLAYER2, "player", "200")
        wait_for(lambda: client.get("/api/tables/held").json()["round"]["differential"]["asked"])
        time.sleep(1.5)  # long enough for the old retry loop to fail again
        assert phase() == "betting"
        failed = [r for r in caplog.records if "automatic dealer step failed" in r.getMessage()]
        assert failed == []
        assert [n.clause for n in _notes(client, "held")] == ["5.18.1"]
        _money(client, demo="9000.00", demo2="9800.00")
        removed = _post(client, f"/api/tables/held/bets/{heavy}/remove", pit)
        assert removed.status_code == 200, removed.text
        round_id = client.get("/api/tables/held").json()["round"]["id"]
        wait_for(
            lambda: (
                phase() == "settled"
                or client.get("/api/tables/held").json()["round"]["id"] != round_id
            )
        )
        dealer = login(client, DEALER)

        def both_results() -> list[dict[str, str]] | None:
            detail = client.get(f"/api/tables/held/rounds/{round_id}", headers=dealer)
            found: list[dict[str, str]] = detail.json()["results"]
            return found if len(found) == 2 else None

        # the round's results are read from the books, which the settlement
        # reaches a moment after the table's phase says "settled"
        settled = wait_for(both_results)
        outcomes = {r["player"]: (r["wager"], r["outcome"], r["payout"]) for r in settled}
        assert outcomes["demo"][:2] == ("banker", "withdrawn")  # removed, returned whole
        assert outcomes["demo2"][:2] == (
            "player",
            {"400.00": "win", "200.00": "push"}.get(outcomes["demo2"][2], "lose"),
        )
        payout = outcomes["demo2"][2]  # what the cards decided: 400.00, 200.00 or 0.00
        cents = 980000 + int(payout.replace(".", ""))
        _money(client, demo=START, demo2=f"{cents // 100}.{cents % 100:02d}")


def test_tiger_baccarat_5_18_2_an_increase_that_meets_the_differential_wakes_the_dealer(
    db_url: str,
) -> None:
    """The dealer waiting on the players goes on when a player on the lighter
    hand increases it to within the differential: a bet wakes a dealer that
    waits for the players, though not one that waits for the clock (below)."""
    with TestClient(make_app(db_url, auto_dealers=True)) as client:
        _held_table(client, betting_seconds=1.0)
        _bet(client, "held", PLAYER, "banker", "1000")
        _bet(client, "held", PLAYER2, "player", "200")
        wait_for(lambda: client.get("/api/tables/held").json()["round"]["differential"]["asked"])
        round_id = client.get("/api/tables/held").json()["round"]["id"]
        _bet(client, "held", PLAYER2, "player", "300")  # 1,000 against 500: within 500
        wait_for(
            lambda: (
                client.get("/api/tables/held").json()["round"]["phase"] == "settled"
                or client.get("/api/tables/held").json()["round"]["id"] != round_id
            )
        )
        detail = client.get(f"/api/tables/held/rounds/{round_id}", headers=login(client, DEALER))
        assert len(detail.json()["results"]) == 3  # the three bets, settled
        check_books(client)


def test_bets_do_not_wake_a_dealer_waiting_for_the_end_of_betting(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bet used to wake the automatic dealer, which looked at the table
    (a worker thread and the table's lock, a bet's while) only to find the
    betting time not over: a dealer waiting for the clock is left asleep."""
    with TestClient(make_app(db_url, auto_dealers=True)) as client:
        _held_table(client, betting_seconds=60.0)
        runtime = server_of(client).tables["held"]
        looks: list[float | None] = []
        step = runtime.step

        def counted() -> float | None:
            looks.append(delay := step())
            return delay

        monkeypatch.setattr(runtime, "step", counted)
        for _ in range(10):
            _bet(client, "held", PLAYER, "banker", "10")
            _bet(client, "held", PLAYER2, "player", "10")
        # Counted before the close: once betting closes, the dealer deals the
        # coup in as many looks as it takes, however fast it runs.
        during_betting = len(looks)
        assert during_betting < 5, looks
        closed = client.post("/api/tables/held/round/close", headers=login(client, DEALER))
        assert closed.status_code == 200, closed.text
        wait_for(lambda: client.get("/api/tables/held").json()["round"]["phase"] != "betting")
        wait_for(lambda: len(looks) > during_betting)  # the dealer's action woke it


def test_tiger_buffalo_5_1_excess_rejected_at_close_and_nobody_is_asked(
    client: TestClient,
) -> None:
    new_table(client, id="rws-diff", game="tiger-buffalo", layout="A", limits=DIFFERENTIAL)
    dealer, pit = login(client, DEALER), login(client, PIT)
    assert _post(client, "/api/tables/rws-diff/round/open", dealer).status_code == 200
    # a Tiger Buffalo box holds at most the maximum Differential (RWS 3.6, 5.1):
    # Banker 1,000 is two boxes of 500 (demo's, then demo2's); the table is 800 apart
    _bet(client, "rws-diff", PLAYER, "banker", "500")
    heavy = _bet(client, "rws-diff", PLAYER2, "banker", "500")
    _bet(client, "rws-diff", PLAYER2, "player", "200")
    refused = client.post(
        f"/api/tables/rws-diff/bets/{heavy}/decrease",
        headers=login(client, PLAYER2),
        json={"stake": "300"},
    )
    assert refused.status_code == 409, refused.text
    assert error_of(refused)["clause"] == "5.1"
    refused = _post(client, f"/api/tables/rws-diff/bets/{heavy}/remove", pit)
    assert refused.status_code == 409, refused.text
    assert error_of(refused)["clause"] == "5.1"
    can = client.get("/api/tables/rws-diff", headers=dealer).json()["staff"]["can"]
    assert can["close"] is True  # the console's button rejects the excess (5.1)
    closed = _post(client, "/api/tables/rws-diff/round/close", dealer)
    assert closed.status_code == 200, closed.text
    assert closed.json()["rejected"] == [heavy]
    # 300 of the later Banker 500 (demo2's) rejected, standing on 200
    _money(client, demo="9500.00", demo2="9600.00")


# -- RWS 4.2.2: a private table without Insurance ---------------------------------------------


def test_tiger_buffalo_4_2_2_pit_manager_sets_a_table_without_insurance_between_rounds(
    client: TestClient,
) -> None:
    table = new_table(client, id="private", game="tiger-buffalo", layout="A", card_source="device")
    pit, dealer, player = login(client, PIT), login(client, DEALER), login(client, PLAYER)
    off = {"insurance_offered": False}
    for who in (dealer, player):
        refused = client.patch(f"/api/tables/{table}", headers=who, json=off)
        assert refused.status_code == 403, refused.text
        assert error_of(refused)["clause"] == "4.2.2"
    assert _post(client, f"/api/tables/{table}/round/open", dealer).status_code == 200
    during = client.patch(f"/api/tables/{table}", headers=pit, json=off)
    assert during.status_code == 409, during.text
    assert error_of(during)["clause"] == "4.2.2"
    assert client.get(f"/api/tables/{table}").json()["table"]["insurance_notice"] is None
    shift = shift_manager(client)
    assert (
        _post(client, f"/api/tables/{table}/round/void", shift, {"reason": "x"}).status_code == 200
    )

    changed = client.patch(f"/api/tables/{table}", headers=pit, json=off)
    assert changed.status_code == 200, changed.text
    assert changed.json()["insurance_offered"] is False
    notice = {"clause": "4.2.2", "text": "No Insurance Plus at this table"}
    assert client.get(f"/api/tables/{table}").json()["table"]["insurance_notice"] == notice
    log = server_of(client).tables[table].table.log
    configured = [e.event for e in log.read(table) if isinstance(e.event, TableConfigured)]
    assert configured[-1].insurance_offered is False
    audit = client.get(f"/api/pit/audit?table_id={table}", headers=pit).json()
    assert audit[0]["action"] == "update_table"
    assert audit[0]["detail"]["changes"] == off

    # The next round offers no Insurance where it would have (four cards, Player 5 v 4).
    assert _post(client, f"/api/tables/{table}/round/open", dealer).status_code == 200
    _bet(client, table, PLAYER, "player", "100")
    assert _post(client, f"/api/tables/{table}/round/close", dealer).status_code == 200
    deal_cards(client, dealer, table, "3H 4C 2D KS")
    state = client.get(f"/api/tables/{table}", headers=player).json()
    assert state["round"]["insurance"] is None
    assert state["me"]["insurance_caps"] == {}
    refused = client.post(
        f"/api/tables/{table}/bets",
        headers=player,
        json={"wager": "player_insurance", "stake": "50"},
    )
    assert refused.status_code == 422, refused.text
    assert error_of(refused)["clause"]
    deal_cards(client, dealer, table, "3S 5D")  # Player 8, Banker 9: Banker wins
    assert _post(client, f"/api/tables/{table}/round/settle", dealer).status_code == 200
    _money(client, demo="9900.00")
    # A table is restarted with the setting (it is stored).
    assert server_of(client).store.get(table).insurance_offered is False


def test_tiger_buffalo_4_2_2_is_no_setting_at_a_game_without_it(
    client: TestClient,
) -> None:
    pit = login(client, PIT)
    body = {"id": "mbs-ins", "game": "tiger-baccarat", "insurance_offered": False}
    refused = client.post("/api/tables", headers=pit, json=body)
    assert refused.status_code == 422, refused.text
    assert "without Insurance" in error_of(refused)["message"]
    assert client.get("/api/tables/mbs-ins").status_code == 404
