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
each table run by the holder of its lease (:mod:`punto.server.ownership`),
a request for another's table forwarded to it (:mod:`punto.server.forwarding`).
Everything the tables write goes through
one :class:`punto.server.journal.Journal` (group commits: a bet is durable,
with its stake on the ledger, before it is acknowledged); the most frequent
request, a player's bet, takes a fast lane in front of the router
(:mod:`punto.server.fastlane`); sessions are checked against the database
once in a while, not on every request (:class:`punto.server.auth.SessionCache`).
While it runs, the server also shortens the interpreter's thread switch
interval (so the journal's thread is not kept waiting behind the event loop)
and keeps the garbage collector's full passes short (see
:func:`_keep_collections_short`).  ``benchmarks/bench_server_load.py``
measures all this: well over 1,000 bets a second on two cores.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from fastapi import FastAPI
from sqlalchemy.engine import Engine

from punto.errors import PuntoError
from punto.server import errors, guard, limits, logs
from punto.server.auth import SessionCache
from punto.server.config import AuditLog, TableConfig, TableStore, UnknownTableError
from punto.server.dealer import AutoDealer
from punto.server.hub import Hub
from punto.server.journal import Journal
from punto.server.logins import LoginGuard
from punto.server.ownership import (
    LeaseSettings,
    Ownership,
    TableElsewhereError,
    elsewhere,
    lease_settings,
)
from punto.server.runtime import TableRuntime
from punto.store import db
from punto.store.accounts import Accounts, PasswordHasher, UserRole
from punto.store.bounds import MoneyBounds
from punto.store.ledger import Ledger

log = logging.getLogger("punto.server")

DEFAULT_DATABASE = "sqlite:///punto.db"
#: Worker threads for the handlers (most of them wait: for a table, for a commit).
WORKER_THREADS = 64
#: The interpreter's thread switch interval while the server runs (seconds).
SWITCH_INTERVAL = 0.001
#: How often what has lived a while is moved out of the garbage collector's sight.
FREEZE_SECONDS = 1.0


@dataclass
class Server:
    """Everything a request handler needs, on ``app.state.server``."""

    engine: Engine
    accounts: Accounts
    ledger: Ledger
    store: TableStore
    audit: AuditLog
    hub: Hub
    journal: Journal
    sessions: SessionCache
    auto_dealers: bool = True
    logins: LoginGuard = field(default_factory=LoginGuard)
    tables: dict[str, TableRuntime] = field(default_factory=dict)
    #: the cage's maximum deposit and wallet balance (``punto serve --max-balance`` ...)
    money_bounds: MoneyBounds = field(default_factory=MoneyBounds)
    dealers: dict[str, AutoDealer] = field(default_factory=dict)
    #: this process's table leases (PostgreSQL: several processes; None: it runs all)
    ownership: Ownership | None = None

    def table(self, table_id: str) -> TableRuntime:
        runtime = self.tables.get(table_id)
        if runtime is None:
            if self.store.exists(table_id):
                if self.ownership is not None and self.store.get(table_id).active:
                    self.ownership.refuse_if_elsewhere(table_id)  # 503 if another runs it
                raise UnknownTableError(
                    f"table {table_id!r} is not running", hint="a pit manager may activate it"
                )
            raise UnknownTableError(f"there is no table {table_id!r}")
        return runtime

    def start_table(self, config: TableConfig) -> TableRuntime:
        """Restore a table from its log and reconcile its money (a worker thread's job)."""
        if self.ownership is not None and not self.ownership.claim(config.id):
            raise elsewhere(config.id, self.ownership.holder(config.id))
        runtime = TableRuntime(
            config, engine=self.engine, ledger=self.ledger, hub=self.hub, journal=self.journal
        )
        self.tables[config.id] = runtime
        return runtime

    async def run_dealer(self, runtime: TableRuntime) -> None:
        """Start (or restart) the table's automatic dealer if it runs itself."""
        await self.stop_dealer(runtime.id)
        if self.auto_dealers and runtime.config.mode == "auto" and runtime.config.active:
            dealer = AutoDealer(runtime)
            dealer.start()
            self.dealers[runtime.id] = dealer

    async def stop_dealer(self, table_id: str) -> None:
        dealer = self.dealers.pop(table_id, None)
        if dealer is not None:
            await dealer.stop()

    async def start(self) -> None:
        # Sessions ended by any process are forgotten here at once (read from
        # the database a few times a second); started before the cache is warmed.
        await asyncio.to_thread(self.sessions.watch, self.accounts)
        users = await asyncio.to_thread(self.sessions.warm, self.accounts)
        # and their wallets: each player's first bet after a restart goes in flight
        players = [f"player:{u.username}" for u in users if u.role is UserRole.PLAYER]
        await asyncio.to_thread(self.journal.prime, players)
        for config in await asyncio.to_thread(self.store.all):
            if config.active:
                await self.open_table(config)
        if self.ownership is not None:  # renew the leases; take over the tables left
            self.ownership.start(wanted=self._active, take_over=self._take_over, lose=self.close)

    async def open_table(self, config: TableConfig) -> None:
        """Start an active table from its log, as at start-up, and its dealer."""
        try:
            runtime = await asyncio.to_thread(self.start_table, config)
        except TableElsewhereError:
            log.info("table %s is run by another server process", config.id)
            return
        except PuntoError:
            # One table whose log cannot be restored must not keep the
            # others closed: it stays down (the pit shows it not running).
            log.exception("table %s cannot start; the other tables run", config.id)
            return
        if runtime.recovered:
            log.warning(
                "table %s: the round in play was interrupted; under the power failure rules: %s",
                config.id,
                runtime.recovered,
            )
        await self.run_dealer(runtime)

    def _active(self) -> list[str]:
        return [config.id for config in self.store.all() if config.active]

    async def _take_over(self, table_id: str) -> None:
        if table_id in self.tables:  # its lease was lost meanwhile: start afresh from the log
            await self.close(table_id)
        config = await asyncio.to_thread(self.store.get, table_id)
        if config.active:
            await self.open_table(config)

    async def close(self, table_id: str) -> None:
        """Stop running a table here (its lease was lost, or it was deactivated)."""
        await self.stop_dealer(table_id)
        runtime = self.tables.pop(table_id, None)
        if runtime is not None:
            runtime.stop()

    async def stop(self) -> None:
        if self.ownership is not None:
            await self.ownership.stop()
        for table_id in list(self.dealers):
            await self.stop_dealer(table_id)
        for runtime in self.tables.values():
            runtime.stop()
        self.hub.close_all()
        await asyncio.to_thread(self.sessions.stop)
        self.logins.close()
        await asyncio.to_thread(self.journal.close)  # what is waiting is written
        if self.ownership is not None:  # only then: another process may take them at once
            await asyncio.to_thread(self.ownership.release)


