"""The irregularity procedures of the rules through the table server
(``GET/POST /api/tables/{id}/irregularities``), on SQLite and PostgreSQL:
the procedures are replay's (punto.table.replay.IRREGULARITIES), run on the
table's own round and shoe, with the ledger following (voided and withdrawn
wagers returned exactly) and nothing written when one is refused."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.rules.coup import Deal
from punto.server.tables.hub import EVERYONE
from punto.table.events import CardDealt
from punto.table.replay import IRREGULARITIES
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    SHIFT,
    balance,
    check_books,
    confirmed,
    deal_cards,
    error_of,
    login,
    make_app,
    new_table,
    next_cards,
    physical_shoe,
    server_of,
)

# -- helpers ------------------------------------------------------------------------------------


def post(client: TestClient, path: str, headers: dict[str, str], json: Any = None) -> Any:
    response = client.post(path, headers=headers, json=json)
    assert response.status_code in (200, 201), response.text
    return response.json()


def open_with_bets(
    client: TestClient, table: str, bets: list[tuple[dict[str, str], str, str]]
) -> None:
    """Open a round, place ``bets`` (headers, wager, stake), close betting."""
    dealer = login(client, DEALER)
    post(client, f"/api/tables/{table}/round/open", dealer)
    for who, wager, stake in bets:
        post(client, f"/api/tables/{table}/bets", who, {"wager": wager, "stake": stake})
    post(client, f"/api/tables/{table}/round/close", dealer)


def events(client: TestClient, table: str) -> int:
    return len(list(server_of(client).tables[table].table.log.read(table)))


def irregularity(
    client: TestClient, table: str, name: str, headers: dict[str, str], body: Any = None
) -> Any:
    return client.post(f"/api/tables/{table}/irregularities/{name}", headers=headers, json=body)


# -- the list --------------------------------------------------------------------------------------


def test_the_procedures_of_each_game_are_listed_for_staff_only(client: TestClient) -> None:
    """Each game lists the procedures its rules cover (MBS 5; RWS 5), with
    their parameters as replay reads them; ``role`` is the server's."""
    new_table(client, id="buffalo-list", game="tiger-buffalo", layout="A")
    new_table(client, id="nc-list", game="tiger-no-commission")
    dealer, player = login(client, DEALER), login(client, PLAYER)
    buffalo = client.get("/api/tables/buffalo-list/irregularities", headers=dealer).json()
    names = [p["name"] for p in buffalo["procedures"]]
    assert {
        "excess_cards",
        "dealing_error_options",
        "forgotten_insurance",
        "squeeze_waiver",
    } <= set(names)
    assert "left_with_cards" not in names  # MBS 5.11 only
    assert "power_failure" not in names
    assert buffalo["dedicated"] == {"power_failure": "/round/power-failure"}
    excess = next(p for p in buffalo["procedures"] if p["name"] == "excess_cards")
    assert excess["summary"] == IRREGULARITIES["excess_cards"].summary
    assert excess["params"] == [
        {"name": "cards", "kind": "cards", "required": True, "default": None,
         "help": 'cards in order: "QH 9C" or ["QH", "9C"]'},
        {"name": "reconstructable", "kind": "flag", "required": False, "default": True,
         "help": "true or false"},
        {"name": "withdrawing", "kind": "players", "required": False, "default": [],
         "help": 'players: ["ann", "bob"]'},
    ]  # fmt: skip
    no_commission = client.get("/api/tables/nc-list/irregularities", headers=dealer).json()
    nc_names = {p["name"] for p in no_commission["procedures"]}
    assert "foreign_card" in nc_names
    assert "card_face_up_in_device" not in nc_names  # no such clause in its rules
    assert client.get("/api/tables/nc-list/irregularities", headers=player).status_code == 403
    assert client.get("/api/tables/nowhere/irregularities", headers=dealer).status_code == 404


# -- a void returns every stake --------------------------------------------------------------------


