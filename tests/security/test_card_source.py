"""Security review, finding 1 (High): a dealer could choose the cards at a
shuffled-shoe table.

``POST /api/tables/{id}/round/deal {"card": "KS"}`` was taken at a table
whose cards come from the server's shuffled, committed shoe (card source
``virtual``), automatic tables included: the reviewer keyed KS twelve times
in two rounds (8 decks hold 8) to make a Tie win twice, and the shoe still
reported 416 cards left (413 after the draws), so the published commitment
no longer described the cards dealt.  The device-card endpoint took the same
path.  Each attack is replayed here as it was made and shown refused, with
nothing moved; at a physical shoe (card source ``device``) every card is
checked against the composition still in it, which the table's state shows.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.errors import PhaseError, ShoeError
from punto.eventlog import EventLog, MemoryEventLog
from punto.rules.cards import Card, parse_cards
from punto.rules.games import get_game
from punto.table import irregularities as irr
from punto.table.events import TABLE_STREAM, CardDealt, Event, ShoeStarted
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.round import Round
from punto.table.shoe_state import DeviceCardsError, OutsideCardError
from tests.server.test_server_support import (
    ADMIN,
    DEALER,
    PIT,
    PLAYER,
    balance,
    error_of,
    login,
    new_table,
    physical_shoe,
    server_of,
    shift_manager,
)

#: Six kings: Player 0, Banker 0, both draw a king: a Tie (Tiger Baccarat).
KINGS = ["KS"] * 6


def _bets_closed(client: TestClient, table: str) -> dict[str, str]:
    """Open a round, demo bets 10 on Tie and 100 on Banker, close betting;
    the dealer's headers."""
    dealer, player = login(client, DEALER), login(client, PLAYER)
    opened = client.post(f"/api/tables/{table}/round/open", headers=dealer)
    assert opened.status_code == 200, opened.text
    for wager, stake in (("tie", "10"), ("banker", "100")):
        bet = client.post(
            f"/api/tables/{table}/bets", headers=player, json={"wager": wager, "stake": stake}
        )
        assert bet.status_code == 201, bet.text
    closed = client.post(f"/api/tables/{table}/round/close", headers=dealer)
    assert closed.status_code == 200, closed.text
    return dealer


def _shoe(client: TestClient, table: str) -> Any:
    return client.get(f"/api/tables/{table}", headers=login(client, PIT)).json()["shoe"]


def test_tiger_baccarat_2_1_keyed_card_at_a_virtual_shoe_table_is_refused(
    client: TestClient,
) -> None:
    """The attack as found: KS keyed at a dealer table dealing from the
    server's shoe.  Refused under 2.1, no card dealt, the shoe untouched,
    the stakes still riding (demo 10,000 less 110)."""
    table = new_table(client, id="attack", game="tiger-baccarat")
    dealer = _bets_closed(client, table)
    before = _shoe(client, table)
    assert (before["source"], before["cards_left"]) == ("virtual", 416)
    keyed = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": "KS"})
    assert keyed.status_code == 409, keyed.text
    error = error_of(keyed)
    assert (error["type"], error["clause"]) == ("OutsideCardError", "2.1")
    assert "no card is chosen" in error["message"]
    state = client.get(f"/api/tables/{table}", headers=dealer).json()
    assert state["round"]["cards"] == []
    assert _shoe(client, table) == before  # the commitment still describes every card
    assert before["physical"] is False
    assert balance(client, login(client, PLAYER)) == "9890.00"
    # the shoe's next card is drawn as ever
    drawn = client.post(f"/api/tables/{table}/round/deal", headers=dealer)
    assert drawn.status_code == 200, drawn.text
    assert _shoe(client, table)["cards_left"] == 415


def test_tiger_baccarat_2_1_keyed_card_at_an_automatic_table_is_refused(
    client: TestClient,
) -> None:
    """The automatic table (the demo's ``tiger``) likewise: no keyed card."""
    dealer = _bets_closed(client, "tiger")
    keyed = client.post("/api/tables/tiger/round/deal", headers=dealer, json={"card": "KS"})
    assert keyed.status_code == 409, keyed.text
    assert (error_of(keyed)["type"], error_of(keyed)["clause"]) == ("OutsideCardError", "2.1")
    assert _shoe(client, "tiger")["cards_left"] == 416
    assert balance(client, login(client, PLAYER)) == "9890.00"


