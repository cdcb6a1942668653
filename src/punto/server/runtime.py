"""One live table on the server: its round, its money and its watchers.

A :class:`TableRuntime` wraps a :class:`punto.table.live.LiveTable` whose
event log is in the database (:class:`punto.store.db.SQLEventLog`) and keeps
the ledger (:class:`punto.store.ledger.Ledger`) in step with it.  Every action
on a table takes the table's lock, so the engine's checks, the ledger posting
and the event append of one action are never interleaved with another's.

**A bet is acknowledged only when its ledger posting (wallet to the table's
holding account), its ``BetPlaced`` event and its idempotency reservation
are durable -- and they are one unit**, written by the server's
:class:`punto.server.journal.Journal` in one transaction with whatever else
is being written at that moment.  In order, under the table's lock:

1. the engine checks the bet (phase, layout, limits: a refusal costs nothing);
2. the unit goes to the journal, which checks the money (no wallet below
   zero, the request's key not taken) and commits it, or refuses it whole;
3. the engine takes the event into the round; the response is sent, and
   stored with the reservation (after the answer, in the next group).

A process killed at any instant leaves the bet wholly in or wholly out.  A
request retried with its key gets the stored answer, or -- if the process
died before storing it -- the same bet rebuilt from the round, never a
second one.  :meth:`TableRuntime.reconcile` (at start-up, and under the lock
whenever the ledger is synchronised) returns every ledger bet that its round
does not hold (from before this design, or placed through the ledger by
hand) and settles or returns what the round has decided.

Money leaves the holding account only by the round's own results, with keys
derived from the table and bet ids, so posting them again changes nothing:
``settle:TABLE:BET`` pays ``held + net`` (the stake back with the winnings
less commission for a win, the stake for a push, the stake less the settled
stake for a loss -- 0 for a full loss, the unsettled part for a pro-rata or
over-maximum bet); ``return:TABLE:BET`` returns a withdrawn, returned or void
bet; ``reduce:TABLE:BET:STAKE`` returns what a reduction took off.  The
postings of a round go to the journal together.  A round settled before a
crash whose postings were not all made is posted at the next start.

Watchers are told what happened as it happens (each event); the snapshots
of the table (``state``, ``staff``, each player's ``me``) are sent at most
every :data:`PUBLISH_SECONDS` per table, the latest always, and not built at
all when nobody watches.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import and_, delete, func, select
from sqlalchemy.engine import Connection, Engine

from punto.cards import Card
from punto.coup import Deal
from punto.errors import ActionError, PhaseError, PuntoError
from punto.game import Game
from punto.roads import Result, Scoreboard
from punto.server import differential
from punto.server import handling as card_handling
from punto.server.card_source import physical
from punto.server.config import TableConfig
from punto.server.hub import EVERYONE, STAFF, Hub
from punto.server.journal import (
    Journal,
    JournalEventLog,
    PlaceBet,
    RequestKeyTakenError,
    ReturnBet,
    SettleBet,
)
from punto.server.named_round import check_named_round
from punto.server.schema import server_requests
from punto.server.tables.forms import SETTLED_OUTCOMES, cents, find_bet, hands, money
from punto.server.tables.forms import bet_json as _bet_json
from punto.server.tables.views import RoundNotFoundError, TableSnapshot, TableViews, result_json
from punto.store.db import ledger_bets, ledger_entries, ledger_transactions, wallets
from punto.store.ledger import (
    BetStateError,
    InsufficientFundsError,
    Ledger,
    LedgerError,
    UnknownWalletError,
)
from punto.table.bet_limits import positions as table_positions
from punto.table.events import (
    BetPlaced,
    BetsClosed,
    BettingReopened,
    CardDealt,
    CardsHeld,
    Event,
    InsurancePlaced,
    PowerFailed,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    ShoeStarted,
    WithdrawalClosed,
    WithdrawalOffered,
    event_to_json,
)
from punto.table.irregularities import NotCoveredError, Ruling
from punto.table.replay import (
    IRREGULARITIES,
    ActionInputError,
    ActionSpec,
    check_withdrawing,
    read_action,
    ruling_json,
)
from punto.table.roles import Role
from punto.table.round import BetSettlement, Phase, Round, TableBet, deal_after

log = logging.getLogger("punto.server")

__all__ = [
    "BetNotFoundError",
    "IdempotencyKeyError",
    "RoundNotFoundError",
    "TableRuntime",
    "cents",
    "money",
]

#: The most postings reconciling a table sends the journal at once.
POSTINGS_AT_ONCE = 100
#: How many answers to keyed bet requests a table remembers (older ones are in the database).
ANSWERS_KEPT = 20_000
#: The shortest time between two snapshots of a table sent to its watchers (seconds).
PUBLISH_SECONDS = 0.1


class BetNotFoundError(ActionError):
    """No such bet in the round (or not one of yours)."""


class IdempotencyKeyError(ActionError):
    """An idempotency key used again for a different request."""


class TableStoppedError(ActionError):
    """The table is not running (inactive or stopping)."""


def _request_hash(content: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class _PendingBet:
    """A bet taken into its round, its unit not yet committed."""

    future: Future[tuple[int, list[Any]]]
    round_id: str
    bet_id: str
    bet: dict[str, Any]
    wallet: str
    amount: int
    username: str
    full_key: str | None
    request_hash: str
    generation: int
    #: whether the journal stored the answer with the reservation
    stored: bool = False
    #: whether the request holds its key in the journal (:meth:`Journal.claim`)
    claimed: bool = False


#: Irregularity procedures the server runs through an endpoint of their own
#: (name -> path under the table): a power failure leaves the withdrawal option
#: open for the players to take themselves (``/withdrawal``), then the dealer
#: closes it.
DEDICATED_PROCEDURES: dict[str, str] = {"power_failure": "/round/power-failure"}

#: JSON values that let a procedure be tried on a fresh round far enough to
#: look its clause up (see :func:`covered_procedures`), by parameter kind.
_PROBE: dict[str, Any] = {
    "text": "-",
    "int": 0,
    "flag": False,
    "cards": [],
    "cards?": None,
    "cards_with_gaps": [],
    "shoe": [],
    "players": [],
}


@functools.cache
def covered_procedures(
    game_id: str, layout: str | None, insurance_offered: bool
) -> tuple[str, ...]:
    """The procedures of :data:`~punto.table.replay.IRREGULARITIES` that a
    game's rules cover (the power failure, with its own endpoint, left out).

    The engine is the judge: each procedure is tried on a fresh round of the
    game; every procedure looks its clause up in the game's data before
    anything else, and one the rules lack raises :class:`NotCoveredError`.
    Any other refusal (no card out yet, and so on) means it is covered."""
    from punto.games import get_game
    from punto.table.limits import TableLimits

    game = get_game(game_id)
    names = []
    for spec in IRREGULARITIES.values():
        if spec.name in DEDICATED_PROCEDURES or spec.run is None:
            continue
        r = Round(
            game,
            limits=TableLimits(Decimal(10), Decimal(1000)),
            layout=layout,
            insurance_offered=insurance_offered,
        )
        r.open()
        data: dict[str, Any] = {"action": spec.name, "role": Role.SHIFT_MANAGER.value}
        for param in spec.params:
            if param.required and param.name != "role":
                data[param.name] = _PROBE.get(param.kind)
        try:
            _, args = read_action(data)
            spec.run(r, args)
        except NotCoveredError:
            continue
        except PuntoError:
            pass
        names.append(spec.name)
    return tuple(names)


class TableRuntime:
    """A table running on the server (see the module's docstring)."""

    def __init__(
        self,
        config: TableConfig,
        *,
        engine: Engine,
        ledger: Ledger,
        hub: Hub,
        journal: Journal | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.id = config.id
        self.game: Game = config.game_
        self.engine = engine
        self.ledger = ledger
        self.hub = hub
        self.clock = clock
        self.lock = threading.RLock()
        #: a journal of its own when the server does not share one (closed at stop)
        self._own_journal = journal is None
        self.journal = journal if journal is not None else Journal(engine)
        self.log = JournalEventLog(self.journal)
        self.table = config.live_table(self.log)
        #: what restoring did to a round interrupted mid-deal (power failure rules)
        self.recovered = self.table.recovered
        #: the betting deadline of the round open now (epoch seconds), auto mode
        self.deadline: float | None = None
        #: the insurance or withdrawal window open now: (round id, cards, ends at)
        self.window: tuple[str, int, float] | None = None
        self.next_card_at = 0.0
        self.next_round_at: float | None = None
        #: called after every action (the automatic dealer wakes up)
        self.on_change: Callable[[], None] | None = None
        #: what the watchers have been told of: (round id, its events, the cards then)
        self._published: tuple[str, int, Deal] = ("", 0, Deal())
        #: snapshots owed to the watchers: whether the state is, and whose ``me``
        self._dirty = False
        self._dirty_users: set[str] = set()
        self._totals_dirty = False
        self._next_publish = 0.0
        self._flush_pending = False
        self.scoreboard = self._rebuild_scoreboard()
        self._results_cache: dict[str, list[BetSettlement]] = {}
        self._settlements: dict[str, dict[str, BetSettlement]] = {}
        #: the answers given to keyed bet requests lately: key -> (request hash, response)
        #: (as JSON text: strings are no work for the garbage collector, dicts are)
        self._answers: OrderedDict[str, tuple[str, str]] = OrderedDict()
        #: bets taken into the round whose units are not committed yet, and their keys
        self._in_flight: set[Future[Any]] = set()
        self._pending_keys: dict[str, _PendingBet] = {}
        #: (round id, player) -> the position of the player's first bet of the round
        self._positions: dict[tuple[str, str], int] = {}
        #: how many times the table was restored from its log
        self._generation = 0
        self.stopped = False
        #: a snapshot a reader found behind is rebuilt once, by a worker
        self._refresh_guard = threading.Lock()
        self._refresh_due = False
        self._refresh_staff = False
        with self.lock:
            if self.recovered is not None:
                r = self.table.round
                self._audit_event(
                    "recovered", round_id=r.round_id if r else None, consequence=self.recovered
                )
            self.reconcile()
            self.reconcile_finished(self.table.round)
            r = self.table.round
            if r is not None:
                self._published = (r.round_id, len(r.events), r.deal)
            #: what readers are answered from (built under the lock, read without it)
            self.views = TableViews(self)

    # -- reading ------------------------------------------------------------------------

    @property
    def round(self) -> Round | None:
        return self.table.round

    def _rebuild_scoreboard(self) -> Scoreboard:
        """The roads of the current shoe, from the log."""
        board = Scoreboard(pair_rule=self.table.pair_rule)
        rounds = {r.round_id: r for r in self.table.rounds}
        for stored in self.log.read(self.id):
            if isinstance(stored.event, ShoeStarted):
                board = Scoreboard(pair_rule=self.table.pair_rule)
            elif isinstance(stored.event, RoundSettled):
                r = rounds.get(stored.round_id)
                # A round voided after settlement (MBS 5.2) has no result on the roads.
                if r is not None and r.deal.is_complete and r.phase is Phase.SETTLED:
                    board.add(Result.from_coup(r.deal.to_coup(), self.table.pair_rule))
        return board

    def results(self, r: Round) -> list[BetSettlement]:
        cached = self._results_cache.get(r.round_id)
        if cached is None:
            cached = r.results()
            self._results_cache[r.round_id] = cached
        return cached

    def positions(self) -> tuple[int, int]:
        return table_positions(self.game, self.table.layout)  # the engine's one reading

    def wagers_json(self) -> list[dict[str, Any]]:
        out = []
        for w in self.game.offered(self.table.layout).values():
            limit = self.table.limits.for_wager(w.id)
            out.append(
                {
                    "id": w.id,
                    "name": w.name,
                    "pays": {event: str(p) for event, p in w.pays.items()},
                    "clause": w.clause,
                    "insures": w.insures.value if w.insures else None,
                    "minimum": money(limit.minimum),
                    "maximum": money(limit.maximum),
                }
            )
        return out

    def balance(self, username: str) -> int:
        try:
            return self.ledger.balance(f"player:{username}")
        except UnknownWalletError:
            return 0

    def snapshot(self, *, staff: bool = False) -> TableSnapshot:
        """The table as it stood after its last change, without waiting for
        its lock (:mod:`punto.server.tables.views`): built now if the table is
        free, else the last one built (at most the change in progress
        behind), a fresh one on its way."""
        views = self.views
        latest = views.latest
        if staff:
            views.want_staff()
        if not views.stale(latest, staff=staff):
            return latest
        if self.lock.acquire(blocking=False):
            try:
                return views.rebuild(staff=staff)
            finally:
                self.lock.release()
        self._refresh_later(staff)
        return latest

    def _refresh_later(self, staff: bool) -> None:
        with self._refresh_guard:
            self._refresh_staff = self._refresh_staff or staff
            if self._refresh_due:
                return
            self._refresh_due = True
        self.hub.later(0.0, self._refresh)

    def _refresh(self) -> None:
        """A worker thread: the snapshot a reader found behind, rebuilt."""
        with self.lock:
            with self._refresh_guard:
                staff, self._refresh_due, self._refresh_staff = self._refresh_staff, False, False
            self.views.rebuild(staff=staff)

    def state(self, username: str | None = None, *, staff: bool = False) -> dict[str, Any]:
        """The state of the table for a page: public, plus ``me`` for a user
        (their balance read now), plus ``staff`` (from :meth:`snapshot`)."""
        snapshot = self.snapshot(staff=staff)
        balance = self.balance(username) if username is not None else 0
        return snapshot.state(self.clock(), username, balance, staff=staff)

    def round_detail(self, round_id: str) -> dict[str, Any]:
        """One round's events and results (from :meth:`snapshot`)."""
        return self.snapshot().round_detail(self.id, round_id)

    # -- publishing -----------------------------------------------------------------------

    def publish(self, message: dict[str, Any], audience: str = EVERYONE) -> None:
        self.hub.publish(self.id, message, audience)

    def _changed(self, users: Iterable[str] = (), *, coalesce: bool = False) -> None:
        """After an action (lock held): tell the watchers what happened, send
        them fresh snapshots, and wake the automatic dealer.  ``coalesce``
        (a bet, a withdrawn bet: the frequent changes): the snapshots may wait
        until :data:`PUBLISH_SECONDS` after the last ones."""
        self.views.changed()
        r = self.round
        watched = self.hub.count(self.id) > 0
        if r is not None:
            round_id, start, deal = self._published
            if round_id != r.round_id:
                start, deal = 0, Deal()
            if watched:
                for event in r.events[start:]:
                    self._announce(r, event, deal)
                    deal = deal_after(deal, event)
            self._published = (r.round_id, len(r.events), r.deal)
        if watched:
            self._dirty = True
            self._dirty_users.update(users)
            now = time.monotonic()
            if not coalesce or now >= self._next_publish:
                self._publish_snapshots()
            elif not self._flush_pending:
                self._flush_pending = True
                self.hub.later(self._next_publish - now, self._flush)
        else:
            self._dirty, self._totals_dirty = False, False
            self._dirty_users.clear()
            if not coalesce:  # a table action (not a bet): its snapshot at once, for the readers
                self.views.rebuild()
        if self.on_change is not None:
            self.on_change()

    def _flush(self) -> None:
        """The snapshots owed (a worker thread, a moment after the last sent)."""
        with self.lock:
            self._flush_pending = False
            try:
                if self._dirty and self.hub.count(self.id) > 0:
                    self._publish_snapshots()
            except Exception:  # a page misses one snapshot; the next one comes
                log.exception("table %s: cannot send the snapshots", self.id)

    def _publish_snapshots(self) -> None:
        r = self.round
        self._next_publish = time.monotonic() + PUBLISH_SECONDS
        self._dirty = False
        if self._totals_dirty and r is not None:
            self._totals_dirty = False
            self.publish(
                {
                    "type": "bet_totals",
                    "round_id": r.round_id,
                    "totals": {w: money(v) for w, v in r.totals().items()},
                }
            )
        staff = self.hub.count(self.id, STAFF) > 0
        snapshot = self.views.rebuild(staff=staff)
        self.publish(snapshot.state(self.clock()))
        if staff:
            self.publish({"type": "staff", "staff": dict(snapshot.staff or {})}, STAFF)
        users = self._dirty_users
        self._dirty_users = set()
        if r is not None and (r.withdrawal_open is not None or r.insurance_offers()):
            users.update(r.players)  # their Insurance caps or their option changed
        for user in users:
            if self.hub.count(self.id, user):
                self.publish({"type": "me", "me": snapshot.me(user, self.balance(user))}, user)

    def _announce(self, r: Round, event: Event, before: Deal) -> None:
        """Tell the watchers of ``event``; ``before``: the round's cards before it."""
        self.publish(
            {"type": "event", "round_id": r.round_id, "event": event_to_json(event)}, STAFF
        )
        match event:
            case RoundOpened():
                self.publish(
                    {
                        "type": "betting_open",
                        "round_id": r.round_id,
                        "deadline": self.deadline,
                        "seconds": self.config.betting_seconds if self.deadline else None,
                    }
                )
            case BetPlaced() | InsurancePlaced():
                self._totals_dirty = True  # sent with the next snapshot
            case BetsClosed():
                self.publish({"type": "betting_closed", "round_id": r.round_id})
            case CardDealt(card=card, source=source):
                # Several cards may come out in one action (a procedure deals
                # them): each message says where its own card went.
                side = before.next_side
                deal = before.add(card)
                self.publish(
                    {
                        "type": "card",
                        "round_id": r.round_id,
                        "card": str(card),
                        "source": source,
                        "index": len(before.cards),
                        "hand": side.value if side else "?",
                        "player_total": deal.player.total,
                        "banker_total": deal.banker.total,
                    }
                )
            case CardsHeld(cards=cards, clause=clause):
                self.publish(
                    {
                        "type": "cards_held",
                        "round_id": r.round_id,
                        "cards": [str(c) for c in cards],
                        "clause": clause,
                    },
                    STAFF,
                )
            case BettingReopened(clause=clause):
                self.publish(
                    {
                        "type": "betting_open",
                        "round_id": r.round_id,
                        "deadline": self.deadline,
                        "seconds": self.config.betting_seconds if self.deadline else None,
                        "clause": clause,
                    }
                )
            case PowerFailed():
                self.publish({"type": "power_failure", "round_id": r.round_id})
            case WithdrawalOffered(clause=clause, reason=reason):
                self.publish(
                    {
                        "type": "withdrawal_offered",
                        "round_id": r.round_id,
                        "clause": clause,
                        "reason": reason,
                    }
                )
            case WithdrawalClosed():
                self.publish({"type": "withdrawal_closed", "round_id": r.round_id})
            case RoundVoided(reason=reason, clause=clause):
                self.publish(
                    {
                        "type": "round_void",
                        "round_id": r.round_id,
                        "reason": reason,
                        "clause": clause,
                    }
                )
            case RoundSettled():
                self.publish({"type": "results", "round_id": r.round_id, **result_json(self, r)})
                self.publish({"type": "scoreboard", "scoreboard": self.scoreboard.to_dict()})
            case _:
                pass

    def _audit_event(self, action: str, *, user: Any = None, **detail: Any) -> None:
        from punto.server.config import AuditLog

        round_id = detail.pop("round_id", None)
        AuditLog(self.engine, self.journal).record(
            action, user=user, table_id=self.id, round_id=round_id, **detail
        )

    # -- the ledger ---------------------------------------------------------------------------

    def reconcile(self) -> list[str]:
        """Bring the ledger in step with the rounds; returns what it did.

        Called with the lock held (every action that ends bets calls it, and
        so does start-up): every open ledger bet of this table is compared
        with its round.  A bet the round does not hold was never acknowledged
        and is returned; a bet withdrawn, returned or void is returned; a bet
        of a settled round is settled; a reduced bet gets the difference back.
        The postings go to the journal together.
        """
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ledger_bets.c.bet_id, ledger_bets.c.round_id, ledger_bets.c.held).where(
                    ledger_bets.c.table_id == self.id, ledger_bets.c.status == "open"
                )
            ).all()
        if not rows:
            return []
        rounds = {r.round_id: r for r in self.table.rounds}
        bets_of: dict[str, dict[str, TableBet]] = {}
        postings: list[PlaceBet | SettleBet | ReturnBet] = []
        done: list[str] = []
        for bet_id, round_id, held in rows:
            r = rounds.get(round_id or "")
            if r is not None and r.round_id not in bets_of:
                bets_of[r.round_id] = {b.bet_id: b for b in r.bets}
            bet = bets_of[r.round_id].get(bet_id) if r is not None else None
            if r is None or bet is None:
                postings.append(self._return(bet_id, "orphan"))
                done.append(f"returned unacknowledged bet {bet_id}")
                continue
            if r.phase is Phase.SETTLED:
                s = self._settlement(r, bet_id)
                if s.outcome in SETTLED_OUTCOMES:
                    payout = int(held) + cents(s.net)
                    postings.append(
                        SettleBet(self.id, bet_id, payout, key=f"settle:{self.id}:{bet_id}")
                    )
                    done.append(f"settled {bet_id}")
                else:
                    postings.append(self._return(bet_id, "return"))
                    done.append(f"returned {bet_id} ({s.outcome})")
            elif r.phase is Phase.VOID or bet.status != "active":
                postings.append(self._return(bet_id, "return"))
                done.append(f"returned {bet_id}")
            elif cents(bet.stake) < int(held):
                stake = cents(bet.stake)
                postings.append(
                    ReturnBet(
                        self.id,
                        bet_id,
                        key=f"reduce:{self.id}:{bet_id}:{stake}",
                        amount=int(held) - stake,
                    )
                )
                done.append(f"reduced {bet_id}")
        # In parts, so that the bets and events of the other tables get in between.
        for start in range(0, len(postings), POSTINGS_AT_ONCE):
            for posted in self.journal.post(postings[start : start + POSTINGS_AT_ONCE]):
                # A bet settled or returned meanwhile is left alone; anything else is wrong.
                if isinstance(posted, LedgerError) and not isinstance(posted, BetStateError):
                    raise posted
        return done

    def _settlement(self, r: Round, bet_id: str) -> BetSettlement:
        key = r.round_id
        by_bet = self._settlements.get(key)
        if by_bet is None:
            by_bet = {s.bet.bet_id: s for s in self.results(r)}
            self._settlements = {key: by_bet}
        return by_bet[bet_id]

    def _return(self, bet_id: str, why: str) -> ReturnBet:
        """Return the whole of what the bet still holds (once: a settled or
        returned bet is left alone)."""
        return ReturnBet(self.id, bet_id, key=f"{why}:{self.id}:{bet_id}")

    # -- bets -----------------------------------------------------------------------------------

    def _live_round(self) -> Round:
        if self.stopped:
            raise TableStoppedError(f"table {self.id} is not running")
        r = self.round
        if r is None:
            raise PhaseError(
                "no round has been opened at this table yet",
                clause=self.game.clause("place_bets"),
                hint="wait for 'Place your bets, please'",
            )
        return r

    def _default_position(self, r: Round, username: str, wager: str, stake: Decimal) -> int:
        """Where the player's first bet of the round lies; for a first bet, the
        first position whose area takes it (MBS 3.7, 3.5.1: an area holds three
        wagers within its maximum), else the first position (whose refusal
        then says why)."""
        mine = self._positions.get((r.round_id, username))
        if mine is None:
            mine = next((b.position for b in r.bets if b.player == username), None)
            if mine is not None:
                self._positions[(r.round_id, username)] = mine
        if mine is not None:
            return mine
        low, high = self.positions()
        return next(
            (p for p in range(low, high + 1) if r.can_place_bet(username, p, wager, stake)), low
        )

    def place_bet(
        self,
        user_id: int,
        username: str,
        wager: str,
        stake: Decimal,
        *,
        position: int | None = None,
        key: str | None = None,
        round_id: str | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """A player's bet (or Insurance Plus bet, for an ``*_insurance``
        wager) from their own wallet; returns (HTTP status, response).
        With ``round_id``, refused unless that round is the one in play
        (:mod:`punto.server.named_round`; a retry's answer comes first).

        With ``key``, a retry gets the first answer (from memory if this
        process gave it, else from the database), never a second bet; two
        requests with one key at once get one bet.

        A bet whose money is surely there (:meth:`Journal.available`) is
        taken into the round at once and the table's lock released while
        its unit commits, so that many bets of a table share a commit; the
        answer waits for the commit.  Should the commit fail after all, the
        table is restored from its log (:meth:`_resync`) and the request
        fails.  Other bets (a player the journal has not seen, or short of
        money) commit before the round takes them: a refusal costs nothing.
        """
        full_key = f"{user_id}:{key}" if key is not None else None
        stored = self._request_row(full_key) if full_key is not None else None
        for _attempt in range(5):
            waiting: _PendingBet | None = None
            with self.lock:
                r = self._live_round()
                insurance = self.game.wager(wager, self.table.layout).insures is not None
                where = (
                    self._default_position(r, username, wager, stake)
                    if position is None
                    else position
                )
                # The request as asked: a bet with no position is the same request
                # wherever the first position with room put it (a retry may come
                # after the round, and the default, moved on).
                request_hash = _request_hash(
                    {"table": self.id, "wager": wager, "stake": money(stake), "position": position}
                )
                if full_key is not None:
                    answer = self._answer_for(full_key, request_hash, stored, username)
                    if answer is not None:
                        return answer
                    stored = None
                    waiting = self._pending_keys.get(full_key)
                    if waiting is not None and waiting.request_hash != request_hash:
                        raise IdempotencyKeyError(
                            "this Idempotency-Key was already used for a different bet",
                            hint="use a new key for a new bet; repeat a key only to retry "
                            "the same request",
                        )
                if waiting is None:
                    check_named_round(self.game, r, round_id)
                    try:
                        pending = self._start_bet(
                            r,
                            user_id,
                            username,
                            wager,
                            stake,
                            where,
                            insurance,
                            full_key,
                            request_hash,
                        )
                    except RequestKeyTakenError:
                        # Reserved meanwhile (another process, or a request before a restart).
                        assert full_key is not None
                        stored = self._request_row(full_key)
                        continue
                    if isinstance(pending, tuple):
                        return pending
                    assert pending is not None
            if waiting is not None:
                # The same request is in flight: its answer is ours (if it fails, try again).
                try:
                    _seq, posted = waiting.future.result(timeout=60)
                except Exception:
                    continue
                return 201, self._bet_json_response(
                    waiting.round_id, waiting.bet, waiting.username, posted[0].player_balance
                )
            assert pending is not None
            assert not isinstance(pending, tuple)
            try:
                return self._finish_bet(pending)
            except RequestKeyTakenError:
                assert full_key is not None
                stored = self._request_row(full_key)  # the table is restored: answer from it
        raise IdempotencyKeyError(  # pragma: no cover - a reservation that keeps coming back
            "this Idempotency-Key is in use by another request",
            hint="use a new key for a new bet",
        )

    def _start_bet(
        self,
        r: Round,
        user_id: int,
        username: str,
        wager: str,
        stake: Decimal,
        position: int,
        insurance: bool,
        full_key: str | None,
        request_hash: str,
        *,
        only_in_flight: bool = False,
        notify: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None,
        claimed: bool = False,
    ) -> _PendingBet | tuple[int, dict[str, Any]] | None:
        """Lock held: the bet into the round and its unit to the journal.  Returns
        the answer (written already), or the bet in flight (:meth:`_finish_bet`);
        with ``only_in_flight``, None rather than wait for a commit."""
        wallet, amount = f"player:{username}", cents(stake)
        available = self.journal.available(wallet)
        in_flight = available is not None and available >= amount
        if only_in_flight and not in_flight:
            return None
        bet_id = f"{r.round_id}-{secrets.token_hex(5)}"
        posting = PlaceBet(
            wallet, self.id, bet_id, r.round_id, amount, key=f"bet:{self.id}:{bet_id}"
        )
        # What _bet_json says of a bet just placed (an Insurance bet's moment is the engine's).
        bet: dict[str, Any] | None = (
            None
            if insurance
            else {
                "bet_id": bet_id,
                "wager": wager,
                "stake": money(stake),
                "position": position,
                "status": "active",
                "moment": None,
                "clause": None,
            }
        )
        request: dict[str, Any] | None = None
        if full_key is not None:
            request = {
                "key": full_key,
                "account_id": user_id,
                "request_hash": request_hash,
                "table_id": self.id,
                "round_id": r.round_id,
                "bet_id": bet_id,
            }
            if bet is not None:  # the answer is stored with the bet (the journal adds the balance)
                request["answer"] = {"table_id": self.id, "round_id": r.round_id, "bet": bet}
            if claimed:  # looked up already, and held in the journal while in flight
                request["claimed"] = True
        stored = request is not None and "answer" in request
        # The stake, the reservation and the event: one unit (see the module's docstring).
        self.log.attach([posting], request, wait=not in_flight, notify=notify)
        self.log.submitted = None
        self.journal.reserve(wallet, amount)  # until written: no other bet counts it twice
        try:
            if insurance:
                r.place_insurance(username, wager, stake, role=Role.PLAYER, bet_id=bet_id)
            else:
                r.place_bet(username, position, wager, stake, role=Role.PLAYER, bet_id=bet_id)
        except BaseException:
            if not in_flight or self.log.submitted is None:
                self.journal.release(wallet, amount)
            raise
        finally:
            self.log.detach()
        if not in_flight:
            self.journal.release(wallet, amount)
        if (r.round_id, username) not in self._positions:
            if len(self._positions) > 100_000:
                self._positions.clear()
            self._positions[(r.round_id, username)] = position
        if bet is None:
            found = find_bet(r, bet_id)
            assert found is not None
            bet = _bet_json(found)
        if not in_flight:
            balance = self.log.posted[0].player_balance if self.log.posted else None
            response = self._bet_json_response(r.round_id, bet, username, balance)
            self._answered(full_key, request_hash, response, [username], stored=stored)
            return 201, response
        future = self.log.submitted
        assert future is not None
        pending = _PendingBet(
            future,
            r.round_id,
            bet_id,
            bet,
            wallet,
            amount,
            username,
            full_key,
            request_hash,
            self._generation,
            stored,
            claimed,
        )
        self._in_flight.add(future)
        if full_key is not None:
            self._pending_keys[full_key] = pending
        return pending

    def _finish_bet(self, pending: _PendingBet) -> tuple[int, dict[str, Any]]:
        """No lock held: wait for the bet's commit, then answer."""
        try:
            _seq, posted = pending.future.result()
        except BaseException:
            self._bet_failed(pending)
            raise
        finally:
            self.journal.release(pending.wallet, pending.amount)
        response = self._bet_json_response(
            pending.round_id, pending.bet, pending.username, posted[0].player_balance
        )
        with self.lock:
            self._bet_written(pending, response)
        return 201, response

    def _bet_failed(self, pending: _PendingBet) -> None:
        """The unit of a bet in flight did not commit: the round must forget it."""
        if pending.claimed and pending.full_key is not None:
            self.journal.unclaim(pending.full_key)
        with self.lock:
            self._in_flight.discard(pending.future)
            if pending.full_key is not None:
                self._pending_keys.pop(pending.full_key, None)
            if self._generation == pending.generation:
                self._resync(f"bet {pending.bet_id} was taken but not written")

    def _bet_written(self, pending: _PendingBet, response: dict[str, Any]) -> None:
        """Lock held: the bet in flight is written; keep its answer, tell the watchers."""
        if pending.claimed and pending.full_key is not None:
            self.journal.unclaim(pending.full_key)  # in the database now: it speaks for it
        self._in_flight.discard(pending.future)
        if pending.full_key is not None:
            self._pending_keys.pop(pending.full_key, None)
        self._answered(
            pending.full_key,
            pending.request_hash,
            response,
            [pending.username],
            stored=pending.stored,
        )

    async def place_bet_async(
        self,
        user_id: int,
        username: str,
        wager: str,
        stake: Decimal,
        *,
        position: int | None = None,
        key: str | None = None,
        round_id: str | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """:meth:`place_bet` for the event loop: a bet that can be taken at once
        (the table free, the money surely there, the key new) is taken without
        leaving the loop, and its commit awaited; anything else goes to
        :meth:`place_bet` in a worker thread."""
        full_key = f"{user_id}:{key}" if key is not None else None
        quick: _PendingBet | tuple[int, dict[str, Any]] | None = None
        new_key = full_key is None or (
            full_key not in self._answers
            and full_key not in self._pending_keys
            and await self.journal.requests.find(full_key) is None
        )
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if new_key and self.lock.acquire(blocking=False):
            try:
                quick = self._quick_bet(
                    user_id, username, wager, stake, position, full_key, waiter, round_id
                )
            finally:
                self.lock.release()
        again = functools.partial(
            self.place_bet,
            user_id,
            username,
            wager,
            stake,
            position=position,
            key=key,
            round_id=round_id,
        )
        if quick is None:
            return await asyncio.to_thread(again)
        if isinstance(quick, tuple):
            return quick
        pending = quick
        try:
            _seq, posted = await waiter  # settled with the rest of its group
        except asyncio.CancelledError:
            # The request went away, not the bet: a worker sees it through (answer kept).
            asyncio.get_running_loop().run_in_executor(None, self._finish_bet, pending)
            raise
        except BaseException as error:
            self.journal.release(pending.wallet, pending.amount)
            await asyncio.to_thread(self._bet_failed, pending)
            if isinstance(error, RequestKeyTakenError):
                return await asyncio.to_thread(again)
            raise
        self.journal.release(pending.wallet, pending.amount)
        response = self._bet_json_response(
            pending.round_id, pending.bet, pending.username, posted[0].player_balance
        )
        if self.lock.acquire(blocking=False):
            try:
                self._bet_written(pending, response)
            finally:
                self.lock.release()
        else:
            await asyncio.to_thread(self._bet_written_locked, pending, response)
        return 201, response

    def _bet_written_locked(self, pending: _PendingBet, response: dict[str, Any]) -> None:
        with self.lock:
            self._bet_written(pending, response)

    def _quick_bet(
        self,
        user_id: int,
        username: str,
        wager: str,
        stake: Decimal,
        position: int | None,
        full_key: str | None,
        waiter: asyncio.Future[Any],
        round_id: str | None = None,
    ) -> _PendingBet | tuple[int, dict[str, Any]] | None:
        """Lock held, on the event loop: take the bet if nothing has to wait."""
        r = self._live_round()
        insurance = self.game.wager(wager, self.table.layout).insures is not None
        where = self._default_position(r, username, wager, stake) if position is None else position
        request_hash = _request_hash(  # the request as asked (see place_bet)
            {"table": self.id, "wager": wager, "stake": money(stake), "position": position}
        )
        if full_key is not None and (full_key in self._answers or full_key in self._pending_keys):
            return None  # it came meanwhile: the thread route answers
        check_named_round(self.game, r, round_id)  # a new request: its round must be in play
        if full_key is not None and not self.journal.claim(full_key):
            return None  # the same key at another table, in flight: the thread route
        try:
            taken = self._start_bet(
                r,
                user_id,
                username,
                wager,
                stake,
                where,
                insurance,
                full_key,
                request_hash,
                only_in_flight=True,
                notify=(asyncio.get_running_loop(), waiter),
                claimed=full_key is not None,
            )
        except BaseException:
            if full_key is not None:
                self.journal.unclaim(full_key)
            raise
        if taken is None and full_key is not None:
            self.journal.unclaim(full_key)
        return taken

    def _answered(
        self,
        full_key: str | None,
        request_hash: str,
        response: dict[str, Any],
        users: list[str],
        *,
        stored: bool = False,
    ) -> None:
        if full_key is not None:
            self._remember(full_key, request_hash, response)
            self._store_response(full_key, 201, response, stored)
        self._changed(users, coalesce=True)

    def _quiesce(self) -> None:
        """Lock held, before a table action: let the bets in flight commit (an action
        may name a bet, and the log must never name one that is not in it)."""
        if not self._in_flight:
            return
        self.journal.barrier()
        failed = [f for f in self._in_flight if f.done() and f.exception() is not None]
        self._in_flight = {f for f in self._in_flight if not f.done()}
        if failed:
            self._resync(f"{len(failed)} bet(s) taken but not written")

    def _resync(self, why: str) -> None:
        """Lock held: the round took a bet whose unit did not commit -- restore the
        table from its log, the truth (everything submitted is written first)."""
        log.error("table %s: %s; restoring it from its log", self.id, why)
        self._generation += 1
        self.journal.barrier()
        try:
            self.table = self.config.live_table(self.log, limits=self.table.limits, recover=False)
        except Exception:
            log.exception("table %s cannot be restored; it stops", self.id)
            self.stopped = True
            return
        self._results_cache.clear()
        self._settlements.clear()
        self._positions.clear()
        self.views.reset()
        self.scoreboard = self._rebuild_scoreboard()
        r = self.round
        self._published = (r.round_id, len(r.events), r.deal) if r is not None else ("", 0, Deal())
        self._changed()

    def _remember(self, full_key: str, request_hash: str, response: dict[str, Any]) -> None:
        self._answers[full_key] = (request_hash, json.dumps(response))
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)

    def _bet_json_response(
        self, round_id: str, bet: dict[str, Any], username: str, balance: int | None
    ) -> dict[str, Any]:
        return {
            "table_id": self.id,
            "round_id": round_id,
            "bet": bet,
            "balance": money(self.balance(username) if balance is None else balance),
        }

    def _bet_response(self, r: Round, bet_id: str, username: str) -> dict[str, Any]:
        bet = find_bet(r, bet_id)
        assert bet is not None
        return self._bet_json_response(r.round_id, _bet_json(bet), username, None)

    def _request_row(self, full_key: str) -> tuple[Any, ...] | None:
        """The stored reservation of a bet request (one indexed read)."""
        return self.journal.requests.one(full_key)

    def _answer_for(
        self,
        full_key: str,
        request_hash: str,
        stored: tuple[Any, ...] | None,
        username: str,
    ) -> tuple[int, dict[str, Any]] | None:
        """Lock held: the answer already given to this key, or None to go ahead."""
        different = IdempotencyKeyError(
            "this Idempotency-Key was already used for a different bet",
            hint="use a new key for a new bet; repeat a key only to retry the same request",
        )
        given = self._answers.get(full_key)
        if given is not None:
            if given[0] != request_hash:
                raise different
            answer: dict[str, Any] = json.loads(given[1])
            return 201, answer
        if stored is None:
            return None
        stored_hash, table_id, round_id, bet_id, status, response = stored
        if stored_hash != request_hash or table_id != self.id:
            raise different
        if response is not None:
            return int(status), json.loads(response)
        # The answer was lost before it was stored (the process died): rebuild it.
        r = next((x for x in self.table.rounds if x.round_id == round_id), None)
        if r is not None and find_bet(r, bet_id) is not None:
            answer = self._bet_response(r, bet_id, username)
            self._remember(full_key, request_hash, answer)
            self._store_response(full_key, 201, answer)
            return 201, answer
        # A reservation from before bets were written whole, whose bet never got in.
        self.reconcile()  # its stake, if it was taken, goes back
        self._unreserve(full_key)
        return None

    def _unreserve(self, full_key: str) -> None:
        def work(conn: Connection) -> None:
            conn.execute(
                delete(server_requests).where(
                    server_requests.c.key == full_key, server_requests.c.response.is_(None)
                )
            )

        self.journal.run(work)

    def _store_response(
        self, full_key: str, status: int, response: dict[str, Any], stored: bool = False
    ) -> None:
        """Keep the answer for a retry (written in the next group; not waited for:
        a retry before it is written gets the same answer rebuilt from the round).
        ``stored``: the journal wrote it with the bet already."""
        if not stored:
            self.journal.store_response(full_key, status, json.dumps(response, sort_keys=True))

    def withdraw_bet(self, username: str, bet_id: str) -> dict[str, Any]:
        """Take back one's own bet before 'No more bets'."""
        with self.lock:
            self._quiesce()
            r = self._live_round()
            bet = next((b for b in r.bets if b.bet_id == bet_id and b.player == username), None)
            if bet is None:
                raise BetNotFoundError(
                    f"you have no bet {bet_id!r} in round {r.round_id}",
                    hint="withdraw one of your own bets of the round in play",
                )
            r.withdraw_bet(bet_id, Role.PLAYER)
            self.reconcile()
            self._changed([username], coalesce=True)
            return {
                "bet": _bet_json(next(b for b in r.bets if b.bet_id == bet_id)),
                "balance": money(self.balance(username)),
            }

    def take_withdrawal(self, username: str) -> dict[str, Any]:
        """Take the withdrawal option open now: all one's wagers are returned."""
        with self.lock:
            self._quiesce()
            r = self._live_round()
            r.withdraw_player(username, Role.PLAYER)
            self.reconcile()
            self._changed([username])
            return {"balance": money(self.balance(username))}

    # -- the dealer ---------------------------------------------------------------------------

    def reconfigure(
        self, config: TableConfig, store: Callable[[], None], *, apply: bool = True
    ) -> None:
        """Under the lock: check a new configuration against the table in play,
        ``store`` it (which may refuse it too), and (``apply``) take it on: new
        limits and table facts from the next round, logged with it.  Whether
        Insurance is offered changes between rounds only (RWS 4.2.2: "all
        subsequent Players to the game"), the card source between shoes only
        (3.22), Method C only in HLGA (3.12).  The watchers are told by
        :meth:`changed`, once the automatic dealer runs again."""
        with self.lock:
            table = self.table
            if config.insurance_offered != self.config.insurance_offered:
                r = self.round
                if r is not None and r.phase not in (Phase.SETTLED, Phase.VOID):
                    raise PhaseError(
                        f"round {r.round_id} is {r.phase.value}: whether Insurance is "
                        "offered changes between rounds",
                        clause=self.game.clause("no_insurance_notice"),
                        hint="change it once the round in play is settled or void",
                    )
            card_handling.check_hlga_change(self, config.hlga)
            if config.card_source != self.config.card_source:
                table.check_set_physical_shoe()
            store()
            if not apply:
                return
            self.config = config
            table.hlga = config.hlga  # logged with the limits, next line
            table.insurance_offered = config.insurance_offered  # likewise
            table.limits = config.limits
            # the table facts (MBS 5.9, RWS 5.10): logged, from the next round
            table.electronic_device = config.electronic_device
            table.face_down = config.face_down
            # checked above: between shoes; the next shoe is from the new source
            table.set_physical_shoe(physical(config.card_source))

    def changed(self) -> None:
        """Tell the watchers and readers that the table changed (its
        configuration), and wake the automatic dealer."""
        with self.lock:
            self._changed()

    def open_round(self, role: Role = Role.DEALER, user: Any = None) -> dict[str, Any]:
        with self.lock:
            self._quiesce()
            if self.stopped:
                raise TableStoppedError(f"table {self.id} is not running")
            shoe_before = self.table.shoe_id
            r = self.table.new_round(role)
            if self.table.shoe_id != shoe_before:
                self._new_board()
            self.deadline = (
                self.clock() + self.config.betting_seconds if self.config.mode == "auto" else None
            )
            self.window = None
            self.next_round_at = None
            self._changed()
            return {"round_id": r.round_id, "deadline": self.deadline}

    def _new_board(self) -> None:
        """A new shoe: the roads start again (lock held)."""
        self.scoreboard = Scoreboard(pair_rule=self.table.pair_rule)
        self.publish({"type": "scoreboard", "scoreboard": self.scoreboard.to_dict()})

    def replace_shoe(self, clause: str | None, role: Role) -> dict[str, Any]:
        """Replace the cards with a new shuffled set where the rules say so
        (MBS 5.11.5, 5.12.2, 5.13; RWS 5.11.2): a new shoe, its commitment
        published, the roads started again.  ``clause`` None: the one that
        applies now (the replacement due first); a clause given is checked
        by the engine like any other."""
        with self.lock:
            self._quiesce()
            if clause is None:
                clause = self._replacement_clause(role)
            shoe = self.table.replace_shoe(role, clause)
            self._new_board()
            self._changed()
            return {
                "shoe_id": self.table.shoe_id,
                "clause": clause,
                "commitment": shoe.commitment if shoe is not None else None,  # physical: none
            }

    def _replacement_clause(self, role: Role) -> str:
        """The clause under which the cards may be replaced now (lock held)."""
        game = self.game
        candidates = [self.table.replacement_due]
        candidates += [game.clause(key) for key in ("replace_cards", "cards_replaced")]
        for clause in candidates:
            if clause is not None and self.table.can_replace_shoe(role, clause):
                return clause
        named = [c for c in candidates if c is not None]
        raise PhaseError(
            "no rule calls for the cards to be replaced now",
            clause=named[0] if named else None,
            hint="the cards are replaced after a void "
            + (f"({', '.join(named)}) " if named else "")
            + "or when a round calls for it; a shoe whose cutting card came out is "
            "changed by the next new round",
        )

    def close_betting(self, role: Role = Role.DEALER, user: Any = None) -> dict[str, Any]:
        """'No more bets'.  An exceeded differential: at RWS the excess is
        rejected first (5.1); at MBS the Dealer asks the players instead
        (5.18.1, logged once) and the engine refuses to close (5.18)."""
        with self.lock:
            self._quiesce()
            r = self._live_round()
            self.ask_differential(r)
            rejected = []
            if (
                r.excess_over_limits()
                and self.game.limit_policy("differential")
                == "reject-excess-seated-first-else-pro-rata"
            ):
                rejected = r.reject_excess(role)
                self.reconcile()
            r.close_betting(role)
            self.deadline = None
            users = [b.player for b in r.bets if b.bet_id in rejected]
            self._changed(users)
            return {"round_id": r.round_id, "rejected": rejected}

    # -- the differential (MBS 5.18; punto.server.differential) -------------------------

    def ask_differential(self, r: Round) -> bool:
        """Lock held: whether an exceeded differential holds betting open at
        this MBS table.  The first time in the round, the Dealer's request to
        the heavier hand (5.18.1) is logged in the round and the pit is
        alerted (5.18.3 is theirs if the players do not meet it)."""
        if (
            r.phase is not Phase.BETTING
            or not r.differential_exceeded()
            or self.game.limit_policy("differential") != differential.ASK_POLICY
        ):
            return False
        if not differential.asked(self.game, r):
            text = differential.request_text(self.game, r)
            asks = self.game.clause("differential_decrease") or self.game.clause("differential")
            assert asks is not None
            r.note_irregularity(asks, text, Role.DEALER)
            self._audit_event("differential_exceeded", round_id=r.round_id, clause=asks, text=text)
            self.publish(
                {
                    "type": "alert",
                    "round_id": r.round_id,
                    "clause": self.game.clause("differential_remove"),
                    "text": f"betting held open: {text}",
                },
                STAFF,
            )
            self._changed(r.players)
        return True

    def alerts(self) -> list[dict[str, Any]]:
        """What the pit must see at this table now (from :meth:`snapshot`)."""
        return [dict(a) for a in self.snapshot().alerts]

    def decrease_bet(
        self, user_id: int, username: str, bet_id: str, stake: Decimal, key: str | None
    ) -> dict[str, Any]:
        """A player decreases their own wager on the heavier hand (MBS 5.18.1)."""
        clause = self.game.clause("differential_decrease")
        return self._differential_change(
            user_id, "decrease", bet_id, stake, Role.PLAYER, key, owner=username, clause=clause
        )

    def remove_bet(self, user_id: int, bet_id: str, role: Role, key: str | None) -> dict[str, Any]:
        """The Pit Manager removes a wager the request did not bring down (MBS 5.18.3)."""
        clause = self.game.clause("differential_remove")
        return self._differential_change(
            user_id, "remove", bet_id, Decimal(0), role, key, owner=None, clause=clause
        )

    def _differential_change(
        self,
        user_id: int,
        kind: str,
        bet_id: str,
        stake: Decimal,
        role: Role,
        key: str | None,
        *,
        owner: str | None,
        clause: str | None,
    ) -> dict[str, Any]:
        """A wager decreased (``owner``'s own) or removed, checked under its
        clause (:mod:`punto.server.differential`); the ledger returns the
        difference.  With ``key``, the event and the key's reservation are
        written together and a retry gets the first answer."""
        with self.lock:
            self._quiesce()
            r = self._live_round()
            full_key = f"{user_id}:{kind}:{key}" if key is not None else None
            request_hash = _request_hash(
                {"table": self.id, "kind": kind, "bet": bet_id, "stake": money(stake)}
            )
            if full_key is not None:
                answer = self._change_answer(full_key, request_hash, bet_id, stake, clause)
                if answer is not None:
                    return answer
            bet = find_bet(r, bet_id)
            if bet is None or (owner is not None and bet.player != owner):
                raise BetNotFoundError(
                    f"{'you have' if owner else 'there is'} no bet {bet_id!r} in round "
                    f"{r.round_id}",
                    clause=clause,
                    hint="name a bet of the round in play" + (" that is your own" if owner else ""),
                )
            if owner is not None:
                differential.check_decrease(self.game, r, bet, stake)
            else:
                differential.check_remove(self.game, r, bet, role)
            request = None
            if full_key is not None:
                request = {
                    "key": full_key,
                    "account_id": user_id,
                    "request_hash": request_hash,
                    "table_id": self.id,
                    "round_id": r.round_id,
                    "bet_id": bet_id,
                }
            self.log.attach([], request)  # the key is reserved with the event, or not at all
            try:
                r.reduce_bet(bet_id, stake, role)
            finally:
                self.log.detach()
            self.reconcile()  # the difference goes back to the player's wallet
            response = self._change_response(r, bet_id, bet.stake)
            if full_key is not None:
                self._remember(full_key, request_hash, response)
                self._store_response(full_key, 200, response)
            self._changed([bet.player])
            return response

    def _change_response(self, r: Round, bet_id: str, before: Decimal) -> dict[str, Any]:
        bet = find_bet(r, bet_id)
        assert bet is not None
        return {
            "table_id": self.id,
            "round_id": r.round_id,
            "bet": _bet_json(bet, player=True),
            "returned": money(before - (bet.stake if bet.status == "active" else 0)),
            "balance": money(self.balance(bet.player)),
            "differential": differential.differential_json(self.game, r),
        }

    def _change_answer(
        self, full_key: str, request_hash: str, bet_id: str, stake: Decimal, clause: str | None
    ) -> dict[str, Any] | None:
        """Lock held: the answer already given to this key (a change request),
        or None to go ahead."""

        def rebuilt() -> dict[str, Any]:
            stored = self._request_row(full_key)
            assert stored is not None  # asked only once the key is found written
            r = next(x for x in self.table.rounds if x.round_id == stored[2])
            return self._change_response(r, bet_id, differential.stake_before(r, bet_id, stake))

        return self._keyed_answer(full_key, request_hash, rebuilt, clause)

    # -- other keyed actions (card handling: punto.server.handling) ---------------------------

    def keyed_action(
        self,
        user_id: int,
        kind: str,
        request: Mapping[str, Any],
        key: str | None,
        act: Callable[[], None],
        answer: Callable[[], dict[str, Any]],
        *,
        clause: str | None = None,
        users: Iterable[str] = (),
        done: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Under the lock: ``act`` (which checks, then writes its events), and
        the response ``answer`` gives after it.  With ``key``, the first event
        and the key's reservation commit together, a retry of the same
        request gets the first answer (rebuilt by ``answer`` if the process
        died before storing it), and another request with the key is refused
        (``clause``: the action's).  ``done`` is called with the response
        once the action is taken (not for a retry): the audit, say."""
        with self.lock:
            self._quiesce()
            if self.stopped:
                raise TableStoppedError(f"table {self.id} is not running")
            full_key = f"{user_id}:{kind}:{key}" if key is not None else None
            request_hash = _request_hash({"table": self.id, "kind": kind, **request})
            if full_key is not None:
                given = self._keyed_answer(full_key, request_hash, answer, clause)
                if given is not None:
                    return given
                r = self.round
                self.log.attach(
                    [],
                    {
                        "key": full_key,
                        "account_id": user_id,
                        "request_hash": request_hash,
                        "table_id": self.id,
                        "round_id": r.round_id if r is not None else "",
                        "bet_id": kind,
                    },
                )
            try:
                act()
            finally:
                self.log.detach()
            response = answer()
            if full_key is not None:
                self._remember(full_key, request_hash, response)
                self._store_response(full_key, 200, response)
            self._changed(users)
            if done is not None:
                done(response)
            return response

    def _keyed_answer(
        self,
        full_key: str,
        request_hash: str,
        answer: Callable[[], dict[str, Any]],
        clause: str | None,
    ) -> dict[str, Any] | None:
        """Lock held: the answer already given to ``full_key``, or None to go ahead."""
        different = IdempotencyKeyError(
            "this Idempotency-Key was already used for a different request",
            clause=clause,
            hint="use a new key for a new request; repeat a key only to retry the same one",
        )
        given = self._answers.get(full_key)
        if given is not None:
            if given[0] != request_hash:
                raise different
            first: dict[str, Any] = json.loads(given[1])
            return first
        stored = self._request_row(full_key)
        if stored is None:
            return None
        stored_hash, table_id, _, _, _, response = stored
        if stored_hash != request_hash or table_id != self.id:
            raise different
        if response is not None:
            first = json.loads(response)
            return first
        rebuilt = answer()  # written, but the answer was lost before it was stored
        self._remember(full_key, request_hash, rebuilt)
        self._store_response(full_key, 200, rebuilt)
        return rebuilt

    def deal(self, card: Card | None = None, *, source: str = "shoe") -> dict[str, Any]:
        """The next card: from the server's shoe (``card`` None), or keyed or
        read from outside; the engine puts it where the Table of Play says."""
        with self.lock:
            self._quiesce()
            r = self._live_round()
            before = len(r.deal.cards)
            if card is None:
                if self.config.card_source == "device" and not self.table.held:
                    raise ActionError(
                        "this table's cards come from its card-reading shoe",
                        hint="key the card in, or let the device send it",
                    )
                self.table.draw()  # a card held from the last round first (RWS 5.8)
            else:
                r.deal_card(card, source)
            deal = r.deal
            self._changed()
            dealt = (
                hands(deal)[-1]
                if len(deal.cards) > before
                else {"index": None, "card": None, "hand": None}  # the cut card came out first
            )
            return {
                "round_id": r.round_id,
                **dealt,
                "phase": r.phase.value,
                "complete": deal.is_complete,
                "withdrawal": r.withdrawal_open.clause if r.withdrawal_open is not None else None,
            }

    def settle(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
            self._quiesce()
            r = self._live_round()
            r.settle(role)
            self.scoreboard.add(Result.from_coup(r.deal.to_coup(), self.table.pair_rule))
            self.reconcile()
            self.next_round_at = self.clock() + self.config.result_seconds
            self._changed(r.players)
            return {"round_id": r.round_id, **result_json(self, r)}

    def power_failure(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
            self._quiesce()
            r = self._live_round()
            consequence = r.power_failure(role)
            self.reconcile()
            if r.phase is Phase.VOID:
                self.next_round_at = self.clock() + self.config.result_seconds
            self._changed(r.players)
            return {"round_id": r.round_id, "consequence": consequence}

    def procedures(self) -> tuple[str, ...]:
        """The irregularity procedures this table's game covers (:func:`covered_procedures`)."""
        t = self.table
        return covered_procedures(self.game.id, t.layout, t.insurance_offered)

    def server_defaults(self, spec: ActionSpec) -> dict[str, Any]:
        """What the server knows of a procedure's parameters (JSON form, as the
        dealer console offers them): the shoe in use and the cards out of it
        before this round (MBS 5.11), and whether the table is in HLGA."""
        t = self.table
        known: dict[str, Any] = {"hlga": t.hlga}
        if t.shoe is not None:
            known["shoe"] = [str(c) for c in t.shoe.order]
            known["discards"] = [str(c) for c in t.discards()]
        return {p.name: known[p.name] for p in spec.params if p.name in known}

    def irregularity(self, spec: ActionSpec, args: Mapping[str, Any]) -> dict[str, Any]:
        """Run the irregularity procedure ``spec`` (from
        :data:`punto.table.replay.IRREGULARITIES`) with its parameters read
        (``role`` among them) on the round in play, or on the last round where
        the procedure allows a finished one.  The procedure is tried on a copy
        first (a refusal writes nothing); the players in ``withdrawing`` must
        have wagers in the round and the procedure must give them the option.
        Then the ledger follows the round (voided and withdrawn wagers are
        returned), the automatic dealer's timers are set as after a void, and
        the watchers are told.  A settled round is paid on the ledger: a
        procedure that changes its results (a void after settlement, MBS 5.2;
        RWS 5.5.3) resettles the ledger first (:meth:`_resettle_first`)."""
        assert spec.run is not None
        assert spec.irregularity
        with self.lock:
            self._quiesce()
            r = self._live_round()
            withdrawing = tuple(args.get("withdrawing") or ())
            if withdrawing:
                eligible = [p for p in r.players if any(b.player == p for b in r.active_bets)]
                strangers = [p for p in dict.fromkeys(withdrawing) if p not in eligible]
                if strangers:
                    raise ActionInputError(
                        f"withdrawing: {', '.join(strangers)} "
                        f"{'has' if len(strangers) == 1 else 'have'} no wager in round "
                        f"{r.round_id} to withdraw",
                        hint="players with wagers: " + (", ".join(eligible) or "none"),
                    )
                check_withdrawing(spec, r, args, withdrawing)
            was_settled = r.phase is Phase.SETTLED
            if was_settled:
                self._resettle_first(spec, r, args)
            try:
                ruling: Ruling = spec.run(r, args)
            finally:
                self._results_cache.pop(r.round_id, None)
                self._settlements.pop(r.round_id, None)
                if was_settled:  # the ledger follows whatever the round now says
                    self.reconcile_finished(r)
            if was_settled and r.phase is not Phase.SETTLED:  # its coup leaves the roads
                self.scoreboard = self._rebuild_scoreboard()
                self.publish({"type": "scoreboard", "scoreboard": self.scoreboard.to_dict()})
            self.reconcile()
            now = self.clock()
            if r.phase in (Phase.VOID, Phase.SETTLED):
                self.next_round_at = now + self.config.result_seconds
            elif r.phase is Phase.BETTING:  # betting opened again (MBS 5.9)
                self.deadline = (
                    now + self.config.betting_seconds if self.config.mode == "auto" else None
                )
            self.window = None
            self.next_card_at = now + self.config.card_delay
            self._changed(r.players)
            role: Role = args["role"]
            return {
                "round_id": r.round_id,
                "phase": r.phase.value,
                "ruling": ruling_json(None, spec.name, role, ruling),
                "void": None
                if r.void is None
                else {"reason": r.void.reason, "clause": r.void.clause},
                "held": [str(c) for c in self.table.held],
            }

    def _resettle_first(self, spec: ActionSpec, r: Round, args: Mapping[str, Any]) -> None:
        """A procedure that changes the results of a settled round (a void
        after settlement, MBS 5.2; RWS 5.5.3): tried on a copy; it takes a Pit
        Manager (acting, or confirming); and what it changes on the ledger is
        posted *before* the round changes, all or nothing, so that a player
        who no longer has the winnings to give back stops it with nothing
        changed.  Should the server stop in between, the
        start-up's :meth:`reconcile_finished` puts the ledger back in step with
        the round."""
        assert spec.run is not None
        copy = r.fork()
        ruling: Ruling = spec.run(copy, args)
        if copy.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {r.round_id} is settled and paid: {spec.name} would make it "
                f"{copy.phase.value} again ({ruling.consequence})",
                clause=ruling.clause,
                hint="a settled round can only stand or be voided",
            )
        before, after = self._finished_nets(r), self._finished_nets(copy)
        if before == after:
            return
        clause = copy.void.clause if copy.void is not None else None
        # Taking back what was paid is the pit manager's, as a void is (issue 5).
        role: Role = args["role"]
        role.check_acts_as(Role.PIT_MANAGER, "take back the payments of a settled round", clause)
        why = f"{spec.name} after settlement: round {copy.phase.value}"
        if copy.void is not None:
            why += f", {copy.void.reason} ({copy.void.clause})"
        try:
            self._resettle(r, after, why)
        except InsufficientFundsError as error:
            raise InsufficientFundsError(
                f"round {r.round_id} cannot be resettled: {error.message}",
                clause=clause,
                hint="the player no longer holds the winnings the void takes back (staked "
                "at another table, or cashed): once the wallet holds them, apply the "
                "procedure again",
            ) from error

    def _finished_nets(self, r: Round) -> dict[str, int]:
        """What each bet of the finished round ``r`` comes to for its player
        (:meth:`Ledger.bet_net`): nothing for a void round, the net of its
        settlement for a settled one (a push or a returned bet: nothing)."""
        if r.phase is Phase.VOID:
            return {b.bet_id: 0 for b in r.bets}
        results = self.results(r) if r is self.round else r.results()
        return {s.bet.bet_id: cents(s.net) if s.outcome in SETTLED_OUTCOMES else 0 for s in results}

    def _resettle(self, r: Round, nets: Mapping[str, int], why: str) -> list[str]:
        """Post the differences between the ledger's nets of the round's
        closed bets and ``nets`` (with ``why`` as the postings' memo); returns
        the bets resettled."""
        known = self.ledger.closed_nets(self.id, r.round_id)
        changed = {b: nets[b] for b, (_, net) in known.items() if b in nets and nets[b] != net}
        if not changed:  # the usual case, at every start: no lock taken
            return []
        codes = {known[b][0] for b in changed}
        for code in codes:  # it may have less (or more) now
            self.journal.forget_balance(code)
        try:
            postings = self.ledger.resettle(self.id, changed, memo=f"round {r.round_id}: {why}")
        finally:
            for code in codes:
                self.journal.forget_balance(code)
        moved = {str(p.bet_id): p.amount_for(known[str(p.bet_id)][0]) for p in postings}
        if moved:
            self._audit_event(
                "resettled",
                round_id=r.round_id,
                reason=why,
                consequence=", ".join(f"{b} {money(d)}" for b, d in moved.items()),
            )
        return list(moved)

    def reconcile_finished(self, r: Round | None) -> list[str]:
        """Bring the ledger's closed bets of the finished round ``r`` in step with
        it (a settled round voided: see :meth:`_resettle_first`); returns the
        bets resettled."""
        if r is None or r.phase not in (Phase.SETTLED, Phase.VOID):
            return []
        return self._resettle(
            r, self._finished_nets(r), f"the ledger put back in step: round {r.phase.value}"
        )

    def close_withdrawal(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
            self._quiesce()
            r = self._live_round()
            r.close_withdrawal(role)
            self.window = None
            self._changed()
            return {"round_id": r.round_id}

    # -- the automatic dealer -------------------------------------------------------------------

    def insurance_wanted(self, r: Round) -> bool:
        """Whether anyone at the table could take an open Insurance offer."""
        offers = r.insurance_offers()
        return any(r.insurance_cap(p, o) > 0 for o in offers for p in r.players)

    def step(self) -> float | None:
        """The automatic dealer's next move, if it is due; returns how long
        until the next one (None: wait for something to happen)."""
        with self.lock:
            if self.stopped or not self.config.active:
                return None
            now = self.clock()
            r = self.round
            if r is None or r.phase in (Phase.SETTLED, Phase.VOID):
                if self.next_round_at is None:
                    self.next_round_at = now + self.config.result_seconds
                if now < self.next_round_at:
                    return self.next_round_at - now
                due = self.table.replacement_due
                if due is not None:  # "the cards shall be replaced" first (MBS 5.11.5, 5.12.2)
                    self.replace_shoe(due, Role.DEALER)
                self.open_round(Role.DEALER)
                return self.config.betting_seconds
            if r.phase is Phase.BETTING:
                if self.deadline is None:
                    self.deadline = now + self.config.betting_seconds
                    self._changed()
                if now < self.deadline:
                    return self.deadline - now
                if self.ask_differential(r):
                    # Betting stays open until the players (5.18.1, 5.18.2) or the
                    # pit (5.18.3) meet the differential: wait for their next move.
                    return None
                self.close_betting(Role.DEALER)
                self.next_card_at = now + self.config.card_delay
                return self.config.card_delay
            if r.phase is Phase.DEALING:
                windowed = r.withdrawal_open is not None or self.insurance_wanted(r)
                if windowed:
                    here = (r.round_id, len(r.deal.cards))
                    if self.window is None or self.window[:2] != here:
                        self.window = (*here, now + self.config.insurance_seconds)
                        self._changed()
                    if now < self.window[2]:
                        return self.window[2] - now
                    if r.withdrawal_open is not None:
                        self.close_withdrawal(Role.DEALER)
                        return 0.0
                if self.config.card_source == "device":
                    return None
                if now < self.next_card_at:
                    return self.next_card_at - now
                self.deal()
                self.next_card_at = now + self.config.card_delay
                return self.config.card_delay
            if r.phase is Phase.RESULT:
                if r.withdrawal_open is not None:
                    self.close_withdrawal(Role.DEALER)
                self.settle(Role.DEALER)
                return self.config.result_seconds
            return None

    # -- the pit ----------------------------------------------------------------------------------

    def figures(self) -> dict[str, Any]:
        """Drop, win (hold) and commission of this table, from the ledger and the rounds."""
        with self.engine.connect() as conn:
            drop = conn.execute(
                select(func.coalesce(func.sum(ledger_bets.c.placed), 0)).where(
                    ledger_bets.c.table_id == self.id
                )
            ).scalar_one()
            house = conn.execute(
                select(func.coalesce(func.sum(ledger_entries.c.amount), 0))
                .select_from(ledger_entries)
                .join(
                    ledger_transactions,
                    ledger_transactions.c.id == ledger_entries.c.transaction_id,
                )
                .join(wallets, wallets.c.id == ledger_entries.c.wallet_id)
                .where(
                    and_(
                        ledger_transactions.c.table_id == self.id,
                        # a resettlement (a settled round voided) corrects a settlement
                        ledger_transactions.c.kind.in_(("settlement", "resettlement")),
                        wallets.c.code == Ledger.HOUSE,
                    )
                )
            ).scalar_one()
            held = conn.execute(
                select(func.coalesce(func.sum(ledger_bets.c.held), 0)).where(
                    ledger_bets.c.table_id == self.id, ledger_bets.c.status == "open"
                )
            ).scalar_one()
        commission = self.snapshot().commission
        drop, house = int(drop), int(house)
        return {
            "drop": money(drop),
            "win": money(house),
            "hold": f"{(Decimal(house) / Decimal(drop) * 100):.2f}" if drop else None,
            "commission": money(commission),
            "in_play": money(int(held)),
        }

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
        if self._own_journal:
            self.journal.close()
