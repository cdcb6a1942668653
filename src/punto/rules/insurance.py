"""Insurance Plus (Tiger Buffalo 3.11-3.14, 4.1.15, 4.2): offers, caps, settlement.

An Insurance bet insures an Original Bet on one hand and is paid at the
printed odds when that hand loses.  Offers open at two moments: after the
four cards of the initial deal, and after the Player's third card.  A row of
the pay table is an offer only while the coup is undecided: the engine never
offers a bet whose outcome the cards already tell.

>>> from punto.rules.games import get_game
>>> from punto.rules.cards import parse_cards
>>> table = get_game("tiger-buffalo").insurance
>>> [str(o) for o in table.offers(Deal(parse_cards("3H 4C 2D KS")))]
['player insurance after four cards: Player 5 v Banker 4, 3 to 2']
>>> for offer in table.offers(Deal(parse_cards("3H 4C 2D KS 3S"))):
...     print(offer)
player insurance after the Player's third card: Player 8 v Banker 4, 10 to 1
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from punto.errors import GameDataError, InsuranceError
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Coup, Deal, Side, Winner
from punto.rules.odds import Pays


class Moment(enum.Enum):
    """When an Insurance offer is made (4.1.15)."""

    FOUR_CARDS = "four_cards"
    PLAYER_THIRD_CARD = "player_third_card"

    @property
    def cards(self) -> int:
        """Cards on the table at this moment."""
        return 4 if self is Moment.FOUR_CARDS else 5

    @property
    def words(self) -> str:
        return "after four cards" if self is Moment.FOUR_CARDS else "after the Player's third card"


@dataclass(frozen=True, slots=True)
class InsuranceRow:
    """One row of the Baccarat Insurance Plus Pay Table."""

    insures: Side
    moment: Moment
    hand: frozenset[int]  # the insured hand's points
    other: frozenset[int]  # the other hand's points
    pays: Pays
    tie_pays: bool  # the 4.2.1 exceptions: a Tie pays instead of pushing
    clause: str


@dataclass(frozen=True, slots=True)
class InsuranceOffer:
    """A live offer: a row of the table matched by the cards on the table."""

    row: InsuranceRow
    hand_points: int
    other_points: int

    @property
    def insures(self) -> Side:
        return self.row.insures

    @property
    def moment(self) -> Moment:
        return self.row.moment

    @property
    def odds(self) -> Fraction:
        assert self.row.pays.odds is not None
        return self.row.pays.odds

    def __str__(self) -> str:
        side = self.insures.value
        p, b = (
            (self.hand_points, self.other_points)
            if self.insures is Side.PLAYER
            else (self.other_points, self.hand_points)
        )
        return f"{side} insurance {self.moment.words}: Player {p} v Banker {b}, {self.row.pays}"


@dataclass(frozen=True)
class InsuranceTable:
    """The pay table and the stake caps of 3.12.2."""

    rows: tuple[InsuranceRow, ...]
    #: the share of the table maximum that 10 to 1 insurance may not exceed
    ten_to_one_share: Fraction
    cap_clause: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any], source: str) -> InsuranceTable:
        rows = []
        try:
            for entry in data["offers"]:
                pays = Pays.parse(str(entry["pays"]))
                if pays.is_push:
                    raise GameDataError(f"{source}: an insurance offer cannot be a push")
                rows.append(
                    InsuranceRow(
                        insures=Side(entry["insures"]),
                        moment=Moment(entry["moment"]),
                        hand=_points(str(entry["hand"])),
                        other=_points(str(entry["other"])),
                        pays=pays,
                        tie_pays=bool(entry.get("tie_pays", False)),
                        clause=str(entry["clause"]),
                    )
                )
            return cls(
                tuple(rows), Fraction(str(data["ten_to_one_share"])), str(data["cap_clause"])
            )
        except KeyError as missing:
            raise GameDataError(f"{source}: insurance entry lacks {missing}") from None

    def offers(self, deal: Deal) -> list[InsuranceOffer]:
        """The offers open on this deal, if it stands at one of the two moments."""
        moment = moment_of(deal)
        if moment is None:
            return []
        found = []
        for row in self.rows:
            if row.moment is not moment:
                continue
            hand = deal.player if row.insures is Side.PLAYER else deal.banker
            other = deal.banker if row.insures is Side.PLAYER else deal.player
            if hand.total in row.hand and other.total in row.other:
                offer = InsuranceOffer(row, hand.total, other.total)
                if len({insurance_event(c, offer) for c in completions(deal)}) > 1:
                    found.append(offer)
        return found

    def offer(self, deal: Deal, insures: Side) -> InsuranceOffer:
        """The offer on ``insures`` for this deal, or why there is none."""
        for offer in self.offers(deal):
            if offer.insures is insures:
                return offer
        moment = moment_of(deal)
        when = moment.words if moment else f"after {len(deal.cards)} cards"
        raise InsuranceError(
            f"no {insures.value} insurance is offered {when} with Player {deal.player.total} "
            f"v Banker {deal.banker.total}",
            clause="4.1.15",
            hint="insurance is offered only on the rows of the Insurance Plus Pay Table, "
            "and only while the coup is undecided",
        )

    def max_stake(
        self,
        offer: InsuranceOffer,
        original_bet: Decimal,
        already: Decimal = Decimal(0),
        table_maximum: Decimal | None = None,
    ) -> Decimal:
        """The most that may still be staked on ``offer`` (3.12.2).

        The insurance bets on a hand at one moment together may not exceed
        the Original Bet on it; at 10 to 1 they may not exceed a quarter of
        the table maximum either.  ``already`` is what is staked on insurance
        of this hand at this moment so far.
        """
        cap = original_bet
        if offer.odds == 10 and table_maximum is not None:
            cap = min(
                cap,
                table_maximum
                * Decimal(self.ten_to_one_share.numerator)
                / Decimal(self.ten_to_one_share.denominator),
            )
        return max(Decimal(0), cap - already)


def moment_of(deal: Deal) -> Moment | None:
    """The insurance moment a deal stands at, if any."""
    if deal.is_complete:
        return None
    if len(deal.cards) == 4:
        return Moment.FOUR_CARDS
    if len(deal.cards) == 5 and deal.player.card_count == 3:
        return Moment.PLAYER_THIRD_CARD
    return None


def insurance_event(coup: Coup, offer: InsuranceOffer) -> str | None:
    """How an Insurance bet on ``offer`` ends: ``hand_loses`` (paid at the
    odds), ``tie_paid`` (a 4.2.1 exception, paid at the odds), ``tie``
    (returned), or None when the insured hand wins (the bet loses)."""
    if coup.winner is Winner.TIE:
        return "tie_paid" if offer.row.tie_pays else "tie"
    insured_won = coup.winner.value == offer.insures.value
    return None if insured_won else "hand_loses"


#: The events of an Insurance bet and whether each pays the offer's odds.
INSURANCE_EVENTS: dict[str, bool] = {"hand_loses": True, "tie_paid": True, "tie": False}


def completions(deal: Deal) -> Iterable[Coup]:
    """Every way the coup can still end, one card of each point value at a time.

    Only point values matter once the four cards of the initial deal are out,
    so a Ten of Spades stands for every zero-value card.
    """
    if deal.is_complete:
        yield deal.to_coup()
        return
    for card in VALUE_CARDS:
        yield from completions(deal.add(card))


#: One card of each point value 0-9.
VALUE_CARDS: Sequence[Card] = tuple(
    Card(Rank.TEN if v == 0 else Rank(v), Suit.SPADES) for v in range(10)
)


def _points(text: str) -> frozenset[int]:
    """``"0-5"`` or ``"4"`` -> the set of points."""
    low, _, high = text.partition("-")
    return frozenset(range(int(low), int(high or low) + 1))
