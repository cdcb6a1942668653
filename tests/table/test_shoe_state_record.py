"""The shoe's record of every card out of it (``punto.table.shoe_state``):
what it holds, what it refuses and in what words, and the claims it decides.

A claim against the table's record is refused naming the record; a card
that cannot have come out of the shoe is refused saying which and why; the
cards a physical shoe still holds, the discards MBS 5.11.2.1 counts and the
cards out of a shoe after a reconstruction or a replacement are what the
dealer, the pit and an auditor read.  Each refusal is pinned whole: its
words, its clause and what to do.

Shoes used (first cards, in dealing order):

* seed "a" (any game), shoe s1: 8S 6H 9D 3S | 9S 9D JH AD.  Round one:
  Player 8+9 = 7, Banker 6+3 = 9, a Natural -- Banker wins.
* seed "c", shoe s1: 3H 5H 7D 6C ...; after a replacement, s2: KC TC ...
* recorded shoes (``recorded``): the cards a test names first, then the
  rest of the decks in deck order.

The bets at a live table: ann Banker 100, bob Player 200, cat Tie 50.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest

from punto.errors import PhaseError, ShoeError
from punto.eventlog import MemoryEventLog
from punto.rules.cards import DECK, Card, format_cards, parse_cards
from punto.rules.games import get_game
from punto.rules.shoe import verify_commitment
from punto.table import irregularities as irr
from punto.table.events import (
    TABLE_STREAM,
    CardDealt,
    CardsHeld,
    CardsReconstructed,
    Event,
    IrregularityNoted,
    RoundOpened,
    RoundVoided,
    ShoeStarted,
)
from punto.table.limits import TableLimits
from punto.table.live import LiveTable
from punto.table.record import RecordError, ShoeRecord
from punto.table.replay import Replay, run_replay
from punto.table.roles import Role
from punto.table.round import Phase, Round
from punto.table.shoe_state import DeviceCardsError, OutsideCardError, ShoeState, shoe_started

D = Decimal
LIMITS = TableLimits(D(10), D(1000))


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def recorded(first: str, decks: int = 8) -> tuple[Card, ...]:
    """A complete shoe of ``decks`` decks opening with ``first``."""
    order = list(cards(first))
    rest = Counter(DECK * decks) - Counter(order)
    for card in DECK * decks:
        if rest[card]:
            rest[card] -= 1
            order.append(card)
    return tuple(order)


def table(game_id: str, seed: str = "a", **options: Any) -> LiveTable:
    layout = "A" if game_id == "tiger-buffalo" else None
    return LiveTable(
        "t",
        get_game(game_id),
        limits=LIMITS,
        layout=layout,
        log=MemoryEventLog(TABLE_STREAM),
        seed=seed,
        **options,
    )


def betting(t: LiveTable) -> Round:
    r = t.new_round()
    r.place_bet("ann", 1, "banker", D(100))
    r.place_bet("bob", 2, "player", D(200))
    r.place_bet("cat", 3, "tie", D(50))
    r.close_betting()
    return r


class Folded:
    """A shoe fed events as a table feeds it: each checked, then tracked
    with the round as it stood before it (a replay of a log does the same)."""

    def __init__(self, game_id: str, shoe: ShoeStarted | None = None) -> None:
        self.game = get_game(game_id)
        self.state = ShoeState(self.game)
        if shoe is not None:
            self.state.load(shoe)
        self.events: dict[str, list[Event]] = {}

    def round(self, round_id: str) -> Round:
        layout = "A" if self.game.id == "tiger-buffalo" else None
        return Round.replay(
            self.game,
            self.events.get(round_id, []),
            limits=LIMITS,
            layout=layout,
            round_id=round_id,
        )

    def write(self, round_id: str, *events: Event) -> None:
        for event in events:
            r = self.round(round_id)
            self.state.check(r, [event])
            self.state.track(r, event)
            self.events.setdefault(round_id, []).append(event)

    def deal(self, round_id: str, text: str, source: str = "shoe") -> None:
        self.write(round_id, *(CardDealt(card, source) for card in cards(text)))


def replay(game: str, actions: list[dict[str, Any]]) -> Replay:
    return run_replay(
        {
            "game": game,
            "limits": {"minimum": "10", "maximum": "1000"},
            **({"layout": "A"} if game == "tiger-buffalo" else {}),
            "actions": actions,
        }
    )


def refusal(error: BaseException) -> tuple[str, str | None, str | None]:
    """A refusal whole: its words, its clause, what to do."""
    assert isinstance(error, ShoeError | PhaseError)
    return error.message, error.clause, error.hint


# -- the shoe as declared ------------------------------------------------------------------------


def test_a_declared_shoe_is_logged_with_what_is_known_of_it_and_nothing_more() -> None:
    """A recorded shoe was shuffled by no one the table knows: it publishes
    no commitment; a seeded one publishes the commitment its nonce and order
    verify; a shoe of known decks only records its decks.  Each keeps the
    clause it replaced the cards under and who decided it."""
    game = get_game("tiger-baccarat")
    order = recorded("9H 2C KD 3S")
    assert shoe_started(
        game, "s2", cards=order, cut_card=6, clause="5.13", role=Role.PIT_SUPERVISOR
    ) == ShoeStarted(
        shoe_id="s2",
        cards=order,
        cut_card=6,
        commitment="",
        nonce="",
        clause="5.13",
        role=Role.PIT_SUPERVISOR,
    )
    assert shoe_started(game, "s1", decks=8, cut_card=6) == ShoeStarted(
        shoe_id="s1", cards=(), cut_card=6, commitment="", nonce="", clause="", decks=8
    )
    seeded = shoe_started(
        game, "s3", decks=8, seed="a", cut_card=20, clause="5.12.2", role=Role.SHIFT_MANAGER
    )
    assert verify_commitment(seeded.commitment, seeded.nonce, format_cards(seeded.cards))
    assert seeded.cards == game.new_shoe(8, seed="a").order
    assert (seeded.shoe_id, seeded.cut_card, seeded.clause, seeded.role, seeded.decks) == (
        "s3",
        20,
        "5.12.2",
        Role.SHIFT_MANAGER,
        0,
    )


def test_before_its_first_shoe_the_table_knows_no_card() -> None:
    state = ShoeState(get_game("tiger-baccarat"))
    assert state.composition() is None
    assert (state.discards(), state.held, state.position) == ((), (), 0)
    assert (state.shoe_id, state.decks, state.shoes, state.sorted) == ("", 0, 0, None)
    assert not state.started


def test_a_shoe_with_neither_its_order_nor_its_decks_checks_no_card() -> None:
    """A shoe logged with no cards and no decks (a log that never said what
    the shoe held): nothing is known of what it holds, so no card is
    refused as one it cannot hold."""
    folded = Folded("tiger-baccarat", ShoeStarted("s1", (), None, "", "", "", Role.DEALER))
    assert folded.state.started
    assert not folded.state.physical
    assert folded.state.composition() is None
    folded.write("r1", RoundOpened("r1"))
    folded.deal("r1", "QH QH QH QH")  # counted against no composition
    assert folded.state.position == 4


# -- what a shoe still holds ---------------------------------------------------------------------


def test_a_physical_shoe_takes_each_card_out_of_its_decks_once() -> None:
    """At a physical shoe (its decks known, its order not) a card keyed in
    comes out of the composition; a card held for the next round comes out
    when it is drawn, not again when it is dealt; a keyed card while a held
    card waits is refused (RWS 5.8)."""
    t = table("tiger-buffalo", physical_shoe=True)
    first = betting(t)
    for card in cards("8S 6H 9D 3S"):  # Banker's Natural 9
        first.deal_card(card, "keyed")
    irr.excess_cards(first, cards("5D"))  # drawn in excess: held for round two
    first.settle()
    composition = t.cards.composition()
    assert composition is not None
    assert sum(composition.values()) == 416 - 5
    assert {card: composition[card] for card in cards("8S 5D 2C")} == {
        Card.parse("8S"): 7,
        Card.parse("5D"): 7,
        Card.parse("2C"): 8,
    }
    second = betting(t)
    with pytest.raises(ShoeError) as refused:
        second.deal_card(Card.parse("9C"), "keyed")
    assert refusal(refused.value) == (
        "cards held from the previous round are dealt first: 5D before any card of the shoe",
        "5.8",
        'deal 5D with source "held"',
    )
    second.deal_card(Card.parse("5D"), "held")
    composition = t.cards.composition()
    assert composition is not None
    assert (composition[Card.parse("5D")], sum(composition.values())) == (7, 416 - 5)


def test_a_shoe_whose_order_is_known_counts_what_it_still_holds() -> None:
    t = table("tiger-baccarat")
    r = betting(t)
    t.deal_to_completion()  # 8S 6H 9D 3S
    r.settle()
    composition = t.cards.composition()
    assert composition is not None
    assert sum(composition.values()) == 412
    assert (composition[Card.parse("8S")], composition[Card.parse("AH")]) == (7, 8)
    assert t.cards.decks == 8


# -- cards held for the next round (RWS 5.8) -----------------------------------------------------


def test_a_held_card_refused_says_which_card_is_held_or_that_none_is() -> None:
    t = table("tiger-buffalo")
    first = betting(t)
    with pytest.raises(ShoeError) as none_held:
        first.deal_card(Card.parse("5D"), "held")
    assert refusal(none_held.value) == (
        "5D is not the next card held from the previous round: no card is held",
        None,
        "deal it from the shoe",
    )
    t.deal_to_completion()
    irr.excess_cards(first, cards("9S"))
    first.settle()
    second = betting(t)
    with pytest.raises(ShoeError) as other:
        second.deal_card(Card.parse("9D"), "held")
    assert refusal(other.value) == (
        "9D is not the next card held from the previous round: 9S is",
        "5.8",
        "deal the held cards first, in the order they came out",
    )
    assert second.deal.cards == ()


def test_cards_held_and_a_card_of_the_shoe_in_one_write_are_refused_under_the_holding_clause() -> (
    None
):
    """Events written together are checked in order: a card held by the
    first must be dealt before the shoe's next card, whatever comes between."""
    folded = Folded("tiger-buffalo")
    folded.write("r1", RoundOpened("r1"))
    r = folded.round("r1")
    with pytest.raises(ShoeError) as refused:
        folded.state.check(r, [CardsHeld(cards("QH"), "5.8"), CardDealt(Card.parse("2C"))])
    assert refusal(refused.value) == (
        "cards held from the previous round are dealt first: QH before any card of the shoe",
        "5.8",
        'deal QH with source "held"',
    )


