"""Tournaments on the table server: the API, money on the ledger, the live
clock, the live leaderboard and the page.

:func:`install` adds to an app made by :func:`punto.server.app.create_app`:

- ``POST /api/tournaments`` (pit manager or admin): ``{"id", "format", "seed",
  "tables", "live", "betting_seconds", "pause_seconds"}``
- ``GET /api/tournaments``, ``GET /api/tournaments/{id}`` (the snapshot, with
  the betting windows open now), ``GET /api/tournaments/{id}/leaderboard``,
  ``GET /api/tournaments/{id}/results`` (places, prizes and their payment)
- ``POST /api/tournaments/{id}/register``: a player registers themselves and
  pays the format's entry fee from their wallet (``Idempotency-Key``); staff
  register anyone, for free (``name``, ``strategy`` for an automated entrant)
- ``DELETE /api/tournaments/{id}/register``: a player takes their entry back
  before the first session (T2.4), the fee refunded in the same transaction
- ``POST /api/tournaments/{id}/reenter``: a player out of chips buys a new
  stack where the format allows, paying the entry fee again
- ``POST /api/tournaments/{id}/bets`` (``replace`` to change them),
  ``DELETE /api/tournaments/{id}/bets``: a player's bets on the hand being bet
- ``POST /api/tournaments/{id}/tiebreak``: a tied player's side in a sudden-death hand
- ``POST /api/tournaments/{id}/start`` (pit manager or admin): the next session
- ``POST /api/tournaments/{id}/cancel`` (pit manager or admin): call it off
  (T8.4), every entry fee paid given back
- ``POST /api/tournaments/{id}/irregularities/{procedure}`` (pit supervisor or
  higher): Baccarat Tournament 5.1-5.4 on the hand in play at a table
  (:mod:`punto.server.tournament_pit`)
- ``POST /api/tournaments/{id}/advance`` (staff; not for a live tournament):
  the next ``steps`` actions, as :class:`punto.tournament.runner.Runner`
  chooses them from the state alone -- automated entrants (and people who have
  not acted) bet, hands are opened, closed and dealt, ties broken, sessions ended
- ``WS /ws/tournaments/{id}``: a ``snapshot`` on connecting, then a
  ``leaderboard`` message (with the event) after every hand opened, closed and
  settled, seating, sudden-death hand, session end and the finish, and a
  ``window`` message (with its deadline) as each betting window opens
- ``GET /tournaments/{id}``: the lobby, live leaderboard, login, registration,
  betting and results page, with the pit's "start the next session" and
  "cancel the tournament" for a pit manager or higher

**Money.**  A player's entry fee moves from their wallet to the tournament's
pool (``tournament:<id>``, :meth:`punto.store.ledger.Ledger.pay_entry_fee`)
in the same database transaction as the ``EntrantRegistered`` (or
``EntrantReentered``) event that records it, and, with an Idempotency-Key,
the answer given: both or neither.  When the tournament finishes, each prize
of an entrant with a wallet is paid from the pool (the house pays what the
fees do not cover) under the key ``tournament:<id>:prize:<entrant>``, and
then what the pool still holds goes to the house: a payout cut short by a
crash is finished at the next start, paying each prize once.  A cancelled
tournament gives every entry fee back the same way, under
``tournament:<id>:refund:<entrant>``.  Entrants
registered by the staff (automated, or people entered by hand) pay nothing
and have no wallet: their prizes are not paid through the ledger.

**Live tournaments** run by :class:`punto.tournament.clock.Clock`, one
asyncio task each, started with the app (:func:`start`) and stopped with it
(:func:`stop`), as the automatic table dealers are.

Each tournament is one :class:`~punto.tournament.Tournament` in the process,
on :class:`~punto.tournament.SQLTournamentLog` in the server's database
(table ``tournament_events``, migration 0003), opened from its log at start
-- so a server killed mid-session carries on exactly where the log stopped.
Refusals are the engine's own, as JSON with a 4xx status.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Header, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from punto.money import format_money
from punto.server import errors
from punto.server.auth import authenticate, is_staff, require_manager_or_admin
from punto.server.dealer import finish
from punto.server.models import Money, documented
from punto.server.pages import HEADERS, STATIC
from punto.server.runtime import cents, money
from punto.server.services import Server
from punto.server.streams import refuse, stream
from punto.store import db
from punto.store.accounts import PermissionDeniedError, User, UserRole
from punto.store.db import tournament_requests, wallets
from punto.store.ledger import InsufficientFundsError, UnknownWalletError, Wallet
from punto.tournament import (
    BetLimitError,
    FormatError,
    MinHandsError,
    RegistrationError,
    SQLTournamentLog,
    Stage,
    TiebreakError,
    Tournament,
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
    UnknownFormatError,
    get_format,
)
from punto.tournament.clock import Clock, Window
from punto.tournament.errors import IrregularityRoleError
from punto.tournament.events import (
    BettingClosed,
    EntrantReentered,
    EntrantRegistered,
    EntrantWithdrawn,
    HandIrregularityNoted,
    HandOpened,
    HandSettled,
    HandVoided,
    SessionEnded,
    SessionStarted,
    TiebreakDealt,
    TiebreakLots,
    TiebreakOpened,
    TiebreakVoided,
    TournamentCancelled,
    TournamentEvent,
    TournamentFinished,
    event_to_json,
)
from punto.tournament.runner import Runner, bot_controller
from punto.tournament.strategies import STRATEGIES

log = logging.getLogger("punto.server.tournaments")

#: The most actions one ``advance`` request may take.
MAX_STEPS = 5000
#: How long a live tournament's clock waits after a step that failed.
RETRY_SECONDS = 1.0
#: Events after which the leaderboard is pushed.
PUSHED = (
    HandOpened,
    BettingClosed,
    HandSettled,
    SessionStarted,
    SessionEnded,
    TiebreakOpened,
    TiebreakDealt,
    TiebreakLots,
    TournamentFinished,
    EntrantRegistered,
    EntrantReentered,
    EntrantWithdrawn,
    TournamentCancelled,
    HandVoided,
    HandIrregularityNoted,
    TiebreakVoided,
)


class UnknownTournamentError(TournamentError):
    """No tournament with that id on this server."""


class TournamentExistsError(TournamentError):
    """A tournament with that id exists already."""


class TournamentRequestConflictError(TournamentError):
    """An Idempotency-Key used again for a different tournament request."""


#: Most specific first (as :data:`punto.server.errors.STATUS`).
STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (UnknownTournamentError, 404),
    (UnknownFormatError, 404),
    (TournamentExistsError, 409),
    (TournamentRequestConflictError, 409),
    (IrregularityRoleError, 403),
    (TournamentPhaseError, 409),
    (TournamentLogError, 409),
    (RegistrationError, 422),
    (BetLimitError, 422),
    (MinHandsError, 422),
    (TiebreakError, 422),
    (FormatError, 422),
    (TournamentError, 422),
)


def status_of(error: TournamentError) -> int:
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 422  # pragma: no cover - TournamentError is last


def channel(tournament_id: str) -> str:
    """The hub channel of a tournament's pages."""
    return f"tournament:{tournament_id}"


