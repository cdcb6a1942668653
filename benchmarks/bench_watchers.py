"""How much later a table's messages reach a watcher on another server process.

Two ``punto serve`` processes on one PostgreSQL database; a self-running
table (Dragon Tiger, quick timings) is run by the first.  ``--watchers``
anonymous WebSockets watch it through each process; every message's arrival
is timed in this one client process.  For each message a watcher on the
second process got, the delay is its arrival there less its arrival at the
first watcher on the first process (the relay through PostgreSQL's notices:
:mod:`punto.server.cluster.relay`); and each such watcher's messages after its
opening must be, in order, those the first process's watcher got.

    .venv/bin/python benchmarks/bench_watchers.py --database postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx2

HOST = "127.0.0.1"
TABLE = "relay"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def serve(url: str, port: int, *, demo: bool) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "punto.cli", "serve", "--database", url, "--port", str(port)]
    command += ["--log-level", "warning", *(["--demo"] if demo else [])]
    process = subprocess.Popen(
        command, env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"http://{HOST}:{port}/api/health", timeout=1).status_code == 200:
                return process
        except httpx2.HTTPError:
            pass
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"punto serve on port {port} did not start")


def make_table(port: int) -> None:
    base = f"http://{HOST}:{port}"
    login = httpx2.post(
        f"{base}/api/auth/login", json={"username": "pit", "password": "pit-password"}
    )
    pit = {"Authorization": f"Bearer {login.json()['token']}"}
    config = {
        "id": TABLE,
        "game": "dragon-tiger",
        "mode": "auto",
        "betting_seconds": 0.5,
        "card_delay": 0.05,
        "result_seconds": 0.1,
        "seed": "bench-watchers",
    }
    made = httpx2.post(f"{base}/api/tables", headers=pit, json=config, timeout=30)
    if made.status_code not in (201, 409):
        raise SystemExit(f"cannot make the table: {made.text}")


async def watch(port: int, seen: list[tuple[float, str]], end: float) -> None:
    from websockets.asyncio.client import connect

    async with connect(f"ws://{HOST}:{port}/ws/tables/{TABLE}", max_size=2**24) as ws:
        while time.perf_counter() < end:
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=1.0)
            except TimeoutError:
                continue
            seen.append((time.perf_counter(), str(text)))


def analyse(owner: list[tuple[float, str]], remote: list[tuple[float, str]]) -> dict[str, Any]:
    """Delays (ms) of ``remote``'s messages after its opening, and whether they
    are, in order, a stretch of ``owner``'s."""
    texts = [t for _, t in owner]
    after = remote[2:]  # the opening (state, scoreboard) is the watcher's own
    if not after:
        return {"messages": 0, "in_order": False, "delays": []}
    start = texts.index(after[0][1]) if after[0][1] in texts else -1
    stretch = texts[start : start + len(after)] if start >= 0 else []
    common = min(len(stretch), len(after))
    in_order = common > 0 and stretch[:common] == [t for _, t in after[:common]]
    delays = [(at - owner[start + i][0]) * 1000 for i, (at, _) in enumerate(after[:common])]
    return {"messages": len(after), "in_order": in_order, "delays": delays}


async def run(ports: list[int], watchers: int, seconds: float) -> list[list[tuple[float, str]]]:
    end = time.perf_counter() + seconds
    seen: list[list[tuple[float, str]]] = [[] for _ in range(2 * watchers)]
    tasks = [watch(ports[i // watchers], seen[i], end) for i in range(2 * watchers)]
    await asyncio.gather(*tasks)
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, help="a PostgreSQL URL")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--watchers", type=int, default=5, help="per process")
    args = parser.parse_args(argv)
    ports = [free_port(), free_port()]
    first = serve(args.database, ports[0], demo=True)
    try:
        make_table(ports[0])  # the first process makes it, and runs it
        second = serve(args.database, ports[1], demo=False)
        try:
            seen = asyncio.run(run(ports, args.watchers, args.seconds))
        finally:
            second.terminate()
            second.wait(30)
    finally:
        first.terminate()
        first.wait(30)
    owner = seen[0]
    results = [analyse(owner, remote) for remote in seen[args.watchers :]]
    delays = sorted(d for r in results for d in r["delays"])
    if not delays:
        print("no message reached the second process's watchers")
        return 1
    q = statistics.quantiles(delays, n=100)
    summary = {
        "seconds": args.seconds,
        "watchers_per_process": args.watchers,
        "messages_at_the_owner": len(owner),
        "messages_per_remote_watcher": [r["messages"] for r in results],
        "all_in_order": all(r["in_order"] for r in results),
        "delay_ms": {
            "p50": round(q[49], 1),
            "p90": round(q[89], 1),
            "p99": round(q[98], 1),
            "max": round(delays[-1], 1),
        },
    }
    print(json.dumps(summary, indent=2))
    return 0 if summary["all_in_order"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
