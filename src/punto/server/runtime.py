"""One live table on the server: its round, its money and its watchers.

A :class:`TableRuntime` wraps a :class:`punto.table.live.LiveTable` whose
event log is in the database (:class:`punto.store.db.SQLEventLog`) and keeps
the ledger (:class:`punto.store.ledger.Ledger`) in step with it.  Every action
on a table takes the table's lock, so the engine's checks, the ledger posting
and the event append of one action are never interleaved with another's.

**A bet is acknowledged only when both its ledger posting (wallet to the
table's holding account) and its ``BetPlaced`` event are durable.**  In order:

1. the engine checks the bet (phase, layout, limits: a refusal costs nothing);
2. with an idempotency key, a reservation row ties the key to a new bet id;
3. the ledger posts the stake (key ``bet:TABLE:BET``); no money, no bet;
4. the round appends ``BetPlaced`` with that bet id; if that fails the stake
   is returned at once;
5. the response is stored with the reservation and sent.

A process killed between any two steps leaves one of: nothing; a
reservation; a ledger bet without an event; both without a stored response.
:meth:`TableRuntime.reconcile` (at start-up, and under the lock whenever the
ledger is synchronised) returns every ledger bet that its round does not hold
("not acknowledged": the client got no answer and retries), and a retried
request whose bet is in the round gets the bet back, never a second one.

Money leaves the holding account only by the round's own results, with keys
derived from the table and bet ids, so posting them again changes nothing:
``settle:TABLE:BET`` pays ``held + net`` (the stake back with the winnings
less commission for a win, the stake for a push, the stake less the settled
stake for a loss -- 0 for a full loss, the unsettled part for a pro-rata or
over-maximum bet); ``return:TABLE:BET`` returns a withdrawn, returned or void
bet; ``reduce:TABLE:BET:STAKE`` returns what a reduction took off.  A round
settled before a crash whose postings were not all made is posted at the
next start.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from punto.cards import Card
from punto.coup import Deal
from punto.errors import ActionError, PhaseError
from punto.game import Game
from punto.insurance import InsuranceOffer
from punto.money import CENT, format_money
from punto.roads import Result, Scoreboard
from punto.server.config import TableConfig
from punto.server.hub import EVERYONE, STAFF, Hub
from punto.server.schema import server_requests
from punto.store import db
from punto.store.db import SQLEventLog, ledger_bets, ledger_entries, ledger_transactions, wallets
from punto.store.ledger import BetStateError, Ledger, UnknownWalletError
from punto.table.events import (
    BetPlaced,
    BetsClosed,
    CardDealt,
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
from punto.table.live import LiveTable
from punto.table.roles import Role
from punto.table.round import BetSettlement, Phase, Round, TableBet

__all__ = [
    "BetNotFoundError",
    "IdempotencyKeyError",
    "TableRuntime",
    "cents",
]

#: Settlement outcomes that move money by the coup; the others return the stake.
SETTLED_OUTCOMES = frozenset({"win", "lose", "push"})
#: A win paid 0.95 to 1 is an even-money win less a 5% commission.
COMMISSION_ODDS = Fraction(19, 20)


class BetNotFoundError(ActionError):
    """No such bet in the round (or not one of yours)."""


class IdempotencyKeyError(ActionError):
    """An idempotency key used again for a different request."""


class TableStoppedError(ActionError):
    """The table is not running (inactive or stopping)."""


def cents(amount: Decimal) -> int:
    """Whole minor units of an amount the engine accepted (whole cents)."""
    units = amount / CENT
    if units != units.to_integral_value():
        raise ValueError(f"{amount} is not a whole number of cents")
    return int(units)


def money(amount: Decimal | int) -> str:
    """Minor units (int) or an amount (Decimal) as a decimal string."""
    value = Decimal(amount) * CENT if isinstance(amount, int) else amount
    return format_money(value)


def _request_hash(content: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _hands(deal: Deal) -> list[dict[str, Any]]:
    """Each card with the hand the Table of Play gave it."""
    out = []
    for i, card in enumerate(deal.cards):
        side = Deal(deal.cards[:i]).next_side
        out.append({"index": i, "card": str(card), "hand": side.value if side else "?"})
    return out


def _offer_json(offer: InsuranceOffer) -> dict[str, Any]:
    player, banker = (
        (offer.hand_points, offer.other_points)
        if offer.insures.value == "player"
        else (offer.other_points, offer.hand_points)
    )
    return {
        "wager": f"{offer.insures.value}_insurance",
        "insures": offer.insures.value,
        "moment": offer.moment.value,
        "odds": str(offer.row.pays),
        "player_points": player,
        "banker_points": banker,
        "clause": offer.row.clause,
        "text": str(offer),
    }


def _bet_json(bet: TableBet, *, player: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "bet_id": bet.bet_id,
        "wager": bet.wager,
        "stake": money(bet.stake),
        "position": bet.position,
        "status": bet.status,
        "moment": bet.moment.value if bet.moment else None,
        "clause": bet.clause,
    }
    if player:
        data["player"] = bet.player
    return data


def _settlement_json(s: BetSettlement, held: int | None = None) -> dict[str, Any]:
    data = {
        **_bet_json(s.bet),
        "outcome": s.outcome,
        "event": s.event,
        "settled_stake": money(s.settled_stake),
        "net": money(s.net),
        "settlement_clause": s.clause,
    }
    stake = cents(s.bet.stake) if held is None else held
    data["payout"] = money(stake + cents(s.net) if s.outcome in SETTLED_OUTCOMES else stake)
    return data


class TableRuntime:
    """A table running on the server (see the module's docstring)."""

    def __init__(
        self,
        config: TableConfig,
        *,
        engine: Engine,
        ledger: Ledger,
        hub: Hub,
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
        self.log = SQLEventLog(engine)
        self.table = LiveTable(
            config.id,
            self.game,
            limits=config.limits,
            log=self.log,
            layout=config.layout,
            decks=config.decks,
            seed=config.seed,
        )
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
        self._published: tuple[str, int] = ("", 0)
        self.scoreboard = self._rebuild_scoreboard()
        self._results_cache: dict[str, list[BetSettlement]] = {}
        self.stopped = False
        with self.lock:
            if self.recovered is not None:
                r = self.table.round
                self._audit_event(
                    "recovered", round_id=r.round_id if r else None, consequence=self.recovered
                )
            self.reconcile()
            r = self.table.round
            if r is not None:
                self._published = (r.round_id, len(r.events))

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
                if r is not None and r.deal.is_complete:
                    board.add(Result.from_coup(r.deal.to_coup(), self.table.pair_rule))
        return board

    def results(self, r: Round) -> list[BetSettlement]:
        cached = self._results_cache.get(r.round_id)
        if cached is None:
            cached = r.results()
            self._results_cache[r.round_id] = cached
        return cached

    def positions(self) -> tuple[int, int]:
        if self.table.layout is None:
            return 1, max(layout.positions[1] for layout in self.game.layouts.values())
        return self.game.layouts[self.table.layout].positions

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

    def state(self, username: str | None = None, *, staff: bool = False) -> dict[str, Any]:
        """A snapshot of the table for a page: public, plus ``me`` for a user."""
        with self.lock:
            data: dict[str, Any] = {
                "type": "state",
                "server_time": self.clock(),
                "table": {
                    **self.config.to_json(),
                    "positions": list(self.positions()),
                    "wagers": self.wagers_json(),
                },
                "round": self._round_json(),
                "shoe": self._shoe_json(),
                "rounds": len(self.table.rounds),
                "recovered": self.recovered,
            }
            if username is not None:
                data["me"] = self._me_json(username)
            if staff:
                data["staff"] = self._staff_json()
            return data

    def _shoe_json(self) -> dict[str, Any]:
        shoe = self.table.shoe
        return {
            "id": self.table.shoe_id,
            "cards_left": len(shoe) if shoe is not None else 0,
            "cut_card_reached": self.table.shoe_finished,
            "commitment": shoe.commitment if shoe is not None else None,
            "source": self.config.card_source,
        }

    def _round_json(self) -> dict[str, Any] | None:
        r = self.round
        if r is None:
            return None
        deal = r.deal
        data: dict[str, Any] = {
            "id": r.round_id,
            "phase": r.phase.value,
            "deadline": self.deadline if r.phase is Phase.BETTING else None,
            "cards": _hands(deal),
            "player": {
                "cards": [str(c) for c in deal.player.cards],
                "total": deal.player.total if deal.player.cards else None,
            },
            "banker": {
                "cards": [str(c) for c in deal.banker.cards],
                "total": deal.banker.total if deal.banker.cards else None,
            },
            "next_hand": deal.next_side.value if deal.next_side else None,
            "totals": {w: money(v) for w, v in r.totals().items()},
            "bets": len(r.active_bets),
            "players": len(r.players),
            "insurance": self._insurance_json(r),
            "withdrawal": None,
            "power_failed": r.power_failed,
            "void": None,
            "result": None,
        }
        if r.withdrawal_open is not None:
            data["withdrawal"] = {
                "clause": r.withdrawal_open.clause,
                "reason": r.withdrawal_open.reason,
                "ends": self._window_end(r),
            }
        if r.void is not None:
            data["void"] = {"reason": r.void.reason, "clause": r.void.clause}
        if r.phase in (Phase.RESULT, Phase.SETTLED) and deal.is_complete:
            data["result"] = self._result_json(r)
        return data

    def _window_end(self, r: Round) -> float | None:
        if self.window is not None and self.window[:2] == (r.round_id, len(r.deal.cards)):
            return self.window[2]
        return None

    def _insurance_json(self, r: Round) -> dict[str, Any] | None:
        offers = r.insurance_offers()
        if not offers:
            return None
        return {"offers": [_offer_json(o) for o in offers], "ends": self._window_end(r)}

    def _result_json(self, r: Round) -> dict[str, Any]:
        coup = r.deal.to_coup()
        areas: dict[str, str | None] = {}
        for w in self.game.offered(self.table.layout).values():
            if w.kind is not None:
                areas[w.id] = w.kind(coup, self.table.pair_rule)
        return {
            "winner": coup.winner.value,
            "player_total": coup.player.total,
            "banker_total": coup.banker.total,
            "natural": coup.natural,
            "areas": areas,
            "settled": r.phase is Phase.SETTLED,
        }

    def _me_json(self, username: str) -> dict[str, Any]:
        r = self.round
        data: dict[str, Any] = {
            "username": username,
            "balance": money(self.balance(username)),
            "bets": [],
            "results": None,
            "insurance_caps": {},
            "may_withdraw": False,
            "round_id": r.round_id if r is not None else None,
        }
        if r is None:
            return data
        data["bets"] = [_bet_json(b) for b in r.bets if b.player == username]
        if r.phase in (Phase.SETTLED, Phase.VOID):
            data["results"] = [
                _settlement_json(s) for s in self.results(r) if s.bet.player == username
            ]
        for offer in r.insurance_offers():
            cap = r.insurance_cap(username, offer)
            if cap > 0:
                data["insurance_caps"][f"{offer.insures.value}_insurance"] = money(cap)
        data["may_withdraw"] = r.can_withdraw_player(username)
        return data

    def _staff_json(self) -> dict[str, Any]:
        r = self.round
        return {
            "bets": [_bet_json(b, player=True) for b in r.bets] if r else [],
            "can": {
                "open": r is None or r.phase in (Phase.SETTLED, Phase.VOID),
                "close": r is not None and r.can_close_betting(),
                "deal": r is not None and r.can_deal_card(),
                "settle": r is not None and r.can_settle(),
                "close_withdrawal": r is not None and r.can_close_withdrawal(),
                "power_failure": r is not None and r.can_power_failure(),
                "void": r is not None and r.can_void(Role.SHIFT_MANAGER, "-"),
            },
            "differential": money(r.differential()) if r else None,
            "decided": r.decided() if r and r.phase is Phase.DEALING else {},
        }

    # -- publishing -----------------------------------------------------------------------

    def publish(self, message: dict[str, Any], audience: str = EVERYONE) -> None:
        self.hub.publish(self.id, message, audience)

    def _changed(self, users: Iterable[str] = ()) -> None:
        """Tell the watchers what the new events are, then the new state."""
        r = self.round
        if r is not None:
            start = self._published[1] if self._published[0] == r.round_id else 0
            for event in r.events[start:]:
                self._announce(r, event)
            self._published = (r.round_id, len(r.events))
        self.publish(self.state())
        self.publish({"type": "staff", "staff": self._staff_json()}, STAFF)
        users = set(users)
        if r is not None and (r.withdrawal_open is not None or r.insurance_offers()):
            users.update(r.players)  # their Insurance caps or their option changed
        for user in users:
            self.publish({"type": "me", "me": self._me_json(user)}, user)
        if self.on_change is not None:
            self.on_change()

    def _announce(self, r: Round, event: Event) -> None:
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
                self.publish(
                    {
                        "type": "bet_totals",
                        "round_id": r.round_id,
                        "totals": {w: money(v) for w, v in r.totals().items()},
                    }
                )
            case BetsClosed():
                self.publish({"type": "betting_closed", "round_id": r.round_id})
            case CardDealt(card=card, source=source):
                deal = r.deal
                self.publish(
                    {
                        "type": "card",
                        "round_id": r.round_id,
                        "card": str(card),
                        "source": source,
                        **_hands(deal)[-1],
                        "player_total": deal.player.total,
                        "banker_total": deal.banker.total,
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
                self.publish({"type": "results", "round_id": r.round_id, **self._result_json(r)})
                self.publish({"type": "scoreboard", "scoreboard": self.scoreboard.to_dict()})
            case _:
                pass

    def _audit_event(self, action: str, *, user: Any = None, **detail: Any) -> None:
        from punto.server.config import AuditLog

        round_id = detail.pop("round_id", None)
        AuditLog(self.engine).record(
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
        done: list[str] = []
        for bet_id, round_id, held in rows:
            r = rounds.get(round_id or "")
            bet = next((b for b in r.bets if b.bet_id == bet_id), None) if r else None
            if r is None or bet is None:
                self._post_return(bet_id, "orphan")
                done.append(f"returned unacknowledged bet {bet_id}")
                continue
            if r.phase is Phase.SETTLED:
                s = next(s for s in self.results(r) if s.bet.bet_id == bet_id)
                if s.outcome in SETTLED_OUTCOMES:
                    payout = int(held) + cents(s.net)
                    with contextlib.suppress(BetStateError):
                        self.ledger.settle_bet(
                            self.id, bet_id, payout=payout, key=f"settle:{self.id}:{bet_id}"
                        )
                    done.append(f"settled {bet_id}")
                else:
                    self._post_return(bet_id, "return")
                    done.append(f"returned {bet_id} ({s.outcome})")
            elif r.phase is Phase.VOID or bet.status != "active":
                self._post_return(bet_id, "return")
                done.append(f"returned {bet_id}")
            elif cents(bet.stake) < int(held):
                stake = cents(bet.stake)
                with contextlib.suppress(BetStateError):
                    self.ledger.return_bet(
                        self.id,
                        bet_id,
                        key=f"reduce:{self.id}:{bet_id}:{stake}",
                        amount=int(held) - stake,
                    )
                done.append(f"reduced {bet_id}")
        return done

    def _post_return(self, bet_id: str, why: str) -> None:
        """Return the whole of what the bet still holds (once: a settled or
        returned bet is left alone)."""
        with contextlib.suppress(BetStateError):
            self.ledger.return_bet(self.id, bet_id, key=f"{why}:{self.id}:{bet_id}")

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

    def _default_position(self, r: Round, username: str) -> int:
        mine = next((b.position for b in r.bets if b.player == username), None)
        return mine if mine is not None else self.positions()[0]

    def place_bet(
        self,
        user_id: int,
        username: str,
        wager: str,
        stake: Decimal,
        *,
        position: int | None = None,
        key: str | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """A player's bet (or Insurance Plus bet, for an ``*_insurance``
        wager) from their own wallet; returns (HTTP status, response)."""
        with self.lock:
            r = self._live_round()
            insurance = self.game.wager(wager, self.table.layout).insures is not None
            if position is None:
                position = self._default_position(r, username)
            content = {
                "table": self.id,
                "wager": wager,
                "stake": money(stake),
                "position": position,
            }
            request_hash = _request_hash(content)
            if key is not None:
                replay = self._replay(user_id, username, key, request_hash)
                if replay is not None:
                    return replay
                r = self._live_round()
            if insurance:
                r.check_place_insurance(username, wager, stake)
            else:
                r.check_place_bet(username, position, wager, stake)
            bet_id = f"{r.round_id}-{secrets.token_hex(5)}"
            full_key = f"{user_id}:{key}" if key is not None else None
            if full_key is not None:
                self._reserve(full_key, user_id, request_hash, r.round_id, bet_id)
            try:
                wallet = self.ledger.player_wallet(username, account_id=user_id)
                self.ledger.place_bet(
                    wallet,
                    self.id,
                    cents(stake),
                    key=f"bet:{self.id}:{bet_id}",
                    bet_id=bet_id,
                    round_id=r.round_id,
                )
            except BaseException:
                self._unreserve(full_key)
                raise
            try:
                if insurance:
                    r.place_insurance(username, wager, stake, role=Role.PLAYER, bet_id=bet_id)
                else:
                    r.place_bet(username, position, wager, stake, role=Role.PLAYER, bet_id=bet_id)
            except BaseException:
                self._post_return(bet_id, "return")
                self._unreserve(full_key)
                raise
            response = self._bet_response(r, bet_id, username)
            if full_key is not None:
                self._store_response(full_key, 201, response)
            self._changed([username])
            return 201, response

    def _bet_response(self, r: Round, bet_id: str, username: str) -> dict[str, Any]:
        bet = next(b for b in r.bets if b.bet_id == bet_id)
        return {
            "table_id": self.id,
            "round_id": r.round_id,
            "bet": _bet_json(bet),
            "balance": money(self.balance(username)),
        }

    def _replay(
        self, user_id: int, username: str, key: str, request_hash: str
    ) -> tuple[int, dict[str, Any]] | None:
        """The answer already given to this key, or None to go ahead."""
        full_key = f"{user_id}:{key}"
        with self.engine.connect() as conn:
            row = (
                conn.execute(select(server_requests).where(server_requests.c.key == full_key))
                .mappings()
                .first()
            )
        if row is None:
            return None
        if row["request_hash"] != request_hash or row["table_id"] != self.id:
            raise IdempotencyKeyError(
                "this Idempotency-Key was already used for a different bet",
                hint="use a new key for a new bet; repeat a key only to retry the same request",
            )
        if row["response"] is not None:
            return int(row["status_code"]), json.loads(row["response"])
        # A request that stopped half way (the process died): did its bet get in?
        rounds = {r.round_id: r for r in self.table.rounds}
        r = rounds.get(row["round_id"])
        if r is not None and any(b.bet_id == row["bet_id"] for b in r.bets):
            response = self._bet_response(r, row["bet_id"], username)
            self._store_response(full_key, 201, response)
            return 201, response
        self.reconcile()  # its stake, if it was taken, goes back
        self._unreserve(full_key)
        return None

    def _reserve(
        self, full_key: str, user_id: int, request_hash: str, round_id: str, bet_id: str
    ) -> None:
        try:
            self._insert_reservation(full_key, user_id, request_hash, round_id, bet_id)
        except IntegrityError:
            raise IdempotencyKeyError(
                "this Idempotency-Key is in use by another request at another table",
                hint="use a new key for a new bet",
            ) from None

    def _insert_reservation(
        self, full_key: str, user_id: int, request_hash: str, round_id: str, bet_id: str
    ) -> None:
        with db.write_transaction(self.engine) as conn:
            conn.execute(
                insert(server_requests).values(
                    key=full_key,
                    account_id=user_id,
                    request_hash=request_hash,
                    table_id=self.id,
                    round_id=round_id,
                    bet_id=bet_id,
                    created_at=db.utc_now(),
                )
            )

    def _unreserve(self, full_key: str | None) -> None:
        if full_key is None:
            return
        with db.write_transaction(self.engine) as conn:
            conn.execute(
                delete(server_requests).where(
                    server_requests.c.key == full_key, server_requests.c.response.is_(None)
                )
            )

    def _store_response(self, full_key: str, status: int, response: dict[str, Any]) -> None:
        with db.write_transaction(self.engine) as conn:
            conn.execute(
                update(server_requests)
                .where(server_requests.c.key == full_key)
                .values(status_code=status, response=json.dumps(response, sort_keys=True))
            )

    def withdraw_bet(self, username: str, bet_id: str) -> dict[str, Any]:
        """Take back one's own bet before 'No more bets'."""
        with self.lock:
            r = self._live_round()
            bet = next((b for b in r.bets if b.bet_id == bet_id and b.player == username), None)
            if bet is None:
                raise BetNotFoundError(
                    f"you have no bet {bet_id!r} in round {r.round_id}",
                    hint="withdraw one of your own bets of the round in play",
                )
            r.withdraw_bet(bet_id, Role.PLAYER)
            self.reconcile()
            self._changed([username])
            return {
                "bet": _bet_json(next(b for b in r.bets if b.bet_id == bet_id)),
                "balance": money(self.balance(username)),
            }

    def take_withdrawal(self, username: str) -> dict[str, Any]:
        """Take the withdrawal option open now: all one's wagers are returned."""
        with self.lock:
            r = self._live_round()
            r.withdraw_player(username, Role.PLAYER)
            self.reconcile()
            self._changed([username])
            return {"balance": money(self.balance(username))}

    # -- the dealer ---------------------------------------------------------------------------

    def open_round(self, role: Role = Role.DEALER, user: Any = None) -> dict[str, Any]:
        with self.lock:
            if self.stopped:
                raise TableStoppedError(f"table {self.id} is not running")
            shoe_before = self.table.shoe_id
            r = self.table.new_round(role)
            if self.table.shoe_id != shoe_before:
                self.scoreboard = Scoreboard(pair_rule=self.table.pair_rule)
                self.publish({"type": "scoreboard", "scoreboard": self.scoreboard.to_dict()})
            self.deadline = (
                self.clock() + self.config.betting_seconds if self.config.mode == "auto" else None
            )
            self.window = None
            self.next_round_at = None
            self._changed()
            return {"round_id": r.round_id, "deadline": self.deadline}

    def close_betting(self, role: Role = Role.DEALER, user: Any = None) -> dict[str, Any]:
        with self.lock:
            r = self._live_round()
            rejected = []
            if (
                r.differential_exceeded()
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

    def deal(self, card: Card | None = None, *, source: str = "shoe") -> dict[str, Any]:
        """The next card: from the server's shoe (``card`` None), or keyed or
        read from outside; the engine puts it where the Table of Play says."""
        with self.lock:
            r = self._live_round()
            if card is None:
                if self.config.card_source == "device":
                    raise ActionError(
                        "this table's cards come from its card-reading shoe",
                        hint="key the card in, or let the device send it",
                    )
                self.table.draw()
            else:
                r.deal_card(card, source)
            deal = r.deal
            self._changed()
            return {
                "round_id": r.round_id,
                **_hands(deal)[-1],
                "phase": r.phase.value,
                "complete": deal.is_complete,
            }

    def settle(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
            r = self._live_round()
            r.settle(role)
            self.scoreboard.add(Result.from_coup(r.deal.to_coup(), self.table.pair_rule))
            self.reconcile()
            self.next_round_at = self.clock() + self.config.result_seconds
            self._changed(r.players)
            return {"round_id": r.round_id, **self._result_json(r)}

    def void(self, reason: str, clause: str | None, role: Role) -> dict[str, Any]:
        with self.lock:
            r = self._live_round()
            clause = (
                clause
                or self.game.clause("void_returns")
                or self.game.clause("unforeseen")
                or "5.1"
            )
            r.void_round(reason, clause, role, required=Role.PIT_MANAGER)
            self.reconcile()
            self.next_round_at = self.clock() + self.config.result_seconds
            self._changed(r.players)
            return {"round_id": r.round_id, "void": {"reason": reason, "clause": clause}}

    def power_failure(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
            r = self._live_round()
            consequence = r.power_failure(role)
            self.reconcile()
            if r.phase is Phase.VOID:
                self.next_round_at = self.clock() + self.config.result_seconds
            self._changed(r.players)
            return {"round_id": r.round_id, "consequence": consequence}

    def close_withdrawal(self, role: Role = Role.DEALER) -> dict[str, Any]:
        with self.lock:
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
                self.open_round(Role.DEALER)
                return self.config.betting_seconds
            if r.phase is Phase.BETTING:
                if self.deadline is None:
                    self.deadline = now + self.config.betting_seconds
                    self._changed()
                if now < self.deadline:
                    return self.deadline - now
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
                        ledger_transactions.c.kind == "settlement",
                        wallets.c.code == Ledger.HOUSE,
                    )
                )
            ).scalar_one()
            held = conn.execute(
                select(func.coalesce(func.sum(ledger_bets.c.held), 0)).where(
                    ledger_bets.c.table_id == self.id, ledger_bets.c.status == "open"
                )
            ).scalar_one()
        commission = Decimal(0)
        with self.lock:
            for r in self.table.rounds:
                if r.phase is not Phase.SETTLED:
                    continue
                for s in self.results(r):
                    if s.outcome != "win" or s.event is None:
                        continue
                    wager = self.game.wagers.get(s.bet.wager)
                    pays = wager.pays.get(s.event) if wager else None
                    if pays is not None and pays.odds == COMMISSION_ODDS:
                        commission += s.settled_stake - s.net
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
