"""Fixtures of the security suite: the server tests' own, brought in by
assignment (as the server test modules do), not copied; the databases come
from tests/conftest.py."""

from __future__ import annotations

from tests.server import test_server_support as support

client = support.client
