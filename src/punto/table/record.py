"""What the table's own record says of a claimed irregularity.

A procedure that voids a round or reorders its cards is a claim about an
event: a foreign card, unshuffled cards, a shoe's cards out of order, a shoe
run dry.  Where the table dealt the round from a shoe whose order it knows,
its record decides the claim, whoever makes it: a shoe the table shuffled
itself holds the cards of its decks and nothing else, shuffled; its cards
came out in the order of the shoe; its count of cards left is exact.  A claim
the record contradicts is refused (:class:`RecordError`), naming the record.
Where it cannot decide (cards keyed in from a physical shoe), the claim is for
a second person to confirm (:mod:`punto.table.claims`).

>>> from punto.rules.cards import parse_cards
>>> from punto.rules.coup import Deal
>>> from punto.rules.games import get_game
>>> from punto.table.events import RoundVoided
>>> facts = ShoeRecord("r12", "s3", shuffled_by_table=True, own=True, first=41, last=44,
...                    order=tuple(parse_cards("2H 9C 3D KS")), left=412, sealed=True)
>>> check_claim(get_game("tiger-baccarat"), facts, RoundVoided("a foreign card", "5.1"), Deal())
Traceback (most recent call last):
...
punto.table.record.RecordError: round r12 was dealt by the table from shoe s3, cards 41-44 (2H 9C 3D KS): a shoe the table shuffled itself holds the cards of its decks and no other, shuffled, and they came out in its order (clause 5.1); apply the procedure for what did happen, or settle the round on the cards dealt
"""

from __future__ import annotations

from dataclasses import dataclass

from punto.errors import ShoeError
from punto.rules.cards import Card, format_cards
from punto.rules.coup import Deal, cards_needed
from punto.rules.game import Game
from punto.table.events import CardsReconstructed, Event, IrregularityNoted, RoundVoided

__all__ = [
    "CLAIM_EVENTS",
    "ORDER_CLAIMS",
    "SHOE_CLAIMS",
    "SIMULTANEOUS_CLAIMS",
    "VALUE_CLAIMS",
    "RecordError",
    "ShoeRecord",
    "check_claim",
]

#: The events that claim something of the cards the record may contradict
#: (any other -- a bet, a card dealt by the table -- claims nothing).
CLAIM_EVENTS = (RoundVoided, IrregularityNoted, CardsReconstructed)


class RecordError(ShoeError):
    """A claim that the table's own record of the round contradicts."""


#: The clauses (by key) that claim something a shoe the table shuffled
#: itself cannot hold: a card not of its decks, cards too many or too few,
#: cards not shuffled.
SHOE_CLAIMS = ("foreign_card", "shortage_or_excess", "extra_or_missing", "unshuffled")
#: The clauses (by key) that claim the order of the cards in the device was
#: altered, or a hand dealt a wrong number of cards: not where the table's
#: own device deals every card by the Table of Play and no hand touches the
#: shoe (a sealed table: the server's card source ``virtual``).
ORDER_CLAIMS = ("order_altered", "method_c_order", "incorrect_number")
#: The clauses (by key) of cards drawn from the device together -- their
#: order known (MBS 5.8.1), not (5.8.2.1; No Commission and Tournament 5.3),
#: set by a person after the initial deal (5.8.2.2), or a dealing error
#: (RWS 5.11): not where the table's own device deals every card, one at a
#: time, in the shoe's order, which the record holds.  Where the rules deal
#: on with the order known and give no option (No Commission and Tournament
#: 5.3), the note claims nothing and stands: the cards are the shoe's next.
SIMULTANEOUS_CLAIMS = (
    "simultaneous",
    "simultaneous_withdraw",
    "simultaneous_initial",
    "simultaneous_after",
    "simultaneous_dealing_error",
)
#: The clauses (by key) that apply only where the value of a card dealt
#: cannot be ascertained via the dealing device (MBS 5.11): not where the
#: table's own device dealt every card, which it knows.
VALUE_CLAIMS = ("left_with_cards",)


