"""Load test of the table server on loopback: many players betting at many tables.

::

    .venv/bin/python benchmarks/bench_server_load.py                   # SQLite, then PostgreSQL
    .venv/bin/python benchmarks/bench_server_load.py --database sqlite --seconds 10
    .venv/bin/python benchmarks/bench_server_load.py --rate 0          # flat out: saturation
    .venv/bin/python benchmarks/bench_server_load.py --players 200 --bets 3 --json   # CI size
    .venv/bin/python benchmarks/bench_server_load.py --bettors counter,flat   # + automated side bettors

The server runs in its own process (``create_app`` under uvicorn, as ``punto
serve`` runs it: uvloop and httptools, one process) on 127.0.0.1, with the
demo accounts and ``--tables`` extra tables dealt by automatic dealers with
short countdowns.  Up front, ``--players`` accounts are created, funded at
the cage and logged in (cheap Argon2 parameters for the setup: hashing is not
what is measured; a bet authenticates with its session token, a SHA-256
lookup).  Then every player bets at their table from their own keep-alive
connection -- ``--rate`` bets a second each (0: the next bet as soon as the
answer is in), each with its own ``Idempotency-Key`` -- until ``--seconds``
pass or each has made ``--bets`` bets, whichever comes first; some requests
are sent twice with the same key (a client retrying) and must get the same
bet back.  Each table is watched over its WebSocket (as its pages watch it),
and players wait for "Place your bets" there while the dealer deals (and
after a bet refused because betting had closed, as a page does: no bet
goes to a table its player knows is closed).

Measured: accepted bets a second over the betting period, and the latency of
bet requests (p50, p99, max) as the client sees it.  Checked after the last
round settles and the server stops: every acknowledged bet is in its round's
event log exactly once and in the ledger exactly once with its stake; no
other bet is held; every retried key got its first bet back; the trial
balance is 0 and the ledger audit is clean (no negative balance, every
posting balanced, each table's holding equal to its open bets).

With ``--bettors counter,flat`` the first players at each Tiger Baccarat and
Dragon Tiger table are automated side bettors (:mod:`punto.protection.players`):
a counter (Big Tiger, or Dragon Tiger) and a flat bettor betting its wager at
5% of rounds at random.  Each decides once per betting window from the cards
its table's WebSocket has shown (and the cards left, from each state), and
its bets are checked with the others.  Without the option nothing changes.

Everything stays on loopback, every loop is bounded in count and in time,
and the server process is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from punto.protection.edges import favoured, table_edges

HOST = "127.0.0.1"
#: The games of the load tables, in turn (Tiger Buffalo on its layout A).
GAMES = (
    ("tiger-baccarat", None),
    ("tiger-no-commission", None),
    ("baccarat-tournament", None),
    ("dragon-tiger", None),
    ("tiger-buffalo", "A"),
)
#: Wagers every one of those games offers.
WAGERS = ("banker", "player", "tie")
#: The playing positions of those tables (a table with no layout has the most
#: any of its game's layouts has; Tiger Buffalo's layout A has 6).  The players
#: of a table spread over them in turn: an MBS playing area holds at most three
#: wagers (3.7), and 20 players piled on the first positions would be refused
#: there, as the rules say, rather than measured.
POSITIONS = {
    "tiger-baccarat": 16,
    "tiger-no-commission": 16,
    "baccarat-tournament": 8,
    "dragon-tiger": 16,
    "tiger-buffalo": 6,
}
#: What a power failure with no outcome established leads to, by each game's
#: rules: MBS 5.17.1 (each player may withdraw all their wagers), RWS 5.4
#: (void); Tiger No Commission and Baccarat Tournament have no such clause.
POWER_FAILURE = {
    "tiger-baccarat": ("withdrawal", "5.17.1"),
    "dragon-tiger": ("withdrawal", "5.17.1"),
    "tiger-buffalo": ("void", "5.4"),
    "tiger-no-commission": ("continue", None),
    "baccarat-tournament": ("continue", None),
}
#: What each player is given at the cage.
FUNDS = "1000000.00"
#: How long after the load a bet whose answer was lost is sent again (seconds).
RESEND_SECONDS = 60.0
#: What :meth:`Connection.request` raises when the connection broke.
BROKEN = (OSError, asyncio.IncompleteReadError, ValueError)
#: Share of acknowledged bets sent again with the same key (a client retrying).
RETRY_SHARE = 0.02
#: The longest the whole run may take, whatever the options (seconds).
HARD_LIMIT = 600.0
#: --bettors: the side bet an automated bettor (punto.protection.players)
#: plays at a table of each game that has a counter.
SIDE_BETS = {"tiger-baccarat": "big_tiger", "dragon-tiger": "dragon_tiger"}
#: --bettors: the share of rounds a flat bettor bets at random.
FLAT_RATE = 0.05


# -- a small keep-alive HTTP/1.1 client (the load generator must be cheaper than the server) --


class Connection:
    """One keep-alive connection to the server; requests one at a time."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(payload)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        chunked = close = False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and b"close" in value.lower():
                close = True
        if chunked:
            data = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                data += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
            data = data[:-2]
        else:
            data = await self.reader.readexactly(length)
        if close:
            await self.close()
        return status, json.loads(data) if data else None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


# -- the server process ---------------------------------------------------------------------------

#: A card every this many seconds at the table a --kill-at kills mid-deal (the
#: others: 0.02 s): its deal lasts seconds, not a tenth of one, so that the
#: kill lands in it even when a busy machine keeps the load generator's loop
#: from acting on "dealing" for a while (a deal over before the kill came
#: left no round interrupted, and a CI run failed so).
KILL_CARD_DELAY = 0.5

#: Set (to "1") for the server processes of a run with --no-valuation.
NO_VALUATION = "PUNTO_BENCH_NO_VALUATION"


