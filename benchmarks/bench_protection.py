"""Benchmark of advantage-play detection: shoes to flag each
counter, and how often flat bettors are flagged, for each threshold preset.

::

    .venv/bin/python benchmarks/bench_protection.py                 # about 4 minutes of CPU
    .venv/bin/python benchmarks/bench_protection.py --careers 10 --shoes 20   # a quick look
    .venv/bin/python benchmarks/bench_protection.py --json

Simulation speed, not HTTP.  Shoes of 8 decks, cut card 14 cards from the
end, no burn, shuffled by :class:`random.Random` (seeded per shoe) and dealt
by the engine (:func:`punto.sim.reference.deal_shoe`).  Before every round
each watched wager is valued exactly on the cards seen so far
(:mod:`punto.analysis`; the values are cached per composition), and at each
Insurance Plus moment every Banker Insurance offer is valued on the cards
seen and those on the table (:func:`punto.analysis.insurance_values.deal_values`).

Players (:mod:`punto.protection.players`), each with a detector per preset
(:data:`punto.protection.detection.THRESHOLD_PRESETS`):

* Tiger Baccarat: the published Big Tiger counter (true count >= +8) and
  flat bettors on Big Tiger;
* Dragon Tiger: the derived Dragon Tiger counter (>= +9) and flat bettors on
  Dragon Tiger;
* Tiger Buffalo: the Insurance Plus player (only positive offers, Original
  Bet on the Banker) and flat insurers taking Banker offers at random.

The shoes are split into careers of ``--shoes`` shoes; every player starts
each career with a fresh detector.  Reported per preset: for each advantage
player, the shoes it took to flag them (median and 95th percentile over
careers; "> N" when not flagged within a career) and their bets; for the
flat bettors, alerts per 100 shoes and per 1,000 bets with an exact Poisson
95% interval, per betting rate.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from punto.analysis.composition import Composition
from punto.analysis.plan import plan_for
from punto.analysis.tables import wager_odds
from punto.protection.detection import THRESHOLD_PRESETS, Detector, Observation
from punto.protection.players import (
    FlatBettor,
    InsurancePlayer,
    ShoeView,
    big_tiger_counter,
    dragon_tiger_counter,
    insurance_offers,
)
from punto.protection.tails import poisson_interval
from punto.rules.cards import DECK
from punto.rules.coup import Deal, Side
from punto.rules.games import get_game
from punto.rules.insurance import moment_of
from punto.sim.reference import deal_shoe
from punto.sim.run import ShoeRules

RULES = ShoeRules(decks=8, behind=14)


@dataclass
class Career:
    """One player's detectors (a preset each) over one career of shoes."""

    detectors: dict[str, Detector]
    first_alert: dict[str, int | None]
    alerts: dict[str, int]

    @classmethod
    def fresh(cls) -> Career:
        return cls(
            {name: Detector(t) for name, t in THRESHOLD_PRESETS.items()},
            dict.fromkeys(THRESHOLD_PRESETS),
            dict.fromkeys(THRESHOLD_PRESETS, 0),
        )

    def observe(self, shoe: int, observations: list[Observation]) -> None:
        for name, detector in self.detectors.items():
            if detector.observe(observations) is not None:
                self.alerts[name] += 1
                if self.first_alert[name] is None:
                    self.first_alert[name] = shoe


@dataclass
class Tally:
    """A player kind's results over every career."""

    label: str
    counter: bool
    rate: float | None = None
    bets: int = 0
    shoes: int = 0
    firsts: dict[str, list[int | None]] = field(default_factory=dict)
    alerts: dict[str, int] = field(default_factory=dict)

    def add(self, career: Career, shoes: int) -> None:
        self.shoes += shoes
        for name in THRESHOLD_PRESETS:
            self.firsts.setdefault(name, []).append(career.first_alert[name])
            self.alerts[name] = self.alerts.get(name, 0) + career.alerts[name]


def percentile(firsts: list[int | None], q: float, shoes: int) -> str:
    """The ``q`` quantile of shoes to the first alert (censored: "> shoes")."""
    ranked = sorted(math.inf if f is None else f for f in firsts)
    value = ranked[min(len(ranked) - 1, math.ceil(q * len(ranked)) - 1)]
    return f"> {shoes}" if value == math.inf else str(int(value))


