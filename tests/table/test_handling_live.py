"""Card handling at the live table (Tiger Baccarat and Dragon Tiger 3.9-3.12,
5.12): the Method of a table and of each round, who squeezes which hand, who
holds the dealing device -- all as events of the round, through the table,
the replay format and the dealer console.

Tests named ``test_mbs_...`` run on both games (their clauses are numbered
alike); handling moves no money, so where a round is settled the nets are
checked to be exactly what the cards say.
"""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from rich.console import Console

from punto.errors import ActionError, PhaseError, RoleError
from punto.eventlog import EventLog, MemoryEventLog
from punto.rules.cards import parse_cards
from punto.rules.coup import Side
from punto.rules.games import get_game
from punto.table import handling
from punto.table import irregularities as irr
from punto.table.events import (
    TABLE_STREAM,
    CardsPassed,
    CardsRefused,
    DeviceLost,
    DeviceTaken,
    Event,
    HandlingEvent,
    Method,
    MethodChosen,
)
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.replay import ReplayError, run_replay
from punto.table.roles import Role
from punto.table.round import Round
from punto.ui.dealer_console import DealerConsole
from punto.ui.playtable import console_input

LIMITS = TableLimits(Decimal(10), Decimal(5000))
MBS = ["tiger-baccarat", "dragon-tiger"]
D = Decimal
ACM = Role.ASSISTANT_CASINO_MANAGER
#: Player 9 v Banker 5: Player wins
PLAYER_NINE = "9H 5C TD KS"
#: Player 5 v Banker 9: Banker wins
BANKER_NINE = "5H 9C TD KS"


def table(game_id: str, log: EventLog[Event] | None = None, *, hlga: bool = False) -> LiveTable:
    return LiveTable(
        "t",
        get_game(game_id),
        limits=LIMITS,
        log=log if log is not None else MemoryEventLog(TABLE_STREAM),
        seed="handling",
        hlga=hlga,
    )


def method_c_table(game_id: str, log: EventLog[Event] | None = None) -> LiveTable:
    t = table(game_id, log, hlga=True)
    t.choose_method(Method.C, ACM)
    return t


def opened(game_id: str, *bets: tuple[str, int, str, int]) -> Round:
    r = Round(get_game(game_id), limits=LIMITS)
    r.open()
    for player, position, wager, stake in bets:
        r.place_bet(player, position, wager, D(stake))
    return r


def dealing(game_id: str, *bets: tuple[str, int, str, int]) -> Round:
    """A round by Method A (the default), betting closed, four cards dealt."""
    r = opened(game_id, *bets)
    r.close_betting()
    for card in parse_cards("5H 9C TD KS"):
        r.deal_card(card)
    return r


def keyed(r: Round, cards: str) -> None:
    """Close betting and deal ``cards`` keyed in from a physical shoe, then settle."""
    r.close_betting()
    for card in parse_cards(cards):
        r.deal_card(card, "keyed")
    r.settle()


def handled(r: Round) -> list[HandlingEvent]:
    return [e for e in r.events if isinstance(e, HandlingEvent)]


# -- 3.9, 3.9.1, 3.9.2: the Method ---------------------------------------------------------


