"""Card handling, Methods A, B and C (Tiger Baccarat and Dragon Tiger 3.9-3.12)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from punto.errors import ActionError, PhaseError, RoleError
from punto.rules.cards import parse_cards
from punto.rules.coup import Side
from punto.rules.games import get_game
from punto.table import handling
from punto.table.handling import Method, check_choice, squeeze_order, squeezer
from punto.table.limits import TableLimits
from punto.table.roles import Role
from punto.table.round import Round

LIMITS = TableLimits(Decimal(10), Decimal(5000))


def betting(*bets: tuple[str, int, str, int], game: str = "tiger-baccarat") -> Round:
    r = Round(get_game(game), limits=LIMITS)
    r.open()
    for player, position, wager, stake in bets:
        r.place_bet(player, position, wager, Decimal(stake))
    return r


def test_tiger_baccarat_3_10_2_cards_pass_to_the_highest_amount_on_each_hand() -> None:
    r = betting(("ann", 1, "player", 200), ("bob", 2, "banker", 700), ("cat", 3, "player", 900))
    assert squeezer(r, Side.PLAYER) == "cat"
    assert squeezer(r, Side.BANKER) == "bob"


def test_tiger_baccarat_3_10_2_amount_wagered_is_the_players_total_on_the_hand() -> None:
    r = betting(("ann", 1, "player", 300), ("ann", 1, "player", 300), ("bob", 2, "player", 500))
    assert squeeze_order(r, Side.PLAYER) == ["ann", "bob"]


def test_tiger_baccarat_3_10_3_a_refusal_passes_to_the_next_highest() -> None:
    r = betting(("ann", 1, "banker", 200), ("bob", 2, "banker", 700), ("cat", 3, "banker", 400))
    assert squeezer(r, Side.BANKER, refused={"bob"}) == "cat"
    assert squeezer(r, Side.BANKER, refused={"bob", "cat"}) == "ann"


def test_tiger_baccarat_3_10_4_equal_highest_first_to_the_one_who_bet_first() -> None:
    r = betting(("ann", 6, "player", 500), ("bob", 2, "player", 500), ("cat", 4, "player", 500))
    assert squeezer(r, Side.PLAYER) == "ann"


def test_tiger_baccarat_3_10_5_refusal_among_equal_highest_moves_counter_clockwise() -> None:
    r = betting(("ann", 6, "player", 500), ("bob", 2, "player", 500), ("cat", 4, "player", 500))
    # counter-clockwise from ann's position 6: 7, 8, 1, 2 (bob), 3, 4 (cat)
    assert squeeze_order(r, Side.PLAYER) == ["ann", "bob", "cat"]
    assert squeezer(r, Side.PLAYER, refused={"ann"}) == "bob"


def test_tiger_baccarat_3_10_4_1_nobody_left_is_for_the_pit_supervisor() -> None:
    r = betting(("ann", 1, "player", 200))
    assert squeezer(r, Side.BANKER) is None
    assert squeezer(r, Side.PLAYER, refused={"ann"}) is None


def test_tiger_baccarat_3_9_2_pit_manager_chooses_method_a_or_b() -> None:
    game = get_game("tiger-baccarat")
    check_choice(game, Method.A, Role.PIT_MANAGER, hlga=False)
    check_choice(game, Method.B, Role.SHIFT_MANAGER, hlga=False)
    with pytest.raises(RoleError, match="pit manager") as refused:
        check_choice(game, Method.B, Role.DEALER, hlga=False)
    assert refused.value.clause == "3.9.2"


def test_tiger_baccarat_3_9_2_method_c_only_in_hlga_by_an_assistant_casino_manager() -> None:
    game = get_game("tiger-baccarat")
    with pytest.raises(ActionError, match="only within HLGA"):
        check_choice(game, Method.C, Role.ASSISTANT_CASINO_MANAGER, hlga=False)
    with pytest.raises(RoleError):
        check_choice(game, Method.C, Role.PIT_MANAGER, hlga=True)
    check_choice(game, Method.C, Role.ASSISTANT_CASINO_MANAGER, hlga=True)


def method_c(game: str = "tiger-baccarat") -> Round:
    """A round conducted by Method C (an HLGA table, allowed by an ACM)."""
    r = Round(get_game(game), limits=LIMITS)
    r.open()
    handling.choose_method(r, Method.C, Role.ASSISTANT_CASINO_MANAGER, hlga=True)
    return r


def betting_c(*bets: tuple[str, int, str, int], game: str = "tiger-baccarat") -> Round:
    r = method_c(game)
    for player, position, wager, stake in bets:
        r.place_bet(player, position, wager, Decimal(stake))
    return r


def test_dragon_tiger_3_12_2_drawing_without_a_wager_needs_permission() -> None:
    r = betting_c(("ann", 1, "player", 100), game="dragon-tiger")
    assert not handling.can_take_device(r, "zed")
    with pytest.raises(ActionError) as refused:
        handling.take_device(r, "zed")
    assert refused.value.clause == "3.12.2"
    handling.allow_draw(r, "zed", Role.ASSISTANT_CASINO_MANAGER)
    handling.take_device(r, "zed")
    assert handling.device_holder(r) == "zed"


def _settled(r: Round, cards: str) -> Round:
    r.close_betting()
    for card in parse_cards(cards):
        r.deal_card(card)
    r.settle()
    return r


def test_tiger_baccarat_3_12_8_1_control_kept_until_relinquished() -> None:
    r = betting_c(("ann", 1, "player", 100))
    handling.take_device(r, "ann")
    _settled(r, "9H 5C TD KS")  # Player 9 v Banker 5: ann's wager wins
    assert r.nets() == {"ann": Decimal(100)}
    assert not handling.can_lose_device(r)
    assert handling.device_holder(r) == "ann"
    with pytest.raises(ActionError, match="does not control"):
        handling.relinquish_device(r, "bob")
    handling.relinquish_device(r, "ann")
    assert handling.device_holder(r) is None


def test_tiger_baccarat_3_12_8_2_control_lost_when_the_wager_loses() -> None:
    r = betting_c(("ann", 1, "player", 100), ("ann", 1, "tie", 10))
    handling.take_device(r, "ann")
    assert not handling.can_take_device(r, "bob")
    _settled(r, "5H 9C TD KS")  # Banker 9 v Player 5
    assert r.nets() == {"ann": Decimal(-110)}
    assert handling.lose_device(r) == "ann"
    assert handling.device_holder(r) is None
    assert [e.type for e in r.events if e.type.startswith("device")] == [
        "device_taken",
        "device_lost",
    ]


def test_tiger_baccarat_3_12_8_2_a_tie_does_not_lose_the_wager() -> None:
    r = betting_c(("ann", 1, "banker", 100), ("ann", 1, "tiger", 10))
    handling.take_device(r, "ann")
    _settled(r, "9H 9C TD KS")  # a Tie on 9: the Banker wager is returned, Tiger loses
    assert r.nets() == {"ann": Decimal(-10)}
    assert not handling.can_lose_device(r)
    assert handling.device_holder(r) == "ann"


def test_tiger_baccarat_3_12_8_method_c_device_changes_hands_only_between_rounds() -> None:
    r = betting_c(("ann", 1, "player", 100))
    r.close_betting()
    with pytest.raises(PhaseError):
        handling.take_device(r, "ann")
