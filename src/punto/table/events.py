"""The events of a round: immutable records, appended, never changed.

A round's state is a fold over its events (:mod:`punto.table.round`), so a
round can be replayed, audited and restored after a crash.  Every event has a
JSON form that round-trips.

>>> event = BetPlaced("b1", "ann", 3, "banker", Decimal("100"))
>>> event_from_json(event_to_json(event)) == event
True
>>> event_to_json(CardDealt(Card.parse("QH")))
{'type': 'card_dealt', 'card': 'QH', 'source': 'shoe'}
>>> fixed = CardsReconstructed((Card.parse("QH"), Card.parse("9C")), "5.7")
>>> event_from_json(event_to_json(fixed)) == fixed
True
>>> event_to_json(CardsHeld((Card.parse("4D"),), "5.8"))
{'type': 'cards_held', 'cards': ['4D'], 'clause': '5.8', 'role': 'dealer'}
"""

from __future__ import annotations

import dataclasses
import enum
from decimal import Decimal
from typing import Any, ClassVar

from punto.errors import PuntoError
from punto.eventlog import LogConflictError, Stream
from punto.rules.cards import Card
from punto.rules.coup import Side
from punto.rules.insurance import Moment
from punto.rules.records import RecordCodec
from punto.table.roles import Role


class EventError(PuntoError):
    """An event record that cannot be read."""


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"


_CODEC: RecordCodec[Event] = RecordCodec(Event, EventError, "event")
_event = _CODEC.register
#: Every table event type, by name.
EVENT_TYPES = _CODEC.types
#: A table's stream in an event log (:mod:`punto.eventlog`): its events carry their round.
TABLE_STREAM: Stream[Event] = Stream("table", _CODEC, LogConflictError, rounds=True)


@_event("round_opened")
@dataclasses.dataclass(frozen=True, slots=True)
class RoundOpened(Event):
    """'Place your bets, please' (3.1): betting is open."""

    round_id: str
    role: Role = Role.DEALER


@_event("bet_placed")
@dataclasses.dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    """A wager on a playing area; ``role`` other than player: placed on the
    player's behalf at their request (3.8, RWS 5.18)."""

    bet_id: str
    player: str
    position: int
    wager: str
    stake: Decimal
    seated: bool = True
    role: Role = Role.PLAYER


@_event("bet_withdrawn")
@dataclasses.dataclass(frozen=True, slots=True)
class BetWithdrawn(Event):
    """A wager taken back before 'No more bets'."""

    bet_id: str
    role: Role = Role.PLAYER


@_event("bet_reduced")
@dataclasses.dataclass(frozen=True, slots=True)
class BetReduced(Event):
    """A wager decreased or removed (stake 0) to meet the differential
    (MBS 5.18.1, 5.18.3; RWS 5.1 rejecting the excess)."""

    bet_id: str
    stake: Decimal
    role: Role
    clause: str


@_event("bets_closed")
@dataclasses.dataclass(frozen=True, slots=True)
class BetsClosed(Event):
    """'No more bets' (3.2)."""

    role: Role = Role.DEALER


@_event("card_dealt")
@dataclasses.dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """The next card, to whichever hand the Table of Play says.

    ``source`` says where it came from: ``shoe`` (the table's own shoe),
    ``reconstructed`` / ``simultaneous`` (out of the dealing device during
    an irregularity), ``held`` (held over from the previous round,
    :class:`CardsHeld`), ``set_aside`` / ``table`` / ``replacement`` (MBS
    5.11), or ``keyed`` / ``device`` (keyed in or read from a physical shoe)."""

    card: Card
    source: str = "shoe"


#: Every ``CardDealt.source`` the engine and the tables write (its docstring
#: says what each means); a card action naming any other is refused.
CARD_SOURCES = frozenset(
    {"shoe", "reconstructed", "simultaneous", "held", "set_aside", "table", "replacement"}
    | {"keyed", "device"}
)


@_event("insurance_placed")
@dataclasses.dataclass(frozen=True, slots=True)
class InsurancePlaced(Event):
    """An Insurance Plus bet at one of the two moments (RWS 3.11, 3.12)."""

    bet_id: str
    player: str
    position: int
    wager: str
    stake: Decimal
    moment: Moment
    seated: bool = True
    role: Role = Role.PLAYER


@_event("insurance_waived")
@dataclasses.dataclass(frozen=True, slots=True)
class InsuranceWaived(Event):
    """Insurance after the Player's third card waived for the round (RWS 3.14)."""

    reason: str
    role: Role = Role.DEALER


@_event("power_failed")
@dataclasses.dataclass(frozen=True, slots=True)
class PowerFailed(Event):
    """A power failure or other technical interruption (MBS 5.17; RWS 5.4)."""

    role: Role = Role.DEALER