def serve(url: str, port: int) -> None:
    """The server (run in its own process by :func:`start_server`)."""
    import logging

    import uvicorn
    from argon2 import PasswordHasher

    from punto.server.app import create_app

    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("punto.server.tables.journal").setLevel(logging.INFO)
    app = create_app(
        url,
        demo=True,
        hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1),
        valuation=os.environ.get(NO_VALUATION) != "1",
    )
    uvicorn.run(
        app,
        host=HOST,
        port=port,
        log_level="warning",
        access_log=False,
        ws_max_size=64 * 1024,
        timeout_graceful_shutdown=5,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(url: str, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=None,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
            return process
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("the server did not start within 60 s")


class ServerProcess:
    """The server under load, which :meth:`kill` may SIGKILL and :meth:`restart` start again."""

    def __init__(self, url: str, port: int) -> None:
        self.url = url
        self.port = port
        self.process = start_server(url, port)
        #: when the kill came and when the server answered again (perf_counter)
        self.killed_at: float | None = None
        self.back_at: float | None = None

    def kill(self) -> None:
        """SIGKILL at once: no shutdown, bets and deals in flight."""
        self.process.send_signal(signal.SIGKILL)
        self.killed_at = time.perf_counter()

    def restart(self) -> None:
        """Start again on the same database and port, once the killed process is gone."""
        self.process.wait(10)
        self.process = start_server(self.url, self.port)
        self.back_at = time.perf_counter()

    def stop(self) -> None:
        stop_server(self.process)


class Servers:
    """The server processes under load, all on one database (``--processes``).

    Players and tables are spread over them; a client whose process stops
    answering goes on to the next one, as a reverse proxy would send it.
    With one process, a kill is followed by a restart on the same port; with
    several, the killed process stays down and another takes its tables over.
    """

    def __init__(self, url: str, count: int) -> None:
        self.url = url
        self.processes: list[ServerProcess] = []
        for _ in range(count):  # one at a time: the first creates the demo
            self.processes.append(ServerProcess(url, free_port()))
        #: the killed process's tables answering again through another (perf_counter)
        self.killed_at: float | None = None
        self.back_at: float | None = None

    @property
    def ports(self) -> list[int]:
        return [p.port for p in self.processes]

    def live_port(self) -> int:
        return next(p.port for p in self.processes if p.process.poll() is None)

    def holder(self, table: str) -> ServerProcess:
        """The process that holds the table's lease (the only one, with one process)."""
        if len(self.processes) == 1:
            return self.processes[0]
        from sqlalchemy import create_engine, text

        engine = create_engine(self.url)
        try:
            with engine.connect() as conn:
                owner = conn.execute(
                    text("SELECT owner FROM table_leases WHERE table_id = :t"), {"t": table}
                ).scalar_one()
        finally:
            engine.dispose()
        pid = int(str(owner).split("/")[1])
        return next(p for p in self.processes if p.process.pid == pid)

    def stop(self) -> None:
        # All told at once: one after the other, the last would take over the
        # tables each before it let go of, and be stopped in the middle of
        # resuming their rounds (an interrupted round the checks would count).
        running = [p.process for p in self.processes if p.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGINT)
        for process in running:
            stop_server(process, told=True)


def cpu_seconds(pids: list[int]) -> float | None:
    """The CPU time (user + system) the processes ``pids`` have used so far;
    None where /proc cannot say (not Linux, a process gone)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


async def _measure_cpu(
    servers: Servers, results: Results, warm: float, end: float, done: asyncio.Event
) -> None:
    """The servers' CPU time between the warm-up's end and the load's (its
    ``end``, or ``done`` once every player has made their ``--bets``): a cost a
    bet that a busy machine does not blur as it blurs the rates."""
    await asyncio.sleep(max(0.0, warm - time.perf_counter()))
    pids = [p.process.pid for p in servers.processes]
    before, players_before = cpu_seconds(pids), time.process_time()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), timeout=max(0.0, end - time.perf_counter()))
    after, results.players_cpu = cpu_seconds(pids), time.process_time() - players_before
    if before is not None and after is not None and servers.killed_at is None:
        results.server_cpu = after - before


def stop_server(process: subprocess.Popen[bytes], *, told: bool = False) -> None:
    """Stop the server gracefully (SIGINT, unless ``told`` already: a second one
    would cut its shutdown short), killed if it takes more than 30 s."""
    if process.poll() is None:
        if not told:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@contextlib.contextmanager
def database(kind: str, workdir: Path) -> Iterator[str]:
    """A fresh database: ``sqlite`` (a file), ``postgresql`` (a new schema in the
    database of ``$PUNTO_TEST_POSTGRES``, dropped afterwards), or a URL."""
    if kind == "sqlite":
        yield f"sqlite:///{workdir / f'load-{uuid.uuid4().hex[:8]}.db'}"
        return
    if kind != "postgresql":
        yield kind
        return
    from sqlalchemy import create_engine, text

    from punto.store.db import normalize_url

    base = os.environ.get("PUNTO_TEST_POSTGRES", "").strip()
    if not base:
        raise SystemExit('set PUNTO_TEST_POSTGRES, e.g. "$(bash scripts/postgres.sh)"')
    parsed = normalize_url(base)
    schema = f"load_{uuid.uuid4().hex[:12]}"
    admin = create_engine(parsed, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


# -- the load ------------------------------------------------------------------------------------------


@dataclass
class Results:
    latencies: list[float] = field(default_factory=list)  # bet requests after warm-up (s)
    all_latencies: list[float] = field(default_factory=list)  # warm-up included
    #: (when the request was sent, its latency), every bet request: the timeline
    sent: list[tuple[float, float]] = field(default_factory=list)
    accepted_latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    #: idempotency key -> (table, bet id, stake in cents)
    acknowledged: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    retries: int = 0
    retry_mismatches: list[str] = field(default_factory=list)
    #: keys sent at least once with no answer (the connection broke)
    unanswered: set[str] = field(default_factory=set)
    first_accept: float = 0.0
    last_accept: float = 0.0
    #: the server processes' CPU seconds over the measured window (None: not read)
    server_cpu: float | None = None
    players_cpu: float | None = None  # this process's: the load generator's own cost
    #: --bettors: per kind, the betting windows seen and the bets made
    side_bettors: dict[str, Counter[str]] = field(default_factory=dict)
    #: --bettors: per table, the cards its bettors saw in the shoe in use, and
    #: the cards gone from it by the server's count (equal without a burn)
    seen: dict[str, dict[str, int]] = field(default_factory=dict)


async def _setup(
    ports: list[int],
    players: int,
    tables: int,
    betting_seconds: float,
    route: str = "spread",
    *,
    slow_first: bool = False,
) -> list[Any]:
    """Tables, accounts, funds and sessions; returns (username, token, table,
    the index of the player's process) per player.  Table ``i`` is set up
    through process ``i``, so that each process runs its share of them.
    ``route``: ``spread``, every second player talks to a process that does
    not run their table (their bets forwarded); ``owner``, every player to
    the process that runs it, as a reverse proxy routing by table would.
    ``slow_first``: the first table deals a card every :data:`KILL_CARD_DELAY`
    (the table a ``--kill-at`` kills mid-deal)."""
    port = ports[0]
    admin, pit = Connection(port), Connection(port)
    _, body = await admin.request(
        "POST", "/api/auth/login", {"username": "admin", "password": "admin-password"}
    )
    admin_auth = {"Authorization": f"Bearer {body['token']}"}
    _, body = await pit.request(
        "POST", "/api/auth/login", {"username": "pit", "password": "pit-password"}
    )
    pit_auth = {"Authorization": f"Bearer {body['token']}"}
    table_ids: list[str] = []
    for i in range(tables):
        game, layout = GAMES[i % len(GAMES)]
        # Tables run on their own: countdowns from 90% to 110% of the given one,
        # so that their rounds do not open and settle in step.
        spread = 0.9 + 0.2 * i / max(tables - 1, 1)
        config = {
            "id": f"load-{i}",
            "game": game,
            "layout": layout,
            "mode": "auto",
            "betting_seconds": round(betting_seconds * spread, 3),
            "card_delay": KILL_CARD_DELAY if slow_first and i == 0 else 0.02,
            "insurance_seconds": 0.2,
            "result_seconds": 0.1,
            "limits": {"minimum": "1", "maximum": "1000000"},
            # the pit manager confirms the wagers that favour the player (Tiger
            # Pair under the literal 1.1.14; the Baccarat Tournament's Banker)
            "confirm_player_favoured": [e.wager for e in favoured(table_edges(game, layout, 8))],
        }
        setup = Connection(ports[i % len(ports)])
        status, body = await setup.request("POST", "/api/tables", config, pit_auth)
        await setup.close()
        assert status == 201, body
        table_ids.append(str(config["id"]))

    async def one(n: int, conn: Connection) -> tuple[str, str, str, int]:
        name = f"p{n:04d}"
        status, body = await conn.request(
            "POST",
            "/api/users",
            {"username": name, "password": f"password-{name}", "role": "player"},
            admin_auth,
        )
        assert status == 201, body
        status, body = await conn.request(
            "POST",
            "/api/cage/deposit",
            {"username": name, "amount": FUNDS, "key": f"load-funds-{name}"},
            pit_auth,
        )
        assert status == 201, body
        status, body = await conn.request(
            "POST", "/api/auth/login", {"username": name, "password": f"password-{name}"}
        )
        assert status == 200, body
        # A player's process: the one that runs their table, or, when there
        # are several and they are spread, another one every second player
        # (forwarded to the holder).
        table = n % len(table_ids)
        home = table if route == "owner" else table + n // len(table_ids)
        return name, body["token"], table_ids[table], home % len(ports)

    workers = [Connection(port) for _ in range(8)]
    out: list[Any] = []
    for start in range(0, players, len(workers)):
        batch = range(start, min(start + len(workers), players))
        out += await asyncio.gather(*(one(n, workers[k]) for k, n in enumerate(batch)))
    for conn in [admin, pit, *workers]:
        await conn.close()
    return out


class TableEyes:
    """What a seat sees of a table's shoe, from its watcher's messages (--bettors):
    the cards dealt face up, and from each state the shoe and the cards left in it."""

    def __init__(self) -> None:
        from punto.protection.players import ShoeView

        self._view_class = ShoeView
        self.view: ShoeView | None = None
        self.shoe_id: Any = None
        self.seen: set[tuple[str, int]] = set()
        self.windows = 0  # betting windows opened since watching

    def message(self, message: dict[str, Any]) -> None:
        from punto.rules.cards import parse_cards

        kind = message["type"]
        if kind == "state":
            shoe = message.get("shoe") or {}
            decks = int((message.get("table") or {}).get("decks") or 8)
            if self.view is None or shoe.get("id") != self.shoe_id:
                self.shoe_id = shoe.get("id")
                self.view = self._view_class(decks)
                self.seen.clear()
            # the server's count of the cards gone is the authority (a burn,
            # or the cards dealt before this seat was watching)
            self.view.gone = decks * 52 - int(shoe.get("cards_left") or 0)
            if (message.get("round") or {}).get("phase") == "betting":
                self.windows = max(self.windows, 1)
        elif kind == "card" and self.view is not None:
            key = (str(message["round_id"]), int(message["index"]))
            if key not in self.seen:
                self.seen.add(key)
                self.view.show(parse_cards(message["card"]))
        elif kind == "betting_open":
            self.windows += 1


class Gate(asyncio.Event):
    """Set while betting is open at a table, as its watcher last heard; counts
    the betting windows it has seen open."""

    def __init__(self) -> None:
        super().__init__()
        self.windows = 0
        self._opened = asyncio.Event()

    def set(self) -> None:
        if not self.is_set():
            self.windows += 1
            self._opened.set()
            self._opened = asyncio.Event()
        super().set()

    async def after(self, seen: int, end: float) -> None:
        """Until a betting window after the ``seen``-th opens (or ``end``)."""
        while self.windows <= seen and (left := end - time.perf_counter()) > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._opened.wait(), timeout=left)


async def _watch(
    ports: list[int],
    table: str,
    gate: Gate,
    end: float,
    done: asyncio.Event,
    eyes: TableEyes | None = None,
) -> None:
    """A page watching the table over the WebSocket: opens ``gate`` while betting is open,
    until ``end`` or ``done``.  A process that does not run the table (or is gone)
    closes: the next is tried."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    turn = 0
    # A flag, not only a cancel: wait_for (Python 3.11) can swallow the
    # cancellation of a receive that completes meanwhile, and the watcher then
    # ran on to ``end``.
    while time.perf_counter() < end and not done.is_set():  # again after a --kill-at
        port = ports[turn % len(ports)]
        turn += 1
        try:
            async with connect(f"ws://{HOST}:{port}/ws/tables/{table}", max_size=2**24) as ws:
                while time.perf_counter() < end and not done.is_set():
                    try:
                        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1.0))
                    except TimeoutError:
                        continue
                    kind = message["type"]
                    if eyes is not None:
                        eyes.message(message)
                    if kind == "state":
                        betting = (message["round"] or {}).get("phase") == "betting"
                        if betting:
                            gate.set()
                        else:
                            gate.clear()
                    elif kind == "betting_open":
                        gate.set()
                    elif kind == "betting_closed":
                        gate.clear()
        except (OSError, WebSocketException):
            gate.clear()
            await asyncio.sleep(0.2)


