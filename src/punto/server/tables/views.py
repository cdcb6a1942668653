"""What a table shows its readers, as an immutable snapshot.

The runtime builds a :class:`TableSnapshot` under its lock after a change
(when a reader or a watcher wants it: a change nobody looks at costs
nothing) and every read -- the state of the table for a player, the staff
or anyone, the roads, the rounds, a round's events, the pit's view -- is
answered from the latest one, without the table's lock: a read never waits
for a bet or a deal, and a flood of reads costs the table at most one build
per change (docs/security.md, finding 6a).

Only a table's last round ever changes (every action, irregularities
included, acts on the round in play or the last one finished), so the rounds
before it are read as they are, and their summaries, kept once built.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from punto.errors import ActionError
from punto.rules.wagers import pair_rule_warning
from punto.server.tables import differential
from punto.server.tables import handling as card_handling
from punto.server.tables.card_source import shoe_audit_json
from punto.server.tables.forms import bet_json, hands, money, offer_json, settlement_json
from punto.server.tables.host import TableHost
from punto.table import claims
from punto.table.events import BetPlaced, Event, event_to_json
from punto.table.roles import Role
from punto.table.round import BetSettlement, Phase, Round, TableBet
from punto.table.round_state import commission_taken

__all__ = [
    "HISTORY_KEPT",
    "PitRound",
    "PlayerView",
    "RoundNotFoundError",
    "RoundSummary",
    "TableSnapshot",
    "TableViews",
    "result_json",
    "round_json",
    "staff_json",
]

#: How many rounds the snapshot lists (``GET .../rounds`` asks for at most this many).
HISTORY_KEPT = 500
#: How long after the staff last read a table their part of its snapshot is kept
#: fresh at every build (then only when they read it or watch the table).
STAFF_KEPT_SECONDS = 60.0
#: The most players a table remembers a change owed to (see :meth:`TableViews.owe`).
OWED_KEPT = 100_000


class RoundNotFoundError(ActionError):
    """No such round at the table."""


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A player's part of the round in a snapshot (their balance is read when asked)."""

    bets: tuple[dict[str, Any], ...] = ()
    #: None until the round is settled or void
    results: tuple[dict[str, Any], ...] | None = None
    insurance_caps: Mapping[str, str] = field(default_factory=dict)
    may_withdraw: bool = False


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One line of the table's rounds (dealer or higher)."""

    id: str
    phase: str
    cards: tuple[str, ...]
    bets: int
    players: int
    power_failed: bool
    void: str | None

    @classmethod
    def of(cls, r: Round) -> RoundSummary:
        return cls(
            r.round_id,
            r.phase.value,
            tuple(str(c) for c in r.deal.cards),
            len(r.bets),
            len(r.players),
            r.power_failed,
            None if r.void is None else r.void.reason,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "phase": self.phase,
            "cards": list(self.cards),
            "bets": self.bets,
            "players": self.players,
            "power_failed": self.power_failed,
            "void": self.void,
        }


@dataclass(frozen=True, slots=True)
class PitRound:
    """The round in play as the pit sees it."""

    id: str
    phase: str
    bets: int
    totals: Mapping[str, str]
    #: the claim waiting for a second person, if any (:class:`punto.table.claims.ClaimRecord`)
    claim: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "phase": self.phase,
            "bets": self.bets,
            "totals": dict(self.totals),
            "claim": None if self.claim is None else dict(self.claim),
        }


