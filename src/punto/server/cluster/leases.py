"""The table leases' settings (``punto serve --lease-seconds``, ...): apart from
:mod:`punto.server.cluster.ownership`, so that reading the command line needs no
database library."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LEASE_SECONDS", "RENEW_SECONDS", "LeaseSettings"]

#: How long a lease lasts, and how often it is renewed (seconds).
LEASE_SECONDS = 10.0
RENEW_SECONDS = 3.0


@dataclass(frozen=True)
class LeaseSettings:
    """A lease's length, and how often the process renews its leases and looks
    for tables to take over (well under the length: a renewal may be late)."""

    seconds: float = LEASE_SECONDS
    renew_seconds: float = RENEW_SECONDS

    def __post_init__(self) -> None:
        if not 0 < self.renew_seconds < self.seconds:
            raise ValueError("renew leases more often than they last")