def fee_key(tournament_id: str, entrant: str, entry: int, registration: int = 1) -> str:
    """The ledger key of an entrant's fee for their ``entry``-th entry (one fee
    each), in their ``registration``-th registration (after taking an entry
    back, T2.4, a player may register again and pays again)."""
    again = f"/{registration}" if registration > 1 else ""
    return f"tournament:{tournament_id}:fee:{entrant}:{entry}{again}"


def withdrawal_key(tournament_id: str, entrant: str, registration: int) -> str:
    """The ledger key of the fee given back for an entry taken back (T2.4)."""
    return f"tournament:{tournament_id}:withdrawal:{entrant}:{registration}"


def refund_key(tournament_id: str, entrant: str) -> str:
    """The ledger key of an entrant's fees given back when the tournament is
    cancelled (T8.4): paid once, however often the payout runs."""
    return f"tournament:{tournament_id}:refund:{entrant}"


def prize_key(tournament_id: str, entrant: str) -> str:
    """The ledger key of an entrant's prize: paid once, however often the payout runs."""
    return f"tournament:{tournament_id}:prize:{entrant}"


def surplus_key(tournament_id: str) -> str:
    return f"tournament:{tournament_id}:surplus"


def _hash(content: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


class _AnsweredError(Exception):
    """The request's Idempotency-Key was answered before: here is the answer."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body


@dataclass(frozen=True)
class _Step:
    """What a player's money request writes: its event, the ledger posting
    made with it (None: no money moves), the answer, and the fee it costs."""

    event: TournamentEvent
    post: Callable[[Connection], object] | None
    answer: dict[str, Any]
    fee: int = 0


@dataclass
class Entry:
    """A tournament in the process: the state, its runner, the lock its steps
    take, and for a live tournament its clock."""

    tournament: Tournament
    runner: Runner
    lock: threading.Lock = field(default_factory=threading.Lock)
    clock: Clock | None = None
    #: every prize (or, cancelled, every refund) paid and the pool closed (in this process)
    paid: bool = False


class LiveTimer:
    """The asyncio task that runs a live tournament's clock (as
    :class:`punto.server.dealer.AutoDealer` runs a table): a step in a worker
    thread, then a sleep until the next is due or something happens."""

    def __init__(self, service: Tournaments, entry: Entry) -> None:
        self.service = service
        self.entry = entry
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        self._unsubscribe: Any = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        wake = self._wake

        def changed(_seq: int, _event: TournamentEvent) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(wake.set)

        self._unsubscribe = self.entry.tournament.subscribe(changed)
        self._task = loop.create_task(self._run(), name=f"tournament-{self.entry.tournament.id}")

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopping:
            self._wake.clear()
            try:
                delay = await asyncio.to_thread(self.service.tick, self.entry)
            except asyncio.CancelledError:
                raise
            except Exception:
                # a person's action in between, or the database is busy: look again shortly
                log.warning(
                    "tournament %s: clock step failed", self.entry.tournament.id, exc_info=True
                )
                delay = RETRY_SECONDS
            if self.entry.tournament.stage.over and self.entry.paid:
                return
            if delay is not None and delay <= 0:
                await asyncio.sleep(0)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop after the step in progress (a step is never cut in half)."""
        self._stopping = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._wake is not None:
            self._wake.set()
        task, self._task = self._task, None
        await finish(task, timeout)