def test_the_discards_leave_out_the_held_card_dealt_in_the_round_in_play() -> None:
    """MBS 5.11.2.1 counts the discards: the cards out of the shoe before the
    round in play, less a held card dealt in it -- one copy of it, where the
    decks hold the same card twice."""
    folded = Folded(
        "tiger-buffalo",
        shoe_started(get_game("tiger-buffalo"), "s1", cards=recorded("5D 9H 2C KD 5D 7S")),
    )
    folded.write("r1", RoundOpened("r1"))
    folded.deal("r1", "5D 9H 2C KD")  # Player 5+2 = 7, Banker 9+K = 9
    folded.write("r1", CardsHeld(cards("5D"), "5.8"))  # the second 5D, held
    folded.write("r2", RoundOpened("r2"), CardDealt(Card.parse("5D"), "held"))
    folded.deal("r2", "7S")
    assert Counter(folded.state.discards()) == Counter(cards("5D 9H 2C KD"))
    assert folded.state.position == 6


# -- the cutting card (MBS 3.22, 3.22.1) ---------------------------------------------------------


def test_a_cutting_card_reported_with_no_card_past_it_ends_the_shoe() -> None:
    t = table("tiger-baccarat", cut_card_from_end=416 - 4)  # 4 cards in front of it
    r = betting(t)
    t.deal_to_completion()  # exactly the 4 cards in front of it
    irr.cut_card(r)
    r.settle()
    assert t.cut_card_out
    with pytest.raises(PhaseError) as ended:
        t.cards.check_new_round()
    assert refusal(ended.value) == (
        "shoe s1 has ended: the cutting card came out, and the shoe ends with that round",
        "3.22",
        "begin a new shoe",
    )
    assert t.new_round().round_id == "r2"
    assert t.shoe_id == "s2"


