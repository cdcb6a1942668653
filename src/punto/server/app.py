"""The ASGI application: :func:`create_app`.

>>> app = create_app("sqlite://", demo=False)
>>> app.title
'punto table server'

Starting the app (its lifespan) opens the database and migrates it, creates
the demo tables and accounts with ``demo=True``, restores every table from its
event log -- a round interrupted mid-deal continues under the game's power
failure rules -- brings the ledger in step with the rounds, and starts an
automatic dealer for each self-running table.  Stopping it stops the dealers
after the move each is making, and writes what is waiting.

On SQLite one process serves every table; on PostgreSQL several share them,
each table run by the holder of its lease (:mod:`punto.server.cluster.ownership`),
a request for another's table forwarded to it (:mod:`punto.server.cluster.forwarding`),
its watchers on any process (:mod:`punto.server.cluster.relay`).
Everything the tables write goes through
one :class:`punto.server.tables.journal.Journal` (group commits: a bet is durable,
with its stake on the ledger, before it is acknowledged); the most frequent
request, a player's bet, takes a fast lane in front of the router
(:mod:`punto.server.routes.fastlane`); sessions are checked against the database
once in a while, not on every request (:class:`punto.server.security.auth.SessionCache`).
While it runs, the server also shortens the interpreter's thread switch
interval (so the journal's thread is not kept waiting behind the event loop)
and keeps the garbage collector's full passes short (see
:func:`_keep_collections_short`).  ``benchmarks/bench_server_load.py``
measures all this: well over 1,000 bets a second on two cores.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI
from sqlalchemy.engine import Engine

from punto.server import http_errors
from punto.server.cluster.forwarding import Forward, Forwarding
from punto.server.cluster.leases import LeaseSettings
from punto.server.cluster.ownership import Ownership, lease_settings
from punto.server.cluster.relay import Relay
from punto.server.demo import create_demo, create_demo_tournament
from punto.server.notices import Notices
from punto.server.routes import admin, api, errors, i18n, logins, pages, ws
from punto.server.routes.fastlane import FastLane
from punto.server.security import guard, limits, logs
from punto.server.security.auth import SessionCache
from punto.server.services import Server
from punto.server.tables.advantage import AdvantageWatch
from punto.server.tables.config import AuditLog, TableStore
from punto.server.tables.hub import Hub
from punto.server.tables.journal import Journal
from punto.server.tables.valuation import Valuation
from punto.server.tournaments import routes as live
from punto.server.tournaments.deps import service_of
from punto.store import db
from punto.store.accounts import Accounts, PasswordHasher
from punto.store.bounds import MoneyBounds
from punto.store.ledger import Ledger
from punto.store.statistics import analyze_grown

log = logging.getLogger("punto.server.app")

DEFAULT_DATABASE = "sqlite:///punto.db"
#: Worker threads for the handlers (most of them wait: for a table, for a commit).
WORKER_THREADS = 64
#: The interpreter's thread switch interval while the server runs (seconds).
SWITCH_INTERVAL = 0.001
#: How often what has lived a while is moved out of the garbage collector's sight.
FREEZE_SECONDS = 1.0
#: How often what was frozen is thawed and its cyclic garbage reclaimed (seconds).
RECLAIM_SECONDS = 60.0
#: The garbage collector's young-generation threshold while the server runs
#: (Python's is 700 container objects).
YOUNG_THRESHOLD = 20_000
#: How often the statistics of tables that have grown are made (PostgreSQL).
STATISTICS_SECONDS = 5.0


def _trimmer() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)``, or None elsewhere."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], object] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return lambda: trim(0)


_TRIM = _trimmer()


def _give_back() -> None:
    """Return the C library's free heap memory to the system (glibc keeps what
    Python freed for reuse, and a flood's worth stays resident otherwise)."""
    if _TRIM is not None:
        _TRIM()


