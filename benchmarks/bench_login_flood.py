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
import multiprocessing
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.queues import SimpleQueue
from pathlib import Path
from typing import Any, NamedTuple

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


@contextmanager
def served(prefix: str) -> Iterator[tuple[int, str]]:
    """A fresh server (:func:`start`) on a new SQLite file: its pid and base
    URL; stopped (SIGTERM, then SIGKILL after 30 s) when the block ends."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    port = free_port()
    process = start(f"sqlite:///{workdir / 'punto.db'}", port)
    try:
        yield process.pid, f"http://{HOST}:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


def bearer(client: httpx2.Client, who: str) -> dict[str, str]:
    """The Authorization header of demo account ``who`` (password ``who-password``)."""
    answer = client.post("/api/auth/login", json={"username": who, "password": f"{who}-password"})
    answer.raise_for_status()
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


class Flood(NamedTuple):
    """What :func:`flood_beside_a_bettor` saw: the bettor's latencies and
    answers by status, and the flood's answers by status (0: none)."""

    latencies: list[float]
    bets: Counter[int]
    answers: Counter[int]

    def figures(self) -> dict[str, Any]:
        """The bettor's figures, as every flood benchmark reports them."""
        return {
            "bets": len(self.latencies),
            "bets_taken": self.bets[201],
            "bet_answers": dict(sorted(self.bets.items())),
            "bet_p50_ms": round(percentile(self.latencies, 50) * 1000, 1),
            "bet_p99_ms": round(percentile(self.latencies, 99) * 1000, 1),
            "bet_max_ms": round(max(self.latencies, default=0) * 1000, 1),
        }


def flood_beside_a_bettor(
    bettor: httpx2.Client,
    headers: dict[str, str],
    send: Callable[[httpx2.Client], int],
    *,
    seconds: float,
    rate: float,
    threads: int,
    client_headers: dict[str, str] | None = None,
    flood_from: str | None = None,
) -> Flood:
    """``threads`` threads each ``send`` a request (its status returned) the
    moment the last is answered, for ``seconds``, while the player of
    ``headers`` bets 10 on Banker at the automatic ``tiger`` table ``rate``
    times a second, from a process of its own, over one keep-alive
    connection to ``bettor``'s server.  ``flood_from``:
    the loopback address the flood connects from (None: the bettor's own), so
    that the server's per-address limits see two clients, as they would see
    a flooding terminal and a player's device."""
    stop = time.monotonic() + seconds
    answers: Counter[int] = Counter()
    lock = threading.Lock()
    base_url = str(bettor.base_url)

    def bet(results: SimpleQueue[tuple[list[float], dict[int, int]]]) -> None:
        # A process of its own, forked before the flood's threads start: a
        # player's device does not wait for the flood's threads to hand it
        # the interpreter (48 threads in one process would add their GIL
        # turns to every bet's latency, a cost of the load generator only).
        latencies: list[float] = []
        bets: Counter[int] = Counter()
        interval = 1 / rate
        with httpx2.Client(base_url=base_url, timeout=60) as client:
            while time.monotonic() < stop:
                sent = time.perf_counter()
                answer = client.post(
                    "/api/tables/tiger/bets",
                    headers=headers,
                    json={"wager": "banker", "stake": "10"},
                )
                latencies.append(time.perf_counter() - sent)
                bets[answer.status_code] += 1
                time.sleep(max(0.0, interval - (time.perf_counter() - sent)))
        results.put((latencies, dict(bets)))

    def flood() -> None:
        transport = httpx2.HTTPTransport(local_address=flood_from)
        with httpx2.Client(
            base_url=base_url,
            timeout=120,
            headers=client_headers or {},
            transport=transport,
        ) as client:
            while time.monotonic() < stop:
                try:
                    status = send(client)
                except httpx2.HTTPError:
                    status = 0
                with lock:
                    answers[status] += 1

    context = multiprocessing.get_context("fork")
    results: SimpleQueue[tuple[list[float], dict[int, int]]] = context.SimpleQueue()
    player = context.Process(target=bet, args=(results,), daemon=True)
    player.start()
    running = [threading.Thread(target=flood, daemon=True) for _ in range(threads)]
    for thread in running:
        thread.start()
    latencies, bets = results.get()
    player.join(60)
    for thread in running:
        thread.join(120)
    return Flood(latencies, Counter(bets), answers)


def machine() -> dict[str, Any]:
    """The code measured and the machine, as every flood benchmark reports them."""
    return {
        "code": os.environ.get("PYTHONPATH", "(installed)"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "load_average": os.getloadavg()[0],
    }


def show(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:>{width}}: {value}")


def run(args: argparse.Namespace) -> dict[str, Any]:
    with served("punto-flood-") as (pid, base):
        idle_kib = memory_kib(pid, "VmRSS")
        bettor = httpx2.Client(base_url=base, timeout=60)
        headers = bearer(bettor, "demo")

        def login(client: httpx2.Client) -> int:
            body = {"username": secrets.token_hex(8), "password": "x" * args.password_length}
            return client.post("/api/auth/login", json=body).status_code

        flood = flood_beside_a_bettor(
            bettor,
            headers,
            login,
            seconds=args.seconds,
            rate=args.rate,
            threads=args.logins,
            flood_from=args.flood_from,
        )
        peak_kib = memory_kib(pid, "VmHWM")
        bettor.close()
    return {
        **machine(),
        "seconds": args.seconds,
        "logins_at_once": args.logins,
        "password_length": args.password_length,
        "flood_from": args.flood_from or HOST,
        **flood.figures(),
        "logins": dict(sorted(flood.answers.items())),
        "rss_idle_mib": round(idle_kib / 1024),
        "rss_peak_mib": round(peak_kib / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--logins", type=int, default=64, help="logins in flight at once")
    parser.add_argument("--password-length", type=int, default=1024)
    parser.add_argument("--rate", type=float, default=20.0, help="the bettor's bets a second")
    parser.add_argument(
        "--flood-from", default=None, help="the logins' source address (default: the bettor's)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    show(run(args), args.json)


if __name__ == "__main__":
    main()
