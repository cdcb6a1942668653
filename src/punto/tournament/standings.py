"""Ranking on chips, ties, advancement and final places: pure functions.

The live tournament (:mod:`punto.tournament.tournament`) and the fast
simulation (:mod:`punto.tournament.analysis`) both rank with these, so the
analysis plays by the same competition rules as the real thing.

An entry's *tie-break key* is the tuple of its nets in the sudden-death hands
it played for one ranking (T7.2), followed by its lot if lots were drawn
(T7.3); entries are ranked on chips, then on that key, both higher first.
Entrants still equal on both are tied and share a rank (T7.4).

>>> entries = [Entry("a", 1, 5000), Entry("b", 1, 7000), Entry("c", 1, 5000), Entry("d", 1, 0, eligible=False)]
>>> [(r.entry.entrant, r.rank) for r in rank(entries)]
[('b', 1), ('a', 2), ('c', 2), ('d', 4)]
>>> advancement({1: entries}, advance=2, wildcards=0, keys={}).tie
Tie(scope='table:1', table=1, entrants=('a', 'c'))
>>> keys = {"table:1": {"a": (-1000,), "c": (1000,)}}
>>> advancement({1: entries}, advance=2, wildcards=0, keys=keys).advancing
('b', 'c')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

from punto.money import CENT

#: Tie-break keys by ranking scope ("table:N", "wildcards"), then entrant.
Keys = Mapping[str, Mapping[str, tuple[int, ...]]]


@dataclass(frozen=True, slots=True)
class Entry:
    """An entrant's chips at a table; ``eligible`` is false once out of chips (T6.3)."""

    entrant: str
    table: int
    chips: int
    eligible: bool = True


@dataclass(frozen=True, slots=True)
class Ranked:
    entry: Entry
    rank: int
    key: tuple[int, ...]
    tied: bool


@dataclass(frozen=True, slots=True)
class Tie:
    """Entrants equal on chips where the order decides something (T7.1)."""

    scope: str
    table: int
    entrants: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Advancement:
    advancing: tuple[str, ...]
    #: the first tie that must be broken before anyone can be said to advance
    tie: Tie | None


def table_scope(table: int) -> str:
    return f"table:{table}"


WILDCARDS = "wildcards"


def rank(
    entries: Sequence[Entry], keys: Mapping[str, tuple[int, ...]] | None = None
) -> list[Ranked]:
    """Entries in order: eligible first, then chips, then tie-break key; ties share a rank."""
    keys = keys or {}
    ordered = sorted(entries, key=lambda e: e.entrant)
    ordered.sort(key=lambda e: (e.eligible, e.chips, keys.get(e.entrant, ())), reverse=True)
    out: list[Ranked] = []
    previous: tuple[bool, int, tuple[int, ...]] | None = None
    current = 0
    sig = [(e.eligible, e.chips, keys.get(e.entrant, ())) for e in ordered]
    for i, (entry, s) in enumerate(zip(ordered, sig, strict=True)):
        if s != previous:
            current = i + 1
            previous = s
        tied = (i > 0 and sig[i - 1] == s) or (i + 1 < len(sig) and sig[i + 1] == s)
        out.append(Ranked(entry, current, s[2], tied))
    return out


def _group_at(ranked: Sequence[Ranked], index: int) -> tuple[str, ...]:
    target = ranked[index]
    return tuple(
        r.entry.entrant
        for r in ranked
        if r.entry.chips == target.entry.chips
        and r.key == target.key
        and r.entry.eligible == target.entry.eligible
    )


def cutoff_tie(ranked: Sequence[Ranked], places: int) -> tuple[str, ...] | None:
    """The tied entrants straddling the cut after ``places``, if any."""
    if places <= 0 or len(ranked) <= places:
        return None
    last_in, first_out = ranked[places - 1], ranked[places]
    if last_in.rank == first_out.rank:
        return _group_at(ranked, places - 1)
    return None


def advancement(
    tables: Mapping[int, Sequence[Entry]], *, advance: int, wildcards: int, keys: Keys
) -> Advancement:
    """Who advances: the top ``advance`` with chips at each table, then the
    next ``wildcards`` on chips from every table (T6.2); or the first tie at
    a cut that must be broken first (T7.1)."""
    advancing: list[str] = []
    for table in sorted(tables):
        scope = table_scope(table)
        eligible = [e for e in tables[table] if e.eligible]
        ranked = rank(eligible, keys.get(scope))
        tie = cutoff_tie(ranked, advance)
        if tie is not None:
            return Advancement((), Tie(scope, table, tie))
        advancing.extend(r.entry.entrant for r in ranked[:advance])
    if wildcards:
        chosen = set(advancing)
        pool = [
            e for t in sorted(tables) for e in tables[t] if e.eligible and e.entrant not in chosen
        ]
        ranked = rank(pool, keys.get(WILDCARDS))
        tie = cutoff_tie(ranked, wildcards)
        if tie is not None:
            table = min(e.table for e in pool if e.entrant in tie)
            return Advancement((), Tie(WILDCARDS, table, tie))
        advancing.extend(r.entry.entrant for r in ranked[:wildcards])
    return Advancement(tuple(advancing), None)


def final_tie(
    entries: Sequence[Entry], keys: Mapping[str, tuple[int, ...]], prize: Callable[[int], Decimal]
) -> tuple[str, ...] | None:
    """The first tie at the final table that decides the winner or a prize (T7.1)."""
    ranked = rank(entries, keys)
    i = 0
    while i < len(ranked):
        j = i
        while j + 1 < len(ranked) and ranked[j + 1].rank == ranked[i].rank:
            j += 1
        if j > i:
            first, last = i + 1, j + 1
            prizes = {prize(p) for p in range(first, last + 1)}
            if first == 1 or len(prizes) > 1:
                return tuple(r.entry.entrant for r in ranked[i : j + 1])
        i = j + 1
    return None


@dataclass(frozen=True, slots=True)
class Place:
    entrant: str
    place: int
    prize: Decimal
    #: the session the entrant reached (the final's number for finalists)
    reached: int
    chips: int


def places(
    final: Sequence[Entry],
    final_keys: Mapping[str, tuple[int, ...]],
    eliminated: Sequence[tuple[int, Entry]],
    prize: Callable[[int], Decimal],
    final_session: int,
) -> list[Place]:
    """Every entrant's place (T8.2): the finalists in their final order, then
    the others by the session they reached (later first) and their chips at
    its end.  Tied entrants share a place and split its prizes (T7.4)."""
    rows: list[tuple[str, int, int, tuple[int, ...]]] = []  # entrant, reached, chips, key
    for r in rank(final, final_keys):
        rows.append((r.entry.entrant, final_session, r.entry.chips, r.key))
    rest = sorted(eliminated, key=lambda p: p[1].entrant)
    rest.sort(key=lambda p: (p[0], p[1].chips), reverse=True)
    rows.extend((e.entrant, reached, e.chips, ()) for reached, e in rest)
    out: list[Place] = []
    i = 0
    while i < len(rows):
        j = i
        while j + 1 < len(rows) and rows[j + 1][1:] == rows[i][1:]:
            j += 1
        total = sum((prize(p) for p in range(i + 1, j + 2)), Decimal(0))
        share = (total / (j - i + 1)).quantize(CENT, rounding=ROUND_DOWN)
        for k in range(i, j + 1):
            entrant, reached, chips, _ = rows[k]
            out.append(Place(entrant, i + 1, share, reached, chips))
        i = j + 1
    return out