@dataclass(frozen=True, slots=True)
class ShoeRecord:
    """What the table knows of a round's cards and the shoe they came from."""

    round_id: str
    shoe_id: str
    #: the shoe was shuffled by the table, its order committed to (not keyed,
    #: not a recorded physical shoe)
    shuffled_by_table: bool
    #: every card of the round came out of that shoe (none keyed in)
    own: bool
    #: the round's cards as numbered out of the shoe (first, last; 0 for none)
    first: int = 0
    last: int = 0
    #: the round's cards in the order they came out of the device, where the
    #: table knows it (its own shoe, or a card-reading shoe); None elsewhere
    order: tuple[Card, ...] | None = None
    #: cards the device still holds (held cards included), where known
    left: int | None = None
    #: the table's own device deals every card, and none is keyed in or read
    #: from outside (:attr:`punto.table.shoe_state.ShoeState.sealed`)
    sealed: bool = False

    def words(self) -> str:
        cards = (
            f", cards {self.first}-{self.last}"
            + (f" ({format_cards(self.order)})" if self.order else "")
            if self.last
            else ", no card out yet"
        )
        source = "the table from" if self.shuffled_by_table else "its dealing device from"
        return f"round {self.round_id} was dealt by {source} shoe {self.shoe_id}{cards}"


def _clauses(game: Game, keys: tuple[str, ...]) -> set[str]:
    """The clauses ``game`` gives the rules of ``keys`` (those it has)."""
    return {c for key in keys if (c := game.clause(key)) is not None}


def check_claim(game: Game, record: ShoeRecord, event: Event, deal: Deal) -> None:
    """Refuse ``event`` if it claims what ``record`` disproves; ``deal``: the
    round's cards before it."""
    refuted: set[str] = set()
    together: set[str] = set()
    known: set[str] = set()
    if record.shuffled_by_table and record.own:
        refuted = _clauses(game, SHOE_CLAIMS)
        if record.sealed:
            refuted |= _clauses(game, ORDER_CLAIMS)
            together = _clauses(game, SIMULTANEOUS_CLAIMS)
            known = _clauses(game, VALUE_CLAIMS)
    dealt_on = game.clause("simultaneous_initial") if not game.clause("simultaneous") else None
    match event:
        case RoundVoided(clause=clause) | IrregularityNoted(clause=clause) if clause in refuted:
            raise RecordError(
                f"{record.words()}: a shoe the table shuffled itself holds the cards of its "
                "decks and no other, shuffled, and they came out in its order",
                clause=clause,
                hint="apply the procedure for what did happen, or settle the round on the "
                "cards dealt",
            )
        case RoundVoided(clause=clause) | IrregularityNoted(clause=clause) if (
            clause in together and (isinstance(event, RoundVoided) or clause != dealt_on)
        ):
            raise RecordError(
                f"{record.words()}: cards drawn together from the table's own shoe came out in "
                "the shoe's order, one after another, and the record holds that order: it is "
                "ascertained",
                clause=clause,
                hint="apply the procedure with the order known (the shoe's), and deal on"
                if dealt_on
                else "deal on: the next card is the shoe's next",
            )
        case IrregularityNoted(clause=clause) if clause in known:
            raise RecordError(
                f"{record.words()}: the table's own device dealt every card of the round and "
                "knows the value of each: none is missing",
                clause=clause,
                hint="the cards a player took are the cards the table dealt: settle the round "
                "on them",
            )
        case RoundVoided(clause=clause) if (
            clause == game.clause("insufficient_cards") and record.left is not None
        ):
            needed = 0 if deal.is_complete else cards_needed(deal.cards) - len(deal.cards)
            if record.left >= needed:
                raise RecordError(
                    f"shoe {record.shoe_id} holds {record.left} cards and round "
                    f"{record.round_id} needs {needed} more: there are cards enough",
                    clause=clause,
                    hint="deal on; the round is void only when the cards run out",
                )
        case CardsReconstructed(cards=cards, clause=clause) if record.order is not None:
            _check_order(record, cards, clause, deal)
        case _:
            pass


def _check_order(record: ShoeRecord, cards: tuple[Card, ...], clause: str, deal: Deal) -> None:
    """A reconstruction puts the cards in the order they came out of the
    device (MBS 5.7; RWS 1.24): where the table knows that order, in it and
    no other.  Cards drawn but never dealt come after the cards on the table,
    as they came out (their order is the shoe's: checked by the shoe)."""
    assert record.order is not None
    on_table = tuple(deal.cards)
    drawn = list(cards)
    for card in on_table:
        if card in drawn:
            drawn.remove(card)
    known = (*record.order, *drawn) if on_table == record.order else None
    if known is not None and tuple(cards) == known:
        return
    raise RecordError(
        f"{record.words()}: a reconstruction puts the cards in the order they came out "
        f"of the shoe, and {format_cards(cards)} is not that order",
        clause=clause,
        hint="the cards are already where the Table of Play puts them in the shoe's order"
        if known == on_table
        else f"reconstruct them as {format_cards(known or record.order)}",
    )
