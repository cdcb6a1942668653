"""Does the server's memory come back after a flood?  Floods of every kind
against a real ``punto serve`` on loopback, the resident memory before and after.

::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_memory_floods.py
    PYTHONPATH=src .venv/bin/python benchmarks/bench_memory_floods.py --seconds 20
    PYTHONPATH=/path/to/other/src .venv/bin/python benchmarks/bench_memory_floods.py  # a baseline

The server is ``python -m punto.cli serve --demo`` on a fresh SQLite file in
its own process (its own Argon2 parameters).  After a warm-up (every page and
route a visitor touches, once), its resident memory (``VmRSS`` of
``/proc/<pid>/status``) is the baseline; then, one after the other, for
``--seconds`` each:

- ``logins``: 64 threads logging in under random names with 200-character
  passwords (each costs an Argon2id hash: 256 and more are refused before it),
  from 256 loopback addresses;
- ``sockets``: 1,000 idle sockets (from four loopback addresses), held;
- ``reads``: 32 threads reading a table's state and the pit's list;
- ``websockets``: 300 WebSockets watching a table (from six loopback addresses);
- ``bodies``: 16 threads posting 60 KiB bodies to the login and a bet.

After each, the flood's clients close and the server is left
``--settle`` seconds; its memory then, and the peak during the flood, are
reported against the baseline.  The goal: within 50 MiB of the
baseline after every flood.  Every loop ends at its deadline; everything stays on
loopback; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx2
from websockets.sync.client import connect

HOST = "127.0.0.1"
MiB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def memory(pid: int, field: str = "VmRSS") -> float:
    """The process's ``field`` of /proc/<pid>/status, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


def until(seconds: float, work: Callable[[], None], threads: int) -> None:
    """``work`` again and again in ``threads`` threads for ``seconds``."""
    deadline = time.monotonic() + seconds

    def loop() -> None:
        while time.monotonic() < deadline:
            try:
                work()
            except Exception:
                time.sleep(0.01)

    running = [threading.Thread(target=loop, daemon=True) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(seconds + 30)


def logins(base: str, seconds: float) -> None:
    """From 256 loopback addresses in turn (one address is held to 30 failures a
    minute), so that the flood reaches the password hashing."""
    counter = iter(range(10**9))
    statuses: Counter[int] = Counter()

    def one() -> None:
        source = f"127.0.1.{next(counter) % 256}"
        with httpx2.Client(transport=httpx2.HTTPTransport(local_address=source)) as client:
            answer = client.post(
                f"{base}/api/auth/login",
                json={"username": secrets.token_hex(8), "password": secrets.token_hex(100)},
                timeout=10,
            )
            statuses[answer.status_code] += 1

    until(seconds, one, 64)
    print(f"{'':>12}logins answered: {dict(sorted(statuses.items()))}")


def sockets(base: str, seconds: float) -> None:
    port = int(base.rsplit(":", 1)[1])
    held = []
    try:
        for n in range(1000):
            source = f"127.0.0.{2 + n % 4}"
            try:
                held.append(
                    socket.create_connection((HOST, port), timeout=5, source_address=(source, 0))
                )
            except OSError:
                continue
        time.sleep(seconds)
    finally:
        for sock in held:
            sock.close()


def reads(base: str, seconds: float) -> None:
    with httpx2.Client(base_url=base, timeout=10) as client:
        token = client.post(
            "/api/auth/login", json={"username": "pit", "password": "pit-password"}
        ).json()["token"]
    pit = {"Authorization": f"Bearer {token}"}

    def one() -> None:
        httpx2.get(f"{base}/api/tables/tiger", timeout=10)
        httpx2.get(f"{base}/api/pit", headers=pit, timeout=10)

    until(seconds, one, 32)


def websockets(base: str, seconds: float) -> None:
    url = base.replace("http://", "ws://") + "/ws/tables/tiger"
    opened = []
    with contextlib.ExitStack() as stack:
        for n in range(300):
            try:
                ws = stack.enter_context(
                    connect(url, open_timeout=5, source_address=(f"127.0.0.{2 + n % 6}", 0))
                )
                opened.append(ws)
            except Exception:
                continue
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:  # keep reading so the server does not buffer for us
            for ws in opened:
                try:
                    while ws.recv(timeout=0):
                        pass
                except Exception:
                    pass
            time.sleep(0.2)


def bodies(base: str, seconds: float) -> None:
    big = json.dumps({"username": "demo", "password": "y" * (60 * 1024)})

    def one() -> None:
        httpx2.post(
            f"{base}/api/auth/login",
            content=big,
            headers={"Content-Type": "application/json"},
            timeout=10,
        )
        httpx2.post(
            f"{base}/api/tables/tiger/bets",
            content=big,
            headers={"Content-Type": "application/json", "Authorization": "Bearer x"},
            timeout=10,
        )

    until(seconds, one, 16)


FLOODS = {
    "logins": logins,
    "sockets": sockets,
    "reads": reads,
    "websockets": websockets,
    "bodies": bodies,
}


def warm_up(base: str) -> None:
    with httpx2.Client(base_url=base, timeout=10) as client:
        for path in ("/", "/api/tables", "/api/tables/tiger", "/openapi.json"):
            client.get(path)
        for who in (("demo", "demo-password"), ("pit", "pit-password")):
            client.post("/api/auth/login", json={"username": who[0], "password": who[1]})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="each flood's length")
    parser.add_argument("--settle", type=float, default=15.0, help="the wait after each flood")
    parser.add_argument("--only", choices=sorted(FLOODS), action="append", help="these floods")
    args = parser.parse_args()
    chosen = args.only or list(FLOODS)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "punto.cli", "serve", "--demo", "--port", str(port)]
        command += ["--host", HOST, "--database", f"sqlite:///{tmp}/punto.db"]
        command += ["--log-level", "warning"]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://{HOST}:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx2.get(f"{base}/api/health", timeout=1).status_code == 200:
                        break
                except httpx2.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.2)
            warm_up(base)
            time.sleep(args.settle)
            print(
                f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}"
            )
            before = memory(server.pid)
            print(f"baseline: {before:.0f} MiB")
            worst = 0.0
            for name in chosen:
                peak = [before]
                stop = threading.Event()

                def watch(peak: list[float] = peak, stop: threading.Event = stop) -> None:
                    while not stop.wait(0.2):
                        peak[0] = max(peak[0], memory(server.pid))
                    peak[0] = max(peak[0], memory(server.pid, "VmHWM"))

                watcher = threading.Thread(target=watch, daemon=True)
                watcher.start()
                FLOODS[name](base, args.seconds)
                stop.set()
                watcher.join()
                time.sleep(args.settle)
                after = memory(server.pid)
                worst = max(worst, after - before)
                print(
                    f"{name:>10}: peak {peak[0]:.0f} MiB, after {args.settle:g} s "
                    f"{after:.0f} MiB ({after - before:+.0f} MiB against the baseline)"
                )
            verdict = "within" if worst <= 50 else "NOT within"
            print(f"worst after a flood: {worst:+.0f} MiB, {verdict} 50 MiB of the baseline")
            return 0 if worst <= 50 else 1
        finally:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    sys.exit(main())
