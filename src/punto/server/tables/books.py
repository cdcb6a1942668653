"""A table's ledger kept in step with its rounds (:class:`Books`).

Money leaves the holding account only by the round's own results, with keys
derived from the table and bet ids, so posting them again changes nothing:
``settle:TABLE:BET`` pays ``held + net`` (the stake back with the winnings
less commission for a win, the stake for a push, the stake less the settled
stake for a loss -- 0 for a full loss, the unsettled part for a pro-rata or
over-maximum bet); ``return:TABLE:BET`` returns a withdrawn, returned or void
bet; ``reduce:TABLE:BET:STAKE`` returns what a reduction took off.  The
postings of a round go to the journal together.  A round settled before a
crash whose postings were not all made is posted at the next start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlalchemy import select

from punto.errors import PhaseError
from punto.server.tables.forms import SETTLED_OUTCOMES, cents, money
from punto.server.tables.host import TableHost
from punto.server.tables.journal import PlaceBet, ReturnBet, SettleBet
from punto.store.db import ledger_bets
from punto.store.ledger import BetStateError, InsufficientFundsError, LedgerError
from punto.table.irregularities import Ruling
from punto.table.roles import Role
from punto.table.round import BetSettlement, Phase, Round, TableBet

__all__ = ["POSTINGS_AT_ONCE", "Books"]

#: The most postings reconciling a table sends the journal at once.
POSTINGS_AT_ONCE = 100


class Books:
    """The ledger of one table against its rounds (lock held)."""

    def __init__(self, runtime: TableHost) -> None:
        self.rt = runtime
        self._settlements: dict[str, dict[str, BetSettlement]] = {}

    def forget(self, round_id: str | None = None) -> None:
        """Lock held: the settlements of a round (or all) are to be looked up again."""
        if round_id is None:
            self._settlements.clear()
        else:
            self._settlements.pop(round_id, None)

    def reconcile(self) -> list[str]:
        """Bring the ledger in step with the rounds; returns what it did.

        Called with the lock held (every action that ends bets calls it, and
        so does start-up): every open ledger bet of this table is compared
        with its round.  A bet the round does not hold was never acknowledged
        and is returned; a bet withdrawn, returned or void is returned; a bet
        of a settled round is settled; a reduced bet gets the difference back.
        The postings go to the journal together.
        """
        with self.rt.engine.connect() as conn:
            rows = conn.execute(
                select(ledger_bets.c.bet_id, ledger_bets.c.round_id, ledger_bets.c.held).where(
                    ledger_bets.c.table_id == self.rt.id, ledger_bets.c.status == "open"
                )
            ).all()
        if not rows:
            return []
        rounds = {r.round_id: r for r in self.rt.table.rounds}
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
                        SettleBet(self.rt.id, bet_id, payout, key=f"settle:{self.rt.id}:{bet_id}")
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
                        self.rt.id,
                        bet_id,
                        key=f"reduce:{self.rt.id}:{bet_id}:{stake}",
                        amount=int(held) - stake,
                    )
                )
                done.append(f"reduced {bet_id}")
        # In parts, so that the bets and events of the other tables get in between.
        for start in range(0, len(postings), POSTINGS_AT_ONCE):
            for posted in self.rt.journal.post(postings[start : start + POSTINGS_AT_ONCE]):
                # A bet settled or returned meanwhile is left alone; anything else is wrong.
                if isinstance(posted, LedgerError) and not isinstance(posted, BetStateError):
                    raise posted
        return done

    def _settlement(self, r: Round, bet_id: str) -> BetSettlement:
        key = r.round_id
        by_bet = self._settlements.get(key)
        if by_bet is None:
            by_bet = {s.bet.bet_id: s for s in self.rt.results(r)}
            self._settlements = {key: by_bet}
        return by_bet[bet_id]

    def _return(self, bet_id: str, why: str) -> ReturnBet:
        """Return the whole of what the bet still holds (once: a settled or
        returned bet is left alone)."""
        return ReturnBet(self.rt.id, bet_id, key=f"{why}:{self.rt.id}:{bet_id}")

    def resettle_first(
        self, name: str, r: Round, ruling_of: Callable[[Round], Ruling], role: Role
    ) -> None:
        """A ruling that changes the results of a settled round (a void
        after settlement, MBS 5.2; RWS 5.5.3): tried on a copy; it takes a Pit
        Manager (``role``: the position it is made in); and what it changes on
        the ledger is posted *before* the round changes, all or nothing, so that
        a player who no longer has the winnings to give back stops it with
        nothing changed.  Should the server stop in between, the start-up's
        :meth:`reconcile_finished` puts the ledger back in step with the round."""
        copy = r.fork()
        ruling = ruling_of(copy)
        if copy.phase not in (Phase.SETTLED, Phase.VOID):
            raise PhaseError(
                f"round {r.round_id} is settled and paid: {name} would make it "
                f"{copy.phase.value} again ({ruling.consequence})",
                clause=ruling.clause,
                hint="a settled round can only stand or be voided",
            )
        before, after = self.finished_nets(r), self.finished_nets(copy)
        if before == after:
            return
        clause = copy.void.clause if copy.void is not None else None
        # Taking back what was paid is the pit manager's, as a void is.
        role.check_acts_as(Role.PIT_MANAGER, "take back the payments of a settled round", clause)
        why = f"{name} after settlement: round {copy.phase.value}"
        if copy.void is not None:
            why += f", {copy.void.reason} ({copy.void.clause})"
        try:
            self.resettle(r, after, why)
        except InsufficientFundsError as error:
            raise InsufficientFundsError(
                f"round {r.round_id} cannot be resettled: {error.message}",
                clause=clause,
                hint="the player no longer holds the winnings the void takes back (staked "
                "at another table, or cashed): once the wallet holds them, apply the "
                "procedure again",
            ) from error

    def finished_nets(self, r: Round) -> dict[str, int]:
        """What each bet of the finished round ``r`` comes to for its player
        (:meth:`Ledger.bet_net`): nothing for a void round, the net of its
        settlement for a settled one (a push or a returned bet: nothing)."""
        if r.phase is Phase.VOID:
            return {b.bet_id: 0 for b in r.bets}
        results = self.rt.results(r) if r is self.rt.round else r.results()
        return {s.bet.bet_id: cents(s.net) if s.outcome in SETTLED_OUTCOMES else 0 for s in results}

    def resettle(self, r: Round, nets: Mapping[str, int], why: str) -> list[str]:
        """Post the differences between the ledger's nets of the round's
        closed bets and ``nets`` (with ``why`` as the postings' memo); returns
        the bets resettled."""
        known = self.rt.ledger.closed_nets(self.rt.id, r.round_id)
        changed = {b: nets[b] for b, (_, net) in known.items() if b in nets and nets[b] != net}
        if not changed:  # the usual case, at every start: no lock taken
            return []
        codes = {known[b][0] for b in changed}
        for code in codes:  # it may have less (or more) now
            self.rt.journal.forget_balance(code)
        try:
            postings = self.rt.ledger.resettle(
                self.rt.id, changed, memo=f"round {r.round_id}: {why}"
            )
        finally:
            for code in codes:
                self.rt.journal.forget_balance(code)
        moved = {str(p.bet_id): p.amount_for(known[str(p.bet_id)][0]) for p in postings}
        if moved:
            self.rt.audit_event(
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
        return self.resettle(
            r, self.finished_nets(r), f"the ledger put back in step: round {r.phase.value}"
        )