@dataclass(frozen=True, slots=True)
class RoundDetail:
    """What a round's detail is made of: its events and results as they stood."""

    round_id: str
    phase: Phase
    events: tuple[Event, ...]
    #: (player, settlement JSON), once settled or void
    results: tuple[tuple[str, dict[str, Any]], ...] | None
    handling: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.round_id,
            "phase": self.phase.value,
            "events": [event_to_json(e) for e in self.events],
            "results": None
            if self.results is None
            else [{**s, "player": player} for player, s in self.results],
            "handling": self.handling,  # who had which cards (MBS 3.9-3.12)
        }

    @classmethod
    def of(
        cls, r: Round, results: list[BetSettlement], handling: dict[str, Any] | None = None
    ) -> RoundDetail:
        """``handling``: :func:`punto.server.tables.handling.round_json` of ``r``, if known."""
        finished = r.phase in (Phase.SETTLED, Phase.VOID)
        return cls(
            r.round_id,
            r.phase,
            tuple(r.events),
            tuple((s.bet.player, settlement_json(s)) for s in results) if finished else None,
            card_handling.round_json(r) if handling is None else handling,
        )


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """A table as it stood after a change (never changed: read it without the lock).

    The JSON parts are built once and shared by every reader: a reader copies
    before adding to them."""

    #: the runtime's count of changes this snapshot includes
    version: int
    #: the table's log as the snapshot saw it (:meth:`TableViews.fingerprint`)
    fingerprint: tuple[object, int, int]
    #: ``state`` without ``server_time``, ``me`` and ``staff``
    public: Mapping[str, Any]
    players: Mapping[str, PlayerView]
    #: whether the round is settled or void (a player without bets gets ``results: []``)
    finished: bool
    round_id: str | None
    #: the staff's part, and the version it was built at (built when the staff look)
    staff: Mapping[str, Any] | None
    staff_version: int
    scoreboard: Mapping[str, Any]
    #: the latest rounds, latest first
    history: tuple[RoundSummary, ...]
    #: the rounds before the round in play (they no longer change), and the detail of that one
    past: tuple[Round, ...]
    current: RoundDetail | None
    pit_round: PitRound | None
    rounds: int
    alerts: tuple[Mapping[str, Any], ...]
    #: commission taken in the table's settled rounds
    commission: Decimal

    def state(
        self, now: float, username: str | None = None, balance: int = 0, *, staff: bool = False
    ) -> dict[str, Any]:
        """The state message: public, plus ``me`` for ``username`` (whose
        ``balance`` the caller read), plus ``staff``."""
        data: dict[str, Any] = {"type": "state", "server_time": now, **self.public}
        if username is not None:
            data["me"] = self.me(username, balance)
        if staff:
            data["staff"] = dict(self.staff or {})
        return data

    def me(self, username: str, balance: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "username": username,
            "balance": money(balance),
            "bets": [],
            "results": None,
            "insurance_caps": {},
            "may_withdraw": False,
            "round_id": self.round_id,
        }
        if self.round_id is None:
            return data
        view = self.players.get(username)
        if view is None:
            data["results"] = [] if self.finished else None
            return data
        data["bets"] = list(view.bets)
        data["results"] = None if view.results is None else list(view.results)
        data["insurance_caps"] = dict(view.insurance_caps)
        data["may_withdraw"] = view.may_withdraw
        return data

    def round_detail(self, table_id: str, round_id: str) -> dict[str, Any]:
        if self.current is not None and self.current.round_id == round_id:
            return self.current.to_json()
        r = next((x for x in self.past if x.round_id == round_id), None)
        if r is None:
            raise RoundNotFoundError(
                f"table {table_id} has no round {round_id!r}",
                hint=f"GET /api/tables/{table_id}/rounds lists them",
            )
        finished = r.phase in (Phase.SETTLED, Phase.VOID)
        return RoundDetail.of(r, r.results() if finished else []).to_json()


def round_json(rt: TableHost, r: Round | None) -> dict[str, Any] | None:
    """The round in play, as every page shows it."""
    if r is None:
        return None
    deal = r.deal
    offers = r.insurance_offers()
    data: dict[str, Any] = {
        "id": r.round_id,
        "phase": r.phase.value,
        "deadline": rt.deadline if r.phase is Phase.BETTING else None,
        "cards": hands(deal),
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
        "insurance": None
        if not offers
        else {"offers": [offer_json(o) for o in offers], "ends": window_end(rt, r)},
        "differential": differential.differential_json(rt.game, r),
        "handling": card_handling.round_json(r),
        "withdrawal": None,
        "power_failed": r.power_failed,
        # a ruling waits for a second person: every page says so (who filed
        # it is on the staff's part)
        "ruling_pending": None
        if r.pending_claim is None
        else {
            "procedure": r.pending_claim.procedure,
            "clause": r.pending_claim.clause,
            "confirming": r.pending_claim.confirming.value,
        },
        "void": None,
        "result": None,
    }
    if r.withdrawal_open is not None:
        data["withdrawal"] = {
            "clause": r.withdrawal_open.clause,
            "reason": r.withdrawal_open.reason,
            "ends": window_end(rt, r),
        }
    if r.void is not None:
        data["void"] = {"reason": r.void.reason, "clause": r.void.clause}
    if r.phase in (Phase.RESULT, Phase.SETTLED) and deal.is_complete:
        data["result"] = result_json(rt, r)
    return data


def window_end(rt: TableHost, r: Round) -> float | None:
    """When the insurance or withdrawal window open on ``r`` now ends (auto mode)."""
    if rt.window is not None and rt.window[:2] == (r.round_id, len(r.deal.cards)):
        return rt.window[2]
    return None


