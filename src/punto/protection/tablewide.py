"""The table's tests, whoever bets: a team whose big player comes in at a
high count under a fresh name each time is one player to the table.

A spotter counts at minimum bets and calls in a big player, who bets the
counted wager big while the count lasts and leaves; next time under another
name.  Each name is a stranger to the player's own tests, which need a
history (:mod:`.detection`).  The table has one: every round valued, and the
stake all its players put on each watched wager.  So, per table:

* **the table's stakes and value**: the stake-and-value CUSUM of
  :mod:`.detection` fed the table's total stake on each watched wager in
  every round somebody bet (0 when nobody took it).  Card-blind bettors add
  stakes that do not follow the value (their mean score is zero however many
  they are); a big bet at a high count is a large standardized stake at a
  high standardized value.
* **the table's value at placement**: the value test of :mod:`.value` fed
  the table's total stake on a wager in each round it was taken.
* each player's **value at placement** (:mod:`.value`): scored from their
  first bet, against the table's spread of values (no warm-up of their own).

An alert names the wager, the statistic and its threshold, and for each bet
of the run the round, the value at placement, the stake and who placed it.

>>> from fractions import Fraction
>>> from punto.protection.detection import Thresholds
>>> t = Thresholds(limit=Decimal(2), warmup=2)
>>> watch = TableWatch(t, t)
>>> found = []
>>> for i in range(6):
...     value = Fraction(1, 10) if i % 2 else Fraction(-1, 10)
...     bets = [("bob", "banker", 25)] + ([("ann", "big_tiger", 1000)] if i % 2 else [])
...     found += watch.round(f"r{i}", {"big_tiger": value}, ["big_tiger"], bets)
>>> sorted({(f.test, f.player) for f in found})
[('the table: stakes and value', ''), ('the table: value at placement', ''), ('value at placement', 'ann')]
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from punto.protection.detection import Alert, Detector, Observation, Thresholds
from punto.protection.value import ValueAlert, ValuedBet, ValueReference, ValueTest

__all__ = [
    "TABLE",
    "TABLE_PRESETS",
    "TABLE_STAKES",
    "TABLE_VALUE",
    "VALUE",
    "Finding",
    "TableWatch",
]

#: The player named by a table's own alerts (every player of the run is in its evidence).
TABLE = ""
#: The tests' names, as alerts state them.
TABLE_STAKES = "the table: stakes and value"
TABLE_VALUE = "the table: value at placement"
VALUE = "value at placement"
#: Rounds whose bets are kept per table for the evidence of a table's alert.
KEEP_ROUNDS = 2000

_MEASURED = (
    "measured through the server's feed (benchmarks/bench_protection_teams.py, 800 shoes): "
    "a table of 8 flat Big Tiger bettors (4 at 5%, 4 at 25% of rounds) and a Banker bettor, "
)

#: The thresholds of the table's two tests for each preset of
#: :data:`.detection.THRESHOLD_PRESETS`: a limit a step above the player's,
#: since a table's stakes are every player's and it alarms as often as its
#: busiest card-blind bettor.
TABLE_PRESETS: dict[str, Thresholds] = {
    "sensitive": Thresholds(
        limit=Decimal(20),
        false_alarm_rate=_MEASURED + "the table's stakes and value 1.00 alerts per 100 shoes "
        "(95% CI 0.43-1.97), its value at placement 1.00 (0.43-1.97)",
        name="sensitive",
    ),
    "standard": Thresholds(
        limit=Decimal(25),
        false_alarm_rate=_MEASURED + "the table's stakes and value 0.38 alerts per 100 shoes "
        "(95% CI 0.08-1.10), its value at placement 0.50 (0.14-1.28)",
        name="standard",
    ),
    "strict": Thresholds(
        limit=Decimal(35),
        false_alarm_rate=_MEASURED + "the table's stakes and value none (under 0.46 alerts "
        "per 100 shoes), its value at placement 0.12 (0.00-0.70)",
        name="strict",
    ),
}


@dataclass(frozen=True)
class Finding:
    """An alert of one of the table's tests: who (:data:`TABLE` for the
    table's own), the wager, the statistic and threshold, the bets of the run
    and, for the value tests, their expected net to the bettors."""

    test: str
    player: str
    wager: str
    statistic: Decimal
    threshold: Decimal
    false_alarm_rate: str
    bets: tuple[ValuedBet, ...]
    value: Fraction | None = None


class TableWatch:
    """One table's tests over every round somebody bet in."""

    def __init__(self, thresholds: Thresholds, value_thresholds: Thresholds) -> None:
        """``thresholds``: the table's two tests' (:data:`TABLE_PRESETS`);
        ``value_thresholds``: each player's value test's (:data:`.value.VALUE_PRESETS`)."""
        self.reference = ValueReference()
        self.thresholds = thresholds
        self.value_thresholds = value_thresholds
        self._stakes = Detector(thresholds)
        self._value = ValueTest(self.reference, thresholds)
        self._players: dict[str, ValueTest] = {}
        #: the latest rounds' bets on the watched wagers: round -> wager -> (player, stake)
        self._kept: OrderedDict[str, dict[str, tuple[tuple[str, int], ...]]] = OrderedDict()

    def set_thresholds(self, thresholds: Thresholds, value_thresholds: Thresholds) -> None:
        """Use other thresholds from now on; the statistics so far are kept."""
        self.thresholds, self.value_thresholds = thresholds, value_thresholds
        self._stakes.thresholds = thresholds
        self._value.thresholds = thresholds
        for test in self._players.values():
            test.thresholds = value_thresholds

    def statistic(self, player: str = TABLE) -> Decimal | None:
        """A player's value statistic now, or the table's highest (None: never seen)."""
        if player == TABLE:
            return max(self._stakes.statistic, self._value.statistic)
        found = self._players.get(player)
        return None if found is None else found.statistic

    def round(
        self,
        round_id: str,
        returns: Mapping[str, Fraction],
        watched: Sequence[str],
        bets: Iterable[tuple[str, str, int]],
    ) -> list[Finding]:
        """A round somebody bet in (``bets``: player, wager, stake in minor
        units, any wager); the alerts it raised."""
        offered = {w: returns[w] for w in watched if w in returns}
        self.reference.add(offered)
        placed: dict[str, list[tuple[str, int]]] = {}
        for player, wager, stake in bets:
            if wager in offered and stake > 0:
                placed.setdefault(wager, []).append((player, stake))
        who = {w: _merged(p) for w, p in placed.items()}
        self._kept[round_id] = who
        while len(self._kept) > KEEP_ROUNDS:
            self._kept.popitem(last=False)
        found: list[Finding] = []
        table = [
            Observation(round_id, w, v, sum(s for _, s in who.get(w, ())))
            for w, v in offered.items()
        ]
        alert = self._stakes.observe(table)
        if alert is not None:
            found.append(self._table_finding(alert))
        for wager, players in who.items():
            total = sum(s for _, s in players)
            bet = ValuedBet(round_id, wager, offered[wager], total, players)
            value_alert = self._value.observe(bet)
            if value_alert is not None:
                found.append(_value_finding(TABLE_VALUE, TABLE, value_alert))
            for player, stake in players:
                test = self._players.get(player)
                if test is None:
                    test = self._players[player] = ValueTest(self.reference, self.value_thresholds)
                mine = ValuedBet(round_id, wager, offered[wager], stake, ((player, stake),))
                value_alert = test.observe(mine)
                if value_alert is not None:
                    found.append(_value_finding(VALUE, player, value_alert))
        return found

    def _table_finding(self, alert: Alert) -> Finding:
        bets = tuple(
            ValuedBet(
                o.round_id,
                o.wager,
                o.value,
                o.stake,
                self._kept.get(o.round_id, {}).get(o.wager, ()),
            )
            for o in alert.evidence
        )
        return Finding(
            TABLE_STAKES,
            TABLE,
            alert.wager,
            alert.statistic,
            alert.threshold,
            alert.false_alarm_rate,
            bets,
            sum((b.stake * b.value for b in bets), Fraction(0)),
        )


def _merged(bets: list[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Each player's stakes on a wager in a round added (a player may bet twice)."""
    out: dict[str, int] = {}
    for player, stake in bets:
        out[player] = out.get(player, 0) + stake
    return tuple(out.items())


def _value_finding(test: str, player: str, alert: ValueAlert) -> Finding:
    return Finding(
        test,
        player,
        alert.wager,
        alert.statistic,
        alert.threshold,
        alert.false_alarm_rate,
        tuple(s.bet for s in alert.scores),
        alert.value,
    )
