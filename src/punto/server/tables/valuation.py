"""Every bet valued when betting closes, off the tables' critical path.

Each table tells :meth:`Valuation.changed` of its new events (under its lock:
only a scan of the events since the last call, and at "No more bets" a copy
of the bets and the cards seen).  The values are computed by one worker
thread of the server's (:mod:`punto.protection.valuation`, cached by
composition), written through the journal in one statement per round (a
``work`` unit, not waited for) and handed to the advantage-play detection;
the round never waits for any of it.  Insurance Plus bets are valued when
taken, on the cards on the table then.

A round whose values were still being computed when the process stopped is
valued again when its table next changes (a value already stored is kept);
the rounds before it are not.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from punto.errors import PuntoError
from punto.protection.detection import Observation
from punto.protection.valuation import insurance_value, unseen, wager_returns
from punto.rules.cards import Card
from punto.rules.game import Game
from punto.rules.insurance import Moment
from punto.rules.wagers import PairRule
from punto.server.tables.forms import cents, money
from punto.server.tables.journal import Journal
from punto.store.protection import StoredValue, write_values
from punto.table.events import BetsClosed, InsurancePlaced
from punto.table.round import Round
from punto.table.round_state import TableBet

if TYPE_CHECKING:
    from punto.server.tables.runtime import TableRuntime

log = logging.getLogger("punto.server.tables.valuation")

__all__ = ["OfferValues", "RoundValues", "Valuation", "ValuationJob"]


@dataclass(frozen=True, slots=True)
class ValuationJob:
    """What the worker needs of a table at "No more bets" (or an Insurance take):
    a copy, taken under the table's lock."""

    table_id: str
    round_id: str
    shoe_id: str
    game: Game
    layout: str | None
    pair_rule: PairRule
    decks: int
    seen: tuple[Card, ...]
    #: (bet id, player, wager, stake in minor units, Insurance moment or None)
    bets: tuple[tuple[str, str, str, int, Moment | None], ...]
    #: the round's cards when an Insurance bet was taken
    cards: tuple[Card, ...]
    #: when betting closed or the Insurance bet was taken (time.monotonic)
    at: float
    insurance: bool = False


@dataclass(frozen=True, slots=True)
class RoundValues:
    """A round valued: the composition unseen, every wager's return, the bets' values."""

    job: ValuationJob
    composition: tuple[int, ...]
    returns: dict[str, Fraction]
    values: tuple[StoredValue, ...]


@dataclass(frozen=True, slots=True)
class OfferValues:
    """One Insurance Plus moment passed: the offers' observations per player
    it was open to (the value of the offer, the stake taken or 0)."""

    job: ValuationJob
    composition: tuple[int, ...]
    observations: dict[str, list[Observation]]


@dataclass(frozen=True, slots=True)
class _Offered:
    """Offers open on a round's cards: the moment, (player, wager) open to, and the job."""

    round: Round
    moment: Moment
    eligible: tuple[tuple[str, str], ...]
    job: ValuationJob


