"""A game's wagers, compiled once into what the kernel counts.

Each wager event gets a *slot*; the plan lists, for every coup class (or
pair pattern) a wager's kind wins or pushes on, the slot it counts towards.
The kind functions are called once per class and pattern (in
:mod:`punto.analysis.classes`); the kernel only adds up counts.

>>> from punto.rules.games import get_game
>>> plan = plan_for(get_game("tiger-baccarat"), None, PairRule.LITERAL)
>>> [(w.id, w.events) for w in plan.wagers][:4]
[('player', ('win', 'tie')), ('banker', ('win', 'tie')), ('tie', ('tie',)), ('tiger', ('two_cards', 'three_cards'))]
>>> counts = plan.evaluate(Composition.of_decks(8))
>>> counts.total, counts.of("banker", "win"), counts.of("player", "win")
(4998398275503360, 2292252566437888, 2230518282592256)
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from punto.analysis import kernel
from punto.analysis.classes import class_events, pattern_events, pattern_symmetric, patterns
from punto.analysis.composition import Composition
from punto.errors import UnknownGameError
from punto.rules.game import Game, Wager
from punto.rules.games import get_game
from punto.rules.odds import Pays
from punto.rules.wagers import Basis, PairRule, WagerKind


@dataclass(frozen=True)
class PlannedWager:
    """One wager of the plan: its events in the kind's order and their slots.

    ``scale`` is a common denominator of the odds; ``scaled[i]`` is what one
    unit nets on event i times ``scale`` (0 for a push), and a loss nets
    ``-scale``.  ``hits[i]`` tells whether event i is paid.
    """

    id: str
    wager: Wager
    kind: WagerKind
    events: tuple[str, ...]
    pays: tuple[Pays, ...]
    first_slot: int
    scale: int
    scaled: tuple[int, ...]
    hits: tuple[bool, ...]

    @property
    def slots(self) -> range:
        return range(self.first_slot, self.first_slot + len(self.events))

    @classmethod
    def of(cls, wager_id: str, wager: Wager, kind: WagerKind, first_slot: int) -> PlannedWager:
        events = kind.events
        pays = tuple(wager.pays[e] for e in events)
        odds = [p.odds for p in pays]
        scale = math.lcm(1, *(o.denominator for o in odds if o is not None))
        scaled = tuple(0 if o is None else o.numerator * (scale // o.denominator) for o in odds)
        hits = tuple(o is not None and o > 0 for o in odds)
        return cls(wager_id, wager, kind, events, pays, first_slot, scale, scaled, hits)


@dataclass(frozen=True)
class Counts:
    """What the kernel counted for one composition: ordered six-card
    sequences in all, and for each event of each wager."""

    plan: Plan
    composition: Composition
    total: int
    slots: tuple[int, ...]

    def of(self, wager: str, event: str) -> int:
        planned = self.plan.wager(wager)
        return self.slots[planned.first_slot + planned.events.index(event)]

    def events(self, wager: str) -> dict[str, int]:
        """Count of each event of a wager, and of ``lose`` (every other outcome)."""
        planned = self.plan.wager(wager)
        found = {e: self.slots[s] for e, s in zip(planned.events, planned.slots, strict=True)}
        found["lose"] = self.total - sum(found.values())
        return found


@dataclass(frozen=True)
class Plan:
    """The wagers of a game on a layout, read under a pair rule, as slots."""

    game: Game
    layout: str | None
    pair_rule: PairRule
    wagers: tuple[PlannedWager, ...]
    nslots: int
    class_pairs: tuple[tuple[int, int], ...]
    pattern_pairs: tuple[tuple[int, int], ...]
    symmetric: bool
    blob: bytes

    def wager(self, wager_id: str) -> PlannedWager:
        for planned in self.wagers:
            if planned.id == wager_id:
                return planned
        raise KeyError(wager_id)

    def evaluate(self, composition: Composition) -> Counts:
        """Count every event of every wager for one shoe composition."""
        pats = patterns() if self.pattern_pairs else None
        result = kernel.evaluate(
            composition.counts,
            self.blob,
            self.class_pairs,
            self.pattern_pairs,
            self.nslots,
            pats.table if pats is not None else None,
            len(pats) if pats is not None else 0,
            self.symmetric,
        )
        return Counts(self, composition, result[0], result[1:])


def analysable(wagers: Mapping[str, Wager]) -> dict[str, Wager]:
    """The wagers settled on the coup alone (not Insurance Plus, which has
    its own analysis in :mod:`punto.analysis.insurance_values`)."""
    return {wid: w for wid, w in wagers.items() if w.kind is not None}


def plan_for(game: Game, layout: str | None, pair_rule: PairRule) -> Plan:
    """The plan for the wagers ``game`` offers on ``layout`` (all of them
    without a layout), reading Pairs by ``pair_rule``.  Plans of registered
    games are kept."""
    if _registered(game):
        return _registered_plan(game.id, layout, pair_rule)
    return build_plan(game, layout, pair_rule)


def _registered(game: Game) -> bool:
    try:
        return get_game(game.id) is game
    except UnknownGameError:
        return False


@cache
def _registered_plan(game_id: str, layout: str | None, pair_rule: PairRule) -> Plan:
    return build_plan(get_game(game_id), layout, pair_rule)


def build_plan(game: Game, layout: str | None, pair_rule: PairRule) -> Plan:
    """A new plan (see :func:`plan_for`)."""
    planned: list[PlannedWager] = []
    class_pairs: list[tuple[int, int]] = []
    pattern_pairs: list[tuple[int, int]] = []
    symmetric = True
    slot = 0
    for wid, wager in analysable(game.offered(layout)).items():
        kind = wager.kind
        assert kind is not None
        events = kind.events
        planned.append(PlannedWager.of(wid, wager, kind, slot))
        slot_of = {event: slot + i for i, event in enumerate(events)}
        if kind.basis is Basis.CLASS:
            table = class_events(kind, pair_rule)
            pairs = class_pairs
        else:
            table = pattern_events(kind, pair_rule)
            symmetric = symmetric and pattern_symmetric(kind, pair_rule)
            pairs = pattern_pairs
        for index, event in enumerate(table):
            if event is not None:
                pairs.append((index, slot_of[event]))
        slot += len(events)
    npatterns = len(patterns()) if pattern_pairs else 0
    header = [slot, len(class_pairs), len(pattern_pairs), npatterns, int(symmetric)]
    flat = [x for pair in class_pairs + pattern_pairs for x in pair]
    blob = array("i", header + flat).tobytes()
    return Plan(
        game,
        layout,
        pair_rule,
        tuple(planned),
        slot,
        tuple(class_pairs),
        tuple(pattern_pairs),
        symmetric,
        blob,
    )


def kind_counts(
    kind: WagerKind, composition: Composition, pair_rule: PairRule = PairRule.RANK
) -> dict[str, int]:
    """Ordered six-card sequences on which ``kind`` reports each of its
    events, and ``lose`` for the rest: for a wager kind that no game's data
    prices (a published side bet, say), to be priced by the caller.

    >>> from punto.rules.wagers import KINDS
    >>> kind_counts(KINDS["small_tiger"], Composition.of_decks(8))
    {'win': 186173936904192, 'lose': 4812224338599168}
    """
    found = dict.fromkeys(kind.events, 0)
    if kind.basis is Basis.CLASS:
        counts = kernel.class_counts(composition.counts)
        events = class_events(kind, pair_rule)
    else:
        pats = patterns()
        symmetric = pattern_symmetric(kind, pair_rule)
        counts = kernel.pattern_counts(composition.counts, pats.table, len(pats), symmetric)
        events = pattern_events(kind, pair_rule)
    for count, event in zip(counts, events, strict=True):
        if event is not None:
            found[event] += count
    found["lose"] = composition.sequences - sum(found.values())
    return found