@_event("withdrawal_offered")
@dataclasses.dataclass(frozen=True, slots=True)
class WithdrawalOffered(Event):
    """Players may withdraw their wagers still undecided, for the reason the
    clause gives (a clause of the game's ``[grants.withdrawal]``)."""

    clause: str
    reason: str
    role: Role = Role.DEALER


@_event("player_withdrew")
@dataclasses.dataclass(frozen=True, slots=True)
class PlayerWithdrew(Event):
    """A player takes the withdrawal option: all their wagers still undecided
    when it is written are returned; those the cards decided settle."""

    player: str
    role: Role = Role.PLAYER


@_event("withdrawal_closed")
@dataclasses.dataclass(frozen=True, slots=True)
class WithdrawalClosed(Event):
    """The withdrawal option is over; the others play on."""

    role: Role = Role.DEALER


@_event("round_voided")
@dataclasses.dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """The round is void: every bet returned; previous rounds stand (5.1)."""

    reason: str
    clause: str
    role: Role = Role.DEALER


@_event("cards_reconstructed")
@dataclasses.dataclass(frozen=True, slots=True)
class CardsReconstructed(Event):
    """The cards of the coup put back in their intended order (5.7, 5.8;
    RWS 1.24, 5.8, 5.9): the deal is replaced by these cards in shoe order."""

    cards: tuple[Card, ...]
    clause: str
    role: Role = Role.DEALER


@_event("cards_held")
@dataclasses.dataclass(frozen=True, slots=True)
class CardsHeld(Event):
    """Cards that came out of the dealing device this round but that the
    coup does not use: they are used, in the order they came out, first in
    the next round of play (RWS 5.8; the MBS reconstructions of 5.7 and 5.8
    likewise -- see docs/interpretations.md)."""

    cards: tuple[Card, ...]
    clause: str
    role: Role = Role.DEALER


@_event("betting_reopened")
@dataclasses.dataclass(frozen=True, slots=True)
class BettingReopened(Event):
    """After a dealing-device reset, players may wager again before 'No more
    bets' is announced again (MBS 5.9)."""

    clause: str
    role: Role = Role.DEALER


@_event("irregularity_noted")
@dataclasses.dataclass(frozen=True, slots=True)
class IrregularityNoted(Event):
    """An irregularity recorded with its clause and what was done: one after
    which play continues (MBS 5.6, 5.7.1, 5.10, 5.11), or a decision taken
    with its reason (MBS 6.1; RWS 5.19)."""

    clause: str
    reason: str
    role: Role = Role.DEALER


@_event("bet_returned")
@dataclasses.dataclass(frozen=True, slots=True)
class BetReturned(Event):
    """One bet returned after 'No more bets': the Original Bet of a player
    who had meant to insure it (RWS 5.14.2), or a Shift Manager's decision."""

    bet_id: str
    clause: str
    reason: str
    role: Role = Role.PIT_MANAGER


@_event("ruling_claimed")
@dataclasses.dataclass(frozen=True, slots=True)
class RulingClaimed(Event):
    """A ruling that would move money after 'No more bets', filed by one
    person and waiting for another's confirmation (MBS 6.2): the round waits
    until it is confirmed (:class:`ClaimConfirmed`) or rejected
    (:class:`ClaimRejected`).  ``parameters`` is the procedure's parameters as
    filed (JSON text), so that the confirmation applies exactly what was
    claimed; ``confirming`` the lowest position that may confirm it."""

    claim_id: str
    procedure: str
    parameters: str
    clause: str
    by: str
    confirming: Role
    role: Role = Role.DEALER


@_event("claim_confirmed")
@dataclasses.dataclass(frozen=True, slots=True)
class ClaimConfirmed(Event):
    """A second person confirmed the pending claim: its procedure's events follow."""

    claim_id: str
    by: str
    role: Role


@_event("claim_rejected")
@dataclasses.dataclass(frozen=True, slots=True)
class ClaimRejected(Event):
    """The pending claim was rejected (or withdrawn by whoever filed it):
    nothing moves and the round goes on."""

    claim_id: str
    by: str
    reason: str
    role: Role


@_event("insurance_reoffered")
@dataclasses.dataclass(frozen=True, slots=True)
class InsuranceReoffered(Event):
    """RWS 5.14.1: the Dealer neglected to offer Insurance at ``moment``; a
    Pit Manager offers it now to the affected players, at that moment's odds,
    the total payout capped at the Original Bet.  The next card closes it."""

    moment: Moment
    players: tuple[str, ...]
    clause: str
    role: Role = Role.PIT_MANAGER


@_event("shoe_started")
@dataclasses.dataclass(frozen=True, slots=True)
class ShoeStarted(Event):
    """A new shoe: its order is logged (with the commitment published to
    players) so that a restart resumes the very same shoe.  ``clause`` is
    empty for an ordinary new shoe, or the clause under which the cards
    were replaced (MBS 5.11.5, 5.12.2, 5.13; RWS 5.11.2) and ``role`` who
    decided it.  Cards held for the next round go with the old shoe.

    ``cards`` is empty for a shoe whose order was not recorded (a replay of
    a table that kept no record of it): ``decks`` then says how many decks
    it holds, and only their composition can be checked."""

    shoe_id: str
    cards: tuple[Card, ...]
    cut_card: int | None
    commitment: str
    nonce: str
    clause: str = ""
    role: Role = Role.DEALER
    #: the decks of a shoe whose order is not recorded (0: count the cards)
    decks: int = 0


