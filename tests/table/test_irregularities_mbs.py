"""Irregularities of the MBS games (sections 3.22, 5 and 6 of Tiger Baccarat,
Tiger No Commission, Baccarat Tournament and Dragon Tiger), each played
through the public API of a round with several players, checking every
player's exact net money.

Coups used (shoe order: Player, Banker, Player, Banker, then third cards),
each worked by hand from the Table of Play:

* ``BANKER_SIX``  QH 2C 2D KS 3H 4D -- Player Q+2=2 draws 3: 5; Banker 2+K=2
  draws (0-2 always) 4: 6.  Banker wins with 6 on three cards.
* ``PLAYER_NINE`` 9H 2C KD 3S -- Player 9+K=9, a Natural; Banker 5.  Player wins.
* ``TIE_SEVEN``   4H 3C 3D 4S -- Player 4+3=7, Banker 3+4=7: both stand.  Tie.

The standing bets: ann Banker 100 (position 1), bob Player 200 (position 2),
cat Tie 50 (position 3).  On PLAYER_NINE: ann -100, bob +200, cat -50.  On
TIE_SEVEN: ann 0, bob 0, cat +400 (8 to 1).  On BANKER_SIX in Tiger Baccarat
and Dragon Tiger: ann +95 (0.95 to 1), bob -200, cat -50.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from punto.errors import (
    ActionError,
    BettingClosedError,
    LimitError,
    PhaseError,
    RoleError,
)
from punto.eventlog import MemoryEventLog
from punto.rules.cards import Card, parse_cards
from punto.rules.coup import deal
from punto.rules.games import get_game
from punto.rules.shoe import Shoe
from punto.table import handling
from punto.table import irregularities as irr
from punto.table.events import (
    TABLE_STREAM,
    CardDealt,
    IrregularityNoted,
    PlayerWithdrew,
    RoundVoided,
    WithdrawalClosed,
    WithdrawalOffered,
)
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.record import RecordError
from punto.table.roles import Role
from punto.table.round import Phase, Round

LIMITS = TableLimits(Decimal(10), Decimal(1000), differential=Decimal(1000))
BANKER_SIX = "QH 2C 2D KS 3H 4D"
PLAYER_NINE = "9H 2C KD 3S"
TIE_SEVEN = "4H 3C 3D 4S"

ZERO = {"ann": Decimal(0), "bob": Decimal(0), "cat": Decimal(0)}
ON_PLAYER_NINE = {"ann": Decimal(-100), "bob": Decimal(200), "cat": Decimal(-50)}
ON_TIE_SEVEN = {"ann": Decimal(0), "bob": Decimal(0), "cat": Decimal(400)}
ON_BANKER_SIX = {"ann": Decimal(95), "bob": Decimal(-200), "cat": Decimal(-50)}


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def opened(game_id: str, **options: object) -> Round:
    r = Round(get_game(game_id), limits=LIMITS, **options)  # type: ignore[arg-type]
    r.open()
    return r


def with_bets(game_id: str, *, method_c: bool = False, **options: object) -> Round:
    """A round with the standing bets, betting closed (``method_c``: the round
    conducted by Method C, allowed at an HLGA table by an Assistant Casino
    Manager)."""
    r = opened(game_id, **options)
    if method_c:
        handling.choose_method(r, handling.Method.C, Role.ASSISTANT_CASINO_MANAGER, hlga=True)
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("cat", 3, "tie", Decimal(50))
    r.close_betting()
    return r


def deal_cards(r: Round, text: str) -> None:
    for card in cards(text):
        r.deal_card(card)


def finish(r: Round, text: str = "") -> dict[str, Decimal]:
    """Deal the rest of the coup, settle, and return each player's net."""
    done = len(r.deal.cards)
    for card in cards(text)[done:]:
        r.deal_card(card)
    r.settle()
    return r.nets()


def outcomes(r: Round) -> dict[str, str]:
    return {s.bet.player + ":" + s.bet.wager: s.outcome for s in r.results()}


def assert_void(r: Round, clause: str) -> None:
    assert r.phase is Phase.VOID
    assert r.void is not None
    assert r.void.clause == clause
    assert r.nets() == ZERO
    assert set(outcomes(r).values()) == {"void"}
    assert r.house_net() == 0


# -- 5.1, 5.2, 5.3 (Tiger Baccarat, Dragon Tiger): void rounds ------------------------------


@pytest.mark.clause("tiger-baccarat", "5.1", "5.1.1", "5.1.2")
@pytest.mark.clause("dragon-tiger", "5.1", "5.1.1", "5.1.2")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_1_foreign_card_voids_round_and_previous_rounds_stand(game_id: str) -> None:
    # a physical shoe, its cards keyed in: its record cannot tell a foreign card
    table = LiveTable(
        "t", get_game(game_id), limits=LIMITS, log=MemoryEventLog(TABLE_STREAM), physical_shoe=True
    )
    first = table.new_round()
    first.place_bet("ann", 1, "banker", Decimal(100))
    first.place_bet("bob", 2, "player", Decimal(200))
    first.close_betting()
    for card in cards("7D JC 2C 5H"):
        first.deal_card(card, "keyed")
    first.settle()
    # Player 7+2=9, a Natural, over Banker 5
    assert first.nets() == {"ann": -100, "bob": 200}
    before = first.results()
    second = table.new_round()
    second.place_bet("ann", 1, "banker", Decimal(100))
    second.place_bet("cat", 3, "tie", Decimal(50))
    second.close_betting()
    for card in cards("3S 9D"):
        second.deal_card(card, "keyed")
    ruling = irr.foreign_card(second, Card.parse("QH"))
    assert ruling.clause == "5.1"
    assert second.nets() == {"ann": 0, "cat": 0}
    assert [s.outcome for s in second.results()] == ["void", "void"]
    # 5.1.2: the previous round stands, and a void cannot reach back to it
    assert first.results() == before
    assert first.phase is Phase.SETTLED
    with pytest.raises(PhaseError) as refused:
        irr.foreign_card(first)
    assert refused.value.clause == "5.1.2"