def test_tiger_baccarat_2_1_device_card_at_a_virtual_shoe_table_is_refused(
    client: TestClient,
) -> None:
    """The device-card endpoint, with a token the pit manager issued, at a
    table dealing from the server's shoe: refused the same way."""
    table = new_table(client, id="attack-device", game="tiger-baccarat")
    issued = client.post(f"/api/tables/{table}/device-token", headers=login(client, PIT))
    assert issued.status_code == 200, issued.text
    device = {"X-Device-Token": issued.json()["token"]}
    _bets_closed(client, table)
    posted = client.post(f"/api/tables/{table}/device/card", headers=device, json={"card": "KS"})
    assert posted.status_code == 409, posted.text
    assert (error_of(posted)["type"], error_of(posted)["clause"]) == ("OutsideCardError", "2.1")
    assert _shoe(client, table)["cards_left"] == 416
    assert balance(client, login(client, PLAYER)) == "9890.00"


def test_tiger_baccarat_2_1_physical_shoe_refuses_a_ninth_king_of_spades(
    client: TestClient,
) -> None:
    """A card-reading shoe of 8 decks: six kings make a Tie (demo wins 80 on
    Tie 8 to 1, Banker pushes), two more are taken, the ninth KS -- keyed or
    read -- is refused under 2.1 with the composition left in the state."""
    table = new_table(client, id="physical", game="tiger-baccarat", card_source="device")
    issued = client.post(f"/api/tables/{table}/device-token", headers=login(client, PIT))
    device = {"X-Device-Token": issued.json()["token"]}
    dealer = _bets_closed(client, table)
    for card in KINGS:
        dealt = client.post(f"/api/tables/{table}/device/card", headers=device, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    settled = client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text
    assert balance(client, login(client, PLAYER)) == "10080.00"  # +80 on Tie, Banker returned
    dealer = _bets_closed(client, table)
    for _ in range(2):
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": "KS"})
        assert dealt.status_code == 200, dealt.text
    for refused in (
        client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": "KS"}),
        client.post(f"/api/tables/{table}/device/card", headers=device, json={"card": "KS"}),
    ):
        assert refused.status_code == 409, refused.text
        error = error_of(refused)
        assert (error["type"], error["clause"]) == ("DeviceCardsError", "2.1")
        assert "its 8 decks hold 8 and 8 are already out" in error["message"]
    shoe = _shoe(client, table)  # nothing taken out by a refused card
    assert (shoe["physical"], shoe["decks"], shoe["cards_left"]) == (True, 8, 408)
    assert shoe["composition"]["KS"] == 0
    assert shoe["composition"]["KH"] == 8
    assert shoe["commitment"] is None  # the table does not shuffle a physical shoe
    # a card the shoe still holds goes on, and the round ends as the cards say
    for card in ("KH", "KD", "5C", "4C"):  # P: KS KS 5C = 5, B: KH KD 4C = 4
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    assert client.post(f"/api/tables/{table}/round/settle", headers=dealer).status_code == 200
    assert balance(client, login(client, PLAYER)) == "9970.00"  # Tie and Banker lost: -110
    assert server_of(client).table(table).table.cards.composition() is not None


def test_tiger_baccarat_3_22_card_source_changed_only_between_shoes_by_a_pit_manager(
    client: TestClient,
) -> None:
    """Before the first shoe the pit manager sets a physical shoe (audited);
    every other role is refused; with a shoe in use the change is refused
    under 3.22 (a shoe ends when its cutting card comes out); once the
    dealer has reported the cutting card and the round is over, it is
    taken, and the next shoe is the server's own."""
    table = new_table(client, id="switch", game="tiger-baccarat")
    change = {"card_source": "device"}
    for who in (DEALER, PLAYER, ADMIN):
        denied = client.patch(f"/api/tables/{table}", headers=login(client, who), json=change)
        assert denied.status_code == 403, denied.text
        assert error_of(denied)["type"] == "PermissionDeniedError"
    dealer_denied = client.patch(f"/api/tables/{table}", headers=login(client, DEALER), json=change)
    assert error_of(dealer_denied)["clause"] == "6.2"
    assert client.get(f"/api/tables/{table}").json()["table"]["card_source"] == "virtual"
    physical_shoe(client, table)  # the pit manager, before the first shoe
    entries = [
        e
        for e in client.get("/api/pit/audit", headers=login(client, PIT)).json()
        if e["action"] == "card_source"
    ]
    assert [(e["username"], e["detail"]["old"], e["detail"]["new"]) for e in entries] == [
        ("pit", "virtual", "device")
    ]
    dealer = _bets_closed(client, table)
    for card in KINGS[:2]:
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    back = {"card_source": "virtual"}
    for manager in (login(client, PIT), shift_manager(client)):
        refused = client.patch(f"/api/tables/{table}", headers=manager, json=back)
        assert refused.status_code == 409, refused.text
        assert (error_of(refused)["type"], error_of(refused)["clause"]) == ("PhaseError", "3.22")
    for card in KINGS[2:]:
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    assert client.post(f"/api/tables/{table}/round/settle", headers=dealer).status_code == 200
    assert balance(client, login(client, PLAYER)) == "10080.00"
    # the round is over but shoe s1 is still in use: still refused
    refused = client.patch(f"/api/tables/{table}", headers=login(client, PIT), json=back)
    assert refused.status_code == 409, refused.text
    assert "shoe s1 is in use" in error_of(refused)["message"]
    assert client.get(f"/api/tables/{table}").json()["table"]["card_source"] == "device"
    # the dealer reports the cutting card (3.22): the shoe ends with this round
    dealer = _bets_closed(client, table)
    cut = client.post(f"/api/tables/{table}/irregularities/cut_card", headers=dealer, json={})
    assert cut.status_code == 200, cut.text
    for card in ("9H", "2C", "KD", "3S"):  # Player 9 v Banker 5: Tie and Banker lose
        dealt = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": card})
        assert dealt.status_code == 200, dealt.text
    assert client.post(f"/api/tables/{table}/round/settle", headers=dealer).status_code == 200
    assert balance(client, login(client, PLAYER)) == "9970.00"
    changed = client.patch(f"/api/tables/{table}", headers=login(client, PIT), json=back)
    assert changed.status_code == 200, changed.text
    # the next shoe is the server's own, shuffled and committed: no keyed card
    dealer = _bets_closed(client, table)
    shoe = _shoe(client, table)
    assert (shoe["id"], shoe["physical"], shoe["cards_left"]) == ("s2", False, 416)
    assert shoe["commitment"]
    keyed = client.post(f"/api/tables/{table}/round/deal", headers=dealer, json={"card": "KS"})
    assert (keyed.status_code, error_of(keyed)["clause"]) == (409, "2.1")
    assert balance(client, login(client, PLAYER)) == "9860.00"


# -- the engine (punto.table.shoe_state, one place for the live table and the replay) ----------


def _live(log: EventLog[Event], *, physical: bool, decks: int = 8) -> LiveTable:
    return LiveTable(
        "t",
        get_game("tiger-baccarat"),
        limits=TableLimits(Decimal(10), Decimal(1000)),
        log=log,
        decks=decks,
        seed="cards",
        physical_shoe=physical,
    )


def _nets(r: Round) -> dict[str, Decimal]:
    r.settle()
    out = r.nets()
    assert sum(out.values(), Decimal(0)) + r.house_net() == 0
    return out


def _card(text: str) -> Card:
    return parse_cards(text)[0]


def test_tiger_baccarat_2_1_keyed_card_the_decks_no_longer_hold_is_refused() -> None:
    """A physical shoe of 4 decks holds 4 KS: the fifth, keyed or read, is
    refused under 2.1 and nothing is written; the composition left survives
    a restart (it is folded from the log)."""
    log = MemoryEventLog(TABLE_STREAM)
    table = _live(log, physical=True, decks=4)
    r = table.new_round()
    r.place_bet("ann", 1, "tie", Decimal(10))
    r.place_bet("bob", 2, "player", Decimal(100))
    r.close_betting()
    started = [s.event for s in log.read("t") if isinstance(s.event, ShoeStarted)]
    assert [(e.cards, e.decks, e.commitment) for e in started] == [((), 4, "")]
    for card, source in zip(parse_cards("KS KS KS KS"), ("keyed", "device") * 2, strict=True):
        r.deal_card(card, source)
    written = len(log.read("t"))
    for source in ("keyed", "device"):
        with pytest.raises(DeviceCardsError) as refused:
            r.deal_card(_card("KS"), source)
        assert refused.value.clause == "2.1"
        assert "its 4 decks hold 4 and 4 are already out" in refused.value.message
    assert len(log.read("t")) == written
    r.deal_card(_card("5C"), "keyed")  # Player 5; Banker 0 draws
    r.deal_card(_card("4C"), "device")  # Banker 4: Player wins
    assert _nets(r) == {"ann": Decimal(-10), "bob": Decimal(100)}
    left = table.cards.composition()
    assert left is not None
    assert (left[_card("KS")], left[_card("5C")], sum(left.values())) == (0, 3, 202)
    again = _live(log, physical=True, decks=4)
    assert again.cards.composition() == left


def test_tiger_baccarat_2_1_keyed_card_at_the_tables_own_shoe_is_refused() -> None:
    """At a table dealing from its own shuffled shoe no card is keyed in or
    read from outside (2.1): refused, nothing written, the shoe untouched;
    the shoe's own next card is dealt as ever."""
    log = MemoryEventLog(TABLE_STREAM)
    table = _live(log, physical=False)
    r = table.new_round()
    r.place_bet("ann", 1, "tie", Decimal(10))
    r.close_betting()
    assert table.shoe is not None
    position, written = table.shoe.position, len(log.read("t"))
    for source in ("keyed", "device"):
        with pytest.raises(OutsideCardError) as refused:
            r.deal_card(_card("KS"), source)
        assert refused.value.clause == "2.1"
    assert (table.shoe.position, len(log.read("t"))) == (position, written)
    table.deal_to_completion()
    dealt = [s.event.source for s in log.read("t") if isinstance(s.event, CardDealt)]
    assert set(dealt) == {"shoe"}
    # the seeded shoe's own cards: Player 3D 8C 3C = 4, Banker AH 5D = 6
    assert r.deal.cards == tuple(parse_cards("3D AH 8C 5D 3C"))
    assert _nets(r) == {"ann": Decimal(-10)}


def test_tiger_baccarat_3_22_card_source_changes_only_between_shoes() -> None:
    """The source of the cards changes when no shoe is in use: refused with
    a round in play or a shoe not ended (3.22), taken before the first shoe."""
    log = MemoryEventLog(TABLE_STREAM)
    table = _live(log, physical=False)
    table.set_physical_shoe(True)  # no shoe yet
    r = table.new_round()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.close_betting()
    with pytest.raises(PhaseError) as in_play:
        table.set_physical_shoe(False)
    assert in_play.value.clause == "3.22"
    for card in parse_cards("9H 2C KD 3S"):  # Player 9 v Banker 5
        r.deal_card(card, "keyed")
    assert _nets(r) == {"ann": Decimal(-100)}
    with pytest.raises(PhaseError) as in_use:
        table.set_physical_shoe(False)
    assert (in_use.value.clause, table.physical_shoe) == ("3.22", True)


def test_tiger_buffalo_5_8_physical_shoe_deals_a_held_card_before_its_next_card() -> None:
    """A card drawn in excess from a physical shoe is counted out of it once,
    held, and dealt first in the next round (5.8): a keyed card of the shoe
    is refused while it waits, and the table deals it (source held)."""
    log = MemoryEventLog(TABLE_STREAM)
    table = LiveTable(
        "t",
        get_game("tiger-buffalo"),
        limits=TableLimits(Decimal(10), Decimal(1000)),
        log=log,
        layout="A",
        physical_shoe=True,
    )
    first = table.new_round()
    first.place_bet("ann", 1, "player", Decimal(100))
    first.close_betting()
    for card in parse_cards("8S 6H 9D 3S"):  # Player 7 v Banker 9, a Natural
        first.deal_card(card, "device")
    irr.excess_cards(first, parse_cards("9S"))
    assert table.held == tuple(parse_cards("9S"))
    assert _nets(first) == {"ann": Decimal(-100)}
    second = table.new_round()
    second.place_bet("ann", 1, "player", Decimal(100))
    second.close_betting()
    with pytest.raises(ShoeError) as refused:
        second.deal_card(_card("9D"), "keyed")
    assert refused.value.clause == "5.8"
    table.draw()  # the held 9S
    for card in parse_cards("9D JH AD"):  # Player 9S JH = 9 v Banker 9D AD = 0
        second.deal_card(card, "keyed")
    assert _nets(second) == {"ann": Decimal(100)}
    left = table.cards.composition()
    assert left is not None
    assert (left[_card("9S")], left[_card("9D")], sum(left.values())) == (7, 6, 416 - 8)
