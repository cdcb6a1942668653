"""What a format does to who wins: many tournaments, simulated fast.

Organisers choose the hands per session, the minimum bet and how many
advance; this module plays thousands of tournaments of automated entrants
(:mod:`punto.tournament.strategies`) under a format and its variants and
counts what happened: how often the chip leader at half-way through a
session goes on to advance, how often the final's half-way leader wins,
which kind of player wins, how many ties needed a sudden-death hand.

Speed comes from dealing *outcomes*, not cards.  Every wager of the
tournament game depends only on the winner and on whether each hand's first
two cards are a Pair, so a coup is one of twelve outcomes.  Their exact
probabilities for a full shoe are counted here from the Table of Play
(:mod:`punto.rules.tableau`), and agree with :mod:`punto.analysis` on every
wager; what each wager nets on each outcome comes from
:func:`punto.rules.settlement.settle` on a real coup of that outcome.  The bets
go through the same checks as the live tournament
(:func:`~punto.tournament.tournament.bet_lines`) and the standings through
the same ranking, advancement and tie-break functions
(:mod:`punto.tournament.standings`).

Two simplifications, both small: each coup is drawn from a full shoe (the
cards already dealt from the shoe are not removed), and a sudden-death hand
is bet as in the live tournament but against outcome probabilities too.

>>> from punto.tournament.formats import get_format
>>> model = outcome_model("baccarat-tournament", 8)
>>> round(sum(p for (w, _, _), p in zip(model.outcomes, model.probabilities) if w == "banker"), 6)
0.458597
>>> report = analyse(get_format("turbo"), entrants=12, tournaments=20, seed=1)
>>> report.rows[0].tournaments
20
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from punto.analysis.tabular import Tabular
from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Coup
from punto.rules.games import get_game
from punto.rules.settlement import Bet, settle
from punto.rules.tableau import banker_draws, player_draws
from punto.tournament.errors import TournamentError
from punto.tournament.format import ChipPolicy, Format, Session, balanced_sizes
from punto.tournament.standings import (
    WILDCARDS,
    Entry,
    Keys,
    advancement,
    final_tie,
    rank,
    table_scope,
)
from punto.tournament.strategies import STRATEGIES, HandView, Strategy
from punto.tournament.tournament import SUDDEN_DEATH_WAGERS, bet_lines
from punto.words import count

if TYPE_CHECKING:
    import pandas as pd

#: (winner, Player pair, Banker pair)
Outcome = tuple[str, bool, bool]


@dataclass(frozen=True)
class OutcomeModel:
    """The twelve outcomes of a coup, their exact weights (ordered six-card
    sequences of a full shoe) and what one chip on each wager nets on each."""

    outcomes: tuple[Outcome, ...]
    weights: tuple[int, ...]
    #: wager -> net of a one-chip bet, per outcome
    nets: dict[str, tuple[int, ...]]
    examples: tuple[Coup, ...]

    @property
    def probabilities(self) -> tuple[float, ...]:
        total = sum(self.weights)
        return tuple(w / total for w in self.weights)

    @property
    def cumulative(self) -> list[float]:
        return list(accumulate(self.probabilities))


def _winner(p: int, b: int) -> str:
    return "player" if p > b else "banker" if b > p else "tie"


@cache
def outcome_model(game_id: str, decks: int) -> OutcomeModel:
    """Exact outcome weights for a full shoe of ``decks`` decks."""
    game = get_game(game_id)
    ranks = list(Rank)
    points = [r.points for r in ranks]
    counts = [4 * decks] * 13
    total = 52 * decks
    rest = total - 4
    weights: dict[Outcome, int] = {}
    examples: dict[Outcome, list[tuple[int, int, int, int, int | None, int | None]]] = {}
    memo: dict[tuple[int, int, tuple[int, ...]], list[tuple[str, int, int | None, int | None]]] = {}
    base_values = [0] * 10
    for r, c in zip(ranks, counts, strict=True):
        base_values[r.points] += c

    def completions(
        p: int, b: int, removed: tuple[int, ...]
    ) -> list[tuple[str, int, int | None, int | None]]:
        key = (p, b, removed)
        found = memo.get(key)
        if found is not None:
            return found
        n = list(base_values)
        for v in removed:
            n[v] -= 1
        out: dict[str, int] = {}
        example: dict[str, tuple[int | None, int | None]] = {}

        def add(w: str, weight: int, e: int | None, f: int | None) -> None:
            if weight:
                out[w] = out.get(w, 0) + weight
                example.setdefault(w, (e, f))

        if player_draws(p, b):
            for e in range(10):
                if not n[e]:
                    continue
                pt = (p + e) % 10
                if banker_draws(p, b, e):
                    n[e] -= 1
                    for f in range(10):
                        add(_winner(pt, (b + f) % 10), (n[e] + 1) * n[f], e, f)
                    n[e] += 1
                else:
                    add(_winner(pt, b), n[e] * (rest - 1), e, None)
        elif banker_draws(p, b, None):
            for f in range(10):
                add(_winner(p, (b + f) % 10), n[f] * (rest - 1), None, f)
        else:
            add(_winner(p, b), rest * (rest - 1), None, None)
        result = [(w, wt, *example[w]) for w, wt in out.items()]
        memo[key] = result
        return result

    left = list(counts)
    for r1 in range(13):
        w1 = left[r1]
        left[r1] -= 1
        for r2 in range(13):
            w2 = w1 * left[r2]
            left[r2] -= 1
            for r3 in range(13):
                w3 = w2 * left[r3]
                left[r3] -= 1
                for r4 in range(13):
                    w4 = w3 * left[r4]
                    if not w4:
                        continue
                    v1, v2, v3, v4 = points[r1], points[r2], points[r3], points[r4]
                    p, b = (v1 + v3) % 10, (v2 + v4) % 10
                    pairs = (r1 == r3, r2 == r4)
                    for w, weight, e, f in completions(p, b, tuple(sorted((v1, v2, v3, v4)))):
                        key = (w, *pairs)
                        weights[key] = weights.get(key, 0) + w4 * weight
                        seen = examples.setdefault(key, [])
                        if len(seen) < 3 or (r1 >= 9 and len(seen) < 6):
                            seen.append((r1, r2, r3, r4, e, f))
                left[r3] += 1
            left[r2] += 1
        left[r1] += 1

    outcomes = tuple(sorted(weights, key=lambda k: (k[0], k[1], k[2])))
    coups: list[Coup] = []
    nets: dict[str, list[int]] = {w: [] for w in game.offered()}
    suits = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
    for o in outcomes:
        found: dict[str, set[int]] = {w: set() for w in nets}
        first: Coup | None = None
        for r1, r2, r3, r4, e, f in examples[o]:
            cards = [
                Card(ranks[r1], suits[0]),
                Card(ranks[r2], suits[1]),
                Card(ranks[r3], suits[2]),
                Card(ranks[r4], suits[3]),
            ]
            if e is not None:
                cards.append(Card(Rank.TEN if e == 0 else Rank(e), suits[0]))
            if f is not None:
                cards.append(Card(Rank.TEN if f == 0 else Rank(f), suits[1]))
            coup = Coup.from_cards(cards)
            first = first or coup
            for w in nets:
                result = settle(game, coup, [Bet(w, Decimal(1))], minor_unit=Decimal("0.0001"))
                found[w].add(_whole(result.net, w))
        for w in nets:
            if len(found[w]) != 1:
                raise TournamentError(
                    f"{game.id}: wager {w} does not depend on the winner and pairs alone",
                    hint="the fast simulation cannot play this game",
                )
            nets[w].append(found[w].pop())
        assert first is not None
        coups.append(first)
    return OutcomeModel(
        outcomes,
        tuple(weights[o] for o in outcomes),
        {w: tuple(v) for w, v in nets.items()},
        tuple(coups),
    )


def _whole(net: Decimal, wager: str) -> int:
    if net != net.to_integral_value():
        raise TournamentError(
            f"wager {wager} does not pay whole chips", hint="the fast simulation needs whole odds"
        )
    return int(net)


# -- one simulated tournament -----------------------------------------------------------


@dataclass
class Tally:
    """What many simulated tournaments did."""

    tournaments: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    paid: Counter[str] = field(default_factory=Counter)
    entered: Counter[str] = field(default_factory=Counter)
    leaders: int = 0
    leaders_advanced: int = 0
    final_leaders: int = 0
    final_leaders_won: int = 0
    sudden_death_hands: int = 0
    lots: int = 0
    ties: int = 0
    busted: int = 0
    seats: int = 0
    reentries: int = 0


class _Sim:
    def __init__(
        self, fmt: Format, mix: Sequence[str], entrants: int, tables: int | None, rng: random.Random
    ) -> None:
        self.fmt = fmt
        self.model = outcome_model(fmt.game_id, fmt.decks)
        self.cum = self.model.cumulative
        self.idx = range(len(self.model.outcomes))
        self.nets = self.model.nets
        self.strategies: list[Strategy] = [STRATEGIES[mix[i % len(mix)]] for i in range(entrants)]
        self.kinds = [mix[i % len(mix)] for i in range(entrants)]
        self.entrants = entrants
        self.tables = fmt.plan(entrants, tables)[0].tables
        self.rng = rng
        self._cache: dict[tuple[Any, ...], tuple[int, ...] | None] = {}

    def outcome(self) -> int:
        return self.rng.choices(self.idx, cum_weights=self.cum)[0]

    def play(self, tally: Tally) -> None:
        fmt, rng = self.fmt, self.rng
        chips = [0] * self.entrants
        active = list(range(self.entrants))
        entries = [1] * self.entrants
        for kind in self.kinds:
            tally.entered[kind] += 1
        for s in fmt.sessions:
            tables = (
                self.tables if s.number == 1 else (1 if s.final else -(-len(active) // s.seats))
            )
            order = list(active)
            rng.shuffle(order)
            seating: list[list[int]] = []
            start = 0
            for size in balanced_sizes(len(order), tables):
                seating.append(order[start : start + size])
                start += size
            for e in active:
                if s.chips is ChipPolicy.RESET:
                    chips[e] = s.starting_chips
            bet_count = [0] * self.entrants
            half_leaders: dict[int, int] = {}
            for number, seated in enumerate(seating, start=1):
                leader = self._session_at_table(s, seated, chips, bet_count, entries, tally)
                if leader is not None:
                    half_leaders[number] = leader
            table_entries = {
                number: [
                    Entry(str(e), number, chips[e], s.final or chips[e] >= s.min_bet)
                    for e in seated
                ]
                for number, seated in enumerate(seating, start=1)
            }
            for seated in seating:
                tally.seats += len(seated)
                tally.busted += sum(1 for e in seated if chips[e] < s.min_bet)
            if s.final:
                (final_entries,) = table_entries.values()
                keys = self._break_ties_final(s, final_entries, tally)
                winner = int(rank(final_entries, keys.get(table_scope(1)))[0].entry.entrant)
                tally.wins[self.kinds[winner]] += 1
                for r in rank(final_entries, keys.get(table_scope(1))):
                    if fmt.prize(r.rank) > 0:
                        tally.paid[self.kinds[int(r.entry.entrant)]] += 1
                if 1 in half_leaders:
                    tally.final_leaders += 1
                    tally.final_leaders_won += half_leaders[1] == winner
                break
            advancing = self._advance(s, table_entries, tally)
            chosen = {int(a) for a in advancing}
            for leader in half_leaders.values():
                tally.leaders += 1
                tally.leaders_advanced += leader in chosen
            active = [int(a) for a in advancing]
        tally.tournaments += 1

    def _session_at_table(
        self,
        s: Session,
        seated: list[int],
        chips: list[int],
        bet_count: list[int],
        entries: list[int],
        tally: Tally,
    ) -> int | None:
        fmt, rng = self.fmt, self.rng
        required = s.min_hands
        advance = 1 if s.final else s.advance
        half = s.hands // 2
        leader: int | None = None
        reg = fmt.registration
        outcomes = rng.choices(self.idx, cum_weights=self.cum, k=s.hands)
        for hand in range(1, s.hands + 1):
            if s.number == 1 and reg.reentries and hand <= reg.reentry_until_hand:
                for e in seated:
                    if chips[e] < s.min_bet and entries[e] <= reg.reentries:
                        entries[e] += 1
                        chips[e] = s.starting_chips
                        tally.reentries += 1
            able = [e for e in seated if chips[e] >= s.min_bet]
            ranked = sorted((chips[e] for e in able), reverse=True)
            placed: list[tuple[int, tuple[int, ...]]] = []
            for e in able:
                mine = chips[e]
                i = ranked.index(mine)
                view = HandView(
                    chips=mine,
                    hand=hand,
                    hands=s.hands,
                    min_bet=s.min_bet,
                    max_bet=s.max_bet,
                    chip_unit=fmt.chip_unit,
                    hands_bet=bet_count[e],
                    required=required,
                    advance=advance,
                    rivals=(*ranked[:i], *ranked[i + 1 :]),
                    wagers=fmt.wagers,
                    starting_chips=s.starting_chips,
                    rng=rng,
                )
                bets = self.strategies[e].bets(view)
                vector = None if bets is None else self._vector(s, mine, bets)
                if vector is None and view.must_bet:
                    vector = self._vector(s, mine, [("banker", s.min_bet)])
                if vector is not None:
                    placed.append((e, vector))
            o = outcomes[hand - 1]
            for e, vector in placed:
                chips[e] += vector[o]
                bet_count[e] += 1
            if hand == half:
                top = max((chips[e] for e in seated), default=0)
                leaders = [e for e in seated if chips[e] == top]
                leader = leaders[0] if len(leaders) == 1 else None
        return leader

    def _vector(
        self, s: Session, chips: int, bets: list[tuple[str, int]]
    ) -> tuple[int, ...] | None:
        """What the bets net on each outcome, or None if the format refuses
        them (checked once per kind of bet by the live tournament's rules)."""
        total = sum(stake for _, stake in bets)
        key = (s.number, tuple(bets), total <= chips)
        if key in self._cache:
            return self._cache[key]
        try:
            lines = bet_lines(self.fmt, s, chips, bets)
        except TournamentError:
            vector = None
        else:
            vector = tuple(sum(x.stake * self.nets[x.wager][o] for x in lines) for o in self.idx)
        self._cache[key] = vector
        return vector

    def _sudden_death(
        self,
        s: Session,
        tie: tuple[str, ...],
        scope: str,
        keys: dict[str, dict[str, tuple[int, ...]]],
        tally: Tally,
    ) -> None:
        scoped = keys.setdefault(scope, {})
        played = len(scoped.get(tie[0], ()))
        tally.ties += played == 0
        if played >= self.fmt.sudden_death_hands:
            order = list(tie)
            self.rng.shuffle(order)
            for i, e in enumerate(order):
                scoped[e] = (*scoped.get(e, ()), len(order) - i)
            tally.lots += 1
            return
        o = self.outcome()
        tally.sudden_death_hands += 1
        taken: set[str] = set()
        for e in tie:  # the next entrant takes the side still open (T7.2)
            side = self.strategies[int(e)].tiebreak(self.rng)
            if side in taken and len(taken) < len(SUDDEN_DEATH_WAGERS):
                side = next(w for w in SUDDEN_DEATH_WAGERS if w not in taken)
            taken.add(side)
            scoped[e] = (*scoped.get(e, ()), s.min_bet * self.nets[side][o])

    def _advance(
        self, s: Session, table_entries: dict[int, list[Entry]], tally: Tally
    ) -> tuple[str, ...]:
        keys: dict[str, dict[str, tuple[int, ...]]] = {}
        while True:
            adv = advancement(table_entries, advance=s.advance, wildcards=s.wildcards, keys=keys)
            if adv.tie is None:
                return adv.advancing
            self._sudden_death(s, adv.tie.entrants, adv.tie.scope, keys, tally)

    def _break_ties_final(self, s: Session, entries: list[Entry], tally: Tally) -> Keys:
        keys: dict[str, dict[str, tuple[int, ...]]] = {}
        scope = table_scope(1)
        while True:
            tie = final_tie(entries, keys.get(scope, {}), self.fmt.prize)
            if tie is None:
                return keys
            self._sudden_death(s, tie, scope, keys, tally)


# -- many tournaments, and variants ---------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One format (or variant) and what its simulated tournaments did."""

    label: str
    format: Format
    tournaments: int
    tally: Tally
    seconds: float

    def _share(self, a: int, b: int) -> float | None:
        return a / b if b else None

    @property
    def leader_advances(self) -> float | None:
        return self._share(self.tally.leaders_advanced, self.tally.leaders)

    @property
    def final_leader_wins(self) -> float | None:
        return self._share(self.tally.final_leaders_won, self.tally.final_leaders)

    def win_share(self, strategy: str) -> float:
        return self.tally.wins[strategy] / self.tournaments if self.tournaments else 0.0

    def win_rate_per_entrant(self, strategy: str) -> float | None:
        """Wins per entrant of a strategy (1/entrants for a strategy that is no better)."""
        entered = self.tally.entered[strategy]
        return self.tally.wins[strategy] / entered if entered else None

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        first = self.format.sessions[0]
        return {
            "label": self.label,
            "format": self.format.id,
            "hands": first.hands,
            "min_bet": first.min_bet,
            "max_bet": first.max_bet,
            "advance": first.advance,
            "tournaments": self.tournaments,
            "leader_at_half_advances": self.leader_advances,
            "final_leader_at_half_wins": self.final_leader_wins,
            "wins": dict(sorted(t.wins.items())),
            "in_the_money": dict(sorted(t.paid.items())),
            "entered": dict(sorted(t.entered.items())),
            "ties_per_tournament": t.ties / self.tournaments if self.tournaments else 0,
            "sudden_death_hands_per_tournament": t.sudden_death_hands / self.tournaments
            if self.tournaments
            else 0,
            "lots": t.lots,
            "out_of_chips": t.busted / t.seats if t.seats else 0,
            "reentries": t.reentries,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class Report:
    entrants: int
    tables: int | None
    mix: tuple[str, ...]
    seed: int | str
    rows: tuple[Row, ...]

    def tabular(self) -> Tabular:
        """One row per variant: the leaders' chances and each kind's share of
        the wins (for notebooks)."""
        mix = list(dict.fromkeys(self.mix))
        return Tabular(
            f"{self.rows[0].tournaments:,} simulated tournaments per variant, "
            f"{self.entrants} entrants, seed {self.seed}",
            ("variant", "leader advances", "final leader wins", *(f"wins: {m}" for m in mix)),
            tuple(
                (r.label, r.leader_advances, r.final_leader_wins, *(r.win_share(m) for m in mix))
                for r in self.rows
            ),
        )

    def _repr_html_(self) -> str:
        return self.tabular().html()

    def to_frame(self) -> pd.DataFrame:
        """The variants as a pandas DataFrame (``pip install 'punto[frames]'``)."""
        return self.tabular().frame()

    def to_json(self) -> dict[str, Any]:
        return {
            "entrants": self.entrants,
            "tables": self.tables,
            "mix": list(self.mix),
            "seed": self.seed,
            "model": "outcomes from a full shoe, exact probabilities; see docs/tournament.md",
            "variants": [r.to_json() for r in self.rows],
        }


def variant(
    fmt: Format, *, hands: int | None = None, min_bet: int | None = None, advance: int | None = None
) -> Format:
    """``fmt`` with every session before the final changed: the hands (the
    minimum hands and the late-registration and re-entry hands scaled with
    them), the minimum bet, or the number advancing from each table."""
    changes: dict[str, Any] = {}
    data = fmt.data
    first = fmt.sessions[0]
    label = [fmt.id]
    if hands is not None:
        changes["session_hands"] = hands
        scale = hands / first.hands
        if len(fmt.sessions) > 1:
            changes["session_min_hands"] = min(hands, round(first.min_hands * scale))
            changes["session_announce_last"] = min(hands, first.announce_last)
        reg = dict(data.get("registration", {}))
        for key in ("late_until_hand", "reentry_until_hand"):
            if reg.get(key):
                reg[key] = max(1, min(hands, round(reg[key] * scale)))
        changes["registration"] = reg
        label.append(f"hands={hands}")
    if min_bet is not None:
        changes["session_min_bet"] = min_bet
        label.append(f"min_bet={min_bet}")
    if advance is not None:
        changes["session_advance"] = advance
        label.append(f"advance={advance}")
    if not changes:
        return fmt
    changes["id"] = " ".join(label)
    return fmt.replace(check_entrants=False, **changes)


ProgressFn = Callable[[int, int], None]


def analyse(
    fmt: Format,
    *,
    entrants: int,
    tables: int | None = None,
    tournaments: int = 1000,
    seed: int | str = 0,
    mix: Sequence[str] = ("banker", "flat", "catchup", "pairs"),
    hands: Sequence[int] = (),
    min_bets: Sequence[int] = (),
    advances: Sequence[int] = (),
) -> Report:
    """Simulate ``tournaments`` tournaments of the format, and of each variant
    named by ``hands``, ``min_bets`` and ``advances`` (every combination)."""
    for name in mix:
        if name not in STRATEGIES:
            raise TournamentError(
                f"no automated entrant {name!r}", hint=f"choose from {', '.join(STRATEGIES)}"
            )
    if tournaments < 1:
        raise TournamentError("simulate at least one tournament")
    registration = fmt.registration
    if not registration.min_entrants <= entrants <= registration.max_entrants:
        raise TournamentError(
            f"{count(entrants, 'entrant')}: format {fmt.id} takes "
            f"{registration.min_entrants} to {registration.max_entrants} entrants",
            clause=fmt.rule("registration"),
        )
    variants: list[tuple[str, Format]] = []
    for h in hands or (None,):
        for m in min_bets or (None,):
            for a in advances or (None,):
                v = variant(fmt, hands=h, min_bet=m, advance=a)
                v.plan(entrants, tables)
                label = v.id if v is not fmt else fmt.id
                variants.append((label, v))
    rows = []
    for i, (label, v) in enumerate(variants):
        rng = random.Random(f"punto-tournament-analysis:{seed}:{i}")
        sim = _Sim(v, tuple(mix), entrants, tables, rng)
        tally = Tally()
        started = time.perf_counter()
        for _ in range(tournaments):
            sim.play(tally)
        rows.append(Row(label, v, tournaments, tally, time.perf_counter() - started))
    return Report(entrants, tables, tuple(mix), seed, tuple(rows))


__all__ = [
    "WILDCARDS",
    "OutcomeModel",
    "Report",
    "Row",
    "Tally",
    "analyse",
    "outcome_model",
    "variant",
]