@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_1_no_foreign_card_in_a_shoe_the_table_shuffled(game_id: str) -> None:
    table = LiveTable(
        "t", get_game(game_id), limits=LIMITS, log=MemoryEventLog(TABLE_STREAM), seed="5.1"
    )
    r = table.new_round()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.close_betting()
    table.draw()
    table.draw()
    before = list(r.events)
    claims: tuple[Callable[[], object], ...] = (
        lambda: irr.foreign_card(r, Card.parse("QH")),
        lambda: irr.extra_or_missing_cards(r),
        lambda: irr.unshuffled_cards(r, role=Role.SHIFT_MANAGER),
    )
    for claim in claims:
        with pytest.raises(
            RecordError, match="round r1 was dealt by the table from shoe s1, cards 1-2"
        ):
            claim()
    assert r.events == before
    assert r.phase is Phase.DEALING


@pytest.mark.parametrize(
    ("game_id", "clause"), [("tiger-baccarat", "5.8.2.1"), ("tiger-no-commission", "5.3")]
)
def test_tiger_no_commission_5_3_cards_drawn_together_from_a_sealed_shoe_came_in_its_order(
    game_id: str, clause: str
) -> None:
    """Where the table's own shoe deals every card (sealed: the server's
    ``virtual`` source), cards drawn together in the initial deal came out
    in the shoe's order, which the record holds: the void for an order not
    ascertainable is refused whoever claims it.  At a table not sealed the
    same claim voids the round (a second person confirms it at the server)."""
    for sealed in (True, False):
        table = LiveTable(
            "t",
            get_game(game_id),
            limits=LIMITS,
            log=MemoryEventLog(TABLE_STREAM),
            seed="5.3",
            physical_shoe=False if sealed else None,
        )
        r = table.new_round()
        r.place_bet("ann", 1, "banker", Decimal(100))
        r.close_betting()
        table.draw()
        assert table.shoe is not None
        two = table.shoe.order[1:3]
        before = list(r.events)
        if not sealed:
            irr.simultaneous_draw(r, two, order_known=False, role=Role.PIT_MANAGER)
            assert r.void is not None
            assert (r.phase, r.void.clause, r.nets()) == (Phase.VOID, clause, {"ann": Decimal(0)})
            continue
        for role in (Role.DEALER, Role.PIT_MANAGER, Role.SHIFT_MANAGER):
            with pytest.raises(RecordError) as refused:
                irr.simultaneous_draw(r, two, order_known=False, role=role)
            assert refused.value.clause == clause
            assert refused.value.message.startswith(
                "round r1 was dealt by the table from shoe s1, cards 1-1"
            )
            assert "the record holds that order" in refused.value.message
        assert r.events == before
        assert r.phase is Phase.DEALING


def test_tiger_baccarat_5_1_foreign_card_voids_round() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "QH 2C 2D")
    assert irr.foreign_card(r).consequence == "void"
    assert_void(r, "5.1")
    assert isinstance(r.events[-1], RoundVoided)
    assert r.events[-1].role is Role.DEALER


def test_tiger_baccarat_5_1_extra_or_missing_cards_voids_round() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "QH 2C 2D KS")
    irr.extra_or_missing_cards(r)
    assert_void(r, "5.1")


def test_tiger_baccarat_5_1_unshuffled_cards_voids_round() -> None:
    r = with_bets("tiger-baccarat")
    irr.unshuffled_cards(r)
    assert_void(r, "5.1")


def test_tiger_baccarat_5_1_a_player_may_not_void_a_round() -> None:
    r = with_bets("tiger-baccarat")
    with pytest.raises(RoleError):
        irr.foreign_card(r, role=Role.PLAYER)
    assert r.phase is Phase.DEALING


def test_tiger_baccarat_5_2_order_altered_not_reconstructable_voids_round() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C")
    irr.order_altered(r, reconstructable=False)
    assert_void(r, "5.2")


def test_tiger_baccarat_5_2_order_altered_and_reconstructed_play_continues() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C")
    assert irr.order_altered(r, reconstructable=True).consequence == "continue"
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


def test_tiger_baccarat_5_3_insufficient_cards_voids_round() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "QH 2C 2D KS")  # Player 2 must draw
    with pytest.raises(ActionError) as refused:
        irr.insufficient_cards(r, remaining=1)
    assert refused.value.clause == "5.3"
    irr.insufficient_cards(r, remaining=0)
    assert_void(r, "5.3")


def test_dragon_tiger_5_1_unshuffled_cards_void_round() -> None:
    r = with_bets("dragon-tiger")
    deal_cards(r, "QH")
    irr.unshuffled_cards(r)
    assert_void(r, "5.1")


def test_dragon_tiger_5_2_order_altered_voids_round() -> None:
    r = with_bets("dragon-tiger")
    irr.order_altered(r, reconstructable=False)
    assert_void(r, "5.2")


def test_dragon_tiger_5_3_insufficient_cards_voids_round() -> None:
    r = with_bets("dragon-tiger")
    deal_cards(r, "9H 2C KD")
    irr.insufficient_cards(r, remaining=0)
    assert_void(r, "5.3")


# -- 5.4, 5.5: no late bets or withdrawals ----------------------------------------------------


