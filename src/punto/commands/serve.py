"""``punto serve``: the table server (HTTP, WebSocket and the web pages).

A SQLite file (``./punto.db``) by default; ``--database
postgresql+psycopg://USER@HOST:PORT/DB`` for PostgreSQL.  ``--demo`` sets up
(once) the demo tables and accounts and prints the logins.  One process
serves a SQLite file (a second is refused); on PostgreSQL several processes
share the tables by leases (``--lease-seconds``; docs/deployment.md).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import signal
import socket
from types import FrameType
from typing import Any

from punto.commands.common import (
    number,
    whole_number,
)
from punto.errors import PuntoError
from punto.money import CENT, format_units, parse_stake
from punto.server.cluster.leases import LEASE_SECONDS, RENEW_SECONDS, LeaseSettings
from punto.server.security.limits import FD_RESERVE, MAX_CONNECTIONS, Limits, proxy_networks
from punto.store.bounds import MAX_BALANCE, MAX_CAGE_AMOUNT, MoneyBounds

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


_LIMIT_FLAGS = frozenset(
    {
        "keep_alive",
        "header_timeout",
        "body_timeout",
        "max_connections",
        "concurrency",
        "ws_per_client",
        "connections_per_address",
        "requests_per_address",
    }
)


class ServeError(PuntoError):
    """The server cannot start as asked."""


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "serve",
        help="run the table server: live tables, the API and the web pages",
        description="Run live tables for players, dealers and the pit: an HTTP and "
        "WebSocket API (OpenAPI at /openapi.json) and the pages to play. Tables run "
        "themselves (an automatic dealer) or from the dealer console; money is kept "
        "on a double-entry ledger in the database.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=whole_number, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        default="sqlite:///punto.db",
        help="sqlite:///FILE (default sqlite:///punto.db) or postgresql+psycopg://USER@HOST/DB",
    )
    parser.add_argument(
        "--demo",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="create the demo tables and accounts (once) and print the logins",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default info)",
    )
    limits = parser.add_argument_group(
        "connection limits and timeouts",
        "what keeps idle, slow or too many connections from starving the tables (docs/security.md)",
    )
    defaults = Limits()
    limits.add_argument(
        "--keep-alive",
        type=whole_number,
        metavar="SECONDS",
        default=defaults.keep_alive,
        help=f"close a connection idle between requests after this long "
        f"(default {defaults.keep_alive})",
    )
    limits.add_argument(
        "--header-timeout",
        type=number,
        metavar="SECONDS",
        default=defaults.header_seconds,
        help="answer 408 and close a connection whose request headers are not all in "
        f"after this long (default {defaults.header_seconds:g})",
    )
    limits.add_argument(
        "--body-timeout",
        type=number,
        metavar="SECONDS",
        default=defaults.body_seconds,
        help=f"answer 408 to a request whose body is not all in after this long "
        f"(default {defaults.body_seconds:g})",
    )
    limits.add_argument(
        "--max-connections",
        type=whole_number,
        metavar="N",
        default=defaults.max_connections,
        help="open connections (WebSockets included) before a new one is answered 503 "
        f"(default: the file-descriptor limit less {FD_RESERVE}, at most "
        f"{MAX_CONNECTIONS}; here {defaults.max_connections})",
    )
    limits.add_argument(
        "--concurrency",
        type=whole_number,
        metavar="N",
        default=defaults.concurrency,
        help=f"requests in progress at once before a new one is answered 503 "
        f"(default {defaults.concurrency})",
    )
    limits.add_argument(
        "--ws-per-client",
        type=whole_number,
        metavar="N",
        default=defaults.ws_per_client,
        help=f"WebSockets one client address may hold open (default {defaults.ws_per_client})",
    )
    limits.add_argument(
        "--connections-per-address",
        type=whole_number,
        metavar="N",
        default=None,
        help="open connections one client address may hold before a new one is answered "
        f"429 (default a quarter of --max-connections, at least 8; here "
        f"{defaults.address_connections}); a trusted proxy is not held to it",
    )
    limits.add_argument(
        "--requests-per-address",
        type=whole_number,
        metavar="N",
        default=None,
        help="requests one client address may have in progress before a new one is answered "
        f"429 (default a quarter of --concurrency; here {defaults.address_requests})",
    )
    limits.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDRESS",
        default=[],
        help="a proxy (address or network, e.g. 10.0.0.5 or 10.0.0.0/24) whose "
        "X-Forwarded-For names the client; repeatable; none by default, when the "
        "client is always the socket's peer",
    )
    limits.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        default=[],
        help="a host name this server answers for (e.g. tables.example, or "
        "*.casino.example); repeatable; requests for any other Host are refused (400); "
        "by default every Host is answered",
    )
    money = parser.add_argument_group(
        "money bounds", "the cage's bounds (docs/security.md, punto.store.bounds)"
    )
    money.add_argument(
        "--max-balance",
        metavar="AMOUNT",
        default=format_units(MAX_BALANCE),
        help="the most the cage may take a player's wallet to (default "
        f"{format_units(MAX_BALANCE)}); winnings are paid past it",
    )
    money.add_argument(
        "--max-cage-amount",
        metavar="AMOUNT",
        default=format_units(MAX_CAGE_AMOUNT),
        help=f"the most one deposit may be (default {format_units(MAX_CAGE_AMOUNT)})",
    )
    leases = parser.add_argument_group(
        "table leases (PostgreSQL)",
        "several processes on one PostgreSQL database: each table is run by the process "
        "holding its lease (docs/deployment.md)",
    )
    leases.add_argument(
        "--lease-seconds",
        type=number,
        metavar="SECONDS",
        default=LEASE_SECONDS,
        help="how long a table's lease lasts unless renewed: how long a dead process's "
        f"tables wait for another to take them over (default {LEASE_SECONDS:g})",
    )
    leases.add_argument(
        "--lease-renew-seconds",
        type=number,
        metavar="SECONDS",
        default=RENEW_SECONDS,
        help="how often leases are renewed and free tables looked for; well under "
        f"--lease-seconds (default {RENEW_SECONDS:g})",
    )
    parser.add_argument(
        "--trusted-origin",
        action="append",
        metavar="URL",
        default=[],
        help="another origin whose pages may act with the session cookie (e.g. "
        "https://tables.example behind a proxy); repeatable",
    )
    parser.set_defaults(run=run)


def _units(text: str, flag: str) -> int:
    """An amount given to ``flag`` (``"1000000.00"``), in minor units."""
    try:
        return int(parse_stake(text) / CENT)
    except PuntoError as refused:
        told = refused.message.removeprefix("stake ")  # parse_stake speaks of stakes
        raise ServeError(f"{flag}: {told}", hint=refused.hint) from None


def run(args: argparse.Namespace) -> int:
    from punto.server.cluster.sqlite_lock import lock_sqlite, release_sqlite
    from punto.store.db import normalize_url

    if not 0 < args.port < 65536:
        raise ServeError(f"port {args.port} is not a TCP port", hint="use 1 to 65535")
    # a clear error for an unsupported URL, before starting
    sqlite = normalize_url(args.database).get_backend_name() == "sqlite"
    limits = Limits(
        keep_alive=args.keep_alive,
        header_seconds=args.header_timeout,
        body_seconds=args.body_timeout,
        max_connections=args.max_connections,
        concurrency=args.concurrency,
        ws_per_client=args.ws_per_client,
        connections_per_address=args.connections_per_address,
        requests_per_address=args.requests_per_address,
        trusted_proxies=tuple(args.trusted_proxy),
    )
    try:
        proxy_networks(limits.trusted_proxies)
    except ValueError as bad:
        raise ServeError(
            f"--trusted-proxy: {bad}", hint="give an address (10.0.0.5) or a network (10.0.0.0/24)"
        ) from None
    for name, value in vars(args).items():
        if name in _LIMIT_FLAGS and value is not None and value <= 0:
            flag = "--" + name.replace("_", "-")
            raise ServeError(
                f"{flag} {value} is not a limit", hint=f"give {flag} a positive number"
            )
    if not 0 < args.lease_renew_seconds < args.lease_seconds:
        raise ServeError(
            f"--lease-renew-seconds {args.lease_renew_seconds:g} must be above 0 and under "
            f"--lease-seconds {args.lease_seconds:g}",
            hint="renew a lease well before it runs out (e.g. every 3 of 10 seconds)",
        )
    bounds = MoneyBounds(
        max_balance=_units(args.max_balance, "--max-balance"),
        max_cage_amount=_units(args.max_cage_amount, "--max-cage-amount"),
    )
    # The port first, before anything is printed or the database touched: a busy
    # port is the likeliest reason a server cannot start, and the socket bound
    # here is the one uvicorn serves on, so that nothing can take it between.
    listener = listen(args.host, args.port)
    try:
        # Held while the process serves (the OS drops it however the process ends;
        # a clean stop removes the file too).
        sqlite_lock = lock_sqlite(args.database)
        try:
            serve(args, listener, sqlite=sqlite, limits=limits, bounds=bounds)
        finally:
            release_sqlite(sqlite_lock)
    finally:
        listener.close()
    return 0


def serve(
    args: argparse.Namespace,
    listener: socket.socket,
    *,
    sqlite: bool,
    limits: Limits,
    bounds: MoneyBounds,
) -> None:
    """Build the server, say where it is, and serve on ``listener`` until stopped."""
    import uvicorn

    from punto.server.app import create_app
    from punto.server.demo import describe
    from punto.server.security.connections import uvicorn_config

    app = create_app(
        args.database,
        # One process serves a SQLite file (the lock): leases on PostgreSQL only.
        leases=None if sqlite else LeaseSettings(args.lease_seconds, args.lease_renew_seconds),
        money_bounds=bounds,
        demo=args.demo,
        trusted_origins=args.trusted_origin,
        ws_per_client=limits.ws_per_client,
        requests_per_address=limits.address_requests,
        allowed_hosts=args.allowed_host,
    )
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}"
    if args.demo:
        print(describe(url), flush=True)
    else:
        print(f"punto table server: {url}", flush=True)
    logging.basicConfig(level=args.log_level.upper())
    config = uvicorn_config(app, args.host, args.port, limits, log_level=args.log_level)
    # uvicorn shuts down gracefully on Ctrl-C or SIGTERM and then raises the
    # signal again; as uvicorn.run() does, that is a normal end, not an error --
    # and SIGTERM's, like Ctrl-C's, an exception here, so that the lock file goes.
    signal.signal(signal.SIGTERM, _stopped)
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[listener])


def _stopped(signum: int, frame: FrameType | None) -> None:
    """SIGTERM, after uvicorn's graceful shutdown: an end as Ctrl-C's is."""
    raise KeyboardInterrupt


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` for the server, or a refusal that
    says why it cannot be and what to give instead.

    Bound as uvicorn binds its own (IPv6 where the host is an IPv6 address, the
    address reusable so that a restart need not wait out TIME_WAIT), and
    listening at once: Linux lets two reusable sockets bind one port while
    neither listens, and refuses the second only once one does.  Connections
    made before the server is ready wait in the backlog.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen()
    except OSError as error:
        listener.close()
        raise _listen_error(host, port, error) from None
    listener.set_inheritable(True)
    return listener


def _listen_error(host: str, port: int, error: OSError) -> ServeError:
    if error.errno == errno.EADDRINUSE:
        return ServeError(
            f"port {port} on {host} is in use (another punto serve, or another program)",
            hint=f"stop it, or give this server another port: --port {_another_port(port)}",
        )
    if error.errno == errno.EACCES:
        return ServeError(
            f"this user may not listen on port {port}",
            hint="ports under 1024 need privileges; give --port 1024 or above (default "
            f"{DEFAULT_PORT})",
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return ServeError(
            f"--host {host} is not an address of this machine",
            hint=f"give one it has (default {DEFAULT_HOST}; 0.0.0.0 for all)",
        )
    if isinstance(error, socket.gaierror):
        return ServeError(
            f"--host {host} is not an address or a name this machine can resolve",
            hint=f"give an IP address (default {DEFAULT_HOST})",
        )
    reason = error.strerror or str(error)
    return ServeError(
        f"cannot listen on {host} port {port}: {reason}",
        hint="give another --host or --port",
    )


def _another_port(port: int) -> int:
    """A port to suggest in place of a busy one: the next, within range."""
    return port + 1 if port < 65535 else DEFAULT_PORT