def test_mbs_5_1_foreign_card_voids_the_round_and_returns_every_stake(client: TestClient) -> None:
    """At a physical shoe whose cards the dealer keys, the record cannot tell
    a foreign card: the dealer's claim moves nothing until the pit manager
    confirms it from their own session; then the round is void and every
    stake returned, both people in the audit log."""
    table = new_table(client, id="tiger-foreign", game="tiger-baccarat")
    physical_shoe(client, table)
    dealer, player, player2 = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    open_with_bets(
        client,
        table,
        [(player, "banker", "100"), (player, "tiger", "25.50"), (player2, "player", "40")],
    )
    assert balance(client, player) == "9874.50"
    assert balance(client, player2) == "9960.00"
    post(client, f"/api/tables/{table}/round/deal", dealer, {"card": "9H"})
    filed = irregularity(client, table, "foreign_card", dealer, {"card": "QH"})
    assert filed.status_code == 202, filed.text
    assert filed.json()["claim"]["filed_by"] == "dealer"
    assert balance(client, player) == "9874.50"
    # the pit page sees the claim, the wagers it would return and their stakes
    pending = client.get(f"/api/tables/{table}/claims", headers=login(client, PIT)).json()
    assert pending["cards"] == ["9H"]
    assert {(a["player"], a["wager"], a["stake"], a["then"]) for a in pending["affected"]} == {
        ("demo", "banker", "100.00", "returned"),
        ("demo", "tiger", "25.50", "returned"),
        ("demo2", "player", "40.00", "returned"),
    }
    # nothing else happens at the table meanwhile
    waiting = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": "2C"})
    assert waiting.status_code == 409, waiting.text
    assert "a ruling is pending" in error_of(waiting)["message"]
    done = confirmed(client, table, filed, login(client, PIT))
    assert done.status_code == 200, done.text
    result = done.json()
    assert result["phase"] == "void"
    assert result["ruling"] == {
        "irregularity": "foreign_card",
        "role": "pit_manager",
        "clause": "5.1",
        "consequence": "void",
    }
    assert result["void"]["clause"] == "5.1"
    assert "(QH)" in result["void"]["reason"]
    assert balance(client, player) == "10000.00"
    assert balance(client, player2) == "10000.00"
    mine = client.get(f"/api/tables/{table}", headers=player).json()["me"]["results"]
    assert {(r["wager"], r["outcome"], r["payout"]) for r in mine} == {
        ("banker", "void", "100.00"),
        ("tiger", "void", "25.50"),
    }
    audit = client.get(
        "/api/pit/audit", headers=login(client, PIT), params={"table_id": table}
    ).json()
    assert [(e["action"], e["username"]) for e in audit[:2]] == [
        ("claim_confirmed", "pit"),
        ("claim_filed", "dealer"),
    ]
    assert audit[1]["detail"]["procedure"] == "foreign_card"
    assert audit[1]["detail"]["parameters"] == {"card": "QH"}
    # the console says when the claim was filed: the audit log's moment
    assert pending["claims"][0]["filed_at"] == audit[1]["at"]
    # The void is over: the next round opens.
    post(client, f"/api/tables/{table}/round/open", dealer)
    check_books(client)


# -- RWS 5.8 and 5.13 on Tiger Buffalo, with the server's own shoe --------------------------------