def _position(name: str, table: str, tables: int) -> int:
    """The player's playing position: the players of a table in turn over its positions."""
    game, _ = GAMES[int(table.rsplit("-", 1)[1]) % len(GAMES)]
    return int(name[1:]) // tables % POSITIONS[game] + 1


def _game(table: str) -> str:
    return GAMES[int(table.rsplit("-", 1)[1]) % len(GAMES)][0]


def _side_seats(players: list[Any], kinds: list[str]) -> dict[str, tuple[str, str, str, int]]:
    """--bettors: at each table of a game with a counter, its first players
    take the kinds asked for, one each: name -> (kind, token, table, process)."""
    out: dict[str, tuple[str, str, str, int]] = {}
    taken: Counter[str] = Counter()
    for name, token, table, home in players:
        if _game(table) in SIDE_BETS and taken[table] < len(kinds):
            out[name] = (kinds[taken[table]], token, table, home)
            taken[table] += 1
    return out


def _bet_of(key: str, position: int) -> tuple[int, dict[str, Any]]:
    """The stake and body of the bet ``key`` carries.  A key always carries the
    same bet: one whose answer was lost (or that was refused) goes again as it
    was, and is made once or not at all."""
    pick = random.Random(key)
    stake = pick.randint(1, 20)
    return stake, {"wager": pick.choice(WAGERS), "stake": str(stake), "position": position}