@pytest.mark.parametrize(
    ("game_id", "late_bet", "late_withdrawal"),
    [
        ("tiger-baccarat", "5.4", "5.5"),
        ("dragon-tiger", "5.4", "5.5"),
        ("tiger-no-commission", "5.6", "5.7"),
        ("baccarat-tournament", "5.6", "5.7"),
    ],
)
@pytest.mark.clause("tiger-baccarat", "3.2", "5.4", "5.5")
@pytest.mark.clause("dragon-tiger", "3.2", "5.4", "5.5")
@pytest.mark.clause("tiger-no-commission", "3.2", "5.6", "5.7")
@pytest.mark.clause("baccarat-tournament", "3.2", "5.6", "5.7")
def test_mbs_late_bet_refused_and_late_withdrawal_wins_or_loses(
    game_id: str, late_bet: str, late_withdrawal: str
) -> None:
    r = with_bets(game_id)
    with pytest.raises(BettingClosedError) as bet:
        r.place_bet("dan", 4, "player", Decimal(100))
    assert bet.value.clause == late_bet
    with pytest.raises(BettingClosedError) as withdrawal:
        r.withdraw_bet("b2")
    assert withdrawal.value.clause == late_withdrawal
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


# -- 5.6, 5.7, 5.7.1, 5.10, 5.12: play on -----------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "5.6")
@pytest.mark.clause("dragon-tiger", "5.6")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_6_card_face_up_in_device_played_as_if_face_down(game_id: str) -> None:
    r = with_bets(game_id)
    with pytest.raises(irr.NotCoveredError):
        irr.card_face_up_in_device(r)  # before the first card: not 5.6
    deal_cards(r, "9H")
    ruling = irr.card_face_up_in_device(r)
    assert ruling.clause == "5.6"
    assert ruling.consequence == "continue"
    assert isinstance(r.events[-1], IrregularityNoted)
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


def test_tiger_baccarat_5_7_cards_in_wrong_order_reconstructed_and_play_continues() -> None:
    r = with_bets("tiger-baccarat")
    # The Banker's and the Player's first cards went to each other's area:
    # keyed in as they lay, the round holds 2C 9H.
    deal_cards(r, "2C 9H KD")
    irr.cards_in_wrong_order(r, cards("9H 2C KD"))
    assert r.deal.player.cards == cards("9H KD")
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


def test_tiger_baccarat_5_7_cards_to_wrong_player_retrieved_and_play_continues() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C KD 3S")
    assert irr.cards_to_wrong_player(r).consequence == "continue"
    assert finish(r) == ON_PLAYER_NINE


def test_tiger_baccarat_5_7_wrong_order_not_reconstructable_voids_round_by_5_2() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C")
    irr.cards_in_wrong_order(r, None)
    assert_void(r, "5.2")


@pytest.mark.clause("tiger-baccarat", "5.7.1")
@pytest.mark.clause("dragon-tiger", "5.7.1")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_7_1_card_exposed_in_error_outcome_stands(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "QH 2C 2D")
    ruling = irr.card_exposed_in_error(r)
    assert (ruling.clause, ruling.consequence) == ("5.7.1", "continue")
    assert r.withdrawal_open is None
    assert finish(r, BANKER_SIX) == ON_BANKER_SIX


@pytest.mark.clause("tiger-baccarat", "5.10")
@pytest.mark.clause("dragon-tiger", "5.10")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_10_absent_player_dealer_exposes_and_play_continues(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "4H 3C 3D 4S")
    assert irr.absent_player(r).clause == "5.10"
    assert finish(r) == ON_TIE_SEVEN


def test_tiger_baccarat_5_12_1_method_c_card_exposed_moving_device_played() -> None:
    r = with_bets("tiger-baccarat", method_c=True)
    deal_cards(r, "4H")
    assert irr.card_exposed_in_error(r, method_c_device=True).clause == "5.12.1"
    assert finish(r, TIE_SEVEN) == ON_TIE_SEVEN


def test_tiger_baccarat_5_12_2_method_c_order_altered_voids_round() -> None:
    r = with_bets("tiger-baccarat", method_c=True)
    deal_cards(r, "4H 3C")
    irr.order_altered(r, reconstructable=False, method_c=True)
    assert_void(r, "5.12.2")


# -- 5.8: simultaneous draw (Tiger Baccarat, Dragon Tiger) ------------------------------------


@pytest.mark.clause("tiger-baccarat", "5.8", "5.8.1")
@pytest.mark.clause("dragon-tiger", "5.8", "5.8.1")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_8_1_simultaneous_draw_order_known_withdraw_then_reconstruct(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "QH 2C 2D")
    ruling = irr.simultaneous_draw(r, cards("KS 3H"), order_known=True, withdrawing=["bob"])
    assert (ruling.clause, ruling.withdrawn) == ("5.8.1", ("bob",))
    kinds = [type(e) for e in r.events[-5:]]
    assert kinds == [WithdrawalOffered, PlayerWithdrew, WithdrawalClosed, CardDealt, CardDealt]
    assert r.deal.cards == cards("QH 2C 2D KS 3H")
    assert finish(r, BANKER_SIX) == {"ann": 95, "bob": 0, "cat": -50}
    assert outcomes(r)["bob:player"] == "returned"


@pytest.mark.clause("dragon-tiger", "1.1.6")
@pytest.mark.clause("tiger-baccarat", "5.8.2.1")
@pytest.mark.clause("dragon-tiger", "5.8.2.1")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_8_2_1_simultaneous_draw_in_initial_deal_voids_round(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "QH 2C")
    irr.simultaneous_draw(r, cards("2D KS"), order_known=False)
    assert_void(r, "5.8.2.1")


