"""Advantage-play detection wired to the valued rounds.

Every round the valuation worker values (:mod:`punto.server.tables.valuation`) is
fed, per player who played it, into that player's
:class:`~punto.protection.detection.Detector` at that table: every watched
wager on offer (the side bets) with its exact value then, and the player's
stake on it (0 when not taken) -- after the rounds of the player's session
they sat out, with no stake (:mod:`punto.protection.sessions`).  Every such
round also goes to the table's tests, whoever bet (:mod:`punto.protection.tablewide`:
the table's stakes and value, the table's and each player's value at
placement).  An alert is stored through the journal (``protection_alerts``,
with the evidence: the test, the bets, who placed them, their values and the
shoe's composition unseen at placement) and told to the table's staff.  A
table offering a wager that favours the player is an alert the first time
one of its rounds is valued.

Insurance Plus: once an offer's moment has passed, every player it was open
to (an Original Bet on the insured hand) is observed on it: its exact value
for the cards on the table, and the stake taken or 0.

A table's detectors are rebuilt from ``bet_values`` the first time one of
its rounds is valued in this process (after a restart): the same side-bet
rounds fed in the same order give the same statistic (offers not taken are
not stored, so the Insurance Plus observations are not rebuilt); alerts
raised again on the way were stored the first time and are not stored twice.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy.engine import Engine

from punto.analysis.composition import Composition
from punto.money import CENT
from punto.protection.detection import (
    DEFAULT_THRESHOLDS,
    THRESHOLD_PRESETS,
    Alert,
    DetectionError,
    Detector,
    Thresholds,
    to_decimal,
)
from punto.protection.edges import favoured, table_edges
from punto.protection.sessions import Sessions
from punto.protection.tablewide import TABLE, TABLE_PRESETS, Finding, TableWatch
from punto.protection.valuation import wager_returns, watched_wagers
from punto.protection.value import VALUE_PRESETS
from punto.rules.game import Game
from punto.rules.wagers import PairRule
from punto.server.tables.forms import money
from punto.server.tables.hub import STAFF, Hub
from punto.server.tables.journal import Journal
from punto.server.tables.valuation import OfferValues, RoundValues
from punto.store.protection import (
    StoredAlert,
    StoredValue,
    read_presets,
    table_values,
    write_alert,
    write_preset,
)

log = logging.getLogger("punto.server.tables.advantage")

__all__ = ["AdvantageWatch"]

#: Rounds per table whose composition is kept for the evidence of an alert.
KEEP_ROUNDS = 2000
#: The tests' names, as the alerts state them (the table's: :mod:`punto.protection.tablewide`).
STAKE_AND_VALUE = "stake and value"
FAVOURED = "a wager that favours the player"


class AdvantageWatch:
    """Every player's detector at every table (fed by the valuation worker)."""

    def __init__(
        self,
        engine: Engine,
        journal: Journal,
        hub: Hub | None = None,
    ) -> None:
        self.engine = engine
        self.journal = journal
        self.hub = hub
        #: each table's thresholds preset (the standard one unless set), read once
        self._presets: dict[str, str] | None = None
        self._detectors: dict[tuple[str, str], Detector] = {}
        self._compositions: dict[str, OrderedDict[str, tuple[int, ...]]] = {}
        #: each table's rounds and its players' sessions in them
        self._sessions: dict[str, Sessions] = {}
        #: each table's own tests (whoever bets)
        self._tables: dict[str, TableWatch] = {}
        self._rebuilt: set[str] = set()
        self._lock = threading.Lock()
        #: alerts raised in this process, Insurance Plus offers observed (for the tests)
        self.raised = 0
        self.offers_observed = 0

    def valued(self, rv: RoundValues) -> None:
        """A round valued (the valuation worker's thread)."""
        job = rv.job
        if job.insurance:
            return  # a take: observed with its offers once the moment passes (offered)
        with self._lock:
            if job.table_id not in self._rebuilt and not self._rebuild(
                job.table_id, job.game, job.layout, job.pair_rule, job.round_id
            ):
                self._favoured(job.table_id, job.game, job.layout, job.pair_rule, job.decks)
            self._keep(job.table_id, job.round_id, rv.composition)
            watched = watched_wagers(job.game, job.layout)
            bets = [(p, w, s) for _, p, w, s, m in job.bets if m is None]
            if bets:
                self._feed(job.table_id, job.round_id, rv.returns, watched, bets)

    def thresholds(self, table_id: str) -> Thresholds:
        """The table's thresholds (:data:`THRESHOLD_PRESETS`; the standard one unless set)."""
        if self._presets is None:
            self._presets = read_presets(self.engine)
        return THRESHOLD_PRESETS.get(self._presets.get(table_id, ""), DEFAULT_THRESHOLDS)

    def presets(self) -> dict[str, str]:
        """Each table's preset that was set."""
        with self._lock:
            if self._presets is None:
                self._presets = read_presets(self.engine)
            return dict(self._presets)

    def set_preset(self, table_id: str, preset: str) -> Thresholds:
        """Use the preset ``preset`` at the table from now on (stored through the
        journal); its players' statistics so far are kept."""
        thresholds = THRESHOLD_PRESETS.get(preset)
        if thresholds is None:
            raise DetectionError(
                f"there is no thresholds preset {preset!r}",
                hint=f"one of {', '.join(THRESHOLD_PRESETS)}",
            )
        self.journal.run(lambda conn: write_preset(conn, table_id, preset))
        with self._lock:
            if self._presets is None:
                self._presets = read_presets(self.engine)
            self._presets[table_id] = preset
            for (table, _), detector in self._detectors.items():
                if table == table_id:
                    detector.thresholds = thresholds
            watch = self._tables.get(table_id)
            if watch is not None:
                watch.set_thresholds(TABLE_PRESETS[preset], VALUE_PRESETS[preset])
        return thresholds

    def offered(self, ov: OfferValues) -> None:
        """An Insurance Plus moment passed (the valuation worker's thread): each
        player it was open to observed on its offers, taken or not."""
        job = ov.job
        with self._lock:
            if job.table_id not in self._rebuilt:
                self._rebuild(job.table_id, job.game, job.layout, job.pair_rule, job.round_id)
            self._keep(job.table_id, job.round_id, ov.composition)
            self.offers_observed += sum(len(o) for o in ov.observations.values())
            for player, observations in ov.observations.items():
                alert = self._detector(job.table_id, player).observe(observations)
                if alert is not None:
                    self._raise(job.table_id, player, alert)

    def rebuild(self, table_id: str, game: Game, layout: str | None, rule: PairRule) -> None:
        """Feed the detectors of a table not seen yet in this process every
        round of it in ``bet_values`` (done by itself at the table's first
        valued round)."""
        with self._lock:
            if table_id not in self._rebuilt:
                self._rebuild(table_id, game, layout, rule, "")

    def statistic(self, table_id: str, player: str) -> Decimal | None:
        """A player's statistic at a table now (None: never observed)."""
        with self._lock:
            detector = self._detectors.get((table_id, player))
            return None if detector is None else detector.statistic

    def _watch(self, table_id: str) -> TableWatch:
        watch = self._tables.get(table_id)
        if watch is None:
            name = self.thresholds(table_id).name
            watch = self._tables[table_id] = TableWatch(
                TABLE_PRESETS.get(name, TABLE_PRESETS["standard"]),
                VALUE_PRESETS.get(name, VALUE_PRESETS["standard"]),
            )
        return watch

    def _detector(self, table_id: str, player: str) -> Detector:
        key = (table_id, player)
        detector = self._detectors.get(key)
        if detector is None:
            detector = self._detectors[key] = Detector(self.thresholds(table_id))
        return detector

    def _feed(
        self,
        table_id: str,
        round_id: str,
        returns: Mapping[str, Fraction],
        watched: Sequence[str],
        bets: list[tuple[str, str, int]],
        *,
        rebuilding: bool = False,
    ) -> None:
        """A round somebody bet in, to the detectors of those who bet in it: with
        the rounds of their session they sat out first (:mod:`punto.protection.sessions`)."""
        sessions = self._sessions.setdefault(table_id, Sessions())
        for player, rounds in sessions.round(round_id, returns, watched, bets).items():
            detector = self._detector(table_id, player)
            for observations in rounds:
                alert = detector.observe(observations)
                if alert is not None and not rebuilding:
                    self._raise(table_id, player, alert)
        for finding in self._watch(table_id).round(round_id, returns, watched, bets):
            if not rebuilding:
                self._raise_finding(table_id, finding)

    def _keep(self, table_id: str, round_id: str, composition: tuple[int, ...]) -> None:
        kept = self._compositions.setdefault(table_id, OrderedDict())
        kept[round_id] = composition
        while len(kept) > KEEP_ROUNDS:
            kept.popitem(last=False)

    def _rebuild(
        self, table_id: str, game: Game, layout: str | None, rule: PairRule, now: str
    ) -> bool:
        """Feed the detectors the table's rounds valued before (a restart);
        whether there were any."""
        self._rebuilt.add(table_id)
        rounds: OrderedDict[str, list[StoredValue]] = OrderedDict()
        for value in table_values(self.engine, table_id):
            if value.moment is None and value.round_id != now:
                rounds.setdefault(value.round_id, []).append(value)
        watched = watched_wagers(game, layout)
        for round_id, values in rounds.items():
            composition = values[0].composition
            returns = wager_returns(game, layout, rule, Composition(composition))
            self._keep(table_id, round_id, composition)
            bets = [(v.player, v.wager, v.stake) for v in values]
            self._feed(table_id, round_id, returns, watched, bets, rebuilding=True)
        if rounds:
            log.info("table %s: detectors rebuilt from %d rounds", table_id, len(rounds))
        return bool(rounds)

    def _favoured(
        self, table_id: str, game: Game, layout: str | None, rule: PairRule, decks: int
    ) -> None:
        """An alert for each wager the table offers that favours the player
        (raised at its first valued round; a restart finds its rounds and
        does not raise it again)."""
        for edge in favoured(table_edges(game.id, layout, decks, rule)):
            evidence = (
                {
                    "test": FAVOURED,
                    "wager": edge.wager,
                    "house_edge": str(edge.edge),
                    "clause": edge.clause,
                    "decks": decks,
                    "pair_rule": rule.value,
                },
            )
            # the statistic is the player's return per unit off the top; any above 0 alerts
            statistic = str(to_decimal(-edge.edge))
            self._store(table_id, TABLE, statistic, "0", "none: exact, off the top", evidence)

    def _raise_finding(self, table_id: str, finding: Finding) -> None:
        kept = self._compositions.get(table_id, OrderedDict())
        evidence = tuple(
            {
                "test": finding.test,
                "round_id": b.round_id,
                "wager": b.wager,
                "stake": money(b.stake),
                "value": str(b.value),
                # the bet's expected net to its bettors then (stake x value, to the cent)
                "expected_net": money(to_decimal(b.stake * b.value) * CENT),
                "players": [{"player": p, "stake": money(s)} for p, s in b.players],
                "composition": list(kept.get(b.round_id, ())),
            }
            for b in finding.bets
        )
        self._store(
            table_id,
            finding.player,
            str(finding.statistic),
            str(finding.threshold),
            finding.false_alarm_rate,
            evidence,
        )

    def _raise(self, table_id: str, player: str, alert: Alert) -> None:
        kept = self._compositions.get(table_id, OrderedDict())
        evidence = tuple(
            {
                "test": STAKE_AND_VALUE,
                "round_id": o.round_id,
                "wager": o.wager,
                "stake": money(o.stake),
                "value": str(o.value),
                "composition": list(kept.get(o.round_id, ())),
            }
            for o in alert.evidence
        )
        self._store(
            table_id,
            player,
            str(alert.statistic),
            str(alert.threshold),
            alert.false_alarm_rate,
            evidence,
        )

    def _store(
        self,
        table_id: str,
        player: str,
        statistic: str,
        threshold: str,
        false_alarm_rate: str,
        evidence: tuple[dict[str, Any], ...],
    ) -> None:
        stored = StoredAlert(
            None,
            table_id,
            player,
            datetime.now(UTC),
            statistic,
            threshold,
            false_alarm_rate,
            evidence,
        )
        self.raised += 1
        self.journal.run(lambda conn: write_alert(conn, stored), wait=False)
        if self.hub is not None:
            self.hub.publish(table_id, alert_message(stored), STAFF)


def alert_message(alert: StoredAlert) -> dict[str, Any]:
    """An alert as the staff's pages are told of it."""
    return {
        "type": "protection_alert",
        "player": alert.player,
        "table_id": alert.table_id,
        "statistic": alert.statistic,
        "threshold": alert.threshold,
        "false_alarm_rate": alert.false_alarm_rate,
        "test": alert_test(alert),
        "bets": len(alert.evidence),
    }


def alert_test(alert: StoredAlert) -> str:
    """The test that raised a stored alert (alerts stored before the table's
    tests were the stake-and-value test's)."""
    found = alert.evidence[0].get("test") if alert.evidence else None
    return found if isinstance(found, str) else STAKE_AND_VALUE