async def _reconnect(conn: Connection, ports: list[int], home: int) -> tuple[Connection, int]:
    """``conn`` broke: closed, and after a pause a new connection to the next
    process, as a proxy would (the same one, if it is the only one)."""
    await conn.close()
    home = (home + 1) % len(ports)
    await asyncio.sleep(0.2)
    return Connection(ports[home]), home


async def _player(
    ports: list[int],
    home: int,
    name: str,
    token: str,
    table: str,
    *,
    position: int,
    rate: float,
    bets: int,
    end: float,
    results: Results,
    rng: random.Random,
    gate: Gate,
    warm: float,
) -> None:
    conn = Connection(ports[home])
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/api/tables/{table}/bets"
    next_at = time.perf_counter() + (rng.random() / rate if rate else 0.0)
    made = 0
    try:
        while made < bets and time.perf_counter() < end:
            if rate:
                delay = next_at - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            if not gate.is_set():  # the dealer is dealing: wait for "Place your bets"
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(gate.wait(), timeout=max(0.0, end - time.perf_counter()))
                if time.perf_counter() >= end:
                    break
            if rate:
                next_at = max(next_at + 1 / rate, time.perf_counter() - 1 / rate)
            key = f"{name}-{made}"
            stake, body = _bet_of(key, position)
            headers = {**auth, "Idempotency-Key": key}
            window = gate.windows
            started = time.perf_counter()
            try:
                status, answer = await conn.request("POST", path, body, headers)
            except BROKEN as error:
                # The connection broke: counted, and a new one for the next bet.
                # The same key goes again next time: the bet is made once, or not at all.
                results.refusals[f"connection {type(error).__name__}"] += 1
                results.statuses[0] += 1
                results.unanswered.add(key)
                conn, home = await _reconnect(conn, ports, home)
                continue
            finished = time.perf_counter()
            measured = started >= warm
            results.all_latencies.append(finished - started)
            results.sent.append((started, finished - started))
            if measured:
                results.latencies.append(finished - started)
                results.statuses[status] += 1
            if status == 201:
                made += 1
                results.acknowledged[key] = (table, answer["bet"]["bet_id"], stake * 100)
                if measured:
                    results.accepted_latencies.append(finished - started)
                    results.first_accept = results.first_accept or started
                    results.last_accept = max(results.last_accept, finished)
                if rng.random() < RETRY_SHARE:  # the answer "got lost": send it again
                    try:
                        status, again = await conn.request("POST", path, body, headers)
                    except BROKEN:
                        await conn.close()
                        continue
                    results.retries += 1
                    if status != 201 or again["bet"]["bet_id"] != answer["bet"]["bet_id"]:
                        results.retry_mismatches.append(key)
            elif status in (409, 503):
                results.refusals[answer["error"]["type"]] += 1
                if answer["error"]["type"] == "BettingClosedError":
                    # "No more bets" came before the watcher heard it: as a
                    # page does, wait for the next "Place your bets".
                    await gate.after(window, end)
                else:
                    await asyncio.sleep(0.02)
            else:
                results.refusals[f"{status} {answer['error']['type']}"] += 1
                if status == 402:
                    break
                await asyncio.sleep(0.05)
        # A bet whose answer was lost is sent again until it is answered, as a
        # client does, even after the load's end: it was made once (its first
        # answer comes back) or not at all.  Left unsent, a bet made just
        # before a kill stayed in the log unacknowledged when the server came
        # back after the load's end (a slow restart on a busy machine).
        key = f"{name}-{made}"
        deadline = time.perf_counter() + RESEND_SECONDS
        while key in results.unanswered and time.perf_counter() < deadline:
            stake, body = _bet_of(key, position)
            try:
                status, answer = await conn.request(
                    "POST", path, body, {**auth, "Idempotency-Key": key}
                )
            except BROKEN:
                conn, home = await _reconnect(conn, ports, home)
                continue
            if status == 201:
                results.acknowledged[key] = (table, answer["bet"]["bet_id"], stake * 100)
            break
    finally:
        await conn.close()


