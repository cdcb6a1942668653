"""The state of a round: its phases, its bets and how each ended, and the state
the fold of its events builds (:class:`punto.table.round.Round`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from punto.rules.cards import Card
from punto.rules.coup import Deal, Side
from punto.rules.game import Game
from punto.rules.insurance import Moment
from punto.table.events import (
    BettingReopened,
    CardDealt,
    CardsReconstructed,
    Event,
    InsuranceReoffered,
    IrregularityNoted,
    RoundVoided,
    RulingClaimed,
    WithdrawalOffered,
)


class Phase(enum.Enum):
    NEW = "new"
    BETTING = "betting"
    DEALING = "dealing"
    RESULT = "result"
    SETTLED = "settled"
    VOID = "void"


#: The wagers of the Original Bet (RWS 1.16): the Player and Banker hands.
ORIGINAL_BETS = frozenset({Side.PLAYER.value, Side.BANKER.value})

#: The phases in which a round is in play (opened, not yet settled or void).
IN_PLAY = (Phase.BETTING, Phase.DEALING, Phase.RESULT)


@dataclass(frozen=True, slots=True)
class TableBet:
    """A wager on the layout: whose, where, and what became of it."""

    bet_id: str
    player: str
    position: int
    wager: str
    stake: Decimal
    seated: bool = True
    moment: Moment | None = None
    order: int = 0
    #: "active", "withdrawn" (before No more bets), "returned" (an option or a void)
    status: str = "active"
    #: the clause under which it was withdrawn, reduced away or returned
    clause: str | None = None
    #: an Insurance bet placed on a neglected offer made again (RWS 5.14.1)
    late: bool = False


@dataclass(frozen=True, slots=True)
class BetSettlement:
    """How one bet ended.  ``settled_stake`` is the stake it won or lost on
    after the limit policies (5.14, 5.15; RWS 5.1)."""

    bet: TableBet
    outcome: str  # win / lose / push / returned / withdrawn / void
    event: str | None
    settled_stake: Decimal
    net: Decimal
    clause: str | None = None
    #: the pay line it settled on (``0.95 to 1``, an Insurance offer's odds),
    #: as :func:`punto.rules.settlement.settle` gave it; None where none applied
    pays: str | None = None


@dataclass
class RoundState:
    """What the fold of a round's events has built so far."""

    phase: Phase = Phase.NEW
    round_id: str = ""
    bets: dict[str, TableBet] = field(default_factory=dict)
    #: the ids of the bets placed in each area (position, wager), in order: a
    #: bet's limits are its area's, and scanning every bet of the round for
    #: each new one made a round's bets cost their number squared
    areas: dict[tuple[int, str], list[str]] = field(default_factory=dict)
    deal: Deal = field(default_factory=Deal)
    withdrawal: WithdrawalOffered | None = None
    withdrawn_players: set[str] = field(default_factory=set)
    insurance_waived: bool = False
    late_insurance: InsuranceReoffered | None = None
    power_failed: bool = False
    irregularities: list[IrregularityNoted] = field(default_factory=list)
    void: RoundVoided | None = None
    orders: int = 0
    held: tuple[Card, ...] = ()
    #: a ruling filed and not yet confirmed or rejected: the round waits for it
    claim: RulingClaimed | None = None


def deal_after(deal: Deal, event: Event) -> Deal:
    """The cards of a round once ``event`` is applied to ``deal``: a card dealt,
    the cards reconstructed (MBS 5.7, 5.8; RWS 5.8), or the deal set aside when
    betting reopens (MBS 5.9); any other event leaves them as they are."""
    match event:
        case CardDealt(card=card):
            return deal.add(card)
        case CardsReconstructed(cards=cards):
            return Deal(cards)
        case BettingReopened():
            return Deal()
        case _:
            return deal


#: A win paid 0.95 to 1 is an even-money win less a 5% commission.
COMMISSION_ODDS = Fraction(19, 20)


def commission_taken(game: Game, results: Iterable[BetSettlement]) -> Decimal:
    """The commission taken from the wins among ``results`` (a round's, of
    ``game``): on each win paid 0.95 to 1, the stake less what it won."""
    total = Decimal(0)
    for s in results:
        if s.outcome != "win" or s.event is None:
            continue
        wager = game.wagers.get(s.bet.wager)
        pays = wager.pays.get(s.event) if wager else None
        if pays is not None and pays.odds == COMMISSION_ODDS:
            total += s.settled_stake - s.net
    return total