async def _keep_collections_short() -> None:
    """Keep the garbage collector's full passes short.

    A table keeps its rounds, and each round its bets and events, for the
    life of the process: a heap that only grows.  A full collection walks all
    of it and stops every thread meanwhile -- under load, a pause of 100 ms
    and more every second or so, which every bet in flight waits out.  So
    what has lived a while is frozen (moved out of the collector's sight;
    it is still freed when nothing refers to it) now and every
    :data:`FREEZE_SECONDS`: full passes then walk only what is new.  The
    young collections come every :data:`YOUNG_THRESHOLD` objects, not
    Python's 700: a bet's objects live as long as its request (milliseconds),
    and at 700 they were walked two and three times before they died (in a
    20 s load run, 2.3 s of collecting; 0.7 s at 20,000).  Before each
    freeze the young cyclic garbage is collected.  A cycle that becomes
    garbage after it was frozen is not reclaimed by those passes -- every
    connection that lived past a freeze is one (a WebSocket's protocol, with
    its compressor: 300 sockets opened and closed kept 14 MiB each time, and
    memory grew flood after flood) -- so every :data:`RECLAIM_SECONDS` what
    was frozen is thawed and collected in one full pass, then frozen again:
    one pause a minute instead of one a second; and the C library is asked to
    give its free memory back to the system (:func:`_give_back`), so that
    after a flood the process's memory comes back down, not only stops
    growing.
    """
    gc.freeze()
    loop = asyncio.get_running_loop()
    reclaimed = loop.time()
    while True:
        await asyncio.sleep(FREEZE_SECONDS)
        if loop.time() - reclaimed >= RECLAIM_SECONDS:
            reclaimed = loop.time()
            gc.unfreeze()
            gc.collect()
            _give_back()
        else:
            gc.collect(1)  # the young cyclic garbage goes first, not into the freeze
        gc.freeze()


async def _keep_statistics(engine: Engine) -> None:
    """Have PostgreSQL's statistics follow the tables as they grow
    (:func:`punto.store.statistics.analyze_grown`): on a young database,
    sooner than autovacuum would."""
    while True:
        try:
            await asyncio.to_thread(analyze_grown, engine)
        except Exception:  # the next turn tries again
            log.warning("statistics: analysing the grown tables failed", exc_info=True)
        await asyncio.sleep(STATISTICS_SECONDS)


