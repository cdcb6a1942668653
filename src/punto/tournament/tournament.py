"""A live tournament: a fold over its events, with check/can/act for every action.

Every action is checked (a typed :class:`~punto.tournament.errors.TournamentError`
citing the competition rule says why not), written to the tournament's log,
and only then applied and announced to listeners.  Opening the tournament
again from the same log replays the events and resumes exactly where it
stood, mid-hand if need be.  Anything random (seats, shoes, lots) is drawn
once and recorded in its event, so a replay never draws again.

Each hand at a table is dealt from that table's shoe with
:func:`punto.coup.deal` and every entrant's bets are settled with
:func:`punto.settlement.settle` on the format's game (Baccarat Tournament),
in whole tournament chips.

>>> from punto.tournament.formats import get_format
>>> from punto.tournament.store import MemoryTournamentLog
>>> log = MemoryTournamentLog()
>>> t = Tournament.create(log, "doc", get_format("turbo"), seed="doc")
>>> for name in ("Ann", "Bo", "Cy", "Di"):
...     _ = t.register(name)
>>> t.start_session(); t.open_hand(1)
>>> t.place_bets("e1", [("banker", 1000)]); t.pass_hand("e2")
>>> t.place_bets("e3", [("player", 200)]); t.place_bets("e4", [("tie", 200)])
>>> t.close_betting(1)
()
>>> settled = t.deal_hand(1)
>>> again = Tournament.open(log, "doc")
>>> again.entrants["e1"].chips == t.entrants["e1"].chips == 20000 + settled.results[0].net
True
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import random
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from punto.coup import Coup, deal
from punto.errors import PuntoError
from punto.money import format_money
from punto.names import DisplayNameError, display_name, name_key
from punto.settlement import Bet, check_bets, settle
from punto.shoe import Shoe
from punto.tournament.errors import (
    BetLimitError,
    MinHandsError,
    RegistrationError,
    TiebreakError,
    TournamentError,
    TournamentLogError,
    TournamentPhaseError,
    can,
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
    HandResult,
    HandSettled,
    HandVoided,
    Penalty,
    Placing,
    Refund,
    SeatDraw,
    SessionEnded,
    SessionStarted,
    ShoeStarted,
    Stack,
    TiebreakChosen,
    TiebreakDealt,
    TiebreakLots,
    TiebreakOpened,
    TiebreakResult,
    TiebreakVoided,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    event_to_json,
)
from punto.tournament.format import ChipPolicy, Format, Session, balanced_sizes, load_format
from punto.tournament.irregularities import HandIrregularities
from punto.tournament.standings import (
    WILDCARDS,
    Entry,
    Tie,
    advancement,
    final_tie,
    places,
    rank,
    table_scope,
)
from punto.tournament.store import TournamentLog

_log = logging.getLogger(__name__)

#: Called with (sequence number, event) after each event is stored and applied.
Listener = Callable[[int, TournamentEvent], None]

#: The sides a sudden-death hand is bet on (T7.2).
SUDDEN_DEATH_WAGERS = ("banker", "player")


class Stage(enum.Enum):
    REGISTRATION = "registration"
    PLAYING = "playing"
    BETWEEN = "between_sessions"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def over(self) -> bool:
        """Whether play has ended for good: finished (its prizes owed) or
        cancelled (its entry fees owed, T8.4)."""
        return self in (Stage.FINISHED, Stage.CANCELLED)


class Phase(enum.Enum):
    """Where a table stands in its session."""

    IDLE = "idle"  # between hands
    BETTING = "betting"  # 'Place your bets, please'
    CLOSED = "closed"  # 'No more bets': the coup is to be dealt
    DONE = "done"  # every hand of the session dealt


@dataclass
class EntrantState:
    id: str
    name: str
    controller: str
    entry: int = 1
    table: int | None = None
    seat: int | None = None
    chips: int = 0
    hands_bet: int = 0
    penalties: int = 0
    #: hands this entrant must bet this session (T5.2)
    required: int = 0
    late: bool = False
    #: in the session being played, or advanced to the next one
    active: bool = True
    eliminated_in: int | None = None
    #: chips at the end of each session played
    session_chips: dict[int, int] = field(default_factory=dict)
    #: the table played at in each session
    session_tables: dict[int, int] = field(default_factory=dict)
    place: int | None = None
    prize: Decimal | None = None
    #: the ledger wallet fees came from and prizes go to (None: off the ledger)
    wallet: str | None = None
    #: entry fees paid, money (the first entry and every re-entry)
    fees: Decimal = Decimal(0)


@dataclass
class TableState:
    number: int
    seats: dict[int, str] = field(default_factory=dict)
    phase: Phase = Phase.IDLE
    #: the hand being played, or the last one
    hand: int = 0
    settled: int = 0
    remaining: int = 0
    bets: dict[str, tuple[BetLine, ...]] = field(default_factory=dict)
    passed: set[str] = field(default_factory=set)
    shoe: Shoe | None = None
    shoes: int = 0
    commitment: str = ""
    last: HandSettled | None = None
    #: penalties of the hand being played or just settled (T5.3): a void returns them
    penalties: tuple[Penalty, ...] = ()
    #: the bets of the hand just settled (a void after settlement folds them, 5.2)
    settled_bets: dict[str, tuple[BetLine, ...]] = field(default_factory=dict)
    #: the last hand voided at this table (5.1-5.5), and the last irregularity
    #: of the hand in play that did not void it
    voided: HandVoided | None = None
    noted: HandIrregularityNoted | None = None

    @property
    def entrants(self) -> list[str]:
        return [self.seats[s] for s in sorted(self.seats)]


@dataclass
class TiebreakState:
    scope: str
    table: int
    entrants: tuple[str, ...]
    attempt: int
    reason: str
    choices: dict[str, str] = field(default_factory=dict)


def announcement(remaining: int, announce_last: int) -> str | None:
    """What the dealer announces before a hand with ``remaining`` hands after it (T5.4).

    >>> announcement(4, 5), announcement(0, 5), announcement(5, 5)
    ('Last 5 hands', 'Last hand', None)
    """
    left = remaining + 1
    if not announce_last or left > announce_last:
        return None
    return "Last hand" if left == 1 else f"Last {left} hands"


def _chips(n: int) -> str:
    return f"{n:,}"


class Tournament(HandIrregularities):
    """One tournament, its entrants and tables, kept in a :class:`TournamentLog`.

    Build one with :meth:`create` or :meth:`open`.  The attributes are the
    state as of the last event; change it only through the actions.
    """

    def __init__(self, log: TournamentLog, tournament_id: str) -> None:
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
        log: TournamentLog,
        tournament_id: str,
        fmt: Format,
        *,
        seed: int | str | None = None,
        tables: int | None = None,
        betting_ms: int = 0,
        pause_ms: int = 0,
    ) -> Tournament:
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
    def open(cls, log: TournamentLog, tournament_id: str) -> Tournament:
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
            seq = self.log.append(self.id, self.seq + 1, event)
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

    # -- registration (T2) ---------------------------------------------------------------

    def check_register(self, name: str, entrant: str | None = None) -> None:
        fmt = self.fmt
        if not name.strip():
            raise RegistrationError("an entrant needs a name", clause=fmt.rule("registration"))
        if entrant is not None and (not entrant or any(c.isspace() for c in entrant)):
            raise RegistrationError(f"entrant id {entrant!r} must be non-empty with no spaces")
        if entrant is not None and entrant in self.entrants:
            raise RegistrationError(
                f"entrant {entrant!r} is already registered", clause=fmt.rule("registration")
            )
        try:  # one spelling, nothing hidden, nobody else's (punto.names)
            shown = display_name(name, clause=fmt.rule("registration"))
        except DisplayNameError as error:
            raise RegistrationError(error.message, clause=error.clause, hint=error.hint) from None
        key = name_key(shown)
        if any(name_key(e.name) == key for e in self.entrants.values()):
            raise RegistrationError(
                f"an entrant is already called {shown!r}",
                clause=fmt.rule("registration"),
                hint="choose a name of your own",
            )
        if len(self.entrants) >= fmt.registration.max_entrants:
            raise RegistrationError(
                f"the tournament is full: {fmt.registration.max_entrants} entrants",
                clause=fmt.rule("registration"),
            )
        if self.stage is Stage.REGISTRATION:
            return
        self._late_table()

    def _late_table(self) -> tuple[int, int]:
        """The table and hands missed for a late entrant (T2.2), or why not."""
        fmt = self.fmt
        until = fmt.registration.late_until_hand
        if self.stage is not Stage.PLAYING or self.session_number != 1 or not until:
            raise RegistrationError(
                "registration is closed",
                clause=fmt.rule("late"),
                hint=f"late registration runs until hand {until} of the first session"
                if until
                else "this format has no late registration",
            )
        s = self._current()
        open_tables = [
            t
            for t in self.tables.values()
            if len(t.seats) < s.seats and self._next_bettable(t) <= until
        ]
        if not open_tables:
            raise RegistrationError(
                f"late registration is closed: every table is past hand {until} or full",
                clause=fmt.rule("late"),
            )
        chosen = min(open_tables, key=lambda t: (len(t.seats), t.number))
        missed = self._next_bettable(chosen) - 1
        return chosen.number, missed

    @staticmethod
    def _next_bettable(t: TableState) -> int:
        """The first hand a newcomer at the table could still bet on."""
        if t.phase is Phase.DONE:
            return t.settled + 1_000_000
        return t.settled + (2 if t.phase is Phase.CLOSED else 1)

    def can_register(self, name: str, entrant: str | None = None) -> bool:
        return can(self.check_register, name, entrant)

    def register(
        self,
        name: str,
        controller: str = "human",
        entrant: str | None = None,
        *,
        wallet: str | None = None,
        fee: str | None = None,
    ) -> str:
        """Enter ``name``; after the first session has started, a late entry
        seated at the table with the fewest entrants (T2.2).  Returns the
        entrant id (``e1``, ``e2``, ... unless given)."""
        with self._lock:
            event = self.registration(name, controller, entrant, wallet=wallet, fee=fee)
            self._emit(event)
            return event.entrant

    def registration(
        self,
        name: str,
        controller: str = "human",
        entrant: str | None = None,
        *,
        wallet: str | None = None,
        fee: str | None = None,
    ) -> EntrantRegistered:
        """The event :meth:`register` would write, checked, written nowhere:
        for a caller that stores it in its own transaction together with the
        entry fee, then calls :meth:`adopt`."""
        with self._lock:
            self.check_register(name, entrant)
            eid = entrant or self._next_id()
            if self.stage is Stage.REGISTRATION:
                return EntrantRegistered(
                    eid, display_name(name), controller, wallet=wallet, fee=fee
                )
            table, missed = self._late_table()
            taken = set(self.tables[table].seats)
            free = [n for n in range(1, self._current().seats + 1) if n not in taken]
            seat = random.Random(f"punto-tournament:{self.seed}:late:{eid}").choice(free)
            return EntrantRegistered(
                eid, display_name(name), controller, table, seat, missed, wallet=wallet, fee=fee
            )

    def _next_id(self) -> str:
        n = len(self.entrants) + 1
        while f"e{n}" in self.entrants:
            n += 1
        return f"e{n}"

    def check_withdraw_entry(self, entrant: str) -> None:
        e = self.entrant(entrant)
        if self.stage is not Stage.REGISTRATION:
            raise RegistrationError(
                f"{e.name} can take the entry back only before the first session starts; "
                f"the tournament is {self.stage.value}",
                clause=self.fmt.rule("withdraw_entry"),
            )

    def can_withdraw_entry(self, entrant: str) -> bool:
        return can(self.check_withdraw_entry, entrant)

    def withdraw_entry(self, entrant: str) -> None:
        """Take an entry back before the first session starts; its fee is refunded."""
        with self._lock:
            self._emit(self.entry_withdrawal(entrant))

    def entry_withdrawal(self, entrant: str) -> EntrantWithdrawn:
        """The event :meth:`withdraw_entry` would write, checked, written nowhere
        (as :meth:`registration`: the caller refunds the fee in the same
        transaction)."""
        with self._lock:
            self.check_withdraw_entry(entrant)
            fees = self.entrants[entrant].fees
            return EntrantWithdrawn(entrant, format_money(fees) if fees else None)

    def check_reenter(self, entrant: str) -> None:
        fmt = self.fmt
        e = self.entrant(entrant)
        reg = fmt.registration
        if not reg.reentries:
            raise RegistrationError("this format has no re-entry", clause=fmt.rule("reentry"))
        if self.stage is not Stage.PLAYING or self.session_number != 1 or e.table is None:
            raise RegistrationError(
                "re-entry is only during the first session", clause=fmt.rule("reentry")
            )
        if not self.out_of_chips(entrant):
            raise RegistrationError(
                f"{e.name} still has {_chips(e.chips)} chips: only an entrant out of chips "
                f"may re-enter",
                clause=fmt.rule("reentry"),
            )
        if e.entry > reg.reentries:
            raise RegistrationError(
                f"{e.name} has re-entered {e.entry - 1} time(s), the most allowed",
                clause=fmt.rule("reentry"),
            )
        t = self.tables[e.table]
        if self._next_bettable(t) > reg.reentry_until_hand:
            raise RegistrationError(
                f"re-entry closed after hand {reg.reentry_until_hand}",
                clause=fmt.rule("reentry"),
            )

    def can_reenter(self, entrant: str) -> bool:
        return can(self.check_reenter, entrant)

    def reenter(self, entrant: str, *, fee: str | None = None) -> None:
        """A new starting stack for an entrant out of chips, in the same seat (T2.3)."""
        with self._lock:
            self._emit(self.reentry(entrant, fee=fee))

    def reentry(self, entrant: str, *, fee: str | None = None) -> EntrantReentered:
        """The event :meth:`reenter` would write, checked, written nowhere (as
        :meth:`registration`)."""
        with self._lock:
            self.check_reenter(entrant)
            e = self.entrants[entrant]
            return EntrantReentered(entrant, e.entry + 1, self._current().starting_chips, fee)

    # -- sessions (T3, T6) ---------------------------------------------------------------

    def check_start_session(self) -> None:
        fmt = self.fmt
        if self.stage is Stage.REGISTRATION:
            n = len(self.entrants)
            if n < fmt.registration.min_entrants:
                raise RegistrationError(
                    f"{n} entrants registered; the format needs at least "
                    f"{fmt.registration.min_entrants}",
                    clause=fmt.rule("registration"),
                )
            fmt.plan(n, self.first_tables or None)
            return
        if self.stage is not Stage.BETWEEN:
            raise TournamentPhaseError(
                f"a session starts before the first or after another ends; the tournament is "
                f"{self.stage.value}"
            )

    def can_start_session(self) -> bool:
        return can(self.check_start_session)

    def start_session(self) -> None:
        """Draw the seats (T3.1, T3.2) and start the next session."""
        with self._lock:
            self.check_start_session()
            fmt = self.fmt
            number = self.session_number + 1
            s = fmt.session(number)
            if number == 1:
                who = list(self.entrants)
                tables = fmt.plan(len(who), self.first_tables or None)[0].tables
            else:
                who = list(self.advanced)
                tables = 1 if s.final else max(1, -(-len(who) // s.seats))
            rng = random.Random(f"punto-tournament:{self.seed}:seating:{number}")
            order = list(who)
            rng.shuffle(order)
            seats: list[SeatDraw] = []
            start = 0
            for table, size in enumerate(balanced_sizes(len(order), tables), start=1):
                numbers = rng.sample(range(1, s.seats + 1), size)
                for entrant, seat in zip(order[start : start + size], numbers, strict=True):
                    seats.append(SeatDraw(entrant, table, seat))
                start += size
            seats.sort(key=lambda d: (d.table, d.seat))
            chips = tuple(
                Stack(
                    d.entrant,
                    self.entrants[d.entrant].chips
                    if s.chips is ChipPolicy.CARRY
                    else s.starting_chips,
                )
                for d in seats
            )
            self._emit(SessionStarted(number, tables, tuple(seats), chips))

    # -- hands (T4, T5) ------------------------------------------------------------------

    def check_open_hand(self, table: int) -> None:
        s = self._current()
        t = self.table(table)
        if t.phase is Phase.DONE:
            raise TournamentPhaseError(
                f"table {table} has dealt all {s.hands} hands of {s.name}",
                clause=self.fmt.rule("hands"),
            )
        if t.phase is not Phase.IDLE:
            raise TournamentPhaseError(
                f"hand {t.hand} at table {table} is still {t.phase.value}",
                hint="close betting and deal it first",
            )

    def can_open_hand(self, table: int) -> bool:
        return can(self.check_open_hand, table)

    def open_hand(self, table: int) -> None:
        """'Place your bets, please' for the next hand at ``table`` (a new shoe
        first when the cut card has come out)."""
        with self._lock:
            self.check_open_hand(table)
            s = self._current()
            t = self.tables[table]
            self._shoe_for(t)
            hand = t.settled + 1
            self._emit(HandOpened(self.session_number, table, hand, s.hands - hand))

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

    def _betting_table(self, entrant: str) -> tuple[EntrantState, TableState, Session]:
        s = self._current()
        e = self.entrant(entrant)
        if e.table is None or e.table not in self.tables or not e.active:
            raise TournamentPhaseError(f"{e.name} is not seated in {s.name}")
        t = self.tables[e.table]
        if t.phase is not Phase.BETTING:
            raise TournamentPhaseError(
                f"betting is not open at table {t.number}",
                clause=self.fmt.game.clause("late_bet") if t.phase is Phase.CLOSED else None,
                hint="wait for 'Place your bets, please'",
            )
        return e, t, s

    def check_place_bets(
        self, entrant: str, bets: Sequence[tuple[str, int]]
    ) -> tuple[BetLine, ...]:
        """The bets as they will be recorded, or why they are refused (T4)."""
        fmt = self.fmt
        e, t, s = self._betting_table(entrant)
        if entrant in t.bets:
            raise TournamentPhaseError(
                f"{e.name} has already bet on hand {t.hand}",
                clause=fmt.rule("withdraw"),
                hint="withdraw the bets first to change them",
            )
        if entrant in t.passed:
            raise TournamentPhaseError(f"{e.name} has passed hand {t.hand}")
        if self.out_of_chips(entrant):
            raise BetLimitError(
                f"{e.name} has {_chips(e.chips)} chips, under the minimum bet of "
                f"{_chips(s.min_bet)}: out of chips",
                clause=fmt.rule("out_of_chips"),
                hint="re-enter if the format allows it" if fmt.registration.reentries else None,
            )
        return self._lines(e, s, bets)

    def _lines(
        self, e: EntrantState, s: Session, bets: Sequence[tuple[str, int]]
    ) -> tuple[BetLine, ...]:
        fmt = self.fmt
        lines = bet_lines(fmt, s, e.chips, bets, e.name)
        try:  # the game itself must take them (wagers offered, rules 3.5)
            check_bets(fmt.game, [Bet(x.wager, Decimal(x.stake)) for x in lines])
        except PuntoError as error:
            raise BetLimitError(error.message, clause=error.clause, hint=error.hint) from None
        return lines

    def can_place_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> bool:
        return can(self.check_place_bets, entrant, bets)

    def place_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> None:
        """An entrant's bets on the hand being bet at their table, placed together."""
        with self._lock:
            lines = self.check_place_bets(entrant, bets)
            e = self.entrants[entrant]
            t = self.tables[e.table or 0]
            self._emit(BetsPlaced(self.session_number, t.number, t.hand, entrant, lines))

    def check_withdraw_bets(self, entrant: str) -> None:
        e, t, _ = self._betting_table(entrant)
        if entrant not in t.bets:
            raise TournamentPhaseError(f"{e.name} has no bets on hand {t.hand}")

    def can_withdraw_bets(self, entrant: str) -> bool:
        return can(self.check_withdraw_bets, entrant)

    def withdraw_bets(self, entrant: str) -> None:
        """Take back an entrant's bets before 'No more bets' (T4.6)."""
        with self._lock:
            self.check_withdraw_bets(entrant)
            t = self.tables[self.entrants[entrant].table or 0]
            self._emit(BetsWithdrawn(self.session_number, t.number, t.hand, entrant))

    def check_replace_bets(
        self, entrant: str, bets: Sequence[tuple[str, int]]
    ) -> tuple[BetLine, ...]:
        """The new bets as they will be recorded, or why the entrant's bets
        cannot be replaced by them (T4.6: withdrawn and placed again)."""
        self.check_withdraw_bets(entrant)
        e, _, s = self._betting_table(entrant)
        return self._lines(e, s, bets)

    def can_replace_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> bool:
        return can(self.check_replace_bets, entrant, bets)

    def replace_bets(self, entrant: str, bets: Sequence[tuple[str, int]]) -> None:
        """Withdraw an entrant's bets and place ``bets`` instead (T4.6), both
        checked before either is written."""
        with self._lock:
            lines = self.check_replace_bets(entrant, bets)
            t = self.tables[self.entrants[entrant].table or 0]
            self._emit(BetsWithdrawn(self.session_number, t.number, t.hand, entrant))
            self._emit(BetsPlaced(self.session_number, t.number, t.hand, entrant, lines))

    def check_pass_hand(self, entrant: str) -> None:
        fmt = self.fmt
        e, t, s = self._betting_table(entrant)
        if entrant in t.bets:
            raise TournamentPhaseError(
                f"{e.name} has bet on hand {t.hand}", hint="withdraw the bets to pass"
            )
        if entrant in t.passed:
            raise TournamentPhaseError(f"{e.name} has already passed hand {t.hand}")
        if self.must_bet(entrant):
            still = e.required - e.hands_bet
            raise MinHandsError(
                f"{e.name} must bet: {still} more hand(s) to reach the minimum of "
                f"{e.required}, and {t.remaining + 1} left including this one",
                clause=fmt.rule("min_hands"),
                hint=f"bet at least {_chips(s.min_bet)}",
            )

    def can_pass_hand(self, entrant: str) -> bool:
        return can(self.check_pass_hand, entrant)

    def pass_hand(self, entrant: str) -> None:
        """Sit this hand out (refused when the minimum hands would become unreachable)."""
        with self._lock:
            self.check_pass_hand(entrant)
            t = self.tables[self.entrants[entrant].table or 0]
            self._emit(HandPassed(self.session_number, t.number, t.hand, entrant))

    def check_close_betting(self, table: int) -> None:
        self._current()
        t = self.table(table)
        if t.phase is not Phase.BETTING:
            raise TournamentPhaseError(f"betting is not open at table {table}")

    def can_close_betting(self, table: int) -> bool:
        return can(self.check_close_betting, table)

    def close_betting(self, table: int) -> tuple[Penalty, ...]:
        """'No more bets'.  Entrants who have not bet sit the hand out; one who
        had to bet loses the minimum bet as a penalty (T5.3)."""
        with self._lock:
            self.check_close_betting(table)
            s = self._current()
            t = self.tables[table]
            penalties = tuple(
                Penalty(e, min(s.min_bet, self.entrants[e].chips))
                for e in self.awaiting(table)
                if self.must_bet(e)
            )
            self._emit(BettingClosed(self.session_number, table, t.hand, penalties))
            return penalties

    def check_deal_hand(self, table: int) -> None:
        self._current()
        t = self.table(table)
        if t.phase is not Phase.CLOSED:
            raise TournamentPhaseError(
                f"the hand at table {table} is {t.phase.value}",
                clause=self.fmt.game.clause("no_more_bets"),
                hint="deal once betting is closed",
            )

    def can_deal_hand(self, table: int) -> bool:
        return can(self.check_deal_hand, table)

    def deal_hand(self, table: int) -> HandSettled | HandVoided:
        """Deal the coup from the table's shoe and settle every bet on it; a
        shoe that cannot complete the coup voids the hand (rules 5.5)."""
        with self._lock:
            self.check_deal_hand(table)
            t = self.tables[table]
            short = self.shoe_short(table)
            if short is not None:
                self._emit(short)
                return short
            coup = self._next_coup(t)
            results = []
            for eid in t.entrants:
                e = self.entrants[eid]
                lines = t.bets.get(eid, ())
                net = self._settle(coup, lines)
                results.append(HandResult(eid, sum(x.stake for x in lines), net, e.chips + net))
            event = HandSettled(
                self.session_number, table, t.hand, str(coup), coup.winner.value, tuple(results)
            )
            self._emit(event)
            return event

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

    # -- tie-breaks (T7) -----------------------------------------------------------------

    def _entries(self, table: TableState) -> list[Entry]:
        s = self.session
        assert s is not None
        return [
            Entry(e, table.number, self.entrants[e].chips, s.final or not self.out_of_chips(e))
            for e in table.entrants
        ]

    def pending_tie(self) -> Tie | None:
        """The tie that must be broken before the session can end, if any (T7.1)."""
        s = self.session
        if self.stage is not Stage.PLAYING or s is None or not self.all_tables_done:
            return None
        if s.final:
            (only,) = self.tables.values()
            scope = table_scope(only.number)
            group = final_tie(self._entries(only), self.keys.get(scope, {}), self.fmt.prize)
            return None if group is None else Tie(scope, only.number, group)
        return advancement(
            {n: self._entries(t) for n, t in self.tables.items()},
            advance=s.advance,
            wildcards=s.wildcards,
            keys=self.keys,
        ).tie

    def check_open_tiebreak(self) -> Tie:
        self._current()
        if not self.all_tables_done:
            raise TournamentPhaseError("ties are broken once every table has dealt its hands")
        if self.tiebreak is not None:
            raise TournamentPhaseError("a sudden-death hand is already open")
        tie = self.pending_tie()
        if tie is None:
            raise TiebreakError("no tie needs breaking", clause=self.fmt.rule("tiebreak"))
        return tie

    def can_open_tiebreak(self) -> bool:
        return can(self.check_open_tiebreak)

    def open_tiebreak(self) -> TiebreakState | None:
        """Open a sudden-death hand for the pending tie (T7.2); once the tied
        entrants have played the format's sudden-death hands, draw lots
        instead (T7.3) and return None."""
        with self._lock:
            tie = self.check_open_tiebreak()
            fmt = self.fmt
            played = len(self.keys.get(tie.scope, {}).get(tie.entrants[0], ()))
            if played >= fmt.sudden_death_hands:
                order = list(tie.entrants)
                rng = random.Random(
                    f"punto-tournament:{self.seed}:lots:{self.session_number}:{tie.scope}:"
                    + ",".join(order)
                )
                rng.shuffle(order)
                self._emit(TiebreakLots(self.session_number, tie.scope, tuple(order)))
                return None
            self._shoe_for(self.tables[tie.table])
            self._emit(
                TiebreakOpened(
                    self.session_number,
                    tie.scope,
                    tie.table,
                    tie.entrants,
                    played + 1,
                    self._tie_reason(tie),
                )
            )
            return self.tiebreak

    def _tie_reason(self, tie: Tie) -> str:
        s = self.session
        assert s is not None
        if tie.scope == WILDCARDS:
            return "for a wild card"
        if s.final:
            scope_keys = self.keys.get(tie.scope, {})
            ranked = rank(self._entries(self.tables[tie.table]), scope_keys)
            first = min(r.rank for r in ranked if r.entry.entrant in tie.entrants)
            last = first + len(tie.entrants) - 1
            return f"for places {first}-{last} of the final"
        return f"for the last advancing place at table {tie.table}"

    def check_choose_tiebreak(self, entrant: str, wager: str) -> None:
        tb = self.tiebreak
        e = self.entrant(entrant)
        if tb is None:
            raise TournamentPhaseError("no sudden-death hand is open")
        if entrant not in tb.entrants:
            raise TiebreakError(
                f"{e.name} is not in this sudden-death hand", clause=self.fmt.rule("sudden_death")
            )
        if entrant in tb.choices:
            raise TiebreakError(
                f"{e.name} has already chosen {tb.choices[entrant]}",
                clause=self.fmt.rule("sudden_death"),
            )
        if wager not in SUDDEN_DEATH_WAGERS:
            raise TiebreakError(
                f"a sudden-death hand is bet on Banker or Player, not {wager!r}",
                clause=self.fmt.rule("sudden_death"),
                hint="choose banker or player",
            )
        sides = self.tiebreak_sides()
        if wager not in sides:
            raise TiebreakError(
                f"{wager} is taken: while a side is still open, the next tied entrant takes it",
                clause=self.fmt.rule("sudden_death"),
                hint=f"choose {sides[0]}",
            )

    def tiebreak_sides(self) -> tuple[str, ...]:
        """The sides the next tied entrant may choose: the one not yet taken,
        while there is one, so that the sudden-death hand can separate them (T7.2)."""
        tb = self.tiebreak
        if tb is None:
            return ()
        taken = set(tb.choices.values())
        open_sides = tuple(w for w in SUDDEN_DEATH_WAGERS if w not in taken)
        return open_sides or SUDDEN_DEATH_WAGERS

    def can_choose_tiebreak(self, entrant: str, wager: str) -> bool:
        return can(self.check_choose_tiebreak, entrant, wager)

    def choose_tiebreak(self, entrant: str, wager: str) -> None:
        """A tied entrant's side for the sudden-death hand."""
        with self._lock:
            self.check_choose_tiebreak(entrant, wager)
            self._emit(TiebreakChosen(self.session_number, entrant, wager))

    def check_deal_tiebreak(self) -> None:
        tb = self.tiebreak
        if tb is None:
            raise TournamentPhaseError("no sudden-death hand is open")
        missing = [e for e in tb.entrants if e not in tb.choices]
        if missing:
            names = ", ".join(self.entrants[e].name for e in missing)
            raise TiebreakError(
                f"still to choose a side: {names}",
                clause=self.fmt.rule("sudden_death"),
                hint="each tied entrant chooses banker or player",
            )

    def can_deal_tiebreak(self) -> bool:
        return can(self.check_deal_tiebreak)

    def deal_tiebreak(self) -> TiebreakDealt | TiebreakVoided:
        """Deal the sudden-death coup; each tied entrant's minimum bet on their
        side is settled, which orders them (their chips do not change).  A
        shoe that cannot complete it voids it (rules 5.5): it opens again."""
        with self._lock:
            self.check_deal_tiebreak()
            short = self.tiebreak_shoe_short()
            if short is not None:
                self._emit(short)
                return short
            tb = self.tiebreak
            assert tb is not None
            s = self._current()
            t = self.tables[tb.table]
            coup = self._next_coup(t)
            results = tuple(
                TiebreakResult(
                    e, tb.choices[e], self._settle(coup, [BetLine(tb.choices[e], s.min_bet)])
                )
                for e in tb.entrants
            )
            event = TiebreakDealt(
                self.session_number, tb.scope, tb.table, str(coup), coup.winner.value, results
            )
            self._emit(event)
            return event

    # -- the end of a session (T6, T8) ---------------------------------------------------

    def check_end_session(self) -> None:
        s = self._current()
        if not self.all_tables_done:
            left = [str(n) for n, t in sorted(self.tables.items()) if t.phase is not Phase.DONE]
            raise TournamentPhaseError(
                f"tables {', '.join(left)} have hands of {s.name} still to play",
                clause=self.fmt.rule("hands"),
            )
        if self.tiebreak is not None:
            raise TournamentPhaseError("a sudden-death hand is open", hint="deal it first")
        tie = self.pending_tie()
        if tie is not None:
            names = ", ".join(self.entrants[e].name for e in tie.entrants)
            raise TiebreakError(
                f"{names} are tied on chips {self._tie_reason(tie)}",
                clause=self.fmt.rule("tiebreak"),
                hint="open a sudden-death hand",
            )

    def can_end_session(self) -> bool:
        return can(self.check_end_session)

    def end_session(self) -> None:
        """Rank the session: who advances (T6.2), or the final places and prizes (T8)."""
        with self._lock:
            self.check_end_session()
            s = self._current()
            seated = [e for t in self.tables.values() for e in t.entrants]
            if not s.final:
                adv = advancement(
                    {n: self._entries(t) for n, t in self.tables.items()},
                    advance=s.advance,
                    wildcards=s.wildcards,
                    keys=self.keys,
                ).advancing
                out = tuple(e for e in seated if e not in adv)
                self._emit(SessionEnded(self.session_number, adv, out))
                return
            (only,) = self.tables.values()
            final_entries = [dataclasses.replace(x, eligible=True) for x in self._entries(only)]
            eliminated = [
                (e.eliminated_in or 0, Entry(e.id, 0, e.session_chips.get(e.eliminated_in or 0, 0)))
                for e in self.entrants.values()
                if e.eliminated_in is not None
            ]
            rows = places(
                final_entries,
                self.keys.get(table_scope(only.number), {}),
                eliminated,
                self.fmt.prize,
                s.number,
            )
            self._emit(
                TournamentFinished(
                    tuple(Placing(p.entrant, p.place, format_money(p.prize)) for p in rows)
                )
            )

    # -- cancellation --------------------------------------------------------------------

    def check_cancel(self, reason: str) -> None:
        if not reason.strip():
            raise TournamentError(
                "a cancellation needs a reason", hint="say why, for the entrants and the audit"
            )
        if self.stage is Stage.FINISHED:
            raise TournamentPhaseError(
                "the tournament has finished: its places and prizes stand",
                clause=self.fmt.rule("cancel"),
            )
        if self.stage is Stage.CANCELLED:
            raise TournamentPhaseError(
                f"the tournament was already cancelled: {self.cancelled}",
                clause=self.fmt.rule("cancel"),
            )

    def can_cancel(self, reason: str) -> bool:
        return can(self.check_cancel, reason)

    def cancel(self, reason: str) -> None:
        """Call the tournament off: no more hands, no places, every entry fee
        paid given back (the event lists them; the caller pays them)."""
        with self._lock:
            self._emit(self.cancellation(reason))

    def cancellation(self, reason: str) -> TournamentCancelled:
        """The event :meth:`cancel` would write, checked, written nowhere."""
        with self._lock:
            self.check_cancel(reason)
            refunds = tuple(
                Refund(e.id, format_money(e.fees)) for e in self.entrants.values() if e.fees
            )
            return TournamentCancelled(reason.strip(), refunds)

    # -- applying events -----------------------------------------------------------------

    def _apply(self, event: TournamentEvent) -> None:
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is None:  # pragma: no cover - every registered type has a handler
            raise TournamentLogError(f"no handler for event {event.type}")
        handler(event)

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
        from punto.cards import parse_cards

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
        from punto.cards import parse_cards

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

    # -- what people see -------------------------------------------------------------------

    def leaderboard(self) -> dict[str, Any]:
        """Standings per table and overall, as JSON (updated as every hand settles)."""
        fmt = self.fmt
        s = self.session
        tables = []
        overall: list[Entry] = []
        for n, t in sorted(self.tables.items()):
            entries = self._entries(t) if s is not None else []
            overall.extend(entries)
            ranked = rank(entries, self.keys.get(table_scope(n)))
            cut = s.advance if s is not None and not s.final else 1
            rows = []
            for r in ranked:
                e = self.entrants[r.entry.entrant]
                rows.append(
                    {
                        **self._entrant_json(e),
                        "rank": r.rank,
                        "tied": r.tied,
                        "advancing": r.entry.eligible and r.rank <= cut,
                    }
                )
            tables.append(
                {
                    "table": n,
                    "phase": t.phase.value,
                    "hand": t.hand,
                    "hands": s.hands if s else 0,
                    "settled": t.settled,
                    "remaining": t.remaining if t.phase in (Phase.BETTING, Phase.CLOSED) else None,
                    "announcement": announcement(t.remaining, s.announce_last)
                    if s is not None and t.phase in (Phase.BETTING, Phase.CLOSED)
                    else None,
                    "standings": rows,
                }
            )
        overall_rows = [
            {**self._entrant_json(self.entrants[r.entry.entrant]), "rank": r.rank, "tied": r.tied}
            for r in rank(overall)
        ]
        eliminated = [
            {
                **self._entrant_json(e),
                "session": e.eliminated_in,
                "chips": e.session_chips.get(e.eliminated_in or 0, 0),
            }
            for e in self.entrants.values()
            if e.eliminated_in is not None
        ]
        return {
            "tournament": self.id,
            "format": fmt.id,
            "title": fmt.title,
            "stage": self.stage.value,
            "cancelled": None
            if self.cancelled is None
            else {
                "reason": self.cancelled,
                "refunds": [{"entrant": r.entrant, "amount": r.amount} for r in self.refunds],
            },
            "seq": self.seq,
            "session": None
            if s is None
            else {
                "number": s.number,
                "name": s.name,
                "hands": s.hands,
                "min_bet": s.min_bet,
                "max_bet": s.max_bet,
                "min_hands": s.min_hands,
                "advance": s.advance,
                "wildcards": s.wildcards,
                "final": s.final,
            },
            "tables": tables,
            "overall": overall_rows,
            "eliminated": eliminated,
            "tiebreak": None if self.tiebreak is None else self._tiebreak_json(),
            "results": [self._place_json(p) for p in self.results] if self.results else None,
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything a lobby page shows: the leaderboard, every table's hand in
        progress (bets on the layout, who is still to act), its shoe and last
        coup, and the registered entrants.  Never the shoe's order or the seed."""
        board = self.leaderboard()
        for row in board["tables"]:
            t = self.tables[row["table"]]
            row["bets"] = {
                e: [{"wager": x.wager, "stake": x.stake} for x in lines]
                for e, lines in t.bets.items()
            }
            row["passed"] = sorted(t.passed)
            row["awaiting"] = self.awaiting(t.number)
            row["shoe"] = (
                None
                if t.shoe is None
                else {"number": t.shoes, "commitment": t.commitment, "cards_left": len(t.shoe)}
            )
            row["last_hand"] = None if t.last is None else event_to_json(t.last)
            # the last void (5.1-5.5) and the irregularity of the hand in play, if any
            row["voided"] = None if t.voided is None else event_to_json(t.voided)
            row["irregularity"] = None if t.noted is None else event_to_json(t.noted)
        board["live"] = (
            {"betting_seconds": self.betting_ms / 1000, "pause_seconds": self.pause_ms / 1000}
            if self.live
            else None
        )
        board["format_rules"] = self.fmt.to_json()
        board["entrants"] = [self._entrant_json(e) for e in self.entrants.values()]
        return board

    def _status(self, e: EntrantState) -> str:
        if e.place is not None:
            return "finished"
        if self.stage is Stage.CANCELLED:
            return "cancelled"
        if e.eliminated_in is not None:
            return "eliminated"
        if self.stage is Stage.REGISTRATION:
            return "registered"
        if self.stage is Stage.BETWEEN:
            return "advanced"
        if self.out_of_chips(e.id):
            return "out_of_chips"
        return "playing"

    def _entrant_json(self, e: EntrantState) -> dict[str, Any]:
        playing = self.stage is Stage.PLAYING and e.active
        return {
            "entrant": e.id,
            "name": e.name,
            "controller": e.controller,
            "entry": e.entry,
            "table": e.table if e.active else None,
            "seat": e.seat if e.active else None,
            "chips": e.chips,
            "hands_bet": e.hands_bet,
            "hands_required": e.required,
            "must_bet": playing and self.must_bet(e.id),
            # what the entrant may do now, as the checks say (pages ask, not re-judge)
            "may_reenter": self.can_reenter(e.id),
            "may_take_back": self.can_withdraw_entry(e.id),
            "penalties": e.penalties,
            "late": e.late,
            "status": self._status(e),
            "place": e.place,
        }

    def _tiebreak_json(self) -> dict[str, Any]:
        tb = self.tiebreak
        assert tb is not None
        return {
            "scope": tb.scope,
            "table": tb.table,
            "entrants": list(tb.entrants),
            "attempt": tb.attempt,
            "reason": tb.reason,
            "chosen": sorted(tb.choices),
        }

    def _place_json(self, p: Placing) -> dict[str, Any]:
        e = self.entrants[p.entrant]
        return {
            "place": p.place,
            "entrant": e.id,
            "name": e.name,
            "controller": e.controller,
            "prize": p.prize,
            "reached": self.fmt.final.name
            if e.eliminated_in is None
            else self.fmt.session(e.eliminated_in).name,
            "chips": e.chips if e.eliminated_in is None else e.session_chips.get(e.eliminated_in),
            "entries": e.entry,
        }

    def result_rows(self) -> list[dict[str, Any]]:
        """The final places, one row per entrant (for CSV and JSON)."""
        return [self._place_json(p) for p in self.results]


def bet_lines(
    fmt: Format, s: Session, chips: int, bets: Sequence[tuple[str, int]], who: str = "the entrant"
) -> tuple[BetLine, ...]:
    """An entrant's bets for a hand as they will be recorded (one line per
    wager), or why the format refuses them (T4.1-T4.5).

    >>> from punto.tournament.formats import get_format
    >>> daily = get_format("daily")
    >>> bet_lines(daily, daily.sessions[0], 100000, [("banker", 500), ("banker", 500)])
    (BetLine(wager='banker', stake=1000),)
    >>> bet_lines(daily, daily.sessions[0], 100000, [("banker", 500)])
    Traceback (most recent call last):
    ...
    punto.tournament.errors.BetLimitError: bets of 500 are under the minimum bet of 1,000 (T4.2, format daily); bet at least 1,000 in all
    """
    if not bets:
        raise BetLimitError("no bets given", hint="pass the hand instead")
    merged: dict[str, int] = {}
    for wager, stake in bets:
        if wager not in fmt.wagers:
            raise BetLimitError(
                f"{wager!r} is not a wager of this tournament",
                clause=fmt.rule("wagers"),
                hint=f"bet on {', '.join(fmt.wagers)}",
            )
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            raise BetLimitError(f"a stake must be a positive number of chips, not {stake!r}")
        if stake % fmt.chip_unit:
            raise BetLimitError(
                f"{_chips(stake)} is not a whole number of {_chips(fmt.chip_unit)} chips",
                clause=fmt.rule("chip_unit"),
                hint=f"bet in multiples of {_chips(fmt.chip_unit)}",
            )
        merged[wager] = merged.get(wager, 0) + stake
    total = sum(merged.values())
    if total < s.min_bet:
        raise BetLimitError(
            f"bets of {_chips(total)} are under the minimum bet of {_chips(s.min_bet)}",
            clause=fmt.rule("min_bet"),
            hint=f"bet at least {_chips(s.min_bet)} in all",
        )
    if s.max_bet is not None and total > s.max_bet:
        raise BetLimitError(
            f"bets of {_chips(total)} are over the maximum bet of {_chips(s.max_bet)}",
            clause=fmt.rule("max_bet"),
            hint=f"bet at most {_chips(s.max_bet)} in all",
        )
    if total > chips:
        raise BetLimitError(
            f"bets of {_chips(total)} are more than the {_chips(chips)} chips {who} has",
            clause=fmt.rule("chips_held"),
        )
    if not fmt.opposing_bets and "banker" in merged and "player" in merged:
        raise BetLimitError(
            "Banker and Player may not both be bet in one hand",
            clause=fmt.rule("opposing"),
            hint="choose one side",
        )
    return tuple(BetLine(w, st) for w, st in merged.items())