def result_json(rt: TableHost, r: Round) -> dict[str, Any]:
    coup = r.deal.to_coup()
    areas: dict[str, str | None] = {}
    for w in rt.game.offered(rt.table.layout).values():
        if w.kind is not None:
            areas[w.id] = w.kind(coup, rt.table.pair_rule)
    return {
        "winner": coup.winner.value,
        "player_total": coup.player.total,
        "banker_total": coup.banker.total,
        "natural": coup.natural,
        "areas": areas,
        "settled": r.phase is Phase.SETTLED,
    }


def staff_json(rt: TableHost, decided: dict[str, Any]) -> dict[str, Any]:
    """The staff's part of the state: every bet, what the dealer may do now."""
    r = rt.round
    pending = r.pending_claim if r is not None else None
    return {
        "bets": [bet_json(b, player=True) for b in r.bets] if r else [],
        "claim": None if pending is None else claims.ClaimRecord(pending).to_json(),
        "can": {
            "open": r is None or r.phase in (Phase.SETTLED, Phase.VOID),
            # An exceeded differential does not disable 'No more bets': at MBS
            # pressing it is how the Dealer asks (5.18.1) and says why it waits;
            # at RWS it rejects the excess first (5.1), as close_betting does.
            "close": r is not None and r.can_close_betting(differential_noticed=False),
            "deal": r is not None and r.can_deal_card(),
            "settle": r is not None and r.can_settle(),
            "close_withdrawal": r is not None and r.can_close_withdrawal(),
            "power_failure": r is not None and r.can_power_failure(),
            # some clause of the game's [grants.void] applies now
            "void": r is not None and bool(r.granted("void", Role.SHIFT_MANAGER)),
            "replace_shoe": rt.table.replacement_due is not None,
            "confirm": pending is not None,
        },
        "differential": money(r.differential()) if r else None,
        "decided": decided,
        "handling": card_handling.staff_json(rt.table),
    }


def alerts(rt: TableHost, r: Round | None) -> tuple[Mapping[str, Any], ...]:
    """What the pit must see at the table now: betting held open by an
    exceeded differential (the Pit Manager removes wagers, 5.18.3)."""
    if r is None or not differential.asked(rt.game, r):
        return ()
    if r.phase is not Phase.BETTING or not r.differential_exceeded():
        return ()
    return (
        {
            "round_id": r.round_id,
            "clause": rt.game.clause("differential_remove"),
            "text": "betting held open: " + differential.request_text(rt.game, r),
        },
    )