def test_rws_5_8_excess_cards_options_5_13_and_the_held_card_dealt_first(
    client: TestClient,
) -> None:
    """Round 1: two cards out of the device at once, before any was dealt:
    reconstructed by the Table of Play (5.8); no outcome established, so each
    player may continue or have the bet returned (5.13): demo2 takes it and
    gets exactly the stakes back.  Round 2: a whole coup and one card more out
    of the device: the extra card is held and dealt first next round (5.8);
    the outcome is established, so there is no option to take."""
    table = new_table(client, id="buffalo-excess", game="tiger-buffalo", layout="A")
    dealer, player, player2 = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    open_with_bets(
        client,
        table,
        [(player, "banker", "100"), (player2, "player", "50"), (player2, "banker", "20.25")],
    )
    assert balance(client, player2) == "9929.75"
    two = next_cards(client, table, 2)
    # A player not in the round cannot take the option: nothing is written.
    before = events(client, table)
    stranger = irregularity(
        client,
        table,
        "excess_cards",
        dealer,
        {"cards": [str(c) for c in two], "withdrawing": ["nobody"]},
    )
    assert stranger.status_code == 422, stranger.text
    assert "nobody" in error_of(stranger)["message"]
    assert "demo, demo2" in error_of(stranger)["hint"]
    assert events(client, table) == before

    filed = irregularity(
        client,
        table,
        "excess_cards",
        dealer,
        {"cards": " ".join(str(c) for c in two), "withdrawing": ["demo2"]},
    )
    # the option returns stakes: it waits for a second person (MBS 6.2)
    assert filed.status_code == 202, filed.text
    assert balance(client, player2) == "9929.75"
    done = confirmed(client, table, filed, login(client, PIT))
    assert done.status_code == 200, done.text
    result = done.json()
    assert result["ruling"]["clause"] == "5.8"
    assert result["ruling"]["consequence"] == "options"
    assert result["ruling"]["withdrawn"] == ["demo2"]
    assert result["phase"] == "dealing"
    assert result["held"] == []
    assert balance(client, player2) == "10000.00"  # 50 + 20.25 back, exactly
    assert balance(client, player) == "9900.00"  # demo plays on
    state = client.get(f"/api/tables/{table}", headers=player).json()
    assert [c["card"] for c in state["round"]["cards"]] == [str(c) for c in two]
    while post(client, f"/api/tables/{table}/round/deal", dealer)["phase"] == "dealing":
        pass
    settled = post(client, f"/api/tables/{table}/round/settle", dealer)
    payout = {"banker": "195.00", "player": "0.00", "tie": "100.00"}[settled["winner"]]
    assert balance(client, player) == f"{9900 + int(payout[:-3])}.00"
    check_books(client)

    # Round 2: the coup and one card more come out of the device.
    open_with_bets(client, table, [(player, "player", "100"), (player2, "banker", "10")])
    upcoming = next_cards(client, table, 7)
    deal = Deal()
    for n, card in enumerate(upcoming):
        deal = deal.add(card)
        if deal.is_complete:
            coup, extra = upcoming[: n + 1], upcoming[n + 1]
            break
    named = [str(c) for c in (*coup, extra)]
    before = events(client, table)
    refused = irregularity(
        client, table, "excess_cards", dealer, {"cards": named, "withdrawing": ["demo"]}
    )
    assert refused.status_code == 409, refused.text  # the outcome is established: no option
    assert error_of(refused)["clause"] == "5.8"
    assert events(client, table) == before
    with client.websocket_connect(f"/ws/tables/{table}", headers=dealer) as ws:
        # The socket is watching once its opening state comes (it is accepted
        # first): an act before that shows in the state, not as a message.
        assert ws.receive_json()["type"] == "state"
        held = irregularity(client, table, "excess_cards", dealer, {"cards": named})
        assert held.status_code == 200, held.text
        seen: list[dict[str, Any]] = []
        while len(seen) < 100 and not any(m["type"] == "cards_held" for m in seen):
            seen.append(ws.receive_json())
    # The staff see the card held (RWS 5.8), and each card where it went.
    assert [m for m in seen if m["type"] == "cards_held"] == [
        {"type": "cards_held", "round_id": held.json()["round_id"], "cards": [str(extra)],
         "clause": "5.8"}
    ]  # fmt: skip
    cards = [(m["card"], m["index"]) for m in seen if m["type"] == "card"]
    assert cards == [(str(c), n) for n, c in enumerate(coup)]
    ruling = held.json()["ruling"]
    assert ruling["consequence"] == "continue"
    assert ruling["next_round"] == [str(extra)]
    assert held.json()["held"] == [str(extra)]
    assert held.json()["phase"] == "result"
    post(client, f"/api/tables/{table}/round/settle", dealer)
    check_books(client)

    # Round 3: the held card is the first card dealt.
    open_with_bets(client, table, [(player, "banker", "10")])
    first = post(client, f"/api/tables/{table}/round/deal", dealer)
    assert first["card"] == str(extra)
    r = server_of(client).tables[table].round
    assert r is not None
    dealt = [e for e in r.events if isinstance(e, CardDealt)]
    assert (dealt[0].card, dealt[0].source) == (extra, "held")
    check_books(client)