@pytest.mark.clause("tiger-baccarat", "1.1.5")
def test_tiger_baccarat_5_8_2_1_simultaneous_draw_in_initial_deal_voids_round() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C KD")  # the 4th and a 5th card together: the 4th is initial
    irr.simultaneous_draw(r, cards("3S 5H"), order_known=False)
    assert_void(r, "5.8.2.1")


@pytest.mark.clause("tiger-baccarat", "5.8.2.2")
@pytest.mark.clause("dragon-tiger", "5.8.2.2")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_8_2_2_simultaneous_draw_after_initial_deal_pit_manager_sets_order(
    game_id: str,
) -> None:
    r = with_bets(game_id)
    deal_cards(r, "QH 2C 2D KS")
    with pytest.raises(RoleError) as dealer:
        irr.simultaneous_draw(r, cards("4D 3H"), order_known=False, order=cards("3H 4D"))
    assert dealer.value.clause == "5.8.2.2"
    with pytest.raises(ActionError):
        irr.simultaneous_draw(r, cards("4D 3H"), order_known=False, role=Role.PIT_MANAGER)
    assert len(r.deal.cards) == 4
    assert r.withdrawal_open is None
    ruling = irr.simultaneous_draw(
        r,
        cards("4D 3H"),
        order_known=False,
        order=cards("3H 4D"),
        withdrawing=["cat"],
        role=Role.PIT_MANAGER,
    )
    assert (ruling.clause, ruling.withdrawn) == ("5.8.2.2", ("cat",))
    assert r.deal.cards == cards(BANKER_SIX)
    assert finish(r) == {"ann": 95, "bob": -200, "cat": 0}


def test_tiger_baccarat_5_8_simultaneous_cards_the_coup_does_not_need_go_to_next_round() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C KD")
    ruling = irr.simultaneous_draw(r, cards("3S 5H"), order_known=True)
    assert ruling.next_round == cards("5H")
    assert finish(r) == ON_PLAYER_NINE


# -- 5.9: dealing device reset ----------------------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "5.9")
@pytest.mark.clause("dragon-tiger", "5.9")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_9_device_reset_withdraw_then_bet_again_before_no_more_bets(game_id: str) -> None:
    r = with_bets(game_id, electronic_device=True)
    deal_cards(r, "QH 2C")
    ruling = irr.device_reset(r, withdrawing=["bob"])
    assert (ruling.clause, ruling.consequence) == ("5.9", "reopened")
    assert r.phase is Phase.BETTING
    assert r.deal.cards == ()
    r.place_bet("bob", 2, "tie", Decimal(20))  # bob wagers again
    r.place_bet("dan", 4, "player", Decimal(100))
    r.close_betting()  # 'No more bets' re-announced
    assert finish(r, PLAYER_NINE) == {"ann": -100, "bob": -20, "cat": -50, "dan": 100}
    assert outcomes(r)["bob:player"] == "returned"


def test_tiger_baccarat_5_9_device_reset_only_after_no_more_bets() -> None:
    r = opened("tiger-baccarat", electronic_device=True)
    r.place_bet("ann", 1, "banker", Decimal(100))
    with pytest.raises(PhaseError) as refused:
        irr.device_reset(r)
    assert refused.value.clause == "5.9"
    assert r.withdrawal_open is None


# -- 5.11: a player leaves with cards -------------------------------------------------------------


def _left_with_cards_shoe() -> tuple[Shoe, list[Card], int]:
    """A seeded 8-deck shoe after two coups: 6S QH 7D 9D and JC JS 2H 7S QC.
    The third coup is 5S 7H 7C 5C 9H 4S: Player 5+7=2 draws 9: 1; Banker
    7+5=2 draws (0-2 always) 4: 6.  Banker wins with 6 on three cards."""
    shoe = Shoe.shuffled(8, seed="5.11-12")
    discards: list[Card] = []
    for _ in range(2):
        discards.extend(deal(shoe).cards)
    return shoe, discards, shoe.position


def _left_with_cards_bets() -> Round:
    r = opened("tiger-baccarat")
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("cat", 3, "tiger", Decimal(10))
    r.place_bet("dan", 4, "big_tiger", Decimal(10))
    r.close_betting()
    return r


# Banker 6 on three cards: Banker 0.95 to 1, Tiger 20 to 1, Big Tiger 50 to 1.
ON_THIRD_COUP = {"ann": Decimal(95), "bob": Decimal(-200), "cat": Decimal(200), "dan": Decimal(500)}


@pytest.mark.clause("tiger-baccarat", "5.11.1", "5.11.2", "5.11.2.1", "5.11.3", "5.11.4")
def test_tiger_baccarat_5_11_player_left_with_cards_missing_cards_replaced() -> None:
    shoe, discards, start = _left_with_cards_shoe()
    assert deal(iter(shoe.order[start:])).cards == cards("5S 7H 7C 5C 9H 4S")
    r = _left_with_cards_bets()
    initial = [shoe.draw() for _ in range(4)]
    # bob squeezed the Player hand (first and third cards) and left with it
    on_table: list[Card | None] = [None, initial[1], None, initial[3]]
    set_aside = [shoe.draw(), shoe.draw()]  # 5.11.1, in the presence of the Shift Manager
    remaining = list(shoe)  # 5.11.2: the rest of the device, sorted with the discards
    with pytest.raises(RoleError) as pit:
        irr.left_with_cards(
            r,
            shoe=Shoe.shuffled(8, seed="5.11-12").order,
            discards=discards,
            on_table=on_table,
            set_aside=set_aside,
            remaining=remaining,
            role=Role.PIT_MANAGER,
        )
    assert pit.value.clause == "5.11.1"
    ruling = irr.left_with_cards(
        r,
        shoe=Shoe.shuffled(8, seed="5.11-12").order,
        discards=discards,
        on_table=on_table,
        set_aside=set_aside,
        remaining=remaining,
    )
    assert ruling.missing == cards("5S 7C")
    assert ruling.unused == ()  # both set-aside cards were needed (9H, 4S)
    assert r.deal.cards == cards("5S 7H 7C 5C 9H 4S")
    sources = [e.source for e in r.events if isinstance(e, CardDealt)]
    assert sources == ["replacement", "table", "replacement", "table", "set_aside", "set_aside"]
    assert finish(r) == ON_THIRD_COUP


