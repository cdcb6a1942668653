"""Tournament formats: the competition around the game, as data.

A format says how many tournament chips each entrant starts with, how many
hands each session has, the minimum and maximum bet per hand, how many hands
each entrant must bet, how many advance from each table, the final table,
the sudden-death tie-break, late registration and re-entry, and the prizes.
The files live in ``punto/tournament/formats/*.toml`` (see
:mod:`punto.tournament.formats`); :func:`load_format` reads and checks one,
refusing unknown keys, impossible limits and a progression whose final table
cannot seat everyone who reaches it.

>>> from punto.tournament.formats import get_format
>>> daily = get_format("daily")
>>> [(s.name, s.hands, s.min_bet, s.advance) for s in daily.sessions]
[('Qualifying', 30, 1000, 2), ('Final', 30, 1000, 0)]
>>> [(p.session.name, p.entrants, p.tables, p.advancing) for p in daily.plan(24)]
[('Qualifying', 24, 3, 6), ('Final', 6, 1, 0)]
>>> daily.plan(24, tables=5)
Traceback (most recent call last):
...
punto.tournament.errors.FormatError: 5 tables in Qualifying send up to 10 entrants to the Final, which seats 8 (T8.1, format daily); use at most 4 tables
"""

from __future__ import annotations

import copy
import enum
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from punto.errors import PuntoError, UnknownGameError, WagerError
from punto.money import CENT, format_money, parse_amount
from punto.rules.game import Game
from punto.rules.games import get_game
from punto.tournament.errors import FormatError

#: The competition rules (docs/tournament.md), by what they govern.
RULES: dict[str, str] = {
    "chips": "T1.1",
    "chip_unit": "T1.2",
    "registration": "T2.1",
    "late": "T2.2",
    "reentry": "T2.3",
    "withdraw_entry": "T2.4",
    "seating": "T3.1",
    "reseating": "T3.2",
    "wagers": "T4.1",
    "min_bet": "T4.2",
    "max_bet": "T4.3",
    "chips_held": "T4.4",
    "opposing": "T4.5",
    "withdraw": "T4.6",
    "out_of_chips": "T4.7",
    "hands": "T5.1",
    "min_hands": "T5.2",
    "missed_hand": "T5.3",
    "last_hands": "T5.4",
    "ranking": "T6.1",
    "advance": "T6.2",
    "busted": "T6.3",
    "session_chips": "T6.4",
    "tiebreak": "T7.1",
    "sudden_death": "T7.2",
    "lots": "T7.3",
    "shared": "T7.4",
    "final": "T8.1",
    "places": "T8.2",
    "prizes": "T8.3",
    "cancel": "T8.4",
}


class ChipPolicy(enum.Enum):
    """What an entrant's chips are at the start of a session (T6.4)."""

    #: everyone starts the session with the session's starting chips
    RESET = "reset"
    #: the chips of the previous session are carried in
    CARRY = "carry"


@dataclass(frozen=True, slots=True)
class Session:
    """One session of the tournament: a fixed number of hands at each table."""

    number: int
    name: str
    hands: int
    min_bet: int
    #: None: no maximum but the chips held
    max_bet: int | None
    min_hands: int
    announce_last: int
    #: entrants advancing from each table (0 in the final)
    advance: int
    #: further entrants advancing on chips from all tables, after the top of each table
    wildcards: int
    chips: ChipPolicy
    starting_chips: int
    seats: int
    final: bool


@dataclass(frozen=True, slots=True)
class Registration:
    """Entry: how many, until when late, and how often again (T2)."""

    min_entrants: int
    max_entrants: int
    #: late entrants may join the first session until this hand (0: no late registration)
    late_until_hand: int
    #: re-entries allowed to each entrant who runs out of chips in the first session
    reentries: int
    reentry_until_hand: int
    entry_fee: Decimal | None


@dataclass(frozen=True, slots=True)
class PrizeBand:
    """Places ``first`` to ``last`` each win ``amount`` (money, never chips)."""

    first: int
    last: int
    amount: Decimal


@dataclass(frozen=True, slots=True)
class SessionPlan:
    """How a session will be seated for a number of entrants."""

    session: Session
    entrants: int
    tables: int
    #: the most that can advance (fewer when entrants run out of chips)
    advancing: int

    @property
    def table_sizes(self) -> tuple[int, ...]:
        return balanced_sizes(self.entrants, self.tables)


