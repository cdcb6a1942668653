"""A tournament's money: entry fees, re-entries, entries taken back, and
the payout of a tournament that is over (:class:`Cashier`).

A player's entry fee moves from their wallet to the tournament's pool
(``tournament:<id>``, :meth:`punto.store.ledger.Ledger.pay_entry_fee`) in
the same database transaction as the ``EntrantRegistered`` (or
``EntrantReentered``) event that records it, and, with an Idempotency-Key,
the answer given, in the server's one store of answers
(:mod:`punto.store.requests`): both or neither.  When the
tournament finishes, each prize of an entrant with a wallet is paid from the
pool (the house pays what the fees do not cover) under the key
``tournament:<id>:prize:<entrant>``, and then what the pool still holds goes
to the house: a payout cut short by a crash is finished at the next start,
paying each prize once.  A cancelled tournament gives every entry fee back
the same way, under ``tournament:<id>:refund:<entrant>``.  Entrants
registered by the staff (automated, or people entered by hand) pay nothing
and have no wallet: their prizes are not paid through the ledger.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from punto.server.tables.journal import Journal
from punto.server.tables.runtime import cents, money
from punto.server.tournaments.entry import Entry
from punto.store import db
from punto.store.accounts import Accounts, User, UserRole
from punto.store.db import wallets
from punto.store.ledger import InsufficientFundsError, Ledger, UnknownWalletError, Wallet
from punto.store.requests import (
    Answer,
    answer_given,
    run_within,
)
from punto.store.sql_log import SQLEventLog
from punto.tournament import RegistrationError, Stage, Tournament
from punto.tournament.events import TournamentEvent, event_to_json

log = logging.getLogger("punto.server.tournaments")


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


@dataclass(frozen=True)
class _Step:
    """What a player's money request writes: its event, the ledger posting
    made with it (None: no money moves), the answer, and the fee it costs."""

    event: TournamentEvent
    post: Callable[[Connection], object] | None
    answer: dict[str, Any]
    fee: int = 0


class Cashier:
    """The money side of the server's tournaments: what each request that
    moves money writes with its event, and what a tournament over pays."""

    def __init__(
        self,
        engine: Engine,
        *,
        log: SQLEventLog[TournamentEvent],
        ledger: Ledger,
        accounts: Accounts,
        journal: Journal,
    ) -> None:
        self.engine = engine
        self.log = log
        self.ledger = ledger
        self.accounts = accounts
        self.journal = journal

    def _money_request(
        self,
        entry: Entry,
        user: User,
        key: str | None,
        request: dict[str, Any],
        step: Callable[[], _Step],
    ) -> Answer:
        """A player's request that moves money with its event (an entry, a
        re-entry, an entry taken back): ``step`` (under the tournament's lock)
        checks it and says what to write, then :meth:`_write_with_money`
        writes it.  With an Idempotency-Key ``key``, the answer given to the
        same ``request`` before, and a conflict for another."""
        content = {**request, "tournament": entry.tournament.id}
        with entry.lock:
            given = answer_given(self.engine, user.id, key, content)
            if given is not None:
                return given
            return self._write_with_money(entry, user, step(), key, content)

    def _write_with_money(
        self, entry: Entry, user: User, step: _Step, key: str | None, request: dict[str, Any]
    ) -> Answer:
        """The ledger posting the step makes (an entry fee, or one given back),
        its event and its answer, in one transaction; then the event applied.
        Nothing is written if anything is refused (a wallet short of the fee: 402)."""
        t = entry.tournament
        ledger = self.ledger
        code = f"player:{user.username}"
        event, post, answer = step.event, step.post, step.answer

        def work(conn: Connection) -> tuple[int | None, Answer]:
            written: list[int] = []

            def act(conn: Connection) -> Answer:
                body = dict(answer)
                if post is not None:
                    post(conn)
                    left = conn.execute(
                        select(wallets.c.balance).where(wallets.c.code == code)
                    ).scalar_one()
                    body["balance"] = money(int(left))
                written.append(self.log.append_within(conn, t.id, event, expected=t.seq + 1))
                return Answer(200, body)

            # answered meanwhile, by another process: its answer, and nothing written
            given, _ = run_within(conn, user.id, key, request, act, where=(t.id, "tournament"))
            return (written[0] if written else None), given

        if post is not None:
            self.journal.forget_balance(code)  # it is about to change
        try:
            seq, given = db.run_transaction(self.engine, work, retry_integrity=True)
        except InsufficientFundsError:
            raise self._short(t, user, step.fee, ledger.balance(code)) from None
        finally:
            if post is not None:
                self.journal.forget_balance(code)
        if seq is not None:
            t.adopt(seq, event)
        return given

    def _fee_post(
        self, t: Tournament, user: User, fee: int, key: str, memo: str
    ) -> Callable[[Connection], object] | None:
        """The posting of an entry fee of ``fee`` from the player's wallet (None: no fee)."""
        if not fee:
            return None
        ledger = self.ledger
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
    ) -> Answer:
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

    def reenter_player(self, entry: Entry, user: User, key: str | None) -> Answer:
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
    ) -> Answer:
        """The staff enter a player account for free: the entrant is the player
        (their user name), no fee is taken, and their prizes are paid to their
        wallet like any other entrant's."""
        t = entry.tournament
        if strategy is not None:
            raise RegistrationError(
                "a player entered by the staff plays for themselves",
                hint="send player or strategy, not both",
            )
        account = self.accounts.find_user(username)
        if account is None or account.role is not UserRole.PLAYER:
            raise RegistrationError(
                f"{username!r} is not a player account",
                clause=t.fmt.rule("registration"),
                hint="enter a player by their user name",
            )
        wallet = self._wallet_of(f"player:{username}")  # opened if it is not yet
        with entry.lock:
            entrant = t.register(name or username, "human", entrant=username, wallet=wallet.code)
            return Answer(
                200,
                {
                    "entrant": entrant,
                    "name": t.entrants[entrant].name,
                    "controller": "human",
                    "entry": 1,
                    "fee": None,
                    "currency": t.fmt.currency,
                    "wallet": wallet.code,
                },
            )

    def withdraw_player(self, entry: Entry, user: User, key: str | None) -> Answer:
        """A player takes their entry back before the first session (T2.4): the
        fee paid comes back from the pool in the same transaction."""
        t = entry.tournament
        ledger = self.ledger

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
    ) -> Answer:
        """A pit procedure on a hand (rules 5.1-5.5): ``check`` (under the
        tournament's lock) says what the engine writes; the event and, with an
        Idempotency-Key, the answer are stored in one transaction, then the
        event applied.  Chips are not money: nothing moves on the ledger."""
        t = entry.tournament

        def step() -> _Step:
            event = check()
            return _Step(event, None, {"tournament": t.id, "event": event_to_json(event)})

        return self._money_request(entry, user, key, request, step)

    def pay_out(self, entry: Entry) -> bool:
        """Pay what a tournament that is over owes: every prize of a finished
        one to the winners' wallets (T8.3), or every entry fee of a cancelled
        one back (T8.4), each once by its key; then close the pool, what is
        left to the house.  Whether all is paid (a failure is logged, to be
        tried again)."""
        t = entry.tournament
        if not t.stage.over or entry.paid:
            return entry.paid
        ledger = self.ledger
        pay, owed = self._owed(t)
        try:
            for entrant, due, key, why in owed:
                wallet, amount = t.entrants[entrant].wallet, cents(Decimal(due))
                if amount and wallet is not None:
                    pay(t.id, self._wallet_of(wallet), amount, key, memo=why)
                    self.journal.forget_balance(wallet)  # it has more now
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
        ledger = self.ledger
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
        account = self.accounts.find_user(username)
        return self.ledger.player_wallet(
            username, account_id=None if account is None else account.id
        )

    def payments(self, t: Tournament) -> dict[str, str]:
        """Each entrant's prize (or, cancelled, refund) as paid on the ledger so
        far (money, by entrant)."""
        paid: dict[str, str] = {}
        for entrant, _due, key, _memo in self._owed(t)[1]:
            posting = self.ledger.posting(key)
            if posting is not None:
                paid[entrant] = money(sum(x.amount for x in posting.entries if x.amount > 0))
        return paid