def test_tiger_baccarat_5_11_player_left_with_third_card_set_aside_completes_round() -> None:
    shoe, discards, _ = _left_with_cards_shoe()
    r = _left_with_cards_bets()
    for _ in range(4):
        r.deal_card(shoe.draw())
    shoe.draw()  # the Player's third card, 9H, left with bob
    on_table: list[Card | None] = [*r.deal.cards, None]
    set_aside = [shoe.draw(), shoe.draw()]
    ruling = irr.left_with_cards(
        r,
        shoe=Shoe.shuffled(8, seed="5.11-12").order,
        discards=discards,
        on_table=on_table,
        set_aside=set_aside,
        remaining=list(shoe),
        role=Role.SHIFT_MANAGER,
    )
    assert ruling.missing == cards("9H")
    assert ruling.unused == tuple(set_aside[1:])  # the Banker needed one set-aside card
    assert finish(r) == ON_THIRD_COUP


def test_tiger_baccarat_5_11_missing_cards_of_different_places_need_the_order() -> None:
    shoe, discards, _ = _left_with_cards_shoe()
    r = _left_with_cards_bets()
    drawn = [shoe.draw() for _ in range(5)]
    on_table: list[Card | None] = [None, drawn[1], None, drawn[3], None]
    set_aside = [shoe.draw(), shoe.draw()]
    options = {
        "shoe": Shoe.shuffled(8, seed="5.11-12").order,
        "discards": discards,
        "on_table": on_table,
        "set_aside": set_aside,
        "remaining": list(shoe),
    }
    with pytest.raises(ActionError) as unordered:
        irr.left_with_cards(r, **options)  # type: ignore[arg-type]
    assert unordered.value.clause == "5.11.2.1"
    assert r.deal.cards == ()
    irr.left_with_cards(r, **options, order=cards("5S 7C 9H"))  # type: ignore[arg-type]
    assert finish(r) == ON_THIRD_COUP


def test_tiger_baccarat_5_11_counts_that_do_not_add_up_are_refused() -> None:
    shoe, discards, _ = _left_with_cards_shoe()
    r = _left_with_cards_bets()
    drawn = [shoe.draw() for _ in range(4)]
    set_aside = [shoe.draw(), shoe.draw()]
    with pytest.raises(ActionError) as refused:
        irr.left_with_cards(
            r,
            shoe=Shoe.shuffled(8, seed="5.11-12").order,
            discards=discards[1:],  # a discard went astray: two cards missing, one gap
            on_table=[None, drawn[1], drawn[2], drawn[3]],
            set_aside=set_aside,
            remaining=list(shoe),
        )
    assert refused.value.clause == "5.11.2.1"
    assert r.events[-1].type == "bets_closed"


# -- 5.14, 5.15, 5.16: limits --------------------------------------------------------------------


def test_tiger_baccarat_5_14_under_minimum_settled_once_then_returned() -> None:
    first = opened("tiger-baccarat")
    first.place_bet("ann", 1, "banker", Decimal(5), enforce_limits=False)
    first.place_bet("bob", 2, "player", Decimal(200))
    first.close_betting()
    assert finish(first, PLAYER_NINE) == {"ann": Decimal(-5), "bob": Decimal(200)}
    assert first.results()[0].clause == "5.14"
    # 5.16: that wager stays settled; the player's later under-minimum wagers are returned
    second = opened("tiger-baccarat", under_minimum_settled=first.newly_under_minimum())
    second.place_bet("ann", 1, "banker", Decimal(5), enforce_limits=False)
    second.place_bet("ann", 1, "player", Decimal(50))
    second.place_bet("bob", 2, "player", Decimal(8), enforce_limits=False)
    second.close_betting()
    assert finish(second, PLAYER_NINE) == {"ann": Decimal(50), "bob": Decimal(8)}
    assert outcomes(second) == {"ann:banker": "returned", "ann:player": "win", "bob:player": "win"}


def test_tiger_baccarat_5_14_and_5_16_on_a_live_table() -> None:
    table = LiveTable(
        "t",
        get_game("tiger-baccarat"),
        limits=LIMITS,
        log=MemoryEventLog(TABLE_STREAM),
        seed="5.14",
    )
    nets = []
    for _ in range(2):
        r = table.new_round()
        r.place_bet("ann", 1, "tie", Decimal(5), enforce_limits=False)
        r.close_betting()
        table.deal_to_completion()
        r.settle()
        nets.append(r.nets()["ann"])
    # 5H JS 8H 7C 9S: Player 5+8=3 draws 9: 2; Banker J+7=7 stands.  The Tie
    # wager under the minimum is collected one time only ...
    assert table.rounds[0].deal.cards == cards("5H JS 8H 7C 9S")
    assert nets[0] == Decimal(-5)
    # ... and returned in the next round (3H 6D 4S QD: Player 7 over Banker 6)
    assert nets[1] == 0
    assert table.rounds[1].results()[0].outcome == "returned"


@pytest.mark.clause("tiger-baccarat", "5.15")
@pytest.mark.clause("dragon-tiger", "5.15")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_15_over_maximum_paid_and_collected_to_maximum(game_id: str) -> None:
    r = opened(game_id)
    r.place_bet("ann", 1, "banker", Decimal(1500), enforce_limits=False)
    r.place_bet("bob", 2, "player", Decimal(1200), enforce_limits=False)
    r.close_betting()
    assert finish(r, BANKER_SIX) == {"ann": Decimal(950), "bob": Decimal(-1000)}
    assert {s.clause for s in r.results()} == {"5.15"}