@dataclass(frozen=True)
class Format:
    id: str
    title: str
    version: str
    description: str
    game_id: str
    decks: int
    cut_card: int
    chip_unit: int
    opposing_bets: bool
    wagers: tuple[str, ...]
    sessions: tuple[Session, ...]
    registration: Registration
    sudden_death_hands: int
    currency: str
    prizes: tuple[PrizeBand, ...]
    #: the data the format was read from (JSON-compatible), recorded with each tournament
    data: Mapping[str, Any]

    @property
    def game(self) -> Game:
        return get_game(self.game_id)

    @property
    def starting_chips(self) -> int:
        return self.sessions[0].starting_chips

    @property
    def final(self) -> Session:
        return self.sessions[-1]

    def session(self, number: int) -> Session:
        return self.sessions[number - 1]

    def rule(self, name: str) -> str:
        """The competition rule for ``name``, with this format: ``'T4.2, format daily'``."""
        return f"{RULES[name]}, format {self.id}"

    def prize(self, place: int) -> Decimal:
        for band in self.prizes:
            if band.first <= place <= band.last:
                return band.amount
        return Decimal(0)

    @property
    def prize_places(self) -> int:
        return self.prizes[-1].last if self.prizes else 0

    def plan(self, entrants: int, tables: int | None = None) -> tuple[SessionPlan, ...]:
        """Tables and advancing entrants of each session, for ``entrants``
        in the first session seated at ``tables`` tables (as few as the
        seats allow by default).  Refuses what cannot be seated."""
        plans: list[SessionPlan] = []
        n = entrants
        for s in self.sessions:
            needed = max(1, math.ceil(n / s.seats))
            t = tables if (s.number == 1 and tables is not None) else needed
            if s.number == 1:
                if t < needed:
                    raise FormatError(
                        f"{n} entrants need at least {needed} tables of {s.seats} seats, not {t}",
                        clause=self.rule("seating"),
                        hint=f"use {needed} tables or more",
                    )
                if t > max(n, 1):
                    raise FormatError(
                        f"{t} tables for {n} entrants would leave a table empty",
                        clause=self.rule("seating"),
                        hint=f"use at most {n} tables",
                    )
            if s.final and t != 1:
                previous = plans[-1] if plans else None
                if previous is None:
                    raise FormatError(
                        f"the Final seats {s.seats}; {n} entrants cannot play it at one table",
                        clause=self.rule("final"),
                        hint=f"at most {s.seats} entrants",
                    )
                most = _most_tables(previous.session, s.seats)
                raise FormatError(
                    f"{previous.tables} tables in {previous.session.name} send up to {n} "
                    f"entrants to the {s.name}, which seats {s.seats}",
                    clause=self.rule("final"),
                    hint=f"use at most {most} tables"
                    if previous.session.number == 1 and most >= 1
                    else "advance fewer entrants",
                )
            advancing = 0
            if not s.final:
                per_table = sum(min(size, s.advance) for size in balanced_sizes(n, t))
                advancing = min(n, per_table + s.wildcards)
            plans.append(SessionPlan(s, n, t, advancing))
            n = advancing
        return tuple(plans)

    def replace(self, *, check_entrants: bool = True, **changes: Any) -> Format:
        """A variant of this format: ``session_<key>`` changes apply to every
        session but the final, any other key to the top level.  The variant
        is checked like any format (without ``check_entrants``, except that
        its final need not seat the format's whole range of entrants).

        >>> from punto.tournament.formats import get_format
        >>> get_format("daily").replace(session_hands=20, id="daily-20").sessions[0].hands
        20
        """
        data = copy.deepcopy(dict(self.data))
        for key, value in changes.items():
            if key.startswith("session_"):
                for entry in data["sessions"][:-1]:
                    entry[key.removeprefix("session_")] = value
            else:
                data[key] = value
        return load_format(data, f"{self.id} (variant)", check_entrants=check_entrants)

    def to_json(self) -> dict[str, Any]:
        """The format as people read it (for snapshots and exports)."""
        return {
            "id": self.id,
            "title": self.title,
            "version": self.version,
            "game": self.game_id,
            "decks": self.decks,
            "starting_chips": self.starting_chips,
            "chip_unit": self.chip_unit,
            "opposing_bets": self.opposing_bets,
            "wagers": list(self.wagers),
            "sessions": [
                {
                    "number": s.number,
                    "name": s.name,
                    "hands": s.hands,
                    "min_bet": s.min_bet,
                    "max_bet": s.max_bet,
                    "min_hands": s.min_hands,
                    "announce_last": s.announce_last,
                    "advance": s.advance,
                    "wildcards": s.wildcards,
                    "chips": s.chips.value,
                    "starting_chips": s.starting_chips,
                    "seats": s.seats,
                    "final": s.final,
                }
                for s in self.sessions
            ],
            "registration": {
                "min_entrants": self.registration.min_entrants,
                "max_entrants": self.registration.max_entrants,
                "late_until_hand": self.registration.late_until_hand,
                "reentries": self.registration.reentries,
                "reentry_until_hand": self.registration.reentry_until_hand,
                "entry_fee": None
                if self.registration.entry_fee is None
                else format_money(self.registration.entry_fee),
            },
            "sudden_death_hands": self.sudden_death_hands,
            "currency": self.currency,
            "prizes": [
                {"first": p.first, "last": p.last, "amount": format_money(p.amount)}
                for p in self.prizes
            ],
        }


