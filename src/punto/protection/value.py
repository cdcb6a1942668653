"""Value at placement: a CUSUM of whether a player's (or a table's) bets are
worth more than they stake, whatever the stakes.

The stake-and-value test (:mod:`.detection`) sees only a stake that follows
the value: a player who stakes the same on a wager that is always worth more
than it costs (Tiger Pair read literally, +37%) has nothing to correlate,
and a player who walks in at a high count and bets at once has no history to
compare with.  This test asks a plainer question of each bet: how many
standard deviations of the wager's value at this table is it worth above
break-even?  Each bet scores ``w x value / spread``, clipped to ``[-cap,
cap]``, where ``spread`` is the spread of the wager's values over the
table's rounds (the table's, not the player's: a newcomer's first bet is
scored at once) and ``w`` the bet's stake over the mean of the stakes scored
on the wager so far (1 for a flat bettor).  A wager with an edge off the top
has a negative mean score (Big Tiger about -1.3 at eight decks), so a bettor
who ignores the cards drifts to zero; positive value at placement adds up.
The CUSUM adds ``score - drift``, never falls below zero and raises an alert
at ``limit``; each wager has its own.  One alert per run: the statistic goes
on adding after it, and the test alerts again only once it has stood at zero
(a flat bettor on a wager that always favours them is one alert, not one
every few bets).

Until the table has ``warmup`` rounds of a wager its spread is not trusted:
the bets are held and scored when it is (once per table, not per player).

>>> from fractions import Fraction
>>> from punto.protection.detection import Thresholds
>>> reference = ValueReference()
>>> for i in range(4):
...     reference.add({"tiger_pair": Fraction(37 + i, 100)})
>>> test = ValueTest(reference, Thresholds(limit=Decimal(10), warmup=2))
>>> [test.observe(ValuedBet(f"r{i}", "tiger_pair", Fraction(37, 100), 25)) is None for i in range(5)]
[True, True, False, True, True]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Context, Decimal
from fractions import Fraction

from punto.protection.detection import (
    EVIDENCE_LIMIT,
    DetectionError,
    Thresholds,
    to_decimal,
)

__all__ = ["ValueAlert", "ValueReference", "ValueScore", "ValueTest", "ValuedBet"]

#: The detector's arithmetic (:mod:`.detection`): the same figures from the same bets.
_CONTEXT = Context(prec=34)


@dataclass(frozen=True)
class ValuedBet:
    """The stake on one wager in one round (a player's, or the table's
    together) and its exact return per unit at placement; ``players`` who
    placed it and their stakes (the table's test)."""

    round_id: str
    wager: str
    value: Fraction
    stake: int
    players: tuple[tuple[str, int], ...] = ()


@dataclass
class _Values:
    count: int = 0
    total: Decimal = Decimal(0)
    squares: Decimal = Decimal(0)


class ValueReference:
    """A table's values of each watched wager over its rounds (bet or not):
    shared by every player's test at the table."""

    def __init__(self) -> None:
        self._values: dict[str, _Values] = {}

    def add(self, returns: Mapping[str, Fraction]) -> None:
        """One round's values of the watched wagers."""
        for wager, value in returns.items():
            v = to_decimal(value)
            ref = self._values.setdefault(wager, _Values())
            ref.count += 1
            ref.total = _CONTEXT.add(ref.total, v)
            ref.squares = _CONTEXT.add(ref.squares, _CONTEXT.multiply(v, v))

    def count(self, wager: str) -> int:
        found = self._values.get(wager)
        return 0 if found is None else found.count

    def moments(self, wager: str) -> tuple[Decimal, Decimal]:
        """Mean and standard deviation (population) of the wager's values."""
        ref = self._values[wager]
        n = Decimal(ref.count)
        mean = _CONTEXT.divide(ref.total, n)
        var = _CONTEXT.subtract(_CONTEXT.divide(ref.squares, n), _CONTEXT.multiply(mean, mean))
        return mean, (_CONTEXT.sqrt(var) if var > 0 else Decimal(0))


@dataclass(frozen=True)
class ValueScore:
    """How one bet was scored: the spread and mean stake it was measured by."""

    bet: ValuedBet
    mean: Decimal  # the wager's mean value at the table
    spread: Decimal
    mean_stake: Decimal
    score: Decimal
    statistic: Decimal


@dataclass(frozen=True)
class ValueAlert:
    """Bets whose value at placement added up beyond the limit: the run since
    the statistic last stood at 0, and what it was worth to the bettor."""

    wager: str
    statistic: Decimal
    threshold: Decimal
    false_alarm_rate: str
    scores: tuple[ValueScore, ...]
    bets: int  # bets scored in the run (the evidence keeps the latest EVIDENCE_LIMIT)
    staked: int
    #: the run's expected net to the bettor, Σ stake x value (minor units, exact)
    value: Fraction


@dataclass
class _Run:
    statistic: Decimal = Decimal(0)
    scores: deque[ValueScore] = field(default_factory=lambda: deque(maxlen=EVIDENCE_LIMIT))
    bets: int = 0
    staked: int = 0
    value: Fraction = Fraction(0)
    alerted: bool = False

    def restart(self) -> None:
        self.alerted = False
        self.statistic = Decimal(0)
        self.scores.clear()
        self.bets = self.staked = 0
        self.value = Fraction(0)


class ValueTest:
    """The value-at-placement test of one player (or one table) at a table."""

    def __init__(self, reference: ValueReference, thresholds: Thresholds) -> None:
        self.reference = reference
        self.thresholds = thresholds
        self._runs: dict[str, _Run] = {}
        self._stakes: dict[str, tuple[int, int]] = {}  # wager -> (bets scored, sum of stakes)
        self._pending: dict[str, list[ValuedBet]] = {}
        self.alerts = 0

    @property
    def statistic(self) -> Decimal:
        """The highest of the wagers' statistics now."""
        return max((r.statistic for r in self._runs.values()), default=Decimal(0))

    def observe(self, bet: ValuedBet) -> ValueAlert | None:
        """Take one bet; an alert when its wager's statistic reaches the limit."""
        if bet.stake <= 0:
            raise DetectionError(
                f"a stake of {bet.stake} on {bet.wager} in round {bet.round_id}",
                hint="the value test takes the bets placed (stakes above 0)",
            )
        pending = self._pending.setdefault(bet.wager, [])
        pending.append(bet)
        if self.reference.count(bet.wager) < self.thresholds.warmup:
            return None
        alert: ValueAlert | None = None
        mean, spread = self.reference.moments(bet.wager)
        for held in pending:
            alert = self._score(held, mean, spread) or alert
        pending.clear()
        return alert

    def _score(self, bet: ValuedBet, mean: Decimal, spread: Decimal) -> ValueAlert | None:
        t = self.thresholds
        count, total = self._stakes.get(bet.wager, (0, 0))
        count, total = count + 1, total + bet.stake
        self._stakes[bet.wager] = (count, total)
        mean_stake = _CONTEXT.divide(Decimal(total), Decimal(count))
        weight = _CONTEXT.divide(Decimal(bet.stake), mean_stake)
        value = to_decimal(bet.value)
        if spread == 0:
            # every round worth the same: the sign of the value is all there is
            raw = t.cap if value > 0 else -t.cap if value < 0 else Decimal(0)
        else:
            raw = _CONTEXT.multiply(weight, _CONTEXT.divide(value, spread))
        score = max(-t.cap, min(t.cap, raw))
        run = self._runs.setdefault(bet.wager, _Run())
        stat = max(Decimal(0), _CONTEXT.add(run.statistic, _CONTEXT.subtract(score, t.drift)))
        if stat == 0:
            run.restart()
            return None
        run.statistic = stat
        run.bets += 1
        run.staked += bet.stake
        run.value += bet.stake * bet.value
        run.scores.append(ValueScore(bet, mean, spread, mean_stake, score, stat))
        if stat < t.limit or run.alerted:
            return None
        run.alerted = True
        alert = ValueAlert(
            bet.wager,
            stat,
            t.limit,
            t.false_alarm_rate,
            tuple(run.scores),
            run.bets,
            run.staked,
            run.value,
        )
        self.alerts += 1
        return alert


_MEASURED = (
    "measured through the server's feed (benchmarks/bench_protection_teams.py, 800 shoes): "
    "flat Big Tiger bettors, stakes 25-100 at random, "
)

#: The value test's thresholds for each preset of :data:`.detection.THRESHOLD_PRESETS`.
VALUE_PRESETS: dict[str, Thresholds] = {
    "sensitive": Thresholds(
        limit=Decimal(15),
        false_alarm_rate=_MEASURED + "betting 25% of rounds: 0.09 alerts per 100 shoes "
        "(95% CI 0.02-0.27); betting 5%: none (under 0.12 per 100 shoes)",
        name="sensitive",
    ),
    "standard": Thresholds(
        limit=Decimal(20),
        false_alarm_rate=_MEASURED + "betting 25% or 5% of rounds: none "
        "(under 0.12 alerts per 100 shoes)",
        name="standard",
    ),
    "strict": Thresholds(
        limit=Decimal(30),
        false_alarm_rate=_MEASURED + "betting 25% or 5% of rounds: none "
        "(under 0.12 alerts per 100 shoes)",
        name="strict",
    ),
}
