"""Telling a table's watchers what happened (:class:`Publisher`).

Watchers are told what happened as it happens (each event); the snapshots
of the table (``state``, ``staff``, each player's ``me``) are sent at most
every :data:`PUBLISH_SECONDS` per table, the latest always, and not built at
all when nobody watches.  Every change also counts in the table's views
(:mod:`punto.server.tables.views`), which the readers are answered from.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Protocol

from punto.rules.coup import Deal
from punto.server.tables.host import TableHost
from punto.server.tables.hub import STAFF
from punto.server.tables.views import TableViews, result_json
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
    WithdrawalClosed,
    WithdrawalOffered,
    event_to_json,
)
from punto.table.round import Round, deal_after

log = logging.getLogger("punto.server")

__all__ = ["PUBLISH_SECONDS", "Publisher"]

#: The shortest time between two snapshots of a table sent to its watchers (seconds).
PUBLISH_SECONDS = 0.25


class PublishingHost(TableHost, Protocol):
    """The host of a :class:`Publisher`."""

    views: TableViews


class Publisher:
    """What a table's watchers have been told, and what they are owed (lock held)."""

    def __init__(self, runtime: PublishingHost) -> None:
        self.rt = runtime
        #: what the watchers have been told of: (round id, its events, the cards then)
        self._published: tuple[str, int, Deal] = ("", 0, Deal())
        #: snapshots owed to the watchers: whether the state is, and whose ``me``
        self._dirty = False
        self._dirty_users: set[str] = set()
        self._totals_dirty = False
        self._next_publish = 0.0
        self._flush_pending = False

    def caught_up(self) -> None:
        """Lock held: the watchers need not be told of the round as it is now
        (at start-up, and once the table is restored from its log)."""
        r = self.rt.round
        self._published = (r.round_id, len(r.events), r.deal) if r is not None else ("", 0, Deal())

    def changed(self, users: Iterable[str] = (), *, coalesce: bool = False) -> None:
        """After an action (lock held): tell the watchers what happened, send
        them fresh snapshots, and wake the automatic dealer.  ``coalesce``
        (a bet, a withdrawn bet: the frequent changes): the snapshots may wait
        until :data:`PUBLISH_SECONDS` after the last ones, but not from ``users``' own
        reads (:meth:`TableViews.owe`)."""
        if coalesce:
            self.rt.views.owe(users)
        else:
            self.rt.views.changed()
        r = self.rt.round
        watched = self.rt.hub.count(self.rt.id) > 0
        if r is not None:
            round_id, start, deal = self._published
            if round_id != r.round_id:
                start, deal = 0, Deal()
            if watched:
                staff = self.rt.hub.count(self.rt.id, STAFF) > 0
                for event in r.events[start:]:
                    self._announce(r, event, deal, staff)
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
                self.rt.hub.later(self._next_publish - now, self._flush)
        else:
            self._dirty, self._totals_dirty = False, False
            self._dirty_users.clear()
            if not coalesce:  # a table action (not a bet): its snapshot at once, for the readers
                self.rt.views.rebuild()
        if self.rt.on_events is not None:
            self.rt.on_events()
        if self.rt.on_change is not None:
            self.rt.on_change(coalesce)

    def _flush(self) -> None:
        """The snapshots owed (a worker thread, a moment after the last sent)."""
        with self.rt.lock:
            self._flush_pending = False
            try:
                if self._dirty and self.rt.hub.count(self.rt.id) > 0:
                    self._publish_snapshots()
            except Exception:  # a page misses one snapshot; the next one comes
                log.exception("table %s: cannot send the snapshots", self.rt.id)

    def _publish_snapshots(self) -> None:
        r = self.rt.round
        self._next_publish = time.monotonic() + PUBLISH_SECONDS
        self._dirty = False
        staff = self.rt.hub.count(self.rt.id, STAFF) > 0
        snapshot = self.rt.views.rebuild(staff=staff)
        if self._totals_dirty and r is not None:
            self._totals_dirty = False
            # the round's totals as the snapshot shows them, not summed again
            totals = snapshot.public["round"]["totals"]
            self.rt.publish({"type": "bet_totals", "round_id": r.round_id, "totals": totals})
        self.rt.publish(snapshot.state(self.rt.clock()))
        if staff:
            self.rt.publish({"type": "staff", "staff": dict(snapshot.staff or {})}, STAFF)
        users = self._dirty_users
        self._dirty_users = set()
        if r is not None and (r.withdrawal_open is not None or r.insurance_offers()):
            users.update(r.players)  # their Insurance caps or their option changed
        for user in users:
            if self.rt.hub.count(self.rt.id, user):
                self.rt.publish(
                    {"type": "me", "me": snapshot.me(user, self.rt.balance(user))}, user
                )

    def _announce(self, r: Round, event: Event, before: Deal, staff: bool) -> None:
        """Tell the watchers of ``event``; ``before``: the round's cards before it;
        ``staff``: whether any staff watch (the event itself is theirs alone)."""
        if staff:
            self.rt.publish(
                {"type": "event", "round_id": r.round_id, "event": event_to_json(event)}, STAFF
            )
        match event:
            case RoundOpened():
                self.rt.publish(
                    {
                        "type": "betting_open",
                        "round_id": r.round_id,
                        "deadline": self.rt.deadline,
                        "seconds": self.rt.config.betting_seconds if self.rt.deadline else None,
                    }
                )
            case BetPlaced() | InsurancePlaced():
                self._totals_dirty = True  # sent with the next snapshot
            case BetsClosed():
                self.rt.publish({"type": "betting_closed", "round_id": r.round_id})
            case CardDealt(card=card, source=source):
                # Several cards may come out in one action (a procedure deals
                # them): each message says where its own card went.
                side = before.next_side
                deal = before.add(card)
                self.rt.publish(
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
                self.rt.publish(
                    {
                        "type": "cards_held",
                        "round_id": r.round_id,
                        "cards": [str(c) for c in cards],
                        "clause": clause,
                    },
                    STAFF,
                )
            case BettingReopened(clause=clause):
                self.rt.publish(
                    {
                        "type": "betting_open",
                        "round_id": r.round_id,
                        "deadline": self.rt.deadline,
                        "seconds": self.rt.config.betting_seconds if self.rt.deadline else None,
                        "clause": clause,
                    }
                )
            case PowerFailed():
                self.rt.publish({"type": "power_failure", "round_id": r.round_id})
            case WithdrawalOffered(clause=clause, reason=reason):
                self.rt.publish(
                    {
                        "type": "withdrawal_offered",
                        "round_id": r.round_id,
                        "clause": clause,
                        "reason": reason,
                    }
                )
            case WithdrawalClosed():
                self.rt.publish({"type": "withdrawal_closed", "round_id": r.round_id})
            case RoundVoided(reason=reason, clause=clause):
                self.rt.publish(
                    {
                        "type": "round_void",
                        "round_id": r.round_id,
                        "reason": reason,
                        "clause": clause,
                    }
                )
            case RoundSettled():
                self.rt.publish(
                    {"type": "results", "round_id": r.round_id, **result_json(self.rt, r)}
                )
                self.rt.publish({"type": "scoreboard", "scoreboard": self.rt.scoreboard.to_dict()})
            case _:
                pass
