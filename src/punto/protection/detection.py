"""Advantage-play detection: a CUSUM, per player, of whether they stake more
when a wager is worth more than usual.

Every round the player plays, each watched wager on offer has an exact value
at placement (its return per unit, from the cards seen; never the undealt
order) and a stake (0 when not taken).  The reference is the table's own:
the mean and spread of the wager's values, and of the player's stakes on it,
over the rounds observed.  Each observation scores standardized stake times
standardized value, clipped to ``[-cap, cap]``; the mean score is the
correlation of stake and value, zero for a player who ignores the cards,
however the values drift within a shoe.  The CUSUM adds ``score - drift``,
never falls below zero, and raises an alert at ``limit``.  Each wager has its
own CUSUM: a wager bet once (a one-off bet of 25 on four other side bets)
would otherwise be scored every round after it and charge the drift four
times a round more, diluting the evidence of the wager counted.

The false-alarm rate of each preset is measured by
``benchmarks/bench_protection.py`` on flat bettors (docs/protection.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Context, Decimal
from fractions import Fraction

from punto.errors import PuntoError

#: Enough digits that the statistic does not depend on rounding in practice;
#: fixed, so every detector computes the same figures from the same bets.
_CONTEXT = Context(prec=34)


#: The most bets an alert carries as evidence: the latest of its run (a weak
#: edge can keep the statistic above zero for thousands of rounds).
EVIDENCE_LIMIT = 500


class DetectionError(PuntoError, ValueError):
    """Detection parameters or observations that cannot be used."""


def to_decimal(value: Fraction) -> Decimal:
    """``value`` to 34 significant digits (the detector's arithmetic)."""
    return _CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))


@dataclass(frozen=True)
class Observation:
    """One watched wager on offer in a round the player played: its exact
    return per unit at placement and the stake taken (0 when not taken)."""

    round_id: str
    wager: str
    value: Fraction
    stake: int

    @property
    def taken(self) -> bool:
        return self.stake > 0


@dataclass(frozen=True)
class Thresholds:
    """The test's parameters for one table.

    ``limit``: the statistic at which an alert is raised; ``drift``: what each
    observation's score must exceed to add to it; ``cap``: the most one
    observation can score;
    ``warmup``: observations of a wager before its reference is trusted (bets
    before then are scored when it is); ``false_alarm_rate``: how often a
    player betting at random rounds is flagged, as measured.
    """

    limit: Decimal = Decimal(20)
    drift: Decimal = Decimal("0.3")
    cap: Decimal = Decimal(4)
    warmup: int = 150
    false_alarm_rate: str = "not measured (custom thresholds; see THRESHOLD_PRESETS)"
    name: str = "custom"

    def __post_init__(self) -> None:
        if self.limit <= 0 or self.drift < 0 or self.cap <= 0:
            raise DetectionError(
                f"thresholds limit={self.limit}, drift={self.drift}, cap={self.cap} "
                "cannot make a test",
                hint="limit and cap above zero, drift zero or above",
            )
        if self.warmup < 2:
            raise DetectionError(
                f"a warm-up of {self.warmup} observations cannot give a spread",
                hint="at least 2 (150 is about two shoes)",
            )


@dataclass(frozen=True)
class Score:
    """How one bet was scored: the reference it was measured against."""

    observation: Observation
    mean: Decimal
    spread: Decimal
    mean_stake: Decimal
    stake_spread: Decimal
    score: Decimal
    statistic: Decimal  # the CUSUM after this bet


@dataclass(frozen=True)
class Alert:
    """A player flagged: the statistic, the threshold it reached, the rate at
    which that threshold flags random bettors, and the bets that raised it."""

    statistic: Decimal
    threshold: Decimal
    false_alarm_rate: str
    evidence: tuple[Observation, ...]
    scores: tuple[Score, ...] = field(default=())
    observations: int = 0  # observations scored since the statistic last stood at 0
    wager: str = ""  # the wager whose statistic reached the threshold


@dataclass
class _Cusum:
    """One wager's statistic and the run of bets since it last stood at 0."""

    statistic: Decimal = Decimal(0)
    run: deque[Score] = field(default_factory=lambda: deque(maxlen=EVIDENCE_LIMIT))
    rounds: int = 0

    def restart(self) -> None:
        self.statistic = Decimal(0)
        self.run.clear()
        self.rounds = 0


@dataclass
class _Reference:
    """A wager's values and the player's stakes over every round observed."""

    count: int = 0
    values: Decimal = Decimal(0)
    value_squares: Decimal = Decimal(0)
    stakes: int = 0
    stake_squares: int = 0

    def add(self, value: Decimal, stake: int) -> None:
        self.count += 1
        self.values = _CONTEXT.add(self.values, value)
        self.value_squares = _CONTEXT.add(self.value_squares, _CONTEXT.multiply(value, value))
        self.stakes += stake
        self.stake_squares += stake * stake

    def value_moments(self) -> tuple[Decimal, Decimal]:
        """Mean and standard deviation (population) of the values."""
        return _moments(self.values, self.value_squares, self.count)

    def stake_moments(self) -> tuple[Decimal, Decimal]:
        return _moments(Decimal(self.stakes), Decimal(self.stake_squares), self.count)


