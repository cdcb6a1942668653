"""Helpers of the accounts security tests (this module holds no tests).

Every test here reproduces an attack of the security review as it was found and shows it
refused; each fails on the code before the fix.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient
from starlette.types import ASGIApp

from punto.server.services import Server
from tests.server.test_server_support import ADMIN, FAST, make_app, server_of

__all__ = ["ADMIN", "FAST", "client_from", "headers_for", "login_as", "make_app", "server_of"]


def login_as(client: TestClient, who: tuple[str, str]) -> Any:
    """The raw answer to a login as ``who`` (user name, password)."""
    response = client.post("/api/auth/login", json={"username": who[0], "password": who[1]})
    client.cookies.clear()  # each request says who it is
    return response


def headers_for(client: TestClient, who: tuple[str, str]) -> dict[str, str]:
    response = login_as(client, who)
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


@contextlib.contextmanager
def client_from(app: ASGIApp, address: str) -> Iterator[TestClient]:
    """A client of the (started) ``app`` whose requests come from ``address``,
    without starting the app again."""
    client = TestClient(app, client=(address, 50000))
    try:
        yield client
    finally:
        client.close()


def server(client: TestClient) -> Server:
    return server_of(client)
