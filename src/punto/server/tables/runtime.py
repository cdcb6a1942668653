"""One live table on the server: its round, its money and its watchers.

A :class:`TableRuntime` wraps a :class:`punto.table.live.LiveTable` whose
event log is in the database (:class:`punto.server.tables.journal.JournalEventLog`)
and keeps the ledger (:class:`punto.store.ledger.Ledger`) in step with it.
Every action on a table takes the table's lock, so the engine's checks, the
ledger posting and the event append of one action are never interleaved with
another's; reads take no lock (the snapshot of
:mod:`punto.server.tables.views`).

The runtime coordinates; the parts are modules of :mod:`punto.server.tables`:
bets taken and answered (:mod:`~punto.server.tables.intake`, whose docstring
says when a bet is acknowledged), the answers to keyed requests
(:mod:`~punto.server.tables.answers`), the ledger kept in step with the rounds
(:mod:`~punto.server.tables.books`), the watchers told
(:mod:`~punto.server.tables.publishing`), keyed actions other than bets
(:mod:`~punto.server.tables.keyed`), irregularity procedures
(:mod:`~punto.server.tables.procedures`), the automatic dealer's moves
(:mod:`~punto.server.tables.moves`) and the pit's figures
(:mod:`~punto.server.tables.figures`).  The dealer's own actions (open, close,
deal, settle, the power failure, the shoe) are here.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from sqlalchemy.engine import Engine

from punto.errors import ActionError, PhaseError
from punto.rules.cards import Card
from punto.rules.game import Game
from punto.rules.roads import Result, Scoreboard
from punto.server.tables import differential
from punto.server.tables import handling as card_handling
from punto.server.tables.answers import Answers
from punto.server.tables.books import Books
from punto.server.tables.card_source import physical
from punto.server.tables.config import TableConfig
from punto.server.tables.figures import table_figures
from punto.server.tables.forms import bet_json, cents, hands, money
from punto.server.tables.hub import EVERYONE, STAFF, Hub
from punto.server.tables.intake import BetIntake
from punto.server.tables.journal import Journal, JournalEventLog
from punto.server.tables.keyed import KeyedActions
from punto.server.tables.moves import DealerMoves
from punto.server.tables.procedures import DEDICATED_PROCEDURES, Person, Procedures
from punto.server.tables.publishing import Publisher
from punto.server.tables.refusals import (
    BetNotFoundError,
    IdempotencyKeyError,
    TableStoppedError,
)
from punto.server.tables.views import RoundNotFoundError, TableSnapshot, TableViews, result_json
from punto.store.ledger import Ledger, UnknownWalletError
from punto.table.bet_limits import positions as table_positions
from punto.table.replay import ActionSpec
from punto.table.roles import Role
from punto.table.round import BetSettlement, Phase, Round

log = logging.getLogger("punto.server")

#: Rounds whose bets' results a table keeps worked out (:meth:`TableRuntime.results`).
RESULTS_KEPT = 4
#: How long a player's read waits for a change of their own (:meth:`TableRuntime.snapshot`).
OWN_CHANGE_SECONDS = 5.0

__all__ = [
    "DEDICATED_PROCEDURES",
    "BetNotFoundError",
    "IdempotencyKeyError",
    "RoundNotFoundError",
    "TableRuntime",
    "TableStoppedError",
    "cents",
    "money",
]


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
        #: called after every action (the automatic dealer wakes up), told whether it
        #: was a frequent one (a bet, a bet withdrawn: see Publisher.changed)
        self.on_change: Callable[[bool], None] | None = None
        #: told of every action, lock held, to value the bets (punto.server.tables.valuation)
        self.on_events: Callable[[], None] | None = None
        self.scoreboard = self.rebuild_scoreboard()
        self._results_cache: dict[str, list[BetSettlement]] = {}
        #: the parts the runtime coordinates (each in its own module of punto.server.tables)
        self.publisher = Publisher(self)
        self.books = Books(self)
        self.answers = Answers(self)
        self.intake = BetIntake(self)
        self.keyed = KeyedActions(self)
        self.irregularities = Procedures(self)
        self.moves = DealerMoves(self)
        #: how many times the table was restored from its log
        self.generation = 0
        self.stopped = False
        #: a snapshot a reader found behind is rebuilt once, by a worker
        self._refresh_guard = threading.Lock()
        self._refresh_due = False
        self._refresh_staff = False
        with self.lock:
            if self.recovered is not None:
                r = self.table.round
                self.audit_event(
                    "recovered", round_id=r.round_id if r else None, consequence=self.recovered
                )
            self.reconcile()
            self.books.reconcile_finished(self.table.round)
            self.publisher.caught_up()
            #: what readers are answered from (built under the lock, read without it)
            self.views = TableViews(self)

    # -- reading ------------------------------------------------------------------------

    @property
    def round(self) -> Round | None:
        return self.table.round

    def rebuild_scoreboard(self) -> Scoreboard:
        """The roads of the current shoe: its rounds as they settled (the table
        folded them from the log; reading it again took longer than the rest
        of a table's start-up)."""
        board = Scoreboard(pair_rule=self.table.pair_rule)
        for r in self.table.cards.settled:
            # A round voided after settlement (MBS 5.2) has no result on the roads.
            if r.deal.is_complete and r.phase is Phase.SETTLED:
                board.add(Result.from_coup(r.deal.to_coup(), self.table.pair_rule))
        return board

    def results(self, r: Round) -> list[BetSettlement]:
        """The results of ``r``'s bets, worked out once (the last few rounds kept:
        the round in play, and the one before while the next opens)."""
        cached = self._results_cache.get(r.round_id)
        if cached is None:
            cached = r.results()
            self._results_cache[r.round_id] = cached
            while len(self._results_cache) > RESULTS_KEPT:
                del self._results_cache[next(iter(self._results_cache))]
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

    def snapshot(self, *, staff: bool = False, user: str | None = None) -> TableSnapshot:
        """The table as it stood after its last change, without waiting for
        its lock (:mod:`punto.server.tables.views`): built now if the table is
        free, else the last one built (at most the change in progress
        behind), a fresh one on its way.  ``user``'s read waits (at most
        :data:`OWN_CHANGE_SECONDS`) for a change of their own the last one
        misses: a player answered 201 sees the bet."""
        views = self.views
        latest = views.latest
        if staff:
            views.want_staff()
        if not views.stale(latest, staff=staff):
            return latest
        waits = user is not None and views.owed(user, latest)
        if self.lock.acquire(timeout=OWN_CHANGE_SECONDS) if waits else self.lock.acquire(False):
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
        snapshot = self.snapshot(staff=staff, user=username)
        balance = self.balance(username) if username is not None else 0
        return snapshot.state(self.clock(), username, balance, staff=staff)

    def round_detail(self, round_id: str) -> dict[str, Any]:
        """One round's events and results (from :meth:`snapshot`)."""
        return self.snapshot().round_detail(self.id, round_id)

    # -- publishing -----------------------------------------------------------------------

    def publish(self, message: dict[str, Any], audience: str = EVERYONE) -> None:
        self.hub.publish(self.id, message, audience)

    def audit_event(self, action: str, *, user: Any = None, **detail: Any) -> None:
        from punto.server.tables.config import AuditLog

        round_id = detail.pop("round_id", None)
        AuditLog(self.engine, self.journal).record(
            action, user=user, table_id=self.id, round_id=round_id, **detail
        )

    # -- the parts, for callers from outside ---------------------------------------------

    def reconcile(self) -> list[str]:
        """Lock held: the ledger brought in step with the rounds (:meth:`Books.reconcile`;
        every part reconciles through here)."""
        return self.books.reconcile()

    def reconcile_finished(self, r: Round | None) -> list[str]:
        return self.books.reconcile_finished(r)

    def _resettle(self, r: Round, nets: Mapping[str, int], why: str) -> list[str]:
        # kept for the recovery tests, which resettle a round by hand
        return self.books.resettle(r, nets, why)

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
        """A player's bet from their own wallet (:meth:`BetIntake.place_bet`)."""
        return self.intake.place_bet(
            user_id, username, wager, stake, position=position, key=key, round_id=round_id
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
        """:meth:`place_bet` for the event loop (:meth:`BetIntake.place_bet_async`)."""
        return await self.intake.place_bet_async(
            user_id, username, wager, stake, position=position, key=key, round_id=round_id
        )

    def decrease_bet(
        self, user_id: int, username: str, bet_id: str, stake: Decimal, key: str | None
    ) -> dict[str, Any]:
        return self.keyed.decrease_bet(user_id, username, bet_id, stake, key)

    def remove_bet(self, user_id: int, bet_id: str, role: Role, key: str | None) -> dict[str, Any]:
        return self.keyed.remove_bet(user_id, bet_id, role, key)

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
        """A keyed action under the lock (:meth:`KeyedActions.keyed_action`)."""
        return self.keyed.keyed_action(
            user_id, kind, request, key, act, answer, clause=clause, users=users, done=done
        )

    def procedures(self) -> tuple[str, ...]:
        return self.irregularities.procedures()

    def server_defaults(self, spec: ActionSpec) -> dict[str, Any]:
        return self.irregularities.server_defaults(spec)

    def rule(self, name: str, parameters: Mapping[str, Any], person: Person) -> dict[str, Any]:
        """An irregularity procedure applied, or filed as a claim (:meth:`Procedures.rule`)."""
        return self.irregularities.rule(name, parameters, person)

    def confirm_claim(self, claim_id: str, person: Person) -> dict[str, Any]:
        return self.irregularities.confirm(claim_id, person)

    def reject_claim(self, claim_id: str, person: Person, reason: str) -> dict[str, Any]:
        return self.irregularities.reject(claim_id, person, reason)

    def claims(self) -> dict[str, Any]:
        return self.irregularities.claims()

    def step(self) -> float | None:
        """The automatic dealer's next move, if due (:meth:`DealerMoves.step`)."""
        return self.moves.step()

    def figures(self) -> dict[str, Any]:
        """Handle, win (hold) and commission of this table, from the ledger and
        the rounds (:func:`table_figures`), as the pit shows them."""
        return table_figures(self.engine, self.id, self.snapshot().commission).to_json()

    # -- bets -----------------------------------------------------------------------------------

    def live_round(self) -> Round:
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

    def resync(self, why: str) -> None:
        """Lock held: the round took a bet whose unit did not commit -- restore the
        table from its log, the truth (everything submitted is written first)."""
        log.error("table %s: %s; restoring it from its log", self.id, why)
        self.generation += 1
        self.journal.barrier()
        try:
            self.table = self.config.live_table(self.log, limits=self.table.limits, recover=False)
        except Exception:
            log.exception("table %s cannot be restored; it stops", self.id)
            self.stopped = True
            return
        self._results_cache.clear()
        self.books.forget()
        self.intake.forget()
        self.views.reset()
        self.scoreboard = self.rebuild_scoreboard()
        self.publisher.caught_up()
        self.publisher.changed()

    def forget_results(self, round_id: str) -> None:
        """Lock held: the results of a round are to be worked out again (a
        procedure changed them)."""
        self._results_cache.pop(round_id, None)
        self.books.forget(round_id)

    def withdraw_bet(self, username: str, bet_id: str) -> dict[str, Any]:
        """Take back one's own bet before 'No more bets'."""
        with self.lock:
            self.intake.quiesce()
            r = self.live_round()
            bet = next((b for b in r.bets if b.bet_id == bet_id and b.player == username), None)
            if bet is None:
                raise BetNotFoundError(
                    f"you have no bet {bet_id!r} in round {r.round_id}",
                    hint="withdraw one of your own bets of the round in play",
                )
            r.withdraw_bet(bet_id, Role.PLAYER)
            self.reconcile()
            self.publisher.changed([username], coalesce=True)
            return {
                "bet": bet_json(next(b for b in r.bets if b.bet_id == bet_id)),
                "balance": money(self.balance(username)),
            }

    def take_withdrawal(self, username: str) -> dict[str, Any]:
        """Take the withdrawal option open now: all one's wagers are returned."""
        with self.lock:
            self.intake.quiesce()
            r = self.live_round()
            r.withdraw_player(username, Role.PLAYER)
            self.reconcile()
            self.publisher.changed([username])
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
            card_handling.check_hlga_change(self.id, self.table, config.hlga)
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
            self.publisher.changed()

    def open_round(self, role: Role = Role.DEALER, user: Any = None) -> dict[str, Any]:
        with self.lock:
            self.intake.quiesce()
            if self.stopped:
                raise TableStoppedError(f"table {self.id} is not running")
            shoe_before = self.table.shoe_id
            r = self.table.new_round(role)
            if self.table.shoe_id != shoe_before:
                self.new_board()
            self.deadline = (
                self.clock() + self.config.betting_seconds if self.config.mode == "auto" else None
            )
            self.window = None
            self.next_round_at = None
            self.publisher.changed()
            return {"round_id": r.round_id, "deadline": self.deadline}

    def new_board(self) -> None:
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
            self.intake.quiesce()
            if clause is None:
                clause = self._replacement_clause(role)
            shoe = self.table.replace_shoe(role, clause)
            self.new_board()
            self.publisher.changed()
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
            self.intake.quiesce()
            r = self.live_round()
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
            self.publisher.changed(users)
            return {"round_id": r.round_id, "rejected": rejected}

    # -- the differential (MBS 5.18; punto.server.tables.differential) -------------------------

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
            self.audit_event("differential_exceeded", round_id=r.round_id, clause=asks, text=text)
            self.publish(
                {
                    "type": "alert",
                    "round_id": r.round_id,
                    "clause": self.game.clause("differential_remove"),
                    "text": f"betting held open: {text}",
                },
                STAFF,
            )
            self.publisher.changed(r.players)
        return True

    def alerts(self) -> list[dict[str, Any]]:
        """What the pit must see at this table now (from :meth:`snapshot`)."""
        return [dict(a) for a in self.snapshot().alerts]

    def deal(self, card: Card | None = None, *, source: str = "shoe") -> dict[str, Any]:
        """The next card: from the server's shoe (``card`` None), or keyed or
        read from outside; the engine puts it where the Table of Play says."""
        with self.lock:
            self.intake.quiesce()
            r = self.live_round()
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
            self.publisher.changed()
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
            self.intake.quiesce()
            r = self.live_round()
            r.settle(role)
            self.scoreboard.add(Result.from_coup(r.deal.to_coup(), self.table.pair_rule))
            self.reconcile()
            self.next_round_at = self.clock() + self.config.result_seconds
            self.publisher.changed(r.players)
            return {"round_id": r.round_id, **result_json(self, r)}

    def close_withdrawal(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
            self.intake.quiesce()
            r = self.live_round()
            r.close_withdrawal(role)
            self.window = None
            self.publisher.changed()
            return {"round_id": r.round_id}

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
        if self._own_journal:
            self.journal.close()