def create_app(
    database_url: str = DEFAULT_DATABASE,
    *,
    demo: bool = False,
    hasher: PasswordHasher | None = None,
    auto_dealers: bool = True,
    max_body: int = http_errors.MAX_BODY,
    demo_options: dict[str, Any] | None = None,
    on_ready: Callable[[Server], None] | None = None,
    trusted_origins: Iterable[str] = (),
    ws_per_client: int = limits.WS_PER_CLIENT,
    requests_per_address: int = limits.share(limits.MAX_CONNECTIONS),
    allowed_hosts: Iterable[str] = (),
    money_bounds: MoneyBounds | None = None,
    leases: LeaseSettings | bool | None = None,
    valuation: bool = True,
    demo_tournament: bool | dict[str, float] = True,
) -> FastAPI:
    """The table server on the database at ``database_url``.

    ``demo``: create (once) the demo tables and accounts.  ``hasher``: the
    Argon2 parameters (tests pass cheap ones).  ``auto_dealers=False`` leaves
    self-running tables still (tests drive them with ``TableRuntime.step``).
    ``demo_options`` override the demo tables' settings (e.g. fast timings).
    ``trusted_origins`` (besides the server's own), ``ws_per_client``,
    ``requests_per_address`` and ``allowed_hosts`` (none: any):
    :class:`punto.server.security.guard.Guard`'s settings (the connection deadlines
    and caps are the protocol's: :mod:`punto.server.security.connections`).
    ``money_bounds``: the cage's bounds (:mod:`punto.store.bounds`).
    ``leases``: run only the tables this process holds the lease of
    (:mod:`punto.server.cluster.ownership`); on by default on PostgreSQL, where several
    processes may share the database, off on SQLite (one process serves a file).
    ``valuation``: value every bet at placement and feed the players'
    detectors; off only to measure what that costs.
    ``demo_tournament``: with ``demo``, the demo's tournament too
    (:func:`punto.server.demo.create_demo_tournament`; a dict gives its
    ``betting_seconds`` and ``pause_seconds``).
    """
    forwarding = Forwarding()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = await asyncio.to_thread(db.connect, database_url)
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        # Handlers wait in worker threads for their table and the journal's commit.
        anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
        # The journal's thread must get the interpreter back soon after each write
        # while the event loop is busy: a shorter switch interval than Python's 5 ms.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
        thresholds = gc.get_threshold()
        gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])
        settings = lease_settings(leases, sqlite=db.is_sqlite(engine))
        ownership = Ownership(engine, settings) if settings is not None else None
        journal = Journal(engine, checks=ownership.check if ownership else None)
        advantage = AdvantageWatch(engine, journal, hub)
        server = Server(
            engine=engine,
            accounts=Accounts(engine, hasher=hasher),
            ledger=Ledger(engine),
            store=TableStore(engine),
            audit=AuditLog(engine, journal),
            hub=hub,
            journal=journal,
            sessions=SessionCache(),
            auto_dealers=auto_dealers,
            money_bounds=money_bounds or MoneyBounds(),
            ownership=ownership,
            valuation=Valuation(journal, on_valued=advantage.valued, on_offers=advantage.offered)
            if valuation
            else None,
            advantage=advantage,
        )
        if demo:
            await asyncio.to_thread(create_demo, server, **(demo_options or {}))
        app.state.server = server
        await server.start()
        notices = Notices()  # LISTEN/NOTIFY (PostgreSQL): requests and watchers elsewhere
        relay = Relay(hub, server.tables)
        if ownership is not None and not db.is_sqlite(engine):
            await forwarding.start(engine, ownership, notices)
            await relay.start(engine, ownership.owner, notices)
            notices.start(engine)
        await live.start(app)  # the live tournaments' clocks, as the dealers above
        if demo and demo_tournament is not False:
            timing = demo_tournament if isinstance(demo_tournament, dict) else {}
            await asyncio.to_thread(create_demo_tournament, service_of(app), **timing)
        collector = asyncio.create_task(_keep_collections_short())
        statistics = None if db.is_sqlite(engine) else asyncio.create_task(_keep_statistics(engine))
        if on_ready is not None:
            on_ready(server)
        try:
            yield
        finally:
            collector.cancel()
            if statistics is not None:
                statistics.cancel()
            await relay.stop()
            await forwarding.stop()
            await asyncio.to_thread(notices.stop)
            await live.stop(app)
            await server.stop()
            engine.dispose()
            sys.setswitchinterval(switch)
            gc.set_threshold(*thresholds)
            gc.unfreeze()  # what this server froze may go now

    app = FastAPI(
        # FastAPI's own OpenTelemetry hooks look at the environment on every
        # request; punto exports no telemetry, so they are off.
        telemetry={"tracing": False, "metrics": False, "logs": False},
        title="punto table server",
        version="1",
        description="Live baccarat tables for the approved rules: bets, deals, "
        "Insurance Plus, settlement on a double-entry ledger, and the pages to play them.",
        lifespan=lifespan,
        docs_url=None,  # served from local assets by punto.server.routes.pages, under the CSP
        redoc_url=None,
    )
    errors.install(app)
    logs.redact_access_log()  # whoever serves the app: no token from a URL in its log
    forwarding.fastapi = app
    app.add_middleware(Forward, forwarding=forwarding, lane=FastLane)  # a table run elsewhere
    app.add_middleware(FastLane)  # after the body limit, before the router
    app.add_middleware(errors.BodyLimit, limit=max_body)
    app.add_middleware(
        guard.Guard,
        trusted_origins=trusted_origins,
        ws_per_client=ws_per_client,
        requests_per_address=requests_per_address,
        allowed_hosts=allowed_hosts,
    )  # other sites and socket floods are turned away before anything reads a body
    app.add_middleware(errors.CatchAll)  # outermost
    app.include_router(logins.router)
    app.include_router(admin.router)
    app.include_router(admin.page_router)
    app.include_router(api.router)
    app.include_router(ws.router)
    app.include_router(i18n.router)
    pages.mount(app)
    live.install(app)
    return app
