"""Fixtures of the security suite: the server tests' own, brought in by
assignment (as the server test modules do), not copied."""

from __future__ import annotations

from tests import test_server_support as support

db_url = support.db_url
client = support.client