@pytest.mark.clause("tiger-baccarat", "3.5.1")
def test_tiger_baccarat_5_14_limits_refused_when_noticed() -> None:
    r = opened("tiger-baccarat")
    with pytest.raises(LimitError) as under:
        r.place_bet("ann", 1, "banker", Decimal(5))
    assert under.value.clause == "3.5.1"


# -- 5.17: power failure ------------------------------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "5.17", "5.17.1")
@pytest.mark.clause("dragon-tiger", "5.17", "5.17.1")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_17_1_power_failure_no_outcome_each_player_may_withdraw_all(game_id: str) -> None:
    r = opened(game_id)
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("bob", 2, "tie", Decimal(20))
    r.place_bet("cat", 3, "tie", Decimal(50))
    r.close_betting()
    deal_cards(r, "4H 3C")
    assert not r.outcome_established()
    ruling = irr.power_failure(r, withdrawing=["bob"])
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == (
        "5.17.1",
        "withdrawal",
        ("bob",),
    )
    assert finish(r, TIE_SEVEN) == {"ann": 0, "bob": 0, "cat": 400}
    assert outcomes(r) == {
        "ann:banker": "push",
        "bob:player": "returned",
        "bob:tie": "returned",  # all his wagers
        "cat:tie": "win",
    }


def test_tiger_baccarat_5_17_2_power_failure_outcome_established_play_continues() -> None:
    r = opened("tiger-baccarat")
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("dan", 4, "tiger_pair", Decimal(10))
    r.close_betting()
    deal_cards(r, "QH 2C 2D KS")  # no pair in either hand: Tiger Pair has lost
    assert r.outcome_established()
    with pytest.raises(ActionError, match="bob cannot withdraw"):
        irr.power_failure(r, withdrawing=["bob"])
    ruling = irr.power_failure(r)
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.17.2", "continue", ())
    assert r.withdrawal_open is None
    assert finish(r, BANKER_SIX) == {"ann": 95, "bob": -200, "dan": -10}


def test_tiger_baccarat_5_17_1_power_failure_before_any_card() -> None:
    r = with_bets("tiger-baccarat")
    irr.power_failure(r, withdrawing=["ann", "cat"])
    assert finish(r, PLAYER_NINE) == {"ann": 0, "bob": 200, "cat": 0}


def test_tiger_baccarat_5_17_power_failure_recovered_from_the_log() -> None:
    log = MemoryEventLog(TABLE_STREAM)
    game = get_game("tiger-baccarat")
    table = LiveTable("t", game, limits=LIMITS, log=log, seed="5.17")
    r = table.new_round()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.close_betting()
    table.draw()
    # the process stops here; the table starts again on the same log
    again = LiveTable("t", game, limits=LIMITS, log=log, seed="5.17")
    assert again.recovered == "withdrawal"
    back = again.round
    assert back is not None
    assert back.withdrawal_open is not None
    assert back.withdrawal_open.clause == "5.17.1"
    back.withdraw_player("ann")
    back.close_withdrawal()
    again.deal_to_completion()
    back.settle()
    # 2D JH TD 2S 4C 7C: Player 2+T=2 draws 4: 6; Banker J+2=2 draws 7: 9.
    assert back.deal.cards == cards("2D JH TD 2S 4C 7C")
    assert back.nets() == {"ann": 0, "bob": -200}


# -- 5.18: the table differential -------------------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "1.1.10")
@pytest.mark.clause("dragon-tiger", "1.1.12")
@pytest.mark.clause("tiger-baccarat", "5.18", "5.18.1", "5.18.2")
@pytest.mark.clause("dragon-tiger", "5.18", "5.18.1", "5.18.2")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_18_1_and_5_18_2_differential_decrease_and_increase(game_id: str) -> None:
    r = opened(game_id)
    big = r.place_bet("ann", 1, "banker", Decimal(1000))
    r.place_bet("cat", 3, "banker", Decimal(500))
    r.place_bet("bob", 2, "player", Decimal(200))
    with pytest.raises(LimitError) as exceeded:
        r.close_betting()
    assert exceeded.value.clause == "5.18"
    r.reduce_bet(big, Decimal(800))  # 5.18.1: the heavier side decreases
    r.place_bet("bob", 2, "player", Decimal(100))  # 5.18.2: the lighter side increases
    r.close_betting()  # 1300 against 300
    assert finish(r, BANKER_SIX) == {"ann": 760, "cat": 475, "bob": -300}


@pytest.mark.clause("tiger-baccarat", "5.18.3")
@pytest.mark.clause("dragon-tiger", "5.18.3")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_18_3_pit_manager_removes_wagers(game_id: str) -> None:
    r = opened(game_id)
    r.place_bet("ann", 1, "banker", Decimal(900))
    cat = r.place_bet("cat", 3, "banker", Decimal(600))
    r.place_bet("bob", 2, "player", Decimal(200))
    with pytest.raises(RoleError) as dealer:
        r.reduce_bet(cat, Decimal(0), role=Role.DEALER)
    assert dealer.value.clause == "5.18.3"
    r.reduce_bet(cat, Decimal(0), role=Role.PIT_MANAGER)
    r.close_betting()
    assert finish(r, PLAYER_NINE) == {"ann": -900, "cat": 0, "bob": 200}
    assert [(s.outcome, s.clause) for s in r.results()][1] == ("withdrawn", "5.18.3")


# -- 3.22 / 3.17: the cutting card -------------------------------------------------------------