async def _side_bettor(
    ports: list[int],
    home: int,
    name: str,
    token: str,
    table: str,
    *,
    kind: str,
    game: str,
    position: int,
    bets: int,
    end: float,
    results: Results,
    gate: Gate,
    eyes: TableEyes,
    seed: str,
    warm: float,
) -> None:
    """An automated side bettor (--bettors): once per betting window, decides
    from the cards its table has shown whether to bet, and bets one unit."""
    from punto.protection.players import FlatBettor, big_tiger_counter, dragon_tiger_counter
    from punto.rules.games import get_game

    wager = SIDE_BETS[game]
    player: Any
    if kind == "flat":
        player = FlatBettor(
            name, (wager,), FLAT_RATE, random.Random(f"{seed}-{name}").getrandbits(32)
        )
    elif game == "tiger-baccarat":
        player = big_tiger_counter()
    else:
        player = dragon_tiger_counter(get_game(game))
    tally = results.side_bettors.setdefault(kind, Counter())
    conn = Connection(ports[home])
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/api/tables/{table}/bets"
    decided = 0
    made = 0
    try:
        while made < bets and time.perf_counter() < end:
            if not gate.is_set() or eyes.view is None or eyes.windows == decided:
                await asyncio.sleep(0.02)
                continue
            decided = eyes.windows
            tally["windows"] += 1
            stake = player.bets(eyes.view)[wager]
            if not stake:
                continue
            key = f"{name}-{made}"  # refused, it goes again as it was
            body = {"wager": wager, "stake": str(stake), "position": position}
            started = time.perf_counter()
            try:
                status, answer = await conn.request(
                    "POST", path, body, {**auth, "Idempotency-Key": key}
                )
            except BROKEN as error:
                await conn.close()
                results.refusals[f"connection {type(error).__name__}"] += 1
                results.unanswered.add(key)
                conn = Connection(ports[home])
                continue
            finished = time.perf_counter()
            results.all_latencies.append(finished - started)
            results.sent.append((started, finished - started))
            if started >= warm:
                results.latencies.append(finished - started)
                results.statuses[status] += 1
            if status == 201:
                made += 1
                tally["bets"] += 1
                results.acknowledged[key] = (table, answer["bet"]["bet_id"], stake * 100)
            else:
                results.refusals[f"{status} {answer['error']['type']}"] += 1
    finally:
        await conn.close()


async def _settle_all(port: int, tables: list[str], timeout: float) -> None:
    """Wait until every table's round in play (at the end of the load) is settled,
    and every other table's round being dealt (the demo's, which a SIGKILL
    interrupts too: one offered the withdrawal of MBS 5.17.1 ends well after
    the load on a busy machine, and the checks want its end)."""
    conn = Connection(port)
    deadline = time.monotonic() + timeout
    try:
        _, listed = await conn.request("GET", "/api/tables")
        dealt = [
            t["id"]
            for t in listed
            if t["id"] not in tables and (t["round"] or {}).get("phase") in ("dealing", "result")
        ]
        for table in [*tables, *dealt]:
            _, state = await conn.request("GET", f"/api/tables/{table}")
            first = state["round"]["id"] if state["round"] else None
            while time.monotonic() < deadline:
                _, state = await conn.request("GET", f"/api/tables/{table}")
                r = state["round"]
                if r is None or r["id"] != first or r["phase"] in ("settled", "void"):
                    break
                await asyncio.sleep(0.05)
    finally:
        await conn.close()


async def _kill_at(servers: Servers, at: float, tables: list[str]) -> None:
    """At ``at`` (perf_counter), once some table has a card or more out and its
    coup is not complete (waiting at most 20 s for one), SIGKILL the process
    that runs it.  One process: start it again on the same database and port.
    Several: leave it dead, and wait until another has taken that table over."""
    await asyncio.sleep(max(0.0, at - time.perf_counter()))
    conn = Connection(servers.ports[0])
    deadline = time.perf_counter() + 20
    chosen = tables[0]
    try:
        while time.perf_counter() < deadline:
            for table in tables:
                _, state = await conn.request("GET", f"/api/tables/{table}")
                r = state["round"] or {}
                if r.get("phase") == "dealing" and r.get("cards"):
                    chosen = table
                    break
            else:
                await asyncio.sleep(0.005)
                continue
            break
    finally:
        await conn.close()
    victim = servers.holder(chosen) if len(servers.processes) > 1 else servers.processes[0]
    # Killed from the loop, without a thread's start-up in between: the coup
    # seen in play has a few card delays left (KILL_CARD_DELAY each).
    victim.kill()
    servers.killed_at = victim.killed_at
    if len(servers.processes) == 1:
        await asyncio.to_thread(victim.restart)
        servers.back_at = victim.back_at
        return
    await asyncio.to_thread(victim.process.wait, 10)
    # Taken over: another process holds the lease and answers for the table.
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline:
        # (the lease row and the survivors may be mid-change: asked again)
        with contextlib.suppress(Exception):
            if servers.holder(chosen) is not victim:
                probe = Connection(servers.live_port())
                try:
                    status, _ = await probe.request("GET", f"/api/tables/{chosen}")
                finally:
                    await probe.close()
                if status == 200:
                    servers.back_at = time.perf_counter()
                    return
        await asyncio.sleep(0.05)


