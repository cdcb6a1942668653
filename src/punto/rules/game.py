"""A game: one approved rule set, read from its data file.

Wager *semantics* are Python (:mod:`punto.rules.wagers`); what a wager pays, where
it is offered and which clause says so are data (``games/*.toml``).  The
loader checks the two against each other: every event a wager kind can
report must have a payout, and every layout must name real wagers.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from punto.errors import GameDataError, WagerError
from punto.rules.coup import Side
from punto.rules.insurance import InsuranceTable
from punto.rules.odds import Pays
from punto.rules.roles import Role
from punto.rules.shoe import DeckRange, Shoe
from punto.rules.table_facts import TABLE_FACTS
from punto.rules.wagers import KINDS, PairRule, WagerKind


@dataclass(frozen=True, slots=True)
class Wager:
    """One wager of one game: its kind, its pay table and its clauses."""

    id: str
    name: str
    kind: WagerKind | None
    pays: Mapping[str, Pays]
    clauses: tuple[str, ...]
    #: the layouts offering it (None: every layout of the game)
    layouts: frozenset[str] | None = None
    #: for an Insurance Plus wager, the hand it insures
    insures: Side | None = None

    @property
    def clause(self) -> str:
        return ", ".join(self.clauses)


@dataclass(frozen=True, slots=True)
class Layout:
    """A table layout (an Appendix), its playing positions and its wagers."""

    id: str
    positions: tuple[int, int]
    clause: str
    wagers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LimitPolicy:
    """How the game settles wagers outside the table's limits (named policy and clause)."""

    name: str
    clause: str


#: The procedures that move money outside ordinary settlement, each gated by
#: the clauses of a game's ``[grants]`` table that grant it.  A reconstruction
#: moves cards, and with them the result of wagers.
PROCEDURES = ("withdrawal", "void", "return_bet", "reopen_betting", "reconstruct")
#: The phases of a round a grant may name (``punto.table.round.Phase`` values).
GRANT_PHASES = frozenset({"betting", "dealing", "result", "settled"})
#: What the cards must say when the procedure is taken: some wager decided,
#: none decided, or either.
OUTCOMES = ("established", "not-established", "either")


@dataclass(frozen=True, slots=True)
class Grant:
    """One clause that grants one procedure, and the conditions it sets.

    Read from ``[grants.<procedure>."<clause>"]``: the ``phases`` of the
    round in which it applies, the lowest ``role`` that takes it (MBS 6.2;
    RWS 1.17: or any higher), the ``outcome`` the cards must show (on the
    wagers it ``counts``), the
    number of ``cards`` dealt (inclusive range), an event that must have
    happened first (``after``: ``power_failure``), an irregularity that must
    be recorded in the round first under one of the clauses ``recorded``
    (the simultaneous draw of MBS 5.8.1, the dealing error of RWS 5.13),
    and for a withdrawal
    option what it ``returns``: ``every`` wager (where the conditions leave
    none decided) or the ``remaining`` ones -- a withdrawal never returns a
    wager the cards have decided (docs/interpretations.md).
    """

    clause: str
    procedure: str
    phases: frozenset[str]
    role: Role
    outcome: str
    returns: str | None = None
    cards: tuple[int, int] | None = None
    after: str | None = None
    #: the wagers whose outcome counts for ``outcome`` (None: every wager in play)
    counts: frozenset[str] | None = None
    #: the wagers a returned bet may be (None: any)
    bets: frozenset[str] | None = None
    #: what the clause says, in a few words, for refusals
    words: str = ""
    #: a fact of the table the clause is conditioned on (``table``:
    #: ``electronic_device``, ``face_down``; :mod:`punto.table.facts`)
    table: str | None = None
    #: the clauses one of which an irregularity recorded earlier in the round
    #: must cite (None: no such condition)
    recorded: frozenset[str] | None = None