class TableViews:
    """The snapshots of one table (built with the table's lock held; read without it)."""

    def __init__(self, runtime: TableHost) -> None:
        self._rt = runtime
        #: changes made to the table (counted under its lock)
        self.version = 0
        self._decided: tuple[tuple[str, int], dict[str, Any]] | None = None
        #: the rounds before the last, with their summaries and commission: (table, count) key
        self._past_key: tuple[object, int] = (None, -1)
        self._past: tuple[Round, ...] = ()
        self._past_summaries: tuple[RoundSummary, ...] = ()
        self._past_commission = Decimal(0)
        self._staff_until = 0.0
        self._board: tuple[object, object, Mapping[str, Any]] | None = None
        #: the table's own part (its settings and wagers), by what it is made of
        self._table: tuple[tuple[object, ...], dict[str, Any]] | None = None
        #: the JSON of each bet of the last round, by what it shows
        self._bets_round = ""
        self._bets: dict[tuple[object, ...], dict[str, Any]] = {}
        #: the players' parts last built: of which round, after how many of its events
        self._players_at: tuple[Round | None, int] = (None, 0)
        self._players_built: dict[str, PlayerView] = {}
        #: each player's own change the snapshots must show them: the version after it
        self._owed: dict[str, int] = {}
        self._latest = self._build(None, staff=True)

    @property
    def latest(self) -> TableSnapshot:
        """The last snapshot built (no lock: one reference read)."""
        return self._latest

    def changed(self) -> None:
        """Lock held: the table changed."""
        self.version += 1

    def owe(self, users: Iterable[str]) -> None:
        """Lock held: ``users`` made a change of their own (a bet, a bet withdrawn):
        a read of theirs must show it, though reads by anyone else need not wait
        for it (:meth:`owed`)."""
        self.changed()
        if len(self._owed) >= OWED_KEPT:
            self._owed.clear()
        for user in users:
            self._owed[user] = self.version

    def owed(self, user: str, snapshot: TableSnapshot) -> bool:
        """No lock: whether ``snapshot`` misses a change of ``user``'s own."""
        # Read only: a reader removing a mark could race the next one set.
        return snapshot.version < self._owed.get(user, 0)

    def reset(self) -> None:
        """Lock held: the table was restored from its log (everything is rebuilt)."""
        self._decided = None
        self._bets_round = ""
        self._past_key = (None, -1)
        self.changed()

    def fingerprint(self) -> tuple[object, int, int]:
        """The table, its rounds and the events of its last round, counted
        (no lock: each is one read): every change to a round is an event, so
        a change the runtime did not count (an action that failed after its
        event) still shows here."""
        table = self._rt.table
        rounds = table.rounds
        last = rounds[-1] if rounds else None
        return (table, len(rounds), len(last.events) if last is not None else 0)

    def stale(self, snapshot: TableSnapshot, *, staff: bool) -> bool:
        """Whether ``snapshot`` misses a change (its staff's part, for ``staff``)."""
        if snapshot.version != self.version or snapshot.fingerprint != self.fingerprint():
            return True
        return staff and snapshot.staff_version != snapshot.version

    def want_staff(self) -> None:
        """The staff read the table: their part is kept fresh for a while."""
        self._staff_until = time.monotonic() + STAFF_KEPT_SECONDS

    def rebuild(self, *, staff: bool = False) -> TableSnapshot:
        """Lock held: a snapshot of the table now (the staff's part too, if
        asked or read lately)."""
        staff = staff or time.monotonic() < self._staff_until
        latest = self._latest
        if not self.stale(latest, staff=staff):
            return latest
        if latest.version == self.version:  # a change it did not count: count it
            self.changed()
        self._latest = self._build(latest, staff=staff)
        return self._latest

    def decided_now(self, r: Round | None) -> dict[str, Any]:
        """What the cards out have decided (computed once per card, not per look)."""
        if r is None or r.phase is not Phase.DEALING:
            return {}
        here = (r.round_id, len(r.deal.cards))
        if self._decided is None or self._decided[0] != here:
            self._decided = (here, r.decided())
        return self._decided[1]

    def _build(self, previous: TableSnapshot | None, *, staff: bool) -> TableSnapshot:
        rt = self._rt
        table = rt.table
        r = table.round
        self._past_rounds(rt)
        public: dict[str, Any] = {
            "table": self._table_json(),
            "round": round_json(rt, r),
            "shoe": shoe_audit_json(table, rt.config.card_source),
            "rounds": len(table.rounds),
            "recovered": rt.recovered,
        }
        finished = r is not None and r.phase in (Phase.SETTLED, Phase.VOID)
        results = rt.results(r) if r is not None and finished else []
        if staff:
            staff_part: Mapping[str, Any] | None = staff_json(rt, self.decided_now(r))
            staff_version = self.version
        else:
            staff_part = previous.staff if previous is not None else None
            staff_version = previous.staff_version if previous is not None else -1
        commission = self._past_commission
        if r is not None and r.phase is Phase.SETTLED:
            commission += _commission(rt, results)
        history = self._past_summaries
        if r is not None:
            history = (RoundSummary.of(r), *history[: HISTORY_KEPT - 1])
        return TableSnapshot(
            version=self.version,
            fingerprint=self.fingerprint(),
            public=public,
            players=self._players(r, results) if r is not None else {},
            finished=finished,
            round_id=r.round_id if r is not None else None,
            staff=staff_part,
            staff_version=staff_version,
            scoreboard=self._scoreboard(),
            history=history,
            past=self._past,
            current=None if r is None else RoundDetail.of(r, results, public["round"]["handling"]),
            pit_round=None
            if r is None
            else PitRound(
                r.round_id,
                r.phase.value,
                len(r.active_bets),
                public["round"]["totals"],
                None if r.pending_claim is None else claims.ClaimRecord(r.pending_claim).to_json(),
            ),
            rounds=len(table.rounds),
            alerts=alerts(rt, r),
            commission=commission,
        )

    def _table_json(self) -> dict[str, Any]:
        """The table's settings and wagers, made again only when one of what they
        are made of is another (each is replaced, never changed in place)."""
        rt = self._rt
        made_of = (
            rt.config,
            rt.table.limits,
            rt.table.layout,
            card_handling.table_method(rt.table),
        )
        kept = self._table
        if kept is None or any(a is not b for a, b in zip(kept[0], made_of, strict=True)):
            table = {
                **rt.config.to_json(),
                "method": made_of[3],
                "positions": list(rt.positions()),
                "wagers": rt.wagers_json(),
                # the reading of Pair at this table; the literal one is flagged
                "pair_rule": rt.table.pair_rule.value,
            }
            warning = pair_rule_warning(rt.table.pair_rule)
            if warning is not None:
                table["pair_rule_warning"] = warning
            self._table = kept = (made_of, table)
        return kept[1]

    def _scoreboard(self) -> Mapping[str, Any]:
        """The roads as JSON, made again only when a coup is added or a new shoe starts."""
        board = self._rt.scoreboard
        key = (board, board.stats)  # each coup makes new stats
        if self._board is None or self._board[0] is not key[0] or self._board[1] is not key[1]:
            self._board = (board, board.stats, board.to_dict())
        return self._board[2]

    def _players(self, r: Round, results: list[BetSettlement]) -> dict[str, PlayerView]:
        at_round, at = self._players_at
        self._players_at = (r, len(r.events))
        if at_round is r and r.phase is Phase.BETTING and r.withdrawal_open is None:
            placed = [e.bet_id for e in r.events[at:] if isinstance(e, BetPlaced)]
            if len(placed) == len(r.events) - at:
                # Only bets placed since the last build (betting's every change):
                # the other players' parts stand as they were.
                self._players_built = self._with_bets(r, placed)
                return self._players_built
        self._players_built = self._all_players(r, results)
        return self._players_built

    def _with_bets(self, r: Round, bet_ids: list[str]) -> dict[str, PlayerView]:
        """The last players' parts with ``bet_ids`` added (betting, no option open:
        no results, no Insurance caps, nobody may withdraw as a player)."""
        out = dict(self._players_built)
        for bet_id in bet_ids:
            b = r.bet(bet_id)
            shown = self._bet_shown(b)
            before = out.get(b.player)
            out[b.player] = PlayerView((*(before.bets if before else ()), shown))
        return out

    def _bet_shown(self, b: TableBet) -> dict[str, Any]:
        """A bet's JSON, made once for each status and stake it has (all it shows)."""
        key = (b.bet_id, b.status, b.stake, b.clause, b.moment)
        shown = self._bets.get(key)
        if shown is None:
            shown = self._bets[key] = bet_json(b)
        return shown

    def _all_players(self, r: Round, results: list[BetSettlement]) -> dict[str, PlayerView]:
        bets: dict[str, list[dict[str, Any]]] = defaultdict(list)
        if self._bets_round != r.round_id:
            self._bets_round, self._bets = r.round_id, {}
        for b in r.bets:
            bets[b.player].append(self._bet_shown(b))
        settled: dict[str, list[dict[str, Any]]] | None = None
        if r.phase in (Phase.SETTLED, Phase.VOID):
            settled = defaultdict(list)
            for s in results:
                settled[s.bet.player].append(settlement_json(s))
        offers = r.insurance_offers()
        out = {}
        for player in bets:
            caps = {}
            for offer in offers:
                cap = r.insurance_cap(player, offer)
                if cap > 0:
                    caps[f"{offer.insures.value}_insurance"] = money(cap)
            out[player] = PlayerView(
                tuple(bets[player]),
                None if settled is None else tuple(settled.get(player, ())),
                caps,
                r.withdrawal_open is not None and r.can_withdraw_player(player),
            )
        return out

    def _past_rounds(self, rt: TableHost) -> None:
        """The rounds before the last, kept while the table and their count stay."""
        table = rt.table
        key: tuple[object, int] = (table, len(table.rounds))
        if key[0] is self._past_key[0] and key[1] == self._past_key[1]:
            return
        past = tuple(table.rounds[:-1])
        if key[0] is self._past_key[0] and len(past) >= len(self._past):
            added = past[len(self._past) :]
        else:  # restored from the log: all again
            added, self._past, self._past_summaries = past, (), ()
            self._past_commission = Decimal(0)
        for r in added:
            if r.phase is Phase.SETTLED:
                self._past_commission += _commission(rt, rt.results(r))
        newest = tuple(RoundSummary.of(r) for r in added[-HISTORY_KEPT:][::-1])
        self._past_summaries = (newest + self._past_summaries)[:HISTORY_KEPT]
        self._past = past
        self._past_key = key


def _commission(rt: TableHost, results: list[BetSettlement]) -> Decimal:
    """The commission taken from the wins of a settled round's results."""
    return commission_taken(rt.game, results)
