"""The odds of every wager of a game, exactly, for one shoe composition.

For each wager: each event's pays, its combinations (ordered six-card
sequences) and probability, the return per unit staked (exact fraction and
float), the house edge (minus the return), the standard deviation of one
unit's result and the hit frequency (the chance it wins anything).

>>> from punto.rules.games import get_game
>>> table = odds_table(get_game("tiger-baccarat"), Composition.of_decks(8))
>>> banker = table.wagers["banker"]
>>> f"{banker.house_edge:.4%}", banker.return_exact
('1.0579%', Fraction(-114753351728, 10847218479825))
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from punto.analysis.composition import RANK_HEADINGS, Composition
from punto.analysis.plan import Counts, PlannedWager, plan_for
from punto.analysis.tabular import Tabular
from punto.rules.game import Game
from punto.rules.odds import Pays
from punto.rules.wagers import PairRule, pair_rule_warning
from punto.words import count

if TYPE_CHECKING:
    import pandas as pd

#: The pays text of the event that collects every other outcome.
LOSE = "lose"


@dataclass(frozen=True)
class EventOdds:
    """One event of a wager: what it pays and how often it happens."""

    event: str
    pays: Pays | None  # None: the wager loses
    combinations: int
    total: int

    @property
    def probability(self) -> Fraction:
        return Fraction(self.combinations, self.total)

    @property
    def pays_text(self) -> str:
        return LOSE if self.pays is None else str(self.pays)

    @property
    def result(self) -> Fraction:
        """What one unit staked nets on this event."""
        if self.pays is None:
            return Fraction(-1)
        return self.pays.odds if self.pays.odds is not None else Fraction(0)


@dataclass(frozen=True)
class WagerOdds:
    """Exact figures of one wager for one composition.

    Internally each result is scaled by a common denominator ``scale`` so that
    the sums stay integers: ``s1 = sum(c * x)``, ``s2 = sum(c * x * x)``.
    """

    id: str
    name: str
    events: tuple[EventOdds, ...]  # the kind's events in order, then "lose"
    total: int

    @classmethod
    def of(
        cls, wager_id: str, name: str, counted: Iterable[tuple[str, Pays, int]], total: int
    ) -> WagerOdds:
        """From (event, pays, combinations) of the winning and pushing events;
        ``lose`` gets the rest of ``total``."""
        events = [EventOdds(e, p, c, total) for e, p, c in counted]
        lost = total - sum(e.combinations for e in events)
        events.append(EventOdds(LOSE, None, lost, total))
        return cls(wager_id, name, tuple(events), total)

    @cached_property
    def _sums(self) -> tuple[int, int, int]:
        scale = 1
        for e in self.events:
            if e.pays is not None and e.pays.odds is not None:
                scale = math.lcm(scale, e.pays.odds.denominator)
        s1 = s2 = 0
        for e in self.events:
            if e.pays is None:
                x = -scale
            elif e.pays.odds is None:
                continue
            else:
                x = e.pays.odds.numerator * (scale // e.pays.odds.denominator)
            s1 += e.combinations * x
            s2 += e.combinations * x * x
        return scale, s1, s2

    @property
    def return_exact(self) -> Fraction:
        """Expected net result of one unit staked."""
        scale, s1, _ = self._sums
        return Fraction(s1, self.total * scale)

    @property
    def return_float(self) -> float:
        scale, s1, _ = self._sums
        return s1 / (self.total * scale)

    @property
    def house_edge(self) -> float:
        """The casino's expected gain per unit staked (minus the return)."""
        return -self.return_float

    @property
    def house_edge_exact(self) -> Fraction:
        return -self.return_exact

    @property
    def variance_exact(self) -> Fraction:
        scale, s1, s2 = self._sums
        return Fraction(s2 * self.total - s1 * s1, (self.total * scale) ** 2)

    @property
    def std_dev(self) -> float:
        """Standard deviation of one unit's net result."""
        scale, s1, s2 = self._sums
        numerator = s2 * self.total - s1 * s1
        return math.sqrt(numerator) / (self.total * scale)

    @property
    def hit_frequency_exact(self) -> Fraction:
        """The chance the wager wins (is paid), pushes not counted."""
        return Fraction(self.hit_combinations, self.total)

    @property
    def hit_frequency(self) -> float:
        return self.hit_combinations / self.total

    @property
    def hit_combinations(self) -> int:
        return sum(
            e.combinations
            for e in self.events
            if e.pays is not None and e.pays.odds is not None and e.pays.odds > 0
        )

    def event(self, name: str) -> EventOdds:
        for e in self.events:
            if e.event == name:
                return e
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        scale, s1, _ = self._sums
        den = self.total * scale
        g = math.gcd(s1, den)
        ret = s1 / den
        return {
            "name": self.name,
            "return": ret,
            "house_edge": -ret,
            "return_exact": f"{s1 // g}/{den // g}",
            "std_dev": self.std_dev,
            "hit_frequency": self.hit_frequency,
            "events": [
                {
                    "event": e.event,
                    "pays": e.pays_text,
                    "combinations": e.combinations,
                    "probability": e.combinations / self.total,
                }
                for e in self.events
            ],
        }


