"""The live table's shoe, checked by the same fold as a replay's
(``punto.table.shoe_state.ShoeState``): a new shoe only once the shoe in
use has ended (MBS 3.22; Dragon Tiger 3.17), one cutting card a round,
held cards before any card of the shoe (RWS 5.8), and the dealer console's
``new_shoe`` / ``replace_shoe``.

Every table runs its own shoe shuffled from seed "a" (shoe s1 begins
8S 6H 9D 3S | 9S 9D JH AD): round one is Player 8+9 = 7, Banker 6+3 = 9, a
Natural -- Banker wins.  The bets: ann Banker 100, bob Player 200, cat Tie
50; a Banker win pays 0.95 to 1, the Tie loses on a decision.
"""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from rich.console import Console

from punto.errors import PhaseError, ShoeError
from punto.eventlog import MemoryEventLog
from punto.rules.cards import Card, parse_cards
from punto.rules.games import get_game
from punto.table import irregularities as irr
from punto.table.events import TABLE_STREAM, ShoeStarted
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.roles import Role
from punto.table.round import Phase, Round
from punto.ui.dealer_console import DealerConsole
from punto.ui.playtable import console_input

D = Decimal
LIMITS = TableLimits(D(10), D(1000))
ROUND_ONE = {"ann": D(95), "bob": D(-200), "cat": D(-50)}


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def table(game_id: str, **options: object) -> LiveTable:
    layout = "A" if game_id == "tiger-buffalo" else None
    return LiveTable(
        "t",
        get_game(game_id),
        limits=LIMITS,
        layout=layout,
        log=MemoryEventLog(TABLE_STREAM),
        seed="a",
        **options,  # type: ignore[arg-type]
    )


def betting(t: LiveTable) -> Round:
    r = t.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "player", D(200))
    r.place_bet("cat", 3, "tie", D(50))
    r.close_betting()
    return r


def new_shoe_refused_until_the_cutting_card_ends_the_shoe(game_id: str, clause: str) -> None:
    t = table(game_id, cut_card_from_end=416 - 6)  # 6 cards in front of the cutting card
    r = betting(t)
    t.deal_to_completion()
    r.settle()
    assert r.nets() == ROUND_ONE
    assert not t.can_new_shoe()
    with pytest.raises(PhaseError, match="shoe s1 is still in use") as refused:
        t.new_shoe()
    assert refused.value.clause == clause
    assert refused.value.hint is not None
    assert "5.11.5, 5.12.2, 5.13: replace_shoe" in refused.value.hint
    # round two: 9S 9D JH AD brings the cutting card out (its fifth card is
    # the seventh out); Player 9S JH = 9 over Banker 9D AD = 0
    second = betting(t)
    t.deal_to_completion()
    second.settle()
    assert second.nets() == {"ann": D(-100), "bob": D(200), "cat": D(-50)}
    assert t.cut_card_out
    assert t.can_new_shoe()
    shoe = t.new_shoe()
    assert shoe is not None
    assert shoe.cut_card == 6
    assert (t.shoe_id, t.shoes) == ("s2", 2)


def test_tiger_baccarat_3_22_live_table_new_shoe_refused_until_the_cut_card_ends_the_shoe() -> None:
    new_shoe_refused_until_the_cutting_card_ends_the_shoe("tiger-baccarat", "3.22")


def test_dragon_tiger_3_17_live_table_new_shoe_refused_until_the_cut_card_ends_the_shoe() -> None:
    new_shoe_refused_until_the_cutting_card_ends_the_shoe("dragon-tiger", "3.17")


def test_tiger_baccarat_3_22_live_table_cut_card_reported_twice_in_one_round_refused() -> None:
    t = table("tiger-baccarat", cut_card_from_end=416 - 2)  # 2 cards in front of it
    r = betting(t)
    t.draw()
    t.draw()
    irr.cut_card(r)  # it comes out now: the card behind it is drawn next
    with pytest.raises(PhaseError, match="already removed in this round") as refused:
        irr.cut_card(r)
    assert refused.value.clause == "3.22"
    t.deal_to_completion()
    r.settle()
    assert r.nets() == ROUND_ONE
    assert t.shoe_finished
    assert t.new_round().round_id == "r2"
    assert t.shoe_id == "s2"