@dataclass(frozen=True)
class Game:
    id: str
    title: str
    operator: str
    rules_file: str
    version: str
    effective: datetime.date
    decks: DeckRange
    pair_rule: PairRule
    pair_rule_clause: str
    wagers: Mapping[str, Wager]
    layouts: Mapping[str, Layout]
    layout_clause: str
    insurance: InsuranceTable | None = None
    limits: Mapping[str, LimitPolicy] = field(default_factory=dict)
    #: where this rules file writes each table procedure (``[clauses]``)
    clauses: Mapping[str, str] = field(default_factory=dict)
    #: procedure -> clause -> what grants it (``[grants]``)
    grants: Mapping[str, Mapping[str, Grant]] = field(default_factory=dict)

    def grant(self, procedure: str, clause: str) -> Grant | None:
        """The grant of ``procedure`` by ``clause`` in this game, if any."""
        return self.grants.get(procedure, {}).get(clause)

    def granting(self, procedure: str) -> tuple[str, ...]:
        """The clauses of this game that grant ``procedure``."""
        return tuple(self.grants.get(procedure, {}))

    def clause(self, procedure: str) -> str | None:
        """The clause of this game for a named procedure, if it has one."""
        return self.clauses.get(procedure)

    def limit_policy(self, name: str) -> str | None:
        policy = self.limits.get(name)
        return policy.name if policy else None

    @property
    def layouts_differ(self) -> bool:
        """Whether the layouts offer different wagers, so that one must be chosen."""
        return len({layout.wagers for layout in self.layouts.values()}) > 1

    def layout(self, name: str) -> Layout:
        key = name.strip().upper()
        if key not in self.layouts:
            raise WagerError(
                f"{self.id} has no layout {name!r}",
                clause=self.layout_clause,
                hint=f"choose one of {', '.join(self.layouts)}",
            )
        return self.layouts[key]

    def offered(self, layout: str | None = None) -> dict[str, Wager]:
        """The wagers on offer at a table with this layout, in the game's order.

        Without a layout: every wager of the game, which is only right for
        games whose layouts all offer the same wagers; see :meth:`check_layout`.
        """
        if layout is None:
            return dict(self.wagers)
        chosen = self.layout(layout)
        return {wid: self.wagers[wid] for wid in chosen.wagers}

    def check_layout(self, layout: str | None) -> str | None:
        """The layout to play on, or an error if the game needs one chosen."""
        if layout is not None:
            return self.layout(layout).id
        if self.layouts_differ:
            raise WagerError(
                f"{self.id} has {len(self.layouts)} layouts offering different wagers",
                clause=self.layout_clause,
                hint=f"name one of its layouts: {', '.join(self.layouts)}",
            )
        return None

    def wager(self, wager_id: str, layout: str | None = None) -> Wager:
        """The wager ``wager_id`` as offered on ``layout``, or a clear refusal."""
        offered = self.offered(layout)
        if wager_id in offered:
            return offered[wager_id]
        where = f"layout {self.layout(layout).id} of {self.id}" if layout else self.id
        if wager_id in self.wagers:
            found = self.wagers[wager_id]
            raise WagerError(
                f"{wager_id} is not offered on {where}",
                clause=found.clause,
                hint=f"offered: {', '.join(offered)}",
            )
        raise WagerError(
            f"{where} has no wager {wager_id!r}",
            clause=self.layouts[layout.strip().upper()].clause if layout else self.layout_clause,
            hint=f"offered: {', '.join(offered)}",
        )

    def new_shoe(
        self, decks: int, *, seed: int | str | None = None, cut_card: int | None = None
    ) -> Shoe:
        """A shuffled shoe of a deck count this game allows."""
        return Shoe.shuffled(decks, seed=seed, cut_card=cut_card, deck_range=self.decks)


def load_game(data: Mapping[str, Any], source: str) -> Game:
    """Build a :class:`Game` from a parsed data file, checking it as it goes."""

    def fail(message: str) -> GameDataError:
        return GameDataError(f"{source}: {message}")

    try:
        decks = data["decks"]
        wagers: dict[str, Wager] = {}
        for wid, entry in data["wagers"].items():
            wagers[wid] = _load_wager(wid, entry, fail)
        layout_ids = list(data["layouts"])
        layouts: dict[str, Layout] = {}
        for lid, entry in data["layouts"].items():
            offered = tuple(
                wid for wid, w in wagers.items() if w.layouts is None or lid in w.layouts
            )
            low, high = entry["positions"]
            layouts[lid] = Layout(lid, (int(low), int(high)), str(entry["clause"]), offered)
        for w in wagers.values():
            unknown = (w.layouts or frozenset()) - set(layout_ids)
            if unknown:
                raise fail(f"wager {w.id} names unknown layouts {sorted(unknown)}")
        pair = data["pair_rule"]
        insurance = (
            InsuranceTable.from_data(data["insurance"], source) if "insurance" in data else None
        )
        limits = {
            name: LimitPolicy(str(entry["policy"]), str(entry["clause"]))
            for name, entry in data.get("limits", {}).items()
        }
        return Game(
            id=str(data["id"]),
            title=str(data["title"]),
            operator=str(data["operator"]),
            rules_file=str(data["rules_file"]),
            version=str(data["version"]),
            effective=data["effective"],
            decks=DeckRange(int(decks["min"]), int(decks["max"]), str(decks["clause"])),
            pair_rule=PairRule(pair["default"]),
            pair_rule_clause=str(pair["clause"]),
            wagers=wagers,
            layouts=layouts,
            layout_clause=str(data["layout_clause"]),
            insurance=insurance,
            limits=limits,
            clauses={str(k): str(v) for k, v in data.get("clauses", {}).items()},
            grants=_load_grants(data.get("grants", {}), wagers, fail),
        )
    except KeyError as missing:
        raise fail(f"missing entry {missing}") from None
    except (TypeError, ValueError) as bad:
        raise fail(str(bad)) from None