def test_a_cutting_card_refused_where_the_shoe_shows_none_says_when_it_comes_out() -> None:
    t = table("tiger-baccarat", cut_card_from_end=416 - 6)
    r = betting(t)
    t.draw()
    with pytest.raises(PhaseError) as early:
        irr.cut_card(r)
    assert refusal(early.value) == (
        "the cutting card of shoe s1 is 6 cards deep and only 1 cards are out",
        "3.22",
        "it is reported when it comes out of the shoe",
    )
    hlga = table("tiger-baccarat", cut_card_from_end=416 - 6, hlga=True)
    first = betting(hlga)
    hlga.deal_to_completion()  # 4 cards: the cutting card is 2 cards further
    first.settle()
    second = betting(hlga)
    with pytest.raises(PhaseError) as not_first:
        irr.cut_card_first(second, hlga=True)
    assert refusal(not_first.value) == (
        "the cutting card of shoe s1 is not the next card: it is 6 cards deep and 4 cards are out",
        "3.22.1",
        "the option is given when the cutting card comes out first",
    )


def test_a_cutting_card_in_a_round_keyed_from_outside_is_not_counted_against_the_shoe() -> None:
    """A round with a card keyed in from outside at a table whose own shoe's
    order is known is not the shoe's own: the shoe's count says nothing of
    where its cutting card stands, and the record does not refute claims."""
    t = table("tiger-baccarat", cut_card_from_end=416 - 6)
    r = betting(t)
    r.deal_card(Card.parse("QS"), "keyed")
    assert irr.cut_card(r).clause == "3.22"
    assert not t.cards.own(r)
    assert t.cards.record(r) == ShoeRecord("r1", "s1", shuffled_by_table=True, own=False, left=416)
    irr.foreign_card(r, Card.parse("QS"))
    assert (r.phase, r.nets()) == (Phase.VOID, {"ann": D(0), "bob": D(0), "cat": D(0)})


