"""The round of play as a state machine.

* Every action is a trio: ``check_x`` raises the right typed error with the
  clause, ``can_x`` agrees with it, and ``x`` refuses the same way without
  writing anything, or appends exactly one event.
* A round is a fold over its events: replaying them (also through their
  JSON form) gives the same round and the same results.
* A property test drives random sequences of legal and illegal actions --
  bets, cards, insurance, irregularities, kills and restarts of a live table
  on a SQLite event log -- and checks that every bet ends settled, returned,
  withdrawn or void, that money is conserved, that a refused action writes
  nothing, and that the log replays to the same state.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from punto.errors import (
    ActionError,
    BettingClosedError,
    DealError,
    InsuranceError,
    LimitError,
    PhaseError,
    PuntoError,
    RoleError,
)
from punto.eventlog import MemoryEventLog
from punto.rules.cards import parse_cards
from punto.rules.coup import Side
from punto.rules.games import get_game
from punto.rules.insurance import Moment
from punto.store.db import connect
from punto.store.sql_log import SQLEventLog
from punto.table import irregularities as irr
from punto.table.events import (
    TABLE_STREAM,
    BetPlaced,
    BetReduced,
    BetReturned,
    BetsClosed,
    BettingReopened,
    BetWithdrawn,
    CardDealt,
    CardsReconstructed,
    Event,
    InsurancePlaced,
    InsuranceReoffered,
    InsuranceWaived,
    IrregularityNoted,
    PlayerWithdrew,
    PowerFailed,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableConfigured,
    WithdrawalClosed,
    WithdrawalOffered,
    event_from_json,
    event_to_json,
)
from punto.table.limits import TableLimits
from punto.table.live import LiveTable, TableConfigError
from punto.table.roles import Role
from punto.table.round import Phase, Round

LIMITS = TableLimits(Decimal(10), Decimal(1000), differential=Decimal(1000), wagers_per_area=3)
RWS_LIMITS = TableLimits(Decimal(100), Decimal(10000), differential=Decimal(2000))

D = Decimal


def tb(**options: Any) -> Round:
    return Round(get_game("tiger-baccarat"), limits=LIMITS, **options)


def rws(**options: Any) -> Round:
    return Round(get_game("tiger-buffalo"), limits=RWS_LIMITS, layout="A", **options)


def betting(r: Round) -> Round:
    r.open()
    return r


def closed(r: Round, player: str = "player", banker: str = "banker") -> Round:
    r.open()
    stake = D(300) if r.game.id == "tiger-buffalo" else D(100)
    r.place_bet("ann", 1, player, stake)
    r.place_bet("bob", 2, banker, stake)
    r.close_betting()
    return r


def dealt(r: Round, text: str) -> Round:
    for card in parse_cards(text):
        r.deal_card(card)
    return r


def settled(r: Round) -> Round:
    dealt(closed(r), "9H 2C KD 3S")
    r.settle()
    return r


def drawn_together(r: Round) -> Round:
    """A simultaneous draw recorded (MBS 5.8): what the option of 5.8.1 needs."""
    r.note_irregularity("5.8", "cards drawn simultaneously")
    return r


def option_open(r: Round) -> Round:
    drawn_together(closed(r)).offer_withdrawal("5.8.1", "test")
    return r


# -- trios: refusals -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    name: str
    make: Callable[[], Round]
    check: Callable[[Round], None]
    can: Callable[[Round], bool]
    act: Callable[[Round], object]
    error: type[PuntoError]
    clause: str | None


REFUSALS = [
    Refusal(
        "open twice",
        lambda: betting(tb()),
        lambda r: r.check_open(),
        lambda r: r.can_open(),
        lambda r: r.open(),
        PhaseError,
        "3.1",
    ),
    Refusal(
        "open by a player",
        tb,
        lambda r: r.check_open(Role.PLAYER),
        lambda r: r.can_open(Role.PLAYER),
        lambda r: r.open(Role.PLAYER),
        RoleError,
        "3.1",
    ),
    Refusal(
        "bet before betting opens",
        tb,
        lambda r: r.check_place_bet("ann", 1, "banker", D(100)),
        lambda r: r.can_place_bet("ann", 1, "banker", D(100)),
        lambda r: r.place_bet("ann", 1, "banker", D(100)),
        BettingClosedError,
        "3.1",
    ),
    Refusal(
        "bet after No more bets (MBS)",
        lambda: closed(tb()),
        lambda r: r.check_place_bet("ann", 1, "banker", D(100)),
        lambda r: r.can_place_bet("ann", 1, "banker", D(100)),
        lambda r: r.place_bet("ann", 1, "banker", D(100)),
        BettingClosedError,
        "5.4",
    ),
    Refusal(
        "bet after No more Bets (RWS)",
        lambda: closed(rws()),
        lambda r: r.check_place_bet("ann", 1, "banker", D(100)),
        lambda r: r.can_place_bet("ann", 1, "banker", D(100)),
        lambda r: r.place_bet("ann", 1, "banker", D(100)),
        BettingClosedError,
        "5.7",
    ),
    Refusal(
        "bet under the minimum (MBS)",
        lambda: betting(tb()),
        lambda r: r.check_place_bet("ann", 1, "banker", D(5)),
        lambda r: r.can_place_bet("ann", 1, "banker", D(5)),
        lambda r: r.place_bet("ann", 1, "banker", D(5)),
        LimitError,
        "3.5.1",
    ),
    Refusal(
        "bet under the minimum (RWS)",
        lambda: betting(rws()),
        lambda r: r.check_place_bet("ann", 1, "banker", D(50)),
        lambda r: r.can_place_bet("ann", 1, "banker", D(50)),
        lambda r: r.place_bet("ann", 1, "banker", D(50)),
        LimitError,
        "5.2",
    ),
    Refusal(
        "a fourth wager in one area",
        lambda: _three_in_area(),
        lambda r: r.check_place_bet("dan", 1, "banker", D(100)),
        lambda r: r.can_place_bet("dan", 1, "banker", D(100)),
        lambda r: r.place_bet("dan", 1, "banker", D(100)),
        LimitError,
        "3.7",
    ),
    Refusal(
        "standing player on an empty box",
        lambda: betting(rws()),
        lambda r: r.check_place_bet("sam", 3, "banker", D(100), seated=False),
        lambda r: r.can_place_bet("sam", 3, "banker", D(100), seated=False),
        lambda r: r.place_bet("sam", 3, "banker", D(100), seated=False),
        ActionError,
        "1.29",
    ),
    Refusal(
        "insurance while betting",
        lambda: betting(rws()),
        lambda r: r.check_place_bet("ann", 1, "player_insurance", D(100)),
        lambda r: r.can_place_bet("ann", 1, "player_insurance", D(100)),
        lambda r: r.place_bet("ann", 1, "player_insurance", D(100)),
        InsuranceError,
        "3.12",
    ),
    Refusal(
        "withdraw after No more bets",
        lambda: closed(tb()),
        lambda r: r.check_withdraw_bet("b1"),
        lambda r: r.can_withdraw_bet("b1"),
        lambda r: r.withdraw_bet("b1"),
        BettingClosedError,
        "5.5",
    ),
    Refusal(
        "reduce after No more bets",
        lambda: closed(tb()),
        lambda r: r.check_reduce_bet("b1", D(50)),
        lambda r: r.can_reduce_bet("b1", D(50)),
        lambda r: r.reduce_bet("b1", D(50)),
        BettingClosedError,
        "5.4",
    ),
    Refusal(
        "a Dealer removing a wager",
        lambda: _one_bet(tb()),
        lambda r: r.check_reduce_bet("b1", D(0), Role.DEALER),
        lambda r: r.can_reduce_bet("b1", D(0), Role.DEALER),
        lambda r: r.reduce_bet("b1", D(0), Role.DEALER),
        RoleError,
        "5.18.3",
    ),
    Refusal(
        "rejecting the excess at an MBS table",
        lambda: betting(tb()),
        lambda r: r.check_reject_excess(),
        lambda r: r.can_reject_excess(),
        lambda r: r.reject_excess(),
        ActionError,
        "5.18",
    ),
    Refusal(
        "rejecting the excess after No more Bets",
        lambda: closed(rws()),
        lambda r: r.check_reject_excess(),
        lambda r: r.can_reject_excess(),
        lambda r: r.reject_excess(),
        BettingClosedError,
        "5.1",
    ),
    Refusal(
        "No more bets over the differential",
        lambda: _over_differential(),
        lambda r: r.check_close_betting(),
        lambda r: r.can_close_betting(),
        lambda r: r.close_betting(),
        LimitError,
        "5.18",
    ),
    Refusal(
        "No more bets by a player",
        lambda: betting(tb()),
        lambda r: r.check_close_betting(Role.PLAYER),
        lambda r: r.can_close_betting(Role.PLAYER),
        lambda r: r.close_betting(Role.PLAYER),
        RoleError,
        "3.2",
    ),
    Refusal(
        "a card before No more bets",
        lambda: betting(tb()),
        lambda r: r.check_deal_card(),
        lambda r: r.can_deal_card(),
        lambda r: r.deal_card(parse_cards("9H")[0]),
        PhaseError,
        "3.2",
    ),
    Refusal(
        "a card while players may withdraw",
        lambda: option_open(tb()),
        lambda r: r.check_deal_card(),
        lambda r: r.can_deal_card(),
        lambda r: r.deal_card(parse_cards("9H")[0]),
        PhaseError,
        "5.8.1",
    ),
    Refusal(
        "a reconstruction with other cards",
        lambda: dealt(closed(tb()), "9H 2C"),
        lambda r: r.check_reconstruct(parse_cards("2C 9D"), "5.7"),
        lambda r: r.can_reconstruct(parse_cards("2C 9D"), "5.7"),
        lambda r: r.reconstruct(parse_cards("2C 9D"), "5.7"),
        DealError,
        "5.7",
    ),
    Refusal(
        "a reconstruction by a player",
        lambda: dealt(closed(tb()), "9H 2C"),
        lambda r: r.check_reconstruct(parse_cards("2C 9H"), "5.7", Role.PLAYER),
        lambda r: r.can_reconstruct(parse_cards("2C 9H"), "5.7", Role.PLAYER),
        lambda r: r.reconstruct(parse_cards("2C 9H"), "5.7", Role.PLAYER),
        RoleError,
        "5.7",
    ),
    Refusal(
        "betting reopened while betting",
        lambda: betting(tb(electronic_device=True)),
        lambda r: r.check_reopen_betting("5.9"),
        lambda r: r.can_reopen_betting("5.9"),
        lambda r: r.reopen_betting("5.9"),
        PhaseError,
        "5.9",
    ),
    Refusal(
        "insurance at a table with the notice",
        lambda: dealt(closed(rws(insurance_offered=False)), "3H 4C 2D KS"),
        lambda r: r.check_place_insurance("ann", "player_insurance", D(100)),
        lambda r: r.can_place_insurance("ann", "player_insurance", D(100)),
        lambda r: r.place_insurance("ann", "player_insurance", D(100)),
        InsuranceError,
        "4.2.2",
    ),
    Refusal(
        "insurance not on offer",
        lambda: dealt(closed(rws()), "3H 4C"),
        lambda r: r.check_place_insurance("ann", "player_insurance", D(100)),
        lambda r: r.can_place_insurance("ann", "player_insurance", D(100)),
        lambda r: r.place_insurance("ann", "player_insurance", D(100)),
        InsuranceError,
        "3.12",
    ),
    Refusal(
        "insurance over the Original Bet",
        lambda: dealt(closed(rws()), "3H 4C 2D KS"),
        lambda r: r.check_place_insurance("ann", "player_insurance", D(301)),
        lambda r: r.can_place_insurance("ann", "player_insurance", D(301)),
        lambda r: r.place_insurance("ann", "player_insurance", D(301)),
        InsuranceError,
        "3.11, 3.12.2",
    ),
    Refusal(
        "insurance after the next card",
        lambda: dealt(closed(rws()), "3H 4C 2D KS 2S"),
        lambda r: r.check_place_insurance("ann", "player_insurance", D(100), Moment.FOUR_CARDS),
        lambda r: r.can_place_insurance("ann", "player_insurance", D(100), Moment.FOUR_CARDS),
        lambda r: r.place_insurance("ann", "player_insurance", D(100), moment=Moment.FOUR_CARDS),
        InsuranceError,
        "5.3",
    ),
    Refusal(
        "a waiver after the Banker's third card",
        lambda: dealt(closed(rws()), "3H 4C 2D KS 2S 5S"),
        lambda r: r.check_waive_insurance(),
        lambda r: r.can_waive_insurance(),
        lambda r: r.waive_insurance("late"),
        PhaseError,
        "3.14",
    ),
    Refusal(
        "a neglected offer made again by a Dealer",
        lambda: dealt(closed(rws()), "3H 4C 2D KS 2S"),
        lambda r: r.check_reoffer_insurance(Moment.FOUR_CARDS, ["ann"], Role.DEALER),
        lambda r: r.can_reoffer_insurance(Moment.FOUR_CARDS, ["ann"], Role.DEALER),
        lambda r: r.reoffer_insurance(Moment.FOUR_CARDS, ["ann"], Role.DEALER),
        RoleError,
        "5.14.1",
    ),
    Refusal(
        "a neglected offer made again after an outcome",
        lambda: dealt(closed(rws()), "3H 4C 2D KS 2S 5S"),
        lambda r: r.check_reoffer_insurance(Moment.FOUR_CARDS, ["ann"]),
        lambda r: r.can_reoffer_insurance(Moment.FOUR_CARDS, ["ann"]),
        lambda r: r.reoffer_insurance(Moment.FOUR_CARDS, ["ann"]),
        PhaseError,
        "5.14.1",
    ),
    Refusal(
        "a second withdrawal option",
        lambda: option_open(tb(electronic_device=True)),
        lambda r: r.check_offer_withdrawal("5.9"),
        lambda r: r.can_offer_withdrawal("5.9"),
        lambda r: r.offer_withdrawal("5.9", "again"),
        PhaseError,
        "5.8.1",
    ),
    Refusal(
        "a withdrawal without an option",
        lambda: closed(tb()),
        lambda r: r.check_withdraw_player("ann"),
        lambda r: r.can_withdraw_player("ann"),
        lambda r: r.withdraw_player("ann"),
        BettingClosedError,
        "5.5",
    ),
    Refusal(
        "a withdrawal with no wager",
        lambda: option_open(tb()),
        lambda r: r.check_withdraw_player("zed"),
        lambda r: r.can_withdraw_player("zed"),
        lambda r: r.withdraw_player("zed"),
        ActionError,
        "5.8.1",
    ),
    Refusal(
        "closing an option that is not open",
        lambda: closed(tb()),
        lambda r: r.check_close_withdrawal(),
        lambda r: r.can_close_withdrawal(),
        lambda r: r.close_withdrawal(),
        PhaseError,
        None,
    ),
    Refusal(
        "an irregularity on a settled round",
        lambda: settled(tb()),
        lambda r: r.check_note_irregularity("5.6"),
        lambda r: r.can_note_irregularity("5.6"),
        lambda r: r.note_irregularity("5.6", "late"),
        PhaseError,
        "5.6",
    ),
    Refusal(
        "a bet returned by a Dealer",
        lambda: closed(rws()),
        lambda r: r.check_return_bet("b1", "5.14.2", Role.DEALER),
        lambda r: r.can_return_bet("b1", "5.14.2", Role.DEALER),
        lambda r: r.return_bet("b1", "5.14.2", "test", Role.DEALER),
        RoleError,
        "5.14.2",
    ),
    Refusal(
        "a settled round voided",
        lambda: settled(tb()),
        lambda r: r.check_void(Role.DEALER, "5.1"),
        lambda r: r.can_void(Role.DEALER, "5.1"),
        lambda r: r.void_round("late", "5.1"),
        PhaseError,
        "5.1",
    ),
    Refusal(
        "a round voided by a player",
        lambda: closed(tb()),
        lambda r: r.check_void(Role.PLAYER, "5.1"),
        lambda r: r.can_void(Role.PLAYER, "5.1"),
        lambda r: r.void_round("no", "5.1", Role.PLAYER),
        RoleError,
        "5.1",
    ),
    Refusal(
        "a power failure before the round opens",
        tb,
        lambda r: r.check_power_failure(),
        lambda r: r.can_power_failure(),
        lambda r: r.power_failure(),
        PhaseError,
        "5.17",
    ),
    Refusal(
        "settling an incomplete coup",
        lambda: dealt(closed(tb()), "9H 2C"),
        lambda r: r.check_settle(),
        lambda r: r.can_settle(),
        lambda r: r.settle(),
        PhaseError,
        None,
    ),
    Refusal(
        "settling while players may withdraw",
        lambda: _complete_with_option(),
        lambda r: r.check_settle(),
        lambda r: r.can_settle(),
        lambda r: r.settle(),
        PhaseError,
        "5.13",
    ),
]


def _three_in_area() -> Round:
    r = betting(tb())
    for player in ("ann", "bob", "cat"):
        r.place_bet(player, 1, "banker", D(100))
    return r


def _one_bet(r: Round) -> Round:
    r.open()
    r.place_bet("ann", 1, "banker", D(100))
    return r


def _over_differential() -> Round:
    r = betting(tb())
    r.place_bet("ann", 1, "banker", D(1000))
    r.place_bet("bob", 2, "banker", D(500))
    return r


def _complete_with_option() -> Round:
    r = dealt(closed(rws()), "9H 2C KD 3S")
    r.note_irregularity("5.10", "card dealt face up")  # the dealing error 5.13 needs
    r.offer_withdrawal("5.13", "dealing error")
    return r


@pytest.mark.parametrize("case", REFUSALS, ids=[c.name for c in REFUSALS])
def test_trio_refusal_check_raises_can_agrees_act_writes_nothing(case: Refusal) -> None:
    r = case.make()
    before = list(r.events)
    with pytest.raises(case.error) as checked:
        case.check(r)
    assert checked.value.clause == case.clause
    assert case.can(r) is False
    with pytest.raises(case.error) as acted:
        case.act(r)
    assert type(acted.value) is type(checked.value)
    assert str(acted.value) == str(checked.value)
    assert r.events == before


# -- trios: actions that go through ---------------------------------------------------------------


@dataclass(frozen=True)
class Allowed:
    name: str
    make: Callable[[], Round]
    check: Callable[[Round], None]
    can: Callable[[Round], bool]
    act: Callable[[Round], object]
    event: type[Event]


ALLOWED = [
    Allowed(
        "open",
        tb,
        lambda r: r.check_open(),
        lambda r: r.can_open(),
        lambda r: r.open(),
        RoundOpened,
    ),
    Allowed(
        "place a bet",
        lambda: betting(tb()),
        lambda r: r.check_place_bet("ann", 1, "tie", D(10)),
        lambda r: r.can_place_bet("ann", 1, "tie", D(10)),
        lambda r: r.place_bet("ann", 1, "tie", D(10)),
        BetPlaced,
    ),
    Allowed(
        "withdraw a bet",
        lambda: _one_bet(tb()),
        lambda r: r.check_withdraw_bet("b1"),
        lambda r: r.can_withdraw_bet("b1"),
        lambda r: r.withdraw_bet("b1"),
        BetWithdrawn,
    ),
    Allowed(
        "remove a wager as Pit Manager",
        lambda: _one_bet(tb()),
        lambda r: r.check_reduce_bet("b1", D(0), Role.PIT_MANAGER),
        lambda r: r.can_reduce_bet("b1", D(0), Role.PIT_MANAGER),
        lambda r: r.reduce_bet("b1", D(0), Role.PIT_MANAGER),
        BetReduced,
    ),
    Allowed(
        "No more bets",
        lambda: _one_bet(tb()),
        lambda r: r.check_close_betting(),
        lambda r: r.can_close_betting(),
        lambda r: r.close_betting(),
        BetsClosed,
    ),
    Allowed(
        "deal a card",
        lambda: closed(tb()),
        lambda r: r.check_deal_card(),
        lambda r: r.can_deal_card(),
        lambda r: r.deal_card(parse_cards("9H")[0]),
        CardDealt,
    ),
    Allowed(
        "reconstruct",
        lambda: dealt(closed(tb()), "2C 9H"),
        lambda r: r.check_reconstruct(parse_cards("9H 2C"), "5.7"),
        lambda r: r.can_reconstruct(parse_cards("9H 2C"), "5.7"),
        lambda r: r.reconstruct(parse_cards("9H 2C"), "5.7"),
        CardsReconstructed,
    ),
    Allowed(
        "reopen betting",
        lambda: dealt(closed(tb(electronic_device=True)), "2C"),
        lambda r: r.check_reopen_betting("5.9"),
        lambda r: r.can_reopen_betting("5.9"),
        lambda r: r.reopen_betting("5.9"),
        BettingReopened,
    ),
    Allowed(
        "place insurance",
        lambda: dealt(closed(rws()), "3H 4C 2D KS"),
        lambda r: r.check_place_insurance("ann", "player_insurance", D(300)),
        lambda r: r.can_place_insurance("ann", "player_insurance", D(300)),
        lambda r: r.place_insurance("ann", "player_insurance", D(300)),
        InsurancePlaced,
    ),
    Allowed(
        "waive insurance",
        lambda: dealt(closed(rws()), "3H 4C 2D KS"),
        lambda r: r.check_waive_insurance(),
        lambda r: r.can_waive_insurance(),
        lambda r: r.waive_insurance("squeeze"),
        InsuranceWaived,
    ),
    Allowed(
        "offer a neglected insurance again",
        lambda: dealt(closed(rws()), "3H 4C 2D KS 2S"),
        lambda r: r.check_reoffer_insurance(Moment.FOUR_CARDS, ["ann"]),
        lambda r: r.can_reoffer_insurance(Moment.FOUR_CARDS, ["ann"]),
        lambda r: r.reoffer_insurance(Moment.FOUR_CARDS, ["ann"]),
        InsuranceReoffered,
    ),
    Allowed(
        "offer withdrawal",
        lambda: drawn_together(closed(tb())),
        lambda r: r.check_offer_withdrawal("5.8.1"),
        lambda r: r.can_offer_withdrawal("5.8.1"),
        lambda r: r.offer_withdrawal("5.8.1", "simultaneous"),
        WithdrawalOffered,
    ),
    Allowed(
        "withdraw a player",
        lambda: option_open(tb()),
        lambda r: r.check_withdraw_player("ann"),
        lambda r: r.can_withdraw_player("ann"),
        lambda r: r.withdraw_player("ann"),
        PlayerWithdrew,
    ),
    Allowed(
        "close withdrawal",
        lambda: option_open(tb()),
        lambda r: r.check_close_withdrawal(),
        lambda r: r.can_close_withdrawal(),
        lambda r: r.close_withdrawal(),
        WithdrawalClosed,
    ),
    Allowed(
        "note an irregularity",
        lambda: closed(tb()),
        lambda r: r.check_note_irregularity("5.10"),
        lambda r: r.can_note_irregularity("5.10"),
        lambda r: r.note_irregularity("5.10", "absent"),
        IrregularityNoted,
    ),
    Allowed(
        "return a bet",
        lambda: dealt(closed(rws()), "9H 2C KD 3S"),
        lambda r: r.check_return_bet("b1", "5.14.2"),
        lambda r: r.can_return_bet("b1", "5.14.2"),
        lambda r: r.return_bet("b1", "5.14.2", "intended insurance"),
        BetReturned,
    ),
    Allowed(
        "void",
        lambda: closed(tb()),
        lambda r: r.check_void(Role.DEALER, "5.1"),
        lambda r: r.can_void(Role.DEALER, "5.1"),
        lambda r: r.void_round("foreign card", "5.1"),
        RoundVoided,
    ),
    Allowed(
        "power failure with an outcome established",
        lambda: dealt(closed(tb()), "9H 2C KD 3S"),
        lambda r: r.check_power_failure(),
        lambda r: r.can_power_failure(),
        lambda r: r.power_failure(),
        PowerFailed,
    ),
    Allowed(
        "settle",
        lambda: dealt(closed(tb()), "9H 2C KD 3S"),
        lambda r: r.check_settle(),
        lambda r: r.can_settle(),
        lambda r: r.settle(),
        RoundSettled,
    ),
]


@pytest.mark.parametrize("case", ALLOWED, ids=[c.name for c in ALLOWED])
def test_trio_allowed_check_passes_can_agrees_act_appends_one_event(case: Allowed) -> None:
    r = case.make()
    case.check(r)
    assert case.can(r) is True
    before = len(r.events)
    case.act(r)
    assert len(r.events) == before + 1
    assert type(r.events[-1]) is case.event


def test_compound_actions_power_failure_appends_failure_then_consequence() -> None:
    mbs = dealt(closed(tb()), "9H")
    assert mbs.power_failure() == "withdrawal"
    assert [type(e) for e in mbs.events[-2:]] == [PowerFailed, WithdrawalOffered]
    rws_round = dealt(closed(rws()), "9H")
    assert rws_round.power_failure() == "void"
    assert [type(e) for e in rws_round.events[-2:]] == [PowerFailed, RoundVoided]


def test_compound_actions_reject_excess_one_event_per_bet_cut() -> None:
    r = betting(rws())
    r.place_bet("ann", 1, "banker", D(1950))
    r.place_bet("cat", 3, "banker", D(100))
    r.place_bet("sam", 3, "banker", D(100), seated=False)
    r.place_bet("tom", 3, "banker", D(100), seated=False)
    r.place_bet("bob", 2, "player", D(100))
    before = len(r.events)
    # 150 over: the latest Standing Player's bet goes, then the other's -- all
    # of it, since the 50 left would be under the minimum of 100 (RWS 5.2)
    assert r.reject_excess() == ["b4", "b3"]
    assert len(r.events) == before + 2
    assert [b.stake for b in r.active_bets] == [1950, 100, 100]
    assert r.differential() == 1950


def test_a_refused_procedure_writes_nothing() -> None:
    r = dealt(closed(tb()), "QH 2C 2D KS")
    before = list(r.events)
    with pytest.raises(RoleError):  # the order is set by a Pit Manager, after the option
        irr.simultaneous_draw(
            r, parse_cards("3H 4D"), order_known=False, order=parse_cards("3H 4D")
        )
    assert r.events == before
    assert r.withdrawal_open is None


# -- the fold: replay ---------------------------------------------------------------------------------


def _scenarios() -> list[Round]:
    rounds = []
    r = dealt(closed(tb()), "QH 2C 2D")
    irr.simultaneous_draw(r, parse_cards("KS 3H"), order_known=True, withdrawing=["bob"])
    dealt(r, "4D")
    r.settle()
    rounds.append(r)
    r = dealt(closed(rws()), "3H 4C 2D KS 2S")
    irr.forgotten_insurance(r)
    r.place_insurance("ann", "player_insurance", D(200), moment=Moment.FOUR_CARDS)
    dealt(r, "5S")
    r.settle()
    rounds.append(r)
    r = dealt(closed(rws()), "3H 4C 2D KS 2S 5S")
    irr.forgotten_insurance(r, intended={"ann": Side.PLAYER})
    r.settle()
    rounds.append(r)
    r = dealt(closed(tb(electronic_device=True)), "QH 2C")
    irr.device_reset(r, withdrawing=["ann"])
    r.place_bet("cat", 3, "tie", D(50))
    r.close_betting()
    dealt(r, "4H 3C 3D 4S")
    r.settle()
    rounds.append(r)
    r = dealt(closed(rws()), "9H 2C")
    irr.excess_cards(r, parse_cards("KD"), withdrawing=["ann"])
    irr.unforeseen(r, "voided after review", void=True)
    rounds.append(r)
    r = settled(rws())
    irr.incorrect_number_of_cards(r, r.deal.cards, reconstructable=False)
    rounds.append(r)
    return rounds


def test_replay_gives_the_same_round_and_results() -> None:
    for r in _scenarios():
        again = Round.replay(r.game, r.events, **r.options)
        assert again.phase is r.phase
        assert again.results() == r.results()
        assert again.nets() == r.nets()
        through_json = [event_from_json(event_to_json(e)) for e in r.events]
        assert through_json == r.events
        assert Round.replay(r.game, through_json, **r.options).results() == r.results()
        assert r.fork().results() == r.results()


def test_replay_through_a_live_table_log() -> None:
    log = MemoryEventLog(TABLE_STREAM)
    game = get_game("tiger-buffalo")
    table = LiveTable("t", game, limits=RWS_LIMITS, layout="A", log=log, seed="replay")
    for _ in range(3):
        r = table.new_round()
        r.place_bet("ann", 1, "player", D(300))
        r.place_bet("bob", 2, "banker", D(300))
        r.close_betting()
        while r.phase is Phase.DEALING:
            table.draw()
        r.settle()
    again = LiveTable("t", game, limits=RWS_LIMITS, layout="A", log=log, seed="replay")
    assert [x.results() for x in again.rounds] == [x.results() for x in table.rounds]


# -- the property: random play, kills and restarts --------------------------------------------------

PLAYERS = ("ann", "bob", "cat")
WAGERS = ("player", "banker", "tie")
STAKES = (5, 10, 100, 250, 700, 1200)
GAMES = {
    "tiger-baccarat": (None, LIMITS),
    "tiger-buffalo": ("A", TableLimits(D(10), D(1000), differential=D(1000))),
    # No Commission has no rule on wagers per playing area (MBS 3.7 is not in its text)
    "tiger-no-commission": (None, TableLimits(D(10), D(1000), differential=D(1000))),
}

_advance = st.tuples(st.just("advance"))

_bet = st.tuples(
    st.just("bet"),
    st.sampled_from(PLAYERS),
    st.sampled_from(WAGERS),
    st.sampled_from(STAKES),
    st.booleans(),
)

op = st.one_of(
    _bet,
    _bet,
    _advance,
    _advance,
    _advance,
    _advance,
    _advance,
    _advance,
    st.tuples(
        st.just("bet"),
        st.sampled_from(PLAYERS),
        st.sampled_from(WAGERS),
        st.sampled_from(STAKES),
        st.booleans(),
    ),
    st.tuples(st.just("withdraw_bet"), st.integers(1, 6)),
    st.tuples(
        st.just("reduce"),
        st.integers(1, 6),
        st.sampled_from((0, 10)),
        st.sampled_from((Role.PLAYER, Role.DEALER, Role.PIT_MANAGER)),
    ),
    st.tuples(st.sampled_from(("close", "close_unnoticed", "reject", "settle", "new_round"))),
    st.tuples(st.just("draw")),
    st.tuples(st.just("draw")),
    st.tuples(st.just("draw")),
    st.tuples(
        st.just("insurance"),
        st.sampled_from(PLAYERS),
        st.sampled_from(("player_insurance", "banker_insurance")),
        st.sampled_from((10, 100, 500)),
    ),
    st.tuples(st.just("insure_offer"), st.sampled_from((10, 100, 1000))),
    st.tuples(st.just("insure_offer"), st.sampled_from((10, 100, 1000))),
    st.tuples(st.just("withdraw_player"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("close_withdrawal")),
    st.tuples(
        st.just("irregularity"),
        st.sampled_from(
            (
                "foreign_card",
                "extra_or_missing",
                "unshuffled",
                "power_failure",
                "device_reset",
                "cut_card_first",
                "dealing_error_options",
                "card_exposed_in_error",
                "forgotten_insurance",
                "squeeze_waiver",
                "order_altered",
                "unforeseen_stand",
                "unforeseen_void",
                "absent_player",
            )
        ),
        st.sampled_from(PLAYERS),
        st.sampled_from(
            (Role.SHIFT_MANAGER, Role.SHIFT_MANAGER, Role.PIT_MANAGER, Role.DEALER, Role.PLAYER)
        ),
    ),
    st.tuples(st.just("restart")),
)


class Harness:
    """A live table on a SQLite event log, killed and restarted at will."""

    def __init__(self, game_id: str, path: Path) -> None:
        self.game = get_game(game_id)
        self.layout, self.limits = GAMES[game_id]
        self.path = str(path)
        self.log = self._log()
        self.table = self._open()
        self.insured_at: tuple[str, int] | None = None

    def _log(self) -> SQLEventLog[Event]:
        return SQLEventLog(connect(f"sqlite:///{self.path}"), TABLE_STREAM)

    def _open(self) -> LiveTable:
        return LiveTable(
            "t", self.game, limits=self.limits, layout=self.layout, log=self.log, seed="prop"
        )

    def restart(self) -> None:
        old = self.table
        self.log.close()
        self.log = self._log()
        self.table = self._open()
        assert len(self.table.rounds) == len(old.rounds)
        for before, after in zip(old.rounds, self.table.rounds, strict=True):
            assert after.events[: len(before.events)] == before.events
            if before.phase in (Phase.SETTLED, Phase.VOID):
                assert after.results() == before.results()

    def written(self) -> int:
        return len(self.log.read("t"))

    def run(self, step: tuple[Any, ...]) -> None:
        table = self.table
        r = table.round
        kind = step[0]
        if kind == "restart":
            self.restart()
            return
        if kind == "new_round":
            table.new_round()
            return
        if kind == "advance":
            self.advance()
            return
        if r is None:
            raise PhaseError("no round yet")
        ids = [b.bet_id for b in r.bets]
        if kind == "bet":
            _, player, wager, stake, enforce = step
            position = PLAYERS.index(player) + 1
            r.place_bet(player, position, wager, D(stake), enforce_limits=enforce)
        elif kind == "withdraw_bet":
            r.withdraw_bet(ids[step[1] - 1] if step[1] <= len(ids) else "none")
        elif kind == "reduce":
            bet_id = ids[step[1] - 1] if step[1] <= len(ids) else "none"
            r.reduce_bet(bet_id, D(step[2]), step[3])
        elif kind == "close":
            r.close_betting()
        elif kind == "close_unnoticed":
            r.close_betting(differential_noticed=False)
        elif kind == "reject":
            r.reject_excess()
        elif kind == "settle":
            r.settle()
        elif kind == "draw":
            table.draw()
        elif kind == "insurance":
            r.place_insurance(step[1], step[2], D(step[3]))
        elif kind == "insure_offer":
            self.insure(r, D(step[1]))
        elif kind == "withdraw_player":
            r.withdraw_player(step[1])
        elif kind == "close_withdrawal":
            r.close_withdrawal()
        elif kind == "irregularity":
            self._irregularity(r, step[1], step[2], step[3])

    def advance(self) -> None:
        """The ordinary next step of the game, whatever it is now."""
        r = self.table.round
        if r is None or r.phase in (Phase.SETTLED, Phase.VOID):
            self.table.new_round()
        elif r.withdrawal_open is not None:
            r.close_withdrawal()
        elif r.phase is Phase.BETTING:
            r.close_betting()
        elif r.phase is Phase.DEALING:
            moment = (r.round_id, len(r.deal.cards))
            if r.insurance_offers() and self.insured_at != moment:
                self.insured_at = moment
                try:
                    self.insure(r, D(100))
                    return
                except InsuranceError:
                    pass
            self.table.draw()
        else:
            r.settle()

    def insure(self, r: Round, most: Decimal) -> None:
        """Take an open Insurance offer, as much as allowed up to ``most``."""
        for offer in r.insurance_offers():
            for player in r.players:
                cap = r.insurance_cap(player, offer)
                if cap > 0:
                    wager = f"{offer.insures.value}_insurance"
                    r.place_insurance(player, wager, min(cap, most))
                    return
        raise InsuranceError("no Insurance to take")

    def _irregularity(self, r: Round, name: str, player: str, role: Role) -> None:
        chosen: dict[str, Callable[[], object]] = {
            "foreign_card": lambda: irr.foreign_card(r, role=role),
            "extra_or_missing": lambda: irr.extra_or_missing_cards(r, role=role),
            "unshuffled": lambda: irr.unshuffled_cards(r, role=role),
            "power_failure": lambda: irr.power_failure(r, withdrawing=[player], role=role),
            "device_reset": lambda: irr.device_reset(r, withdrawing=[player], role=role),
            "cut_card_first": lambda: irr.cut_card_first(
                r, hlga=True, withdrawing=[player], role=role
            ),
            "dealing_error_options": lambda: irr.dealing_error_options(
                r, "test", withdrawing=[player], role=role
            ),
            "card_exposed_in_error": lambda: irr.card_exposed_in_error(
                r, withdrawing=[player], role=role
            ),
            "forgotten_insurance": lambda: irr.forgotten_insurance(
                r, intended={player: Side.PLAYER}, role=role
            ),
            "squeeze_waiver": lambda: irr.squeeze_waiver(r, "test", role=role),
            "order_altered": lambda: irr.order_altered(
                r, reconstructable=player == "ann", role=role
            ),
            "unforeseen_stand": lambda: irr.unforeseen(r, "test", void=False, role=role),
            "unforeseen_void": lambda: irr.unforeseen(r, "test", void=True, role=role),
            "absent_player": lambda: irr.absent_player(r, role=role),
        }
        chosen[name]()

    def finish(self) -> None:
        """Bring the round in play to an end, by the rules."""
        r = self.table.round
        if r is None:
            return
        if r.withdrawal_open is not None:
            r.close_withdrawal()
        if r.phase is Phase.BETTING:
            if not r.can_close_betting():
                r.close_betting(differential_noticed=False)
            else:
                r.close_betting()
        while r.phase is Phase.DEALING:
            if r.withdrawal_open is not None:
                r.close_withdrawal()
            try:
                self.table.draw()
            except PuntoError:
                irr.insufficient_cards(r, remaining=len(self.table.shoe or ()))
        if r.phase is Phase.RESULT:
            r.settle()


def _check_money(r: Round) -> None:
    results = r.results()
    assert sorted(s.bet.bet_id for s in results) == sorted(b.bet_id for b in r.bets)
    for s in results:
        assert s.outcome in {"win", "lose", "push", "returned", "withdrawn", "void"}
        if s.outcome in {"returned", "withdrawn", "void", "push"}:
            assert s.net == 0
        elif s.outcome == "lose":
            assert s.net == -s.settled_stake
            assert 0 < s.settled_stake <= s.bet.stake
        else:
            assert 0 < s.net <= s.settled_stake * 150  # the best odds on offer (Wu Dalang)
    assert r.house_net() == -sum(s.net for s in results)
    assert sum(r.nets().values()) + r.house_net() == 0


@pytest.mark.slow
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(game_id=st.sampled_from(sorted(GAMES)), steps=st.lists(op, min_size=25, max_size=60))
def test_random_play_with_kills_and_restarts_keeps_every_invariant(
    game_id: str, steps: list[tuple[Any, ...]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        harness = Harness(game_id, Path(folder) / "events.db")
        harness.table.new_round()
        for step in steps:
            before = harness.written()
            try:
                harness.run(step)
            except PuntoError:
                assert harness.written() == before, f"{step} was refused but wrote events"
        harness.finish()
        harness.restart()
        for r in harness.table.rounds:
            assert r.phase in (Phase.SETTLED, Phase.VOID)
            _check_money(r)
            again = Round.replay(r.game, r.events, **r.options)
            assert again.results() == r.results()
        harness.log.close()


# -- the table's configuration lives in its log ---------------------------------------


def test_live_table_logs_its_configuration_and_old_rounds_keep_their_limits() -> None:
    """A restart with other limits logs the change; rounds already played are
    restored under the limits they were played under (MBS 5.15 here)."""
    game = get_game("tiger-baccarat")
    log = MemoryEventLog(TABLE_STREAM)
    old = TableLimits(Decimal(10), Decimal(100))
    table = LiveTable("t", game, limits=old, log=log, seed="cfg")
    r = table.new_round()
    r.place_bet("ann", 1, "player", Decimal(500), enforce_limits=False)  # over the maximum
    r.close_betting()
    table.deal_to_completion()
    r.settle()
    (before,) = r.results()
    assert before.settled_stake == Decimal(100)

    new = TableLimits(Decimal(10), Decimal(1000))
    again = LiveTable("t", game, limits=new, log=log, seed="cfg")
    (restored,) = again.rounds[0].results()
    assert restored == before, "a settled round keeps the limits it was played under"
    configs = [s.event for s in log.read("t") if isinstance(s.event, TableConfigured)]
    assert len(configs) == 2
    assert TableLimits.from_json(json.loads(configs[-1].limits)) == new
    assert again.new_round().limits == new


def test_live_table_refuses_a_log_of_another_game() -> None:

    log = MemoryEventLog(TABLE_STREAM)
    limits = TableLimits(Decimal(10), Decimal(100))
    LiveTable("t", get_game("tiger-baccarat"), limits=limits, log=log)
    with pytest.raises(TableConfigError, match="written for tiger-baccarat"):
        LiveTable("t", get_game("dragon-tiger"), limits=limits, log=log)