class Tournaments:
    """Every tournament of the server's database, opened from its log."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.hub = server.hub
        self.log = SQLTournamentLog(server.engine, create=False)
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()
        self._timers: dict[str, LiveTimer] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        for tournament_id in self.log.tournaments():
            self._add(Tournament.open(self.log, tournament_id))

    def _add(self, t: Tournament) -> Entry:
        entry = Entry(t, Runner(t))
        if t.live:
            entry.clock = Clock(t, entry.runner, on_window=lambda w: self._window(t, w))
        t.subscribe(lambda _seq, event: self._publish(entry, event))
        self._entries[t.id] = entry
        return entry

    def _publish(self, entry: Entry, event: TournamentEvent) -> None:
        t = entry.tournament
        name = channel(t.id)
        if isinstance(event, PUSHED) and self.hub.count(name):
            self.hub.publish(
                name,
                {
                    "type": "leaderboard",
                    "event": event_to_json(event),
                    "leaderboard": t.leaderboard(),
                    "windows": _windows(entry),
                    "server_time": time.time(),
                },
            )

    def _window(self, t: Tournament, window: Window) -> None:
        name = channel(t.id)
        if self.hub.count(name):
            self.hub.publish(
                name, {"type": "window", **window.to_json(), "server_time": time.time()}
            )

    def get(self, tournament_id: str) -> Entry:
        entry = self._entries.get(tournament_id)
        if entry is None:
            raise UnknownTournamentError(
                f"there is no tournament {tournament_id!r}",
                hint="GET /api/tournaments lists them",
            )
        return entry

    def all(self) -> list[Entry]:
        with self._lock:
            return [self._entries[k] for k in sorted(self._entries)]

    def create(
        self,
        tournament_id: str,
        format_id: str,
        seed: int | str | None,
        tables: int | None,
        *,
        betting_ms: int = 0,
        pause_ms: int = 0,
    ) -> Entry:
        fmt = get_format(format_id)
        with self._lock:
            if tournament_id in self._entries:
                raise TournamentExistsError(
                    f"tournament {tournament_id!r} already exists", hint="choose another id"
                )
            t = Tournament.create(
                self.log,
                tournament_id,
                fmt,
                seed=seed,
                tables=tables,
                betting_ms=betting_ms,
                pause_ms=pause_ms,
            )
            entry = self._add(t)
        if t.live:
            self._start_timer(entry)
        return entry

    def advance(self, tournament_id: str, steps: int) -> int:
        """Take up to ``steps`` actions; how many were taken (fewer once finished)."""
        entry = self.get(tournament_id)
        if entry.clock is not None:
            raise TournamentPhaseError(
                f"tournament {tournament_id!r} is live: its clock deals the hands, "
                "and nobody is played for",
                hint="watch it on its page; advance is for tournaments created without live",
            )
        done = 0
        with entry.lock:
            for _ in range(steps):
                if not entry.runner.step():
                    break
                done += 1
        if entry.tournament.stage.over:
            self.pay_out(entry)  # a payout that fails is finished at the next start
        return done

    # -- the live clock ------------------------------------------------------------------

    def tick(self, entry: Entry) -> float | None:
        """One step of a live tournament's clock (a worker thread's job)."""
        assert entry.clock is not None
        with entry.lock:
            delay = entry.clock.step()
        if entry.tournament.stage.over and not self.pay_out(entry):
            return RETRY_SECONDS
        return delay

    def _start_timer(self, entry: Entry) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # not started yet: start() starts it

        def begin() -> None:
            if entry.tournament.id not in self._timers:
                timer = LiveTimer(self, entry)
                self._timers[entry.tournament.id] = timer
                timer.start()

        try:
            if _running_loop() is loop:
                begin()
            else:
                loop.call_soon_threadsafe(begin)
        except RuntimeError:  # the loop closed meanwhile
            pass

    async def start(self) -> None:
        """With the app: finish any payout a crash cut short, start the clocks."""
        self._loop = asyncio.get_running_loop()
        for entry in self.all():
            if entry.tournament.stage.over:
                await asyncio.to_thread(self.pay_out, entry)
            elif entry.clock is not None:
                self._start_timer(entry)

    async def stop(self) -> None:
        """With the app: stop every clock after the step it is taking."""
        self._loop = None
        timers, self._timers = self._timers, {}
        for timer in timers.values():
            await timer.stop()

    # -- money -------------------------------------------------------------------------------

    def _answered(self, account_id: int, key: str | None, request_hash: str) -> None:
        """Raise :class:`_AnsweredError` if the key was answered (the same request),
        :class:`TournamentRequestConflictError` if it was used for another."""
        if key is None:
            return
        with self.server.engine.connect() as conn:
            _check_answer(_stored_answer(conn, account_id, key), key, request_hash)

    def _money_request(
        self,
        entry: Entry,
        user: User,
        key: str | None,
        request: dict[str, Any],
        step: Callable[[], _Step],
    ) -> tuple[int, dict[str, Any]]:
        """A player's request that moves money with its event (an entry, a
        re-entry, an entry taken back): ``step`` (under the tournament's lock)
        checks it and says what to write, then :meth:`_write_with_money`
        writes it.  With an Idempotency-Key ``key``, the answer given to the
        same ``request`` before, and a conflict for another."""
        request_hash = _hash({**request, "tournament": entry.tournament.id})
        try:
            with entry.lock:
                self._answered(user.id, key, request_hash)
                return 200, self._write_with_money(entry, user, step(), key, request_hash)
        except _AnsweredError as replay:
            return replay.status, replay.body

    def _write_with_money(
        self, entry: Entry, user: User, step: _Step, key: str | None, request_hash: str
    ) -> dict[str, Any]:
        """The ledger posting the step makes (an entry fee, or one given back),
        its event and its answer, in one transaction; then the event applied.
        Nothing is written if anything is refused (a wallet short of the fee: 402)."""
        t = entry.tournament
        ledger = self.server.ledger
        code = f"player:{user.username}"
        event, post, answer = step.event, step.post, step.answer

        def work(conn: Connection) -> tuple[int, dict[str, Any]]:
            if key is not None:  # answered meanwhile, by another process?
                _check_answer(_stored_answer(conn, user.id, key), key, request_hash)
            body = dict(answer)
            if post is not None:
                post(conn)
                left = conn.execute(
                    select(wallets.c.balance).where(wallets.c.code == code)
                ).scalar_one()
                body["balance"] = money(int(left))
            seq = self.log.append_within(conn, t.id, t.seq + 1, event)
            if key is not None:
                conn.execute(
                    insert(tournament_requests).values(
                        account_id=user.id,
                        key=key,
                        tournament_id=t.id,
                        request_hash=request_hash,
                        status_code=200,
                        response=json.dumps(body, sort_keys=True),
                        created_at=db.utc_now(),
                    )
                )
            return seq, body

        if post is not None:
            self.server.journal.forget_balance(code)  # it is about to change
        try:
            seq, body = db.run_transaction(self.server.engine, work, retry_integrity=True)
        except InsufficientFundsError:
            raise self._short(t, user, step.fee, ledger.balance(code)) from None
        finally:
            if post is not None:
                self.server.journal.forget_balance(code)
        t.adopt(seq, event)
        return body

    def _fee_post(
        self, t: Tournament, user: User, fee: int, key: str, memo: str
    ) -> Callable[[Connection], object] | None:
        """The posting of an entry fee of ``fee`` from the player's wallet (None: no fee)."""
        if not fee:
            return None
        ledger = self.server.ledger
        try:
            wallet = ledger.wallet(f"player:{user.username}")
        except UnknownWalletError:
            raise self._short(t, user, fee, 0) from None
        return lambda conn: ledger.pay_entry_fee(wallet, t.id, fee, key, memo=memo, within=conn)

    @staticmethod
    def _short(t: Tournament, user: User, fee: int, balance: int) -> InsufficientFundsError:
        return InsufficientFundsError(
            f"the entry fee of {money(fee)} {t.fmt.currency} is more than the "
            f"{money(balance)} in {user.username}'s wallet",
            clause=t.fmt.rule("registration"),
            hint="buy chips at the cage, then send the request again",
        )

    def register_player(
        self, entry: Entry, user: User, name: str | None, key: str | None
    ) -> tuple[int, dict[str, Any]]:
        """A player enters themselves, paying the entry fee from their wallet."""
        t = entry.tournament

        def step() -> _Step:
            fee_amount = t.fmt.registration.entry_fee
            fee = cents(fee_amount) if fee_amount is not None else 0
            event = t.registration(
                name or user.username,
                "human",
                entrant=user.username,
                wallet=f"player:{user.username}",
                fee=money(fee) if fee else None,
            )
            answer = {
                "entrant": event.entrant,
                "name": event.name,
                "controller": "human",
                "entry": 1,
                "fee": money(fee) if fee else None,
                "currency": t.fmt.currency,
                "balance": None,
            }
            registration = t.registrations.get(event.entrant, 0) + 1
            post = self._fee_post(
                t,
                user,
                fee,
                fee_key(t.id, event.entrant, 1, registration),
                f"tournament {t.id}: entry 1 of {event.entrant}",
            )
            return _Step(event, post, answer, fee)

        return self._money_request(entry, user, key, {"op": "register", "name": name}, step)

    def reenter_player(
        self, entry: Entry, user: User, key: str | None
    ) -> tuple[int, dict[str, Any]]:
        """A player out of chips re-enters (T2.3), paying the entry fee again."""
        t = entry.tournament

        def step() -> _Step:
            e = t.entrant(user.username)
            fee_amount = t.fmt.registration.entry_fee
            fee = cents(fee_amount) if fee_amount is not None and e.wallet else 0
            event = t.reentry(e.id, fee=money(fee) if fee else None)
            answer = {
                "entrant": e.id,
                "name": e.name,
                "controller": e.controller,
                "entry": event.entry,
                "fee": money(fee) if fee else None,
                "currency": t.fmt.currency,
                "balance": None,
                "chips": event.chips,
            }
            post = self._fee_post(
                t,
                user,
                fee,
                fee_key(t.id, e.id, event.entry, t.registrations.get(e.id, 1)),
                f"tournament {t.id}: entry {event.entry} of {e.id}",
            )
            return _Step(event, post, answer, fee)

        return self._money_request(entry, user, key, {"op": "reenter"}, step)

    def comp_player(
        self, entry: Entry, username: str, name: str | None, strategy: str | None
    ) -> dict[str, Any]:
        """The staff enter a player account for free: the entrant is the player
        (their user name), no fee is taken, and their prizes are paid to their
        wallet like any other entrant's."""
        t = entry.tournament
        if strategy is not None:
            raise RegistrationError(
                "a player entered by the staff plays for themselves",
                hint="send player or strategy, not both",
            )
        account = self.server.accounts.find_user(username)
        if account is None or account.role is not UserRole.PLAYER:
            raise RegistrationError(
                f"{username!r} is not a player account",
                clause=t.fmt.rule("registration"),
                hint="enter a player by their user name",
            )
        wallet = self._wallet_of(f"player:{username}")  # opened if it is not yet
        with entry.lock:
            entrant = t.register(name or username, "human", entrant=username, wallet=wallet.code)
            return {
                "entrant": entrant,
                "name": t.entrants[entrant].name,
                "controller": "human",
                "entry": 1,
                "fee": None,
                "currency": t.fmt.currency,
                "wallet": wallet.code,
            }

    def withdraw_player(
        self, entry: Entry, user: User, key: str | None
    ) -> tuple[int, dict[str, Any]]:
        """A player takes their entry back before the first session (T2.4): the
        fee paid comes back from the pool in the same transaction."""
        t = entry.tournament
        ledger = self.server.ledger

        def step() -> _Step:
            e = t.entrant(user.username)
            event = t.entry_withdrawal(e.id)
            refund = cents(Decimal(event.refund)) if event.refund else 0
            post: Callable[[Connection], object] | None = None
            if refund and e.wallet is not None:
                wallet = ledger.wallet(e.wallet)
                back = withdrawal_key(t.id, e.id, t.registrations[e.id])
                memo = f"tournament {t.id}: entry of {e.id} taken back"

                def post(conn: Connection) -> object:
                    return ledger.refund_entry_fee(
                        t.id, wallet, refund, back, memo=memo, within=conn
                    )

            answer = {
                "entrant": e.id,
                "refund": money(refund) if refund else None,
                "currency": t.fmt.currency,
                "balance": None,
            }
            return _Step(event, post, answer)

        return self._money_request(entry, user, key, {"op": "withdraw_entry"}, step)

    def pit_request(
        self,
        entry: Entry,
        user: User,
        key: str | None,
        request: dict[str, Any],
        check: Callable[[], TournamentEvent],
    ) -> tuple[int, dict[str, Any]]:
        """A pit procedure on a hand (rules 5.1-5.5): ``check`` (under the
        tournament's lock) says what the engine writes; the event and, with an
        Idempotency-Key, the answer are stored in one transaction, then the
        event applied.  Chips are not money: nothing moves on the ledger."""
        t = entry.tournament

        def step() -> _Step:
            event = check()
            return _Step(event, None, {"tournament": t.id, "event": event_to_json(event)})

        return self._money_request(entry, user, key, request, step)

    def cancel(self, entry: Entry, reason: str) -> None:
        """Call the tournament off (T8.4), then give every entry fee back."""
        with entry.lock:
            entry.tournament.cancel(reason)
        self.pay_out(entry)  # a payout that fails is finished by the clock or the next start

    def pay_out(self, entry: Entry) -> bool:
        """Pay what a tournament that is over owes: every prize of a finished
        one to the winners' wallets (T8.3), or every entry fee of a cancelled
        one back (T8.4), each once by its key; then close the pool, what is
        left to the house.  Whether all is paid (a failure is logged, to be
        tried again)."""
        t = entry.tournament
        if not t.stage.over or entry.paid:
            return entry.paid
        ledger = self.server.ledger
        pay, owed = self._owed(t)
        try:
            for entrant, due, key, why in owed:
                wallet, amount = t.entrants[entrant].wallet, cents(Decimal(due))
                if amount and wallet is not None:
                    pay(t.id, self._wallet_of(wallet), amount, key, memo=why)
                    self.server.journal.forget_balance(wallet)  # it has more now
            ledger.close_pool(t.id, surplus_key(t.id))
        except Exception:
            # the keys make trying again safe: the clock retries, and every start
            log.exception("tournament %s: the payout stopped; it resumes at the next start", t.id)
            return False
        entry.paid = True
        return True

    def _owed(self, t: Tournament) -> tuple[Callable[..., object], list[tuple[str, str, str, str]]]:
        """What pays a tournament that is over, and what it owes: (entrant,
        money, ledger key, memo) of each prize of a finished one, or of each
        entry fee given back by a cancelled one."""
        ledger = self.server.ledger
        if t.stage is Stage.FINISHED:
            return ledger.pay_prize, [
                (
                    p.entrant,
                    p.prize,
                    prize_key(t.id, p.entrant),
                    f"tournament {t.id}: place {p.place}",
                )
                for p in t.results
            ]
        memo = f"tournament {t.id} cancelled: {t.cancelled}"
        return ledger.refund_entry_fee, [
            (r.entrant, r.amount, refund_key(t.id, r.entrant), memo) for r in t.refunds
        ]

    def _wallet_of(self, code: str) -> Wallet:
        username = code.removeprefix("player:")
        account = self.server.accounts.find_user(username)
        return self.server.ledger.player_wallet(
            username, account_id=None if account is None else account.id
        )

    def payments(self, t: Tournament) -> dict[str, str]:
        """Each entrant's prize (or, cancelled, refund) as paid on the ledger so
        far (money, by entrant)."""
        paid: dict[str, str] = {}
        for entrant, _due, key, _memo in self._owed(t)[1]:
            posting = self.server.ledger.posting(key)
            if posting is not None:
                paid[entrant] = money(sum(x.amount for x in posting.entries if x.amount > 0))
        return paid


def _stored_answer(conn: Connection, account_id: int, key: str) -> Any:
    """The stored answer to ``account_id``'s request ``key``: (request hash,
    status, response), or None."""
    return conn.execute(
        select(
            tournament_requests.c.request_hash,
            tournament_requests.c.status_code,
            tournament_requests.c.response,
        ).where(
            tournament_requests.c.account_id == account_id,
            tournament_requests.c.key == key,
        )
    ).first()


def _check_answer(row: Any, key: str, request_hash: str) -> None:
    if row is None:
        return
    if row.request_hash != request_hash:
        raise TournamentRequestConflictError(
            f"the Idempotency-Key {key!r} was already used for a different request",
            hint="use a new key for a new request; repeat a key only to retry the same one",
        )
    raise _AnsweredError(int(row.status_code), json.loads(row.response))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _windows(entry: Entry) -> list[dict[str, object]]:
    return [w.to_json() for w in entry.clock.windows()] if entry.clock is not None else []


# -- the API --------------------------------------------------------------------------


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Ident = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class CreateIn(Strict):
    id: Ident
    format: Annotated[str, Field(min_length=1, max_length=64, examples=["daily"])] = "daily"
    seed: Annotated[int, Field(ge=0)] | Annotated[str, Field(max_length=200)] | None = None
    tables: Annotated[int, Field(ge=1, le=100)] | None = None
    live: bool = Field(
        False,
        description="run by the server's clock: a betting window for every hand, "
        "nobody played for (then `advance` is refused)",
    )
    betting_seconds: Annotated[float, Field(ge=0.1, le=600)] = Field(
        20.0, description="a live tournament's betting window for each hand"
    )
    pause_seconds: Annotated[float, Field(ge=0, le=600)] = Field(
        3.0, description="a live tournament's pause after each hand (and between sessions)"
    )


class RegisterIn(Strict):
    #: the entrant's name (default: the player's user name)
    name: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    #: an automated entrant's strategy (staff only): banker, flat, catchup, pairs
    strategy: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    entrant: Ident | None = None
    #: a player account the staff enter for free (a comped entry): the player
    #: is the entrant, acts for themselves, and prizes go to their wallet
    player: Ident | None = None


class RegisteredOut(BaseModel):
    """An entry made: by a player, with the fee paid and the balance left."""

    model_config = ConfigDict(extra="allow")

    entrant: str
    name: str
    controller: str
    entry: int | None = None
    fee: Money | None = Field(None, description="the entry fee paid from the wallet")
    currency: str | None = None
    balance: Money | None = Field(None, description="the wallet's balance after the fee")
    chips: int | None = None


class BetLineIn(Strict):
    wager: Annotated[str, Field(min_length=1, max_length=32, examples=["banker"])]
    #: strict: a JSON true is not 1 chip (issue 12)
    stake: Annotated[StrictInt, Field(ge=0, le=10**12)]


class BetsIn(Strict):
    #: the bets on the hand being bet at the player's table (all together, T4.1)
    bets: Annotated[list[BetLineIn], Field(max_length=10)] = []
    #: sit this hand out instead (T5.2 allowing)
    pass_hand: bool = False
    replace: bool = Field(
        False, description="withdraw the bets already placed on this hand and place these (T4.6)"
    )


class TiebreakIn(Strict):
    side: Annotated[str, Field(min_length=1, max_length=16, examples=["banker", "player"])]


class CancelIn(Strict):
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class AdvanceIn(Strict):
    steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 1


IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=200,
        description="makes a retry return the first answer instead of paying twice",
    ),
]