def test_tiger_baccarat_3_9_1_player_cannot_take_the_device_under_method_a() -> None:
    t = table("tiger-baccarat")
    r = t.new_round()
    r.place_bet("ann", 1, "player", D(100))
    assert t.method is Method.A
    assert handling.method_of(r) is Method.A
    assert not handling.can_take_device(r, "ann")
    with pytest.raises(ActionError, match="Dealer keeps control") as refused:
        handling.take_device(r, "ann")
    assert refused.value.clause == "3.9.1"
    assert handled(r) == []
    keyed(r, PLAYER_NINE)
    assert r.nets() == {"ann": D(100)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.9.1")
@pytest.mark.clause("dragon-tiger", "3.9.1")
def test_mbs_3_9_1_dealer_keeps_the_device_under_methods_a_and_b(game_id: str) -> None:
    t = table(game_id)
    t.choose_method(Method.B, Role.PIT_MANAGER)
    r = t.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    with pytest.raises(ActionError) as refused:
        handling.take_device(r, "ann")
    assert refused.value.clause == "3.9.1"
    with pytest.raises(ActionError) as no_permission:
        handling.allow_draw(r, "zed", ACM)
    assert no_permission.value.clause == "3.9.1"
    keyed(r, BANKER_NINE)
    assert r.nets() == {"ann": D(95)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.9.2")
@pytest.mark.clause("dragon-tiger", "3.9.2")
def test_mbs_3_9_2_pit_manager_chooses_the_table_method_between_rounds(game_id: str) -> None:
    log = MemoryEventLog(TABLE_STREAM)
    t = table(game_id, log)
    with pytest.raises(RoleError) as refused:
        t.choose_method(Method.B, Role.PIT_SUPERVISOR)
    assert refused.value.clause == "3.9.2"
    t.choose_method(Method.B, Role.PIT_MANAGER)
    r1 = t.new_round()
    assert handled(r1) == [MethodChosen(Method.B, Role.PIT_MANAGER, "3.9.2", False)]
    r1.place_bet("ann", 1, "player", D(100))
    with pytest.raises(PhaseError, match="before a round of play commences") as in_play:
        t.choose_method(Method.A, Role.PIT_MANAGER)
    assert in_play.value.clause == "3.9.2"
    keyed(r1, PLAYER_NINE)
    assert r1.nets() == {"ann": D(100)}
    # the choice was logged between rounds: a restart conducts the next round by it
    again = table(game_id, log)
    assert again.method is Method.B
    r2 = again.new_round()
    assert handling.method_of(r2) is Method.B
    assert [e.event.type for e in log.read("t")].count("method_chosen") == 3  # table, r1, r2


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.9.2")
@pytest.mark.clause("dragon-tiger", "3.9.2")
def test_mbs_3_9_2_method_c_only_in_hlga_by_an_assistant_casino_manager(game_id: str) -> None:
    with pytest.raises(ActionError, match="only within HLGA") as outside:
        table(game_id).choose_method(Method.C, ACM)
    assert outside.value.clause == "3.9.2"
    t = table(game_id, hlga=True)
    with pytest.raises(RoleError, match="assistant casino manager") as manager:
        t.choose_method(Method.C, Role.PIT_MANAGER)
    assert manager.value.clause == "3.9.2"
    t.choose_method(Method.C, ACM)
    r = t.new_round()
    assert handled(r) == [MethodChosen(Method.C, ACM, "3.9.2", True)]


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.9.2", "3.9")
@pytest.mark.clause("dragon-tiger", "3.9.2", "3.9")
def test_mbs_3_9_2_a_rounds_method_is_recorded_before_any_bet(game_id: str) -> None:
    r = opened(game_id)
    handling.choose_method(r, Method.B, Role.PIT_MANAGER)
    r.place_bet("ann", 1, "player", D(100))
    with pytest.raises(PhaseError) as late:
        handling.choose_method(r, Method.A, Role.PIT_MANAGER)
    assert late.value.clause == "3.9.2"
    assert handling.method_of(r) is Method.B
    keyed(r, BANKER_NINE)
    assert r.nets() == {"ann": D(-100)}


def test_tiger_no_commission_no_methods_so_card_handling_is_refused() -> None:
    r = dealing("tiger-no-commission", ("ann", 1, "player", 100))
    assert handling.method_of(r) is None
    with pytest.raises(ActionError, match="describe no Methods"):
        handling.pass_cards(r, Side.PLAYER)
    with pytest.raises(ActionError, match="describe no Methods"):
        table("tiger-no-commission").choose_method(Method.A, Role.PIT_MANAGER)


# -- 3.10: Method A, who squeezes ----------------------------------------------------------


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.2")
@pytest.mark.clause("dragon-tiger", "3.10.2")
def test_mbs_3_10_2_cards_passed_to_the_highest_amount_on_each_hand(game_id: str) -> None:
    r = dealing(
        game_id, ("ann", 1, "player", 200), ("bob", 2, "banker", 700), ("cat", 3, "player", 900)
    )
    assert handling.pass_cards(r, Side.PLAYER) == "cat"
    assert handling.pass_cards(r, Side.BANKER) == "bob"
    assert handled(r) == [
        CardsPassed(Side.PLAYER, "cat", "3.10.2"),
        CardsPassed(Side.BANKER, "bob", "3.10.2"),
    ]
    with pytest.raises(ActionError, match="cat has the player hand's cards"):
        handling.pass_cards(r, Side.PLAYER)
    summary = handling.summary(r)
    assert summary["squeezers"] == {"player": "cat", "banker": "bob"}
    assert summary["cards"] == {"player": ["5H", "TD"], "banker": ["9C", "KS"]}
    r.settle()  # Player 5 v Banker 9
    assert r.nets() == {"ann": D(-200), "bob": D(665), "cat": D(-900)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.2")
@pytest.mark.clause("dragon-tiger", "3.10.2")
def test_mbs_3_10_2_cards_are_passed_after_no_more_bets(game_id: str) -> None:
    r = opened(game_id, ("ann", 1, "player", 200))
    with pytest.raises(PhaseError) as early:
        handling.pass_cards(r, Side.PLAYER)
    assert early.value.clause == "3.10.2"


def test_dragon_tiger_3_10_3_refusal_passes_to_the_next_highest() -> None:
    r = dealing(
        "dragon-tiger",
        ("ann", 1, "banker", 200),
        ("bob", 2, "banker", 700),
        ("cat", 3, "banker", 400),
    )
    assert handling.pass_cards(r, Side.BANKER) == "bob"
    with pytest.raises(ActionError, match="ann does not have"):
        handling.refuse_cards(r, Side.BANKER, "ann")
    handling.refuse_cards(r, Side.BANKER, "bob")
    assert handling.pass_cards(r, Side.BANKER) == "cat"
    handling.refuse_cards(r, Side.BANKER, "cat")
    assert handling.pass_cards(r, Side.BANKER) == "ann"
    assert handled(r) == [
        CardsPassed(Side.BANKER, "bob", "3.10.2"),
        CardsRefused(Side.BANKER, "bob", "3.10.3"),
        CardsPassed(Side.BANKER, "cat", "3.10.3"),
        CardsRefused(Side.BANKER, "cat", "3.10.3"),
        CardsPassed(Side.BANKER, "ann", "3.10.3"),
    ]
    r.settle()  # Banker 9 wins
    assert r.nets() == {"ann": D(190), "bob": D(665), "cat": D(380)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.3")
@pytest.mark.clause("dragon-tiger", "3.10.3")
def test_mbs_3_10_3_refusal_passes_to_the_next_highest(game_id: str) -> None:
    r = dealing(game_id, ("ann", 1, "player", 200), ("bob", 2, "player", 700))
    handling.pass_cards(r, Side.PLAYER)
    handling.refuse_cards(r, Side.PLAYER, "bob")
    assert handling.pass_cards(r, Side.PLAYER) == "ann"
    assert handled(r)[-1] == CardsPassed(Side.PLAYER, "ann", "3.10.3")
    r.settle()
    assert r.nets() == {"ann": D(-200), "bob": D(-700)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.4")
@pytest.mark.clause("dragon-tiger", "3.10.4")
def test_mbs_3_10_4_equal_highest_first_to_the_one_who_first_placed_it(game_id: str) -> None:
    # ann bet first, but her 500 was made up only after bob's 500 was placed
    r = dealing(
        game_id,
        ("ann", 1, "player", 300),
        ("bob", 4, "player", 500),
        ("ann", 1, "player", 200),
    )
    assert handling.squeeze_order(r, Side.PLAYER) == ["bob", "ann"]
    assert handling.pass_cards(r, Side.PLAYER) == "bob"
    assert handled(r) == [CardsPassed(Side.PLAYER, "bob", "3.10.4")]
    r.settle()
    assert r.nets() == {"ann": D(-500), "bob": D(-500)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.5")
@pytest.mark.clause("dragon-tiger", "3.10.5")
def test_mbs_3_10_5_refusal_among_equal_highest_moves_counter_clockwise(game_id: str) -> None:
    r = dealing(
        game_id, ("ann", 6, "player", 500), ("bob", 2, "player", 500), ("cat", 4, "player", 500)
    )
    assert handling.pass_cards(r, Side.PLAYER) == "ann"
    handling.refuse_cards(r, Side.PLAYER, "ann")
    # counter-clockwise from ann's position 6: 7, 8, ..., 1, 2 (bob), 3, 4 (cat)
    assert handling.pass_cards(r, Side.PLAYER) == "bob"
    handling.refuse_cards(r, Side.PLAYER, "bob")
    assert handling.pass_cards(r, Side.PLAYER) == "cat"
    assert handled(r) == [
        CardsPassed(Side.PLAYER, "ann", "3.10.4"),
        CardsRefused(Side.PLAYER, "ann", "3.10.5"),
        CardsPassed(Side.PLAYER, "bob", "3.10.5"),
        CardsRefused(Side.PLAYER, "bob", "3.10.5"),
        CardsPassed(Side.PLAYER, "cat", "3.10.5"),
    ]
    r.settle()
    assert r.nets() == {"ann": D(-500), "bob": D(-500), "cat": D(-500)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.4.1")
@pytest.mark.clause("dragon-tiger", "3.10.4.1")
def test_mbs_3_10_4_1_nobody_left_the_pit_supervisor_decides(game_id: str) -> None:
    r = dealing(game_id, ("ann", 1, "player", 200))
    with pytest.raises(ActionError, match="nobody wagered") as nobody:
        handling.pass_cards(r, Side.BANKER)
    assert nobody.value.clause == "3.10.4.1"
    with pytest.raises(RoleError) as dealer:
        handling.choose_squeezer(r, Side.BANKER, "ann", Role.DEALER)
    assert dealer.value.clause == "3.10.4.1"
    handling.choose_squeezer(r, Side.BANKER, "ann", Role.PIT_SUPERVISOR)
    handling.pass_cards(r, Side.PLAYER)
    handling.refuse_cards(r, Side.PLAYER, "ann")
    with pytest.raises(ActionError, match="everyone who wagered on it refused"):
        handling.pass_cards(r, Side.PLAYER)
    assert handled(r) == [
        CardsPassed(Side.BANKER, "ann", "3.10.4.1", Role.PIT_SUPERVISOR),
        CardsPassed(Side.PLAYER, "ann", "3.10.2"),
        CardsRefused(Side.PLAYER, "ann", "3.10.3"),
    ]
    assert handling.summary(r)["squeezers"] == {"player": None, "banker": "ann"}
    r.settle()
    assert r.nets() == {"ann": D(-200)}


@pytest.mark.parametrize(
    ("game_id", "clause"), [("tiger-baccarat", "3.21"), ("dragon-tiger", "3.16")]
)
@pytest.mark.clause("tiger-baccarat", "3.21")
@pytest.mark.clause("dragon-tiger", "3.16")
def test_mbs_3_21_pit_manager_may_let_any_player_squeeze(game_id: str, clause: str) -> None:
    """Tiger Baccarat 3.21, Dragon Tiger 3.16: while the amounts wagered name
    who squeezes, only a Pit Manager's discretion passes the cards elsewhere."""
    r = dealing(game_id, ("ann", 1, "player", 200), ("bob", 2, "player", 100))
    with pytest.raises(RoleError) as supervisor:
        handling.choose_squeezer(r, Side.PLAYER, "bob", Role.PIT_SUPERVISOR)
    assert supervisor.value.clause == clause
    handling.choose_squeezer(r, Side.PLAYER, "bob", Role.PIT_MANAGER)
    assert handled(r) == [CardsPassed(Side.PLAYER, "bob", clause, Role.PIT_MANAGER)]
    r.settle()
    assert r.nets() == {"ann": D(-200), "bob": D(-100)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.11.2")
@pytest.mark.clause("dragon-tiger", "3.11.2")
def test_mbs_3_11_2_players_do_not_handle_the_cards_by_method_b(game_id: str) -> None:
    r = opened(game_id)
    handling.choose_method(r, Method.B, Role.PIT_MANAGER)
    r.place_bet("ann", 1, "player", D(200))
    r.close_betting()
    with pytest.raises(ActionError, match="Method B") as refused:
        handling.pass_cards(r, Side.PLAYER)
    assert refused.value.clause == "3.11.2"
    with pytest.raises(ActionError) as chosen:
        handling.choose_squeezer(r, Side.PLAYER, "ann", Role.PIT_MANAGER)
    assert chosen.value.clause == "3.11.2"


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.10.2")
@pytest.mark.clause("dragon-tiger", "3.10.2")
def test_mbs_3_10_2_no_squeeze_order_by_method_c(game_id: str) -> None:
    t = method_c_table(game_id)
    r = t.new_round()
    r.place_bet("ann", 1, "player", D(200))
    r.close_betting()
    with pytest.raises(ActionError, match="only by Method A") as refused:
        handling.pass_cards(r, Side.PLAYER)
    assert refused.value.clause == "3.10.2"


# -- 3.12: Method C, the dealing device -----------------------------------------------------


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.12.2")
@pytest.mark.clause("dragon-tiger", "3.12.2")
def test_mbs_3_12_2_an_assistant_casino_manager_lets_a_player_draw_without_a_wager(
    game_id: str,
) -> None:
    t = method_c_table(game_id)
    r = t.new_round()
    r.place_bet("ann", 1, "player", D(100))
    with pytest.raises(ActionError, match="zed has no wager") as unwagered:
        handling.take_device(r, "zed")
    assert unwagered.value.clause == "3.12.2"
    with pytest.raises(RoleError) as manager:
        handling.allow_draw(r, "zed", Role.PIT_MANAGER)
    assert manager.value.clause == "3.12.2"
    handling.allow_draw(r, "zed", ACM)
    handling.take_device(r, "zed")
    assert handling.device_holder(r) == "zed"
    assert [handling.describe(e) for e in handled(r)][1:] == [
        "zed may draw without a wager, allowed by the assistant casino manager (3.12.2)",
        "zed controls the dealing device (3.12.1)",
    ]
    keyed(r, PLAYER_NINE)
    assert r.nets() == {"ann": D(100)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.12.8", "3.12.1")
@pytest.mark.clause("dragon-tiger", "3.12.8", "3.12.1")
def test_mbs_3_12_8_the_holder_keeps_the_device_into_the_next_round(game_id: str) -> None:
    log = MemoryEventLog(TABLE_STREAM)
    t = method_c_table(game_id, log)
    r1 = t.new_round()
    r1.place_bet("ann", 1, "player", D(100))
    r1.place_bet("bob", 2, "player", D(100))
    handling.take_device(r1, "ann")
    with pytest.raises(ActionError, match="ann controls") as taken:
        handling.take_device(r1, "bob")
    assert taken.value.clause == "3.12.8"
    keyed(r1, PLAYER_NINE)
    assert r1.nets() == {"ann": D(100), "bob": D(100)}
    r2 = t.new_round()
    assert handled(r2)[1:] == [DeviceTaken("ann", "3.12.8")]
    r2.place_bet("bob", 2, "player", D(100))
    assert not handling.can_take_device(r2, "bob")
    # the log keeps it: a restarted table knows who holds the device
    again = table(game_id, log, hlga=True)
    assert again.method is Method.C
    assert handling.device_holder(again.rounds[-1]) == "ann"


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.12.8.2")
@pytest.mark.clause("dragon-tiger", "3.12.8.2")
def test_mbs_3_12_8_2_control_ends_when_the_holders_wager_loses(game_id: str) -> None:
    t = method_c_table(game_id)
    r1 = t.new_round()
    r1.place_bet("ann", 1, "player", D(100))
    r1.place_bet("bob", 2, "banker", D(100))
    handling.take_device(r1, "ann")
    keyed(r1, BANKER_NINE)
    assert r1.nets() == {"ann": D(-100), "bob": D(95)}
    r2 = t.new_round()
    assert isinstance(r1.events[-1], DeviceLost)  # recorded in the round it was lost in
    assert r1.events[-1] == DeviceLost("ann", "3.12.8.2")
    assert handling.device_holder(r2) is None
    r2.place_bet("bob", 2, "banker", D(100))
    handling.take_device(r2, "bob")
    assert handling.device_holder(r2) == "bob"


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.12.8.1")
@pytest.mark.clause("dragon-tiger", "3.12.8.1")
def test_mbs_3_12_8_1_the_device_is_relinquished_between_deals(game_id: str) -> None:
    t = method_c_table(game_id)
    r = t.new_round()
    r.place_bet("ann", 1, "player", D(100))
    handling.take_device(r, "ann")
    r.close_betting()
    with pytest.raises(PhaseError) as dealing_now:
        handling.relinquish_device(r, "ann")
    assert dealing_now.value.clause == "3.12.8.1"
    for card in parse_cards(PLAYER_NINE):
        r.deal_card(card, "keyed")
    r.settle()
    assert r.nets() == {"ann": D(100)}
    handling.relinquish_device(r, "ann")
    assert handling.device_holder(t.new_round()) is None


def test_tiger_baccarat_3_9_2_switching_to_method_a_returns_the_device_to_the_dealer() -> None:
    t = method_c_table("tiger-baccarat")
    r1 = t.new_round()
    r1.place_bet("ann", 1, "player", D(100))
    handling.take_device(r1, "ann")
    keyed(r1, PLAYER_NINE)
    assert r1.nets() == {"ann": D(100)}
    t.choose_method(Method.A, Role.PIT_MANAGER)
    r2 = t.new_round()
    assert handling.method_of(r2) is Method.A
    assert handling.device_holder(r2) is None


# -- 5.12: the Method C irregularities check the Method ---------------------------------------


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "5.12.2")
@pytest.mark.clause("dragon-tiger", "5.12.2")
def test_mbs_5_12_2_method_c_procedure_refused_at_a_method_a_table(game_id: str) -> None:
    r = dealing(game_id, ("ann", 1, "player", 100))
    with pytest.raises(ActionError, match="conducted by Method A") as refused:
        irr.order_altered(r, reconstructable=False, method_c=True)
    assert refused.value.clause == "5.12.2"
    with pytest.raises(ActionError) as exposed:
        irr.card_exposed_in_error(r, method_c_device=True)
    assert exposed.value.clause == "5.12.1"
    assert r.void is None
    assert r.irregularities == []
    ruling = irr.order_altered(r, reconstructable=False)  # 5.2 at a Method A table
    assert ruling.clause == "5.2"
    assert r.nets() == {"ann": D(0)}


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "5.12.2")
@pytest.mark.clause("dragon-tiger", "5.12.2")
def test_mbs_5_12_2_altered_order_at_a_method_c_table_voids_and_replaces(game_id: str) -> None:
    t = method_c_table(game_id)
    r = t.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.close_betting()
    t.draw()
    ruling = irr.order_altered(r, reconstructable=False)  # the table's Method says 5.12.2
    assert ruling.clause == "5.12.2"
    assert r.nets() == {"ann": D(0)}
    assert t.replacement_due == "5.12.2"


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "5.12.1")
@pytest.mark.clause("dragon-tiger", "5.12.1")
def test_mbs_5_12_1_card_exposed_moving_the_device_at_a_method_c_table(game_id: str) -> None:
    t = method_c_table(game_id)
    r = t.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.close_betting()
    r.deal_card(parse_cards("5H")[0], "keyed")
    assert irr.card_exposed_in_error(r, method_c_device=True).clause == "5.12.1"
    assert irr.card_exposed_in_error(r).clause == "5.7.1"  # exposed otherwise
    for card in parse_cards("9C TD KS"):
        r.deal_card(card, "keyed")
    r.settle()  # played as if face down: Player 5 v Banker 9
    assert r.nets() == {"ann": D(95)}
    assert [n.clause for n in r.irregularities] == ["5.12.1", "5.7.1"]


# -- the replay format and the console ---------------------------------------------------------


def test_tiger_baccarat_3_9_1_replay_refuses_a_device_under_method_a() -> None:
    data = {
        "game": "tiger-baccarat",
        "limits": {"minimum": "10", "maximum": "1000"},
        "actions": [
            {"action": "open"},
            {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
            {"action": "take_device", "player": "ann"},
        ],
    }
    with pytest.raises(ReplayError) as refused:
        run_replay(data)
    assert (refused.value.index, refused.value.clause) == (2, "3.9.1")


def test_dragon_tiger_3_10_4_1_replay_records_who_had_which_cards() -> None:
    replay = run_replay(
        {
            "game": "dragon-tiger",
            "limits": {"minimum": "10", "maximum": "1000"},
            "actions": [
                {"action": "open"},
                {"action": "method", "method": "A", "role": "pit_manager"},
                {
                    "action": "bet",
                    "player": "ann",
                    "position": 1,
                    "wager": "player",
                    "stake": "100",
                },
                {"action": "no_more_bets"},
                {"action": "card", "cards": "5H 9C TD KS"},
                {"action": "pass_cards", "hand": "player"},
                {
                    "action": "choose_squeezer",
                    "hand": "banker",
                    "player": "ann",
                    "role": "pit_supervisor",
                },
                {"action": "settle"},
            ],
        }
    )
    assert [line for line in replay.event_lines() if line["type"] == "cards_passed"] == [
        {"round": "r1", "type": "cards_passed", "side": "player", "player": "ann",
         "clause": "3.10.2", "role": "dealer"},
        {"round": "r1", "type": "cards_passed", "side": "banker", "player": "ann",
         "clause": "3.10.4.1", "role": "pit_supervisor"},
    ]  # fmt: skip
    assert replay.report()["players"] == {"ann": "-100.00"}


def test_tiger_baccarat_3_9_2_console_chooses_the_method_between_rounds() -> None:
    screen = io.StringIO()
    out = Console(file=screen, width=160)
    script = io.StringIO(
        "method B role=pit_manager\n"
        "open\n"
        "bet ann 1 player 100\n"
        "close\n"
        "card 9H 5C TD KS\n"
        "pass_cards player\n"
        "method A role=pit_manager\n"
        "settle\n"
        "method A role=pit_manager\n"
        "open\n"
        "bet ann 1 player 100\n"
        "close\n"
        "card 9H 5C TD KS\n"
        "pass_cards player\n"
        "status\n"
    )
    desk = DealerConsole(
        get_game("tiger-baccarat"),
        limits=LIMITS,
        log=MemoryEventLog(TABLE_STREAM),
        seed=1,
        console=out,
        input_fn=console_input(out, script),
    )
    assert desk.run() == 0
    text = screen.getvalue()
    assert "Method B from the next round." in text
    assert "players do not handle the cards by Method B" in text
    assert "round r1 is in play: the Method may be changed only" in text
    assert "the player hand's cards passed to ann (3.10.2)." in text
    assert "Method A · player: ann squeezes" in text
    first, second = desk.table.rounds
    assert first.nets() == {"ann": D(100)}
    assert handling.method_of(first) is Method.B
    assert handling.method_of(second) is Method.A


def test_dragon_tiger_3_12_8_console_runs_method_c_at_an_hlga_table() -> None:
    screen = io.StringIO()
    out = Console(file=screen, width=160)
    script = io.StringIO(
        "method C role=pit_manager\n"
        "method C role=assistant_casino_manager\n"
        "open\n"
        "bet ann 1 player 100\n"
        "take_device ann\n"
        "take_device bob\n"
        "close\n"
        "card 9H 5C TD KS\n"
        "settle\n"
        "open\n"
        "status\n"
    )
    desk = DealerConsole(
        get_game("dragon-tiger"),
        limits=LIMITS,
        log=MemoryEventLog(TABLE_STREAM),
        seed=1,
        console=out,
        input_fn=console_input(out, script),
        hlga=True,
    )
    assert desk.run() == 0
    text = screen.getvalue()
    assert "a pit manager may not allow Method C" in text
    assert "Method C from the next round." in text
    assert "ann controls the dealing device (3.12.1)." in text
    assert "ann controls the dealing device (clause 3.12.8)" in text  # bob refused
    assert "Method C · device: ann" in text  # kept into r2: ann's Player 9 won
    first, second = desk.table.rounds
    assert first.nets() == {"ann": D(100)}
    assert handling.device_holder(second) == "ann"


@pytest.mark.parametrize("game_id", MBS)
@pytest.mark.clause("tiger-baccarat", "3.9.2")
@pytest.mark.clause("dragon-tiger", "3.9.2")
def test_mbs_3_9_2_method_c_stops_when_the_table_leaves_hlga(game_id: str) -> None:
    log = MemoryEventLog(TABLE_STREAM)
    method_c_table(game_id, log)
    outside = table(game_id, log)  # restarted, no longer in HLGA
    assert outside.method is Method.C
    with pytest.raises(ActionError, match="no longer in HLGA") as refused:
        outside.new_round()
    assert refused.value.clause == "3.9.2"
    assert outside.rounds == []
    outside.choose_method(Method.B, Role.PIT_MANAGER)
    r = outside.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    keyed(r, BANKER_NINE)
    assert handling.method_of(r) is Method.B
    assert r.nets() == {"ann": D(95)}