def test_tiger_baccarat_3_22_live_table_cut_card_reported_before_it_is_reached_refused() -> None:
    t = table("tiger-baccarat", cut_card_from_end=416 - 6)
    r = betting(t)
    t.draw()
    with pytest.raises(PhaseError, match="6 cards deep and only 1 cards are out") as refused:
        irr.cut_card(r)
    assert refused.value.clause == "3.22"
    assert r.irregularities == []
    t.deal_to_completion()
    r.settle()
    assert r.nets() == ROUND_ONE


def test_tiger_buffalo_5_8_live_table_refuses_a_shoe_card_while_a_card_is_held() -> None:
    t = table("tiger-buffalo")
    first = betting(t)
    t.deal_to_completion()  # 8S 6H 9D 3S: Banker's Natural 9
    irr.excess_cards(first, cards("9S"))  # drawn in excess: held for round two
    first.settle()
    assert first.nets() == ROUND_ONE
    second = betting(t)
    assert t.shoe is not None
    with pytest.raises(ShoeError, match="9S before any card of the shoe") as refused:
        second.deal_card(t.shoe.peek(), "shoe")
    assert refused.value.clause == "5.8"
    with pytest.raises(ShoeError, match="9D is not the next card held"):
        second.deal_card(cards("9D")[0], "held")
    assert second.deal.cards == ()
    t.deal_to_completion()  # 9S (held), then 9D JH AD: Player 9 over Banker 0
    second.settle()
    assert second.nets() == {"ann": D(-100), "bob": D(200), "cat": D(-50)}


def console(script: str, *, hlga: bool = False) -> tuple[DealerConsole, str]:
    buffer = io.StringIO()
    out = Console(file=buffer, width=140, soft_wrap=True)
    desk = DealerConsole(
        get_game("tiger-baccarat"),
        limits=LIMITS,
        log=MemoryEventLog(TABLE_STREAM),
        seed="a",
        console=out,
        input_fn=console_input(out, io.StringIO(script)),
        hlga=hlga,
    )
    desk.run()
    return desk, buffer.getvalue()


def test_tiger_baccarat_3_22_console_new_shoe_refused_mid_shoe_and_replace_shoe_takes_a_clause() -> (
    None
):
    desk, text = console(
        "\n".join(
            [
                "open",
                "bet ann 1 banker 100",
                "bet bob 2 player 200",
                "close",
                "deal",
                "settle",
                "new_shoe",
                "replace_shoe 5.13 decks=6",
                "replace_shoe 5.13",
                "",
            ]
        )
    )
    r = desk.table.rounds[0]
    assert r.phase is Phase.SETTLED
    assert r.nets() == {"ann": D(95), "bob": D(-200)}
    flat = " ".join(text.split())
    assert "shoe s1 is still in use: its cutting card has not come out (clause 3.22)" in flat
    assert "replace_shoe takes no decks here: the table shuffles its own shoe of 8 decks" in flat
    assert "the cards may be replaced under this clause after a round is voided" in flat
    assert (desk.table.shoe_id, desk.table.shoes) == ("s1", 1)


def test_tiger_baccarat_5_12_2_console_replaces_the_cards_before_the_next_round() -> None:
    desk, text = console(
        "\n".join(
            [
                # 5.12.2 is a Method C procedure: the table runs Method C (3.9.2, HLGA)
                "method C role=assistant_casino_manager",
                "open",
                "bet ann 1 banker 100",
                "close",
                "draw",
                "irr order_altered reconstructable=false method_c=true role=dealer",
                "open",
                "replace_shoe 5.12.2",
                "open",
                "",
            ]
        ),
        hlga=True,
    )
    void = desk.table.rounds[0]
    assert void.phase is Phase.VOID
    assert void.nets() == {"ann": D(0)}
    flat = " ".join(text.split())
    assert "replaced before the next round of play commences (clause 5.12.2)" in flat
    assert "Cards replaced (clause 5.12.2): new shoe s2" in flat
    assert desk.table.round is not None
    assert (desk.table.round.round_id, desk.table.round.phase) == ("r2", Phase.BETTING)
    assert desk.table.shoe is not None
    assert desk.table.shoe_id == "s2"
    logged = [s.event for s in desk.table.log.read(desk.table.table_id)]
    started = [e for e in logged if isinstance(e, ShoeStarted)]
    assert [(e.shoe_id, e.clause, e.role) for e in started] == [
        ("s1", "", Role.DEALER),
        ("s2", "5.12.2", Role.DEALER),
    ]


