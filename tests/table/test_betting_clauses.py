"""The betting clauses of section 3, on each game's own clause data: when
betting opens (MBS 3.1, RWS 3.3), the limits of a playing area (MBS 3.5.1,
RWS 3.5), wagers placed on a player's behalf (MBS 3.8), the limits shown to
the player (RWS 3.4), and settlement by the chips as they lie when bets close
(RWS 5.15).  Every round is played to settlement, with each player's exact
net.

Coups (shoe order: Player, Banker, Player, Banker, then third cards):

* ``PLAYER_NINE`` 9H 2C KD 3S -- Player 9+K=9, a Natural, over Banker 5.
* ``BANKER_SIX``  QH 2C 2D KS 3H 4D -- Player Q+2=2 draws 3: 5; Banker 2+K=2
  draws 4: 6.  Banker wins with 6 on three cards.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from punto.errors import BettingClosedError, LimitError
from punto.rules.cards import parse_cards
from punto.rules.games import get_game
from punto.table.events import BetPlaced
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Phase, Round
from tests.server import test_server_support as support
from tests.server.test_server_support import PIT, PLAYER, login

client = support.client

LIMITS = TableLimits(Decimal(10), Decimal(1000))
PLAYER_NINE = "9H 2C KD 3S"
BANKER_SIX = "QH 2C 2D KS 3H 4D"
STATIC = Path(__file__).resolve().parents[2] / "src" / "punto" / "server" / "static"


def layout_of(game_id: str) -> str | None:
    return "A" if game_id == "tiger-buffalo" else None


def finish(r: Round, coup: str) -> dict[str, Decimal]:
    for card in parse_cards(coup):
        r.deal_card(card)
    r.settle()
    return r.nets()


# -- MBS 3.1, RWS 3.3: betting begins with "Place your bets, please" --------------------------


@pytest.mark.clause("tiger-baccarat", "3.1")
@pytest.mark.clause("tiger-no-commission", "3.1")
@pytest.mark.clause("baccarat-tournament", "3.1")
@pytest.mark.clause("dragon-tiger", "3.1")
@pytest.mark.clause("tiger-buffalo", "3.3")
# a round of play, from "Place your bets, please" to settlement
@pytest.mark.clause("tiger-baccarat", "1.1.7")
@pytest.mark.clause("tiger-no-commission", "1.1.6")
@pytest.mark.clause("baccarat-tournament", "1.1.6")
@pytest.mark.clause("dragon-tiger", "1.1.8")
@pytest.mark.clause("tiger-buffalo", "1.25")
@pytest.mark.parametrize(
    ("game_id", "clause"),
    [
        ("tiger-baccarat", "3.1"),
        ("tiger-no-commission", "3.1"),
        ("baccarat-tournament", "3.1"),
        ("dragon-tiger", "3.1"),
        ("tiger-buffalo", "3.3"),
    ],
)
def test_all_games_no_bet_before_place_your_bets(game_id: str, clause: str) -> None:
    r = Round(get_game(game_id), limits=LIMITS, layout=layout_of(game_id))
    with pytest.raises(BettingClosedError) as early:
        r.place_bet("ann", 1, "banker", Decimal(100))
    assert early.value.clause == clause
    assert r.bets == []
    r.open()  # "Place your bets, please"
    assert r.phase is Phase.BETTING
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.close_betting()
    # Player's Natural 9 wins in every game: Banker loses, Player pays 1 to 1
    assert finish(r, PLAYER_NINE) == {"ann": Decimal(-100), "bob": Decimal(200)}


# -- MBS 3.5.1, RWS 3.5: the limits displayed at the table -------------------------------------


def test_dragon_tiger_3_5_1_one_area_takes_several_players_within_the_limits() -> None:
    r = Round(get_game("dragon-tiger"), limits=LIMITS)
    r.open()
    with pytest.raises(LimitError) as under:
        r.place_bet("ann", 1, "banker", Decimal(5))
    assert under.value.clause == "3.5.1"
    with pytest.raises(LimitError) as over:
        r.place_bet("ann", 1, "banker", Decimal(1001))
    assert over.value.clause == "3.5.1"
    assert r.bets == []
    # one playing area (the Banker area of position 1), two players
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 1, "banker", Decimal(200))
    r.place_bet("cat", 2, "player", Decimal(300))
    r.close_betting()
    # Banker wins 6 on three cards: 0.95 to 1
    assert finish(r, BANKER_SIX) == {"ann": Decimal(95), "bob": Decimal(190), "cat": Decimal(-300)}


def test_tiger_buffalo_3_5_bets_outside_the_displayed_limits_are_the_players_to_correct() -> None:
    r = Round(
        get_game("tiger-buffalo"), limits=TableLimits(Decimal(100), Decimal(10000)), layout="A"
    )
    r.open()
    with pytest.raises(LimitError) as over:
        r.place_bet("ann", 1, "player", Decimal(10001))
    assert over.value.clause == "3.5"
    assert over.value.hint == "stake at most 10000.00 there"
    r.place_bet("ann", 1, "player", Decimal(10000))  # corrected by the player
    r.place_bet("bob", 2, "banker", Decimal(100))
    r.close_betting()
    assert finish(r, PLAYER_NINE) == {"ann": Decimal(10000), "bob": Decimal(-100)}


# -- MBS 3.8: wagers placed on a player's behalf -------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "3.8")
@pytest.mark.clause("dragon-tiger", "3.8")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_3_8_dealer_pit_supervisor_or_pit_manager_places_wagers_for_a_player(
    game_id: str,
) -> None:
    r = Round(get_game(game_id), limits=LIMITS)
    r.open()
    r.place_bet("ann", 1, "banker", Decimal(100), role=Role.DEALER)
    r.place_bet("bob", 2, "player", Decimal(200), role=Role.PIT_SUPERVISOR)
    r.place_bet("cat", 3, "banker", Decimal(40), role=Role.PIT_MANAGER)
    r.close_betting()
    placed = [(e.player, e.role) for e in r.events if isinstance(e, BetPlaced)]
    assert placed == [
        ("ann", Role.DEALER),
        ("bob", Role.PIT_SUPERVISOR),
        ("cat", Role.PIT_MANAGER),
    ]
    # the wagers are the players' own: theirs to win or lose
    assert finish(r, BANKER_SIX) == {"ann": Decimal(95), "bob": Decimal(-200), "cat": Decimal(38)}


# -- RWS 5.15: settled by the chips' position when bets close -------------------------------------


def test_tiger_buffalo_5_15_settled_by_chip_position_when_bets_close() -> None:
    r = Round(
        get_game("tiger-buffalo"), limits=TableLimits(Decimal(100), Decimal(10000)), layout="A"
    )
    r.open()
    # ann meant Banker; the dealer, at her request, put her chips on Player (5.18)
    wrong = r.place_bet("ann", 1, "player", Decimal(300), role=Role.DEALER)
    # bob misplaced his chips too, but noticed before "No more Bets" and moved them
    moved = r.place_bet("bob", 2, "player", Decimal(200))
    r.withdraw_bet(moved)
    r.place_bet("bob", 2, "banker", Decimal(200))
    r.close_betting()
    # after "No more Bets" the chips stay where they lie (5.7) ...
    with pytest.raises(BettingClosedError):
        r.withdraw_bet(wrong)
    # ... and settle there: the House is not liable for a bet placed in error
    assert finish(r, BANKER_SIX) == {"ann": Decimal(-300), "bob": Decimal(190)}
    settled = {(s.bet.player, s.bet.wager): s.outcome for s in r.results()}
    assert settled == {
        ("ann", "player"): "lose",
        ("bob", "player"): "withdrawn",
        ("bob", "banker"): "win",
    }


# -- RWS 3.4: the minimum and the maximum Differential displayed at the table --------------------


def test_tiger_buffalo_3_4_the_player_page_is_given_the_minimum_and_the_differential(
    client: TestClient,
) -> None:
    body = {
        "id": "tb34",
        "game": "tiger-buffalo",
        "layout": "A",
        "mode": "dealer",
        "limits": {"minimum": "100", "maximum": "10000", "differential": "2000"},
    }
    made = client.post("/api/tables", headers=login(client, PIT), json=body)
    assert made.status_code == 201, made.text
    state = client.get("/api/tables/tb34", headers=login(client, PLAYER)).json()
    limits = state["table"]["limits"]
    assert (limits["minimum"], limits["maximum"], limits["differential"]) == (
        "100.00",
        "10000.00",
        "2000.00",
    )
    # the player page writes both into its table line
    page = (STATIC / "player.js").read_text("utf-8")
    start = page.index("const info = ")
    line = page[start : page.index('"#table-info"', start)]
    assert "table.limits.minimum" in line
    assert "table.limits.differential" in line
