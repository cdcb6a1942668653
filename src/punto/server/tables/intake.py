"""Bets taken at a table on the server (:class:`BetIntake`).

**A bet is acknowledged only when its ledger posting (wallet to the table's
holding account), its ``BetPlaced`` event and its idempotency reservation
are durable -- and they are one unit**, written by the server's
:class:`punto.server.tables.journal.Journal` in one transaction with whatever else
is being written at that moment.  In order, under the table's lock:

1. the engine checks the bet (phase, layout, limits: a refusal costs nothing);
2. the unit goes to the journal, which checks the money (no wallet below
   zero, the request's key not taken) and commits it, or refuses it whole;
3. the engine takes the event into the round; the response is sent, and
   stored with the reservation (after the answer, in the next group).

A process killed at any instant leaves the bet wholly in or wholly out.  A
request retried with its key gets the stored answer, or -- if the process
died before storing it -- the same bet rebuilt from the round, never a
second one.
"""

from __future__ import annotations

import asyncio
import functools
import os
import secrets
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any, Protocol

from punto.jsontext import loads
from punto.server.forwarded import ANSWERING
from punto.server.tables.answers import Answers
from punto.server.tables.forms import bet_json, cents, find_bet, money
from punto.server.tables.host import TableHost
from punto.server.tables.journal import PlaceBet, RequestKeyTakenError
from punto.server.tables.named_round import check_named_round
from punto.server.tables.publishing import Publisher
from punto.server.tables.refusals import IdempotencyKeyError
from punto.server.tables.views import TableViews
from punto.store.columns import utc_now
from punto.store.requests import conflict, hash_request, recent_keys
from punto.store.requests import full_key as account_key
from punto.table.roles import Role
from punto.table.round import Round

__all__ = ["LOOKUP_SECONDS", "BetIntake"]

#: When a table comes to this process (its start, a takeover), the keys of the
#: requests made at it this long before are read, and kept as long after: a
#: retry of one is answered as stored; see :meth:`BetIntake.place_bet_async`.
LOOKUP_SECONDS = 120.0

#: The most request hashes a table keeps (see :meth:`BetIntake._asked`).
HASHES_KEPT = 10_000


class IntakeHost(TableHost, Protocol):
    """The host of a :class:`BetIntake`."""

    answers: Answers
    publisher: Publisher
    views: TableViews


class _Drawn:
    """Random hex ids from the operating system's source, drawn a few thousand
    bytes at a time: one ``getrandom`` call a bet let go of the GIL and then
    waited for it behind the other threads (a quarter of a bet's time in the
    event loop, profiled)."""

    def __init__(self, size: int, batch: int = 4096) -> None:
        self.size, self.batch = size, batch
        self._bytes = b""
        self._at = 0
        self._lock = threading.Lock()
        # a forked process must not deal out the bytes its parent does
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._bytes, self._at = b"", 0

    def draw(self) -> str:
        with self._lock:
            if self._at + self.size > len(self._bytes):
                self._bytes, self._at = secrets.token_bytes(self.batch), 0
            start, self._at = self._at, self._at + self.size
        return self._bytes[start : start + self.size].hex()


#: a bet's id after its round's: 40 random bits
_BET_IDS = _Drawn(5)


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