def balanced_sizes(entrants: int, tables: int) -> tuple[int, ...]:
    """Table sizes differing by at most one, larger tables first (T3.1).

    >>> balanced_sizes(20, 3)
    (7, 7, 6)
    """
    if tables <= 0:
        return ()
    base, extra = divmod(entrants, tables)
    return tuple(base + (1 if i < extra else 0) for i in range(tables))


def _most_tables(session: Session, final_seats: int) -> int:
    return (final_seats - session.wildcards) // session.advance if session.advance else 0


# -- loading ----------------------------------------------------------------------------

_TOP = {
    "id",
    "title",
    "version",
    "description",
    "game",
    "decks",
    "cut_card",
    "starting_chips",
    "chip_unit",
    "seats",
    "opposing_bets",
    "wagers",
    "currency",
    "registration",
    "tiebreak",
    "sessions",
    "prizes",
}
_SESSION = {
    "name",
    "hands",
    "min_bet",
    "max_bet",
    "min_hands",
    "announce_last",
    "advance",
    "wildcards",
    "chips",
    "starting_chips",
    "seats",
}
_REGISTRATION = {
    "min_entrants",
    "max_entrants",
    "late_until_hand",
    "reentries",
    "reentry_until_hand",
    "entry_fee",
}
_TIEBREAK = {"sudden_death_hands"}
_PRIZE = {"place", "places", "amount"}


