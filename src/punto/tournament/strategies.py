"""Automated entrants: simple, recognisable ways people bet in a tournament.

A strategy sees a :class:`HandView` (its chips, the hand, the limits, the
chips of its rivals at the table) and answers with bets in tournament chips,
or None to sit the hand out.  The live runner and the fast simulation ask
the same strategies the same question, so the analysis shows how these
players fare under a format.

>>> import random
>>> view = HandView(chips=100000, hand=26, hands=30, min_bet=1000, max_bet=50000,
...                 chip_unit=500, hands_bet=20, required=20, advance=2,
...                 rivals=(140000, 120000, 90000), wagers=("banker", "player", "tie"),
...                 starting_chips=100000, rng=random.Random(1))
>>> view.cut_chips, view.must_bet
(120000, False)
>>> STRATEGIES["banker"].bets(view), STRATEGIES["catchup"].bets(view)
([('banker', 5000)], [('player', 10500)])
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class HandView:
    """What an entrant knows when it is asked to bet."""

    chips: int
    #: this hand's number and the session's number of hands
    hand: int
    hands: int
    min_bet: int
    max_bet: int | None
    chip_unit: int
    hands_bet: int
    #: hands this entrant must bet in the session (T5.2)
    required: int
    #: places that advance from the table (1 in the final: the winner)
    advance: int
    #: chips of the other entrants still betting at the table, highest first
    rivals: tuple[int, ...]
    wagers: tuple[str, ...]
    starting_chips: int
    rng: random.Random

    @property
    def remaining(self) -> int:
        """Hands after this one."""
        return self.hands - self.hand

    @property
    def must_bet(self) -> bool:
        return self.hands_bet + self.remaining < self.required

    @property
    def cut_chips(self) -> int | None:
        """The chips of the rival holding the last advancing place, if there is one."""
        return self.rivals[self.advance - 1] if len(self.rivals) >= self.advance else None

    @property
    def limit(self) -> int:
        """The most this entrant may bet on a hand."""
        return self.chips if self.max_bet is None else min(self.max_bet, self.chips)

    def stake(self, amount: int) -> int:
        """``amount`` rounded up to a whole chip and held within the limits."""
        unit = self.chip_unit
        wanted = -(-amount // unit) * unit
        top = self.limit // unit * unit
        return max(self.min_bet, min(wanted, top))


class Strategy(Protocol):
    name: str
    description: str

    def bets(self, view: HandView) -> list[tuple[str, int]] | None:
        """Bets for this hand, or None to sit it out."""
        ...

    def tiebreak(self, rng: random.Random) -> str:
        """'banker' or 'player' for a sudden-death hand."""
        ...


class AlwaysBanker:
    name = "banker"
    description = "always Banker, 5% of the starting chips"

    def bets(self, view: HandView) -> list[tuple[str, int]] | None:
        return [("banker", view.stake(view.starting_chips // 20))]

    def tiebreak(self, rng: random.Random) -> str:
        return "banker"


class FlatBettor:
    name = "flat"
    description = "5% of the starting chips on Banker or Player at random"

    def bets(self, view: HandView) -> list[tuple[str, int]] | None:
        side = "banker" if view.rng.random() < 0.5 else "player"
        return [(side, view.stake(view.starting_chips // 20))]

    def tiebreak(self, rng: random.Random) -> str:
        return "banker" if rng.random() < 0.5 else "player"


class CatchUp:
    name = "catchup"
    description = (
        "sits out or bets the minimum while in an advancing place; behind, bets what it "
        "takes to pass the last advancing rival, on Tie when a 1:1 win cannot"
    )

    def bets(self, view: HandView) -> list[tuple[str, int]] | None:
        cut = view.cut_chips
        if cut is None or view.chips > cut:
            return [("banker", view.min_bet)] if view.must_bet else None
        gap = cut - view.chips + view.chip_unit
        left = view.remaining + 1
        if gap > view.limit and "tie" in view.wagers:
            return [("tie", view.stake(-(-gap // 8)))]
        if left <= 3:
            return [("player", view.stake(gap))]
        return [("player", view.stake(max(view.min_bet, gap // 2)))]

    def tiebreak(self, rng: random.Random) -> str:
        return "banker" if rng.random() < 0.5 else "player"


class PairHunter:
    name = "pairs"
    description = "2% of the starting chips on Player Pair or Banker Pair (11:1) at random"

    def bets(self, view: HandView) -> list[tuple[str, int]] | None:
        pairs = [w for w in ("player_pair", "banker_pair") if w in view.wagers]
        if not pairs:
            return [("banker", view.stake(view.starting_chips // 50))]
        return [(view.rng.choice(pairs), view.stake(view.starting_chips // 50))]

    def tiebreak(self, rng: random.Random) -> str:
        return "banker" if rng.random() < 0.5 else "player"


#: The automated entrants, by name.
STRATEGIES: dict[str, Strategy] = {
    s.name: s for s in (AlwaysBanker(), FlatBettor(), CatchUp(), PairHunter())
}
