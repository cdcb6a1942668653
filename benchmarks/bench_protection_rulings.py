"""Benchmark of the money-ruling tests: a dealer who voids
at the pit's usual rate but only rounds one player loses.

::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_protection_rulings.py               # the published run
    PYTHONPATH=src .venv/bin/python benchmarks/bench_protection_rulings.py --careers 3   # a quick look

Real table event logs, read as the server reads them
(:class:`punto.protection.anomalies.LogFolder` and :func:`report`): one
Tiger No Commission table, shoes of 8 decks (cut card 14 from the end)
shuffled by :class:`random.Random` and dealt by the engine; four dealers in
downs of 40 rounds; ``ann`` bets Banker 100 every round (with ``--opposite``,
``bob`` bets Player 100 every round too).  Three dealers void 2% of their
rounds at random, once the coup is dealt; the fourth voids as often (2% of
its rounds) but only rounds ann's Banker bet loses.  After every 250 of the
dealer's rounds the report is made over everything so far; reported: the
dealer's rounds to its first ruling alert (the dealer's, and the (dealer,
ann) pair's), and how many honest dealers' and pairs' tests alerted.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from decimal import Decimal
from typing import Any

from punto.eventlog import Stored
from punto.protection.anomalies import ALPHA, LogFolder, report
from punto.rules.cards import DECK
from punto.rules.games import get_game
from punto.rules.settlement import Bet, settle
from punto.sim.reference import deal_shoe
from punto.sim.run import ShoeRules
from punto.table.events import (
    BetPlaced,
    BetsClosed,
    CardDealt,
    Event,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    ShoeStarted,
    TableConfigured,
)
from punto.table.limits import TableLimits

GAME = "tiger-no-commission"
RULES = ShoeRules(decks=8, behind=14)
DEALERS = ("dana", "eli", "fay", "gus")  # gus spends his voids on ann
COLLUDER = "gus"
DOWN = 40
RATE = 0.02
CHECK = 250
#: P(a Banker bet loses) at Tiger No Commission, near enough to size the colluder's voids
BANKER_LOSES = 0.4586


def run(careers: int, rounds: int, opposite: bool, seed: int) -> dict[str, Any]:
    game = get_game(GAME)
    limits = TableLimits(Decimal(10), Decimal(1000))
    configured = TableConfigured(
        GAME,
        None,
        game.pair_rule.value,
        RULES.decks,
        RULES.behind,
        True,
        json.dumps(limits.to_json()),
    )
    firsts: dict[str, list[int | None]] = {"dealer": [], "pair": []}
    honest_alerts = {"dealer": 0, "pair": 0}
    honest_tested = {"dealer": 0, "pair": 0}
    saved_total = Decimal(0)
    started, cpu = time.perf_counter(), time.process_time()
    dealt_rounds = 0
    for career in range(careers):
        rng = random.Random(f"{seed}-{career}")
        folder = LogFolder("t1")
        dealers: dict[str, str] = {}
        seq = 0
        first: dict[str, int | None] = {"dealer": None, "pair": None}
        done = dict.fromkeys(DEALERS, 0)
        n = shoe = 0
        last = None
        events: list[tuple[str, Event]] = [("", configured)]
        while done[COLLUDER] < rounds:
            shoe += 1
            cards = list(DECK) * RULES.decks
            random.Random(f"{seed}-{career}-{shoe}").shuffle(cards)
            events.append(("", ShoeStarted(f"s{shoe}", (), None, "", "", decks=RULES.decks)))
            for coup in deal_shoe(cards, RULES.cut):
                dealer = DEALERS[(n // DOWN) % len(DEALERS)]
                rid = f"{career}-{n}"
                n += 1
                dealers[rid] = dealer
                done[dealer] += 1
                bets = [("ann", "banker")] + ([("bob", "player")] if opposite else [])
                round_events: list[Event] = [RoundOpened(rid)]
                round_events += [
                    BetPlaced(f"{rid}-{i}", who, i + 1, wager, Decimal(100))
                    for i, (who, wager) in enumerate(bets)
                ]
                round_events.append(BetsClosed())
                round_events += [CardDealt(c) for c in coup.cards]
                (ann,) = settle(game, coup, [Bet("banker", Decimal(100))]).results
                if dealer == COLLUDER:
                    void = ann.net < 0 and rng.random() < RATE / BANKER_LOSES
                else:
                    void = rng.random() < RATE
                if void and dealer == COLLUDER:
                    saved_total += -ann.net
                round_events.append(
                    RoundVoided("a card exposed", "5.1") if void else RoundSettled()
                )
                events += [(rid, e) for e in round_events]
                if dealer == COLLUDER and done[COLLUDER] % CHECK == 0:
                    stored = []
                    for round_id, e in events:
                        seq += 1
                        stored.append(Stored(seq, round_id, e))
                    events = []
                    folder.feed(stored, dealers)
                    last = report(folder.facts(dealers))
                    at = done[COLLUDER]
                    for d in last.dealers:
                        if d.name == COLLUDER and d.rulings is not None and d.rulings.alert:
                            first["dealer"] = first["dealer"] or at
                    for p in last.players:
                        if (p.dealer, p.player) == (COLLUDER, "ann") and p.rulings.alert:
                            first["pair"] = first["pair"] or at
                    if done[COLLUDER] >= rounds:
                        break
        dealt_rounds += n
        assert last is not None
        for d in last.dealers:
            if d.name != COLLUDER and d.rulings is not None:
                honest_tested["dealer"] += 1
                honest_alerts["dealer"] += d.rulings.alert
        for p in last.players:
            if p.dealer != COLLUDER:
                honest_tested["pair"] += 1
                honest_alerts["pair"] += p.rulings.alert
        for k in firsts:
            firsts[k].append(first[k])
        print(
            f"career {career + 1}/{careers}: {time.perf_counter() - started:.0f} s, {first}",
            file=sys.stderr,
        )
    return {
        "careers": careers,
        "colluder_rounds": rounds,
        "rounds": dealt_rounds,
        "opposite": opposite,
        "alpha": ALPHA,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "saved_per_career": str(saved_total / careers),
        "first_alert": {
            k: {
                "flagged": sum(1 for f in v if f is not None),
                "median": _quantile(v, 0.5, rounds),
                "p95": _quantile(v, 0.95, rounds),
                "within_3000": sum(1 for f in v if f is not None and f <= 3000),
            }
            for k, v in firsts.items()
        },
        "honest": {k: f"{honest_alerts[k]} of {honest_tested[k]}" for k in honest_alerts},
    }


def _quantile(firsts: list[int | None], q: float, horizon: int) -> str:
    ranked = sorted(math.inf if f is None else f for f in firsts)
    value = ranked[min(len(ranked) - 1, math.ceil(q * len(ranked)) - 1)]
    return f"> {horizon}" if value == math.inf else str(int(value))


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"{r['careers']} careers, {r['rounds']:,} rounds in all ({r['colluder_rounds']:,} of the "
        f"colluding dealer's each){', a second player on the other side' if r['opposite'] else ''}; "
        f"the colluder saved ann {r['saved_per_career']} a career; α = {r['alpha']}; "
        f"{r['seconds']} s wall, {r['cpu_seconds']} s CPU ({platform.python_implementation()} "
        f"{platform.python_version()}, one process)",
        "",
        "| test | careers flagged | within 3,000 rounds | dealer's rounds to flag: median | 95th pct |",
        "|---|--:|--:|--:|--:|",
    ]
    for k, label in (("dealer", "the dealer's rulings"), ("pair", "(dealer, ann)")):
        f = r["first_alert"][k]
        lines.append(
            f"| {label} | {f['flagged']}/{r['careers']} | {f['within_3000']}/{r['careers']} | "
            f"{f['median']} | {f['p95']} |"
        )
    lines += [
        "",
        f"Honest dealers' ruling alerts at the end of each career: dealers {r['honest']['dealer']}, "
        f"(dealer, player) pairs {r['honest']['pair']}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--careers", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=4000, help="the colluder's rounds a career")
    parser.add_argument("--opposite", action="store_true", help="bob bets Player every round")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.careers, args.rounds, args.opposite, args.seed)
    print(json.dumps(result, indent=2) if args.json else markdown(result))


if __name__ == "__main__":
    main()