def service(request: Request | WebSocket) -> Tournaments:
    """The app's tournaments (opened when the app starts, or on first use)."""
    return _service_of(request.app)


def _service_of(app: FastAPI) -> Tournaments:
    state = app.state
    found: Tournaments | None = getattr(state, "tournaments", None)
    if found is None:
        lock: threading.Lock = state.tournaments_lock
        with lock:
            found = getattr(state, "tournaments", None)
            if found is None:
                found = Tournaments(state.server)
                state.tournaments = found
    return found


async def start(app: FastAPI) -> None:
    """Open the tournaments, finish interrupted payouts, start the live clocks
    (from the app's lifespan, once the server has started)."""
    if not hasattr(app.state, "tournaments_lock"):
        return  # not installed
    tournaments = await asyncio.to_thread(_service_of, app)
    await tournaments.start()


async def stop(app: FastAPI) -> None:
    """Stop the live clocks (from the app's lifespan, before the server stops)."""
    tournaments: Tournaments | None = getattr(app.state, "tournaments", None)
    if tournaments is not None:
        await tournaments.stop()


def _user(request: Request) -> User:
    server: Server = request.app.state.server
    return authenticate(server.accounts, request, server.sessions)


def _staff(user: User, action: str) -> None:
    if not is_staff(user):
        raise PermissionDeniedError(
            f"a player may not {action}", hint="it takes a dealer or higher, or the admin"
        )


