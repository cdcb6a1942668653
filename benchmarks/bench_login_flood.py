"""A login flood against a real ``punto serve`` on loopback, with a steady bettor.

::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_login_flood.py
    PYTHONPATH=src .venv/bin/python benchmarks/bench_login_flood.py --password-length 20
    PYTHONPATH=/path/to/other/src .venv/bin/python benchmarks/bench_login_flood.py  # a baseline

The server is ``python -m punto.cli serve --demo`` on a fresh SQLite file, in
its own process, with its own Argon2 parameters (what is measured is what a
real server does with a flood).  One player logs in and bets 10 on Banker
at the automatic ``tiger`` table ``--rate`` times a second over one
keep-alive connection (a bet outside the betting window is refused at once,
409: its latency counts like any other), while ``--logins`` threads send
logins with random user names and ``--password-length`` character passwords
(1 KB as the review sent them), each the next as soon as the last is
answered, for ``--seconds``.

Reported: the bettor's request latency (p50, p99, max) and how many bets
were taken, the logins' answers by status, and the server's peak resident
memory (``VmHWM`` of ``/proc/<pid>/status``).  The goal: p99
under 100 ms and memory under 300 MiB.  Everything stays on loopback, every
loop ends at the deadline, and the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def start(database: str, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "punto.cli", "serve", "--demo", "--database", database),
            *("--host", HOST, "--port", str(port), "--log-level", "warning"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            if httpx2.get(f"http://{HOST}:{port}/api/health", timeout=1).status_code == 200:
                return process
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start within 60 s")


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


def flood_beside_a_bettor(
    bettor: httpx2.Client,
    headers: dict[str, str],
    send: Callable[[httpx2.Client], int],
    *,
    seconds: float,
    rate: float,
    threads: int,
    client_headers: dict[str, str] | None = None,
) -> tuple[list[float], int, Counter[int]]:
    """``threads`` threads each ``send`` a request (its status returned) the
    moment the last is answered, for ``seconds``, while the player of
    ``headers`` bets 10 on Banker at the automatic ``tiger`` table ``rate``
    times a second over ``bettor``'s keep-alive connection: the bettor's
    latencies, the bets taken, and the flood's answers by status (0: none)."""
    stop = time.perf_counter() + seconds
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def flood() -> None:
        with httpx2.Client(
            base_url=bettor.base_url, timeout=120, headers=client_headers or {}
        ) as client:
            while time.perf_counter() < stop:
                try:
                    status = send(client)
                except httpx2.HTTPError:
                    status = 0
                with lock:
                    statuses[status] += 1

    running = [threading.Thread(target=flood, daemon=True) for _ in range(threads)]
    for thread in running:
        thread.start()
    latencies: list[float] = []
    taken = 0
    interval = 1 / rate
    while time.perf_counter() < stop:
        sent = time.perf_counter()
        answer = bettor.post(
            "/api/tables/tiger/bets", headers=headers, json={"wager": "banker", "stake": "10"}
        )
        latencies.append(time.perf_counter() - sent)
        taken += answer.status_code == 201
        time.sleep(max(0.0, interval - (time.perf_counter() - sent)))
    for thread in running:
        thread.join(120)
    return latencies, taken, statuses


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="punto-flood-"))
    port = free_port()
    base = f"http://{HOST}:{port}"
    process = start(f"sqlite:///{workdir / 'flood.db'}", port)
    try:
        idle_kib = memory_kib(process.pid, "VmRSS")
        bettor = httpx2.Client(base_url=base, timeout=60)
        token = bettor.post(
            "/api/auth/login", json={"username": "demo", "password": "demo-password"}
        ).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}

        def login(client: httpx2.Client) -> int:
            body = {"username": secrets.token_hex(8), "password": "x" * args.password_length}
            return client.post("/api/auth/login", json=body).status_code

        latencies, taken, statuses = flood_beside_a_bettor(
            bettor, headers, login, seconds=args.seconds, rate=args.rate, threads=args.logins
        )
        peak_kib = memory_kib(process.pid, "VmHWM")
        bettor.close()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
    return {
        "code": os.environ.get("PYTHONPATH", "(installed)"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "seconds": args.seconds,
        "logins_at_once": args.logins,
        "password_length": args.password_length,
        "bets": len(latencies),
        "bets_taken": taken,
        "bet_p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "bet_p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "bet_max_ms": round(max(latencies, default=0) * 1000, 1),
        "logins": dict(sorted(statuses.items())),
        "rss_idle_mib": round(idle_kib / 1024),
        "rss_peak_mib": round(peak_kib / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--logins", type=int, default=64, help="logins in flight at once")
    parser.add_argument("--password-length", type=int, default=1024)
    parser.add_argument("--rate", type=float, default=20.0, help="the bettor's bets a second")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>16}: {value}")


if __name__ == "__main__":
    main()
