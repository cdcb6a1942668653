"""Void attempts carrying made-up confirmations against a real ``punto serve``,
beside a steady bettor.

::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_void_flood.py
    PYTHONPATH=/path/to/other/src .venv/bin/python benchmarks/bench_void_flood.py  # a baseline

The server is ``python -m punto.cli serve --demo`` on a fresh SQLite file, in
its own process (:mod:`bench_login_flood` starts and measures it).  The demo
dealer logs in; ``--attempts`` threads each send ``POST
/api/tables/tiger/round/void`` with a reason and a made-up confirming
manager (a random user name, a 200-character password), the next as soon as
the last is answered, for ``--seconds``, while one player bets 10 on Banker
at the automatic ``tiger`` table ``--rate`` times a second over one
keep-alive connection.  The attempts come from ``--flood-from`` (127.0.0.2),
the bettor from 127.0.0.1: the server's per-address limits see a dealer's
terminal and a player's device, as on a floor (``--same-address`` sends
both from one address).  A confirmation used to be a user name and password in
the body, checked by hashing the password outside the login limits; now a
confirmation is a second person's own session and the body's is refused
before anything else is done.

Reported: the bettor's latency (p50, p99, max), the void attempts' answers
by status, and the server's resident memory before and at its peak
(``VmHWM``).  The goal: p99 under 250 ms, memory growing by
less than 150 MiB.  Loopback only; every loop ends at the deadline.
"""

from __future__ import annotations

import argparse
import secrets
from typing import Any

import httpx2
from bench_login_flood import (
    HOST,
    bearer,
    flood_beside_a_bettor,
    machine,
    memory_kib,
    served,
    show,
)


def run(args: argparse.Namespace) -> dict[str, Any]:
    with served("punto-voids-") as (pid, base):
        idle_kib = memory_kib(pid, "VmRSS")
        bettor = httpx2.Client(base_url=base, timeout=60)
        player, dealer = bearer(bettor, "demo"), bearer(bettor, "dealer")

        def void(client: httpx2.Client) -> int:
            body = {
                "reason": "a misdeal",
                "manager": {"username": secrets.token_hex(8), "password": "x" * 200},
            }
            return client.post("/api/tables/tiger/round/void", json=body).status_code

        flood = flood_beside_a_bettor(
            bettor,
            player,
            void,
            seconds=args.seconds,
            rate=args.rate,
            threads=args.attempts,
            client_headers=dealer,
            flood_from=None if args.same_address else args.flood_from,
        )
        peak_kib = memory_kib(pid, "VmHWM")
        bettor.close()
    return {
        **machine(),
        "seconds": args.seconds,
        "attempts_at_once": args.attempts,
        "flood_from": HOST if args.same_address else args.flood_from,
        **flood.figures(),
        "voids": dict(sorted(flood.answers.items())),
        "rss_idle_mib": round(idle_kib / 1024),
        "rss_peak_mib": round(peak_kib / 1024),
        "rss_growth_mib": round((peak_kib - idle_kib) / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--attempts", type=int, default=48, help="void attempts in flight at once")
    parser.add_argument("--rate", type=float, default=20.0, help="the bettor's bets a second")
    parser.add_argument(
        "--flood-from",
        default="127.0.0.2",
        help="the loopback address the void attempts come from (the bettor's is 127.0.0.1)",
    )
    parser.add_argument(
        "--same-address",
        action="store_true",
        help="send the void attempts from the bettor's own address",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    show(run(args), args.json)


if __name__ == "__main__":
    main()