@dataclass(frozen=True)
class OddsTable:
    """Every analysable wager of a game on a layout, for one composition."""

    game: Game
    layout: str | None
    pair_rule: PairRule
    composition: Composition
    counts: Counts

    @property
    def total(self) -> int:
        """Ordered six-card sequences: what every count is out of."""
        return self.counts.total

    @cached_property
    def wagers(self) -> dict[str, WagerOdds]:
        return {p.id: wager_odds(p, self.counts) for p in self.counts.plan.wagers}

    def tabular(self) -> Tabular:
        """One row per wager: house edge, exact return, standard deviation and
        hit frequency (for notebooks: ``_repr_html_``, ``to_frame``)."""
        where = f", layout {self.layout}" if self.layout else ""
        return Tabular(
            f"{self.game.title}{where}: {shoe_words(self.composition)}, pairs read by the "
            f"{self.pair_rule.value} rule (rules version {self.game.version})",
            ("wager", "name", "house edge", "return", "std dev", "hit frequency"),
            tuple(
                (wid, w.name, w.house_edge, w.return_exact, w.std_dev, w.hit_frequency)
                for wid, w in self.wagers.items()
            ),
        )

    def _repr_html_(self) -> str:
        return self.tabular().html()

    def to_frame(self) -> pd.DataFrame:
        """The wagers as a pandas DataFrame (``pip install 'punto[frames]'``)."""
        return self.tabular().frame()

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``punto odds --json``."""
        slots, total = self.counts.slots, self.counts.total
        return {
            "game": self.game.id,
            "layout": self.layout,
            "pair_rule": self.pair_rule.value,
            "decks": self.composition.decks,
            "counts": list(self.composition.counts),
            "total_combinations": total,
            "wagers": {p.id: planned_json(p, slots, total) for p in self.counts.plan.wagers},
            **_warning_json(self.pair_rule),
        }


def _warning_lines(rule: PairRule) -> list[str]:
    """The Markdown page's warning paragraph where pairs are read literally."""
    warning = pair_rule_warning(rule)
    return [] if warning is None else [f"**Warning:** {warning}.", ""]


def _warning_json(rule: PairRule) -> dict[str, str]:
    """``{"pair_rule_warning": ...}`` where pairs are read literally, else nothing."""
    warning = pair_rule_warning(rule)
    return {} if warning is None else {"pair_rule_warning": warning}


def wager_odds(planned: PlannedWager, counts: Counts) -> WagerOdds:
    """The figures of one planned wager from the kernel's counts."""
    slots = counts.slots
    counted = (
        (event, pays, slots[slot])
        for event, pays, slot in zip(planned.events, planned.pays, planned.slots, strict=True)
    )
    return WagerOdds.of(planned.id, planned.wager.name, counted, counts.total)


def planned_json(planned: PlannedWager, slots: Sequence[int], total: int) -> dict[str, Any]:
    """:meth:`WagerOdds.to_json` straight from the counts, for many compositions
    (integer sums with the plan's scaled pays; no fractions on the way)."""
    first = planned.first_slot
    combos = slots[first : first + len(planned.events)]
    lost, s1, s2, hit = wager_sums(planned, slots, total)
    den = total * planned.scale
    g = math.gcd(s1, den)
    ret = s1 / den
    events = [
        {"event": e, "pays": p.text, "combinations": c, "probability": c / total}
        for e, p, c in zip(planned.events, planned.pays, combos, strict=True)
    ]
    events.append({"event": LOSE, "pays": LOSE, "combinations": lost, "probability": lost / total})
    return {
        "name": planned.wager.name,
        "return": ret,
        "house_edge": -ret,
        "return_exact": f"{s1 // g}/{den // g}",
        "std_dev": math.sqrt(s2 * total - s1 * s1) / den,
        "hit_frequency": hit / total,
        "events": events,
    }