@pytest.mark.clause("tiger-baccarat", "3.22")
@pytest.mark.clause("dragon-tiger", "3.17")
@pytest.mark.parametrize(
    ("game_id", "clause"), [("tiger-baccarat", "3.22"), ("dragon-tiger", "3.17")]
)
def test_mbs_cut_card_round_completed_then_shoe_ends(game_id: str, clause: str) -> None:
    table = LiveTable(
        "t",
        get_game(game_id),
        limits=LIMITS,
        log=MemoryEventLog(TABLE_STREAM),
        seed="cut",
        cut_card_from_end=414,  # two cards in front of the cutting card
    )
    r = table.new_round()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.close_betting()
    table.draw()
    table.draw()
    assert table.shoe is not None
    assert not table.shoe.cut_card_reached  # it is next: drawing the card behind it brings it out
    table.draw()
    assert table.shoe.cut_card_reached
    assert irr.cut_card(r).clause == clause
    table.deal_to_completion()  # the round is completed
    assert r.phase is Phase.RESULT
    r.settle()
    # 3H TD AS 6D AH: Player 3+1=4 draws A: 5; Banker T+6=6 stands on an Ace.
    assert r.deal.cards == cards("3H TD AS 6D AH")
    assert r.nets() == {"ann": Decimal(95)}
    assert table.shoe_finished
    table.new_round()
    assert table.shoes == 2


@pytest.mark.clause("tiger-baccarat", "1.1.4")
@pytest.mark.clause("dragon-tiger", "1.1.5")
@pytest.mark.clause("tiger-baccarat", "3.22.1")
@pytest.mark.clause("dragon-tiger", "3.17.1")
@pytest.mark.parametrize(
    ("game_id", "clause"), [("tiger-baccarat", "3.22.1"), ("dragon-tiger", "3.17.1")]
)
def test_mbs_hlga_cut_card_as_first_card_dealer_allows_withdrawals(
    game_id: str, clause: str
) -> None:
    r = with_bets(game_id)
    with pytest.raises(ActionError) as not_hlga:
        irr.cut_card_first(r, hlga=False)
    assert not_hlga.value.clause == clause
    ruling = irr.cut_card_first(r, hlga=True, withdrawing=["bob"])
    assert (ruling.clause, ruling.withdrawn) == (clause, ("bob",))
    assert finish(r, PLAYER_NINE) == {"ann": -100, "bob": 0, "cat": -50}


def test_tiger_baccarat_3_22_1_cut_card_first_only_before_any_card() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H")
    with pytest.raises(PhaseError):
        irr.cut_card_first(r, hlga=True)


# -- 6.1, 6.2: unforeseen irregularities, higher positions -----------------------------------


@pytest.mark.clause("tiger-baccarat", "6.1")
@pytest.mark.clause("dragon-tiger", "6.1")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_6_1_unforeseen_irregularity_shift_manager_voids(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "9H 2C")
    with pytest.raises(RoleError) as pit:
        irr.unforeseen(r, "shoe dropped on the floor", void=True, role=Role.PIT_MANAGER)
    assert pit.value.clause == "6.1"
    irr.unforeseen(r, "shoe dropped on the floor", void=True)
    assert_void(r, "6.1")
    assert r.void is not None
    assert r.void.role is Role.SHIFT_MANAGER


def test_tiger_baccarat_6_1_unforeseen_irregularity_shift_manager_lets_it_stand() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "9H 2C")
    ruling = irr.unforeseen(r, "display showed the wrong total", void=False)
    assert (ruling.clause, ruling.consequence) == ("6.1", "stand")
    note = r.irregularities[-1]
    assert (note.reason, note.role) == ("display showed the wrong total", Role.SHIFT_MANAGER)
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


def test_tiger_baccarat_6_2_a_higher_position_acts_for_a_lower() -> None:
    r = with_bets("tiger-baccarat")
    irr.foreign_card(r, role=Role.SHIFT_MANAGER)  # a Dealer's function, by a Shift Manager
    assert_void(r, "5.1")


# -- Tiger No Commission and Baccarat Tournament: 5.1 - 5.5 ---------------------------------


@pytest.mark.clause("tiger-no-commission", "5.1", "5.1.1")
@pytest.mark.clause("baccarat-tournament", "5.1", "5.1.1")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_1_foreign_card_voids_round_no_commission_and_tournament(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "9H 2C")
    irr.foreign_card(r)
    assert_void(r, "5.1")


def test_tiger_no_commission_5_1_extra_or_missing_cards_voids_round() -> None:
    r = with_bets("tiger-no-commission")
    irr.extra_or_missing_cards(r)
    assert_void(r, "5.1")


def test_baccarat_tournament_5_1_speaks_of_foreign_cards_only() -> None:
    r = with_bets("baccarat-tournament")
    with pytest.raises(irr.NotCoveredError):
        irr.extra_or_missing_cards(r)
    with pytest.raises(irr.NotCoveredError):
        irr.unshuffled_cards(r)
    irr.unforeseen(r, "a deck was short", void=True)
    assert_void(r, "not covered by the rules")


@pytest.mark.clause("tiger-no-commission", "5.2")
@pytest.mark.clause("baccarat-tournament", "5.2")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_2_incorrect_number_not_reconstructable_voids_round(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "9H 2C KD")
    irr.incorrect_number_of_cards(r, cards("9H 2C KD 3S 5H"), reconstructable=False)
    assert_void(r, "5.2")


