"""No money moves on one person's word (docs/security.md, "A staff member's
word"): at a table whose cards the server shuffles and deals, after a
complete coup in which the player lost, each claim its shoe disproves is
refused -- by the dealer alone and by the pit manager alone -- naming the
record; no balance moves, nothing is written, and the round settles on the
cards dealt.  Where the record cannot decide (cards keyed from a physical
shoe), the claim waits for a second person and a rejected one moves nothing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.errors import PuntoError
from punto.rules.cards import parse_cards
from punto.rules.coup import Deal
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    balance,
    check_books,
    confirmed,
    error_of,
    login,
    new_table,
    next_cards,
    physical_shoe,
    server_of,
    shift_manager,
)

#: Each claim the shoe of a server-dealt table disproves, with its parameters.
CLAIMS: dict[str, dict[str, Any]] = {
    "foreign_card": {"card": "AS"},
    "unshuffled_cards": {},
    "extra_or_missing_cards": {},
    "insufficient_cards": {"remaining": 0},
    "cards_in_wrong_order": {},  # the intended order: the coup's cards otherwise
    "order_altered": {"reconstructable": False},
}


def _lost_coup(client: TestClient, table: str) -> tuple[dict[str, str], list[str]]:
    """Rounds at ``table`` (the server's own shoe) with demo on the side the
    cards then beat, until one is a complete coup demo lost; demo's headers
    and the coup's cards."""
    dealer, player = login(client, DEALER), login(client, PLAYER)
    runtime = server_of(client).tables[table]
    for _ in range(40):
        assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
        bet = client.post(
            f"/api/tables/{table}/bets", headers=player, json={"wager": "player", "stake": "100"}
        )
        assert bet.status_code == 201, bet.text
        assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
        while client.post(f"/api/tables/{table}/round/deal", headers=dealer).json()["phase"] == (
            "dealing"
        ):
            pass
        r = runtime.round
        assert r is not None
        coup = r.deal.to_coup()
        if coup.winner.value == "banker":
            return player, [str(c) for c in r.deal.cards]
        assert client.post(f"/api/tables/{table}/round/settle", headers=dealer).status_code == 200
    pytest.fail("no coup the Banker won in 40 rounds")


def _another_coup(cards: list[str]) -> list[str]:
    """The same cards in another order the Table of Play accepts: the order a
    dealer would claim they were meant to come in."""
    for order in itertools.permutations(cards):
        if list(order) == cards:
            continue
        try:
            Deal(tuple(parse_cards(" ".join(order))))
        except PuntoError:
            continue
        return list(order)
    pytest.fail(f"no other coup of {cards}")


def _events(client: TestClient, table: str) -> int:
    return len(list(server_of(client).tables[table].table.log.read(table)))


@pytest.mark.parametrize("claimant", [DEALER, PIT], ids=["dealer", "pit-manager"])
@pytest.mark.parametrize("name", list(CLAIMS))
def test_a_claim_the_servers_shoe_disproves_is_refused_naming_the_record(
    client: TestClient, name: str, claimant: tuple[str, str]
) -> None:
    table = new_table(client, id="sealed", game="tiger-baccarat")
    player, cards = _lost_coup(client, table)
    before, written = balance(client, player), _events(client, table)
    body = dict(CLAIMS[name])
    if name == "cards_in_wrong_order":
        body["intended"] = _another_coup(cards)
    refused = client.post(
        f"/api/tables/{table}/irregularities/{name}", headers=login(client, claimant), json=body
    )
    assert refused.status_code == 409, refused.text
    error = error_of(refused)
    assert error["type"] == "RecordError"
    assert "shoe s1" in error["message"]
    if name != "insufficient_cards":  # the others name the round's cards in the shoe
        assert f"round r{server_of(client).tables[table].round.round_id[1:]}" in error["message"]  # type: ignore[union-attr]
        assert " ".join(cards) in error["message"]
    assert balance(client, player) == before
    assert _events(client, table) == written
    audit = client.get("/api/pit/audit", headers=login(client, PIT), params={"table_id": table})
    refusal = audit.json()[0]
    assert (refusal["action"], refusal["username"]) == ("claim_refused", claimant[0])
    assert refusal["detail"]["procedure"] == name
    # the round settles on the cards dealt: the player's Player bet lost
    settled = client.post(f"/api/tables/{table}/round/settle", headers=login(client, DEALER))
    assert settled.status_code == 200, settled.text
    assert settled.json()["winner"] == "banker"
    assert balance(client, player) == before
    check_books(client)


def test_a_keyed_tables_claim_moves_nothing_until_confirmed_and_nothing_when_rejected(
    client: TestClient,
) -> None:
    """At a physical shoe the record cannot tell a foreign card: the dealer's
    claim waits; the dealer cannot confirm it; the pit manager rejects it and
    nothing moves; a second claim, confirmed, voids the round."""
    table = new_table(client, id="keyed", game="tiger-baccarat")
    physical_shoe(client, table)
    dealer, player, pit = login(client, DEALER), login(client, PLAYER), login(client, PIT)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    placed = client.post(
        f"/api/tables/{table}/bets", headers=player, json={"wager": "player", "stake": "100"}
    )
    assert placed.status_code == 201, placed.text
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    for card in ("2H", "9C", "3D", "KS"):  # Player 5, Banker 9: the player lost
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    lost = balance(client, player)
    filed = client.post(
        f"/api/tables/{table}/irregularities/foreign_card", headers=dealer, json={"card": "AS"}
    )
    assert filed.status_code == 202, filed.text
    claim = filed.json()["claim"]
    assert confirmed(client, table, filed, dealer).status_code in (403, 409)
    assert balance(client, player) == lost
    rejected = client.post(
        f"/api/tables/{table}/claims/{claim['claim_id']}/reject",
        headers=pit,
        json={"reason": "the card is the shoe's own"},
    )
    assert rejected.status_code == 200, rejected.text
    assert rejected.json()["claim"]["status"] == "rejected"
    assert balance(client, player) == lost
    again = client.post(
        f"/api/tables/{table}/irregularities/foreign_card", headers=dealer, json={"card": "AS"}
    )
    done = confirmed(client, table, again, pit)
    assert done.status_code == 200, done.text
    assert done.json()["phase"] == "void"
    assert balance(client, player) == "10000.00"
    audit = client.get("/api/pit/audit", headers=pit, params={"table_id": table}).json()
    actions = [(a["action"], a["username"]) for a in audit[:4]]
    assert actions == [
        ("claim_confirmed", "pit"),
        ("claim_filed", "dealer"),
        ("claim_rejected", "pit"),
        ("claim_filed", "dealer"),
    ]
    check_books(client)


def test_mbs_5_17_a_power_failure_declared_by_a_dealer_opens_nothing_until_confirmed(
    client: TestClient,
) -> None:
    """MBS 5.17.1: with no outcome established, a power failure gives each
    player the option to withdraw -- once a Pit Supervisor or above other than
    the dealer who declared it confirms it."""
    table = new_table(client, id="power", game="tiger-baccarat")
    dealer, player, pit = login(client, DEALER), login(client, PLAYER), login(client, PIT)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    placed = client.post(
        f"/api/tables/{table}/bets", headers=player, json={"wager": "banker", "stake": "100"}
    )
    assert placed.status_code == 201, placed.text
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    assert client.post(f"/api/tables/{table}/round/deal", headers=dealer).status_code == 200
    declared = client.post(f"/api/tables/{table}/round/power-failure", headers=dealer)
    assert declared.status_code == 202, declared.text
    assert declared.json()["consequence"] == "pending"
    state = client.get(f"/api/tables/{table}", headers=player).json()
    assert state["round"]["withdrawal"] is None
    assert state["round"]["ruling_pending"]["clause"] in ("5.17", "5.17.1")
    taken = client.post(f"/api/tables/{table}/withdrawal", headers=player)
    assert taken.status_code == 409, taken.text  # no option is open on the dealer's word
    assert balance(client, player) == "9900.00"
    done = confirmed(client, table, declared, pit)
    assert done.status_code == 200, done.text
    assert done.json()["ruling"]["consequence"] == "withdrawal"
    assert done.json()["ruling"]["clause"] == "5.17.1"
    taken = client.post(f"/api/tables/{table}/withdrawal", headers=player)
    assert taken.status_code == 200, taken.text
    assert balance(client, player) == "10000.00"
    check_books(client)


@pytest.mark.parametrize(
    ("game", "order_known"),
    [
        ("tiger-baccarat", False),  # MBS 5.8.2.1: the round void
        ("tiger-baccarat", True),  # MBS 5.8.1: a withdrawal option
        ("dragon-tiger", True),
        ("tiger-no-commission", False),  # 5.3: void
        ("tiger-buffalo", True),  # RWS 5.11: a dealing error, the options of 5.13
    ],
)
def test_cards_drawn_together_at_a_table_whose_server_deals_one_at_a_time_are_refused(
    client: TestClient, game: str, order_known: bool
) -> None:
    """The server's shoe gives its cards one at a time in its order: a
    simultaneous draw, whether its order is claimed known or not, is refused
    by the record during the initial deal -- no void, no withdrawal option,
    no dealing error's options -- and the round deals on."""
    layout = {"layout": "A"} if game == "tiger-buffalo" else {}
    table = new_table(client, id="together", game=game, **layout)
    dealer, player = login(client, DEALER), login(client, PLAYER)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    placed = client.post(
        f"/api/tables/{table}/bets", headers=player, json={"wager": "player", "stake": "100"}
    )
    assert placed.status_code == 201, placed.text
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    assert client.post(f"/api/tables/{table}/round/deal", headers=dealer).status_code == 200
    before, written = balance(client, player), _events(client, table)
    together = [str(c) for c in next_cards(client, table, 2)]
    refused = client.post(
        f"/api/tables/{table}/irregularities/simultaneous_draw",
        headers=dealer,
        json={"cards": together, "order_known": order_known},
    )
    assert refused.status_code == 409, refused.text
    error = error_of(refused)
    assert error["type"] == "RecordError", error
    assert "shoe s1" in error["message"]
    assert balance(client, player) == before
    assert _events(client, table) == written
    state = client.get(f"/api/tables/{table}", headers=player).json()
    assert state["round"]["withdrawal"] is None
    assert state["round"].get("ruling_pending") is None
    dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer)
    assert dealt.status_code == 200, dealt.text


