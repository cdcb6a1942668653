"""The limits clauses apply by default, as written.

MBS 3.5.1, 3.7, 3.7.1, 5.14; RWS 3.6, 5.1, 5.1.1, 5.1.2, 5.14.2; the layout
appendices' "available with N to M playing positions".  Every test that moves
money checks every player's exact net.  The readings are in
docs/interpretations.md ("Limits: by area and box, by default").
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.cli import main
from punto.errors import ActionError, LimitError
from punto.rules.cards import parse_cards
from punto.rules.games import get_game
from punto.table.bet_limits import positions, scale_down
from punto.table.limits import TableLimits
from punto.table.round import Round
from tests.server import test_server_support as support

D = Decimal
PLAYER_NINE = "9H 2C KD 3S"  # Player 9 v Banker 5, naturals
BANKER_NINE = "2H 9C 3D KS"  # Player 5 v Banker 9
TIE_SEVEN = "4H 3C 3D 4S"  # 7 v 7
MBS = TableLimits(D(10), D(1000))

client = support.client


def opened(game_id: str, limits: TableLimits = MBS, **options: Any) -> Round:
    r = Round(get_game(game_id), limits=limits, **options)
    r.open()
    return r


def finish(r: Round, cards: str, *, differential_noticed: bool = True) -> dict[str, Decimal]:
    r.close_betting(differential_noticed=differential_noticed)
    for card in parse_cards(cards):
        r.deal_card(card)
    r.settle()
    return r.nets()


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: dict[str, Any]
) -> tuple[int, dict[str, Any] | None, str]:
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    code, out, err = cli(capsys, "replay", str(path))
    return code, json.loads(out) if code == 0 else None, err


# -- MBS 3.7, 3.7.1: three wagers per playing area, by default ---------------------------------


def _three_per_area_by_default(game_id: str) -> None:
    r = opened(game_id)
    for player in ("ann", "bob", "cy"):
        r.place_bet(player, 1, "banker", D(100))
    with pytest.raises(LimitError) as refused:
        r.place_bet("dee", 1, "banker", D(100))
    assert refused.value.clause == "3.7"
    r.place_bet("dee", 2, "banker", D(100))  # another area takes it
    r.place_bet("ann", 1, "banker", D(50))  # ann adds to her wager: still three wagers
    nets = finish(r, PLAYER_NINE)
    assert nets == {"ann": -150, "bob": -100, "cy": -100, "dee": -100}
    assert r.house_net() == 450


def test_tiger_baccarat_3_7_fourth_wager_in_an_area_refused_with_no_configuration() -> None:
    _three_per_area_by_default("tiger-baccarat")


def test_dragon_tiger_3_7_fourth_wager_in_an_area_refused_with_no_configuration() -> None:
    _three_per_area_by_default("dragon-tiger")


def test_tiger_baccarat_3_7_1_pit_manager_restricts_an_area_to_fewer_wagers() -> None:
    r = opened("tiger-baccarat", TableLimits(D(10), D(1000), wagers_per_area=2))
    r.place_bet("ann", 3, "player", D(200))
    r.place_bet("bob", 3, "player", D(300))
    with pytest.raises(LimitError) as refused:
        r.place_bet("cy", 3, "player", D(100))
    assert refused.value.clause == "3.7.1"
    assert finish(r, PLAYER_NINE) == {"ann": 200, "bob": 300}


def _more_than_three_refused(game_id: str) -> None:
    for number in (4, 5):
        limits = TableLimits.from_json(
            {"minimum": "10", "maximum": "1000", "wagers_per_area": number}
        )
        with pytest.raises(LimitError) as refused:
            Round(get_game(game_id), limits=limits)
        assert refused.value.clause == "3.7.1"
        assert f"not {number}" in refused.value.message


def test_tiger_baccarat_3_7_1_more_than_three_wagers_per_area_refused() -> None:
    _more_than_three_refused("tiger-baccarat")


def test_dragon_tiger_3_7_1_more_than_three_wagers_per_area_refused() -> None:
    _more_than_three_refused("dragon-tiger")


def test_tiger_buffalo_3_5_no_rule_on_wagers_per_area_so_none_may_be_set() -> None:
    limits = TableLimits(D(10), D(1000), wagers_per_area=2)
    with pytest.raises(LimitError, match="no rule on the number of wagers"):
        Round(get_game("tiger-buffalo"), limits=limits, layout="A")


def test_tiger_baccarat_3_7_1_punto_table_refuses_more_than_three(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = cli(capsys, "table", "tiger-baccarat", "--wagers-per-area", "4")
    assert code == 2
    assert "--wagers-per-area" in err
    assert "(clause 3.7.1)" in err


def test_dragon_tiger_3_7_replay_refuses_a_fourth_wager_by_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bets = [
        {"action": "bet", "player": p, "position": 1, "wager": "banker", "stake": "100"}
        for p in ("ann", "bob", "cy", "dee")
    ]
    data = {
        "game": "dragon-tiger",
        "limits": {"minimum": "10", "maximum": "1000"},
        "actions": [{"action": "open"}, *bets],
    }
    code, _, err = replay(capsys, tmp_path, data)
    assert code == 2
    assert "actions[4]" in err
    assert "(clause 3.7)" in err
    data["limits"] = {"minimum": "10", "maximum": "1000", "wagers_per_area": 5}
    code, _, err = replay(capsys, tmp_path, data)
    assert code == 2
    assert "replay file refused" in err  # before any action is played
    assert "(clause 3.7.1)" in err


# -- MBS 3.5.1, RWS 3.6, 5.1: the maximum of an area or box ------------------------------------


def _area_maximum_is_the_areas(game_id: str) -> None:
    r = opened(game_id)
    r.place_bet("ann", 1, "banker", D(600))
    r.place_bet("bob", 1, "banker", D(400))  # the area now holds its maximum of 1000
    with pytest.raises(LimitError) as refused:
        r.place_bet("cy", 1, "banker", D(10))
    assert refused.value.clause == "3.5.1"
    with pytest.raises(LimitError):
        r.place_bet("ann", 1, "banker", D(10))
    r.place_bet("cy", 2, "banker", D(1000))
    assert finish(r, PLAYER_NINE) == {"ann": -600, "bob": -400, "cy": -1000}


def test_tiger_baccarat_3_5_1_area_maximum_holds_all_players_wagers_together() -> None:
    _area_maximum_is_the_areas("tiger-baccarat")


def test_dragon_tiger_3_5_1_area_maximum_holds_all_players_wagers_together() -> None:
    _area_maximum_is_the_areas("dragon-tiger")


def _area_over_maximum_settles_to_maximum(game_id: str) -> None:
    r = opened(game_id)
    r.place_bet("ann", 1, "banker", D(600))
    r.place_bet("bob", 1, "banker", D(700), enforce_limits=False)  # not noticed
    r.place_bet("cy", 1, "banker", D(300), enforce_limits=False)  # nor this
    r.place_bet("eve", 2, "player", D(800))
    r.place_bet("fay", 2, "player", D(500), enforce_limits=False)
    nets = finish(r, PLAYER_NINE)
    # the Banker area's 1000: ann's 600, then 400 of bob's 700; nothing of
    # cy's is within it (returned); the Player area's: eve's 800, fay's 200
    assert nets == {"ann": -600, "bob": -400, "cy": 0, "eve": 800, "fay": 200}
    assert [(s.outcome, s.settled_stake, s.clause) for s in r.results()] == [
        ("lose", D(600), None),
        ("lose", D(400), "5.15"),
        ("returned", D(0), "5.15"),
        ("win", D(800), None),
        ("win", D(200), "5.15"),
    ]


def test_tiger_baccarat_5_15_area_over_its_maximum_settles_to_the_maximum_in_order() -> None:
    _area_over_maximum_settles_to_maximum("tiger-baccarat")


def test_dragon_tiger_5_15_area_over_its_maximum_settles_to_the_maximum_in_order() -> None:
    _area_over_maximum_settles_to_maximum("dragon-tiger")


def test_tiger_buffalo_3_6_standing_players_take_up_only_the_balance() -> None:
    r = opened("tiger-buffalo", TableLimits(D(10), D(10000)), layout="A")
    r.place_bet("ann", 1, "player", D(6000))
    with pytest.raises(LimitError) as refused:
        r.place_bet("bob", 1, "player", D(10000), seated=False)
    assert refused.value.clause == "3.6"
    assert refused.value.hint == "stake at most 4000.00 there"
    r.place_bet("bob", 1, "player", D(4000), seated=False)  # the balance
    with pytest.raises(LimitError):
        r.place_bet("cy", 1, "player", D(10), seated=False)
    assert finish(r, PLAYER_NINE) == {"ann": 6000, "bob": 4000}


def test_tiger_buffalo_5_1_a_box_holds_at_most_the_maximum_differential() -> None:
    limits = TableLimits(D(100), D(50000), differential=D(20000))
    r = opened("tiger-buffalo", limits, layout="A")
    with pytest.raises(LimitError) as refused:
        r.place_bet("ann", 1, "banker", D(50000))
    assert refused.value.clause == "5.1"
    r.place_bet("ann", 1, "banker", D(20000))
    r.place_bet("bob", 2, "player", D(20000))
    assert finish(r, BANKER_NINE) == {"ann": 19000, "bob": -20000}


def test_tiger_buffalo_5_1_seated_priority_standing_excess_rejected() -> None:
    r = opened("tiger-buffalo", TableLimits(D(100), D(10000), differential=D(2000)), layout="A")
    r.place_bet("ann", 1, "banker", D(1500))
    sam = r.place_bet("sam", 1, "banker", D(500), seated=False)  # the box is full
    r.place_bet("ann", 1, "banker", D(500))  # a seated player has the priority
    r.place_bet("bob", 2, "player", D(1000))
    with pytest.raises(LimitError) as noticed:
        r.close_betting()
    assert noticed.value.clause == "5.1"
    assert r.reject_excess() == [sam]
    nets = finish(r, BANKER_NINE)
    assert nets == {"ann": 1900, "sam": 0, "bob": -1000}
    assert [s.outcome for s in r.results()] == ["win", "withdrawn", "win", "lose"]


def test_tiger_buffalo_5_1_rejecting_the_excess_never_leaves_a_bet_under_the_minimum() -> None:
    r = opened("tiger-buffalo", TableLimits(D(100), D(10000), differential=D(2000)), layout="A")
    r.place_bet("ann", 1, "banker", D(2000))
    cat = r.place_bet("cat", 3, "banker", D(100))
    sam = r.place_bet("sam", 3, "banker", D(500), seated=False)
    r.place_bet("bob", 2, "player", D(30), enforce_limits=False)
    # 570 over: sam's 500 goes, then 70 of cat's 100 -- which would leave 30,
    # under the minimum (5.2), so all of cat's bet is rejected
    assert r.reject_excess() == [sam, cat]
    assert [b.stake for b in r.active_bets] == [2000, 30]
    assert finish(r, PLAYER_NINE) == {"ann": -2000, "cat": 0, "sam": 0, "bob": 30}


# -- RWS 5.1.1, 5.1.2: pro rata within what is allowed -------------------------------------------


def test_tiger_buffalo_5_1_1_heavier_side_settles_on_no_more_than_lighter_plus_differential() -> (
    None
):
    limits = TableLimits(D(100), D(10000), differential=D(2000))
    r = opened("tiger-buffalo", limits, layout="A")
    r.place_bet("ann", 1, "player", D(1999))
    r.place_bet("cy", 3, "player", D(1000))
    r.place_bet("dee", 4, "player", D(50), enforce_limits=False)
    r.place_bet("eve", 5, "player", D(110))
    r.place_bet("bob", 2, "banker", D(500))
    nets = finish(r, PLAYER_NINE, differential_noticed=False)
    # 2500 allowed; dee's 50 stands (5.1.2); eve's 110 x 2450/3109 = 86.68 is
    # floored at 100; ann and cy share 2350 of 2999: 1566.40 and 783.59
    assert nets == {
        "ann": D("1566.40"),
        "cy": D("783.59"),
        "dee": D(50),
        "eve": D(100),
        "bob": D(-500),
    }
    settled = sum(s.settled_stake for s in r.results() if s.bet.wager == "player")
    assert settled <= 2500


def test_tiger_buffalo_5_1_1_scale_down_floors_at_the_minimum_and_stays_within() -> None:
    scaled = scale_down([D(3000), D(1000), D(50), D(150)], allowed=D(2500), minimum=D(100))
    assert scaled == [D("1762.50"), D("587.50"), D(50), D(100)]
    assert sum(scaled) == 2500


# -- RWS 5.1.1, 5.14.2 with Insurance: money follows the Original Bet that stands ------------------


def test_tiger_buffalo_5_14_2_returned_original_bet_takes_its_earlier_insurance_back_with_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = {
        "game": "tiger-buffalo",
        "layout": "A",
        "limits": {"minimum": "10", "maximum": "10000"},
        "actions": [
            {"action": "open"},
            {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
            {"action": "no_more_bets"},
            {"action": "card", "cards": "3H 4C 2D KS"},
            {"action": "insurance", "player": "ann", "wager": "player_insurance", "stake": "50"},
            {"action": "card", "cards": "3S 5D"},
            {
                "action": "forgotten_insurance",
                "moment": "player_third_card",
                "intended": {"ann": "player"},
                "role": "pit_manager",
            },
            {"action": "settle"},
        ],
    }
    code, report, err = replay(capsys, tmp_path, data)
    assert (code, err) == (0, "")
    assert report is not None
    bets = report["rounds"][0]["bets"]
    # Player 8 loses to Banker 9: the Original Bet comes back (5.14.2); the
    # Insurance placed at four cards (Player 5 v Banker 4, 3 to 2) insured it
    # (3.11) and no Original Bet stands: it comes back too, not a 75 win
    assert [(b["wager"], b["outcome"], b["net"], b["clause"]) for b in bets] == [
        ("player", "returned", "0.00", "5.14.2"),
        ("player_insurance", "returned", "0.00", "3.11"),
    ]
    assert report["players"] == {"ann": "0.00"}
    assert report["house_net"] == "0.00"


def test_tiger_buffalo_5_1_1_insurance_settles_on_the_pro_rated_original_bet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = {
        "game": "tiger-buffalo",
        "layout": "A",
        "limits": {"minimum": "10", "maximum": "10000", "differential": "1000"},
        "actions": [
            {"action": "open"},
            {
                "action": "bet",
                "player": "ann",
                "position": 1,
                "wager": "player",
                "stake": "5000",
                "enforce_limits": False,
            },
            {"action": "bet", "player": "bob", "position": 2, "wager": "banker", "stake": "1000"},
            {"action": "no_more_bets", "differential_noticed": False},
            {"action": "card", "cards": "3H 4C 2D KS"},
            {"action": "insurance", "player": "ann", "wager": "player_insurance", "stake": "5000"},
            {"action": "card", "cards": "2S 5D"},
            {"action": "settle"},
        ],
    }
    code, report, err = replay(capsys, tmp_path, data)
    assert (code, err) == (0, "")
    assert report is not None
    bets = report["rounds"][0]["bets"]
    # ann's box holds at most the 1000 differential: her 5000 loses on 1000
    # (5.1.1); her Insurance insures the 1000 that stands (3.11, 3.12.2) and
    # wins 3 to 2 on it; the other 4000 of it insured nothing and comes back
    assert [(b["player"], b["wager"], b["settled_stake"], b["net"], b["clause"]) for b in bets] == [
        ("ann", "player", "1000.00", "-1000.00", "5.1.1"),
        ("bob", "banker", "1000.00", "950.00", None),
        ("ann", "player_insurance", "1000.00", "1500.00", "5.1.1"),
    ]
    assert report["players"] == {"ann": "500.00", "bob": "950.00"}
    assert report["house_net"] == "-1450.00"


# -- MBS 5.14: a push is not the one time ---------------------------------------------------------


def _push_does_not_use_up_the_one_time(game_id: str) -> None:
    game = get_game(game_id)
    first = opened(game_id)
    first.place_bet("cy", 1, "banker", D(5), enforce_limits=False)
    first.place_bet("ann", 2, "player", D(100))
    assert finish(first, TIE_SEVEN) == {"cy": 0, "ann": 0}
    assert first.newly_under_minimum() == set()
    settled = first.newly_under_minimum()
    second = Round(game, limits=MBS, under_minimum_settled=settled)
    second.open()
    second.place_bet("cy", 1, "banker", D(5), enforce_limits=False)
    second.place_bet("ann", 2, "player", D(100))
    nets = finish(second, BANKER_NINE)
    win = second.results()[0]
    assert (win.outcome, win.clause) == ("win", "5.14")
    assert nets == {"cy": win.net, "ann": -100}
    assert win.net > 0
    assert second.newly_under_minimum() == {"cy"}
    third = Round(game, limits=MBS, under_minimum_settled=second.newly_under_minimum())
    third.open()
    third.place_bet("cy", 1, "banker", D(5), enforce_limits=False)
    assert finish(third, BANKER_NINE) == {"cy": 0}
    assert third.results()[0].outcome == "returned"


def test_tiger_baccarat_5_14_push_does_not_use_up_the_one_time() -> None:
    _push_does_not_use_up_the_one_time("tiger-baccarat")


def test_dragon_tiger_5_14_push_does_not_use_up_the_one_time() -> None:
    _push_does_not_use_up_the_one_time("dragon-tiger")


def test_tiger_no_commission_has_no_one_time_rule_under_minimum_settles_every_time() -> None:
    game = get_game("tiger-no-commission")
    for _ in range(2):  # no clause returns the second one
        r = Round(game, limits=MBS, under_minimum_settled={"cy"})
        r.open()
        r.place_bet("cy", 1, "banker", D(5), enforce_limits=False)
        assert finish(r, BANKER_NINE) == {"cy": D(5)}  # Banker 9 pays even money
        assert r.newly_under_minimum() == set()


# -- the layout appendices: N to M playing positions -------------------------------------------------


def _positions_1_to_m(game_id: str, layout: str, high: int) -> None:
    assert positions(get_game(game_id), layout) == (1, high)
    r = opened(game_id, layout=layout)
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", high, "player", D(100))
    with pytest.raises(ActionError) as refused:
        r.place_bet("cy", high + 1, "player", D(100))
    assert refused.value.hint == f"positions are 1 to {high}"
    nets = finish(r, PLAYER_NINE)
    assert nets == {"ann": -100, "bob": 100}


def test_tiger_baccarat_2_2_layout_e_of_8_to_16_positions_takes_1_to_16() -> None:
    _positions_1_to_m("tiger-baccarat", "E", 16)


def test_dragon_tiger_2_2_layout_e_of_8_to_16_positions_takes_1_to_16() -> None:
    _positions_1_to_m("dragon-tiger", "E", 16)


def test_tiger_no_commission_2_2_layout_d_of_5_to_9_positions_takes_1_to_9() -> None:
    _positions_1_to_m("tiger-no-commission", "D", 9)


def test_tiger_buffalo_2_1_1_layout_k_takes_positions_1_to_16() -> None:
    r = opened("tiger-buffalo", TableLimits(D(10), D(1000)), layout="K")
    r.place_bet("ann", 1, "player", D(100))
    r.place_bet("bob", 16, "banker", D(100))
    with pytest.raises(ActionError):
        r.place_bet("cy", 17, "player", D(100))
    assert finish(r, PLAYER_NINE) == {"ann": 100, "bob": -100}


# -- the server: who sets 3.7.1, and no more than three ------------------------------------------


def test_tiger_baccarat_3_7_1_pit_manager_patches_fewer_wagers_per_area(
    client: TestClient,
) -> None:
    table = support.new_table(client, id="areas", game="tiger-baccarat")
    runtimes = support.server_of(client).tables
    assert runtimes[table].config.limits.wagers_per_area is None  # the rules' three apply
    pit = support.login(client, support.PIT)
    fewer = {"limits": {"minimum": "10", "maximum": "1000", "wagers_per_area": 2}}
    dealer = client.patch(
        f"/api/tables/{table}", headers=support.login(client, support.DEALER), json=fewer
    )
    assert dealer.status_code == 403
    response = client.patch(f"/api/tables/{table}", headers=pit, json=fewer)
    assert response.status_code == 200, response.text
    assert response.json()["limits"]["wagers_per_area"] == 2
    more = {"limits": {"minimum": "10", "maximum": "1000", "wagers_per_area": 4}}
    refused = client.patch(f"/api/tables/{table}", headers=pit, json=more)
    assert refused.status_code in (400, 422), refused.text
    assert support.error_of(refused)["clause"] == "3.7.1"
    assert runtimes[table].config.limits.wagers_per_area == 2


def test_tiger_baccarat_3_7_1_server_table_of_one_wager_per_area_seats_the_next_player(
    client: TestClient,
) -> None:
    limits = {"minimum": "10", "maximum": "1000", "wagers_per_area": 1}
    table = support.new_table(
        client, id="single", game="tiger-baccarat", limits=limits, card_source="device"
    )
    dealer = support.login(client, support.DEALER)
    demo = support.login(client, support.PLAYER)
    demo2 = support.login(client, support.PLAYER2)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    first = client.post(
        f"/api/tables/{table}/bets", headers=demo, json={"wager": "banker", "stake": "100"}
    )
    assert first.status_code == 201, first.text
    assert first.json()["bet"]["position"] == 1
    crowded = client.post(
        f"/api/tables/{table}/bets",
        headers=demo2,
        json={"wager": "banker", "stake": "200", "position": 1},
    )
    assert crowded.status_code == 422, crowded.text
    assert support.error_of(crowded)["clause"] == "3.7.1"
    # with no position asked for, the bet goes where an area takes it
    second = client.post(
        f"/api/tables/{table}/bets", headers=demo2, json={"wager": "banker", "stake": "200"}
    )
    assert second.status_code == 201, second.text
    assert second.json()["bet"]["position"] == 2
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    support.deal_cards(client, dealer, table, BANKER_NINE)  # Banker 9 wins 0.95 to 1
    settled = client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text
    assert support.balance(client, demo) == "10095.00"
    assert support.balance(client, demo2) == "10190.00"
    support.check_books(client)


def test_tiger_baccarat_3_7_1_retried_bet_with_no_position_gets_its_first_answer(
    client: TestClient,
) -> None:
    limits = {"minimum": "10", "maximum": "1000", "wagers_per_area": 1}
    table = support.new_table(
        client, id="retry", game="tiger-baccarat", limits=limits, card_source="device"
    )
    dealer = support.login(client, support.DEALER)
    demo = support.login(client, support.PLAYER)
    demo2 = support.login(client, support.PLAYER2)
    bets = f"/api/tables/{table}/bets"
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    first = client.post(bets, headers=demo2, json={"wager": "banker", "stake": "100"})
    assert first.json()["bet"]["position"] == 1
    keyed = {**demo, "Idempotency-Key": "k-1"}
    body = {"wager": "banker", "stake": "200"}
    made = client.post(bets, headers=keyed, json=body)
    assert made.status_code == 201, made.text
    assert made.json()["bet"]["position"] == 2  # area 1 holds its one wager
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    support.deal_cards(client, dealer, table, PLAYER_NINE)
    assert client.post(f"/api/tables/{table}/round/settle", headers=dealer).status_code == 200
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    # the answer was lost; the same request comes again in the next round,
    # where position 1 is free: it is the same bet, answered as before
    again = client.post(bets, headers=keyed, json=body)
    assert again.status_code == 201, again.text
    assert again.json()["bet"]["bet_id"] == made.json()["bet"]["bet_id"]
    assert support.balance(client, demo) == "9800.00"
    assert support.balance(client, demo2) == "9900.00"
    support.check_books(client)


def test_an_areas_bets_are_the_active_bets_placed_there_whatever_happened_to_them() -> None:
    """A bet's limits are checked against its own area's bets (kept per area by
    the fold, not found by scanning every bet of the round): placed, withdrawn,
    reduced and replayed, each area holds exactly the active bets placed there."""
    r = opened("tiger-baccarat", TableLimits(D(10), D(100_000)))
    placed = []
    for n in range(30):
        player, position = f"p{n % 3}", n % 3 + 1
        wager = ("banker", "player", "tie")[n % 2]
        placed.append(r.place_bet(player, position, wager, D(10 + n)))
    r.withdraw_bet(placed[4])
    r.reduce_bet(placed[9], D(10))
    r.reduce_bet(placed[12], D(0))
    for round_ in (r, Round.replay(r.game, r.events, **r.options)):
        for position in (1, 2, 3):
            for wager in ("banker", "player", "tie"):
                expected = [
                    b for b in round_.active_bets if b.position == position and b.wager == wager
                ]
                assert round_.area_bets(position, wager) == expected
    assert sum(len(r.area_bets(p, w)) for p in (1, 2, 3) for w in ("banker", "player")) == 28
    # and the area's bets are what its limits count: a fourth player's wager is refused (3.7)
    r.place_bet("p1", 1, "banker", D(10))
    r.place_bet("p2", 1, "banker", D(10))
    assert len({b.player for b in r.area_bets(1, "banker")}) == 3
    with pytest.raises(LimitError, match="already holds 3 wagers"):
        r.place_bet("p9", 1, "banker", D(10))


def test_tiger_buffalo_5_1_1_insurance_bets_first_placed_are_the_ones_within_the_pro_rated_bet() -> (
    None
):
    """ann's unnoticed Player 5000 settles on 1000 (her box's maximum, the
    differential); her two Insurance bets after four cards, 600 then 900,
    together insure no more than that 1000: the first stands whole, the
    second on the 400 left, the rest of it returned (RWS 3.11, 3.12.2)."""
    r = Round(
        get_game("tiger-buffalo"),
        limits=TableLimits(D(10), D(10000), differential=D(1000)),
        layout="A",
    )
    r.open()
    r.place_bet("ann", 1, "player", D(5000), enforce_limits=False)
    r.place_bet("bob", 2, "banker", D(1000))
    r.close_betting(differential_noticed=False)
    for card in parse_cards("3H 4C 2D KS"):
        r.deal_card(card)
    first = r.place_insurance("ann", "player_insurance", D(600))
    second = r.place_insurance("ann", "player_insurance", D(900))
    for card in parse_cards("2S 5D"):
        r.deal_card(card)
    r.settle()
    by_id = {s.bet.bet_id: s for s in r.results()}
    assert (by_id["b1"].settled_stake, by_id["b1"].net) == (D(1000), D(-1000))
    assert (by_id[first].settled_stake, by_id[first].net, by_id[first].clause) == (
        D(600),
        D(900),
        None,
    )
    assert (by_id[second].settled_stake, by_id[second].net, by_id[second].clause) == (
        D(400),
        D(600),
        "5.1.1",
    )
    assert r.nets()["ann"] == D(500)


def test_limits_for_wagers_the_game_does_not_offer_are_refused_naming_them_and_the_offer() -> None:
    """A misspelt wager in the table's limits would leave the real one at the
    table's limits (3.5.1): refused, naming at most five of them, the layout,
    and the wagers there are; a wager the layout offers is taken."""
    from punto.table.bet_limits import check_limit_wagers

    def limits(*wagers: str) -> TableLimits:
        each = {"minimum": "10", "maximum": "50"}
        return TableLimits.from_json(
            {"minimum": "10", "maximum": "100", "wagers": dict.fromkeys(wagers, each)}
        )

    with pytest.raises(LimitError) as refused:
        check_limit_wagers(
            get_game("tiger-buffalo"), limits("a1", "a2", "a3", "a4", "a5", "a6"), "A"
        )
    assert str(refused.value) == (
        "limits.wagers: tiger-buffalo offers no 'a1', 'a2', 'a3', 'a4', 'a5' on layout A "
        "(clause 3.5); wagers: player, banker, tie, player_pair, banker_pair, big_tiger, "
        "small_tiger, big_buffalo, small_buffalo, player_char_siu, banker_char_siu, "
        "player_insurance, banker_insurance"
    )
    with pytest.raises(LimitError) as refused:
        check_limit_wagers(get_game("dragon-tiger"), limits("tigre"), None)
    assert str(refused.value) == (
        "limits.wagers: dragon-tiger offers no 'tigre' (clause 3.5.1); wagers: player, banker, "
        "tie, dragon_tiger, big_dragon, small_dragon, big_tiger, small_tiger"
    )
    check_limit_wagers(get_game("tiger-buffalo"), limits("player", "big_buffalo"), "A")
