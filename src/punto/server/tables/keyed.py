"""Keyed actions at a table other than bets (:class:`KeyedActions`): the
differential's decreases and removals (MBS 5.18; :mod:`punto.server.tables.differential`)
and the card-handling actions (:mod:`punto.server.tables.handling`).  With a key, the
first event and the key's reservation commit together, and a retry gets the
first answer."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any, Protocol

from punto.server.tables import differential
from punto.server.tables.answers import Answers
from punto.server.tables.forms import bet_json, find_bet, money
from punto.server.tables.host import TableHost
from punto.server.tables.intake import BetIntake
from punto.server.tables.publishing import Publisher
from punto.server.tables.refusals import BetNotFoundError, TableStoppedError
from punto.store.requests import full_key as account_key
from punto.store.requests import hash_request
from punto.table.roles import Role
from punto.table.round import Round

__all__ = ["KeyedActions"]


class KeyedHost(TableHost, Protocol):
    """The host of :class:`KeyedActions`."""

    answers: Answers
    publisher: Publisher
    intake: BetIntake


class KeyedActions:
    """The keyed actions of one table (each takes the table's lock)."""

    def __init__(self, runtime: KeyedHost) -> None:
        self.rt = runtime

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
        with self.rt.lock:
            self.rt.intake.quiesce()
            if self.rt.stopped:
                raise TableStoppedError(f"table {self.rt.id} is not running")
            full_key = account_key(user_id, key) if key is not None else None
            request_hash = hash_request({"table": self.rt.id, "kind": kind, **request})
            if full_key is not None:
                given = self.rt.answers.keyed_answer(full_key, request_hash, answer, clause)
                if given is not None:
                    return given
                r = self.rt.round
                self.rt.log.attach(
                    [],
                    {
                        "key": full_key,
                        "account_id": user_id,
                        "request_hash": request_hash,
                        "table_id": self.rt.id,
                        "round_id": r.round_id if r is not None else "",
                        "bet_id": kind,
                    },
                )
            try:
                act()
            finally:
                self.rt.log.detach()
            response = answer()
            if full_key is not None:
                self.rt.answers.remember(full_key, request_hash, response)
                self.rt.answers.store_response(full_key, 200, response)
            self.rt.publisher.changed(users)
            if done is not None:
                done(response)
            return response

    def decrease_bet(
        self, user_id: int, username: str, bet_id: str, stake: Decimal, key: str | None
    ) -> dict[str, Any]:
        """A player decreases their own wager on the heavier hand (MBS 5.18.1)."""
        clause = self.rt.game.clause("differential_decrease")
        return self._differential_change(
            user_id, "decrease", bet_id, stake, Role.PLAYER, key, owner=username, clause=clause
        )

    def remove_bet(self, user_id: int, bet_id: str, role: Role, key: str | None) -> dict[str, Any]:
        """The Pit Manager removes a wager the request did not bring down (MBS 5.18.3)."""
        clause = self.rt.game.clause("differential_remove")
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
        clause (:mod:`punto.server.tables.differential`); the ledger returns the
        difference.  With ``key``, the event and the key's reservation are
        written together and a retry gets the first answer."""
        with self.rt.lock:
            self.rt.intake.quiesce()
            r = self.rt.live_round()
            full_key = account_key(user_id, key) if key is not None else None
            request_hash = hash_request(
                {"table": self.rt.id, "kind": kind, "bet": bet_id, "stake": money(stake)}
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
                differential.check_decrease(self.rt.game, r, bet, stake)
            else:
                differential.check_remove(self.rt.game, r, bet, role)
            request = None
            if full_key is not None:
                request = {
                    "key": full_key,
                    "account_id": user_id,
                    "request_hash": request_hash,
                    "table_id": self.rt.id,
                    "round_id": r.round_id,
                    "bet_id": bet_id,
                }
            self.rt.log.attach([], request)  # the key is reserved with the event, or not at all
            try:
                r.reduce_bet(bet_id, stake, role)
            finally:
                self.rt.log.detach()
            self.rt.reconcile()  # the difference goes back to the player's wallet
            response = self._change_response(r, bet_id, bet.stake)
            if full_key is not None:
                self.rt.answers.remember(full_key, request_hash, response)
                self.rt.answers.store_response(full_key, 200, response)
            self.rt.publisher.changed([bet.player])
            return response

    def _change_response(self, r: Round, bet_id: str, before: Decimal) -> dict[str, Any]:
        bet = find_bet(r, bet_id)
        assert bet is not None
        return {
            "table_id": self.rt.id,
            "round_id": r.round_id,
            "bet": bet_json(bet, player=True),
            "returned": money(before - (bet.stake if bet.status == "active" else 0)),
            "balance": money(self.rt.balance(bet.player)),
            "differential": differential.differential_json(self.rt.game, r),
        }

    def _change_answer(
        self, full_key: str, request_hash: str, bet_id: str, stake: Decimal, clause: str | None
    ) -> dict[str, Any] | None:
        """Lock held: the answer already given to this key (a change request),
        or None to go ahead."""

        def rebuilt() -> dict[str, Any]:
            stored = self.rt.answers.request_row(full_key)
            assert stored is not None  # asked only once the key is found written
            r = next(x for x in self.rt.table.rounds if x.round_id == stored[2])
            return self._change_response(r, bet_id, differential.stake_before(r, bet_id, stake))

        return self.rt.answers.keyed_answer(full_key, request_hash, rebuilt, clause)