@dataclass
class _Stats:
    rounds: int = 0
    bets: int = 0
    #: the longest time from "No more bets" to the values handed to the journal (s)
    slowest: float = 0.0
    failures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Valuation:
    """The server's valuation worker (see the module's docstring)."""

    def __init__(
        self,
        journal: Journal,
        *,
        on_valued: Callable[[RoundValues], None] | None = None,
        on_offers: Callable[[OfferValues], None] | None = None,
    ) -> None:
        self.journal = journal
        #: told of each round valued (the detection), in the worker thread
        self.on_valued = on_valued
        #: told of each Insurance Plus moment passed, its offers valued (the detection)
        self.on_offers = on_offers
        #: each table's Insurance Plus offers open now, not yet observed
        self._offers: dict[str, _Offered] = {}
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="punto-valuation")
        #: each table's round (the object: a table restored from its log has new
        #: ones) and how many of its events were scanned
        self._scanned: dict[str, tuple[Round | None, int]] = {}
        self.stats = _Stats()
        self._closed = False

    # -- under the table's lock ---------------------------------------------------------

    def changed(self, rt: TableRuntime) -> None:
        """The table ``rt`` changed (its lock held): value what betting closed on."""
        r = rt.round
        if r is None or self._closed:
            return
        scanned, start = self._scanned.get(rt.id, (None, 0))
        if scanned is not r:  # a new round, or the table restored from its log (resync)
            start = 0
        events = r.events
        if len(events) <= start:
            return
        self._scanned[rt.id] = (r, len(events))
        closed = False
        insured: list[InsurancePlaced] = []
        for event in events[start:]:
            if isinstance(event, BetsClosed):
                closed = True
            elif isinstance(event, InsurancePlaced):
                insured.append(event)
        self._track_offers(rt, r)
        if not closed and not insured:
            return
        base = _base(rt, r)
        if base is None:
            return
        if closed:
            bets = tuple(_bet(b) for b in r.active_bets if b.moment is None)
            if bets:
                self._submit(replace(base, bets=bets))
        for event in insured:
            bet = next((b for b in r.bets if b.bet_id == event.bet_id), None)
            if bet is not None:
                self._submit(replace(base, bets=(_bet(bet),), cards=r.deal.cards, insurance=True))

    def _track_offers(self, rt: TableRuntime, r: Round) -> None:
        """Insurance Plus offers open now: noted with the players they are open
        to (an Original Bet on the insured hand, 3.11); once the moment has
        passed, each becomes an observation per player, taken or not."""
        noted = self._offers.get(rt.id)
        offers = r.insurance_offers()
        if noted is not None and (
            noted.round is not r or len(r.deal.cards) != len(noted.job.cards) or not offers
        ):
            del self._offers[rt.id]
            takes: Counter[tuple[str, str]] = Counter()
            for b in noted.round.bets:
                if b.moment is noted.moment and b.status != "withdrawn":
                    takes[(b.player, b.wager)] += cents(b.stake)
            offered = tuple((p, w, takes[(p, w)]) for p, w in noted.eligible)
            with contextlib.suppress(RuntimeError):
                self._executor.submit(self._value_offers, noted.job, noted.moment, offered)
        if offers and rt.id not in self._offers:
            eligible = sorted(
                {
                    (p, f"{o.insures.value}_insurance")
                    for o in offers
                    for p in r.players
                    if r.original_bet(p, o.insures) > 0
                }
            )
            base = _base(rt, r)
            if eligible and base is not None:
                job = replace(base, cards=r.deal.cards, insurance=True)
                self._offers[rt.id] = _Offered(r, offers[0].moment, tuple(eligible), job)

    def _submit(self, job: ValuationJob) -> None:
        with contextlib.suppress(RuntimeError):  # shut down meanwhile
            self._executor.submit(self._value, job)

    # -- the worker thread --------------------------------------------------------------

    def _value(self, job: ValuationJob) -> None:
        try:
            valued = value_round(job)
        except PuntoError as error:
            log.info("table %s round %s not valued: %s", job.table_id, job.round_id, error)
            return
        except Exception:
            with self.stats.lock:
                self.stats.failures += 1
            log.exception("table %s round %s: valuation failed", job.table_id, job.round_id)
            return
        values = valued.values
        self.journal.run(lambda conn: write_values(conn, values), wait=False)
        with self.stats.lock:
            self.stats.rounds += 1
            self.stats.bets += len(values)
            self.stats.slowest = max(self.stats.slowest, time.monotonic() - job.at)
        if self.on_valued is not None:
            try:
                self.on_valued(valued)
            except Exception:
                log.exception("table %s round %s: detection failed", job.table_id, job.round_id)

    def _value_offers(
        self, job: ValuationJob, moment: Moment, offered: tuple[tuple[str, str, int], ...]
    ) -> None:
        """The worker: the offers of one moment valued, an observation each."""
        try:
            composition = unseen(job.decks, job.seen)
            values = {}
            for wager in {w for _, w, _ in offered}:
                values[wager] = insurance_value(job.game, composition, job.cards, wager, moment)
        except PuntoError as error:
            log.info("table %s round %s: offers not valued: %s", job.table_id, job.round_id, error)
            return
        seen: dict[str, list[Observation]] = {}
        for player, wager, stake in offered:
            seen.setdefault(player, []).append(
                Observation(job.round_id, wager, values[wager], stake)
            )
        if self.on_offers is not None:
            try:
                self.on_offers(OfferValues(job, composition.counts, seen))
            except Exception:
                log.exception("table %s round %s: detection failed", job.table_id, job.round_id)

    def drain(self, timeout: float = 30.0) -> None:
        """Wait until what was submitted so far is valued (and handed to the journal)."""
        self._executor.submit(lambda: None).result(timeout)

    def close(self) -> None:
        """Value what is waiting, then stop (before the journal closes)."""
        self._closed = True
        self._executor.shutdown(wait=True)


