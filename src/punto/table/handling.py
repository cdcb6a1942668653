"""Card handling: Methods A, B and C (MBS Tiger Baccarat and Dragon Tiger 3.9-3.12).

* **Method A** (3.10): the Dealer draws and passes each hand's cards face down
  to the player with the highest amount wagered on that hand, to squeeze.
  Equal highest: the one who placed it first (3.10.4); a refusal passes to
  the next equal highest, counter-clockwise (3.10.5), or, when nobody else
  bet as much, to the next highest amount (3.10.3).  Where none of this
  settles it, the Pit Supervisor decides (3.10.4.1).
* **Method B** (3.11): the Dealer keeps the cards; nobody squeezes.
* **Method C** (3.12): a player draws from a card-reading device and keeps
  control until relinquishing it or until their wager loses (3.12.8).  Only
  an Assistant Casino Manager allows it, and only in HLGA (3.9.2).

The Pit Manager chooses A or B before each round (3.9.2); the Dealer keeps
control of the device under A and B (3.9.1).

>>> from decimal import Decimal
>>> from punto.games import get_game
>>> from punto.table.limits import TableLimits
>>> r = Round(get_game("tiger-baccarat"), limits=TableLimits(Decimal(10), Decimal(5000)))
>>> r.open()
>>> for player, pos, stake in [("ann", 1, 300), ("bob", 5, 500), ("cat", 3, 500)]:
...     _ = r.place_bet(player, pos, "banker", Decimal(stake))
>>> squeeze_order(r, Side.BANKER, positions=8)
['bob', 'cat', 'ann']
>>> squeezer(r, Side.BANKER, refused={"bob"}, positions=8)
'cat'
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal

from punto.coup import Side
from punto.errors import ActionError, PhaseError
from punto.table.roles import Role
from punto.table.round import Phase, Round


class Method(enum.Enum):
    A = "A"
    B = "B"
    C = "C"


def check_method(method: Method, role: Role, *, hlga: bool) -> None:
    """Who may choose a method, and where (3.9.2)."""
    if method is Method.C:
        if not hlga:
            raise ActionError(
                "Method C is permitted only within HLGA", clause="3.9.2", hint="use Method A or B"
            )
        role.check_acts_as(Role.ASSISTANT_CASINO_MANAGER, "allow Method C", "3.9.2")
    else:
        role.check_acts_as(Role.PIT_MANAGER, f"choose Method {method.value}", "3.9.2")


def squeeze_order(round_: Round, side: Side, *, positions: int) -> list[str]:
    """The players to offer ``side``'s cards to, in turn (3.10.2-3.10.5).

    Highest total wagered on the hand first; among equal highest, the one who
    placed it first, then counter-clockwise from that player (positions are
    numbered counter-clockwise, position 1 following the last).
    """
    totals: dict[str, Decimal] = defaultdict(Decimal)
    first: dict[str, int] = {}
    seat: dict[str, int] = {}
    for bet in round_.active_bets:
        if bet.wager == side.value:
            totals[bet.player] += bet.stake
            first.setdefault(bet.player, bet.order)
            seat.setdefault(bet.player, bet.position)
    order: list[str] = []
    for amount in sorted(set(totals.values()), reverse=True):
        tied = [p for p in totals if totals[p] == amount]
        leader = min(tied, key=lambda p: first[p])
        start = seat[leader]
        # counter-clockwise from the first to bet it: the next positions after the leader's
        tied.sort(key=lambda p: ((seat[p] - start) % positions, first[p]))
        order.extend(tied)
    return order


def squeezer(
    round_: Round, side: Side, *, positions: int, refused: Collection[str] = ()
) -> str | None:
    """Who receives ``side``'s cards now, given who has refused; None when
    nobody is left: the Pit Supervisor decides (3.10.4.1), or the Dealer
    exposes the cards (5.10)."""
    for player in squeeze_order(round_, side, positions=positions):
        if player not in refused:
            return player
    return None


@dataclass
class DeviceControl:
    """Method C: who controls the card-reading dealing device (3.12.8)."""

    holder: str | None = None
    history: list[tuple[str, str]] = field(default_factory=list)

    def check_take(
        self, player: str, round_: Round, *, allowed_without_wager: bool = False
    ) -> None:
        if self.holder is not None:
            raise ActionError(
                f"{self.holder} controls the dealing device",
                clause="3.12.8",
                hint="it passes when they relinquish it or their wager loses",
            )
        if round_.phase is not Phase.BETTING:
            raise PhaseError("the device changes hands between rounds", clause="3.12.8")
        if not allowed_without_wager and not any(b.player == player for b in round_.active_bets):
            raise ActionError(
                f"{player} has no wager this round",
                clause="3.12.2",
                hint="an Assistant Casino Manager may allow a player to draw without a wager",
            )

    def can_take(self, player: str, round_: Round, *, allowed_without_wager: bool = False) -> bool:
        try:
            self.check_take(player, round_, allowed_without_wager=allowed_without_wager)
        except ActionError:
            return False
        return True

    def take(self, player: str, round_: Round, *, allowed_without_wager: bool = False) -> None:
        """The player accepts the dealing device (3.12.1)."""
        self.check_take(player, round_, allowed_without_wager=allowed_without_wager)
        self.holder = player
        self.history.append(("take", player))

    def relinquish(self, player: str) -> None:
        """The holder gives up control (3.12.8.1)."""
        if self.holder != player:
            raise ActionError(f"{player} does not control the dealing device", clause="3.12.8.1")
        self.holder = None
        self.history.append(("relinquish", player))

    def after_round(self, round_: Round) -> bool:
        """Control is lost when the holder's wager loses (3.12.8.2): their
        Player or Banker wager, or, with neither, any wager of theirs.
        Returns whether control was lost."""
        if self.holder is None or round_.phase is not Phase.SETTLED:
            return False
        results = [s for s in round_.results() if s.bet.player == self.holder]
        hand = [s for s in results if s.bet.wager in ("player", "banker")]
        lost = any(s.outcome == "lose" for s in (hand or results))
        if lost:
            self.history.append(("lost", self.holder))
            self.holder = None
        return lost