# -- cards named out of the device ---------------------------------------------------------------


def test_a_card_not_the_shoes_next_is_refused_naming_the_card_and_the_foreign_card_clause() -> None:
    t = table("tiger-baccarat")
    r = betting(t)
    with pytest.raises(DeviceCardsError) as wrong:
        r.deal_card(Card.parse("6H"), "shoe")  # the shoe's next is 8S
    assert refusal(wrong.value) == (
        "the cards named did not come out of the table's dealing device: 6H is not the next "
        "card out of shoe s1 (card 1 of 6H)",
        None,
        "name the cards in the order they came out of the device; a card that is not in the "
        "shoe is a foreign card (5.1)",
    )
    t.draw()
    t.draw()
    with pytest.raises(DeviceCardsError) as together:
        irr.simultaneous_draw(r, cards("3S 9S"), order_known=True, role=Role.PIT_MANAGER)
    assert refusal(together.value) == (
        "the cards named did not come out of the table's dealing device: 3S 9S are not the "
        "next cards out of shoe s1",
        "5.8",
        "name the cards in the order they came out of the device; a card that is not in the "
        "shoe is a foreign card (5.1)",
    )
    assert r.deal.cards == cards("8S 6H")


def test_a_shoe_run_out_says_how_many_cards_are_left() -> None:
    order = recorded("9H 2C KD 3S")
    folded = Folded("tiger-baccarat", shoe_started(get_game("tiger-baccarat"), "s1", cards=order))
    folded.write("r1", RoundOpened("r1"))
    for card in order[:414]:
        folded.state.track(folded.round("r1"), CardDealt(card))
    r = folded.round("r1")
    with pytest.raises(DeviceCardsError) as short:
        folded.state.check(r, [CardDealt(card) for card in order[414:]] + [CardDealt(order[0])])
    assert short.value.message == (
        "the cards named did not come out of the table's dealing device: only 2 cards are "
        "left in shoe s1"
    )