# -- MBS 5.8.2 on Tiger Baccarat -------------------------------------------------------------------


def test_mbs_5_8_2_simultaneous_draw_order_decided_by_the_pit_manager(client: TestClient) -> None:
    """After the initial deal two cards come out of a physical shoe at once,
    their order not known: the Pit Manager sets the order, each player may
    withdraw all remaining wagers (5.8.2.2), and the cards go where the
    Table of Play says in the order set; a card the coup does not use is
    held."""
    table = new_table(client, id="tiger-simultaneous", game="tiger-baccarat", card_source="device")
    dealer, player, player2 = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    open_with_bets(client, table, [(player, "banker", "100"), (player2, "player", "60")])
    deal_cards(client, dealer, table, "2H 3D 2C 4S")  # Player 4 draws, Banker 7
    check_books(client)
    before_balance = balance(client, player2)
    decided = ["9C", "5H"]
    body = {"cards": ["5H", "9C"], "order_known": False, "withdrawing": ["demo2"]}
    # Without the order decided the procedure is refused, and writes nothing.
    before = events(client, table)
    undecided = irregularity(client, table, "simultaneous_draw", dealer, body)
    assert undecided.status_code == 409, undecided.text
    assert error_of(undecided)["clause"] == "5.8.2.2"
    assert events(client, table) == before
    # The order is decided by a Pit Manager (5.8.2.2): the dealer files the
    # claim, and nothing moves until a pit manager confirms it.
    filed = irregularity(client, table, "simultaneous_draw", dealer, {**body, "order": decided})
    assert filed.status_code == 202, filed.text
    assert filed.json()["claim"]["confirming"] == "pit_manager"
    assert balance(client, player2) == before_balance
    done = confirmed(client, table, filed, login(client, PIT))
    assert done.status_code == 200, done.text
    result = done.json()
    assert result["ruling"]["clause"] == "5.8.2.2"
    assert result["ruling"]["consequence"] == "withdrawal"
    assert result["ruling"]["role"] == "pit_manager"
    assert result["ruling"]["withdrawn"] == ["demo2"]
    assert balance(client, player2) == f"{int(before_balance[:-3]) + 60}.00"
    r = server_of(client).tables[table].round
    assert r is not None
    # the order set, not the order named: 9C to the Player (4 + 9 = 3); the
    # Banker stands on 7, and 5H is held for the next round
    assert [str(c) for c in r.deal.cards] == ["2H", "3D", "2C", "4S", "9C"]
    assert result["held"] == ["5H"]
    assert result["ruling"].get("next_round", []) == result["held"]
    post(client, f"/api/tables/{table}/round/settle", dealer)
    check_books(client)


