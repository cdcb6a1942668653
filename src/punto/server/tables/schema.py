"""The server's own tables (revision 0002): table configuration, bet request
idempotency and the audit log.

They are defined with the rest of the schema in :mod:`punto.store.db`, so the
metadata there always describes everything the migrations create.
"""

from __future__ import annotations

from punto.store.db import CARD_SOURCES, MODES, server_audit, server_requests, server_tables

__all__ = ["CARD_SOURCES", "MODES", "server_audit", "server_requests", "server_tables"]