def wager_sums(
    planned: PlannedWager, slots: Sequence[int], total: int
) -> tuple[int, int, int, int]:
    """(lost, s1, s2, hit) of a planned wager from the kernel's counts:
    combinations lost, the sums of the scaled result and of its square over
    all ``total`` sequences, and the combinations paid.  The return is
    ``s1 / (total * scale)`` exactly."""
    first = planned.first_slot
    combos = slots[first : first + len(planned.events)]
    lost = total - sum(combos)
    scale = planned.scale
    s1 = -lost * scale
    s2 = lost * scale * scale
    hit = 0
    for c, x, paid in zip(combos, planned.scaled, planned.hits, strict=True):
        s1 += c * x
        s2 += c * x * x
        if paid:
            hit += c
    return lost, s1, s2, hit


def odds_table(
    game: Game,
    composition: Composition,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
) -> OddsTable:
    """The exact odds of every wager ``game`` offers on ``layout`` (without
    one: every wager of the game), Pairs read by ``pair_rule`` (default: the
    game's own reading)."""
    rule = pair_rule or game.pair_rule
    counts = plan_for(game, layout, rule).evaluate(composition)
    return OddsTable(game, layout, rule, composition, counts)


# -- text forms -------------------------------------------------------------------------

CSV_COLUMNS = (
    "game",
    "layout",
    "pair_rule",
    "decks",
    "counts",
    "wager",
    "event",
    "pays",
    "combinations",
    "probability",
    "return",
    "house_edge",
    "return_exact",
    "std_dev",
    "hit_frequency",
)


def to_csv(tables: Sequence[OddsTable]) -> str:
    """One row per event of every wager, the wager's figures repeated."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for table in tables:
        data = table.to_json()
        for wid, w in data["wagers"].items():
            for e in w["events"]:
                writer.writerow(
                    [
                        table.game.id,
                        table.layout or "",
                        table.pair_rule.value,
                        table.composition.decks or "",
                        table.composition.text(),
                        wid,
                        e["event"],
                        e["pays"],
                        e["combinations"],
                        repr(e["probability"]),
                        repr(w["return"]),
                        repr(w["house_edge"]),
                        w["return_exact"],
                        repr(w["std_dev"]),
                        repr(w["hit_frequency"]),
                    ]
                )
    return out.getvalue()


def shoe_words(composition: Composition) -> str:
    """``8 decks`` or the counts with their ranks."""
    if composition.decks is not None:
        return count(composition.decks, "deck")
    pairs = " ".join(f"{r}:{c}" for r, c in zip(RANK_HEADINGS, composition.counts, strict=True))
    return f"{composition.total} cards ({pairs})"


def to_markdown(table: OddsTable) -> str:
    """A Markdown page: the summary of every wager, then each wager's events."""
    where = f", layout {table.layout}" if table.layout else ""
    lines = [
        f"# {table.game.title}{where}: exact odds",
        "",
        f"Shoe: {shoe_words(table.composition)}; pairs read by the "
        f"{table.pair_rule.value} rule; {table.total:,} ordered six-card sequences.",
        "",
        *_warning_lines(table.pair_rule),
        "| wager | house edge | return (exact) | std. dev. | hit frequency |",
        "|---|---:|---:|---:|---:|",
    ]
    for wid, w in table.wagers.items():
        lines.append(
            f"| {w.name} (`{wid}`) | {w.house_edge:.4%} | {w.return_exact} | "
            f"{w.std_dev:.4f} | {w.hit_frequency:.4%} |"
        )
    for wid, w in table.wagers.items():
        lines += [
            "",
            f"## {w.name} (`{wid}`)",
            "",
            "| event | pays | combinations | probability | contribution |",
            "|---|---|---:|---:|---:|",
        ]
        for e in w.events:
            contribution = float(e.result) * e.combinations / e.total
            lines.append(
                f"| {e.event} | {e.pays_text} | {e.combinations:,} | "
                f"{e.combinations / e.total:.8f} | {contribution:+.8f} |"
            )
    return "\n".join(lines) + "\n"