def _player(user: User, action: str) -> None:
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not {action}", hint="entrants act for themselves"
        )


def _summary(t: Tournament) -> dict[str, Any]:
    s = t.session
    fee = t.fmt.registration.entry_fee
    return {
        "id": t.id,
        "format": t.fmt.id,
        "title": t.fmt.title,
        "stage": t.stage.value,
        "session": None if s is None else {"number": s.number, "name": s.name},
        "entrants": len(t.entrants),
        "tables": len(t.tables),
        "seq": t.seq,
        "live": t.live,
        "entry_fee": None if fee is None else format_money(fee),
        "currency": t.fmt.currency,
    }


def _results(tournaments: Tournaments, t: Tournament) -> dict[str, Any]:
    paid = tournaments.payments(t) if t.stage.over else {}
    rows = []
    for row in t.result_rows():
        e = t.entrants[row["entrant"]]
        has_prize = Decimal(row["prize"]) > 0
        row["paid"] = paid.get(e.id)
        row["payment"] = (
            None
            if not has_prize
            else "paid"
            if e.id in paid
            else "due"
            if e.wallet is not None
            else "off_ledger"
        )
        rows.append(row)
    return {
        "tournament": t.id,
        "finished": t.stage is Stage.FINISHED,
        "currency": t.fmt.currency,
        "entry_fees": format_money(sum((e.fees for e in t.entrants.values()), Decimal(0))),
        "results": rows,
        "cancelled": None
        if t.cancelled is None
        else {
            "reason": t.cancelled,
            "refunds": [
                {
                    "entrant": r.entrant,
                    "amount": r.amount,
                    "paid": paid.get(r.entrant),
                    "payment": "paid"
                    if r.entrant in paid
                    else "due"
                    if t.entrants[r.entrant].wallet is not None
                    else "off_ledger",
                }
                for r in t.refunds
            ],
        },
    }