def test_a_card_a_physical_shoe_no_longer_holds_is_refused_under_the_clause_that_named_it() -> None:
    folded = Folded("tiger-buffalo", shoe_started(get_game("tiger-buffalo"), "s1", decks=8))
    folded.write("r1", RoundOpened("r1"))
    queen = Card.parse("QH")
    for _ in range(8):
        folded.state.track(folded.round("r1"), CardDealt(queen, "keyed"))
    with pytest.raises(DeviceCardsError) as refused:
        folded.state.check(folded.round("r1"), [CardsHeld((queen,), "5.8")])
    assert refusal(refused.value) == (
        "QH cannot come out of shoe s1: its 8 decks hold 8 and 8 are already out",
        "5.8",
        "check the cards named; a card the shoe cannot hold is a foreign card (5.5.1) or an "
        "excess of cards",
    )


def test_a_reconstruction_takes_from_the_shoe_only_the_cards_not_already_on_the_table() -> None:
    """RWS 5.5.3, 5.8: the reconstruction less the cards on the table are the
    cards drawn, in order -- a card the decks hold twice counted once on the
    table and once drawn."""
    order = recorded("2H 3C 2D 4S 2H 9C")
    folded = Folded("tiger-buffalo", shoe_started(get_game("tiger-buffalo"), "s1", cards=order))
    folded.write("r1", RoundOpened("r1"))
    folded.deal("r1", "2H 3C")
    # Player 2+2 = 4 draws the second 2H: 6; Banker 3+4 = 7 stands
    folded.write("r1", CardsReconstructed(cards("2H 3C 2D 4S 2H"), "5.8"))
    record = folded.state.record(folded.round("r1"))
    assert (folded.state.position, record.last, record.left) == (5, 5, 416 - 5)


def test_a_card_and_a_reconstruction_written_together_are_checked_as_the_round_stands_at_each() -> (
    None
):
    order = recorded("2H 3C 2D 4S 2C 9C")
    folded = Folded("tiger-buffalo", shoe_started(get_game("tiger-buffalo"), "s1", cards=order))
    folded.write("r1", RoundOpened("r1"))
    folded.deal("r1", "2H 3C")
    r = folded.round("r1")
    batch: list[Event] = [
        CardDealt(Card.parse("2D")),
        CardsReconstructed(cards("2H 3C 2D 4S 2C"), "5.8"),
    ]
    folded.state.check(r, batch)  # 2D on the table by then: 4S 2C are the cards drawn
    with pytest.raises(DeviceCardsError):
        folded.state.check(r, [batch[0], CardsReconstructed(cards("2H 3C 2D 2C 4S"), "5.8")])


# -- claims the record decides -------------------------------------------------------------------


