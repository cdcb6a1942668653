"""Every refusal of card handling whole: its kind, what was wrong, the
clause, and what to do instead (Tiger Baccarat and Dragon Tiger 3.9-3.12,
3.21).  The words are what a dealer or a pit manager reads on the screen, so
each is pinned here as they read it, and so is each ``can_`` with the
position its ``check_`` assumes when none is named."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from punto.errors import ActionError, PhaseError, PuntoError, RoleError
from punto.rules.cards import parse_cards
from punto.rules.coup import Side
from punto.rules.games import get_game
from punto.table import handling as h
from punto.table.handling import Method
from punto.table.roles import Role
from punto.table.round import Round
from tests.table.test_card_handling import LIMITS, betting, betting_c

ANN = ("ann", 1, "player", 100)
BOB = ("bob", 2, "banker", 100)


def closed(*bets: tuple[str, int, str, int]) -> Round:
    r = betting(*bets)
    r.close_betting()
    return r


def closed_c(*bets: tuple[str, int, str, int]) -> Round:
    r = betting_c(*bets)
    r.close_betting()
    return r


def holding(*bets: tuple[str, int, str, int]) -> Round:
    """A Method C round in which ann holds the dealing device."""
    r = betting_c(*bets)
    h.take_device(r, "ann")
    return r


def method_b(*bets: tuple[str, int, str, int]) -> Round:
    """A round conducted by Method B (the Pit Manager's choice): the Dealer
    handles every card."""
    r = Round(get_game("tiger-baccarat"), limits=LIMITS)
    r.open()
    h.choose_method(r, Method.B, Role.PIT_MANAGER)
    for player, position, wager, stake in bets:
        r.place_bet(player, position, wager, Decimal(stake))
    return r


def closed_b(*bets: tuple[str, int, str, int]) -> Round:
    r = method_b(*bets)
    r.close_betting()
    return r


def dealing_held() -> Round:
    """ann holds the dealing device, and the first card is out."""
    r = holding(ANN)
    r.close_betting()
    r.deal_card(parse_cards("9H")[0])
    return r


def passed(side: Side) -> Round:
    r = closed(ANN)
    h.pass_cards(r, side)
    return r


def settled_won(r: Round) -> Round:
    r.close_betting()
    for card in parse_cards("9H 5C TD KS"):  # Player 9, Banker 5: ann's Player wins
        r.deal_card(card)
    r.settle()
    return r


TB = get_game("tiger-baccarat")
NC = get_game("tiger-no-commission")
ACM = Role.ASSISTANT_CASINO_MANAGER

#: (what is refused, the kind, the message, the clause, the hint)
REFUSALS: list[tuple[Callable[[], Any], type[PuntoError], str, str | None, str | None]] = [
    (
        lambda: h.check_choice(TB, Method.B, Role.DEALER, hlga=False),
        RoleError,
        "a dealer may not choose Method B",
        "3.9.2",
        "it takes a pit manager or higher",
    ),
    (
        lambda: h.check_choice(TB, Method.C, ACM, hlga=False),
        ActionError,
        "Method C is permitted only within HLGA",
        "3.9.2",
        "use Method A or B, or run the table as an HLGA table",
    ),
    (
        lambda: h.check_choice(TB, Method.C, Role.PIT_MANAGER, hlga=True),
        RoleError,
        "a pit manager may not allow Method C",
        "3.9.2",
        "it takes an assistant casino manager or higher",
    ),
    (
        lambda: h.check_choice(NC, Method.B, Role.PIT_MANAGER, hlga=False),
        ActionError,
        "the Tiger No Commission Baccarat rules describe no Methods A, B and C of card handling",
        None,
        "the Dealer deals; nothing is recorded of who handles the cards",
    ),
    (
        lambda: h.check_choose_method(closed(ANN), Method.B, Role.PIT_MANAGER),
        PhaseError,
        "the Method may be changed only before a round of play commences",
        "3.9.2",
        "choose it before the next round (first, before any bet)",
    ),
    (
        lambda: h.check_pass_cards(betting(ANN), Side.PLAYER),
        PhaseError,
        "the cards are passed to squeeze after 'No more bets' and before settlement",
        "3.10.2",
        None,
    ),
    (
        lambda: h.check_pass_cards(closed_c(ANN), Side.PLAYER),
        ActionError,
        "passing the cards to the highest bettor only by Method A; this round is conducted "
        "by Method C",
        "3.10.2",
        "the Pit Manager chooses Method A or B before the round commences (3.9.2)",
    ),
    (
        lambda: h.check_pass_cards(closed(ANN), Side.PLAYER, Role.PLAYER),
        RoleError,
        "a player may not pass the cards",
        "3.10.2",
        "it takes a dealer or higher",
    ),
    (
        lambda: h.check_pass_cards(closed(ANN), Side.BANKER),
        ActionError,
        "no player is left to take the banker hand's cards: nobody wagered",
        "3.10.4.1",
        "the Pit Supervisor chooses who handles them (choose_squeezer), or the Dealer exposes them",
    ),
    (
        lambda: h.check_refuse_cards(closed(ANN, ("bob", 2, "player", 50)), Side.PLAYER, "bob"),
        ActionError,
        "bob does not have the player hand's cards",
        "3.10.3",
        "they are with the Dealer",
    ),
    (
        lambda: h.check_refuse_cards(betting(ANN), Side.PLAYER, "ann"),
        PhaseError,
        "the cards are passed to squeeze after 'No more bets' and before settlement",
        "3.10.2",
        None,
    ),
    (
        lambda: h.check_choose_squeezer(closed(ANN), Side.PLAYER, "ann", Role.DEALER),
        RoleError,
        "a dealer may not give the cards to ann while the amounts wagered name who squeezes",
        "3.21",
        "it takes a pit manager or higher",
    ),
    (
        lambda: h.check_take_device(betting(ANN), "ann"),
        ActionError,
        "the Dealer keeps control of the dealing device by Method A: ann may not take the "
        "dealing device",
        "3.9.1",
        "an Assistant Casino Manager may allow Method C at an HLGA table (3.9.2)",
    ),
    (
        lambda: h.check_take_device(closed_c(ANN), "ann"),
        PhaseError,
        "the dealing device is accepted before the cards are dealt",
        "3.12.8",
        "take it in the next round, before 'No more bets'",
    ),
    (
        lambda: h.check_take_device(betting_c(ANN), "zed"),
        ActionError,
        "zed has no wager this round",
        "3.12.2",
        "an Assistant Casino Manager may allow a player to draw without a wager (allow_draw)",
    ),
    (
        lambda: h.check_take_device(holding(ANN, BOB), "bob"),
        ActionError,
        "ann controls the dealing device",
        "3.12.8",
        "it passes when they relinquish it or their wager loses",
    ),
    (
        lambda: h.check_relinquish_device(betting_c(ANN), "ann"),
        ActionError,
        "ann does not control the dealing device",
        "3.12.8.1",
        "nobody does",
    ),
    (
        lambda: h.check_relinquish_device(holding(ANN, BOB), "bob"),
        ActionError,
        "bob does not control the dealing device",
        "3.12.8.1",
        "ann does",
    ),
    (
        lambda: h.check_lose_device(betting_c(ANN)),
        ActionError,
        "nobody controls the dealing device",
        "3.12.8.2",
        None,
    ),
    (
        lambda: h.check_lose_device(holding(ANN)),
        PhaseError,
        "control is lost when the round is settled",
        "3.12.8.2",
        None,
    ),
    (
        lambda: h.check_lose_device(settled_won(holding(ANN))),
        ActionError,
        "ann's wager did not lose: they keep control of the device",
        "3.12.8.2",
        "they keep it until they relinquish it (relinquish_device) or their wager loses",
    ),
    (
        lambda: h.check_allow_draw(betting_c(ANN), "zed", Role.PIT_MANAGER),
        RoleError,
        "a pit manager may not let a player draw without a valid wager",
        "3.12.2",
        "it takes an assistant casino manager or higher",
    ),
    (
        lambda: h.check_allow_draw(betting(ANN), "zed"),
        ActionError,
        "the Dealer keeps control of the dealing device by Method A: letting a player draw "
        "without a wager",
        "3.9.1",
        "an Assistant Casino Manager may allow Method C at an HLGA table (3.9.2)",
    ),
    (
        lambda: h.check_allow_draw(closed_c(ANN), "zed"),
        PhaseError,
        "a player is allowed to draw before the cards are dealt",
        "3.12.2",
        None,
    ),
    (
        lambda: h.hand_named("dragon"),
        ActionError,
        "there is no 'dragon' hand",
        None,
        "player or banker",
    ),
    (
        lambda: h.method_named("D"),
        ActionError,
        "there is no Method 'D'",
        None,
        "A, B or C (3.9)",
    ),
    (
        lambda: h.check_relinquish_device(dealing_held(), "ann"),
        PhaseError,
        "the dealing device changes hands between rounds, not while the cards are dealt",
        "3.12.8.1",
        None,
    ),
    (
        lambda: h.check_pass_cards(closed_b(ANN), Side.PLAYER),
        ActionError,
        "players do not handle the cards by Method B: passing the cards to the highest bettor",
        "3.11.2",
        "the Dealer keeps the cards for both hands",
    ),
    (
        lambda: h.check_take_device(method_b(ANN), "ann"),
        ActionError,
        "the Dealer keeps control of the dealing device by Method B: ann may not take the "
        "dealing device",
        "3.9.1",
        "an Assistant Casino Manager may allow Method C at an HLGA table (3.9.2)",
    ),
    (
        lambda: h.check_choose_squeezer(closed_b(ANN), Side.PLAYER, "ann", Role.PIT_MANAGER),
        ActionError,
        "players do not handle the cards by Method B: choosing who squeezes",
        "3.11.2",
        "the Dealer keeps the cards for both hands",
    ),
    (
        lambda: h.check_choose_squeezer(closed_c(ANN), Side.PLAYER, "ann", Role.PIT_MANAGER),
        ActionError,
        "choosing who squeezes only by Method A; this round is conducted by Method C",
        "3.10.2",
        "the Pit Manager chooses Method A or B before the round commences (3.9.2)",
    ),
    (
        lambda: h.check_choose_squeezer(betting(ANN), Side.PLAYER, "ann", Role.PIT_MANAGER),
        PhaseError,
        "the cards are passed to squeeze after 'No more bets' and before settlement",
        "3.10.2",
        None,
    ),
    (
        lambda: h.check_choose_squeezer(closed(ANN), Side.PLAYER, "bob", Role.PIT_SUPERVISOR),
        RoleError,
        "a pit supervisor may not give the cards to bob while the amounts wagered name who "
        "squeezes",
        "3.21",
        "it takes a pit manager or higher",
    ),
    (
        lambda: h.check_choose_method(betting(), Method.B, Role.DEALER),
        RoleError,
        "a dealer may not choose Method B",
        "3.9.2",
        "it takes a pit manager or higher",
    ),
    (
        lambda: h.check_choose_method(betting(), Method.C, ACM),
        ActionError,
        "Method C is permitted only within HLGA",
        "3.9.2",
        "use Method A or B, or run the table as an HLGA table",
    ),
    (
        lambda: h.check_refuse_cards(closed_c(ANN), Side.PLAYER, "ann"),
        ActionError,
        "refusing the cards only by Method A; this round is conducted by Method C",
        "3.10.2",
        "the Pit Manager chooses Method A or B before the round commences (3.9.2)",
    ),
    (
        lambda: h.check_pass_cards(passed(Side.PLAYER), Side.PLAYER),
        ActionError,
        "ann has the player hand's cards",
        "3.10.2",
        "they pass on only if that player refuses them",
    ),
    (
        lambda: h.check_lose_device(betting(ANN)),
        ActionError,
        "the Dealer keeps control of the dealing device by Method A: losing control of the "
        "dealing device",
        "3.9.1",
        "an Assistant Casino Manager may allow Method C at an HLGA table (3.9.2)",
    ),
]


@pytest.mark.parametrize(("refused", "kind", "message", "clause", "hint"), REFUSALS)
def test_card_handling_refusals_say_what_was_wrong_the_clause_and_what_to_do(
    refused: Callable[[], Any],
    kind: type[PuntoError],
    message: str,
    clause: str | None,
    hint: str | None,
) -> None:
    with pytest.raises(PuntoError) as error:
        refused()
    assert type(error.value) is kind
    assert (error.value.message, error.value.clause, error.value.hint) == (message, clause, hint)


def test_card_handling_can_assumes_the_position_each_action_is_for() -> None:
    """With no position named, each ``can_`` asks as the position whose
    action it is: the Dealer passes the cards, the Pit Supervisor names a
    squeezer, an Assistant Casino Manager lets a player draw -- and says no
    where that position may not."""
    assert h.can_pass_cards(closed(ANN), Side.PLAYER)
    assert not h.can_pass_cards(closed(ANN), Side.BANKER)
    passed = closed(ANN)
    assert h.pass_cards(passed, Side.PLAYER) == "ann"
    assert h.can_refuse_cards(passed, Side.PLAYER, "ann")
    assert not h.can_refuse_cards(passed, Side.PLAYER, "bob")
    assert h.can_choose_squeezer(closed(ANN), Side.BANKER, "ann")  # nobody left: 3.10.4.1
    assert h.check_choose_squeezer(closed(ANN), Side.BANKER, "ann") == "3.10.4.1"
    assert h.check_choose_squeezer(closed(ANN), Side.PLAYER, "ann", Role.PIT_MANAGER) == "3.21"
    assert not h.can_choose_squeezer(closed(ANN), Side.PLAYER, "ann")  # ann is named: 3.21
    assert h.can_allow_draw(betting_c(ANN), "zed")
    assert not h.can_allow_draw(betting(ANN), "zed")
    assert h.can_take_device(betting_c(ANN), "ann")
    assert h.can_relinquish_device(holding(ANN), "ann")
    assert not h.can_relinquish_device(holding(ANN), "bob")
    assert h.can_choose_method(betting(), Method.B, Role.PIT_MANAGER)
    assert not h.can_choose_method(closed(ANN), Method.B, Role.PIT_MANAGER)
    assert h.hand_named("Banker") is Side.BANKER
    assert h.method_named("c") is Method.C