def _view(entry: Entry) -> dict[str, Any]:
    """The snapshot, with the betting windows open now and the server's clock."""
    data = entry.tournament.snapshot()
    data["windows"] = _windows(entry)
    data["server_time"] = time.time()
    return data


router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses=errors.RESPONSES)


@router.get("")
def list_tournaments(request: Request) -> list[dict[str, Any]]:
    """Every tournament on the server."""
    return [_summary(e.tournament) for e in service(request).all()]


@router.post("")
def create_tournament(body: CreateIn, request: Request) -> dict[str, Any]:
    """A new tournament (a pit manager or the admin): its format, seed and first
    tables; ``live`` to have the server's clock run it, with a betting window of
    ``betting_seconds`` for every hand and ``pause_seconds`` between hands."""
    require_manager_or_admin(_user(request), "create a tournament")
    entry = service(request).create(
        body.id,
        body.format,
        body.seed,
        body.tables,
        betting_ms=round(body.betting_seconds * 1000) if body.live else 0,
        pause_ms=round(body.pause_seconds * 1000) if body.live else 0,
    )
    return _summary(entry.tournament)


@router.get("/{tournament_id}")
def tournament_snapshot(tournament_id: str, request: Request) -> dict[str, Any]:
    """Everything the lobby shows (never the shoe's order or the seed), with
    the betting windows open now (``deadline`` in seconds since the epoch) and
    ``server_time``."""
    entry = service(request).get(tournament_id)
    with entry.lock:
        return _view(entry)


