"""``punto serve``: the table server (HTTP, WebSocket and the web pages).

A SQLite file (``./punto.db``) by default; ``--database
postgresql+psycopg://USER@HOST:PORT/DB`` for PostgreSQL.  ``--demo`` sets up
(once) the demo tables and accounts and prints the logins.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

from punto.commands.common import whole_number
from punto.errors import PuntoError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


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
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from punto.server.app import create_app
    from punto.server.demo import describe
    from punto.store.db import normalize_url

    if not 0 < args.port < 65536:
        raise ServeError(f"port {args.port} is not a TCP port", hint="use 1 to 65535")
    normalize_url(args.database)  # a clear error for an unsupported URL, before starting
    app = create_app(args.database, demo=args.demo)
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}"
    if args.demo:
        print(describe(url), flush=True)
    else:
        print(f"punto table server: {url}", flush=True)
    logging.basicConfig(level=args.log_level.upper())
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=64 * 1024,
        timeout_graceful_shutdown=5,
    )
    return 0
