"""The live table's cards beyond the plain deal: cards held over for the next
round (RWS 5.8 and the MBS reconstructions), replacing the cards mid-shoe
(MBS 5.11.5, 5.12.2, 5.13; RWS 5.11.2) and the cutting card as the first
card of a round (MBS 3.22, 3.22.1; Dragon Tiger 3.17, 3.17.1).

Every table here runs its own seeded shoe on a SQLite event log file, and
is started again on that file to check that the log restores it exactly.
The shoes (first cards, in dealing order; seed "a" and "c" of any game):

* seed "a", shoe s1: 8S 6H 9D 3S | 9S 9D JH AD | ...  Round one: Player 8+9=7,
  Banker 6+3=9, a Natural -- Banker wins.  Round two: Player 9+J=9, Banker
  9+A=0 -- Player wins with a Natural.
* seed "c", shoe s1: 3H 5H 7D 6C 2D 2H | QH 3S 9D QC | ...  Round one:
  Player 3+7=0 draws 2: 2; Banker 5+6=1 draws 2: 3 -- Banker wins.  Round
  two: Player Q+9=9, Banker 3+Q=3 -- Player wins with a Natural.
* seed "c", shoe s2 (after a replacement): KC TC QD ...; seed "a", shoe s2:
  2H 5S 2D TS 8C ...

The bets, unless a test says otherwise: ann Banker 100 (position 1), bob
Player 200 (position 2), cat Tie 50 (position 3).  Banker wins pay 0.95 to
1 (19:20 in Tiger Baccarat), Player 1 to 1; the Tie loses on a decision.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from punto.errors import ActionError, PhaseError, RoleError, ShoeError
from punto.rules.cards import Card, parse_cards
from punto.rules.games import get_game
from punto.store.db import connect
from punto.store.eventlog import open_event_log
from punto.store.sql_log import SQLEventLog
from punto.table import irregularities as irr
from punto.table.events import (
    TABLE_STREAM,
    CardDealt,
    CardsHeld,
    Event,
    ShoeStarted,
    WithdrawalOffered,
    event_from_json,
    event_to_json,
)
from punto.table.handling import Method
from punto.table.limits import TableLimits
from punto.table.live import DeviceCardsError, LiveTable, TableConfigError
from punto.table.record import RecordError
from punto.table.roles import Role
from punto.table.round import Phase, Round

D = Decimal
LIMITS = TableLimits(D(10), D(1000))
DECKS = 8


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def table_on(path: Path, game_id: str, seed: str, **options: object) -> LiveTable:
    layout = "A" if game_id == "tiger-buffalo" else None
    return LiveTable(
        "t",
        get_game(game_id),
        limits=LIMITS,
        layout=layout,
        log=open_event_log(str(path), TABLE_STREAM),
        seed=seed,
        **options,  # type: ignore[arg-type]
    )


def restarted(table: LiveTable, path: Path, **options: object) -> LiveTable:
    """The same table started again on its log file (the old one closed)."""
    assert isinstance(table.log, SQLEventLog)
    table.log.close()
    return LiveTable(
        table.table_id,
        table.game,
        limits=table.limits,
        layout=table.layout,
        log=open_event_log(f"sqlite:///{path}", TABLE_STREAM),
        seed=table.seed,
        cut_card_from_end=table.cut_card_from_end,
        hlga=table.hlga,
        **options,  # type: ignore[arg-type]
    )


def betting(table: LiveTable) -> Round:
    r = table.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "player", D(200))
    r.place_bet("cat", 3, "tie", D(50))
    r.close_betting()
    return r


def draw(table: LiveTable, n: int) -> None:
    for _ in range(n):
        table.draw()


def deal_out(table: LiveTable) -> None:
    """Draw until the coup is complete (nobody takes an Insurance Plus offer)."""
    r = table.round
    while r is not None and r.can_deal_card():
        table.draw()


def written(table: LiveTable) -> list[Event]:
    return [s.event for s in table.log.read(table.table_id)]


def sources(r: Round) -> list[tuple[str, str]]:
    return [(str(e.card), e.source) for e in r.events if isinstance(e, CardDealt)]


def test_cards_held_event_round_trips_through_the_codec_and_the_sqlite_log(
    tmp_path: Path,
) -> None:
    event = CardsHeld(cards("9S 9D"), "5.8", Role.PIT_SUPERVISOR)
    assert event_from_json(event_to_json(event)) == event
    log = SQLEventLog(connect(f"sqlite:///{tmp_path / 'codec.db'}"), TABLE_STREAM)
    log.append("t", event, round_id="r1")
    assert [s.event for s in log.read("t")] == [event]
    log.close()


# -- RWS 5.8: cards drawn in excess are used in the next round ------------------------------


@pytest.mark.clause("tiger-buffalo", "5.8")
def test_rws_5_8_excess_cards_are_dealt_first_in_the_next_round(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, "tiger-buffalo", "a")
    first = betting(table)
    draw(table, 4)  # 8S 6H 9D 3S: Banker's Natural 9, the coup is complete
    assert first.phase is Phase.RESULT
    ruling = irr.excess_cards(first, cards("9S"))  # one more card drawn in excess
    assert (ruling.clause, ruling.consequence, ruling.next_round) == (
        "5.8",
        "continue",
        cards("9S"),
    )
    assert first.held == cards("9S")
    assert isinstance(first.events[-1], CardsHeld)
    assert table.held == cards("9S")
    assert table.shoe is not None
    assert table.shoe.position == 5
    first.settle()
    assert first.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}

    again = restarted(table, path)
    assert again.held == cards("9S")
    assert again.shoe is not None
    assert again.shoe.position == 5
    second = betting(again)
    again.deal_to_completion()
    assert sources(second) == [("9S", "held"), ("9D", "shoe"), ("JH", "shoe"), ("AD", "shoe")]
    assert again.held == ()
    second.settle()  # Player 9S JH = 9 over Banker 9D AD = 0
    assert second.nets() == {"ann": D(-100), "bob": D(200), "cat": D(-50)}
    assert again.shoe.position == 8

    third = restarted(again, path)
    assert [r.results() for r in third.rounds] == [first.results(), second.results()]
    assert third.held == ()
    assert third.shoe is not None
    assert third.shoe.position == 8


@pytest.mark.clause("tiger-buffalo", "5.8")
def test_rws_5_8_cards_not_on_top_of_the_shoe_are_refused_and_nothing_written(
    tmp_path: Path,
) -> None:
    table = table_on(tmp_path / "events.db", "tiger-buffalo", "a")
    r = betting(table)
    draw(table, 4)
    before = written(table)
    with pytest.raises(DeviceCardsError) as wrong:
        irr.excess_cards(r, cards("QH"))  # the shoe's next card is 9S
    assert wrong.value.clause == "5.8"
    assert "QH is not the next card" in str(wrong.value)
    with pytest.raises(DeviceCardsError):
        irr.excess_cards(r, cards("9D 9S"))  # the right cards, in the wrong order
    assert written(table) == before
    assert table.shoe is not None
    assert table.shoe.position == 4
    assert r.held == ()
    assert table.held == ()


@pytest.mark.clause("tiger-buffalo", "5.8")
def test_rws_5_8_holding_cards_is_a_dealer_action_refused_to_a_player(tmp_path: Path) -> None:
    table = table_on(tmp_path / "events.db", "tiger-buffalo", "a")
    r = betting(table)
    draw(table, 4)
    before = written(table)
    with pytest.raises(RoleError) as player:
        r.check_hold_for_next_round(cards("9S"), "5.8", Role.PLAYER)
    assert player.value.clause == "5.8"
    assert not r.can_hold_for_next_round(cards("9S"), "5.8", Role.PLAYER)
    with pytest.raises(RoleError):
        r.hold_for_next_round(cards("9S"), "5.8", Role.PLAYER)
    with pytest.raises(DeviceCardsError):
        r.hold_for_next_round(cards("9D"), "5.8")  # not the next card of the shoe
    assert written(table) == before
    assert r.can_hold_for_next_round(cards("9S"), "5.8")
    r.hold_for_next_round(cards("9S"), "5.8")
    assert written(table) == [*before, CardsHeld(cards("9S"), "5.8", Role.DEALER)]


@pytest.mark.clause("tiger-buffalo", "5.5.3", "5.8")
def test_rws_5_5_3_and_5_8_reconstruction_takes_the_drawn_cards_and_holds_the_rest(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, "tiger-buffalo", "a")
    first = betting(table)
    draw(table, 3)  # 8S 6H 9D on the table; 3S and 9S came out as well
    ruling = irr.incorrect_number_of_cards(first, cards("8S 6H 9D 3S 9S"), reconstructable=True)
    assert (ruling.clause, ruling.next_round) == ("5.8", cards("9S"))
    assert first.deal.cards == cards("8S 6H 9D 3S")
    assert table.shoe is not None
    assert table.shoe.position == 5
    first.settle()
    assert first.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}
    again = restarted(table, path)
    assert (again.held, again.shoe is not None and again.shoe.position) == (cards("9S"), 5)
    second = betting(again)
    again.deal_to_completion()
    second.settle()
    assert second.deal.cards == cards("9S 9D JH AD")
    assert second.nets() == {"ann": D(-100), "bob": D(200), "cat": D(-50)}


# -- MBS 5.8: simultaneous cards the coup does not need ---------------------------------------


def test_tiger_baccarat_5_8_simultaneous_card_not_needed_is_dealt_first_next_round(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, "tiger-baccarat", "c")
    first = betting(table)
    draw(table, 4)  # 3H 5H 7D 6C: both hands draw
    # 2D 2H QH come out at once, in a known order; bob takes the 5.8.1 option
    ruling = irr.simultaneous_draw(first, cards("2D 2H QH"), order_known=True, withdrawing=["bob"])
    assert (ruling.clause, ruling.withdrawn, ruling.next_round) == ("5.8.1", ("bob",), cards("QH"))
    assert table.held == cards("QH")
    first.settle()  # Banker 3 over Player 2: 19:20 on ann's 100
    assert first.nets() == {"ann": D(95), "bob": D(0), "cat": D(-50)}

    again = restarted(table, path)
    assert again.held == cards("QH")
    second = betting(again)
    again.deal_to_completion()
    assert sources(second)[0] == ("QH", "held")
    second.settle()  # Player QH 9D = 9 over Banker 3S QC = 3
    assert second.deal.cards == cards("QH 3S 9D QC")
    assert second.nets() == {"ann": D(-100), "bob": D(200), "cat": D(-50)}


def test_tiger_baccarat_5_8_2_2_decided_order_of_the_shoes_next_cards_is_accepted(
    tmp_path: Path,
) -> None:
    table = table_on(tmp_path / "events.db", "tiger-baccarat", "c")
    r = betting(table)
    draw(table, 4)
    before = written(table)
    with pytest.raises(DeviceCardsError):  # 2D and 9S did not both come out
        irr.simultaneous_draw(
            r, cards("2D 9S"), order_known=False, order=cards("9S 2D"), role=Role.PIT_MANAGER
        )
    assert written(table) == before
    # the device cannot tell the order of simultaneous cards: the Pit Manager's stands
    irr.simultaneous_draw(
        r, cards("2D 2H"), order_known=False, order=cards("2H 2D"), role=Role.PIT_MANAGER
    )
    assert r.deal.cards == cards("3H 5H 7D 6C 2H 2D")
    assert table.shoe is not None
    assert table.shoe.position == 6
    r.settle()  # Player 0+2=2, Banker 1+2=3: Banker wins
    assert r.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}


def test_tiger_buffalo_5_11_at_a_sealed_shoe_no_cards_come_out_together(
    tmp_path: Path,
) -> None:
    """RWS 5.11: a Pit Supervisor decides the order of cards drawn together,
    and the draw is a dealing error with the options of 5.13 (5.11.1).  Where
    the table's own shoe deals every card (sealed: the server's ``virtual``
    source), it gives them one at a time in its order: the claim is refused
    by the record in any order, the shoe's own included, and nothing is
    written -- no options open on one person's word.  A shoe not sealed
    takes the order decided."""
    for sealed in (True, False):
        name = "sealed" if sealed else "open"
        table = table_on(
            tmp_path / f"{name}.db", "tiger-buffalo", "c", physical_shoe=False if sealed else None
        )
        r = betting(table)
        draw(table, 2)
        assert table.shoe is not None
        two = table.shoe.order[2:4]
        assert two[0] != two[1]
        other = (two[1], two[0])
        if not sealed:
            irr.simultaneous_draw(r, two, order_known=False, order=other, role=Role.PIT_SUPERVISOR)
            assert r.deal.cards[2:4] == other
            continue
        before = written(table)
        for order in (other, two):
            with pytest.raises(RecordError) as refused:
                irr.simultaneous_draw(
                    r,
                    two,
                    order_known=False,
                    order=order,
                    withdrawing=["bob"],
                    role=Role.PIT_SUPERVISOR,
                )
            assert refused.value.clause == "5.11"
            assert "the record holds that order" in refused.value.message
            assert written(table) == before
        assert r.deal.cards == table.shoe.order[:2]


# -- RWS 5.11.2: the Pit Supervisor replaces the cards -----------------------------------------


@pytest.mark.clause("tiger-buffalo", "5.11.2")
def test_rws_5_11_2_pit_supervisor_replaces_the_cards_mid_round(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, "tiger-buffalo", "c")
    r = betting(table)
    draw(table, 2)  # 3H to the Player, 5H to the Banker
    before = written(table)
    with pytest.raises(PhaseError) as too_soon:
        table.replace_shoe(Role.PIT_SUPERVISOR, "5.11.2")  # no simultaneous draw yet
    assert too_soon.value.clause == "5.11.2"
    assert written(table) == before
    ruling = irr.simultaneous_draw(r, cards("7D 6C"), order_known=True, withdrawing=["bob"])
    assert (ruling.clause, ruling.withdrawn) == ("5.11", ("bob",))
    before = written(table)
    with pytest.raises(RoleError) as dealer:
        table.replace_shoe(Role.DEALER, "5.11.2")
    assert dealer.value.clause == "5.11.2"
    assert not table.can_replace_shoe(Role.DEALER, "5.11.2")
    assert written(table) == before
    assert table.can_replace_shoe(Role.PIT_SUPERVISOR, "5.11.2")
    table.replace_shoe(Role.PIT_SUPERVISOR, "5.11.2")
    started = written(table)[-1]
    assert isinstance(started, ShoeStarted)
    assert (started.shoe_id, started.clause, started.role) == ("s2", "5.11.2", Role.PIT_SUPERVISOR)
    assert table.shoe is not None
    assert table.shoe.commitment == started.commitment

    # restored mid-round (no power failure: recover=False), the round goes on from s2
    again = restarted(table, path, recover=False)
    assert (again.shoe_id, again.shoes) == ("s2", 2)
    assert again.shoe is not None
    assert again.shoe.position == 0
    r = again.rounds[-1]
    deal_out(again)  # Player 0 draws KC: 0; Banker 1 draws TC: 1
    assert r.deal.cards == cards("3H 5H 7D 6C KC TC")
    r.settle()
    assert r.nets() == {"ann": D(95), "bob": D(0), "cat": D(-50)}


@pytest.mark.clause("tiger-buffalo", "5.11.2")
def test_rws_5_11_2_replaced_cards_take_the_held_cards_with_them(tmp_path: Path) -> None:
    table = table_on(tmp_path / "events.db", "tiger-buffalo", "c")
    r = betting(table)
    draw(table, 4)
    irr.simultaneous_draw(r, cards("2D 2H QH"), order_known=True)
    assert table.held == cards("QH")
    r.settle()
    assert r.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}
    table.replace_shoe(Role.PIT_MANAGER, "5.11.2")  # a higher position may decide it
    assert table.held == ()  # with a complete new set, QH would be an excess card (5.5.2)
    second = betting(table)
    table.deal_to_completion()
    assert sources(second)[0] == ("KC", "shoe")


# -- MBS 5.11.5, 5.12.2, 5.13: the cards are replaced ------------------------------------------


def test_tiger_baccarat_5_11_5_cards_replaced_before_the_next_round(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, "tiger-baccarat", "a")
    r = betting(table)
    draw(table, 3)  # 8S 6H 9D; the fourth card, 3S, leaves the table with a player
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
    assert table.held == ()  # 5.11.4's unused cards go with the cards replaced (5.11.5)
    assert table.replacement_due == "5.11.5"
    r.settle()  # Banker's Natural 9 over Player 7
    assert r.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}

    again = restarted(table, path)
    assert again.replacement_due == "5.11.5"
    before = written(again)
    with pytest.raises(PhaseError) as not_replaced:
        again.new_round()
    assert not_replaced.value.clause == "5.11.5"
    with pytest.raises(RoleError):
        again.replace_shoe(Role.PLAYER, "5.11.5")
    with pytest.raises(PhaseError) as not_void:
        again.replace_shoe(Role.DEALER, "5.13")  # 5.13 follows a void; this round stands
    assert not_void.value.clause == "5.13"
    with pytest.raises(ActionError):
        again.replace_shoe(Role.DEALER, "5.11.2")  # an RWS clause
    assert written(again) == before
    replaced = again.replace_shoe(Role.DEALER, "5.11.5")
    assert again.shoe is replaced
    assert [again.shoe_id, again.replacement_due] == ["s2", None]
    second = betting(again)
    again.deal_to_completion()
    assert sources(second)[0][1] == "shoe"
    second.settle()  # s2: 2H 5S 2D TS 8C -- Player 4 draws 8: 2; Banker 5 stands: Banker wins
    assert second.deal.cards == cards("2H 5S 2D TS 8C")
    assert second.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}


def test_tiger_baccarat_5_11_2_no_card_is_drawn_from_cards_sorted_into_decks(
    tmp_path: Path,
) -> None:
    table = table_on(tmp_path / "events.db", "tiger-baccarat", "c")
    r = betting(table)
    draw(table, 1)  # 3H; the next card, 5H, leaves the table with a player
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
    # 5H replaced, 7D 6C set aside and dealt: Player 0 and Banker 1 both draw,
    # but the device's cards were sorted into decks (5.11.2)
    assert r.deal.cards == cards("3H 5H 7D 6C")
    before = written(table)
    with pytest.raises(ShoeError) as sorted_out:
        table.draw()
    assert sorted_out.value.clause == "5.11.2"
    assert written(table) == before


@pytest.mark.clause("tiger-baccarat", "5.12.2")
@pytest.mark.clause("dragon-tiger", "5.12.2")
@pytest.mark.parametrize("game_id", ["tiger-baccarat", "dragon-tiger"])
def test_mbs_5_12_2_void_and_the_cards_shall_be_replaced(game_id: str, tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    table = table_on(path, game_id, "c", hlga=True)
    table.choose_method(Method.C, Role.ASSISTANT_CASINO_MANAGER)  # 5.12: by Method C only
    r = betting(table)
    draw(table, 2)
    before = written(table)
    with pytest.raises(PhaseError):  # MBS replaces the cards once the round is over
        table.replace_shoe(Role.SHIFT_MANAGER, "5.12.2")
    assert written(table) == before
    irr.order_altered(r, reconstructable=False, method_c=True)
    assert r.nets() == {"ann": D(0), "bob": D(0), "cat": D(0)}
    again = restarted(table, path)
    assert again.replacement_due == "5.12.2"
    before = written(again)
    with pytest.raises(PhaseError) as refused:
        again.new_round()
    assert refused.value.clause == "5.12.2"
    assert written(again) == before
    again.replace_shoe(Role.DEALER, "5.12.2")
    assert again.shoes == 2
    assert again.new_round().phase is Phase.BETTING


def test_tiger_baccarat_5_13_cards_may_be_replaced_only_after_a_void(tmp_path: Path) -> None:
    table = table_on(tmp_path / "events.db", "tiger-baccarat", "c")
    first = betting(table)
    table.deal_to_completion()
    first.settle()
    before = written(table)
    with pytest.raises(PhaseError) as settled:
        table.replace_shoe(Role.DEALER, "5.13")
    assert settled.value.clause == "5.13"
    assert written(table) == before
    second = betting(table)  # QH 3S ...
    draw(table, 1)
    irr.unforeseen(second, "a card fell to the floor", void=True)  # 6.1: the round is void
    assert second.nets() == {"ann": D(0), "bob": D(0), "cat": D(0)}
    assert table.replacement_due is None  # 5.13 "may": the next round could go on
    table.replace_shoe(Role.DEALER, "5.13")
    assert table.shoe_id == "s2"


# -- 3.22, 3.22.1: the cutting card as the first card of a round --------------------------------


def _cut_after_first_round(path: Path, game_id: str, *, hlga: bool) -> tuple[LiveTable, Round]:
    """A table whose cutting card lies right behind the four cards of round one
    (seed "a"), with that round played and settled."""
    table = table_on(path, game_id, "a", cut_card_from_end=DECKS * 52 - 4, hlga=hlga)
    first = betting(table)
    table.deal_to_completion()
    first.settle()
    assert first.nets() == {"ann": D(95), "bob": D(-200), "cat": D(-50)}
    assert table.shoe is not None
    assert table.shoe.position == table.shoe.cut_card == 4
    assert not table.shoe_finished  # the cutting card has not come out yet
    return table, first


@pytest.mark.clause("tiger-baccarat", "3.22.1")
@pytest.mark.clause("dragon-tiger", "3.17.1")
@pytest.mark.parametrize(
    ("game_id", "clause"), [("tiger-baccarat", "3.22.1"), ("dragon-tiger", "3.17.1")]
)
def test_mbs_3_22_1_hlga_cut_card_as_first_card_opens_the_withdrawal_option(
    game_id: str, clause: str, tmp_path: Path
) -> None:
    path = tmp_path / "events.db"
    table, _first = _cut_after_first_round(path, game_id, hlga=True)
    second = betting(table)
    assert table.shoes == 1
    table.deal_to_completion()  # the cutting card comes out first: no card is dealt
    assert second.deal.cards == ()
    offered = second.withdrawal_open
    assert isinstance(offered, WithdrawalOffered)
    assert offered.clause == clause
    assert table.cut_card_out
    assert table.shoe_finished
    before = written(table)
    with pytest.raises(PhaseError):
        table.draw()  # the option is open
    assert written(table) == before
    second.withdraw_player("bob")
    second.close_withdrawal()
    table.deal_to_completion()
    second.settle()  # 9S 9D JH AD: Player's Natural 9
    assert second.nets() == {"ann": D(-100), "bob": D(0), "cat": D(-50)}
    again = restarted(table, path)
    assert again.rounds[-1].results() == second.results()
    assert again.shoe_finished
    again.new_round()
    assert (again.shoes, again.shoe_id) == (2, "s2")


@pytest.mark.clause("tiger-baccarat", "3.22")
@pytest.mark.clause("dragon-tiger", "3.17")
@pytest.mark.parametrize(
    ("game_id", "clause"), [("tiger-baccarat", "3.22"), ("dragon-tiger", "3.17")]
)
def test_mbs_3_22_cut_card_as_first_card_outside_hlga_the_round_continues(
    game_id: str, clause: str, tmp_path: Path
) -> None:
    path = tmp_path / "events.db"
    table, _ = _cut_after_first_round(path, game_id, hlga=False)
    second = betting(table)
    table.deal_to_completion()
    assert not any(isinstance(e, WithdrawalOffered) for e in second.events)
    assert second.deal.cards == cards("9S 9D JH AD")
    second.settle()
    assert second.nets() == {"ann": D(-100), "bob": D(200), "cat": D(-50)}
    assert table.shoe_finished  # 3.22: the shoe ends after this round
    again = restarted(table, path)
    assert again.shoe_finished
    again.new_round()
    assert again.shoes == 2


def test_rws_hlga_is_refused_where_the_rules_have_no_first_card_option(tmp_path: Path) -> None:
    with pytest.raises(TableConfigError):
        table_on(tmp_path / "events.db", "tiger-buffalo", "a", hlga=True)