@router.get("/{tournament_id}/leaderboard")
def tournament_leaderboard(tournament_id: str, request: Request) -> dict[str, Any]:
    """Standings per table and overall."""
    entry = service(request).get(tournament_id)
    with entry.lock:
        return entry.tournament.leaderboard()


@router.get("/{tournament_id}/results")
def tournament_results(tournament_id: str, request: Request) -> dict[str, Any]:
    """The places and prizes (empty until the tournament has finished), each
    prize's ``payment`` (``paid`` to the winner's wallet, ``due``, or
    ``off_ledger`` for an entrant the staff registered), and the entry fees taken."""
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    with entry.lock:
        return _results(tournaments, entry.tournament)


@router.post("/{tournament_id}/register", **documented(RegisteredOut))
def register(
    tournament_id: str,
    request: Request,
    body: RegisterIn | None = None,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Enter the tournament.  A player enters themselves (their user name is the
    entrant id) and pays the format's entry fee from their wallet, in the same
    transaction: refused, with nothing written, when the wallet is short
    (402) or registration is closed (422).  An ``Idempotency-Key`` makes a
    retry return the first answer.  Staff enter anyone, for free (``name``;
    ``strategy`` for an automated entrant; ``player`` for a player account,
    who then plays for themselves and whose prizes go to their wallet -- a
    re-entry they pay for)."""
    user = _user(request)
    body = body or RegisterIn()
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    t = entry.tournament
    if user.role is UserRole.PLAYER:
        if (
            body.strategy is not None
            or body.player is not None
            or body.entrant not in (None, user.username)
        ):
            raise PermissionDeniedError(
                "a player may only register themselves",
                hint="send no entrant, player or strategy",
            )
        status, data = tournaments.register_player(entry, user, body.name, idempotency_key)
        return JSONResponse(data, status_code=status)
    _staff(user, "register entrants")
    if body.player is not None:
        return JSONResponse(tournaments.comp_player(entry, body.player, body.name, body.strategy))
    if body.name is None:
        raise RegistrationError("an entrant needs a name", hint='send {"name": ...}')
    controller = "human"
    if body.strategy is not None:
        if body.strategy not in STRATEGIES:
            raise RegistrationError(
                f"no automated entrant {body.strategy!r}",
                hint=f"choose from {', '.join(STRATEGIES)}",
            )
        controller = bot_controller(body.strategy)
    with entry.lock:
        new_id = t.register(body.name, controller, entrant=body.entrant)
        return JSONResponse(
            {"entrant": new_id, "name": t.entrants[new_id].name, "controller": controller}
        )


@router.post("/{tournament_id}/reenter", **documented(RegisteredOut))
def reenter(
    tournament_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A player out of chips buys a new starting stack (T2.3, where the format
    allows), paying the entry fee again from their wallet; ``Idempotency-Key``
    as for registering."""
    user = _user(request)
    _player(user, "re-enter a tournament")
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    status, data = tournaments.reenter_player(entry, user, idempotency_key)
    return JSONResponse(data, status_code=status)


@router.delete("/{tournament_id}/register")
def withdraw_entry(
    tournament_id: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A player takes their entry back before the first session starts (T2.4):
    the entry fee comes back to their wallet in the same transaction
    (``refund``, with the ``balance`` after it).  They may register again.
    ``Idempotency-Key`` as for registering."""
    user = _user(request)
    _player(user, "take back a tournament entry")
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    status, data = tournaments.withdraw_player(entry, user, idempotency_key)
    return JSONResponse(data, status_code=status)


@router.post("/{tournament_id}/cancel")
def cancel(tournament_id: str, body: CancelIn, request: Request) -> dict[str, Any]:
    """Call the tournament off (a pit manager or the admin; T8.4): no more
    hands, no places, and every entry fee paid given back to its wallet
    (``results`` shows each refund's payment).  A finished tournament's
    results stand (409)."""
    require_manager_or_admin(_user(request), "cancel a tournament")
    tournaments = service(request)
    entry = tournaments.get(tournament_id)
    tournaments.cancel(entry, body.reason)
    with entry.lock:
        return {
            **_summary(entry.tournament),
            "cancelled": _results(tournaments, entry.tournament)["cancelled"],
        }


def _bets_answer(t: Tournament, entrant: str) -> dict[str, Any]:
    e = t.entrants[entrant]
    table = t.tables[e.table] if e.table is not None and e.table in t.tables else None
    return {
        "entrant": e.id,
        "chips": e.chips,
        "hand": None if table is None else table.hand,
        "bets": []
        if table is None
        else [{"wager": x.wager, "stake": x.stake} for x in table.bets.get(e.id, ())],
        "passed": table is not None and e.id in table.passed,
    }


@router.post("/{tournament_id}/bets")
def bets(tournament_id: str, body: BetsIn, request: Request) -> dict[str, Any]:
    """A player's bets on the hand being bet at their table, or ``pass_hand``;
    with ``replace``, the bets already placed on the hand are withdrawn and
    these placed instead (until "No more bets", T4.6)."""
    user = _user(request)
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not bet in a tournament", hint="entrants bet for themselves"
        )
    entry = service(request).get(tournament_id)
    t = entry.tournament
    with entry.lock:
        e = t.entrant(user.username)
        lines = [(b.wager, b.stake) for b in body.bets]
        table = t.tables.get(e.table) if e.table is not None else None
        if body.pass_hand:
            t.pass_hand(e.id)
        elif body.replace and table is not None and e.id in table.bets:
            t.replace_bets(e.id, lines)
        else:
            t.place_bets(e.id, lines)
        return _bets_answer(t, e.id)


@router.delete("/{tournament_id}/bets")
def withdraw_bets(tournament_id: str, request: Request) -> dict[str, Any]:
    """Take back one's bets on the hand being bet, until "No more bets" (T4.6)."""
    user = _user(request)
    _player(user, "withdraw tournament bets")
    entry = service(request).get(tournament_id)
    t = entry.tournament
    with entry.lock:
        e = t.entrant(user.username)
        t.withdraw_bets(e.id)
        return _bets_answer(t, e.id)


@router.post("/{tournament_id}/tiebreak")
def tiebreak(tournament_id: str, body: TiebreakIn, request: Request) -> dict[str, Any]:
    """A tied player's side, Banker or Player, in the open sudden-death hand
    (T7.2; while a side is open it must be taken).  In a live tournament,
    whoever has not chosen when its window closes gets the default choice."""
    user = _user(request)
    _player(user, "choose a sudden-death side")
    entry = service(request).get(tournament_id)
    t = entry.tournament
    with entry.lock:
        e = t.entrant(user.username)
        t.choose_tiebreak(e.id, body.side.lower())
        tb = t.tiebreak
        return {
            "entrant": e.id,
            "side": body.side.lower(),
            "open_sides": list(t.tiebreak_sides()),
            "chosen": [] if tb is None else sorted(tb.choices),
        }


@router.post("/{tournament_id}/start")
def start_session(tournament_id: str, request: Request) -> dict[str, Any]:
    """Start the next session: the seats are drawn (a pit manager or the admin).
    A live tournament's clock starts the sessions after the first by itself."""
    require_manager_or_admin(_user(request), "start a tournament session")
    entry = service(request).get(tournament_id)
    with entry.lock:
        entry.tournament.start_session()
        return _summary(entry.tournament)


@router.post("/{tournament_id}/advance")
def advance(tournament_id: str, request: Request, body: AdvanceIn | None = None) -> dict[str, Any]:
    """Play the next ``steps`` actions (staff), for a tournament that is not
    live: people who have not acted are played by the catch-up bettor.  When
    the tournament finishes, the prizes are paid."""
    _staff(_user(request), "advance a tournament")
    body = body or AdvanceIn()
    tournaments = service(request)
    done = tournaments.advance(tournament_id, body.steps)
    t = tournaments.get(tournament_id).tournament
    return {**_summary(t), "steps": done, "finished": t.stage is Stage.FINISHED}


# -- the socket and the page ----------------------------------------------------------


async def tournament_socket(websocket: WebSocket, tournament_id: str) -> None:
    """A ``snapshot``, then a ``leaderboard`` after every hand and session
    change and a ``window`` as each betting window opens."""
    server: Server = websocket.app.state.server
    try:
        entry = await asyncio.to_thread(lambda: service(websocket).get(tournament_id))
    except TournamentError as error:
        await refuse(websocket, error)  # 4404 after the handshake, as for a table
        return
    await websocket.accept()
    subscriber = server.hub.subscribe(channel(tournament_id), None, False)

    async def opening() -> list[dict[str, Any]]:
        def snapshot() -> dict[str, Any]:
            with entry.lock:
                return _view(entry)

        return [{"type": "snapshot", "snapshot": await asyncio.to_thread(snapshot)}]

    await stream(websocket, server.hub, subscriber, opening)


def tournament_page() -> HTMLResponse:
    return HTMLResponse((STATIC / "tournament.html").read_text("utf-8"), headers=HEADERS)


def install(app: FastAPI) -> None:
    """Add the tournaments to an app made by ``create_app`` (before it starts)."""
    app.state.tournaments_lock = threading.Lock()

    async def tournament_error(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, TournamentError)
        body = errors.error_body(
            type(error).__name__,
            error.message,
            clause=error.clause,
            hint=error.hint,
            text=str(error),
        )
        return JSONResponse(body, status_code=status_of(error))

    app.add_exception_handler(TournamentError, tournament_error)
    app.include_router(router)
    from punto.server.tournament_pit import router as pit_router  # it uses this module

    app.include_router(pit_router)
    app.add_api_websocket_route("/ws/tournaments/{tournament_id}", tournament_socket)
    app.add_api_route(
        "/tournaments/{tournament_id}", tournament_page, methods=["GET"], include_in_schema=False
    )