def test_once_the_device_is_sorted_into_decks_the_record_decides_no_claim() -> None:
    """MBS 5.11.2, 5.11.3: the device's cards are sorted and a missing card
    replaced from a complete deck -- the shoe's order no longer accounts for
    the cards on the table, and a claim of a foreign card is not refuted."""
    t = table("tiger-baccarat", seed="c")
    r = betting(t)
    t.draw()  # 3H; the next card, 5H, leaves the table with a player
    shoe = t.shoe
    assert shoe is not None
    irr.left_with_cards(
        r,
        shoe=shoe.order,
        discards=t.discards(),
        on_table=[*cards("3H"), None],
        set_aside=shoe.order[2:4],
        remaining=shoe.order[4:],
    )
    assert t.cards.sorted == "5.11.2"
    irr.foreign_card(r, Card.parse("QS"))
    assert (r.phase, r.nets()) == (Phase.VOID, {"ann": D(0), "bob": D(0), "cat": D(0)})


def test_insufficient_cards_is_refused_on_the_shoes_own_count_held_cards_included() -> None:
    """RWS 5.5.4: the shoe's count decides, whatever count is claimed; the
    card held for the next round is one of the cards the device holds."""
    t = table("tiger-buffalo")
    first = betting(t)
    t.deal_to_completion()
    irr.excess_cards(first, cards("9S"))
    first.settle()
    second = betting(t)
    for claimed in (0, 5):
        with pytest.raises(RecordError) as refused:
            irr.insufficient_cards(second, remaining=claimed, role=Role.PIT_MANAGER)
        assert refusal(refused.value) == (
            "shoe s1 holds 412 cards and round r2 needs 4 more: there are cards enough",
            "5.5.4",
            "deal on; the round is void only when the cards run out",
        )
    assert second.phase is Phase.DEALING


def test_after_a_reconstruction_the_record_names_the_cards_out_but_no_order() -> None:
    t = table("tiger-baccarat")
    r = betting(t)
    t.draw()
    t.draw()
    r.reconstruct(cards("8S 6H"), "5.7")  # MBS 5.7: the cards put back in the shoe's order
    assert t.cards.record(r) == ShoeRecord(
        "r1", "s1", shuffled_by_table=True, own=True, first=1, last=2, order=None, left=414
    )


def test_cards_out_of_a_shoe_replaced_mid_round_are_numbered_from_the_new_shoe() -> None:
    t = table("tiger-buffalo", seed="c")
    r = betting(t)
    t.draw()
    t.draw()  # 3H 5H
    irr.simultaneous_draw(r, cards("7D 6C"), order_known=True, withdrawing=["bob"])
    t.replace_shoe(Role.PIT_SUPERVISOR, "5.11.2")
    t.deal_to_completion()  # KC out of s2
    assert r.deal.cards == cards("3H 5H 7D 6C KC")
    assert t.cards.record(r) == ShoeRecord(
        "r1", "s2", shuffled_by_table=True, own=True, first=1, last=1, order=None, left=415
    )
    assert t.discards() == ()


def test_a_recorded_shoe_was_not_shuffled_by_the_table_and_its_record_refutes_no_foreign_card() -> (
    None
):
    game = get_game("tiger-baccarat")
    claim = RoundVoided("a card that does not belong to the decks in use", "5.1")
    for shoe, shuffled in (
        (shoe_started(game, "s1", cards=recorded("9H 2C")), False),
        (shoe_started(game, "s1", decks=8, seed="9H"), True),
    ):
        folded = Folded("tiger-baccarat", shoe)
        folded.write("r1", RoundOpened("r1"))
        folded.deal("r1", format_cards(shoe.cards[:2]))
        r = folded.round("r1")
        assert folded.state.record(r).shuffled_by_table is shuffled
        if shuffled:
            with pytest.raises(RecordError, match="round r1 was dealt by the table from shoe s1"):
                folded.state.check_claim(r, claim)
        else:
            folded.state.check_claim(r, claim)


# -- replacing the cards -------------------------------------------------------------------------


