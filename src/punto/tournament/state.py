"""The state of a tournament as its events build it: the stage, each entrant,
each table and a tie-break (:class:`punto.tournament.tournament.Tournament`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal

from punto.rules.shoe import Shoe
from punto.tournament.events import (
    BetLine,
    HandIrregularityNoted,
    HandSettled,
    HandVoided,
    Penalty,
)

#: The sides a sudden-death hand is bet on (T7.2).
SUDDEN_DEATH_WAGERS = ("banker", "player")


class Stage(enum.Enum):
    REGISTRATION = "registration"
    PLAYING = "playing"
    BETWEEN = "between_sessions"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def over(self) -> bool:
        """Whether play has ended for good: finished (its prizes owed) or
        cancelled (its entry fees owed, T8.4)."""
        return self in (Stage.FINISHED, Stage.CANCELLED)


class Phase(enum.Enum):
    """Where a table stands in its session."""

    IDLE = "idle"  # between hands
    BETTING = "betting"  # 'Place your bets, please'
    CLOSED = "closed"  # 'No more bets': the coup is to be dealt
    DONE = "done"  # every hand of the session dealt


@dataclass
class EntrantState:
    id: str
    name: str
    controller: str
    entry: int = 1
    table: int | None = None
    seat: int | None = None
    chips: int = 0
    hands_bet: int = 0
    penalties: int = 0
    #: hands this entrant must bet this session (T5.2)
    required: int = 0
    late: bool = False
    #: in the session being played, or advanced to the next one
    active: bool = True
    eliminated_in: int | None = None
    #: chips at the end of each session played
    session_chips: dict[int, int] = field(default_factory=dict)
    #: the table played at in each session
    session_tables: dict[int, int] = field(default_factory=dict)
    place: int | None = None
    prize: Decimal | None = None
    #: the ledger wallet fees came from and prizes go to (None: off the ledger)
    wallet: str | None = None
    #: entry fees paid, money (the first entry and every re-entry)
    fees: Decimal = Decimal(0)


@dataclass
class TableState:
    number: int
    seats: dict[int, str] = field(default_factory=dict)
    phase: Phase = Phase.IDLE
    #: the hand being played, or the last one
    hand: int = 0
    settled: int = 0
    remaining: int = 0
    bets: dict[str, tuple[BetLine, ...]] = field(default_factory=dict)
    passed: set[str] = field(default_factory=set)
    shoe: Shoe | None = None
    shoes: int = 0
    commitment: str = ""
    last: HandSettled | None = None
    #: penalties of the hand being played or just settled (T5.3): a void returns them
    penalties: tuple[Penalty, ...] = ()
    #: the bets of the hand just settled (a void after settlement folds them, 5.2)
    settled_bets: dict[str, tuple[BetLine, ...]] = field(default_factory=dict)
    #: the last hand voided at this table (5.1-5.5), and the last irregularity
    #: of the hand in play that did not void it
    voided: HandVoided | None = None
    noted: HandIrregularityNoted | None = None

    @property
    def entrants(self) -> list[str]:
        return [self.seats[s] for s in sorted(self.seats)]


@dataclass
class TiebreakState:
    scope: str
    table: int
    entrants: tuple[str, ...]
    attempt: int
    reason: str
    choices: dict[str, str] = field(default_factory=dict)


def announcement(remaining: int, announce_last: int) -> str | None:
    """What the dealer announces before a hand with ``remaining`` hands after it (T5.4).

    >>> announcement(4, 5), announcement(0, 5), announcement(5, 5)
    ('Last 5 hands', 'Last hand', None)
    """
    left = remaining + 1
    if not announce_last or left > announce_last:
        return None
    return "Last hand" if left == 1 else f"Last {left} hands"


def chips_text(n: int) -> str:
    return f"{n:,}"
