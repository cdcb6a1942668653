"""The services a request handler reaches: :class:`Server`, on ``app.state.server``.

It sits below the routes (which take it from the request) and above the table
runtimes, the journal and the store; :mod:`punto.server.app` builds it and
starts it with the app, and nothing here imports a route.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from punto.errors import PuntoError
from punto.server.cluster.ownership import Ownership, TableElsewhereError, elsewhere
from punto.server.security.auth import SessionCache
from punto.server.security.login_guard import LoginGuard
from punto.server.tables.advantage import AdvantageWatch
from punto.server.tables.config import AuditLog, TableConfig, TableStore, UnknownTableError
from punto.server.tables.dealer import AutoDealer
from punto.server.tables.hub import Hub
from punto.server.tables.journal import Journal
from punto.server.tables.runtime import TableRuntime
from punto.server.tables.valuation import Valuation
from punto.store import db
from punto.store.accounts import Accounts, UserRole
from punto.store.bounds import MoneyBounds
from punto.store.ledger import Ledger

log = logging.getLogger("punto.server")


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
    #: values every bet when betting closes, off the tables' path (None: not valued)
    valuation: Valuation | None = None
    #: the players' advantage-play detectors, fed by the valuation
    advantage: AdvantageWatch | None = None

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
        if self.valuation is not None:
            runtime.on_events = functools.partial(self.valuation.changed, runtime)
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
        configs = [c for c in await asyncio.to_thread(self.store.all) if c.active]
        if db.is_sqlite(self.engine):
            # One writer at a time, and an in-memory database is one shared
            # connection that two threads must not both be in: one by one.
            for config in configs:
                await self.open_table(config)
        else:
            # Each restored in a worker thread of its own: a table putting an
            # interrupted round right waits for its writes, the others need not.
            await asyncio.gather(*(self.open_table(config) for config in configs))
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
        if self.valuation is not None:  # its last values go to the journal first
            await asyncio.to_thread(self.valuation.close)
        await asyncio.to_thread(self.journal.close)  # what is waiting is written
        if self.ownership is not None:  # only then: another process may take them at once
            await asyncio.to_thread(self.ownership.release)
