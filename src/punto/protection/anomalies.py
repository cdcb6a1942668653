"""Dealer and table anomalies, from the tables' event logs.

Per dealer and per table: keyed cards, voids, resettlements and
irregularities per hundred rounds, and the actual hold (house win over the
amount staked) against the theoretical hold of the bets taken (each bet's
stake times its wager's exact house edge off the top: :mod:`.edges`, or any
``edge`` function given).  A statistic that is improbable for the pit gives an
alert that states its test:

* counts: the rounds of a dealer or table *with* a keyed card (or a void, a
  resettlement, an irregularity), against the pit's pooled proportion, by the
  exact binomial upper tail; an alert when it is below ``alpha``.  Counting
  rounds rather than cards keeps one round keyed card by card from looking
  like six independent events.  Under the hypothesis that the dealer or table
  has the pit's rate, the chance of an alert is at most ``alpha``.
* money rulings: per dealer and per (dealer, player), whether the rulings
  saved a player more often than the pit's rulings do (:mod:`.rulings`).
* hold: ``z = (house win - theoretical win) / sd``, the standard deviation
  from each wager's exact variance (stakes on one wager in one round added
  first: they win or lose together; different wagers of a round taken as
  independent); an alert when ``|z|`` reaches the two-sided normal bound of
  ``alpha`` and there are at least ``min_bets`` bets (the normal
  approximation needs them).

Pure: no database, no server; the dealer of each round is given by the caller
(from the audit log), "automatic" when no person dealt it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from statistics import NormalDist
from typing import Any

from punto.errors import PuntoError
from punto.eventlog import Stored
from punto.money import format_money
from punto.protection.edges import WagerEdge, edge_of
from punto.protection.rulings import (
    PlayerRound,
    PlayerRulings,
    RuledStake,
    Rulings,
    by_dealer_and_player,
    pit_rates,
    ruled_stakes,
    rulings_of,
)
from punto.protection.tails import binomial_upper_tail
from punto.protection.valuation import ValuationError, unseen, wager_returns
from punto.rules.cards import Card
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.table.events import (
    BetReturned,
    BettingReopened,
    CardDealt,
    CardsHeld,
    CardsReconstructed,
    ClaimConfirmed,
    ClaimRejected,
    Event,
    HandlingEvent,
    InsuranceReoffered,
    IrregularityNoted,
    PowerFailed,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    RulingClaimed,
    ShoeStarted,
    TableConfigured,
)
from punto.table.limits import TableLimits
from punto.table.round import Round
from punto.table.round_state import Phase, commission_taken

#: The dealer of a round no person dealt (an automatic dealer).
AUTOMATIC = "automatic"
#: The chance of a false alarm each test allows (per statistic, dealer or table).
ALPHA = 0.001
#: The false-alarm rates a test may be asked for: below, the normal bound of the
#: hold test is beyond what a float tells apart from 1; above, an alert means little.
MIN_ALPHA, MAX_ALPHA = 1e-12, 0.2
#: The fewest bets a hold test is made on (the normal approximation).
MIN_BETS = 100
#: The events that are an irregularity or a decision taken on one (a void is counted apart).
IRREGULAR = (
    IrregularityNoted,
    CardsReconstructed,
    CardsHeld,
    PowerFailed,
    BetReturned,
    InsuranceReoffered,
    BettingReopened,
)
#: The events that move a settled round's money again (a resettlement).
RESETTLING = (RoundVoided, BetReturned, CardsReconstructed)
#: Where a card came from when it was not the server's own shoe.
OUTSIDE = frozenset({"keyed", "device"})
#: The outcomes of a bet that was played (won, lost or pushed).
PLAYED = frozenset({"win", "lose", "push"})
#: Cards dealt again rather than out of the shoe (set aside or on the table
#: before: MBS 5.11): already counted when they first came out.
REUSED = frozenset({"set_aside", "table"})
#: The counted statistics, in the order shown.
COUNTS = (
    "keyed_cards",
    "voids",
    "resettlements",
    "irregularities",
    "claims_filed",
    "claims_confirmed",
    "claims_rejected",
    "claims_refused",
)


class AnomalyTestError(PuntoError, ValueError):
    """A test asked for with parameters it cannot have."""


@dataclass(frozen=True)
class TableSetting:
    """What a wager's edge depends on: the table's game, layout, pairs and decks."""

    game: str
    layout: str | None
    pair_rule: PairRule
    decks: int


EdgeFunction = Callable[[TableSetting, str], WagerEdge | None]


def off_the_top(setting: TableSetting, wager: str) -> WagerEdge | None:
    """The wager's exact edge off the top of the table's shoe (the default)."""
    return edge_of(setting.game, setting.layout, setting.decks, wager, setting.pair_rule)


@dataclass(frozen=True)
class RoundFacts:
    """What one finished round (settled or void) tells about its dealer and table."""

    table_id: str
    round_id: str
    dealer: str
    #: cards keyed in by hand (``CardDealt`` source ``keyed``)
    keyed_cards: int
    #: any card came from a physical shoe (read or keyed): keyed cards were possible
    physical: bool
    voided: bool
    #: a settled round's money moved again (voided, a bet returned, cards
    #: reconstructed after "settled")
    resettled: bool
    irregularities: int
    bets: int
    staked: Decimal
    house_win: Decimal
    theoretical_win: Fraction
    #: the variance of the house's result on the bets with a known edge
    variance: Fraction
    #: who had a bet in the round, and the bets a ruling returned or changed
    players: tuple[str, ...] = ()
    ruled: tuple[RuledStake, ...] = ()
    #: rulings filed for a second person's confirmation, confirmed, rejected
    #: (or withdrawn) -- the round's own log (punto.table.claims) -- and
    #: claims its table's record refused (the audit log's, given by the server)
    claims_filed: int = 0
    claims_confirmed: int = 0
    claims_rejected: int = 0
    claims_refused: int = 0
    #: every bet played (won, lost or pushed), Insurance Plus with the rest:
    #: the amount staked, the house's result and the commission taken on wins
    handle: Decimal = Decimal(0)
    win: Decimal = Decimal(0)
    commission: Decimal = Decimal(0)
    #: the log's number of the event that first finished the round (settled or void)
    finished_seq: int = 0


def _setting(event: TableConfigured) -> tuple[TableSetting, dict[str, Any]]:
    setting = TableSetting(event.game, event.layout, PairRule(event.pair_rule), event.decks)
    options = {
        "limits": TableLimits.from_json(json.loads(event.limits)),
        "layout": event.layout,
        "pair_rule": setting.pair_rule,
        "insurance_offered": event.insurance_offered,
        "electronic_device": event.electronic_device,
        "face_down": event.face_down,
    }
    return setting, options


class LogFolder:
    """One table's log folded into its finished rounds, fed as it grows (so a
    server reads only the events it has not seen).

    A round is taken as finished for good when the next one opens (until then
    a settled round may still be voided, and so resettled); :meth:`facts`
    adds the last round if it is settled or void as it stands.  Each round is
    replayed under the configuration in force when it opened.
    """

    def __init__(self, table_id: str, edge: EdgeFunction = off_the_top) -> None:
        self.table_id = table_id
        self.edge = edge
        #: the sequence number of the last event fed
        self.seq = 0
        self._done: list[RoundFacts] = []
        self._configured: tuple[TableSetting, dict[str, Any]] | None = None
        self._opened_under: tuple[TableSetting, dict[str, Any]] | None = None
        self._under_minimum: set[str] = set()
        self._current: list[Event] = []
        self._current_id = ""
        #: the cards shown from the shoe in play, and how many of them before
        #: the current round opened (its bets' composition at placement)
        self._shown: list[Card] = []
        self._shown_before = 0
        self._finished_seq = 0

    def feed(self, stored: Iterable[Stored[Event]], dealers: Mapping[str, str]) -> None:
        """The next events of the log, in order."""
        for item in stored:
            self.seq = max(self.seq, item.seq)
            event = item.event
            if isinstance(event, TableConfigured):
                self._configured = _setting(event)
                continue
            if isinstance(event, ShoeStarted):
                self._shown.clear()
                continue
            if isinstance(event, HandlingEvent) and not item.round_id:
                continue
            if isinstance(event, RoundOpened):
                done = self._fold(dealers)
                if done is not None:
                    self._done.append(done)
                self._current, self._current_id = [], item.round_id
                self._opened_under = self._configured
                self._finished_seq = 0
                self._shown_before = len(self._shown)
            if isinstance(event, CardDealt) and event.source not in REUSED:
                self._shown.append(event.card)
            if self._current_id:
                self._current.append(event)
                if isinstance(event, RoundSettled | RoundVoided) and not self._finished_seq:
                    self._finished_seq = item.seq

    def facts(self, dealers: Mapping[str, str]) -> list[RoundFacts]:
        """Every finished round so far, in order."""
        last = self._fold(dealers, keep=False)
        return [*self._done, last] if last is not None else list(self._done)

    def _fold(self, dealers: Mapping[str, str], keep: bool = True) -> RoundFacts | None:
        if not self._current or self._opened_under is None:
            return None
        setting, options = self._opened_under
        r = Round.replay(
            get_game(setting.game),
            self._current,
            **options,
            under_minimum_settled=frozenset(self._under_minimum),
            round_id=self._current_id,
        )
        if r.phase is Phase.SETTLED:
            if keep:
                self._under_minimum.update(r.newly_under_minimum())
        elif r.phase is not Phase.VOID:
            return None  # not finished: nothing to count yet
        dealer = dealers.get(self._current_id, AUTOMATIC)
        facts = _facts(self.table_id, self._current_id, dealer, r, setting, self.edge)
        facts = replace(facts, finished_seq=self._finished_seq)
        ruled = ruled_stakes(
            r,
            get_game(setting.game),
            {**options, "round_id": self._current_id},
            self._valuer(setting, self._shown[: self._shown_before]),
        )
        return replace(facts, ruled=ruled) if ruled else facts

    @staticmethod
    def _valuer(setting: TableSetting, shown: list[Card]) -> Callable[[str], Fraction | None]:
        """A wager's return per unit for the round's bets (the cards shown before it)."""

        def value_of(wager: str) -> Fraction | None:
            try:
                composition = unseen(setting.decks, shown)
                returns = wager_returns(
                    get_game(setting.game), setting.layout, setting.pair_rule, composition
                )
            except ValuationError:
                return None  # a shoe the log does not show whole: not valued
            return returns.get(wager)

        return value_of


def round_facts(
    table_id: str,
    stored: Iterable[Stored[Event]],
    dealers: Mapping[str, str] | None = None,
    edge: EdgeFunction = off_the_top,
) -> list[RoundFacts]:
    """The finished rounds of one table's log, in order; ``dealers`` maps a
    round id to who dealt it (missing: :data:`AUTOMATIC`)."""
    folder = LogFolder(table_id, edge)
    folder.feed(stored, dealers or {})
    return folder.facts(dealers or {})


def _facts(
    table_id: str, round_id: str, dealer: str, r: Round, setting: TableSetting, edge: EdgeFunction
) -> RoundFacts:
    events = r.events
    settled_at = next((i for i, e in enumerate(events) if isinstance(e, RoundSettled)), None)
    resettled = settled_at is not None and any(
        isinstance(e, RESETTLING) for e in events[settled_at + 1 :]
    )
    cards = [e for e in events if isinstance(e, CardDealt)]
    staked = house = Decimal(0)
    theoretical = variance = Fraction(0)
    bets = 0
    by_wager: dict[str, Decimal] = defaultdict(Decimal)
    edges: dict[str, WagerEdge] = {}
    results = r.results()
    played = [s for s in results if s.outcome in PLAYED]
    for s in results:
        found = edge(setting, s.bet.wager)
        if s.outcome not in PLAYED or found is None:
            continue  # returned, withdrawn, void; or Insurance Plus (no edge off the top)
        bets += 1
        staked += s.settled_stake
        house -= s.net
        theoretical += Fraction(s.settled_stake) * found.edge
        by_wager[s.bet.wager] += s.settled_stake
        edges[s.bet.wager] = found
    for wager, stake in by_wager.items():
        variance += Fraction(stake) ** 2 * edges[wager].variance
    return RoundFacts(
        table_id=table_id,
        round_id=round_id,
        dealer=dealer,
        keyed_cards=sum(1 for c in cards if c.source == "keyed"),
        physical=any(c.source in OUTSIDE for c in cards),
        voided=any(isinstance(e, RoundVoided) for e in events),
        resettled=resettled,
        irregularities=sum(1 for e in events if isinstance(e, IRREGULAR)),
        bets=bets,
        staked=staked,
        house_win=house,
        theoretical_win=theoretical,
        variance=variance,
        players=tuple(dict.fromkeys(b.player for b in r.bets)),
        claims_filed=sum(1 for e in events if isinstance(e, RulingClaimed)),
        claims_confirmed=sum(1 for e in events if isinstance(e, ClaimConfirmed)),
        claims_rejected=sum(1 for e in events if isinstance(e, ClaimRejected)),
        handle=sum((s.settled_stake for s in played), Decimal(0)),
        win=-sum((s.net for s in played), Decimal(0)),
        commission=commission_taken(get_game(setting.game), played),
    )


# -- the statistics and their tests ---------------------------------------------------------


@dataclass(frozen=True)
class CountTest:
    """One counted statistic of a dealer or table, and its test against the pit."""

    statistic: str
    #: the events counted (cards keyed, voids, ...) and per hundred rounds
    count: int
    per_hundred: float
    #: the rounds with one, out of the rounds where one could happen
    rounds_with: int
    rounds: int
    #: the pit's pooled proportion of rounds with one, exactly
    pit_rate: Fraction
    p_value: float
    alert: bool


@dataclass(frozen=True)
class HoldTest:
    """Actual hold against theoretical, on the bets with an exact edge."""

    bets: int
    staked: Decimal
    house_win: Decimal
    theoretical_win: Fraction
    sd: float
    z: float | None
    bound: float
    alert: bool

    @property
    def actual_hold(self) -> float | None:
        return None if not self.staked else float(self.house_win / self.staked)

    @property
    def theoretical_hold(self) -> float | None:
        return None if not self.staked else float(self.theoretical_win / Fraction(self.staked))


@dataclass(frozen=True)
class Anomalies:
    """One dealer's or one table's statistics and tests."""

    kind: str  # "dealer" or "table"
    name: str
    rounds: int
    counts: tuple[CountTest, ...]
    hold: HoldTest
    #: a dealer's: what the money rulings gave the players of their rounds
    rulings: Rulings | None = None
    alpha: float = ALPHA

    @property
    def alerts(self) -> list[str]:
        """What is improbable, in words."""
        out = [
            f"{c.statistic.replace('_', ' ')}: {c.rounds_with} of {c.rounds} rounds "
            f"(pit {float(c.pit_rate):.2%}), p = {c.p_value:.2g} < {self.alpha}"
            for c in self.counts
            if c.alert
        ]
        if self.hold.alert and self.hold.z is not None:
            out.append(f"hold: z = {self.hold.z:+.2f}, beyond ±{self.hold.bound:.2f}")
        if self.rulings is not None:
            out += self.rulings.words(self.alpha)
        return out


@dataclass(frozen=True)
class AnomalyReport:
    """Every dealer and table of the pit, with the tests' parameters."""

    dealers: tuple[Anomalies, ...]
    tables: tuple[Anomalies, ...]
    rounds: int
    alpha: float = ALPHA
    min_bets: int = MIN_BETS
    tests: Mapping[str, str] = field(default_factory=dict)
    #: every (dealer, player) a money ruling touched, tested
    players: tuple[PlayerRulings, ...] = ()