def load_format(data: Mapping[str, Any], source: str, *, check_entrants: bool = True) -> Format:
    """Build a :class:`Format` from parsed TOML (or its JSON copy), checking it
    (with ``check_entrants``: that its fewest and most entrants can be seated
    all the way to the final)."""

    def fail(message: str, rule: str | None = None, hint: str | None = None) -> FormatError:
        fid = data.get("id", "?") if isinstance(data, Mapping) else "?"
        clause = f"{RULES[rule]}, format {fid}" if rule else None
        return FormatError(f"{source}: {message}", clause=clause, hint=hint)

    if not isinstance(data, Mapping):
        raise fail("a format is a table of keys")
    _known(data, _TOP, "the format", fail)
    try:
        json.dumps(data)
    except (TypeError, ValueError):
        raise fail(
            "every value must be a string, a whole number, true/false, a list or a table",
            hint='write amounts of money as strings, e.g. "100.00"',
        ) from None

    fid = _text(data, "id", fail)
    game_id = _text(data, "game", fail, default="baccarat-tournament")
    try:
        game = get_game(game_id)
    except UnknownGameError as error:
        raise fail(error.message, hint=error.hint) from None
    decks = _int(data, "decks", fail, default=8)
    try:
        game.decks.check(decks)
    except PuntoError as error:
        raise fail(str(error)) from None
    cut_card = _int(data, "cut_card", fail, default=14)
    if not 6 <= cut_card <= 52 * decks - 6:
        raise fail(
            f"cut_card {cut_card}: the cut card must leave at least six cards behind it "
            f"(a whole coup) and six in front",
            hint="14 is usual",
        )
    unit = _int(data, "chip_unit", fail, default=1)
    chips = _int(data, "starting_chips", fail)
    seats = _int(data, "seats", fail)
    if seats < 2:
        raise fail("a table needs at least 2 seats", "seating")
    offered = list(game.offered())
    wagers = data.get("wagers", offered)
    if not isinstance(wagers, list) or not wagers:
        raise fail("wagers: a list of wager ids", "wagers", hint=f"from {', '.join(offered)}")
    for w in wagers:
        if w not in game.wagers:
            raise fail(f"wagers: {game_id} has no wager {w!r}", "wagers", hint=", ".join(offered))
    if len(set(wagers)) != len(wagers):
        raise fail("wagers: a wager is listed twice", "wagers")
    opposing = data.get("opposing_bets", False)
    if not isinstance(opposing, bool):
        raise fail("opposing_bets: true or false", "opposing")

    raw_sessions = data.get("sessions")
    if not isinstance(raw_sessions, list) or not raw_sessions:
        raise fail("sessions: at least one [[sessions]] table (the last is the final)", "hands")
    sessions: list[Session] = []
    for i, entry in enumerate(raw_sessions, start=1):
        sessions.append(_load_session(entry, i, len(raw_sessions), chips, seats, unit, fail))

    reg_data = data.get("registration", {})
    if not isinstance(reg_data, Mapping):
        raise fail("[registration] must be a table")
    _known(reg_data, _REGISTRATION, "[registration]", fail)
    first = sessions[0]
    registration = Registration(
        min_entrants=_int(reg_data, "min_entrants", fail, default=2, where="registration"),
        max_entrants=_int(reg_data, "max_entrants", fail, where="registration"),
        late_until_hand=_int(
            reg_data, "late_until_hand", fail, default=0, minimum=0, where="registration"
        ),
        reentries=_int(reg_data, "reentries", fail, default=0, minimum=0, where="registration"),
        reentry_until_hand=_int(
            reg_data, "reentry_until_hand", fail, default=0, minimum=0, where="registration"
        ),
        entry_fee=_money(reg_data, "entry_fee", fail) if "entry_fee" in reg_data else None,
    )
    if registration.min_entrants < 2 or registration.min_entrants > registration.max_entrants:
        raise fail(
            "registration: min_entrants must be at least 2 and at most max_entrants",
            "registration",
        )
    if registration.late_until_hand > first.hands:
        raise fail(
            f"registration.late_until_hand {registration.late_until_hand} is past the "
            f"{first.hands} hands of {first.name}",
            "late",
        )
    if registration.reentries and not 1 <= registration.reentry_until_hand <= first.hands:
        raise fail(
            f"registration.reentry_until_hand must be a hand of {first.name} (1-{first.hands}) "
            f"when re-entry is allowed",
            "reentry",
        )

    tb = data.get("tiebreak", {})
    if not isinstance(tb, Mapping):
        raise fail("[tiebreak] must be a table")
    _known(tb, _TIEBREAK, "[tiebreak]", fail)
    sudden = _int(tb, "sudden_death_hands", fail, default=3, minimum=0, where="tiebreak")

    prizes = _load_prizes(data.get("prizes", []), sessions[-1], fail)

    fmt = Format(
        id=fid,
        title=_text(data, "title", fail, default=fid),
        version=_text(data, "version", fail, default="1"),
        description=_text(data, "description", fail, default=""),
        game_id=game.id,
        decks=decks,
        cut_card=cut_card,
        chip_unit=unit,
        opposing_bets=opposing,
        wagers=tuple(wagers),
        sessions=tuple(sessions),
        registration=registration,
        sudden_death_hands=sudden,
        currency=_text(data, "currency", fail, default=""),
        prizes=prizes,
        data=copy.deepcopy(dict(data)),
    )
    if check_entrants:  # the progression must seat the fewest and the most entrants
        fmt.plan(registration.min_entrants)
        fmt.plan(registration.max_entrants)
    return fmt


Fail = Callable[..., FormatError]


def _known(data: Mapping[str, Any], allowed: set[str], where: str, fail: Fail) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise fail(
            f"{where} has unknown keys {', '.join(unknown)}",
            hint=f"known keys: {', '.join(sorted(allowed))}",
        )


def _text(data: Mapping[str, Any], key: str, fail: Fail, default: str | None = None) -> str:
    value = data.get(key, default)
    if value == default == "":
        return ""
    if not isinstance(value, str) or not value.strip():
        raise fail(f"{key}: a non-empty string is required")
    return value


def _int(
    data: Mapping[str, Any],
    key: str,
    fail: Fail,
    *,
    default: int | None = None,
    minimum: int = 1,
    where: str | None = None,
) -> int:
    value = data.get(key, default)
    name = f"{where}.{key}" if where else key
    if value is None:
        raise fail(f"{name} is missing")
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(f"{name}: a whole number is required, not {value!r}")
    if value < minimum:
        raise fail(f"{name}: must be at least {minimum}, not {value}")
    return value


def _money(data: Mapping[str, Any], key: str, fail: Fail) -> Decimal:
    value = data.get(key)
    try:  # one reading of money everywhere: ASCII digits, at most two decimals
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise WagerError("not money")
        amount = parse_amount(value)
    except WagerError:
        raise fail(
            f'{key}: an amount of money such as "100.00" is required, not {value!r}'
        ) from None
    return amount.quantize(CENT)