def test_the_cards_are_replaced_under_5_11_5_only_once_the_round_in_play_is_over() -> None:
    folded = Folded("tiger-baccarat", shoe_started(get_game("tiger-baccarat"), "s1", decks=8))
    folded.write("r1", RoundOpened("r1"))
    folded.write("r1", IrregularityNoted("5.11", "a player left with cards", Role.SHIFT_MANAGER))
    assert folded.state.replacement_due == "5.11.5"
    r = folded.round("r1")
    with pytest.raises(PhaseError) as in_play:
        folded.state.check_replace(Role.DEALER, "5.11.5", r)
    assert refusal(in_play.value) == (
        "the cards are replaced once the round in play is over",
        "5.11.5",
        None,
    )
    with pytest.raises(PhaseError) as not_void:
        folded.state.check_replace(Role.DEALER, "5.13", None)
    assert refusal(not_void.value) == (
        "the cards may be replaced under this clause after a round is voided",
        "5.13",
        None,
    )


def test_a_new_shoe_refused_says_how_to_go_on() -> None:
    t = table("tiger-baccarat")
    r = betting(t)
    with pytest.raises(PhaseError) as in_play:
        t.cards.check_new_shoe(r)
    assert refusal(in_play.value) == (
        "round r1 is still in play (dealing): it is completed before the shoe changes",
        "3.22",
        "settle or void it first",
    )
    # a game whose rules replace the cards mid-shoe under no clause says so
    nc = table("tiger-no-commission")
    first = betting(nc)
    nc.deal_to_completion()
    first.settle()
    with pytest.raises(PhaseError) as mid_shoe:
        nc.cards.check_new_shoe(first)
    assert refusal(mid_shoe.value)[2] == (
        "the cards are replaced mid-shoe only under no clause: replace_shoe"
    )


def test_a_replacement_shoe_of_a_replay_keeps_the_decks_and_is_reported_not_ended() -> None:
    order = recorded("9H 2H 9C 3D KS")
    actions: list[dict[str, Any]] = [
        {"action": "new_shoe", "cards": format_cards(order)},
        {"action": "open"},
        {"action": "method", "method": "C", "hlga": True, "role": "assistant_casino_manager"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
        {"action": "no_more_bets"},
        {"action": "card", "card": "9H"},
        {"action": "order_altered", "reconstructable": False, "method_c": True, "role": "dealer"},
        {"action": "replace_shoe", "clause": "5.12.2"},
    ]
    done = replay("tiger-baccarat", actions)
    shoes = done.report()["shoes"]
    assert [(s["shoe"], s["decks"], s["order"], s["clause"]) for s in shoes] == [
        ("s1", 8, "known", None),
        ("s2", 8, "unknown", "5.12.2"),
    ]
    assert json.dumps(shoes[1]["decks"]) == "8"
    assert (shoes[1]["cards_out"], shoes[1]["ended"]) == (0, False)
    assert shoes[1]["ended"] is False


# -- a sealed table --------------------------------------------------------------------------------


def test_a_sealed_table_refuses_a_card_keyed_in_saying_where_its_cards_come_from() -> None:
    t = table("tiger-baccarat", physical_shoe=False)
    r = betting(t)
    with pytest.raises(OutsideCardError) as keyed:
        r.deal_card(Card.parse("9H"), "keyed")
    hint = (
        "draw the next card from the shoe; a table dealt from a physical shoe is set up with "
        "the card source device"
    )
    assert refusal(keyed.value) == (
        "9H cannot be keyed in: this table's cards come out of shoe s1, in order, and no card "
        "is chosen",
        "2.1",
        hint,
    )
    state = ShoeState(get_game("tiger-baccarat"))
    state.sealed = True
    with pytest.raises(OutsideCardError) as before_any_shoe:
        state.check(
            Round(get_game("tiger-baccarat"), limits=LIMITS),
            [CardDealt(Card.parse("9H"), "device")],
        )
    assert refusal(before_any_shoe.value) == (
        "9H cannot be device in: this table's cards come out of its shuffled shoe, in order, "
        "and no card is chosen",
        "2.1",
        hint,
    )
