"""Irregularities of Dragon Tiger Baccarat (MBS, 2023) run on Dragon Tiger
itself: 5.7, 5.11-5.11.5, 5.12.1, 5.13, 5.14, 5.16, 5.17.2, 6.2 and 6.3.

The procedures are shared with Tiger Baccarat (same clause numbers), but they
look their clauses up in the game's data, so each is run here on the Dragon
Tiger game, with several players and every player's exact net.

Coups (shoe order: Player, Banker, Player, Banker, then third cards):

* ``PLAYER_NINE`` 9H 2C KD 3S -- Player 9+K=9, a Natural, over Banker 5.
* ``TIE_SEVEN``   4H 3C 3D 4S -- Player 7, Banker 7: a Tie.
* ``BANKER_SIX``  QH 2C 2D KS 3H 4D -- Player Q+2=2 draws 3: 5; Banker 2+K=2
  draws 4: 6.  Banker wins with 6 on three cards (Big Tiger).

Standing bets: ann Banker 100 (position 1), bob Player 200 (2), cat Tie 50
(3).  On PLAYER_NINE: ann -100, bob +200, cat -50.  On TIE_SEVEN: 0, 0,
+400 (8 to 1).  On BANKER_SIX: ann +95 (0.95 to 1), bob -200, cat -50.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from punto.errors import ActionError, PhaseError, RoleError, ShoeError
from punto.rules.cards import Card, parse_cards
from punto.rules.coup import Winner, deal
from punto.rules.games import get_game
from punto.rules.roads import Scoreboard
from punto.rules.shoe import Shoe
from punto.store.eventlog import open_event_log
from punto.store.sql_log import SQLEventLog
from punto.table import irregularities as irr
from punto.table.events import TABLE_STREAM, CardDealt, Event
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.roles import Role
from punto.table.round import Phase, Round

GAME = get_game("dragon-tiger")
LIMITS = TableLimits(Decimal(10), Decimal(1000), differential=Decimal(1000))
PLAYER_NINE = "9H 2C KD 3S"
TIE_SEVEN = "4H 3C 3D 4S"
BANKER_SIX = "QH 2C 2D KS 3H 4D"
ON_PLAYER_NINE = {"ann": Decimal(-100), "bob": Decimal(200), "cat": Decimal(-50)}
ON_TIE_SEVEN = {"ann": Decimal(0), "bob": Decimal(0), "cat": Decimal(400)}
ON_BANKER_SIX = {"ann": Decimal(95), "bob": Decimal(-200), "cat": Decimal(-50)}
# Any Banker win over the standing bets: Banker 0.95 to 1, Player and Tie lose.
ON_BANKER_WIN = ON_BANKER_SIX
ZERO = {"ann": Decimal(0), "bob": Decimal(0), "cat": Decimal(0)}


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def opened(**options: object) -> Round:
    r = Round(GAME, limits=LIMITS, **options)  # type: ignore[arg-type]
    r.open()
    return r


def with_bets() -> Round:
    r = opened()
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
    for card in cards(text)[len(r.deal.cards) :]:
        r.deal_card(card)
    r.settle()
    return r.nets()


def assert_void(r: Round, clause: str) -> None:
    assert r.phase is Phase.VOID
    assert r.void is not None
    assert r.void.clause == clause
    assert r.nets() == ZERO
    assert {s.outcome for s in r.results()} == {"void"}


# -- 5.7: cards dealt in the wrong order or to the wrong player --------------------------------


def test_dragon_tiger_5_7_cards_in_wrong_order_reconstructed_and_play_continues() -> None:
    r = with_bets()
    # The Player's and the Banker's first cards went to each other's area:
    # keyed in as they lay, the round holds 2C 9H.
    deal_cards(r, "2C 9H KD")
    ruling = irr.cards_in_wrong_order(r, cards("9H 2C KD"))
    assert (ruling.clause, ruling.consequence) == ("5.7", "continue")
    assert r.deal.player.cards == cards("9H KD")
    assert finish(r, PLAYER_NINE) == ON_PLAYER_NINE


def test_dragon_tiger_5_7_cards_to_wrong_player_retrieved_and_play_continues() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C KD 3S")
    ruling = irr.cards_to_wrong_player(r)
    assert (ruling.clause, ruling.consequence) == ("5.7", "continue")
    assert r.withdrawal_open is None  # no option: the cards are retrieved and play goes on
    assert finish(r) == ON_PLAYER_NINE


def test_dragon_tiger_5_7_wrong_order_not_reconstructable_voids_round_by_5_2() -> None:
    r = with_bets()
    deal_cards(r, "9H 2C")
    irr.cards_in_wrong_order(r, None)
    assert_void(r, "5.2")


# -- 5.11: a player leaves with cards --------------------------------------------------------


def _shoe_after_two_coups() -> tuple[Shoe, list[Card]]:
    """A seeded 8-deck shoe after two coups (6S QH 7D 9D and JC JS 2H 7S QC).
    The third coup is 5S 7H 7C 5C 9H 4S: Player 5+7=2 draws 9: 1; Banker
    7+5=2 draws (0-2 always) 4: 6.  Banker wins with 6 on three cards."""
    shoe = Shoe.shuffled(8, seed="5.11-12")
    discards: list[Card] = []
    for _ in range(2):
        discards.extend(deal(shoe).cards)
    return shoe, discards


def _third_coup_bets() -> Round:
    r = opened()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("cat", 3, "big_tiger", Decimal(10))
    r.place_bet("dan", 4, "small_tiger", Decimal(10))
    r.close_betting()
    return r


# Banker 6 on three cards: Banker 0.95 to 1, Big Tiger 50 to 1, Small Tiger loses (4.3).
ON_THIRD_COUP = {"ann": Decimal(95), "bob": Decimal(-200), "cat": Decimal(500), "dan": Decimal(-10)}


@pytest.mark.clause("dragon-tiger", "5.11.1", "5.11.2", "5.11.2.1", "5.11.3", "5.11.4")
def test_dragon_tiger_5_11_player_left_with_cards_missing_cards_replaced() -> None:
    shoe, discards = _shoe_after_two_coups()
    assert deal(iter(shoe.order[shoe.position :])).cards == cards("5S 7H 7C 5C 9H 4S")
    r = _third_coup_bets()
    initial = [shoe.draw() for _ in range(4)]
    # bob squeezed the Player hand (first and third cards) and left with it
    on_table: list[Card | None] = [None, initial[1], None, initial[3]]
    set_aside = [shoe.draw(), shoe.draw()]  # 5.11.1: before a Gaming Shift Manager
    remaining = list(shoe)  # 5.11.2: the rest of the device, sorted with the discards
    whole = Shoe.shuffled(8, seed="5.11-12").order
    with pytest.raises(RoleError) as pit:
        irr.left_with_cards(
            r,
            shoe=whole,
            discards=discards,
            on_table=on_table,
            set_aside=set_aside,
            remaining=remaining,
            role=Role.PIT_MANAGER,
        )
    assert pit.value.clause == "5.11.1"
    assert r.deal.cards == ()
    ruling = irr.left_with_cards(
        r,
        shoe=whole,
        discards=discards,
        on_table=on_table,
        set_aside=set_aside,
        remaining=remaining,
    )
    assert ruling.clause == "5.11"
    assert ruling.missing == cards("5S 7C")  # 5.11.2.1
    assert ruling.unused == ()  # both set-aside cards were needed (9H, 4S): 5.11.4
    assert r.deal.cards == cards("5S 7H 7C 5C 9H 4S")
    sources = [e.source for e in r.events if isinstance(e, CardDealt)]
    # 5.11.3: the missing cards come from a complete deck, in their places
    assert sources == ["replacement", "table", "replacement", "table", "set_aside", "set_aside"]
    assert finish(r) == ON_THIRD_COUP


def test_dragon_tiger_5_11_2_1_missing_cards_of_different_places_need_the_order() -> None:
    shoe, discards = _shoe_after_two_coups()
    r = _third_coup_bets()
    drawn = [shoe.draw() for _ in range(5)]
    on_table: list[Card | None] = [None, drawn[1], None, drawn[3], None]
    set_aside = [shoe.draw(), shoe.draw()]
    remaining = list(shoe)  # drawing the rest out of the device empties it
    whole = Shoe.shuffled(8, seed="5.11-12").order
    with pytest.raises(ActionError) as unordered:
        irr.left_with_cards(
            r,
            shoe=whole,
            discards=discards,
            on_table=on_table,
            set_aside=set_aside,
            remaining=remaining,
        )
    assert unordered.value.clause == "5.11.2.1"
    assert r.deal.cards == ()
    irr.left_with_cards(
        r,
        shoe=whole,
        discards=discards,
        on_table=on_table,
        set_aside=set_aside,
        remaining=remaining,
        order=cards("5S 7C 9H"),
    )
    assert finish(r) == ON_THIRD_COUP


# -- 5.11.2, 5.11.5, 5.13 on a live table with a log file -------------------------------------
#
# Seed "a", shoe s1: 8S 6H 9D 3S | 9S 9D ...: Player 8+9=7, Banker 6+3=9, a
# Natural -- Banker wins.  Seed "a", shoe s2 (after a replacement): 2H 5S 2D
# TS 8C: Player 4 draws 8: 2; Banker 5 stands -- Banker wins.  Seed "c", shoe
# s1: 3H 5H 7D 6C 2D 2H | QH 3S 9D QC: round two Player 9, a Natural.

SQL_LIMITS = TableLimits(Decimal(10), Decimal(1000))


def table_on(path: Path, seed: str) -> LiveTable:
    return LiveTable(
        "t", GAME, limits=SQL_LIMITS, log=open_event_log(str(path), TABLE_STREAM), seed=seed
    )


def restarted(table: LiveTable, path: Path) -> LiveTable:
    assert isinstance(table.log, SQLEventLog)
    table.log.close()
    return LiveTable(
        "t",
        GAME,
        limits=SQL_LIMITS,
        log=open_event_log(f"sqlite:///{path}", TABLE_STREAM),
        seed=table.seed,
    )


def betting(table: LiveTable) -> Round:
    r = table.new_round()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("cat", 3, "tie", Decimal(50))
    r.close_betting()
    return r


def written(table: LiveTable) -> list[Event]:
    return [s.event for s in table.log.read(table.table_id)]


def test_dragon_tiger_5_11_5_cards_replaced_before_the_next_round(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, "a")
    r = betting(table)
    for _ in range(3):
        table.draw()  # 8S 6H 9D; the fourth card, 3S, leaves the table with a player
    shoe = table.shoe
    assert shoe is not None
    ruling = irr.left_with_cards(
        r,
        shoe=shoe.order,
        discards=table.discards(),
        on_table=[*cards("8S 6H 9D"), None],
        set_aside=shoe.order[4:6],
        remaining=shoe.order[6:],
    )
    assert (ruling.missing, ruling.unused) == (cards("3S"), cards("9S 9D"))
    assert table.replacement_due == "5.11.5"
    r.settle()  # Banker's Natural 9 over Player 7
    assert r.nets() == ON_BANKER_WIN

    again = restarted(table, path)
    assert again.replacement_due == "5.11.5"
    before = written(again)
    with pytest.raises(PhaseError) as not_replaced:
        again.new_round()
    assert not_replaced.value.clause == "5.11.5"
    with pytest.raises(RoleError):
        again.replace_shoe(Role.PLAYER, "5.11.5")
    assert written(again) == before
    again.replace_shoe(Role.DEALER, "5.11.5")
    assert [again.shoe_id, again.replacement_due] == ["s2", None]
    second = betting(again)
    again.deal_to_completion()
    second.settle()
    assert second.deal.cards == cards("2H 5S 2D TS 8C")
    assert second.nets() == ON_BANKER_WIN


def test_dragon_tiger_5_11_2_no_card_is_drawn_from_cards_sorted_into_decks(
    tmp_path: Path,
) -> None:
    table = table_on(tmp_path / "events.db", "c")
    r = betting(table)
    table.draw()  # 3H; the next card, 5H, leaves the table with a player
    shoe = table.shoe
    assert shoe is not None
    irr.left_with_cards(
        r,
        shoe=shoe.order,
        discards=table.discards(),
        on_table=[*cards("3H"), None],
        set_aside=shoe.order[2:4],
        remaining=shoe.order[4:],
    )
    # the two set-aside cards complete the initial deal; the Table of Play
    # wants third cards, but the device's cards were sorted into decks
    assert r.deal.cards == cards("3H 5H 7D 6C")
    before = written(table)
    with pytest.raises(ShoeError) as sorted_out:
        table.draw()
    assert sorted_out.value.clause == "5.11.2"
    assert written(table) == before


def test_dragon_tiger_5_13_cards_may_be_replaced_only_after_a_void(tmp_path: Path) -> None:
    table = table_on(tmp_path / "events.db", "c")
    first = betting(table)
    table.deal_to_completion()
    first.settle()
    # 3H 5H 7D 6C 2D 2H: Player 0 draws 2: 2; Banker 1 draws 2: 3 -- Banker wins
    assert first.nets() == ON_BANKER_WIN
    before = written(table)
    with pytest.raises(PhaseError) as settled:
        table.replace_shoe(Role.DEALER, "5.13")
    assert settled.value.clause == "5.13"
    assert written(table) == before
    second = betting(table)  # QH 3S ...
    table.draw()
    irr.unforeseen(second, "a card fell to the floor", void=True)  # 6.1: the round is void
    assert second.nets() == ZERO
    assert table.replacement_due is None  # 5.13 "may": the next round could go on
    table.replace_shoe(Role.DEALER, "5.13")
    assert table.shoe_id == "s2"
    assert table.new_round().phase is Phase.BETTING
    assert first.nets() == ON_BANKER_WIN  # the settled round stands


# -- 5.12.1: Method C, a card exposed moving the device ------------------------------------------


# -- 5.14, 5.16: under the minimum, once -------------------------------------------------------


@pytest.mark.clause("dragon-tiger", "5.16")
def test_dragon_tiger_5_14_under_minimum_settled_once_then_returned() -> None:
    first = opened()
    first.place_bet("ann", 1, "banker", Decimal(5), enforce_limits=False)
    first.place_bet("bob", 2, "player", Decimal(200))
    first.close_betting()
    assert finish(first, PLAYER_NINE) == {"ann": Decimal(-5), "bob": Decimal(200)}
    assert first.results()[0].clause == "5.14"
    # 5.16: that wager stays settled; the player's later under-minimum wagers are returned
    second = opened(under_minimum_settled=first.newly_under_minimum())
    second.place_bet("ann", 1, "banker", Decimal(5), enforce_limits=False)
    second.place_bet("ann", 1, "player", Decimal(50))
    second.place_bet("bob", 2, "player", Decimal(8), enforce_limits=False)
    second.close_betting()
    assert finish(second, PLAYER_NINE) == {"ann": Decimal(50), "bob": Decimal(8)}
    outcomes = {f"{s.bet.player}:{s.bet.wager}": s.outcome for s in second.results()}
    assert outcomes == {"ann:banker": "returned", "ann:player": "win", "bob:player": "win"}
    assert first.nets() == {"ann": Decimal(-5), "bob": Decimal(200)}


# -- 5.17.2: power failure with an outcome established -----------------------------------------


def test_dragon_tiger_5_17_2_power_failure_outcome_established_play_continues() -> None:
    r = opened()
    r.place_bet("ann", 1, "banker", Decimal(100))
    r.place_bet("bob", 2, "player", Decimal(200))
    r.place_bet("dan", 4, "small_dragon", Decimal(10))
    r.close_betting()
    # Player Q+2=2 on two cards must draw: Small Dragon (7 on two cards) has lost
    deal_cards(r, "QH 2C 2D KS")
    assert r.outcome_established()
    with pytest.raises(ActionError, match="bob cannot withdraw"):
        irr.power_failure(r, withdrawing=["bob"])
    ruling = irr.power_failure(r)
    assert (ruling.clause, ruling.consequence, ruling.withdrawn) == ("5.17.2", "continue", ())
    assert r.withdrawal_open is None
    assert finish(r, BANKER_SIX) == {"ann": Decimal(95), "bob": Decimal(-200), "dan": Decimal(-10)}


# -- 6.2, 6.3 --------------------------------------------------------------------------------------


def test_dragon_tiger_6_2_a_higher_position_acts_for_a_lower() -> None:
    r = with_bets()
    with pytest.raises(RoleError):
        irr.foreign_card(r, role=Role.PLAYER)
    irr.foreign_card(r, role=Role.SHIFT_MANAGER)  # a Dealer's function, by a Shift Manager
    assert_void(r, "5.1")


def test_dragon_tiger_6_3_display_is_information_only_outcome_is_the_cards_dealt() -> None:
    r = with_bets()
    assert finish(r, BANKER_SIX) == ON_BANKER_SIX
    coup = r.deal.to_coup()
    board = Scoreboard()
    board.add(coup)
    # a display that shows the wrong winner is rebuilt from the outcome ...
    data = board.to_dict()
    for cell in data["big_road"]["cells"]:
        cell["side"] = "player"
    data["stats"]["banker"] = 0
    rebuilt = Scoreboard.from_dict(data)
    assert rebuilt == board
    assert rebuilt.results[0].winner is Winner.BANKER
    assert (rebuilt.results[0].player_total, rebuilt.results[0].banker_total) == (5, 6)
    # ... and the money follows the cards, whatever a display says
    assert r.nets() == ON_BANKER_SIX