def run(careers: int, shoes: int, rates: list[float], flats: int, seed: int) -> dict[str, Any]:
    tiger, dragon, buffalo = (
        get_game(g) for g in ("tiger-baccarat", "dragon-tiger", "tiger-buffalo")
    )
    plans = {
        "big_tiger": plan_for(tiger, None, tiger.pair_rule),
        "dragon_tiger": plan_for(dragon, None, dragon.pair_rule),
    }
    cache: dict[tuple[int, ...], dict[str, Fraction]] = {}

    def values(comp: Composition) -> dict[str, Fraction]:
        found = cache.get(comp.counts)
        if found is None:
            found = {
                w: wager_odds(p.wager(w), p.evaluate(comp)).return_exact for w, p in plans.items()
            }
            cache[comp.counts] = found
        return found

    counters = {"big_tiger": big_tiger_counter(), "dragon_tiger": dragon_tiger_counter(dragon)}
    insurer = InsurancePlayer()
    tallies: dict[str, Tally] = {}
    for wager, c in counters.items():
        tallies[c.name] = Tally(c.name, True)
        for rate in rates:
            tallies[f"flat {wager} {rate:g}"] = Tally(f"flat {wager}", False, rate)
    tallies[insurer.name] = Tally(insurer.name, True)
    for rate in rates:
        tallies[f"flat banker_insurance {rate:g}"] = Tally("flat banker_insurance", False, rate)

    coups = 0
    started = time.perf_counter()
    cpu = time.process_time()
    for career in range(careers):
        # (tally key, player, career) for every seat of this career
        seats: list[tuple[str, Any, Career]] = []
        for wager, c in counters.items():
            seats.append((c.name, c, Career.fresh()))
            for rate in rates:
                for k in range(flats):
                    bettor = FlatBettor(f"flat-{k}", (wager,), rate, seed * 7919 + career * 101 + k)
                    seats.append((f"flat {wager} {rate:g}", bettor, Career.fresh()))
        seats.append((insurer.name, insurer, Career.fresh()))
        for rate in rates:
            for k in range(flats):
                bettor = FlatBettor(f"flat-ins-{k}", (), rate, seed * 104729 + career * 103 + k)
                seats.append((f"flat banker_insurance {rate:g}", bettor, Career.fresh()))
        for s in range(1, shoes + 1):
            cards = list(DECK) * RULES.decks
            random.Random(f"{seed}-{career}-{s}").shuffle(cards)
            view = ShoeView(RULES.decks)
            for n, coup in enumerate(deal_shoe(cards, RULES.cut)):
                coups += 1
                round_id = f"{career}-{s}-{n}"
                value = values(view.composition)
                offers = []
                for k in (4, 5):
                    if moment_of(Deal(coup.cards[:k])) is not None:
                        offers += insurance_offers(buffalo, view, coup.cards[:k], Side.BANKER)
                for key, player, seat in seats:
                    obs: list[Observation] = []
                    if isinstance(player, InsurancePlayer) or (
                        isinstance(player, FlatBettor) and not player.wagers
                    ):
                        for o in offers:
                            taken = player.takes(o.offer)
                            obs.append(Observation(round_id, o.wager, o.value, int(taken)))
                    else:
                        for wager, stake in player.bets(view).items():
                            obs.append(Observation(round_id, wager, value[wager], stake))
                    tallies[key].bets += sum(1 for o in obs if o.taken)
                    if obs:
                        seat.observe(s, obs)
                view.show(coup.cards)
        for key, _, seat in seats:
            tallies[key].add(seat, shoes)
        print(
            f"career {career + 1}/{careers}: {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )
    elapsed = time.perf_counter() - started
    return {
        "careers": careers,
        "shoes_per_career": shoes,
        "shoes": careers * shoes,
        "coups": coups,
        "seconds": round(elapsed, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "compositions_valued": len(cache),
        "presets": {
            name: {
                "limit": str(t.limit),
                "drift": str(t.drift),
                "cap": str(t.cap),
                "warmup": t.warmup,
            }
            for name, t in THRESHOLD_PRESETS.items()
        },
        "players": [_summary(t, shoes) for t in tallies.values()],
    }


def _summary(t: Tally, shoes: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "player": t.label,
        "counter": t.counter,
        "rate": t.rate,
        "shoes": t.shoes,
        "bets": t.bets,
    }
    for name in THRESHOLD_PRESETS:
        firsts = t.firsts[name]
        alerts = t.alerts[name]
        lo, hi = poisson_interval(alerts)
        out[name] = {
            "flagged": sum(1 for f in firsts if f is not None),
            "careers": len(firsts),
            "median_shoes": percentile(firsts, 0.5, shoes),
            "p95_shoes": percentile(firsts, 0.95, shoes),
            "alerts": alerts,
            "per_100_shoes": [100 * alerts / t.shoes, 100 * lo / t.shoes, 100 * hi / t.shoes],
            "per_1000_bets": (
                [1000 * alerts / t.bets, 1000 * lo / t.bets, 1000 * hi / t.bets] if t.bets else None
            ),
        }
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['shoes']:,} shoes ({result['careers']} careers of "
        f"{result['shoes_per_career']} shoes), {result['coups']:,} coups, "
        f"{result['compositions_valued']:,} compositions valued, {result['seconds']} s wall, "
        f"{result['cpu_seconds']} s CPU ({platform.python_implementation()} "
        f"{platform.python_version()}, one process)",
        "",
        "| preset | player | bets | flagged | shoes to flag: median | 95th pct | "
        "alerts per 100 shoes (95% CI) | per 1,000 bets |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for name in result["presets"]:
        for p in result["players"]:
            f = p[name]
            label = p["player"] + ("" if p["rate"] is None else f" (rate {p['rate']:g})")
            rate = f["per_100_shoes"]
            per_bets = f["per_1000_bets"]
            if p["counter"]:
                lines.append(
                    f"| {name} | {label} | {p['bets']:,} | {f['flagged']}/{f['careers']} | "
                    f"{f['median_shoes']} | {f['p95_shoes']} | | |"
                )
            else:
                bets = "—" if per_bets is None else f"{per_bets[0]:.3f}"
                lines.append(
                    f"| {name} | {label} | {p['bets']:,} | {f['alerts']} alerts | | | "
                    f"{rate[0]:.2f} ({rate[1]:.2f}–{rate[2]:.2f}) | {bets} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--careers", type=int, default=25)
    parser.add_argument("--shoes", type=int, default=50, help="shoes per career")
    parser.add_argument("--rates", default="0.05,0.25", help="flat bettors' betting rates")
    parser.add_argument("--flats", type=int, default=4, help="flat bettors per rate and wager")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    result = run(args.careers, args.shoes, rates, args.flats, args.seed)
    print(json.dumps(result, indent=2) if args.json else markdown(result))


if __name__ == "__main__":
    main()
