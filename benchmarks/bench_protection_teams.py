"""Benchmark of game protection through the server's own feed:
teams, positive value at a flat stake, one-off dilution bets, false alarms.

::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_protection_teams.py                   # the published run
    PYTHONPATH=src .venv/bin/python benchmarks/bench_protection_teams.py --careers 4 --shoes 10  # a quick look

Every table is fed as :class:`punto.server.tables.advantage.AdvantageWatch` feeds
it: only the rounds somebody bet in; each player's stake-and-value detector
(:mod:`punto.protection.detection`) through their sessions
(:mod:`punto.protection.sessions`: every round from their first bet to their
last, a gap of more than 80 rounds ending it); and the table's tests and each
player's value test (:mod:`punto.protection.tablewide`) on every such round.
Shoes of 8 decks, cut card 14 from the end, no burn, shuffled by
:class:`random.Random` seeded per shoe and dealt by the engine; every
watched wager of Tiger Baccarat valued exactly on the cards seen.  Each
career starts every table afresh (new detectors, new sessions).

Tables, all dealt the same shoes:

* **team**: a spotter betting Banker 25 every round; a big player who comes
  in when the Big Tiger true count reaches +8, bets Big Tiger 1,000 every
  round while it stays there, and leaves, under a fresh name each time; two
  flat bettors on Big Tiger (a quarter of the rounds, stakes 25-100 at random)
  as cover.  Reported: shoes to the first alert of a table's test, and to
  the first alert naming a big player.
* **null**: a Banker bettor every round and flat bettors on Big Tiger (4 at
  5% and 4 at 25% of rounds, stakes 25-100 at random): every alert a false
  one, per 100 shoes for the table's tests and per 100 bettor-shoes for the
  players'.
* **counter** (Big Tiger counter behind a flat Banker 100, side stake 25-100
  at random), the same with **one bet of 25 on each of the four other side
  bets** at the first round (dilution), and the **side-bet-only** counter
  (no Banker bet): shoes to the counter's first alert.
* **flat positive value**: a flat bettor on Tiger Pair read literally (+37.7%
  off the top), stake 25 on a quarter of the rounds: bets to the first alert.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from punto.analysis.composition import Composition
from punto.protection.detection import THRESHOLD_PRESETS, Detector
from punto.protection.players import ShoeView, big_tiger_counter
from punto.protection.sessions import Sessions
from punto.protection.tablewide import TABLE, TABLE_PRESETS, TableWatch
from punto.protection.tails import poisson_interval
from punto.protection.valuation import wager_returns, watched_wagers
from punto.protection.value import VALUE_PRESETS
from punto.rules.cards import DECK
from punto.rules.games import get_game
from punto.sim.reference import deal_shoe
from punto.sim.run import ShoeRules

RULES = ShoeRules(decks=8, behind=14)
STAKE_AND_VALUE = "stake and value"
Bets = list[tuple[str, str, int]]


@dataclass
class Raised:
    """One alert: the preset, the test, who (TABLE for the table's), the wager."""

    preset: str
    test: str
    player: str
    wager: str


class ServerFeed:
    """One table fed as the server feeds it, for every preset at once."""

    def __init__(self, watched: Sequence[str]) -> None:
        self.watched = tuple(watched)
        self.sessions = Sessions()
        self.detectors: dict[tuple[str, str], Detector] = {}
        self.watches = {
            name: TableWatch(TABLE_PRESETS[name], VALUE_PRESETS[name]) for name in THRESHOLD_PRESETS
        }

    def round(self, round_id: str, returns: dict[str, Fraction], bets: Bets) -> list[Raised]:
        if not bets:
            return []  # nobody bet: the server values (and feeds) nothing
        out: list[Raised] = []
        fed = self.sessions.round(round_id, returns, self.watched, bets)
        for player, rounds in fed.items():
            for name, thresholds in THRESHOLD_PRESETS.items():
                detector = self.detectors.get((name, player))
                if detector is None:
                    detector = self.detectors[(name, player)] = Detector(thresholds)
                for observations in rounds:
                    alert = detector.observe(observations)
                    if alert is not None:
                        out.append(Raised(name, STAKE_AND_VALUE, player, alert.wager))
        for name, watch in self.watches.items():
            for f in watch.round(round_id, returns, self.watched, bets):
                out.append(Raised(name, f.test, f.player, f.wager))
        return out


@dataclass
class Delays:
    """Shoes (or bets) to the first alert, per preset, over careers."""

    firsts: dict[str, list[int | None]] = field(default_factory=dict)

    def add(self, found: dict[str, int | None]) -> None:
        for name in THRESHOLD_PRESETS:
            self.firsts.setdefault(name, []).append(found.get(name))

    def summary(self, horizon: int) -> dict[str, Any]:
        return {
            name: {
                "flagged": sum(1 for f in firsts if f is not None),
                "careers": len(firsts),
                "median": _quantile(firsts, 0.5, horizon),
                "p95": _quantile(firsts, 0.95, horizon),
            }
            for name, firsts in self.firsts.items()
        }


def _quantile(firsts: list[int | None], q: float, horizon: int) -> str:
    ranked = sorted(math.inf if f is None else f for f in firsts)
    value = ranked[min(len(ranked) - 1, math.ceil(q * len(ranked)) - 1)]
    return f"> {horizon}" if value == math.inf else str(int(value))


def _first(found: dict[str, int | None], raised: list[Raised], when: int, keep: Any) -> None:
    for r in raised:
        if keep(r) and found.get(r.preset) is None:
            found[r.preset] = when


def run(careers: int, shoes: int, seed: int) -> dict[str, Any]:
    tiger = get_game("tiger-baccarat")
    rule = tiger.pair_rule  # Tiger Pair read literally: +37.7% off the top
    watched = watched_wagers(tiger, None)
    others = [w for w in watched if w != "big_tiger"]
    counter = big_tiger_counter()
    cache: dict[tuple[int, ...], dict[str, Fraction]] = {}

    def values(comp: Composition) -> dict[str, Fraction]:
        found = cache.get(comp.counts)
        if found is None:
            found = cache[comp.counts] = dict(wager_returns(tiger, None, rule, comp))
        return found

    delays = {k: Delays() for k in ("team_table", "team_player", "counter", "diluted", "side_only")}
    positive_bets = Delays()
    null_alerts: dict[tuple[str, str], int] = {}
    null_bets = {"5%": 0, "25%": 0}
    team_bets = big_entries = 0
    coups = 0
    started, cpu = time.perf_counter(), time.process_time()
    for career in range(careers):
        rng = random.Random(f"{seed}-{career}")
        feeds = {k: ServerFeed(watched) for k in ("team", "null", "c", "d", "s", "p")}
        first: dict[str, dict[str, int | None]] = {k: {} for k in delays}
        positive_first: dict[str, int | None] = {}
        positive_count = 0
        big: str | None = None
        entries = 0
        for s in range(1, shoes + 1):
            cards = list(DECK) * RULES.decks
            random.Random(f"{seed}-{career}-{s}").shuffle(cards)
            view = ShoeView(RULES.decks)
            for n, coup in enumerate(deal_shoe(cards, RULES.cut)):
                coups += 1
                rid = f"{career}-{s}-{n}"
                returns = values(view.composition)
                high = counter.true_count(view) >= counter.threshold
                # the team: spotter, big player under a fresh name, two flat covers
                bets: Bets = [("spotter", "banker", 25)]
                if high:
                    if big is None:
                        entries += 1
                        big = f"big-{career}-{entries}"
                    bets.append((big, "big_tiger", 1000))
                    team_bets += 1
                else:
                    big = None
                for k in range(2):
                    if rng.random() < 0.25:
                        bets.append((f"cover-{k}", "big_tiger", rng.randint(25, 100)))
                raised = feeds["team"].round(rid, returns, bets)
                _first(first["team_table"], raised, s, lambda r: r.player == TABLE)
                _first(first["team_player"], raised, s, lambda r: r.player.startswith("big-"))
                # the null table
                bets = [("regular", "banker", 100)]
                for rate, label in ((0.05, "5%"), (0.25, "25%")):
                    for k in range(4):
                        if rng.random() < rate:
                            bets.append((f"flat-{label}-{k}", "big_tiger", rng.randint(25, 100)))
                            null_bets[label] += 1
                for r in feeds["null"].round(rid, returns, bets):
                    who = "table" if r.player == TABLE else r.player.split("-")[1]
                    key = (r.preset, f"{who}: {r.test}")
                    null_alerts[key] = null_alerts.get(key, 0) + 1
                # the counter, diluted and not, and side-bet-only
                side = rng.randint(25, 100) if high else 0
                base: Bets = [("counter", "banker", 100)]
                if side:
                    base.append(("counter", "big_tiger", side))
                raised = feeds["c"].round(rid, returns, base)
                _first(first["counter"], raised, s, lambda r: r.player == "counter")
                diluted = list(base)
                if s == 1 and n == 0:
                    diluted += [("counter", w, 25) for w in others]
                raised = feeds["d"].round(rid, returns, diluted)
                _first(first["diluted"], raised, s, lambda r: r.player == "counter")
                alone: Bets = [("counter", "big_tiger", side)] if side else []
                alone.append(("someone", "banker", 100))  # the table deals on
                raised = feeds["s"].round(rid, returns, alone)
                _first(first["side_only"], raised, s, lambda r: r.player == "counter")
                # the flat bettor at positive value
                bets = [("someone", "banker", 100)]
                if rng.random() < 0.25:
                    bets.append(("pair", "tiger_pair", 25))
                    positive_count += 1
                raised = feeds["p"].round(rid, returns, bets)
                _first(positive_first, raised, positive_count, lambda r: r.player == "pair")
                view.show(coup.cards)
        big_entries += entries
        for kind, d in delays.items():
            d.add(first[kind])
        positive_bets.add(positive_first)
        print(
            f"career {career + 1}/{careers}: {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )
    total_shoes = careers * shoes
    null: dict[str, Any] = {}
    for name in THRESHOLD_PRESETS:
        for label, unit in (("table", 1), ("5%", 4), ("25%", 4)):
            for test in (
                STAKE_AND_VALUE,
                "value at placement",
                "the table: stakes and value",
                "the table: value at placement",
            ):
                if (label == "table") != test.startswith("the table"):
                    continue
                k = null_alerts.get((name, f"{label}: {test}"), 0)
                lo, hi = poisson_interval(k)
                exposure = total_shoes * unit
                null.setdefault(name, []).append(
                    {
                        "who": label,
                        "test": test,
                        "alerts": k,
                        "per_100_shoes": [
                            100 * k / exposure,
                            100 * lo / exposure,
                            100 * hi / exposure,
                        ],
                    }
                )
    return {
        "careers": careers,
        "shoes_per_career": shoes,
        "shoes": total_shoes,
        "coups": coups,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "big_player_entries": big_entries,
        "big_player_bets": team_bets,
        "null_bets": null_bets,
        "delays": {k: d.summary(shoes) for k, d in delays.items()},
        "positive_value_bets_to_flag": positive_bets.summary(10**9),
        "null": null,
    }


LABELS = {
    "team_table": "team, big player under fresh names: the table flagged",
    "team_player": "team: a big player's name flagged",
    "counter": "Big Tiger counter behind Banker 100",
    "diluted": "the same, one bet of 25 on each other side bet once",
    "side_only": "side-bet-only counter",
}


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['shoes']:,} shoes ({result['careers']} careers of {result['shoes_per_career']} "
        f"shoes), {result['coups']:,} coups per table, {result['big_player_entries']:,} big-player "
        f"entries ({result['big_player_bets']:,} bets of 1,000), {result['seconds']} s wall, "
        f"{result['cpu_seconds']} s CPU ({platform.python_implementation()} "
        f"{platform.python_version()}, one process)",
        "",
        "| preset | player | flagged | shoes to flag: median | 95th pct |",
        "|---|---|--:|--:|--:|",
    ]
    for name in THRESHOLD_PRESETS:
        for key, label in LABELS.items():
            d = result["delays"][key][name]
            lines.append(
                f"| {name} | {label} | {d['flagged']}/{d['careers']} | {d['median']} | {d['p95']} |"
            )
        d = result["positive_value_bets_to_flag"][name]
        lines.append(
            f"| {name} | flat Tiger Pair (literal, +37.7%), 25% of rounds: **bets** to flag | "
            f"{d['flagged']}/{d['careers']} | {d['median']} bets | {d['p95']} bets |"
        )
    lines += [
        "",
        f"False alarms at the null table (bets: {result['null_bets']['5%']:,} at 5%, "
        f"{result['null_bets']['25%']:,} at 25%; 4 bettors each):",
        "",
        "| preset | who | test | alerts | per 100 shoes (95% CI) |",
        "|---|---|---|--:|--:|",
    ]
    for name, rows in result["null"].items():
        for row in rows:
            r = row["per_100_shoes"]
            who = "the table" if row["who"] == "table" else f"flat bettors at {row['who']}"
            lines.append(
                f"| {name} | {who} | {row['test']} | {row['alerts']} | "
                f"{r[0]:.2f} ({r[1]:.2f}–{r[2]:.2f}) |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--careers", type=int, default=40)
    parser.add_argument("--shoes", type=int, default=25, help="shoes per career")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.careers, args.shoes, args.seed)
    print(json.dumps(result, indent=2) if args.json else markdown(result))


if __name__ == "__main__":
    main()