def _moments(total: Decimal, squares: Decimal, count: int) -> tuple[Decimal, Decimal]:
    n = Decimal(count)
    mean = _CONTEXT.divide(total, n)
    var = _CONTEXT.subtract(_CONTEXT.divide(squares, n), _CONTEXT.multiply(mean, mean))
    return mean, (_CONTEXT.sqrt(var) if var > 0 else Decimal(0))


class Detector:
    """The sequential test for one player (feed it every round they play)."""

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.thresholds = thresholds if thresholds is not None else DEFAULT_THRESHOLDS
        self._refs: dict[str, _Reference] = {}
        self._pending: dict[str, list[Observation]] = {}
        self._cusums: dict[str, _Cusum] = {}
        self.scored = 0
        self.alerts = 0

    @property
    def statistic(self) -> Decimal:
        """The highest of the wagers' CUSUMs now (0 after an alert: a new
        alert needs new evidence)."""
        return max((c.statistic for c in self._cusums.values()), default=Decimal(0))

    def statistic_of(self, wager: str) -> Decimal:
        """One wager's CUSUM now."""
        found = self._cusums.get(wager)
        return Decimal(0) if found is None else found.statistic

    def observe(self, round_observations: Sequence[Observation]) -> Alert | None:
        """Take one round's observations; an alert when the statistic reaches
        the limit.  Every round the player plays must be fed, bet or not: the
        rounds not bet are half the evidence."""
        values = [(o, to_decimal(o.value)) for o in round_observations]
        for o, v in values:
            if o.stake < 0:
                raise DetectionError(
                    f"a stake of {o.stake} on {o.wager} in round {o.round_id}",
                    hint="stakes are 0 (not taken) or more",
                )
            self._refs.setdefault(o.wager, _Reference()).add(v, o.stake)
        alert: Alert | None = None
        moments: dict[str, tuple[Decimal, Decimal, Decimal, Decimal]] = {}
        for o, _ in values:
            ref = self._refs[o.wager]
            pending = self._pending.setdefault(o.wager, [])
            pending.append(o)
            if ref.count < self.thresholds.warmup:
                continue
            if o.wager not in moments:
                moments[o.wager] = (*ref.value_moments(), *ref.stake_moments())
            for held in pending:
                alert = self._score(held, *moments[o.wager]) or alert
            pending.clear()
        return alert

    def _score(
        self,
        o: Observation,
        mean: Decimal,
        spread: Decimal,
        mean_stake: Decimal,
        stake_spread: Decimal,
    ) -> Alert | None:
        if spread == 0 or stake_spread == 0:
            return None  # every value alike, or every stake: timing cannot tell
        t = self.thresholds
        raw = _CONTEXT.multiply(
            _CONTEXT.divide(_CONTEXT.subtract(Decimal(o.stake), mean_stake), stake_spread),
            _CONTEXT.divide(_CONTEXT.subtract(to_decimal(o.value), mean), spread),
        )
        score = max(-t.cap, min(t.cap, raw))
        cusum = self._cusums.setdefault(o.wager, _Cusum())
        stat = max(Decimal(0), _CONTEXT.add(cusum.statistic, _CONTEXT.subtract(score, t.drift)))
        self.scored += 1
        if stat == 0:
            cusum.restart()
            return None
        cusum.statistic = stat
        cusum.rounds += 1
        if o.taken:
            cusum.run.append(Score(o, mean, spread, mean_stake, stake_spread, score, stat))
        if stat < t.limit:
            return None
        run = tuple(cusum.run)
        rounds = cusum.rounds
        cusum.restart()
        self.alerts += 1
        return Alert(
            statistic=stat,
            threshold=t.limit,
            false_alarm_rate=t.false_alarm_rate,
            evidence=tuple(s.observation for s in run),
            scores=run,
            observations=rounds,
            wager=o.wager,
        )


_MEASURED = (
    "measured on flat bettors (benchmarks/bench_protection.py, 1,250 shoes, "
    "Insurance Plus takers never flagged): betting 25% of rounds, "
)

#: The presets a table chooses among; each states its measured false-alarm
#: rate (benchmarks/README.md, "bench_protection.py").
THRESHOLD_PRESETS: dict[str, Thresholds] = {
    "sensitive": Thresholds(
        limit=Decimal(15),
        false_alarm_rate=_MEASURED
        + "3.42 alerts per 100 shoes on Big Tiger (95% CI 2.93-3.97), 3.00 on Dragon Tiger (2.54-3.52); "
        "betting 5% of rounds, 0.12 (0.04-0.26) and 0.06 (0.01-0.18)",
        name="sensitive",
    ),
    "standard": Thresholds(
        limit=Decimal(20),
        false_alarm_rate=_MEASURED
        + "0.88 alerts per 100 shoes on Big Tiger (95% CI 0.64-1.18), 0.62 on Dragon Tiger (0.42-0.88); "
        "betting 5% of rounds, none (under 0.07 per 100 shoes)",
        name="standard",
    ),
    "strict": Thresholds(
        limit=Decimal(30),
        false_alarm_rate=_MEASURED
        + "0.08 alerts per 100 shoes on Big Tiger (95% CI 0.02-0.20), 0.12 on Dragon Tiger (0.04-0.26); "
        "betting 5% of rounds, none (under 0.07 per 100 shoes)",
        name="strict",
    ),
}

DEFAULT_THRESHOLDS = THRESHOLD_PRESETS["standard"]