def _count_of(facts: RoundFacts, statistic: str) -> int:
    if statistic == "voids":
        return int(facts.voided)
    if statistic == "resettlements":
        return int(facts.resettled)
    count: int = getattr(facts, statistic)
    return count


def _eligible(facts: RoundFacts, statistic: str) -> bool:
    # keyed cards happen only where a physical shoe deals: the server's own shoe takes none
    return facts.physical if statistic == "keyed_cards" else True


def _anomalies(
    kind: str,
    name: str,
    rounds: Sequence[RoundFacts],
    pit: Mapping[str, Fraction],
    alpha: float,
    min_bets: int,
) -> Anomalies:
    counts = []
    for statistic in COUNTS:
        eligible = [f for f in rounds if _eligible(f, statistic)]
        count = sum(_count_of(f, statistic) for f in rounds)
        with_one = sum(1 for f in eligible if _count_of(f, statistic) > 0)
        p_value = binomial_upper_tail(with_one, len(eligible), pit[statistic])
        counts.append(
            CountTest(
                statistic,
                count,
                100 * count / len(rounds) if rounds else 0.0,
                with_one,
                len(eligible),
                pit[statistic],
                p_value,
                with_one > 0 and p_value < alpha,
            )
        )
    bets = sum(f.bets for f in rounds)
    staked = sum((f.staked for f in rounds), Decimal(0))
    house = sum((f.house_win for f in rounds), Decimal(0))
    theoretical = sum((f.theoretical_win for f in rounds), Fraction(0))
    sd = math.sqrt(sum((f.variance for f in rounds), Fraction(0)))
    bound = NormalDist().inv_cdf(1 - alpha / 2)
    z = None if sd == 0 else float((Fraction(house) - theoretical) / Fraction(sd))
    hold = HoldTest(
        bets,
        staked,
        house,
        theoretical,
        sd,
        z,
        bound,
        z is not None and bets >= min_bets and abs(z) >= bound,
    )
    return Anomalies(kind, name, len(rounds), tuple(counts), hold, alpha=alpha)


