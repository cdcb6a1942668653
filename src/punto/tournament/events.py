"""The events of a tournament: immutable records, appended, never changed.

A tournament's state is a fold over its events (:mod:`punto.tournament.tournament`),
so it can be replayed, audited and resumed after a crash.  Every event has a
JSON form that round-trips, like the table events of
:mod:`punto.table.events`; the tournament keeps its own list of types
(``tournament_*`` names never clash with table events).

>>> event = BetsPlaced(1, 2, 7, "e3", (BetLine("banker", 5000),))
>>> event_to_json(event)
{'type': 'bets_placed', 'session': 1, 'table': 2, 'hand': 7, 'entrant': 'e3', 'bets': [{'wager': 'banker', 'stake': 5000}]}
>>> event_from_json(event_to_json(event)) == event
True
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from punto.eventlog import Stream
from punto.rules.records import RecordCodec
from punto.tournament.errors import TournamentLogError


@dataclasses.dataclass(frozen=True, slots=True)
class TournamentEvent:
    type: ClassVar[str] = "tournament_event"


_CODEC: RecordCodec[TournamentEvent] = RecordCodec(
    TournamentEvent, TournamentLogError, "tournament event"
)
_event = _CODEC.register
#: Every tournament event type, by name.
EVENT_TYPES = _CODEC.types
#: A tournament's stream in an event log (:mod:`punto.eventlog`); a writer
#: behind another is refused with :class:`TournamentLogError`.
TOURNAMENT_STREAM: Stream[TournamentEvent] = Stream("tournament", _CODEC, TournamentLogError)


# -- records inside events -----------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class SeatDraw:
    """An entrant's seat for a session (T3)."""

    entrant: str
    table: int
    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class BetLine:
    """A stake in tournament chips on one wager."""

    wager: str
    stake: int


@dataclasses.dataclass(frozen=True, slots=True)
class Stack:
    """An entrant's chips."""

    entrant: str
    chips: int


@dataclasses.dataclass(frozen=True, slots=True)
class Penalty:
    """Chips deducted from an entrant who had to bet and did not (T5.3)."""

    entrant: str
    chips: int


@dataclasses.dataclass(frozen=True, slots=True)
class HandResult:
    """One entrant's result in a hand: staked, net (won or lost), chips after."""

    entrant: str
    staked: int
    net: int
    chips: int


@dataclasses.dataclass(frozen=True, slots=True)
class TiebreakResult:
    """One tied entrant's sudden-death bet and what it netted (chips unaffected)."""

    entrant: str
    wager: str
    net: int


@dataclasses.dataclass(frozen=True, slots=True)
class Refund:
    """An entrant's entry fees given back (money, as text)."""

    entrant: str
    amount: str


@dataclasses.dataclass(frozen=True, slots=True)
class Placing:
    """A final place and its prize (money, as text)."""

    entrant: str
    place: int
    prize: str


# -- the events --------------------------------------------------------------------------


@_event("tournament_created")
@dataclasses.dataclass(frozen=True, slots=True)
class TournamentCreated(TournamentEvent):
    """The tournament and its format (the format's data, as JSON text, so a
    resumed tournament plays by the format it started with).  ``seed`` is
    the given seed, or one drawn from the OS when ``seeded`` is false."""

    tournament_id: str
    format_id: str
    format_data: str
    seed: str
    seeded: bool
    tables: int
    #: a live tournament (run by the server's clock): each hand's betting
    #: window and the pause between hands, in milliseconds; 0: not live
    betting_ms: int = 0
    pause_ms: int = 0


@_event("entrant_registered")
@dataclasses.dataclass(frozen=True, slots=True)
class EntrantRegistered(TournamentEvent):
    """An entrant; a late entrant (T2.2) comes with the seat drawn and the
    hands of the session already dealt at that table.  ``wallet``: the
    ledger wallet the entry fee came from and prizes go to (a player who
    registered themselves); ``fee``: the entry fee paid (money, as text),
    in the same database transaction as this event."""

    entrant: str
    name: str
    controller: str
    table: int | None = None
    seat: int | None = None
    hands_missed: int = 0
    wallet: str | None = None
    fee: str | None = None


@_event("entrant_withdrawn")
@dataclasses.dataclass(frozen=True, slots=True)
class EntrantWithdrawn(TournamentEvent):
    """An entrant takes their entry back before the first session starts;
    ``refund``: the entry fee given back to their wallet (money, as text), in
    the same database transaction as this event."""

    entrant: str
    refund: str | None = None


@_event("entrant_reentered")
@dataclasses.dataclass(frozen=True, slots=True)
class EntrantReentered(TournamentEvent):
    """An entrant out of chips buys a new starting stack (T2.3); ``fee``:
    the entry fee paid again for it (money, as text), if any."""

    entrant: str
    entry: int
    chips: int
    fee: str | None = None


@_event("session_started")
@dataclasses.dataclass(frozen=True, slots=True)
class SessionStarted(TournamentEvent):
    """Seats drawn for a session (T3.1, T3.2) and each entrant's chips (T6.4)."""

    session: int
    tables: int
    seats: tuple[SeatDraw, ...]
    chips: tuple[Stack, ...]


@_event("shoe_started")
@dataclasses.dataclass(frozen=True, slots=True)
class ShoeStarted(TournamentEvent):
    """A new shoe at a table; its order is logged with the published commitment."""

    session: int
    table: int
    shoe: int
    cards: str
    cut_card: int
    commitment: str
    nonce: str


@_event("hand_opened")
@dataclasses.dataclass(frozen=True, slots=True)
class HandOpened(TournamentEvent):
    """'Place your bets, please' (rules 3.1); ``remaining`` hands after this
    one, announced once it is within the format's last hands (T5.4)."""

    session: int
    table: int
    hand: int
    remaining: int