async def _load(args: argparse.Namespace, servers: Servers) -> tuple[Results, dict[str, Any]]:
    ports = servers.ports
    setup_started = time.perf_counter()
    players = await _setup(
        ports,
        args.players,
        args.tables,
        args.betting_seconds,
        args.route,
        slow_first=args.kill_at is not None,
    )
    setup_seconds = time.perf_counter() - setup_started
    results = Results()
    start = time.perf_counter()
    end = start + args.seconds
    tables = sorted({t for _, _, t, _ in players})
    gates = {table: Gate() for table in tables}
    players_done = asyncio.Event()
    cpu = asyncio.create_task(
        _measure_cpu(servers, results, start + args.warmup, end, players_done)
    )
    kinds = [k for k in (args.bettors or "").split(",") if k]
    side = _side_seats(players, kinds)
    eyes = {t: TableEyes() for _, _, t, _ in side.values()} if side else {}
    watchers = [
        asyncio.create_task(_watch(ports, t, gates[t], end, players_done, eyes.get(t)))
        for t in tables
    ]
    killer = (
        asyncio.create_task(_kill_at(servers, start + args.kill_at, tables[:1]))  # the slow one
        if args.kill_at is not None
        else None
    )
    await asyncio.gather(
        *(
            _player(
                ports,
                home,
                name,
                token,
                table,
                position=_position(name, table, args.tables),
                rate=args.rate,
                bets=args.bets,
                end=end,
                results=results,
                rng=random.Random(f"{args.seed}-{name}"),
                gate=gates[table],
                warm=start + args.warmup,
            )
            for name, token, table, home in players
            if name not in side
        ),
        *(
            _side_bettor(
                ports,
                home,
                name,
                token,
                table,
                kind=kind,
                game=_game(table),
                position=_position(name, table, args.tables),
                bets=args.bets,
                end=end,
                results=results,
                gate=gates[table],
                eyes=eyes[table],
                seed=args.seed,
                warm=start + args.warmup,
            )
            for name, (kind, token, table, home) in side.items()
        ),
    )
    elapsed = time.perf_counter() - start
    players_done.set()
    await cpu
    if killer is not None:
        await killer  # (a restart still under way is waited for)
    for table, seat in eyes.items():
        if seat.view is not None:
            results.seen[table] = {
                "cards_seen": sum(seat.view.shown),
                "cards_gone": seat.view.gone,
            }
    for watcher in watchers:
        watcher.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    await _settle_all(servers.live_port(), tables, timeout=60)
    timing = {"setup_seconds": setup_seconds, "load_seconds": elapsed}
    if servers.killed_at is not None and servers.back_at is not None:
        timing["killed_after_seconds"] = servers.killed_at - start
        timing["restart_seconds"] = servers.back_at - servers.killed_at
    return results, timing


def _timeline(sent: list[tuple[float, float]], step: float = 0.5) -> list[dict[str, float]]:
    """Requests, p50 and p99 (ms) of the bets sent in each ``step`` seconds of
    the load: where the warm-up's cost lies."""
    if not sent:
        return []
    start = min(t for t, _ in sent)
    buckets: dict[int, list[float]] = {}
    for t, latency in sent:
        buckets.setdefault(int((t - start) / step), []).append(latency)
    return [
        {
            "from": n * step,
            "requests": len(b),
            "p50_ms": _percentile(b, 0.50) * 1000,
            "p99_ms": _percentile(b, 0.99) * 1000,
        }
        for n, b in sorted(buckets.items())
    ]


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def verify(url: str, results: Results) -> dict[str, Any]:
    """Check the books and the logs after the server stopped."""
    from sqlalchemy import func, select

    from punto.store.db import connect, ledger_bets, ledger_transactions, table_events
    from punto.store.ledger import Ledger

    engine = connect(url)
    try:
        ledger = Ledger(engine)
        audit = ledger.audit()
        tables = sorted({t for t, _, _ in results.acknowledged.values()})
        with engine.connect() as conn:
            placed: Counter[tuple[str, str]] = Counter()
            logged_stake: dict[tuple[str, str], int] = {}
            for table_id, body in conn.execute(
                select(table_events.c.table_id, table_events.c.body).where(
                    table_events.c.table_id.in_(tables), table_events.c.type == "bet_placed"
                )
            ):
                event = json.loads(body)
                placed[(table_id, event["bet_id"])] += 1
                logged_stake[(table_id, event["bet_id"])] = int(Decimal(event["stake"]) * 100)
            held = {
                (t, b): (int(p), s)
                for t, b, p, s in conn.execute(
                    select(
                        ledger_bets.c.table_id,
                        ledger_bets.c.bet_id,
                        ledger_bets.c.placed,
                        ledger_bets.c.status,
                    ).where(ledger_bets.c.table_id.in_(tables))
                )
            }
            open_bets = conn.execute(
                select(func.count())
                .select_from(ledger_bets)
                .where(ledger_bets.c.table_id.in_(tables), ledger_bets.c.status == "open")
            ).scalar_one()
            # Nothing here voids a round after settlement: a resettlement would be
            # a restart putting right a settlement it should have left alone.
            resettlements = conn.execute(
                select(func.count())
                .select_from(ledger_transactions)
                .where(
                    ledger_transactions.c.table_id.in_(tables),
                    ledger_transactions.c.kind == "resettlement",
                )
            ).scalar_one()
        problems = []
        for key, (table, bet_id, stake) in results.acknowledged.items():
            if placed[(table, bet_id)] != 1:
                problems.append(
                    f"{key}: bet {bet_id} is in the log {placed[(table, bet_id)]} times"
                )
            elif logged_stake[(table, bet_id)] != stake:
                problems.append(f"{key}: bet {bet_id} logged with another stake")
            if (table, bet_id) not in held or held[(table, bet_id)][0] != stake:
                problems.append(f"{key}: bet {bet_id} is not in the ledger with its stake")
        acknowledged_ids = {(t, b) for t, b, _ in results.acknowledged.values()}
        extra_in_log = [k for k, n in placed.items() if n and k not in acknowledged_ids]
        extra_in_ledger = [
            k
            for k, (_, status) in held.items()
            if k not in acknowledged_ids and status != "returned"
        ]
        return {
            "trial_balance": ledger.trial_balance(),
            "audit_ok": audit.ok,
            "audit_problems": list(audit.problems)[:10],
            "acknowledged": len(results.acknowledged),
            "bets_in_log": sum(placed.values()),
            "problems": problems[:20],
            "problem_count": len(problems),
            "unacknowledged_in_log": len(extra_in_log),
            "unacknowledged_held": len(extra_in_ledger),
            "open_after_settling": int(open_bets),
            "resettlements": int(resettlements),
            "retries": results.retries,
            "retry_mismatches": len(results.retry_mismatches),
            "unanswered": len(results.unanswered),
        }
    finally:
        engine.dispose()


