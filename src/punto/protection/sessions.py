"""Which rounds a player's detector sees: every round of their session at a table.

A counter who bets only the side bet, and only when it is worth more, is
seen at a table only in the rounds they bet.  Fed those rounds alone, the
detector would find a stake on every round and nothing to compare it with;
the rounds of the session they sat out (bet nothing) are what show that the
stake follows the value.  So a player's session at a table runs from their
first bet to their last, and a gap of more than :data:`SESSION_GAP` rounds
without a bet ends it: the rounds in between are fed with no stake.

Only rounds in which somebody bet count (the rounds whose values are stored),
so that a table's detectors rebuilt from the stored values after a restart see
what the live ones saw.

>>> from fractions import Fraction
>>> s = Sessions(gap=3)
>>> v = {"big_tiger": Fraction(-1, 10)}
>>> [len(rounds) for rounds in s.round("r1", v, ["big_tiger"], [("ann", "big_tiger", 500)]).values()]
[1]
>>> s.round("r2", v, ["big_tiger"], [("bob", "banker", 1000)])["bob"][0][0].stake
0
>>> fed = s.round("r3", v, ["big_tiger"], [("ann", "big_tiger", 500)])["ann"]
>>> [(o.round_id, o.stake) for rounds in fed for o in rounds]
[('r2', 0), ('r3', 500)]
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from punto.protection.detection import Observation

__all__ = ["SESSION_GAP", "Sessions"]

#: The most rounds in a row a player may sit out (bet nothing) and still be in
#: the same session at the table: about one shoe of eight decks.
SESSION_GAP = 80


class Sessions:
    """The rounds of one table, and where each player's session stands in them."""

    def __init__(self, gap: int = SESSION_GAP) -> None:
        self.gap = gap
        #: the last ``gap`` rounds: (round id, each watched wager's return then)
        self._rounds: deque[tuple[str, dict[str, Fraction]]] = deque(maxlen=gap)
        self._count = 0  # rounds seen
        #: each player's last round with a bet (its number)
        self._last: dict[str, int] = {}

    def round(
        self,
        round_id: str,
        returns: Mapping[str, Fraction],
        watched: Sequence[str],
        bets: Iterable[tuple[str, str, int]],
    ) -> dict[str, list[list[Observation]]]:
        """Take a round in which somebody bet (``bets``: player, wager, stake in
        minor units); for each player who bet in it, the rounds to feed their
        detector, in order: those of their session they sat out since their
        last bet, with no stake, then this one."""
        offered = {w: returns[w] for w in watched if w in returns}
        stakes: dict[str, Counter[str]] = {}
        for player, wager, stake in bets:
            stakes.setdefault(player, Counter())[wager] += stake
        number = self._count
        fed: dict[str, list[list[Observation]]] = {}
        for player, taken in stakes.items():
            last = self._last.get(player)
            missed = number - last - 1 if last is not None else 0
            rounds: list[list[Observation]] = []
            if 0 < missed <= self.gap:
                for past_id, past in list(self._rounds)[len(self._rounds) - missed :]:
                    rounds.append([Observation(past_id, w, r, 0) for w, r in past.items()])
            rounds.append([Observation(round_id, w, r, taken[w]) for w, r in offered.items()])
            fed[player] = rounds
            self._last[player] = number
        self._rounds.append((round_id, offered))
        self._count += 1
        return fed
