"""The connection limits and timeouts of ``punto serve`` and their defaults.

A module of plain values (no web framework imported), so that the command
line can show the defaults without loading the server.  What each limit
does, and where it is enforced, is told in :mod:`punto.server.connections`
and ``docs/security.md``.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, field

#: WebSockets one client address may hold open at once.
WS_PER_CLIENT = 50
#: Seconds a request body may take to arrive, from the start of the request.
BODY_SECONDS = 30.0
#: Seconds a request's headers may take to arrive.
HEADER_SECONDS = 10.0
#: Seconds an idle connection is kept between requests.
KEEP_ALIVE = 5
#: File descriptors kept back from connections (database, logs, static files).
FD_RESERVE = 128
#: The most connections by default, however high the descriptor limit.
MAX_CONNECTIONS = 4096


def default_max_connections() -> int:
    """Connections allowed by default: the descriptor limit less a reserve."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - FD_RESERVE))


@dataclass(frozen=True)
class Limits:
    """What ``punto serve`` sets (its flags; see :mod:`punto.server.connections`)."""

    keep_alive: int = KEEP_ALIVE
    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    max_connections: int = field(default_factory=default_max_connections)
    concurrency: int = MAX_CONNECTIONS
    ws_per_client: int = WS_PER_CLIENT