def interrupted_rounds(url: str) -> list[dict[str, Any]]:
    """Every round a kill interrupted (it has ``power_failed``), and whether what
    followed is what its game's rules say (:data:`POWER_FAILURE`), given whether
    the cards out by then had established an outcome -- as the engine judges it
    from the log up to the failure, read into a table that recovers nothing."""
    from sqlalchemy import select

    from punto.eventlog import MemoryEventLog
    from punto.server.tables.config import TableStore
    from punto.store.db import connect, table_events
    from punto.store.sql_log import SQLEventLog
    from punto.table.events import TABLE_STREAM
    from punto.table.round import Phase

    engine = connect(url)
    try:
        with engine.connect() as conn:
            hit = sorted(
                {
                    (str(t), str(r))
                    for t, r in conn.execute(
                        select(table_events.c.table_id, table_events.c.round_id).where(
                            table_events.c.type == "power_failed"
                        )
                    )
                }
            )
        store, log = TableStore(engine), SQLEventLog(engine, TABLE_STREAM)
        out = []
        for table_id, round_id in hit:
            config = store.get(table_id)
            stored = list(log.read(table_id))
            failed = next(
                i
                for i, e in enumerate(stored)
                if e.round_id == round_id and e.event.type == "power_failed"
            )
            before = MemoryEventLog(TABLE_STREAM)
            for e in stored[:failed]:
                before.append(table_id, e.event, round_id=e.round_id)
            live = config.live_table(before, recover=False)
            r = live.round
            assert r is not None
            assert r.round_id == round_id
            established = r.phase is Phase.RESULT or r.outcome_established()
            rule, clause = POWER_FAILURE[config.game]
            expected = "continue" if established else rule
            after = [e.event for e in stored[failed + 1 :] if e.round_id == round_id]
            kinds = [e.type for e in after]
            clauses = [str(getattr(e, "clause", "")) for e in after]
            if "round_voided" in kinds:
                happened = "void"
            elif "withdrawal_offered" in kinds:
                happened = "withdrawal"
            else:
                happened = "continue"
            ends = "settled" if "round_settled" in kinds else "void" if happened == "void" else None
            ok = (
                happened == expected
                and ends is not None
                and (
                    clause is None
                    or happened == "continue"
                    or any(c == clause or c.startswith(f"{clause}.") for c in clauses)
                )
                and r.phase in (Phase.DEALING, Phase.RESULT)
            )
            out.append(
                {
                    "table": table_id,
                    "game": config.game,
                    "round": round_id,
                    "cards_out": len(r.deal.cards),
                    "established": established,
                    "expected": expected,
                    "happened": happened,
                    "ended": ends,
                    "ok": ok,
                }
            )
        return out
    finally:
        engine.dispose()


def _players_loop() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The players' event loop: uvloop's, as the server's, where it is installed.
    The players run on the cores the server and the database are measured on,
    and asyncio's own loop took 13% more of them for the same bets (0.34-0.36
    ms of CPU a bet against 0.30-0.31)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(args: argparse.Namespace, kind: str, workdir: Path) -> dict[str, Any]:
    with database(kind, workdir) as url:
        servers = Servers(url, args.processes)
        try:
            with asyncio.Runner(loop_factory=_players_loop()) as runner:
                results, timing = runner.run(
                    asyncio.wait_for(_load(args, servers), timeout=args.seconds + HARD_LIMIT / 2)
                )
        finally:
            servers.stop()
        checks = verify(url, results)
        checks["interrupted"] = interrupted_rounds(url)
    accepted = len(results.accepted_latencies)
    window = max(results.last_accept - results.first_accept, 1e-9)
    ok = (
        checks["trial_balance"] == 0
        and checks["audit_ok"]
        and checks["problem_count"] == 0
        and checks["unacknowledged_in_log"] == 0
        and checks["unacknowledged_held"] == 0
        and checks["retry_mismatches"] == 0
        and checks["open_after_settling"] == 0
        and checks["resettlements"] == 0
        and all(r["ok"] for r in checks["interrupted"])
        and (args.kill_at is None or bool(checks["interrupted"]))
        and accepted > 0
    )
    ms = 1000.0
    return {
        "database": kind if kind in ("sqlite", "postgresql") else "url",
        "processes": args.processes,
        "route": args.route,
        "players": args.players,
        "tables": args.tables,
        "rate_per_player": args.rate,
        "accepted": accepted,
        "requests": len(results.latencies),
        "accepted_per_second": accepted / window,
        "requests_per_second": len(results.latencies)
        / max(timing["load_seconds"] - args.warmup, 1e-9),
        "latency_ms": {
            "p50": _percentile(results.latencies, 0.50) * ms,
            "p90": _percentile(results.latencies, 0.90) * ms,
            "p99": _percentile(results.latencies, 0.99) * ms,
            "max": max(results.latencies, default=float("nan")) * ms,
        },
        "warmup_seconds": args.warmup,
        "latency_with_warmup_ms": {
            "p50": _percentile(results.all_latencies, 0.50) * ms,
            "p99": _percentile(results.all_latencies, 0.99) * ms,
        },
        "accepted_latency_ms": {
            "p50": _percentile(results.accepted_latencies, 0.50) * ms,
            "p99": _percentile(results.accepted_latencies, 0.99) * ms,
        },
        # CPU the server processes spent per bet accepted after the warm-up
        "server_cpu_ms_per_bet": (
            results.server_cpu * ms / accepted
            if results.server_cpu is not None and accepted
            else None
        ),
        # CPU the players (this process) spent per bet accepted, the same window:
        # what the load generator takes of the cores the rest is measured on
        "players_cpu_ms_per_bet": (
            results.players_cpu * ms / accepted
            if results.players_cpu is not None and accepted
            else None
        ),
        "timeline": _timeline(results.sent),
        "statuses": {str(k): v for k, v in sorted(results.statuses.items())},
        "refusals": dict(results.refusals),
        **(
            {
                "side_bettors": {k: dict(v) for k, v in results.side_bettors.items()},
                "side_bettor_tables": results.seen,
            }
            if results.side_bettors
            else {}
        ),
        **timing,
        "checks": checks,
        "ok": ok,
    }