def test_mbs_5_8_at_the_servers_own_shoe_no_cards_come_out_together(
    client: TestClient,
) -> None:
    """At a table whose cards the server shuffles and deals, the shoe gives
    its cards one at a time in its order, which the table's record holds: a
    void for an order not ascertainable in the initial deal (5.8.2.1), an
    order set after it (5.8.2.2) and the option of an order known (5.8.1)
    are each refused naming the record, by the dealer and by the pit
    manager; nothing is written, no balance moves, and the next card is the
    shoe's next."""
    table = new_table(client, id="virtual-simultaneous", game="tiger-baccarat")
    dealer, player, player2 = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    pit = login(client, PIT)
    for _ in range(30):  # until the initial deal leaves a third card to draw
        open_with_bets(client, table, [(player, "banker", "100"), (player2, "player", "60")])
        post(client, f"/api/tables/{table}/round/deal", dealer)
        post(client, f"/api/tables/{table}/round/deal", dealer)
        two = next_cards(client, table, 2)
        # in the initial deal, "their order unknown": the void of 5.8.2.1
        void = {"cards": [str(c) for c in two], "order_known": False}
        before = (events(client, table), balance(client, player), balance(client, player2))
        for who in (dealer, pit):
            refused = irregularity(client, table, "simultaneous_draw", who, void)
            assert refused.status_code == 409, refused.text
            error = error_of(refused)
            assert (error["type"], error["clause"]) == ("RecordError", "5.8.2.1")
            assert error["message"].startswith("round r")
            assert "was dealt by the table from shoe s1, cards" in error["message"]
            assert "the record holds that order" in error["message"]
        assert (events(client, table), balance(client, player), balance(client, player2)) == (
            before
        )
        last = post(client, f"/api/tables/{table}/round/deal", dealer)
        last = post(client, f"/api/tables/{table}/round/deal", dealer)
        if last["phase"] == "dealing":
            break
        post(client, f"/api/tables/{table}/round/settle", dealer)
    else:
        pytest.fail("no coup needed a third card")
    two = next_cards(client, table, 2)
    named, reversed_ = [str(c) for c in two], [str(two[1]), str(two[0])]
    before = (events(client, table), balance(client, player), balance(client, player2))
    # after the initial deal, an order "set" by the pit (5.8.2.2): refused
    body = {"cards": named, "order_known": False, "order": reversed_, "withdrawing": ["demo2"]}
    for who in (dealer, pit):
        refused = irregularity(client, table, "simultaneous_draw", who, body)
        assert refused.status_code == 409, refused.text
        assert (error_of(refused)["type"], error_of(refused)["clause"]) == (
            "RecordError",
            "5.8.2.2",
        )
    # "their order known" (5.8.1's option), in the shoe's order or another:
    # refused too -- the shoe gave them one at a time
    for order in (named, reversed_):
        known = {"cards": order, "order_known": True, "withdrawing": ["demo2"]}
        refused = irregularity(client, table, "simultaneous_draw", dealer, known)
        assert refused.status_code == 409, refused.text
        assert (error_of(refused)["type"], error_of(refused)["clause"]) == ("RecordError", "5.8")
    assert (events(client, table), balance(client, player), balance(client, player2)) == before
    assert post(client, f"/api/tables/{table}/round/deal", dealer)["card"] == named[0]
    check_books(client)


# -- who may decide -------------------------------------------------------------------------------


def test_mbs_6_1_unforeseen_is_for_the_shift_manager(client: TestClient) -> None:
    """MBS 6.1: what the rules do not cover is decided by the Gaming Shift
    Manager: a dealer files the void, nothing moves; a pit manager's
    confirmation is refused (403, nothing written); a shift manager's voids
    the round and returns every stake, both people in the audit log."""
    table = new_table(client, id="tiger-unforeseen", game="tiger-baccarat")
    admin, dealer, player = login(client, ADMIN), login(client, DEALER), login(client, PLAYER)
    shift = {"username": "shift", "password": "shift-password", "role": "shift_manager"}
    assert client.post("/api/users", headers=admin, json=shift).status_code == 201
    open_with_bets(client, table, [(player, "banker", "100")])
    post(client, f"/api/tables/{table}/round/deal", dealer)
    body = {"reason": "the table collapsed", "void": True}
    filed = irregularity(client, table, "unforeseen", dealer, body)
    assert filed.status_code == 202, filed.text
    assert filed.json()["claim"]["confirming"] == "shift_manager"
    assert filed.json()["claim"]["clause"] == "6.1"
    before = events(client, table)
    pit = confirmed(client, table, filed, login(client, PIT))
    assert pit.status_code == 403, pit.text
    assert error_of(pit)["clause"] == "6.1"
    assert events(client, table) == before
    assert balance(client, player) == "9900.00"
    done = confirmed(client, table, filed, login(client, SHIFT))
    assert done.status_code == 200, done.text
    assert done.json()["ruling"] == {
        "irregularity": "unforeseen",
        "role": "shift_manager",
        "clause": "6.1",
        "consequence": "void",
    }
    assert balance(client, player) == "10000.00"
    audit = client.get(
        "/api/pit/audit", headers=login(client, PIT), params={"table_id": table}
    ).json()
    assert [(e["action"], e["username"]) for e in audit[:2]] == [
        ("claim_confirmed", "shift"),
        ("claim_filed", "dealer"),
    ]
    check_books(client)