def _wager_set(
    entry: Mapping[str, Any], key: str, wagers: Mapping[str, Wager], where: str, fail: Any
) -> frozenset[str] | None:
    if key not in entry:
        return None
    named = frozenset(str(w) for w in entry[key])
    if not named or named - set(wagers):
        raise fail(f"{where}: {key} must name wagers of the game")
    return named


def _load_grants(
    data: Mapping[str, Any], wagers: Mapping[str, Wager], fail: Any
) -> dict[str, dict[str, Grant]]:
    out: dict[str, dict[str, Grant]] = {}
    for procedure, by_clause in data.items():
        if procedure not in PROCEDURES:
            raise fail(f"grants: no procedure {procedure!r}; known: {', '.join(PROCEDURES)}")
        out[procedure] = {}
        for clause, entry in by_clause.items():
            where = f"grants.{procedure}.{clause!r}"
            phases = frozenset(str(p) for p in entry["phases"])
            if not phases or phases - GRANT_PHASES:
                raise fail(f"{where}: phases must be among {sorted(GRANT_PHASES)}")
            outcome = str(entry["outcome"])
            if outcome not in OUTCOMES:
                raise fail(f"{where}: outcome must be one of {', '.join(OUTCOMES)}")
            returns = entry.get("returns")
            if (returns is not None) != (procedure == "withdrawal"):
                raise fail(f"{where}: returns is given for a withdrawal option, and only there")
            cards = tuple(int(n) for n in entry["cards"]) if "cards" in entry else None
            if cards is not None and (len(cards) != 2 or not 0 <= cards[0] <= cards[1]):
                raise fail(f"{where}: cards is [least, most] cards dealt")
            # "every" wager only where no wager can be decided yet: otherwise the
            # option would take back what the cards already settled.
            if returns == "every" and outcome != "not-established" and (cards or (0, 1))[1] > 0:
                raise fail(f"{where}: returns every wager only when no outcome can be established")
            if returns not in (None, "every", "remaining"):
                raise fail(f"{where}: returns is every or remaining")
            after = entry.get("after")
            if after not in (None, "power_failure"):
                raise fail(f"{where}: after is power_failure or absent")
            recorded = entry.get("recorded")
            if recorded is not None and (
                not isinstance(recorded, list)
                or not recorded
                or not all(isinstance(c, str) and c for c in recorded)
            ):
                raise fail(f"{where}: recorded is a list of the clauses of the triggering event")
            table = entry.get("table")
            if table is not None and table not in TABLE_FACTS:
                raise fail(f"{where}: table is one of {', '.join(TABLE_FACTS)} or absent")
            out[procedure][str(clause)] = Grant(
                str(clause),
                procedure,
                phases,
                Role(str(entry["role"])),
                outcome,
                None if returns is None else str(returns),
                (cards[0], cards[1]) if cards is not None else None,
                None if after is None else str(after),
                _wager_set(entry, "counts", wagers, where, fail),
                _wager_set(entry, "bets", wagers, where, fail),
                str(entry.get("words", "")),
                None if table is None else str(table),
                None if recorded is None else frozenset(recorded),
            )
    return out


def _load_wager(wid: str, entry: Mapping[str, Any], fail: Any) -> Wager:
    clauses = tuple(str(c) for c in entry["clauses"])
    if not clauses:
        raise fail(f"wager {wid} cites no clause")
    layouts = frozenset(entry["layouts"]) if "layouts" in entry else None
    if "insures" in entry:
        return Wager(wid, str(entry["name"]), None, {}, clauses, layouts, Side(entry["insures"]))
    kind_name = str(entry.get("kind", wid))
    if kind_name not in KINDS:
        raise fail(f"wager {wid}: no wager kind {kind_name!r}")
    kind = KINDS[kind_name]
    pays = {event: Pays.parse(str(text)) for event, text in entry["pays"].items()}
    missing = [e for e in kind.events if e not in pays]
    extra = [e for e in pays if e not in kind.events]
    if missing or extra:
        raise fail(
            f"wager {wid} ({kind_name}) pays must cover exactly the events {list(kind.events)}; "
            f"missing {missing}, unknown {extra}"
        )
    return Wager(wid, str(entry["name"]), kind, pays, clauses, layouts)
