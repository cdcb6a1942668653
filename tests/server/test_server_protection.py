"""Game protection on the table server: every bet valued when betting closes
(virtual and physical shoes, Insurance Plus when taken), its value beside its
result, ratings and alerts for the pit."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from punto.analysis.composition import Composition
from punto.analysis.tables import odds_table
from punto.protection.edges import table_edges
from punto.protection.players import Counter, FlatBettor, ShoeView, big_tiger_counter
from punto.rules.cards import Card
from punto.rules.games import get_game
from punto.rules.wagers import LITERAL_PAIR_WARNING, PairRule
from punto.server.tables.advantage import FAVOURED, AdvantageWatch
from punto.store.protection import StoredValue, round_values
from tests.server import test_server_support as support
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    deal_cards,
    error_of,
    login,
    new_table,
    physical_shoe,
    server_of,
    wait_for,
)


def valued(client: TestClient, table_id: str, round_id: str, bets: int) -> dict[str, StoredValue]:
    """The values of a round's bets, once all ``bets`` are stored (the worker
    and the journal write them after the round moves on)."""
    engine = server_of(client).engine

    def found() -> dict[str, StoredValue] | None:
        values = round_values(engine, table_id, round_id)
        return values if len(values) >= bets else None

    result: dict[str, StoredValue] = wait_for(found, timeout=30)
    return result


def bet(client: TestClient, who: dict[str, str], table_id: str, wager: str, stake: str) -> str:
    response = client.post(
        f"/api/tables/{table_id}/bets", headers=who, json={"wager": wager, "stake": stake}
    )
    assert response.status_code == 201, response.text
    bet_id: str = response.json()["bet"]["bet_id"]
    return bet_id


def play_round(
    client: TestClient,
    table_id: str,
    bets: list[tuple[dict[str, str], str, str]],
    cards: str | None = None,
) -> tuple[str, dict[str, str]]:
    """One round: open, the bets, close, the cards (keyed, or ``n`` from the
    server's shoe: ``"*6"``), settle; its id and the bets' ids by wager."""
    dealer = login(client, DEALER)
    opened = client.post(f"/api/tables/{table_id}/round/open", headers=dealer)
    assert opened.status_code == 200, opened.text
    round_id: str = opened.json()["round_id"]
    ids = {wager: bet(client, who, table_id, wager, stake) for who, wager, stake in bets}
    assert client.post(f"/api/tables/{table_id}/round/close", headers=dealer).status_code == 200
    if cards is not None and not cards.startswith("*"):
        deal_cards(client, dealer, table_id, cards)
    else:
        while not client.get(f"/api/tables/{table_id}").json()["round"]["result"]:
            drawn = client.post(f"/api/tables/{table_id}/round/deal", headers=dealer)
            assert drawn.status_code == 200, drawn.text
    settled = client.post(f"/api/tables/{table_id}/round/settle", headers=dealer)
    assert settled.status_code == 200, settled.text
    return round_id, ids


def cards_of(detail: dict[str, Any]) -> list[Card]:
    return [Card.parse(e["card"]) for e in detail["events"] if e["type"] == "card_dealt"]


def test_every_bet_valued_at_no_more_bets_from_the_keyed_cards_of_a_physical_shoe(
    client: TestClient,
) -> None:
    physical_shoe(client, "dragon")
    player, player2 = login(client, PLAYER), login(client, PLAYER2)
    runtime = server_of(client).table("dragon")
    game, layout, rule = runtime.game, runtime.table.layout, runtime.table.pair_rule
    first, ids = play_round(
        client,
        "dragon",
        [(player, "banker", "100"), (player2, "big_tiger", "10")],
        "QH 2C 2D KS 3H 4D",
    )
    values = valued(client, "dragon", first, 2)
    full = odds_table(game, Composition.of_decks(8), layout, rule).wagers
    assert values[ids["banker"]].return_exact == full["banker"].return_exact
    assert values[ids["banker"]].expected_value == 10000 * full["banker"].return_exact
    assert values[ids["big_tiger"]].player == "demo2"
    assert values[ids["big_tiger"]].cards_seen == 0
    # The next round is valued on the shoe less the six cards keyed.
    second, ids = play_round(client, "dragon", [(player, "big_tiger", "20")], "9H KC 9D QS")
    (value,) = valued(client, "dragon", second, 1).values()
    left = Composition.of_decks(8).without(
        *(Card.parse(c) for c in ["QH", "2C", "2D", "KS", "3H", "4D"])
    )
    exact = odds_table(game, left, layout, rule).wagers["big_tiger"].return_exact
    assert value.return_exact == exact != full["big_tiger"].return_exact
    assert value.cards_seen == 6
    assert value.composition == left.counts
    assert value.expected_value == 2000 * exact
    # ... and shown beside the bet's result.
    detail = client.get(f"/api/tables/dragon/rounds/{second}", headers=login(client, PIT)).json()
    (result,) = detail["results"]
    shown = result["value_at_placement"]
    assert Fraction(shown["return"]) == exact
    assert Fraction(shown["expected_value"]) == 2000 * exact
    assert shown["cards_seen"] == 6


def test_a_virtual_shoe_is_valued_from_the_cards_dealt_never_its_order(
    client: TestClient,
) -> None:
    table_id = new_table(client, id="tb", game="tiger-baccarat")
    player = login(client, PLAYER)
    seen: list[Card] = []
    pit = login(client, PIT)
    for _ in range(3):
        round_id, _ = play_round(client, table_id, [(player, "big_tiger", "10")])
        (value,) = valued(client, table_id, round_id, 1).values()
        rt = server_of(client).table(table_id)
        left = Composition.of_decks(8).without(*seen) if seen else Composition.of_decks(8)
        exact = odds_table(rt.game, left, rt.table.layout, rt.table.pair_rule).wagers
        assert value.return_exact == exact["big_tiger"].return_exact
        assert value.cards_seen == len(seen)
        detail = client.get(f"/api/tables/{table_id}/rounds/{round_id}", headers=pit).json()
        seen += cards_of(detail)
    assert server_of(client).valuation is not None


def test_the_players_history_shows_each_bets_value_at_placement(client: TestClient) -> None:
    physical_shoe(client, "dragon")
    player = login(client, PLAYER)
    round_id, ids = play_round(client, "dragon", [(player, "tie", "10")], "9H KC 9D QS")
    (value,) = valued(client, "dragon", round_id, 1).values()
    postings = client.get("/api/wallet", headers=player).json()["postings"]
    mine = [p for p in postings if p["bet_id"] == ids["tie"]]
    assert "bet" in {p["kind"] for p in mine}  # a lost bet pays nothing into the wallet
    for posting in mine:
        shown = posting["value_at_placement"]
        assert (
            Fraction(shown["expected_value"]) == value.expected_value == 1000 * value.return_exact
        )
        assert shown["wager"] == "tie"


# -- advantage-play detection through the server ----------------------------------------------


@pytest.mark.slow
def test_a_big_tiger_counter_is_flagged_and_a_flat_bettor_is_not(client: TestClient) -> None:
    """A bounded run at a virtual-shoe table with a fixed seed: both players
    bet Banker every round; the counter (punto.protection.players, the
    published tags) adds Big Tiger at true count +8 or more, the flat bettor
    at random rounds about as often.  The counter is flagged, with the
    evidence of its bets; the flat bettor is not."""
    from decimal import Decimal

    from tests.server.test_server_support import new_table

    table_id = new_table(client, id="counted", game="tiger-baccarat", seed="protection-ci")
    server = server_of(client)
    pit = login(client, PIT)
    assert server.advantage is not None
    chosen = client.put(
        f"/api/pit/protection/thresholds/{table_id}", headers=pit, json={"preset": "sensitive"}
    )
    assert chosen.status_code == 200, chosen.text
    users = {name: server.accounts.find_user(name) for name in ("demo", "demo2")}
    players: dict[str, Counter | FlatBettor] = {
        "demo": big_tiger_counter(stake=1000),
        "demo2": FlatBettor("flat", ("big_tiger",), 0.04, seed=15, stake=1000),
    }
    rt = server.table(table_id)
    shoe, view = "", ShoeView(8)
    taken = dict.fromkeys(players, 0)

    def flagged(test: str = "stake and value") -> set[str]:
        alerts = client.get("/api/pit/alerts", headers=pit).json()["alerts"]
        return {a["player"] for a in alerts if a["table_id"] == table_id and a["test"] == test}

    seen = 0  # alerts raised so far (the table's first round raises the favoured wager's)

    for _played in range(8 * 80):  # at most about eight shoes
        rt.open_round()
        if rt.table.shoe_id != shoe:
            shoe, view = rt.table.shoe_id, ShoeView(8)
        for name, player in players.items():
            user = users[name]
            assert user is not None
            rt.place_bet(user.id, name, "banker", Decimal(10))
            for wager, stake in player.bets(view).items():
                if stake:
                    rt.place_bet(user.id, name, wager, Decimal(stake) / 100)
                    taken[name] += 1
        rt.close_betting()
        while not rt.round.deal.is_complete:  # type: ignore[union-attr]
            rt.deal()
        rt.settle()
        view.show(rt.round.deal.cards)  # type: ignore[union-attr]
        if server.advantage.raised > seen:
            seen = server.advantage.raised
            server.valuation.drain()  # type: ignore[union-attr]
            server.journal.barrier()
            if "demo" in flagged():
                break
    server.valuation.drain()  # type: ignore[union-attr]
    who = wait_for(flagged, timeout=30)
    assert who == {"demo"}, (who, _played, taken)
    # the value test names the counter or no one: never the flat bettor
    assert flagged("value at placement") <= {"demo"}
    assert taken["demo2"] > 0
    alerts = client.get("/api/pit/alerts", headers=pit).json()["alerts"]
    # the table reads pairs by rank (Tiger Baccarat's default): no wager favours
    # the player, so no alert of that kind
    assert not [a for a in alerts if a["test"] == "a wager that favours the player"]
    (alert,) = [a for a in alerts if a["player"] == "demo" and a["test"] == "stake and value"][:1]
    assert Decimal(alert["statistic"]) >= Decimal(alert["threshold"])
    assert alert["false_alarm_rate"]
    evidence = alert["evidence"]
    assert evidence
    assert all(e["wager"] == "big_tiger" for e in evidence)
    for e in evidence:
        stored = round_values(server.engine, table_id, e["round_id"])
        (bet,) = [v for v in stored.values() if v.player == "demo" and v.wager == "big_tiger"]
        assert Fraction(e["value"]) == bet.return_exact
        assert tuple(e["composition"]) == bet.composition
        assert e["stake"] == "10.00"
    # A restart: the detectors rebuilt from bet_values reach the same statistics.
    server.journal.barrier()
    fresh = AdvantageWatch(server.engine, server.journal)
    fresh.rebuild(table_id, rt.game, rt.table.layout, rt.table.pair_rule)
    for name in ("demo", "demo2"):
        assert fresh.statistic(table_id, name) == server.advantage.statistic(table_id, name)
    assert fresh.statistic(table_id, "demo2") is not None


def test_tiger_buffalo_4_1_15_insurance_plus_valued_when_taken_on_the_cards_on_the_table(
    client: TestClient,
) -> None:
    """The Insurance Plus bet is valued on the cards on the table when taken;
    once the moment passes, every player the offer was open to (an Original
    Bet on the insured hand, 3.11) is observed on it, taken or not."""
    from punto.analysis.insurance_values import deal_values
    from punto.server.tables.valuation import OfferValues

    table = new_table(client, id="ins", game="tiger-buffalo", layout="A", card_source="device")
    dealer, player, player2 = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
    valuation = server_of(client).valuation
    assert valuation is not None
    told: list[OfferValues] = []
    detect = valuation.on_offers
    assert detect is not None

    def spy(ov: OfferValues) -> None:
        told.append(ov)
        detect(ov)

    valuation.on_offers = spy
    round_id = client.post(f"/api/tables/{table}/round/open", headers=dealer).json()["round_id"]
    player_bet = bet(client, player, table, "player", "100")
    bet(client, player2, table, "player", "50")
    bet(client, player2, table, "banker", "10")  # no Original Bet on the Player: not offered
    assert client.post(f"/api/tables/{table}/round/close", headers=dealer).status_code == 200
    deal_cards(client, dealer, table, "3H 4C 2D KS")  # Player 5 v Banker 4
    insured = bet(client, player, table, "player_insurance", "50")
    deal_cards(client, dealer, table, "3S 5D")
    client.post(f"/api/tables/{table}/round/settle", headers=dealer)
    values = valued(client, table, round_id, 4)
    on_table = [Card.parse(c) for c in ["3H", "4C", "2D", "KS"]]
    (offer,) = deal_values(get_game("tiger-buffalo"), Composition.of_decks(8), on_table)
    assert values[insured].return_exact == offer.value
    assert values[insured].moment == "four_cards"
    assert values[insured].expected_value == 5000 * offer.value
    assert values[insured].cards_seen == 0  # the shoe before the round; the four are taken out
    rt = server_of(client).table(table)
    main = odds_table(rt.game, Composition.of_decks(8), "A", rt.table.pair_rule).wagers
    assert values[player_bet].return_exact == main["player"].return_exact
    valuation.drain()
    four, five = told  # after four cards, and again after the Player's third card
    assert four.job.round_id == five.job.round_id == round_id

    def observed(ov: OfferValues) -> dict[str, list[tuple[str, Fraction, int]]]:
        return {p: [(o.wager, o.value, o.stake) for o in obs] for p, obs in ov.observations.items()}

    assert observed(four) == {
        "demo": [("player_insurance", offer.value, 5000)],
        "demo2": [("player_insurance", offer.value, 0)],
    }
    cards = [*on_table, Card.parse("3S")]
    (later,) = deal_values(get_game("tiger-buffalo"), Composition.of_decks(8), cards)
    assert observed(five) == {
        "demo": [("player_insurance", later.value, 0)],
        "demo2": [("player_insurance", later.value, 0)],
    }


def test_a_round_closed_before_a_restart_is_valued_again_and_keeps_its_first_value(
    db_url: str,
) -> None:
    """Betting closed, then the server stops mid-round: after the restart the
    round is scanned again at its next action, and the value stored first is
    kept (a bet is valued once)."""
    with TestClient(support.make_app(db_url)) as first:
        physical_shoe(first, "dragon")
        dealer, player = login(first, DEALER), login(first, PLAYER)
        round_id = first.post("/api/tables/dragon/round/open", headers=dealer).json()["round_id"]
        bet_id = bet(first, player, "dragon", "big_tiger", "10")
        assert first.post("/api/tables/dragon/round/close", headers=dealer).status_code == 200
        before = valued(first, "dragon", round_id, 1)[bet_id]
    with TestClient(support.make_app(db_url)) as second:
        dealer = login(second, DEALER)
        # interrupted after No more bets: the withdrawal option (power failure rules)
        closed = second.post("/api/tables/dragon/round/withdrawal/close", headers=dealer)
        assert closed.status_code == 200, closed.text
        deal_cards(second, dealer, "dragon", "9H KC 9D QS")
        assert second.post("/api/tables/dragon/round/settle", headers=dealer).status_code == 200
        valuation = server_of(second).valuation
        assert valuation is not None
        wait_for(lambda: valuation.stats.rounds >= 1, timeout=30)  # valued again ...
        server_of(second).journal.barrier()
        after = round_values(server_of(second).engine, "dragon", round_id)
        assert after == {bet_id: before}  # ... and the first value kept


def test_the_detection_thresholds_are_seen_by_the_pit_and_set_by_a_pit_manager(
    client: TestClient,
) -> None:
    """Reading the presets: a pit supervisor or higher, or the admin.  Setting a
    table's: a pit manager or higher (MBS 6.2); a pit supervisor, a dealer, a
    player and the admin are refused, and the table's preset stays."""
    admin = login(client, support.ADMIN)
    made = client.post(
        "/api/users",
        headers=admin,
        json={"username": "super", "password": "super-password", "role": "pit_supervisor"},
    )
    assert made.status_code == 201, made.text
    supervisor = login(client, ("super", "super-password"))
    path = "/api/pit/protection/thresholds"
    for who, status in ((PLAYER, 403), (DEALER, 403)):
        assert client.get(path, headers=login(client, who)).status_code == status
    for headers in (supervisor, admin, login(client, PIT)):
        assert client.get(path, headers=headers).json()["tables"]["tiger"] == "standard"
    for headers in (login(client, PLAYER), login(client, DEALER), supervisor):
        refused = client.put(f"{path}/tiger", headers=headers, json={"preset": "strict"})
        assert refused.status_code == 403, refused.text
        assert support.error_of(refused)["clause"] == "6.2"
    refused = client.put(f"{path}/tiger", headers=admin, json={"preset": "strict"})
    assert refused.status_code == 403, refused.text
    assert client.get(path, headers=admin).json()["tables"]["tiger"] == "standard"
    chosen = client.put(f"{path}/tiger", headers=login(client, PIT), json={"preset": "strict"})
    assert chosen.status_code == 200, chosen.text
    assert client.get(path, headers=admin).json()["tables"]["tiger"] == "strict"


# -- a wager that favours the player: the literal Tiger Pair, set explicitly ------------------


def test_tiger_baccarat_1_1_14_a_table_reading_pairs_literally_is_flagged_and_alerted(
    client: TestClient,
) -> None:
    """Tiger Baccarat 1.1.14 read as written is a table's explicit option
    (``pair_rule: literal``), under which Tiger Pair favours the player: the
    table is made only with a pit manager's confirmation of that wager, its
    state carries the warning, the pit's warnings list it with who
    confirmed it, and its first valued round raises the protection's alert
    of a wager that favours the player -- once, with the exact edge as
    evidence.  The reading never changes on a table that has it."""
    pit, player = login(client, PIT), login(client, PLAYER)
    (literal,) = [
        e for e in table_edges("tiger-baccarat", None, 8, PairRule.LITERAL) if e.player_favoured
    ]
    assert literal.wager == "tiger_pair"
    body = {
        "id": "literal",
        "game": "tiger-baccarat",
        "mode": "dealer",
        "limits": {"minimum": "10", "maximum": "1000"},
        "pair_rule": "literal",
    }
    # Without the confirmation the table is refused, naming the wager.
    refused = client.post("/api/tables", headers=pit, json=body)
    assert refused.status_code == 422, refused.text
    assert "tiger_pair" in error_of(refused)["message"]
    assert client.get("/api/tables/literal").status_code == 404
    made = client.post(
        "/api/tables", headers=pit, json={**body, "confirm_player_favoured": ["tiger_pair"]}
    )
    assert made.status_code == 201, made.text
    assert made.json()["pair_rule"] == "literal"
    table = client.get("/api/tables/literal").json()["table"]
    assert table["pair_rule"] == "literal"
    assert table["pair_rule_warning"] == LITERAL_PAIR_WARNING
    (warning,) = [
        w for w in client.get("/api/pit/warnings", headers=pit).json() if w["table_id"] == "literal"
    ]
    assert (warning["wager"], warning["pair_rule"]) == ("tiger_pair", "literal")
    assert warning["confirmation"]["by"] == PIT[0]

    server = server_of(client)
    assert server.advantage is not None
    assert server.valuation is not None

    def favoured_alerts() -> list[dict[str, Any]]:
        alerts = client.get("/api/pit/alerts", headers=pit).json()["alerts"]
        return [a for a in alerts if a["table_id"] == "literal" and a["test"] == FAVOURED]

    assert favoured_alerts() == []
    # The first round valued raises the alert; a second raises none more.
    for _ in range(2):
        play_round(
            client, "literal", [(player, "banker", "100"), (player, "tiger_pair", "10")], "*"
        )
        server.valuation.drain()
        server.journal.barrier()
    (offered,) = wait_for(favoured_alerts, timeout=30)
    assert offered["player"] == ""
    (evidence,) = offered["evidence"]
    assert (evidence["wager"], evidence["pair_rule"], evidence["clause"]) == (
        "tiger_pair",
        "literal",
        literal.clause,
    )
    assert Fraction(evidence["house_edge"]) == literal.edge < 0
    assert Decimal(offered["statistic"]) > 0  # the player's return per unit, off the top
    # The reading is the table's for good: a change is refused, and nothing changes.
    changed = client.patch("/api/tables/literal", headers=pit, json={"pair_rule": "rank"})
    assert changed.status_code == 422, changed.text
    assert "reads a Pair by literal" in error_of(changed)["message"]
    assert client.get("/api/tables/literal").json()["table"]["pair_rule"] == "literal"


def test_a_table_reading_pairs_by_rank_raises_no_favoured_wager_alert(client: TestClient) -> None:
    """The same table by rank (the default, or set so): no confirmation
    needed, no warning, no alert of a wager that favours the player."""
    pit, player = login(client, PIT), login(client, PLAYER)
    body = {
        "id": "by-rank",
        "game": "tiger-baccarat",
        "mode": "dealer",
        "limits": {"minimum": "10", "maximum": "1000"},
        "pair_rule": "rank",
    }
    made = client.post("/api/tables", headers=pit, json=body)
    assert made.status_code == 201, made.text
    table = client.get("/api/tables/by-rank").json()["table"]
    assert table["pair_rule"] == "rank"
    assert "pair_rule_warning" not in table
    play_round(client, "by-rank", [(player, "banker", "100"), (player, "tiger_pair", "10")], "*")
    server = server_of(client)
    assert server.valuation is not None
    server.valuation.drain()
    server.journal.barrier()
    alerts = client.get("/api/pit/alerts", headers=pit).json()["alerts"]
    assert not [a for a in alerts if a["table_id"] == "by-rank" and a["test"] == FAVOURED]
    wrong = client.post("/api/tables", headers=pit, json={**body, "id": "x", "pair_rule": "suit"})
    assert wrong.status_code == 422, wrong.text
    assert "is not a reading of a Pair" in error_of(wrong)["message"]