def report(
    facts: Iterable[RoundFacts], *, alpha: float = ALPHA, min_bets: int = MIN_BETS
) -> AnomalyReport:
    """Every dealer's and table's statistics and tests, against the pit (all of ``facts``)."""
    if not MIN_ALPHA <= alpha <= MAX_ALPHA:
        raise AnomalyTestError(
            f"a false-alarm rate of {alpha!r} cannot be tested",
            hint=f"give alpha from {MIN_ALPHA:g} to {MAX_ALPHA:g}",
        )
    if min_bets < 1:
        raise AnomalyTestError("a hold test needs at least one bet", hint="give min_bets >= 1")
    every = list(facts)
    pit: dict[str, Fraction] = {}
    for statistic in COUNTS:
        eligible = [f for f in every if _eligible(f, statistic)]
        with_one = sum(1 for f in eligible if _count_of(f, statistic) > 0)
        pit[statistic] = Fraction(with_one, len(eligible)) if eligible else Fraction(0)
    by_dealer: dict[str, list[RoundFacts]] = defaultdict(list)
    by_table: dict[str, list[RoundFacts]] = defaultdict(list)
    for f in every:
        by_dealer[f.dealer].append(f)
        by_table[f.table_id].append(f)
    bound = NormalDist().inv_cdf(1 - alpha / 2)
    player_rounds = [
        PlayerRound(f.round_id, f.dealer, p, tuple(s for s in f.ruled if s.player == p))
        for f in every
        for p in f.players
    ]
    rates = pit_rates(player_rounds)
    by_dealer_rounds: dict[str, list[PlayerRound]] = defaultdict(list)
    for pr in player_rounds:
        by_dealer_rounds[pr.dealer].append(pr)
    return AnomalyReport(
        dealers=tuple(
            replace(
                _anomalies("dealer", d, rs, pit, alpha, min_bets),
                rulings=rulings_of(by_dealer_rounds[d], rates, alpha),
            )
            for d, rs in sorted(by_dealer.items())
        ),
        tables=tuple(
            _anomalies("table", t, rs, pit, alpha, min_bets) for t, rs in sorted(by_table.items())
        ),
        rounds=len(every),
        alpha=alpha,
        min_bets=min_bets,
        tests={
            "counts": "exact binomial upper tail of the rounds with one, against the pit's "
            f"pooled proportion; alert when p < {alpha} (false-alarm rate at most {alpha} "
            "per statistic per dealer or table)",
            "hold": f"z of the house win against the theoretical win, sd from each wager's "
            f"exact variance; alert when |z| >= {bound:.2f} with at least {min_bets} bets "
            f"(two-sided normal approximation: false-alarm rate about {alpha})",
            "rulings": "per dealer and per (dealer, player): the player-rounds in which a "
            "void, a bet returned, a withdrawal or a reconstruction left the player more than "
            "the cards gave, against the pit's pooled proportion; and of the rulings that "
            "moved a player's money, the share that saved it, against the pit's share; exact "
            f"binomial upper tails, alert when p < {alpha}",
        },
        players=by_dealer_and_player(player_rounds, rates, alpha),
    )