async def _keep_collections_short() -> None:
    """Keep the garbage collector's full passes short.

    A table keeps its rounds, and each round its bets and events, for the
    life of the process: a heap that only grows.  A full collection walks all
    of it and stops every thread meanwhile -- under load, a pause of 100 ms
    and more every second or so, which every bet in flight waits out.  So
    what has lived a while is frozen (moved out of the collector's sight;
    it is still freed when nothing refers to it) now and every
    :data:`FREEZE_SECONDS`: full passes then walk only what is new.  Cyclic
    garbage that outlives two young collections and a freeze is not
    reclaimed; the server makes little of it.
    """
    gc.freeze()
    while True:
        await asyncio.sleep(FREEZE_SECONDS)
        gc.freeze()


def create_app(
    database_url: str = DEFAULT_DATABASE,
    *,
    demo: bool = False,
    hasher: PasswordHasher | None = None,
    auto_dealers: bool = True,
    max_body: int = errors.MAX_BODY,
    demo_options: dict[str, Any] | None = None,
    on_ready: Callable[[Server], None] | None = None,
    trusted_origins: Iterable[str] = (),
    ws_per_client: int = limits.WS_PER_CLIENT,
    body_seconds: float = limits.BODY_SECONDS,
    money_bounds: MoneyBounds | None = None,
    leases: LeaseSettings | bool | None = None,
) -> FastAPI:
    """The table server on the database at ``database_url``.

    ``demo``: create (once) the demo tables and accounts.  ``hasher``: the
    Argon2 parameters (tests pass cheap ones).  ``auto_dealers=False`` leaves
    self-running tables still (tests drive them with ``TableRuntime.step``).
    ``demo_options`` override the demo tables' settings (e.g. fast timings).
    ``trusted_origins`` (besides the server's own), ``ws_per_client`` and
    ``body_seconds``: :class:`punto.server.guard.Guard`'s settings.
    ``money_bounds``: the cage's bounds (:mod:`punto.store.bounds`).
    ``leases``: run only the tables this process holds the lease of
    (:mod:`punto.server.ownership`); on by default on PostgreSQL, where several
    processes may share the database, off on SQLite (one process serves a file).
    """
    from punto.server import admin, api, logins, pages, ws
    from punto.server.fastlane import FastLane
    from punto.server.forwarding import Forward, Forwarding

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
        settings = lease_settings(leases, sqlite=db.is_sqlite(engine))
        ownership = Ownership(engine, settings) if settings is not None else None
        journal = Journal(engine, checks=ownership.check if ownership else None)
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
        )
        if demo:
            from punto.server.demo import create_demo

            await asyncio.to_thread(create_demo, server, **(demo_options or {}))
        app.state.server = server
        await server.start()
        if ownership is not None and not db.is_sqlite(engine):  # LISTEN/NOTIFY: PostgreSQL
            await forwarding.start(engine, ownership)
        from punto.server import tournaments as live  # imported after Server, as below

        await live.start(app)  # the live tournaments' clocks, as the dealers above
        collector = asyncio.create_task(_keep_collections_short())
        if on_ready is not None:
            on_ready(server)
        try:
            yield
        finally:
            collector.cancel()
            await forwarding.stop()
            await live.stop(app)
            await server.stop()
            engine.dispose()
            sys.setswitchinterval(switch)
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
        docs_url=None,  # served from local assets by punto.server.pages, under the CSP
        redoc_url=None,
    )
    errors.install(app)
    logs.redact_access_log()  # whoever serves the app: no token from a URL in its log
    forwarding.fastapi = app
    app.add_middleware(Forward, forwarding=forwarding)  # a table another process runs
    app.add_middleware(FastLane)  # after the body limit, before the router
    app.add_middleware(errors.BodyLimit, limit=max_body)
    app.add_middleware(
        guard.Guard,
        trusted_origins=trusted_origins,
        ws_per_client=ws_per_client,
        body_seconds=body_seconds,
    )  # other sites and socket floods are turned away before anything reads a body
    app.add_middleware(errors.CatchAll)  # outermost
    app.include_router(logins.router)
    app.include_router(admin.router)
    app.include_router(admin.page_router)
    app.include_router(api.router)
    app.include_router(ws.router)
    pages.mount(app)
    from punto.server import tournaments  # it reads app.state.server: imported after Server

    tournaments.install(app)
    return app
