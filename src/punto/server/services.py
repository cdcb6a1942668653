"""The services a request handler reaches: :class:`Server`, on ``app.state.server``.

It sits below the routes (which take it from the request) and above the table
runtimes, the journal and the store; :mod:`punto.server.app` builds it and
starts it with the app, and nothing here imports a route.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from punto.errors import PuntoError
from punto.server.auth import SessionCache
from punto.server.config import AuditLog, TableConfig, TableStore, UnknownTableError
from punto.server.dealer import AutoDealer
from punto.server.hub import Hub
from punto.server.journal import Journal
from punto.server.login_guard import LoginGuard
from punto.server.runtime import TableRuntime
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

    def table(self, table_id: str) -> TableRuntime:
        runtime = self.tables.get(table_id)
        if runtime is None:
            if self.store.exists(table_id):
                raise UnknownTableError(
                    f"table {table_id!r} is not running", hint="a pit manager may activate it"
                )
            raise UnknownTableError(f"there is no table {table_id!r}")
        return runtime

    def start_table(self, config: TableConfig) -> TableRuntime:
        """Restore a table from its log and reconcile its money (a worker thread's job)."""
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
                try:
                    runtime = await asyncio.to_thread(self.start_table, config)
                except PuntoError:
                    # One table whose log cannot be restored must not keep the
                    # others closed: it stays down (the pit shows it not running).
                    log.exception("table %s cannot start; the other tables run", config.id)
                    continue
                if runtime.recovered:
                    log.warning(
                        "table %s: the round in play was interrupted; under the power failure "
                        "rules: %s",
                        config.id,
                        runtime.recovered,
                    )
                await self.run_dealer(runtime)

    async def stop(self) -> None:
        for table_id in list(self.dealers):
            await self.stop_dealer(table_id)
        for runtime in self.tables.values():
            runtime.stop()
        self.hub.close_all()
        await asyncio.to_thread(self.sessions.stop)
        self.logins.close()
        await asyncio.to_thread(self.journal.close)  # what is waiting is written