@pytest.mark.clause("tiger-no-commission", "5.1.2", "5.2")
@pytest.mark.clause("baccarat-tournament", "5.1.2", "5.2")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_2_incorrect_number_noticed_after_settlement_before_next_round_voids(
    game_id: str,
) -> None:
    r = with_bets(game_id)
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE
    with pytest.raises(PhaseError) as next_round:
        irr.incorrect_number_of_cards(
            r, cards(PLAYER_NINE), reconstructable=False, next_round_commenced=True
        )
    assert next_round.value.clause == "5.2"  # its proviso: noticed before the next game
    assert r.nets() == ON_PLAYER_NINE  # it stands
    irr.incorrect_number_of_cards(r, cards(PLAYER_NINE), reconstructable=False)
    assert_void(r, "5.2")


@pytest.mark.clause("tiger-no-commission", "5.2")
@pytest.mark.clause("baccarat-tournament", "5.2")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_2_incorrect_number_reconstructed_play_continues(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "4H 3C 3D")
    # the Banker was given two cards at once: 4S and 8H out; the coup takes 4S
    ruling = irr.incorrect_number_of_cards(r, cards("4H 3C 3D 4S 8H"), reconstructable=True)
    assert (ruling.clause, ruling.next_round) == ("5.2", cards("8H"))
    assert finish(r) == ON_TIE_SEVEN


@pytest.mark.clause("tiger-no-commission", "1.1.3")
@pytest.mark.clause("baccarat-tournament", "1.1.2")
@pytest.mark.clause("tiger-no-commission", "5.3")
@pytest.mark.clause("baccarat-tournament", "5.3")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_3_simultaneous_draw_in_initial_deal_voids_round(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "4H")
    irr.simultaneous_draw(r, cards("3C 3D"), order_known=False)
    assert_void(r, "5.3")


@pytest.mark.clause("tiger-no-commission", "5.3")
@pytest.mark.clause("baccarat-tournament", "5.3")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_3_simultaneous_draw_order_known_cards_dealt_in_order(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "4H")
    assert irr.simultaneous_draw(r, cards("3C 3D"), order_known=True).consequence == "continue"
    assert finish(r, TIE_SEVEN) == ON_TIE_SEVEN


def test_tiger_no_commission_5_3_after_initial_deal_is_not_covered() -> None:
    r = with_bets("tiger-no-commission")
    deal_cards(r, "QH 2C 2D KS")
    with pytest.raises(irr.NotCoveredError) as not_covered:
        irr.simultaneous_draw(r, cards("3H 4D"), order_known=False)
    assert not_covered.value.clause == "5.3"
    irr.unforeseen(r, "simultaneous third cards, order not known: let stand as drawn", void=False)
    deal_cards(r, "3H 4D")
    # No Commission: Banker wins with 6 and pays 1 to 2
    assert finish(r) == {"ann": 50, "bob": -200, "cat": -50}


@pytest.mark.clause("tiger-no-commission", "5.4")
@pytest.mark.clause("baccarat-tournament", "5.4")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_4_order_altered_not_reconstructable_voids_round(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "4H 3C")
    irr.order_altered(r, reconstructable=False)
    assert_void(r, "5.4")


@pytest.mark.clause("tiger-no-commission", "5.5")
@pytest.mark.clause("baccarat-tournament", "5.5")
@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_5_5_insufficient_cards_voids_round(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "QH 2C 2D KS 3H")
    irr.insufficient_cards(r, remaining=0)
    assert_void(r, "5.5")


def test_baccarat_tournament_5_4_wrong_order_reconstructed() -> None:
    r = with_bets("baccarat-tournament")
    deal_cards(r, "QH 2C KS 2D")
    irr.cards_in_wrong_order(r, cards("QH 2C 2D KS"))
    # Tournament: Banker pays 1 to 1
    assert finish(r, BANKER_SIX) == {"ann": 100, "bob": -200, "cat": -50}


@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_no_power_failure_clause_play_continues(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "9H")
    with pytest.raises(ActionError, match="bob cannot withdraw"):
        irr.power_failure(r, withdrawing=["bob"])
    ruling = irr.power_failure(r)
    assert ruling.consequence == "continue"
    assert ruling.withdrawn == ()
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


@pytest.mark.parametrize("game_id", ["tiger-no-commission", "baccarat-tournament"])
def test_mbs_procedures_the_rules_do_not_write_are_referred(game_id: str) -> None:
    r = with_bets(game_id)
    deal_cards(r, "9H")
    for procedure in (irr.device_reset, irr.absent_player, irr.card_face_up_in_device):
        with pytest.raises(irr.NotCoveredError):
            procedure(r)
    assert r.events[-1].type == "card_dealt"


def test_tiger_baccarat_5_13_cards_may_be_replaced_after_a_void() -> None:
    table = LiveTable(
        "t",
        get_game("tiger-baccarat"),
        limits=LIMITS,
        log=MemoryEventLog(TABLE_STREAM),
        seed="5.13",
        hlga=True,
    )
    table.choose_method(handling.Method.C, Role.ASSISTANT_CASINO_MANAGER)
    r = table.new_round()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.close_betting()
    table.draw()
    irr.order_altered(r, reconstructable=False, method_c=True)  # 5.12.2: and replaced
    assert r.nets() == {"ann": 0}
    table.replace_shoe(Role.DEALER, "5.13")
    assert table.shoes == 2
    assert table.new_round().phase is Phase.BETTING


def test_tiger_baccarat_options_taken_from_any_iterable_of_players() -> None:
    r = with_bets("tiger-baccarat")
    deal_cards(r, "QH 2C 2D")
    choices = (p for p in ["bob", "cat"])  # a generator: spent once, yet both withdraw
    ruling = irr.simultaneous_draw(r, cards("KS 3H"), order_known=True, withdrawing=choices)
    assert ruling.withdrawn == ("bob", "cat")
    assert finish(r, BANKER_SIX) == {"ann": 95, "bob": 0, "cat": 0}