# -- JSON and CSV ----------------------------------------------------------------------------


def _fraction_money(value: Fraction) -> str:
    return format_money(Decimal(value.numerator) / Decimal(value.denominator))


def anomalies_json(a: Anomalies) -> dict[str, Any]:
    h = a.hold
    return {
        "kind": a.kind,
        "name": a.name,
        "rounds": a.rounds,
        "counts": {
            c.statistic: {
                "count": c.count,
                "per_hundred_rounds": round(c.per_hundred, 4),
                "rounds_with": c.rounds_with,
                "rounds": c.rounds,
                "pit_rate": f"{c.pit_rate.numerator}/{c.pit_rate.denominator}",
                "p_value": c.p_value,
                "alert": c.alert,
            }
            for c in a.counts
        },
        "hold": {
            "bets": h.bets,
            "staked": format_money(h.staked),
            "house_win": format_money(h.house_win),
            "theoretical_win": _fraction_money(h.theoretical_win),
            "actual_hold": h.actual_hold,
            "theoretical_hold": h.theoretical_hold,
            "sd": h.sd,
            "z": h.z,
            "bound": h.bound,
            "alert": h.alert,
        },
        "rulings": None if a.rulings is None else a.rulings.to_json(),
        "alerts": a.alerts,
    }


def report_json(r: AnomalyReport) -> dict[str, Any]:
    return {
        "rounds": r.rounds,
        "alpha": r.alpha,
        "min_bets": r.min_bets,
        "tests": dict(r.tests),
        "dealers": [anomalies_json(a) for a in r.dealers],
        "tables": [anomalies_json(a) for a in r.tables],
        "players": [p.to_json(r.alpha) for p in r.players],
    }


CSV_COLUMNS = (
    "kind",
    "name",
    "rounds",
    *(f"{s}{suffix}" for s in COUNTS for suffix in ("", "_per_100", "_p_value", "_alert")),
    "bets",
    "staked",
    "house_win",
    "theoretical_win",
    "actual_hold",
    "theoretical_hold",
    "z",
    "hold_alert",
)


def report_csv(r: AnomalyReport) -> str:
    """One row per dealer, then per table: the figures of :func:`report_json`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for a in (*r.dealers, *r.tables):
        j = anomalies_json(a)
        row: list[Any] = [a.kind, a.name, a.rounds]
        for s in COUNTS:
            c = j["counts"][s]
            row += [c["count"], c["per_hundred_rounds"], c["p_value"], c["alert"]]
        h = j["hold"]
        row += [
            h["bets"],
            h["staked"],
            h["house_win"],
            h["theoretical_win"],
            h["actual_hold"],
            h["theoretical_hold"],
            h["z"],
            h["alert"],
        ]
        writer.writerow(row)
    return out.getvalue()
