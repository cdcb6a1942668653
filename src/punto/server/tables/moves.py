"""The automatic dealer's moves at a table (:class:`DealerMoves`): open a
round, close betting at the deadline, deal, wait out the Insurance and
withdrawal windows, settle."""

from __future__ import annotations

from typing import Protocol

from punto.server.tables.host import TableHost
from punto.server.tables.publishing import Publisher
from punto.table.roles import Role
from punto.table.round import Phase, Round

__all__ = ["DealerMoves"]


class MovesHost(TableHost, Protocol):
    """The host of :class:`DealerMoves`."""

    publisher: Publisher


class DealerMoves:
    """The automatic dealer of one table (:meth:`step` is called by
    :class:`punto.server.tables.dealer.AutoDealer`)."""

    def __init__(self, runtime: MovesHost) -> None:
        self.rt = runtime

    def insurance_wanted(self, r: Round) -> bool:
        """Whether anyone at the table could take an open Insurance offer."""
        offers = r.insurance_offers()
        return any(r.insurance_cap(p, o) > 0 for o in offers for p in r.players)

    def step(self) -> float | None:
        """The automatic dealer's next move, if it is due; returns how long
        until the next one (None: wait for something to happen)."""
        with self.rt.lock:
            if self.rt.stopped or not self.rt.config.active:
                return None
            now = self.rt.clock()
            r = self.rt.round
            if r is not None and r.pending_claim is not None:
                return None  # the round waits for a second person (punto.table.claims)
            if r is None or r.phase in (Phase.SETTLED, Phase.VOID):
                if self.rt.next_round_at is None:
                    self.rt.next_round_at = now + self.rt.config.result_seconds
                if now < self.rt.next_round_at:
                    return self.rt.next_round_at - now
                due = self.rt.table.replacement_due
                if due is not None:  # "the cards shall be replaced" first (MBS 5.11.5, 5.12.2)
                    self.rt.replace_shoe(due, Role.DEALER)
                self.rt.open_round(Role.DEALER)
                return self.rt.config.betting_seconds
            if r.phase is Phase.BETTING:
                if self.rt.deadline is None:
                    self.rt.deadline = now + self.rt.config.betting_seconds
                    self.rt.publisher.changed()
                if now < self.rt.deadline:
                    return self.rt.deadline - now
                if self.rt.ask_differential(r):
                    # Betting stays open until the players (5.18.1, 5.18.2) or the
                    # pit (5.18.3) meet the differential: wait for their next move.
                    return None
                self.rt.close_betting(Role.DEALER)
                self.rt.next_card_at = now + self.rt.config.card_delay
                return self.rt.config.card_delay
            if r.phase is Phase.DEALING:
                windowed = r.withdrawal_open is not None or self.insurance_wanted(r)
                if windowed:
                    here = (r.round_id, len(r.deal.cards))
                    if self.rt.window is None or self.rt.window[:2] != here:
                        self.rt.window = (*here, now + self.rt.config.insurance_seconds)
                        self.rt.publisher.changed()
                    if now < self.rt.window[2]:
                        return self.rt.window[2] - now
                    if r.withdrawal_open is not None:
                        self.rt.close_withdrawal(Role.DEALER)
                        return 0.0
                if self.rt.config.card_source == "device":
                    return None
                if now < self.rt.next_card_at:
                    return self.rt.next_card_at - now
                self.rt.deal()
                self.rt.next_card_at = now + self.rt.config.card_delay
                return self.rt.config.card_delay
            if r.phase is Phase.RESULT:
                if r.withdrawal_open is not None:
                    self.rt.close_withdrawal(Role.DEALER)
                self.rt.settle(Role.DEALER)
                return self.rt.config.result_seconds
            return None