def describe_machine() -> str:
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def report(result: dict[str, Any]) -> str:
    lat = result["latency_ms"]
    c = result["checks"]
    return (
        f"{result['database']:>10}"
        + (
            f" x{result['processes']} ({result.get('route', 'spread')})"
            if result.get("processes", 1) > 1
            else ""
        )
        + f": {result['accepted']} bets accepted, "
        f"{result['accepted_per_second']:.0f}/s; {result['requests']} bet requests "
        f"({result['requests_per_second']:.0f}/s); latency p50 {lat['p50']:.1f} ms, "
        f"p90 {lat['p90']:.1f} ms, p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms "
        f"(after {result['warmup_seconds']:g} s warm-up; with it p99 "
        f"{result['latency_with_warmup_ms']['p99']:.1f} ms)"
        + (
            f"; server CPU {result['server_cpu_ms_per_bet']:.2f} ms a bet"
            if result.get("server_cpu_ms_per_bet") is not None
            else ""
        )
        + (
            f", players' {result['players_cpu_ms_per_bet']:.2f} ms"
            if result.get("players_cpu_ms_per_bet") is not None
            else ""
        )
        + "\n"
        f"{'':>12}statuses {result['statuses']}, refusals {result['refusals']}\n"
        f"{'':>12}checks: trial balance {c['trial_balance']}, audit "
        f"{'clean' if c['audit_ok'] else c['audit_problems']}, {c['acknowledged']} acknowledged / "
        f"{c['bets_in_log']} in the log, {c['problem_count']} problems, "
        f"{c['retries']} retries ({c['retry_mismatches']} mismatched), "
        f"{c['open_after_settling']} open after settling"
        + _report_kill(result)
        + f" -> {'OK' if result['ok'] else 'FAILED'}"
    )


def _report_kill(result: dict[str, Any]) -> str:
    if "killed_after_seconds" not in result:
        return ""
    rounds = ", ".join(
        f"{r['table']} {r['round']} ({r['game']}, {r['cards_out']} cards out): "
        f"{r['happened']}{'' if r['ok'] else ' WRONG, expected ' + r['expected']}"
        for r in result["checks"]["interrupted"]
    )
    return (
        f"; SIGKILL at {result['killed_after_seconds']:.1f} s, "
        + ("taken over after " if result.get("processes", 1) > 1 else "serving again after ")
        + f"{result['restart_seconds']:.1f} s; {result['checks']['unanswered']} requests lost "
        f"their answer and were sent again; interrupted rounds: {rounds or 'none'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", action="append", help="sqlite, postgresql or a URL")
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the load runs")
    parser.add_argument("--bets", type=int, default=10**9, help="most bets per player")
    parser.add_argument(
        "--rate", type=float, default=6.0, help="bets a second per player; 0: flat out"
    )
    parser.add_argument("--betting-seconds", type=float, default=5.0)
    parser.add_argument(
        "--warmup",
        type=float,
        default=2.0,
        help="seconds at the start not measured (every bet is still checked)",
    )
    parser.add_argument(
        "--kill-at",
        type=float,
        metavar="SECONDS",
        help="SIGKILL the server this long into the load, once a table is mid-deal, "
        "and start it again on the same database (the fault test)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes on the one database (PostgreSQL), players and tables "
        "spread over them",
    )
    parser.add_argument(
        "--route",
        choices=["spread", "owner"],
        default="spread",
        help="with --processes: spread, every second player sends to a process that "
        "does not run their table (forwarded); owner, each player to the process that "
        "runs their table, as a reverse proxy routing by table would (default: spread)",
    )
    parser.add_argument(
        "--bettors",
        metavar="KINDS",
        help="automated side bettors, e.g. counter,flat: at each Tiger Baccarat and Dragon "
        "Tiger table the first players are a counter (punto.protection.players) and a "
        "flat bettor on its wager, one of each kind listed (default: none)",
    )
    parser.add_argument(
        "--no-valuation",
        action="store_true",
        help="serve without valuing the bets at placement: what valuing costs",
    )
    parser.add_argument("--seed", default="punto")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--serve", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.no_valuation:  # read by the server processes, which inherit it
        os.environ[NO_VALUATION] = "1"
    if args.serve:
        serve(args.serve, args.port)
        return 0
    args.seconds = min(args.seconds, HARD_LIMIT / 2)
    if args.processes < 1:
        parser.error("--processes must be 1 or more")
    if args.bettors and set(args.bettors.split(",")) - {"counter", "flat"}:
        parser.error("--bettors takes counter and flat, e.g. --bettors counter,flat")
    kinds = args.database or ["sqlite", "postgresql"]
    import tempfile

    out = []
    with tempfile.TemporaryDirectory(prefix="punto-load-") as tmp:
        for kind in kinds:
            result = run(args, kind, Path(tmp))
            out.append(result)
            if not args.json:
                print(report(result), flush=True)
    if args.json:
        print(json.dumps({"machine": describe_machine(), "runs": out}, indent=1))
    else:
        print(f"machine: {describe_machine()}")
    return 0 if all(r["ok"] for r in out) else 1


if __name__ == "__main__":
    sys.exit(main())
