"""The server tests' app on each database (tests/server/test_server_support.py)."""

from __future__ import annotations

from tests.server import test_server_support as support

client = support.client
