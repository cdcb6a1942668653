"""The connection limits and timeouts of ``punto serve`` and their defaults.

A module of plain values (no web framework imported), so that the command
line can show the defaults without loading the server.  What each limit
does, and where it is enforced, is told in :mod:`punto.server.security.connections`
and ``docs/security.md``.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network

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
#: By default one client address may hold this share (1/N) of the connections
#: and of the requests in progress: four addresses flooding together are
#: needed to fill the door, and a casino floor behind one address still gets
#: a quarter of it.
PER_ADDRESS_SHARE = 4


def default_max_connections() -> int:
    """Connections allowed by default: the descriptor limit less a reserve."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - FD_RESERVE))


def share(total: int) -> int:
    """One client address's default share of ``total`` (connections or requests).

    >>> share(300), share(4096), share(20)
    (75, 1024, 8)
    """
    return max(8, total // PER_ADDRESS_SHARE)


@dataclass(frozen=True)
class Limits:
    """What ``punto serve`` sets (its flags; see :mod:`punto.server.security.connections`).

    ``connections_per_address`` and ``requests_per_address``: None for the
    default share (:func:`share`) of ``max_connections`` and ``concurrency``.
    ``trusted_proxies``: the addresses (or networks) whose ``X-Forwarded-For``
    is believed; none by default.
    """

    keep_alive: int = KEEP_ALIVE
    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    max_connections: int = field(default_factory=default_max_connections)
    concurrency: int = MAX_CONNECTIONS
    ws_per_client: int = WS_PER_CLIENT
    connections_per_address: int | None = None
    requests_per_address: int | None = None
    trusted_proxies: tuple[str, ...] = ()

    @property
    def address_connections(self) -> int:
        """The connections one client address may hold open."""
        if self.connections_per_address is not None:
            return self.connections_per_address
        return share(self.max_connections)

    @property
    def address_requests(self) -> int:
        """The requests one client address may have in progress."""
        if self.requests_per_address is not None:
            return self.requests_per_address
        return share(self.concurrency)


def proxy_networks(proxies: tuple[str, ...]) -> tuple[IPv4Network | IPv6Network, ...]:
    """The ``--trusted-proxy`` values as networks (an address is a network of
    one); ValueError names one that is neither.

    >>> proxy_networks(("10.0.0.5", "192.168.0.0/24"))
    (IPv4Network('10.0.0.5/32'), IPv4Network('192.168.0.0/24'))
    """
    return tuple(ip_network(proxy.strip(), strict=False) for proxy in proxies)


def is_proxy(address: str, networks: tuple[IPv4Network | IPv6Network, ...]) -> bool:
    """Whether ``address`` (a socket's peer) is one of the trusted proxies."""
    if not networks:
        return False
    try:
        ip = ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)