# -- refusals --------------------------------------------------------------------------------------


def test_unreadable_unknown_and_role_refused_and_nothing_written(client: TestClient) -> None:
    table = new_table(client, id="tiger-refusals", game="tiger-baccarat")
    dealer, player = login(client, DEALER), login(client, PLAYER)
    open_with_bets(client, table, [(player, "banker", "100")])
    post(client, f"/api/tables/{table}/round/deal", dealer)
    before = events(client, table)

    unknown = irregularity(client, table, "spilled_drink", dealer, {})
    assert unknown.status_code == 404
    assert "foreign_card" in error_of(unknown)["hint"]
    dedicated = irregularity(client, table, "power_failure", dealer, {})
    assert dedicated.status_code == 404
    assert "/round/power-failure" in error_of(dedicated)["hint"]

    bad_card = irregularity(client, table, "foreign_card", dealer, {"card": "ZZ"})
    assert bad_card.status_code == 422
    assert error_of(bad_card)["message"].startswith("card:")
    missing = irregularity(client, table, "insufficient_cards", dealer, {})
    assert missing.status_code == 422
    assert error_of(missing)["message"] == "insufficient_cards needs remaining"
    assert error_of(missing)["hint"] == "remaining: a whole number"
    wrong_kind = irregularity(
        client, table, "order_altered", dealer, {"reconstructable": "perhaps"}
    )
    assert wrong_kind.status_code == 422
    assert error_of(wrong_kind)["hint"] == "give true or false"
    extra = irregularity(client, table, "cut_card", dealer, {"cards": "QH"})
    assert extra.status_code == 422
    assert "takes no cards" in error_of(extra)["message"]
    role = irregularity(client, table, "foreign_card", dealer, {"role": "shift_manager"})
    assert role.status_code == 422
    assert "role" in error_of(role)["message"]
    # a confirmation is a second person's, from their own session: never a
    # password in the body (no password hashed outside the login's limits)
    for manager in ("pit", {"username": "pit", "password": "pit-password"}):
        in_body = irregularity(client, table, "foreign_card", dealer, {"manager": manager})
        assert in_body.status_code == 422, in_body.text
        assert "claims/{claim_id}/confirm" in error_of(in_body)["hint"]
    assert irregularity(client, table, "foreign_card", player, {}).status_code == 403
    decks = irregularity(client, table, "left_with_cards", dealer, {"shoe": 10**30})
    assert decks.status_code == 422  # MBS 2.1: not a number of decks in use
    assert error_of(decks)["clause"] == "2.1"
    assert error_of(decks)["hint"].startswith("4 to 10 decks")
    # The engine's refusal: the device holds enough cards, no void (MBS 5.3).
    enough = irregularity(client, table, "insufficient_cards", dealer, {"remaining": 40})
    assert enough.status_code == 409
    assert error_of(enough)["clause"] == "5.3"
    # and the shoe's own count is the record, whatever count is claimed
    empty = irregularity(client, table, "insufficient_cards", dealer, {"remaining": 0})
    assert empty.status_code == 409
    assert error_of(empty)["type"] == "RecordError"
    assert "there are cards enough" in error_of(empty)["message"]
    assert events(client, table) == before
    assert balance(client, player) == "9900.00"
    check_books(client)