@pytest.mark.parametrize("game", ["tiger-baccarat", "dragon-tiger"])
def test_a_player_leaving_with_cards_the_servers_shoe_dealt_is_refused_by_the_record(
    client: TestClient, game: str
) -> None:
    """MBS 5.11 (Dragon Tiger 5.11) applies where a card's value cannot be
    ascertained via the dealing device: the server's shoe dealt every card and
    knows each.  A Gaming Shift Manager's ruling that a card left with a player
    -- which would have the missing card worked out from decks the staff
    describe, and replaced -- is refused by the record; the round settles on
    the cards the shoe dealt."""
    table = new_table(client, id="left", game=game)
    dealer, player, shift = login(client, DEALER), login(client, PLAYER), shift_manager(client)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    placed = client.post(
        f"/api/tables/{table}/bets", headers=player, json={"wager": "player", "stake": "100"}
    )
    assert placed.status_code == 201, placed.text
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    runtime = server_of(client).tables[table]
    assert client.post(f"/api/tables/{table}/round/deal", headers=dealer).status_code == 200
    r, shoe = runtime.round, runtime.table.shoe
    assert r is not None
    assert shoe is not None
    dealt = [str(c) for c in r.deal.cards]
    # the staff's account, true to the shoe: the next card left with a player face down,
    # two more set aside (5.11.1), the rest sorted into decks (5.11.2)
    after = [str(c) for c in shoe.order[shoe.position :]]
    before, written = balance(client, player), _events(client, table)
    refused = client.post(
        f"/api/tables/{table}/irregularities/left_with_cards",
        headers=shift,
        json={
            "on_table": [*dealt, None],
            "set_aside": after[1:3],
            "remaining": after[3:],
        },
    )
    assert refused.status_code == 409, refused.text
    error = error_of(refused)
    assert (error["type"], error["clause"]) == ("RecordError", "5.11"), error
    assert "knows the value of each" in error["message"]
    assert balance(client, player) == before
    assert _events(client, table) == written
    state = client.get(f"/api/tables/{table}", headers=player).json()
    assert state["round"].get("ruling_pending") is None
    assert runtime.round is not None
    assert [str(c) for c in runtime.round.deal.cards] == dealt
    check_books(client)