def _base(rt: TableRuntime, r: Round) -> ValuationJob | None:
    """A job for the round in play with the cards seen before it (lock held);
    None when the table has no shoe to value against."""
    table = rt.table
    if not table.cards.started or table.cards.decks <= 0:
        return None
    held = Counter(table.held)  # drawn, not dealt into a coup yet: unseen
    seen = Counter(table.discards())
    seen.subtract(held)
    return ValuationJob(
        rt.id,
        r.round_id,
        table.shoe_id,
        rt.game,
        table.layout,
        table.pair_rule,
        table.cards.decks,
        tuple(seen.elements()),
        (),
        (),
        time.monotonic(),
    )


def _bet(bet: TableBet) -> tuple[str, str, str, int, Moment | None]:
    return (bet.bet_id, bet.player, bet.wager, cents(bet.stake), bet.moment)


def value_round(job: ValuationJob) -> RoundValues:
    """The values of a job's bets (pure but for the clock: ``computed_at``)."""
    composition = unseen(job.decks, job.seen)
    returns = dict(wager_returns(job.game, job.layout, job.pair_rule, composition))
    now = datetime.now(UTC)
    values = []
    for bet_id, player, wager, stake, moment in job.bets:
        if stake <= 0:
            continue
        if moment is not None:
            ret = insurance_value(job.game, composition, job.cards, wager, moment)
        elif wager in returns:
            ret = returns[wager]
        else:
            continue  # a wager the analysis does not price: no value
        values.append(
            StoredValue(
                job.table_id,
                bet_id,
                job.round_id,
                job.shoe_id,
                player,
                wager,
                moment.value if moment is not None else None,
                stake,
                ret,
                stake * ret,
                len(job.seen),
                composition.counts,
                now,
            )
        )
    return RoundValues(job, composition.counts, returns, tuple(values))


def values_json(values: Sequence[StoredValue]) -> dict[str, dict[str, object]]:
    """The values by bet id, as the API shows them beside each bet."""
    return {v.bet_id: value_json(v) for v in values}


def value_json(v: StoredValue) -> dict[str, object]:
    """One bet's value at placement (exact fractions as text; money in minor units
    as an exact fraction, and rounded to cents for reading)."""
    return {
        "wager": v.wager,
        "stake": money(v.stake),
        "return": str(v.return_exact),
        "house_edge": str(-v.return_exact),
        "expected_value": str(v.expected_value),
        "expected_value_money": _money(v.expected_value),
        "cards_seen": v.cards_seen,
        "composition": list(v.composition),
        "moment": v.moment,
    }


def _money(units: Fraction) -> str:
    """Minor units, exact, shown in major units to the cent (half away from zero)."""
    rounded = (Decimal(units.numerator) / Decimal(units.denominator)).quantize(
        Decimal(1), rounding=ROUND_HALF_UP
    )
    return money(int(rounded))