def settle_a_decided_round(
    client: TestClient, table: str, *, tie: str | None = None
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Rounds of ``demo`` on Banker (and ``tie`` on Tie) and ``demo2`` on
    Player, 100 each, dealt and settled until one is not a tie; returns
    (winner, loser, the round's cards)."""
    dealer, ann, bob = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    bets = [(ann, "banker", "100"), (bob, "player", "100")] + ([(ann, "tie", tie)] if tie else [])
    keyed = server_of(client).tables[table].config.card_source == "device"
    while True:
        open_with_bets(client, table, bets)
        if keyed:  # a physical shoe: the dealer keys a Player Natural 9 over Banker 5
            for card in ("9H", "2C", "KD", "3S"):
                post(client, f"/api/tables/{table}/round/deal", dealer, {"card": card})
        while (
            not keyed
            and post(client, f"/api/tables/{table}/round/deal", dealer)["phase"] == "dealing"
        ):
            pass
        result = post(client, f"/api/tables/{table}/round/settle", dealer)
        if result["winner"] != "tie":
            r = server_of(client).tables[table].round
            assert r is not None
            cards = [str(c) for c in r.deal.cards]
            return (ann, bob, cards) if result["winner"] == "banker" else (bob, ann, cards)


@pytest.mark.parametrize(
    ("game", "config", "clause"),
    [("tiger-no-commission", {}, "5.2"), ("tiger-buffalo", {"layout": "A"}, "5.5.3")],
    ids=["no-commission-5.2", "buffalo-rws-5.5.3"],
)
def test_mbs_5_2_and_rws_5_5_3_a_settled_round_voided_takes_the_payments_back(
    client: TestClient, game: str, config: dict[str, str], clause: str
) -> None:
    """No Commission 5.2 (RWS 5.5.3): a hand dealt an incorrect number of cards, not
    reconstructable and noticed before the next round commences, voids the
    round even after settlement.  The server has paid it, so the ledger is
    resettled: the winnings go back to the house, the stakes lost back to
    their players -- both players exactly where the round found them, the
    table's win and the books as if it had not been played, the round off the
    roads."""
    table = new_table(client, id="incorrect", game=game, seed="5.2", **config)
    # the table's own device deals by the Table of Play: its record refutes a
    # wrong number of cards (punto.table.record); a physical shoe's cannot
    physical_shoe(client, table)
    ann, bob = login(client, PLAYER), login(client, PLAYER2)

    def both() -> tuple[Decimal, Decimal]:
        return Decimal(balance(client, ann)), Decimal(balance(client, bob))

    def win() -> Decimal:
        return Decimal(server_of(client).tables[table].figures()["win"])

    total = Decimal(20_000)
    *_, cards = settle_a_decided_round(client, table, tie="10")
    r = server_of(client).tables[table].round
    assert r is not None
    # Where the round found them: what they have now less what the round gave them.
    found = tuple(
        have - sum(s.net for s in r.results() if s.bet.player == who)
        for who, have in zip(("demo", "demo2"), both(), strict=True)
    )
    assert win() == total - sum(both())
    assert win() >= 10  # the Tie bet, at least, was lost
    coups = client.get(f"/api/tables/{table}/scoreboard").json()["stats"]["coups"]
    dealer = login(client, DEALER)

    body = {"cards": cards, "reconstructable": False}
    filed = irregularity(client, table, "incorrect_number_of_cards", dealer, body)
    assert filed.status_code == 202, filed.text  # a claim: nothing moves on the dealer's word
    assert both() != found
    logged = events(client, table)
    # Taking back what was paid is a pit manager's, confirming it as another
    # person: the dealer who filed it cannot.
    own = confirmed(client, table, filed, dealer)
    assert own.status_code == 409, own.text
    assert "another person confirms it" in error_of(own)["message"]
    assert events(client, table) == logged
    assert both() != found  # nothing was taken back

    def void() -> Any:
        return confirmed(client, table, filed, login(client, PIT))

    runtime = server_of(client).tables[table]
    published: list[dict[str, Any]] = []
    publish = runtime.publish

    def recording(message: dict[str, Any], audience: str = EVERYONE) -> None:
        published.append(message)
        publish(message, audience)

    runtime.publish = recording  # type: ignore[method-assign]
    done = void()
    # the watchers' roads lose the coup too
    boards = [m["scoreboard"]["stats"]["coups"] for m in published if m["type"] == "scoreboard"]
    assert boards == [coups - 1]
    assert done.status_code == 200, done.text
    assert done.json()["ruling"]["clause"] == clause
    assert done.json()["phase"] == "void"
    assert both() == found
    assert win() == total - sum(both())
    ledger = server_of(client).ledger
    history = ledger.history(f"player:{PLAYER[0]}") + ledger.history(f"player:{PLAYER2[0]}")
    memos = [p.memo for p in history if p.kind.value == "resettlement"]
    assert len(memos) == 3
    assert all(m is not None and m.endswith(f"({clause})") for m in memos), memos
    assert [ledger.bet_net(table, b.bet_id) for b in r.bets] == [0, 0, 0]
    board = client.get(f"/api/tables/{table}/scoreboard").json()
    assert board["stats"]["coups"] == coups - 1  # the ties before it stay on the roads
    audit = client.get("/api/pit/audit", headers=login(client, PIT)).json()
    assert any(e["action"] == "resettled" for e in audit), audit
    check_books(client)
    # Done twice, it finds the round void: nothing more moves.
    again = irregularity(client, table, "incorrect_number_of_cards", dealer, body)
    assert again.status_code == 409, again.text
    assert both() == found
    check_books(client)


def test_a_settled_round_is_not_voided_while_the_winnings_are_staked_elsewhere(
    client: TestClient,
) -> None:
    """The void would take back winnings the winner has staked at another
    table: refused with 402, nothing written (the round stands settled, the
    balances as they were); once the other bet is withdrawn the same
    procedure goes through."""
    table = new_table(client, id="nc-spent", game="tiger-no-commission")
    other = new_table(
        client,
        id="nc-other",
        game="tiger-no-commission",
        limits={"minimum": "10", "maximum": "100000"},
    )
    physical_shoe(client, table)
    winner, _, cards = settle_a_decided_round(client, table)
    dealer = login(client, DEALER)
    post(client, f"/api/tables/{other}/round/open", dealer)
    everything = balance(client, winner)
    staked = post(
        client, f"/api/tables/{other}/bets", winner, {"wager": "tie", "stake": everything}
    )
    assert balance(client, winner) == "0.00"
    body = {"cards": cards, "reconstructable": False}
    filed = irregularity(client, table, "incorrect_number_of_cards", dealer, body)
    logged = events(client, table)
    refused = confirmed(client, table, filed, login(client, PIT))
    assert refused.status_code == 402, refused.text
    error = error_of(refused)
    assert "cannot be resettled" in error["message"]
    assert error["clause"] == "5.2"
    assert "apply the procedure again" in error["hint"]
    assert events(client, table) == logged
    assert server_of(client).tables[table].round.phase.value == "settled"  # type: ignore[union-attr]
    assert balance(client, winner) == "0.00"
    check_books(client)
    withdrawn = client.delete(f"/api/tables/{other}/bets/{staked['bet']['bet_id']}", headers=winner)
    assert withdrawn.status_code == 200, withdrawn.text
    done = confirmed(client, table, filed, login(client, PIT))
    assert done.status_code == 200, done.text
    assert balance(client, winner) == "10000.00"
    check_books(client)


def test_a_resettlement_the_round_does_not_show_is_undone_at_start_up(db_url: str) -> None:
    """Should the server stop after the ledger is resettled but before the
    round's void is written, the round stands settled when it starts again,
    and start-up puts the settlement's payments back."""
    with TestClient(make_app(db_url)) as client:
        table = new_table(client, id="nc-crash", game="tiger-no-commission")
        winner, loser, _ = settle_a_decided_round(client, table)
        paid = {"winner": balance(client, winner), "loser": balance(client, loser)}
        runtime = server_of(client).tables[table]
        r = runtime.round
        assert r is not None
        with runtime.lock:  # the first half of a void after settlement, alone
            nets = {b.bet_id: 0 for b in r.bets}
            assert sorted(runtime._resettle(r, nets, "void (a test)")) == sorted(nets)
        assert balance(client, winner) == balance(client, loser) == "10000.00"
    with TestClient(make_app(db_url)) as client:
        ann, bob = login(client, PLAYER), login(client, PLAYER2)
        again = {balance(client, ann), balance(client, bob)}
        assert again == set(paid.values())
        assert server_of(client).tables[table].round.phase.value == "settled"  # type: ignore[union-attr]
        check_books(client)