@_event("table_configured")
@dataclasses.dataclass(frozen=True, slots=True)
class TableConfigured(Event):
    """The table's game, layout, reading of the pairs, shoe and limits, logged
    when the table starts and whenever they change; each round plays under the
    configuration in force when it opened."""

    game: str
    layout: str | None
    pair_rule: str
    decks: int
    cut_card_from_end: int
    insurance_offered: bool
    #: :meth:`punto.table.limits.TableLimits.to_json`, as JSON text
    limits: str
    #: an HLGA table: a cutting card that comes out first opens a withdrawal
    #: option (MBS 3.22.1; Dragon Tiger 3.17.1)
    hlga: bool = False
    #: an electronic dealing device is in use (MBS 5.9); a log written before
    #: the field was recorded came from a table dealing its own shuffled shoe
    electronic_device: bool = True
    #: the cards are dealt face down (RWS 5.10)
    face_down: bool = False


@_event("round_settled")
@dataclasses.dataclass(frozen=True, slots=True)
class RoundSettled(Event):
    """The dealer announced the outcome and settled every bet."""

    role: Role = Role.DEALER


# -- card handling (MBS 3.9-3.12) ---------------------------------------------------------
#
# Folded by :mod:`punto.table.handling`, not by the round: who handles the
# cards moves no money, but the audit shows who had which cards.


class Method(enum.Enum):
    """How a round is conducted (MBS 3.9): the Dealer passes the cards to
    the highest bettors to squeeze (A, 3.10), keeps them (B, 3.11), or a
    player draws from a card-reading device (C, 3.12)."""

    A = "A"
    B = "B"
    C = "C"


@dataclasses.dataclass(frozen=True, slots=True)
class HandlingEvent(Event):
    """Card handling: the Method, who squeezes which hand, who holds the device."""


@_event("method_chosen")
@dataclasses.dataclass(frozen=True, slots=True)
class MethodChosen(HandlingEvent):
    """The Method a round is conducted by, and who chose it (3.9.2: Pit
    Manager for A or B; Assistant Casino Manager for C, only in HLGA).  A
    live table logs the choice between rounds and records it again at the
    start of every round it governs."""

    method: Method
    role: Role
    clause: str
    #: the table is in HLGA (Method C is permitted only there)
    hlga: bool = False


@_event("cards_passed")
@dataclasses.dataclass(frozen=True, slots=True)
class CardsPassed(HandlingEvent):
    """Method A: a hand's cards passed face down to a player to squeeze,
    under the clause that picks them (3.10.2-3.10.5), or by a Pit
    Supervisor's or Pit Manager's discretion (3.10.4.1; 3.21 / Dragon Tiger
    3.16)."""

    side: Side
    player: str
    clause: str
    role: Role = Role.DEALER


@_event("cards_refused")
@dataclasses.dataclass(frozen=True, slots=True)
class CardsRefused(HandlingEvent):
    """The player the cards were passed to refuses them (3.10.3, 3.10.5)."""

    side: Side
    player: str
    clause: str
    role: Role = Role.PLAYER


@_event("draw_allowed")
@dataclasses.dataclass(frozen=True, slots=True)
class DrawAllowed(HandlingEvent):
    """Method C: an Assistant Casino Manager lets a player draw from the
    device without having placed a valid wager (3.12.2)."""

    player: str
    clause: str
    role: Role = Role.ASSISTANT_CASINO_MANAGER


@_event("device_taken")
@dataclasses.dataclass(frozen=True, slots=True)
class DeviceTaken(HandlingEvent):
    """Method C: a player accepts the dealing device (3.12.1), or keeps it
    from the previous round (``clause`` 3.12.8)."""

    player: str
    clause: str
    role: Role = Role.PLAYER


@_event("device_relinquished")
@dataclasses.dataclass(frozen=True, slots=True)
class DeviceRelinquished(HandlingEvent):
    """Method C: the holder gives up control of the device (3.12.8.1)."""

    player: str
    clause: str
    role: Role = Role.PLAYER


@_event("device_lost")
@dataclasses.dataclass(frozen=True, slots=True)
class DeviceLost(HandlingEvent):
    """Method C: the holder's wager lost; control of the device ends (3.12.8.2)."""

    player: str
    clause: str
    role: Role = Role.DEALER


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON form of an event: ``type`` and its fields."""
    return _CODEC.to_json(event)


def event_from_json(data: dict[str, Any]) -> Event:
    """The event a JSON form describes; a wrong field is refused with its path."""
    return _CODEC.from_json(data)
