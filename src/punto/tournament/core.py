"""The fold of a tournament: its log, the state built from its events, and what
is where (:class:`punto.tournament.tournament.Tournament` is built on it).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Self

from punto.errors import PuntoError
from punto.eventlog import EventLog
from punto.rules.coup import Coup, deal
from punto.rules.settlement import Bet, settle
from punto.rules.shoe import Shoe
from punto.tournament.errors import (
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
)
from punto.tournament.events import (
    BetLine,
    BetsPlaced,
    BetsWithdrawn,
    BettingClosed,
    EntrantReentered,
    EntrantRegistered,
    EntrantWithdrawn,
    HandIrregularityNoted,
    HandOpened,
    HandPassed,
    HandSettled,
    HandVoided,
    Placing,
    Refund,
    SessionEnded,
    SessionStarted,
    ShoeStarted,
    TiebreakChosen,
    TiebreakDealt,
    TiebreakLots,
    TiebreakOpened,
    TiebreakVoided,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
)
from punto.tournament.format import Format, Session, load_format
from punto.tournament.irregularities import HandIrregularities
from punto.tournament.standings import (
    Entry,
)
from punto.tournament.state import (
    EntrantState,
    Phase,
    Stage,
    TableState,
    TiebreakState,
)

_log = logging.getLogger(__name__)

#: Called with (sequence number, event) after each event is stored and applied.
Listener = Callable[[int, TournamentEvent], None]


class TournamentCore(HandIrregularities):
    """A tournament's log, the state folded from its events, and what is
    where; :class:`punto.tournament.tournament.Tournament` adds the actions."""

    def __init__(self, log: EventLog[TournamentEvent], tournament_id: str) -> None:
        self.log = log
        self.id = tournament_id
        self.format: Format | None = None
        self.seed = ""
        self.seeded = False
        self.first_tables = 0
        #: a live tournament's betting window and pause between hands (ms); 0: not live
        self.betting_ms = 0
        self.pause_ms = 0
        self.stage = Stage.REGISTRATION
        self.session_number = 0
        self.entrants: dict[str, EntrantState] = {}
        self.tables: dict[int, TableState] = {}
        self.tiebreak: TiebreakState | None = None
        #: tie-break keys of the session being played, by scope
        self.keys: dict[str, dict[str, tuple[int, ...]]] = {}
        self.advanced: tuple[str, ...] = ()
        self.results: tuple[Placing, ...] = ()
        #: how many times each entrant id has been registered (a withdrawn
        #: entrant may register again: each registration pays its own fee)
        self.registrations: dict[str, int] = {}
        #: why the tournament was cancelled, and the fees it gives back
        self.cancelled: str | None = None
        self.refunds: tuple[Refund, ...] = ()
        self.seq = 0
        self._listeners: list[Listener] = []
        self._lock = threading.RLock()

    # -- building ----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        log: EventLog[TournamentEvent],
        tournament_id: str,
        fmt: Format,
        *,
        seed: int | str | None = None,
        tables: int | None = None,
        betting_ms: int = 0,
        pause_ms: int = 0,
    ) -> Self:
        """A new tournament in ``log``.  With a seed the seats, shoes and lots
        are reproducible; without one the shoes are shuffled from the OS's
        secure source.  ``tables``: tables of the first session (default:
        as few as the entrants need).  ``betting_ms`` > 0 makes it *live*:
        a clock (:class:`punto.tournament.clock.Clock`) gives every hand a
        betting window of that long and pauses ``pause_ms`` between hands."""
        if not tournament_id or any(c.isspace() for c in tournament_id):
            raise TournamentError(
                f"tournament id {tournament_id!r} must be non-empty with no spaces"
            )
        if log.read(tournament_id):
            raise TournamentError(
                f"tournament {tournament_id!r} already exists in this log",
                hint="open it to resume, or choose another id",
            )
        if tables is not None and tables < 1:
            raise TournamentError("a tournament needs at least one table")
        if betting_ms < 0 or pause_ms < 0 or (pause_ms and not betting_ms):
            raise TournamentError(
                f"a betting window of {betting_ms} ms and a pause of {pause_ms} ms",
                hint="give a positive betting window for a live tournament, and no negative times",
            )
        t = cls(log, tournament_id)
        t._emit(
            TournamentCreated(
                tournament_id=tournament_id,
                format_id=fmt.id,
                format_data=json.dumps(dict(fmt.data), sort_keys=True),
                seed=str(seed) if seed is not None else secrets.token_hex(16),
                seeded=seed is not None,
                tables=tables or 0,
                betting_ms=betting_ms,
                pause_ms=pause_ms,
            )
        )
        return t

    @classmethod
    def open(cls, log: EventLog[TournamentEvent], tournament_id: str) -> Self:
        """The tournament as its log left it (after a crash: exactly where it stood)."""
        stored = log.read(tournament_id)
        if not stored:
            raise TournamentLogError(f"no tournament {tournament_id!r} in this log")
        t = cls(log, tournament_id)
        for item in stored:
            if item.seq != t.seq + 1:
                raise TournamentLogError(
                    f"tournament {tournament_id!r}: event {item.seq} follows event {t.seq}"
                )
            try:
                t._apply(item.event)
            except (PuntoError, KeyError, ValueError, AssertionError) as error:
                raise TournamentLogError(
                    f"tournament {tournament_id!r}: event {item.seq} ({item.event.type}) "
                    f"cannot be replayed: {error}"
                ) from None
            t.seq = item.seq
        return t

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(seq, event)`` after every new event (stored and
        applied, in order, under the tournament's lock); returns an
        unsubscribe.  A listener that raises is logged and skipped."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, event: TournamentEvent) -> None:
        with self._lock:
            seq = self.log.append(self.id, event, expected=self.seq + 1)
            self._applied(seq, event)

    def adopt(self, seq: int, event: TournamentEvent) -> None:
        """Apply ``event``, which the caller has stored itself as number ``seq``
        of this tournament's log -- in a transaction of its own, with money
        on the ledger, say (see :meth:`registration`) -- and tell the listeners.
        The event must have been built against the state as it is now."""
        with self._lock:
            if seq != self.seq + 1:
                raise TournamentLogError(
                    f"event {seq} of tournament {self.id!r} does not follow event {self.seq}",
                    hint="reload the tournament from its log",
                )
            self._applied(seq, event)

    def _applied(self, seq: int, event: TournamentEvent) -> None:
        with self._lock:
            self._apply(event)
            self.seq = seq
            for listener in list(self._listeners):
                try:
                    listener(seq, event)
                except Exception:  # a listener's failure must not undo a stored action
                    _log.exception("tournament %s: listener failed on event %d", self.id, seq)

    # -- what is where -------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether a clock runs the tournament (betting windows, no one played for)."""
        return self.betting_ms > 0

    @property
    def fmt(self) -> Format:
        if self.format is None:  # pragma: no cover - every log starts with its format
            raise TournamentLogError(f"tournament {self.id!r} has no format")
        return self.format

    @property
    def session(self) -> Session | None:
        """The session being played (or just ended), if any."""
        return self.fmt.session(self.session_number) if self.session_number else None

    def _current(self) -> Session:
        s = self.session
        if self.stage is Stage.CANCELLED:
            raise TournamentPhaseError(f"the tournament was cancelled: {self.cancelled}")
        if s is None or self.stage is not Stage.PLAYING:
            raise TournamentPhaseError("no session is being played", hint="start the session first")
        return s

    def entrant(self, entrant: str) -> EntrantState:
        if entrant not in self.entrants:
            raise TournamentError(
                f"no entrant {entrant!r} in tournament {self.id!r}",
                hint="entrants are named by their id, e.g. e1",
            )
        return self.entrants[entrant]

    def table(self, table: int) -> TableState:
        if table not in self.tables:
            raise TournamentPhaseError(
                f"there is no table {table} in this session",
                hint=f"tables: {', '.join(map(str, sorted(self.tables))) or 'none yet'}",
            )
        return self.tables[table]

    def out_of_chips(self, entrant: str) -> bool:
        """Chips below the minimum bet: no more bets this session (T4.7)."""
        s = self.session
        e = self.entrant(entrant)
        return s is not None and e.chips < s.min_bet

    def must_bet(self, entrant: str) -> bool:
        """Whether sitting this hand out would leave the minimum number of hands
        unreachable (T5.2)."""
        e = self.entrant(entrant)
        s = self.session
        if s is None or e.table is None or not e.active or self.out_of_chips(entrant):
            return False
        t = self.tables[e.table]
        if t.phase is Phase.DONE:  # every hand dealt: nothing left to bet on
            return False
        hand = t.hand if t.phase in (Phase.BETTING, Phase.CLOSED) else t.settled + 1
        return e.hands_bet + (s.hands - hand) < e.required

    def awaiting(self, table: int) -> list[str]:
        """Entrants at ``table`` who can still act on the hand being bet."""
        t = self.table(table)
        if t.phase is not Phase.BETTING:
            return []
        return [
            e
            for e in t.entrants
            if e not in t.bets and e not in t.passed and not self.out_of_chips(e)
        ]

    @property
    def all_tables_done(self) -> bool:
        return bool(self.tables) and all(t.phase is Phase.DONE for t in self.tables.values())

    # -- helpers the actions share -------------------------------------------------

    def _entries(self, table: TableState) -> list[Entry]:
        s = self.session
        assert s is not None
        return [
            Entry(e, table.number, self.entrants[e].chips, s.final or not self.out_of_chips(e))
            for e in table.entrants
        ]

    def _shoe_for(self, t: TableState) -> None:
        if t.shoe is not None and not t.shoe.cut_card_reached:
            return
        fmt = self.fmt
        number = t.shoes + 1
        seed = (
            f"{self.seed}:session{self.session_number}:table{t.number}:shoe{number}"
            if self.seeded
            else None
        )
        shoe = fmt.game.new_shoe(fmt.decks, seed=seed)
        cut = len(shoe) - fmt.cut_card
        nonce, order = shoe.reveal()
        self._emit(
            ShoeStarted(self.session_number, t.number, number, order, cut, shoe.commitment, nonce)
        )

    def _next_coup(self, t: TableState) -> Coup:
        """The next coup of the table's shoe, without drawing it (the draw is
        applied with the event)."""
        assert t.shoe is not None
        return deal(iter(t.shoe.order[t.shoe.position :]))

    def _settle(self, coup: Coup, lines: Iterable[BetLine]) -> int:
        bets = [Bet(x.wager, Decimal(x.stake)) for x in lines]
        if not bets:
            return 0
        net = settle(self.fmt.game, coup, bets, minor_unit=Decimal(1)).net
        return int(net)

    # -- applying events -----------------------------------------------------------------

    def _apply(self, event: TournamentEvent) -> None:
        # One case per event type, as Round's fold does, so that mypy checks
        # each handler against its event.
        match event:
            case TournamentCreated():
                self._on_tournament_created(event)
            case EntrantRegistered():
                self._on_entrant_registered(event)
            case EntrantWithdrawn():
                self._on_entrant_withdrawn(event)
            case EntrantReentered():
                self._on_entrant_reentered(event)
            case TournamentCancelled():
                self._on_tournament_cancelled(event)
            case SessionStarted():
                self._on_session_started(event)
            case ShoeStarted():
                self._on_shoe_started(event)
            case HandOpened():
                self._on_hand_opened(event)
            case BetsPlaced():
                self._on_bets_placed(event)
            case BetsWithdrawn():
                self._on_bets_withdrawn(event)
            case HandPassed():
                self._on_hand_passed(event)
            case BettingClosed():
                self._on_betting_closed(event)
            case HandSettled():
                self._on_hand_settled(event)
            case HandVoided():
                self._on_hand_voided(event)
            case HandIrregularityNoted():
                self._on_hand_irregularity_noted(event)
            case TiebreakOpened():
                self._on_tiebreak_opened(event)
            case TiebreakChosen():
                self._on_tiebreak_chosen(event)
            case TiebreakDealt():
                self._on_tiebreak_dealt(event)
            case TiebreakVoided():
                self._on_tiebreak_voided(event)
            case TiebreakLots():
                self._on_tiebreak_lots(event)
            case SessionEnded():
                self._on_session_ended(event)
            case TournamentFinished():
                self._on_tournament_finished(event)
            case _:  # pragma: no cover - every event type has a case
                raise TournamentLogError(f"no handler for event {event.type}")

    def _on_tournament_created(self, ev: TournamentCreated) -> None:
        # checked when created; the entrants are checked when the first session starts
        self.format = load_format(
            json.loads(ev.format_data), f"tournament {ev.tournament_id}", check_entrants=False
        )
        self.seed = ev.seed
        self.seeded = ev.seeded
        self.first_tables = ev.tables
        self.betting_ms = ev.betting_ms
        self.pause_ms = ev.pause_ms

    def _on_entrant_registered(self, ev: EntrantRegistered) -> None:
        self.registrations[ev.entrant] = self.registrations.get(ev.entrant, 0) + 1
        e = EntrantState(ev.entrant, ev.name, ev.controller, wallet=ev.wallet)
        if ev.fee is not None:
            e.fees += Decimal(ev.fee)
        self.entrants[ev.entrant] = e
        if ev.table is not None and ev.seat is not None:
            s = self._current()
            e.late = True
            e.table, e.seat = ev.table, ev.seat
            e.session_tables[s.number] = ev.table
            e.chips = s.starting_chips
            e.required = min(s.min_hands, s.hands - ev.hands_missed)
            self.tables[ev.table].seats[ev.seat] = ev.entrant

    def _on_entrant_withdrawn(self, ev: EntrantWithdrawn) -> None:
        del self.entrants[ev.entrant]

    def _on_tournament_cancelled(self, ev: TournamentCancelled) -> None:
        self.stage = Stage.CANCELLED
        self.cancelled = ev.reason
        self.refunds = ev.refunds
        self.tiebreak = None

    def _on_entrant_reentered(self, ev: EntrantReentered) -> None:
        e = self.entrants[ev.entrant]
        e.entry = ev.entry
        e.chips = ev.chips
        if ev.fee is not None:
            e.fees += Decimal(ev.fee)

    def _on_session_started(self, ev: SessionStarted) -> None:
        self.session_number = ev.session
        self.stage = Stage.PLAYING
        s = self.fmt.session(ev.session)
        self.tables = {n: TableState(n) for n in range(1, ev.tables + 1)}
        self.keys = {}
        self.tiebreak = None
        chips = {c.entrant: c.chips for c in ev.chips}
        for d in ev.seats:
            e = self.entrants[d.entrant]
            e.table, e.seat = d.table, d.seat
            e.session_tables[ev.session] = d.table
            e.chips = chips[d.entrant]
            e.hands_bet = 0
            e.penalties = 0
            e.required = s.min_hands
            e.active = True
            self.tables[d.table].seats[d.seat] = d.entrant

    def _on_shoe_started(self, ev: ShoeStarted) -> None:
        from punto.rules.cards import parse_cards

        t = self.tables[ev.table]
        t.shoe = Shoe(parse_cards(ev.cards), cut_card=ev.cut_card, nonce=ev.nonce)
        if t.shoe.commitment != ev.commitment:
            raise TournamentLogError(
                f"the shoe of table {ev.table} does not match its published commitment"
            )
        t.shoes = ev.shoe
        t.commitment = ev.commitment

    def _on_hand_opened(self, ev: HandOpened) -> None:
        t = self.tables[ev.table]
        t.phase = Phase.BETTING
        t.hand = ev.hand
        t.remaining = ev.remaining
        t.bets = {}
        t.passed = set()
        t.penalties = ()
        t.noted = None

    def _on_bets_placed(self, ev: BetsPlaced) -> None:
        self.tables[ev.table].bets[ev.entrant] = ev.bets

    def _on_bets_withdrawn(self, ev: BetsWithdrawn) -> None:
        del self.tables[ev.table].bets[ev.entrant]

    def _on_hand_passed(self, ev: HandPassed) -> None:
        self.tables[ev.table].passed.add(ev.entrant)

    def _on_betting_closed(self, ev: BettingClosed) -> None:
        self.tables[ev.table].phase = Phase.CLOSED
        self.tables[ev.table].penalties = ev.penalties
        for p in ev.penalties:
            e = self.entrants[p.entrant]
            e.chips -= p.chips
            e.penalties += 1

    def _draw(self, t: TableState, cards: str) -> None:
        from punto.rules.cards import parse_cards

        assert t.shoe is not None
        for card in parse_cards(cards):
            drawn = t.shoe.draw()
            if drawn != card:
                raise TournamentLogError(
                    f"table {t.number}: the log deals {card} where the shoe has {drawn}"
                )

    def _on_hand_settled(self, ev: HandSettled) -> None:
        t = self.tables[ev.table]
        self._draw(t, ev.cards)
        for r in ev.results:
            e = self.entrants[r.entrant]
            e.chips = r.chips
            if r.staked:
                e.hands_bet += 1
        t.settled = ev.hand
        t.last = ev
        t.settled_bets = t.bets
        t.bets = {}
        t.passed = set()
        s = self.fmt.session(ev.session)
        t.phase = Phase.DONE if t.settled >= s.hands else Phase.IDLE

    def _on_tiebreak_opened(self, ev: TiebreakOpened) -> None:
        self.tiebreak = TiebreakState(ev.scope, ev.table, ev.entrants, ev.attempt, ev.reason)

    def _on_tiebreak_chosen(self, ev: TiebreakChosen) -> None:
        assert self.tiebreak is not None
        self.tiebreak.choices[ev.entrant] = ev.wager

    def _on_tiebreak_dealt(self, ev: TiebreakDealt) -> None:
        self._draw(self.tables[ev.table], ev.cards)
        keys = self.keys.setdefault(ev.scope, {})
        for r in ev.results:
            keys[r.entrant] = (*keys.get(r.entrant, ()), r.net)
        self.tiebreak = None

    def _on_tiebreak_lots(self, ev: TiebreakLots) -> None:
        keys = self.keys.setdefault(ev.scope, {})
        n = len(ev.order)
        for i, e in enumerate(ev.order):
            keys[e] = (*keys.get(e, ()), n - i)

    def _close_session(self, number: int) -> None:
        for t in self.tables.values():
            for eid in t.entrants:
                self.entrants[eid].session_chips[number] = self.entrants[eid].chips

    def _on_session_ended(self, ev: SessionEnded) -> None:
        self._close_session(ev.session)
        for eid in ev.eliminated:
            e = self.entrants[eid]
            e.active = False
            e.eliminated_in = ev.session
            e.table = e.seat = None
        self.advanced = ev.advancing
        self.stage = Stage.BETWEEN

    def _on_tournament_finished(self, ev: TournamentFinished) -> None:
        self._close_session(self.session_number)
        for p in ev.places:
            e = self.entrants[p.entrant]
            e.place = p.place
            e.prize = Decimal(p.prize)
        self.results = ev.places
        self.stage = Stage.FINISHED