@_event("bets_placed")
@dataclasses.dataclass(frozen=True, slots=True)
class BetsPlaced(TournamentEvent):
    """An entrant's bets on a hand, placed together (T4)."""

    session: int
    table: int
    hand: int
    entrant: str
    bets: tuple[BetLine, ...]


@_event("bets_withdrawn")
@dataclasses.dataclass(frozen=True, slots=True)
class BetsWithdrawn(TournamentEvent):
    """An entrant takes back their bets before 'No more bets' (T4.6)."""

    session: int
    table: int
    hand: int
    entrant: str


@_event("hand_passed")
@dataclasses.dataclass(frozen=True, slots=True)
class HandPassed(TournamentEvent):
    """An entrant sits a hand out (T5.2)."""

    session: int
    table: int
    hand: int
    entrant: str


@_event("betting_closed")
@dataclasses.dataclass(frozen=True, slots=True)
class BettingClosed(TournamentEvent):
    """'No more bets' (rules 3.2); penalties for missed hands (T5.3)."""

    session: int
    table: int
    hand: int
    penalties: tuple[Penalty, ...] = ()


@_event("hand_settled")
@dataclasses.dataclass(frozen=True, slots=True)
class HandSettled(TournamentEvent):
    """The coup dealt from the table's shoe and every entrant's bets settled."""

    session: int
    table: int
    hand: int
    cards: str
    winner: str
    results: tuple[HandResult, ...]


@_event("hand_voided")
@dataclasses.dataclass(frozen=True, slots=True)
class HandVoided(TournamentEvent):
    """The round of play is void (Baccarat Tournament 5.1-5.5): every bet on
    the hand is returned, and so is any penalty for not betting on it (T5.3);
    with ``settled`` (5.2, noticed before the next game) its results are
    undone.  ``chips``: every entrant of the table after the void.  ``cards``:
    the cards that came out of the shoe with the hand, discarded (empty for a
    settled hand, whose cards were drawn when it settled).  ``new_shoe``: the
    shoe's recorded order no longer describes the cards (a foreign card, an
    order altered beyond reconstruction, the cards run out): the next hand
    opens a new shoe.  The hand is dealt again under the same number."""

    session: int
    table: int
    hand: int
    clause: str
    reason: str
    role: str
    chips: tuple[Stack, ...]
    cards: str = ""
    settled: bool = False
    new_shoe: bool = False


@_event("hand_irregularity_noted")
@dataclasses.dataclass(frozen=True, slots=True)
class HandIrregularityNoted(TournamentEvent):
    """An irregularity of a hand in play that does not void it (the order of
    the cards reconstructed, 5.2 and 5.4; simultaneous cards whose order is
    known, 5.3): recorded, and the hand is dealt on as the shoe holds it."""

    session: int
    table: int
    hand: int
    clause: str
    reason: str
    role: str


@_event("tiebreak_opened")
@dataclasses.dataclass(frozen=True, slots=True)
class TiebreakOpened(TournamentEvent):
    """A sudden-death hand (T7.2) for entrants tied on chips where it matters."""

    session: int
    scope: str
    table: int
    entrants: tuple[str, ...]
    attempt: int
    reason: str


@_event("tiebreak_chosen")
@dataclasses.dataclass(frozen=True, slots=True)
class TiebreakChosen(TournamentEvent):
    """A tied entrant's side for the sudden-death hand."""

    session: int
    entrant: str
    wager: str


@_event("tiebreak_dealt")
@dataclasses.dataclass(frozen=True, slots=True)
class TiebreakDealt(TournamentEvent):
    """The sudden-death coup and each tied entrant's net on it."""

    session: int
    scope: str
    table: int
    cards: str
    winner: str
    results: tuple[TiebreakResult, ...]


@_event("tiebreak_voided")
@dataclasses.dataclass(frozen=True, slots=True)
class TiebreakVoided(TournamentEvent):
    """The sudden-death hand is void (rules 5.5: the shoe could not complete
    it): nobody is ordered by it, every card left is discarded, and the same
    sudden-death hand opens again from a new shoe."""

    session: int
    scope: str
    table: int
    clause: str
    reason: str
    cards: str = ""


@_event("tiebreak_lots")
@dataclasses.dataclass(frozen=True, slots=True)
class TiebreakLots(TournamentEvent):
    """Still tied after the format's sudden-death hands: lots drawn (T7.3)."""

    session: int
    scope: str
    order: tuple[str, ...]


@_event("session_ended")
@dataclasses.dataclass(frozen=True, slots=True)
class SessionEnded(TournamentEvent):
    """Who advances and who is eliminated (T6)."""

    session: int
    advancing: tuple[str, ...]
    eliminated: tuple[str, ...]


@_event("tournament_cancelled")
@dataclasses.dataclass(frozen=True, slots=True)
class TournamentCancelled(TournamentEvent):
    """The tournament called off before it finished.  ``refunds``: every
    entrant's entry fees (first entry and re-entries), given back to their
    wallets once this event is written, each once."""

    reason: str
    refunds: tuple[Refund, ...] = ()


@_event("tournament_finished")
@dataclasses.dataclass(frozen=True, slots=True)
class TournamentFinished(TournamentEvent):
    """Every entrant's final place and prize (T8)."""

    places: tuple[Placing, ...]


# -- JSON ----------------------------------------------------------------------------------


def event_to_json(event: TournamentEvent) -> dict[str, Any]:
    """The JSON form of an event: ``type`` and its fields, records nested."""
    return _CODEC.to_json(event)


def event_from_json(data: dict[str, Any]) -> TournamentEvent:
    """The event a JSON form describes; a wrong field is refused with its path."""
    return _CODEC.from_json(data)