def _load_session(
    entry: Any, number: int, count: int, chips: int, seats: int, unit: int, fail: Fail
) -> Session:
    if not isinstance(entry, Mapping):
        raise fail(f"session {number} must be a table")
    _known(entry, _SESSION, f"session {number}", fail)
    where = f"session {number}"
    name = _text(entry, "name", fail, default="Final" if number == count else f"Session {number}")
    final = number == count
    hands = _int(entry, "hands", fail, where=where)
    min_bet = _int(entry, "min_bet", fail, where=where)
    max_bet: int | None = _int(entry, "max_bet", fail, where=where) if "max_bet" in entry else None
    min_hands = _int(entry, "min_hands", fail, minimum=0, where=where)
    announce = _int(entry, "announce_last", fail, default=0, minimum=0, where=where)
    advance = _int(entry, "advance", fail, default=0, minimum=0, where=where)
    wildcards = _int(entry, "wildcards", fail, default=0, minimum=0, where=where)
    policy_text = entry.get("chips", "reset")
    try:
        policy = ChipPolicy(policy_text)
    except ValueError:
        raise fail(
            f"{where}.chips: 'reset' or 'carry', not {policy_text!r}", "session_chips"
        ) from None
    starting = _int(entry, "starting_chips", fail, default=chips, where=where)
    table_seats = _int(entry, "seats", fail, default=seats, where=where)
    for label, amount in (("min_bet", min_bet), ("max_bet", max_bet), ("starting_chips", starting)):
        if amount is not None and amount % unit:
            raise fail(
                f"{where}.{label} {amount} is not a whole number of chips of {unit}", "chip_unit"
            )
    if min_bet > starting:
        raise fail(
            f"{where}: min_bet {min_bet} is more than the starting chips {starting}", "min_bet"
        )
    if max_bet is not None and max_bet < min_bet:
        raise fail(f"{where}: max_bet {max_bet} is under min_bet {min_bet}", "max_bet")
    if min_hands > hands:
        raise fail(f"{where}: min_hands {min_hands} is more than the {hands} hands", "min_hands")
    if announce > hands:
        raise fail(
            f"{where}: announce_last {announce} is more than the {hands} hands", "last_hands"
        )
    if final and (advance or wildcards):
        raise fail(
            f"{where} is the final: nobody advances from it",
            "final",
            hint="remove advance and wildcards, or add a session after it",
        )
    if not final and advance < 1:
        raise fail(f"{where}: advance (per table) must be at least 1", "advance")
    if number == 1 and policy is ChipPolicy.CARRY:
        raise fail(f"{where}: the first session has no chips to carry", "session_chips")
    return Session(
        number=number,
        name=name,
        hands=hands,
        min_bet=min_bet,
        max_bet=max_bet,
        min_hands=min_hands,
        announce_last=announce,
        advance=advance,
        wildcards=wildcards,
        chips=policy,
        starting_chips=starting,
        seats=table_seats,
        final=final,
    )


def _load_prizes(raw: Any, final: Session, fail: Fail) -> tuple[PrizeBand, ...]:
    if not isinstance(raw, list):
        raise fail("prizes: a list of [[prizes]] tables", "prizes")
    bands: list[PrizeBand] = []
    expected = 1
    for i, entry in enumerate(raw, start=1):
        if not isinstance(entry, Mapping):
            raise fail(f"prizes[{i}] must be a table", "prizes")
        _known(entry, _PRIZE, f"prizes[{i}]", fail)
        if ("place" in entry) == ("places" in entry):
            raise fail(f"prizes[{i}]: give place = N or places = [FIRST, LAST]", "prizes")
        if "place" in entry:
            first = last = _int(entry, "place", fail, where=f"prizes[{i}]")
        else:
            span = entry["places"]
            if (
                not isinstance(span, list)
                or len(span) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in span)
            ):
                raise fail(f"prizes[{i}].places: [FIRST, LAST]", "prizes")
            first, last = span
        if first != expected or last < first:
            raise fail(
                f"prizes[{i}]: places must follow on from place {expected} without gaps",
                "prizes",
            )
        amount = _money(entry, "amount", fail)
        if bands and amount > bands[-1].amount:
            raise fail(f"prizes[{i}]: place {first} wins more than place {first - 1}", "prizes")
        bands.append(PrizeBand(first, last, amount))
        expected = last + 1
    if bands and bands[-1].last > final.seats:
        raise fail(
            f"prizes go down to place {bands[-1].last}, but the final seats {final.seats}",
            "prizes",
            hint="prizes are for places at the final table",
        )
    return tuple(bands)