class BetIntake:
    """The bets of one table: taken, in flight, answered."""

    def __init__(self, runtime: IntakeHost) -> None:
        self.rt = runtime
        #: bets taken into the round whose units are not committed yet, and their keys
        self._in_flight: set[Future[Any]] = set()
        self._pending_keys: dict[str, _PendingBet] = {}
        #: (round id, player) -> the position of the player's first bet of the round
        self._positions: dict[tuple[str, str], int] = {}
        #: (wager, stake, position asked) -> the hash of such a bet request here
        self._hashes: dict[tuple[str, Decimal, int | None], str] = {}
        #: the keys of the requests made at the table shortly before it came here,
        #: and until when they are kept
        self._made_before = recent_keys(
            runtime.journal.engine, runtime.id, utc_now() - timedelta(seconds=LOOKUP_SECONDS)
        )
        self._lookups_until = time.monotonic() + LOOKUP_SECONDS

    def forget(self) -> None:
        """Lock held: the table was restored from its log."""
        self._positions.clear()

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
        low, high = self.rt.positions()
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
        (:mod:`punto.server.tables.named_round`; a retry's answer comes first).

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
        full_key = account_key(user_id, key) if key is not None else None
        stored = self.rt.answers.request_row(full_key) if full_key is not None else None
        for _attempt in range(5):
            waiting: _PendingBet | None = None
            with self.rt.lock:
                r, insurance, where, request_hash = self._asked(username, wager, stake, position)
                if full_key is not None:
                    answer = self._answer_for(full_key, request_hash, stored, username)
                    if answer is not None:
                        return answer
                    stored = None
                    waiting = self._pending_keys.get(full_key)
                    if waiting is not None and waiting.request_hash != request_hash:
                        raise conflict()
                if waiting is None:
                    check_named_round(self.rt.game, r, round_id)
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
                        stored = self.rt.answers.request_row(full_key)
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
                # the table is restored: answer from it
                stored = self.rt.answers.request_row(full_key)
        raise IdempotencyKeyError(  # pragma: no cover - a reservation that keeps coming back
            "this Idempotency-Key is in use by another request",
            hint="use a new key for a new bet",
        )

    def _asked(
        self, username: str, wager: str, stake: Decimal, position: int | None
    ) -> tuple[Round, bool, int, str]:
        """Lock held, for both ways a bet is taken (:meth:`place_bet`,
        :meth:`_quick_bet`): the round in play, whether the wager is an
        Insurance bet, the position it goes to, and the request's hash -- the
        request as asked: a bet with no position is the same request wherever
        the first position with room put it (a retry may come after the round,
        and the default, moved on)."""
        r = self.rt.live_round()
        insurance = self.rt.game.wager(wager, self.rt.table.layout).insures is not None
        where = self._default_position(r, username, wager, stake) if position is None else position
        asked = (wager, stake, position)  # a table's players ask a few such bets, often
        request_hash = self._hashes.get(asked)
        if request_hash is None:
            if len(self._hashes) >= HASHES_KEPT:
                self._hashes.clear()
            request_hash = self._hashes[asked] = hash_request(
                {"table": self.rt.id, "wager": wager, "stake": money(stake), "position": position}
            )
        return r, insurance, where, request_hash

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
        available = self.rt.journal.available(wallet)
        in_flight = available is not None and available >= amount
        if only_in_flight and not in_flight:
            return None
        bet_id = f"{r.round_id}-{_BET_IDS.draw()}"
        posting = PlaceBet(
            wallet, self.rt.id, bet_id, r.round_id, amount, key=f"bet:{self.rt.id}:{bet_id}"
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
                "table_id": self.rt.id,
                "round_id": r.round_id,
                "bet_id": bet_id,
            }
            if bet is not None:  # the answer is stored with the bet (the journal adds the balance)
                request["answer"] = {"table_id": self.rt.id, "round_id": r.round_id, "bet": bet}
                # and, to a forwarded request, announced by the commit (punto.server.forwarded)
                request["announce"] = ANSWERING.get()
        stored = request is not None and "answer" in request
        # The stake, the reservation and the event: one unit (see the module's docstring).
        self.rt.log.attach([posting], request, wait=not in_flight, notify=notify)
        self.rt.log.submitted = None
        self.rt.journal.reserve(wallet, amount)  # until written: no other bet counts it twice
        try:
            if insurance:
                r.place_insurance(username, wager, stake, role=Role.PLAYER, bet_id=bet_id)
            else:
                r.place_bet(username, position, wager, stake, role=Role.PLAYER, bet_id=bet_id)
        except BaseException:
            if not in_flight or self.rt.log.submitted is None:
                self.rt.journal.release(wallet, amount)
            raise
        finally:
            self.rt.log.detach()
        # In the round now: the player's reads show it, even before it is answered (a
        # forwarded bet's answer goes out with its commit, before _bet_written).
        self.rt.views.owe([username])
        if not in_flight:
            self.rt.journal.release(wallet, amount)
        if (r.round_id, username) not in self._positions:
            if len(self._positions) > 100_000:
                self._positions.clear()
            self._positions[(r.round_id, username)] = position
        if bet is None:
            found = find_bet(r, bet_id)
            assert found is not None
            bet = bet_json(found)
        if not in_flight:
            balance = self.rt.log.posted[0].player_balance if self.rt.log.posted else None
            response = self._bet_json_response(r.round_id, bet, username, balance)
            self._answered(full_key, request_hash, response, [username], stored=stored)
            return 201, response
        future = self.rt.log.submitted
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
            self.rt.generation,
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
            self.rt.journal.release(pending.wallet, pending.amount)
        response = self._bet_json_response(
            pending.round_id, pending.bet, pending.username, posted[0].player_balance
        )
        with self.rt.lock:
            self._bet_written(pending, response)
        return 201, response

    def _bet_failed(self, pending: _PendingBet) -> None:
        """The unit of a bet in flight did not commit: the round must forget it."""
        if pending.claimed and pending.full_key is not None:
            self.rt.journal.unclaim(pending.full_key)
        with self.rt.lock:
            self._in_flight.discard(pending.future)
            if pending.full_key is not None:
                self._pending_keys.pop(pending.full_key, None)
            if self.rt.generation == pending.generation:
                self.rt.resync(f"bet {pending.bet_id} was taken but not written")

    def _bet_written(self, pending: _PendingBet, response: dict[str, Any]) -> None:
        """Lock held: the bet in flight is written; keep its answer, tell the watchers."""
        if pending.claimed and pending.full_key is not None:
            self.rt.journal.unclaim(pending.full_key)  # in the database now: it speaks for it
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
        full_key = account_key(user_id, key) if key is not None else None
        quick: _PendingBet | tuple[int, dict[str, Any]] | None = None
        # A key this process has not answered may still be in the database: a
        # retry of a request made before the table came here.  Those come soon
        # after, and their keys were read when it came: such a retry goes the
        # thread route, answered as stored.  Any other key's bet is taken at
        # once; the journal's own check in the group catches a key taken
        # elsewhere all the same (the bet is then undone and answered as
        # stored), at no cost to every other bet.
        if self._made_before and time.monotonic() >= self._lookups_until:
            self._made_before = frozenset()
        new_key = full_key is None or (
            full_key not in self.rt.answers
            and full_key not in self._pending_keys
            and full_key not in self._made_before
        )
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if new_key and self.rt.lock.acquire(blocking=False):
            try:
                quick = self._quick_bet(
                    user_id,
                    username,
                    wager,
                    stake,
                    position,
                    full_key,
                    waiter,
                    round_id,
                )
            finally:
                self.rt.lock.release()
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
            self.rt.journal.release(pending.wallet, pending.amount)
            await asyncio.to_thread(self._bet_failed, pending)
            if isinstance(error, RequestKeyTakenError):
                return await asyncio.to_thread(again)
            raise
        self.rt.journal.release(pending.wallet, pending.amount)
        response = self._bet_json_response(
            pending.round_id, pending.bet, pending.username, posted[0].player_balance
        )
        if self.rt.lock.acquire(blocking=False):
            try:
                self._bet_written(pending, response)
            finally:
                self.rt.lock.release()
        else:
            await asyncio.to_thread(self._bet_written_locked, pending, response)
        return 201, response

    def _bet_written_locked(self, pending: _PendingBet, response: dict[str, Any]) -> None:
        with self.rt.lock:
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
        r, insurance, where, request_hash = self._asked(username, wager, stake, position)
        if full_key is not None and (full_key in self.rt.answers or full_key in self._pending_keys):
            return None  # it came meanwhile: the thread route answers
        check_named_round(self.rt.game, r, round_id)  # a new request: its round must be in play
        if full_key is not None and not self.rt.journal.claim(full_key):
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
                self.rt.journal.unclaim(full_key)
            raise
        if taken is None and full_key is not None:
            self.rt.journal.unclaim(full_key)
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
            self.rt.answers.remember(full_key, request_hash, response)
            self.rt.answers.store_response(full_key, 201, response, stored)
        self.rt.publisher.changed(users, coalesce=True)

    def quiesce(self) -> None:
        """Lock held, before a table action: let the bets in flight commit (an action
        may name a bet, and the log must never name one that is not in it)."""
        if not self._in_flight:
            return
        self.rt.journal.barrier()
        failed = [f for f in self._in_flight if f.done() and f.exception() is not None]
        self._in_flight = {f for f in self._in_flight if not f.done()}
        if failed:
            self.rt.resync(f"{len(failed)} bet(s) taken but not written")

    def _bet_json_response(
        self, round_id: str, bet: dict[str, Any], username: str, balance: int | None
    ) -> dict[str, Any]:
        return {
            "table_id": self.rt.id,
            "round_id": round_id,
            "bet": bet,
            "balance": money(self.rt.balance(username) if balance is None else balance),
        }

    def _bet_response(self, r: Round, bet_id: str, username: str) -> dict[str, Any]:
        bet = find_bet(r, bet_id)
        assert bet is not None
        return self._bet_json_response(r.round_id, bet_json(bet), username, None)

    def _answer_for(
        self,
        full_key: str,
        request_hash: str,
        stored: tuple[Any, ...] | None,
        username: str,
    ) -> tuple[int, dict[str, Any]] | None:
        """Lock held: the answer already given to this key, or None to go ahead."""
        different = conflict()
        given = self.rt.answers.given(full_key)
        if given is not None:
            if given[0] != request_hash:
                raise different
            answer: dict[str, Any] = loads(given[1])
            return 201, answer
        if stored is None:
            return None
        stored_hash, table_id, round_id, bet_id, status, response = stored
        if stored_hash != request_hash or table_id != self.rt.id:
            raise different
        if response is not None:
            return int(status), loads(response)
        # The answer was lost before it was stored (the process died): rebuild it.
        r = next((x for x in self.rt.table.rounds if x.round_id == round_id), None)
        if r is not None and find_bet(r, bet_id) is not None:
            answer = self._bet_response(r, bet_id, username)
            self.rt.answers.remember(full_key, request_hash, answer)
            self.rt.answers.store_response(full_key, 201, answer)
            return 201, answer
        # A reservation from before bets were written whole, whose bet never got in.
        self.rt.reconcile()  # its stake, if it was taken, goes back
        self.rt.answers.unreserve(full_key)
        return None