def test_tiger_baccarat_5_7_console_shoe_shows_the_held_card_and_refuses_an_early_cut_card() -> (
    None
):
    desk, text = console(
        "\n".join(
            [
                "open",
                "bet ann 1 banker 100",
                "bet bob 2 player 200",
                "close",
                "draw",
                "draw",
                "irr cut_card role=dealer",
                "draw",
                "draw",
                "irr excess_cards cards=9S reconstructable=true role=dealer",
                "settle",
                "shoe",
                "",
            ]
        )
    )
    r = desk.table.rounds[0]
    assert r.nets() == {"ann": D(95), "bob": D(-200)}
    flat = " ".join(text.split())
    assert "402 cards deep and only 2 cards are out (clause 3.22)" in flat
    assert "Shoe s1: 411 cards left of 416, cut card after 402 cards" in flat
    assert "Held for the next round, dealt first: 9S" in flat
    assert desk.table.held == cards("9S")


def test_tiger_baccarat_3_22_the_rounds_settled_out_of_the_shoe_in_use_are_its_roads() -> None:
    # The server draws a shoe's roads from these (after a restart, and when a
    # settled round is voided); a new shoe starts them afresh.
    t = table("tiger-baccarat", cut_card_from_end=416 - 6)
    first = betting(t)
    t.deal_to_completion()
    first.settle()
    second = betting(t)
    t.deal_to_completion()
    second.settle()  # the cutting card came out: the shoe has ended
    assert t.cards.settled == [first, second]
    t.new_shoe()
    assert t.cards.settled == []
    third = betting(t)
    t.deal_to_completion()
    assert t.cards.settled == []  # not settled yet
    third.settle()
    fourth = betting(t)
    assert [r.round_id for r in t.cards.settled] == [third.round_id]
    restored = LiveTable("t", t.game, limits=LIMITS, log=t.log, seed="a")
    assert [r.round_id for r in restored.cards.settled] == [third.round_id]
    assert restored.round is not None
    assert restored.round.round_id == fourth.round_id


# -- what the record says of a round, and the shoes a replay declares ---------------------------


def test_the_record_of_a_round_numbers_its_cards_out_of_the_shoe_the_table_shuffled() -> None:
    """A claim is tried against this record (punto.table.record): round two
    of shoe s1 took its cards 5 and 6, in the shoe's order, 410 are left.
    Catches the round's numbering, its order or the cards left misread."""
    from punto.table.record import ShoeRecord

    t = table("tiger-baccarat")
    r = betting(t)
    t.deal_to_completion()
    r.settle()
    second = betting(t)
    assert t.cards.record(second) == ShoeRecord(
        "r2", "s1", shuffled_by_table=True, own=True, first=0, last=0, order=(), left=412
    )
    t.draw()
    t.draw()
    assert t.cards.record(second) == ShoeRecord(
        "r2",
        "s1",
        shuffled_by_table=True,
        own=True,
        first=5,
        last=6,
        order=cards("9S 9D"),
        left=410,
    )
    sealed = table("tiger-baccarat", physical_shoe=False)
    assert sealed.cards.record(betting(sealed)).sealed


def test_a_physical_shoe_knows_the_order_a_card_reading_shoe_read_and_not_a_keyed_one() -> None:
    """At a physical shoe the table shuffled nothing and cannot count the
    cards left; a card-reading shoe's cards are in the order it read them,
    keyed cards in no order the table knows (a claim of order then needs
    a second person)."""
    from punto.table.record import ShoeRecord

    for source, order in (("device", cards("7D JC")), ("keyed", None)):
        t = LiveTable(
            "t", get_game("tiger-baccarat"), limits=LIMITS, log=MemoryEventLog(TABLE_STREAM)
        )
        t.set_physical_shoe(True)
        r = betting(t)
        for card in cards("7D JC"):
            r.deal_card(card, source)
        assert t.cards.record(r) == ShoeRecord(
            "r1", t.shoe_id, shuffled_by_table=False, own=True, first=1, last=2, order=order
        )
