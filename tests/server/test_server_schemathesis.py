"""The API against its own OpenAPI description (schemathesis), and hostile requests.

Every operation of ``/openapi.json`` is called with requests generated from
the description -- valid ones, the documented examples, and invalid ones --
as a logged-in player and as a pit manager, on a real server (uvicorn on
loopback) over SQLite, while the tables are in play.  No answer may be a
500, every answer must be one the description allows (its status, content
type and body shape: a documented success, or the ``{"error": ...}`` body of
a refusal), and an invalid request must be refused with a 4xx.  After the
storm the ledger must still add up.

Then the malformed and oversized requests that a generator does not make:
each gets a clear JSON 4xx.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from punto.server.app import create_app
from punto.server.services import Server
from tests.server.test_server_support import (
    DEALER,
    PIT,
    PLAYER,
    PLAYER2,
    error_of,
    live_server,
    login,
    make_app,
)

#: Generated requests per operation, per kind (valid / invalid), shared by the two users.
EXAMPLES = 50
#: The tables of the demo, and one that does not exist.
TABLES = ("dragon", "tiger", "buffalo", "nowhere")

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

#: The description, read without starting the app.
SPEC: dict[str, Any] = create_app("sqlite://", demo=False).openapi()
SCHEMA = schemathesis.openapi.from_dict(SPEC)
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]  # type: ignore[union-attr]


@dataclass
class Served:
    base: str
    headers: dict[str, dict[str, str]]
    app: Any


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The demo on SQLite under uvicorn, every table with a round open and bets on it."""
    db_file = tmp_path_factory.mktemp("schemathesis") / "punto.db"
    app = make_app(f"sqlite:///{db_file}")
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=30) as client:
        dealer, ann, bob = login(client, DEALER), login(client, PLAYER), login(client, PLAYER2)
        for table in TABLES[:3]:
            assert client.post(f"/api/tables/{table}/round/open", headers=dealer).is_success
            for who, wager in ((ann, "banker"), (bob, "player")):
                placed = client.post(
                    f"/api/tables/{table}/bets", headers=who, json={"wager": wager, "stake": "20"}
                )
                assert placed.status_code == 201, placed.text
        # One table mid-deal: its round is past betting, with cards out.
        assert client.post("/api/tables/tiger/round/close", headers=dealer).is_success
        assert client.post("/api/tables/tiger/round/deal", headers=dealer).is_success
        yield Served(base, {"player": ann, "staff": login(client, PIT)}, app)


def _strategies(operation: Any, mode: GenerationMode) -> list[st.SearchStrategy[Any]]:
    if "{table_id}" not in operation.path:
        return [operation.as_strategy(generation_mode=mode)]
    return [
        operation.as_strategy(generation_mode=mode, path_parameters={"table_id": table})
        for table in TABLES
    ]


def _negatable(operation: Any) -> bool:
    """Whether an invalid request can be made (a body, a query or a constrained header)."""
    return operation.body or any(
        parameter.location in ("query", "header") for parameter in operation.iter_parameters()
    )


#: Operations measured over 5 s (``--durations``; 28 s on the 2-core machine).
SLOW_OPERATIONS = frozenset({"POST /api/auth/login"})


@pytest.mark.parametrize(
    "operation",
    [
        pytest.param(op, marks=pytest.mark.slow) if op.label in SLOW_OPERATIONS else op
        for op in OPERATIONS
    ],
    ids=[op.label for op in OPERATIONS],
)
def test_operation_conforms_to_its_description(served: Served, operation: Any) -> None:
    if operation.path == "/api/auth/logout":
        pytest.skip("ends the session the other requests use; see test_logout_conforms")
    cases = _strategies(operation, GenerationMode.POSITIVE)
    for table in TABLES:
        path = {"table_id": table} if "{table_id}" in operation.path else None
        cases += SCHEMA.get_strategies_from_examples(operation, path_parameters=path)
    invalid = _strategies(operation, GenerationMode.NEGATIVE) if _negatable(operation) else []
    who = st.sampled_from(sorted(served.headers))

    def call(user: str, case: Any, checks: list[Any]) -> None:
        headers = served.headers[user]
        response = case.call(base_url=served.base, headers=headers, timeout=30)
        case.validate_response(response, checks=checks, headers=headers)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(user=who, case=st.one_of(cases))
    def valid(user: str, case: Any) -> None:
        call(user, case, CHECKS)

    valid()
    if invalid:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        )
        @given(user=who, case=st.one_of(invalid))
        def refused(user: str, case: Any) -> None:
            call(user, case, [*CHECKS, negative_data_rejection])

        refused()


def test_logout_conforms(served: Served) -> None:
    operation = SCHEMA["/api/auth/logout"]["POST"]
    with httpx2.Client(base_url=served.base, timeout=30) as client:
        headers = login(client, PLAYER)
        response = client.post("/api/auth/logout", headers=headers)
        operation.validate_response(response)
        assert response.json() == {"ok": True}
        assert client.get("/api/me", headers=headers).status_code == 401


def test_the_ledger_adds_up_after_the_storm(served: Served) -> None:
    ledger = server_of_app(served.app).ledger
    assert ledger.trial_balance() == 0
    assert ledger.audit().ok, ledger.audit().problems


def server_of_app(app: Any) -> Server:
    server: Server = app.state.server
    return server


# -- malformed and oversized requests ---------------------------------------------------------


def raw_request(base: str, data: bytes) -> bytes:
    """Send ``data`` as it is on a new connection; the status line and headers of the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


def test_malformed_requests_get_a_clear_4xx(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'punto.db'}")
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=30) as client:
        player, dealer, pit = login(client, PLAYER), login(client, DEALER), login(client, PIT)
        client.post("/api/tables/dragon/round/open", headers=dealer)
        bets = "/api/tables/dragon/bets"
        as_json = {**player, "Content-Type": "application/json"}

        # A NUL character anywhere: PostgreSQL cannot store it, and no name, key or card has one.
        for method, url, body in [
            ("GET", "/api/tables/dra%00gon", None),
            ("GET", "/api/pit/audit?table_id=a%00", None),
            ("POST", bets, {"wager": "banker", "stake": "10", "idempotency_key": "k\x00"}),
            ("POST", "/api/tables", {"id": "t9", "game": "dragon-tiger", "name": "a\x00"}),
            ("POST", "/api/auth/login", {"username": "demo\x00", "password": "x"}),
        ]:
            response = client.request(method, url, headers=pit, json=body)
            assert response.status_code == 400, (url, response.text)
            assert "NUL" in error_of(response)["message"]
        # ... but an escaped backslash before "u0000" is just text.
        text = client.post(bets, headers=as_json, content=b'{"wager": "\\\\u0000", "stake": "10"}')
        assert text.status_code == 422
        assert error_of(text)["type"] == "WagerError"

        # Bodies that are not JSON a parser will take.
        for content, status, kind in [
            (b"\xff\xfe{}", 422, None),  # not UTF-8
            (b"[" * 50_000 + b"]" * 10_000, 400, "MalformedBody"),  # nested too deep
            (b'{"wager": "banker", "stake": 1e999999}', 422, None),
        ]:
            response = client.post(bets, headers=as_json, content=content)
            assert response.status_code == status, (content[:20], response.text)
            if kind:
                assert error_of(response)["type"] == kind
        form = client.post(bets, headers=player, data={"wager": "banker", "stake": "10"})
        assert form.status_code == 422
        error_of(form)

        # Too big: declared, or sent in chunks without a length.
        declared = raw_request(
            base,
            b"POST /api/tables/dragon/bets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 10000000\r\n\r\n{",
        )
        assert declared.startswith(b"HTTP/1.1 413"), declared[:80]

        def chunks() -> Iterator[bytes]:
            for _ in range(100):
                yield b"x" * 4096

        chunked = client.post(bets, headers=as_json, content=chunks())
        assert chunked.status_code == 413
        assert error_of(chunked)["type"] == "RequestTooLarge"
        bad_length = raw_request(
            base,
            b"POST /api/tables/dragon/bets HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n",
        )
        assert bad_length.startswith(b"HTTP/1.1 400"), bad_length[:80]
        huge_header = client.get("/api/me", headers={**player, "X-Junk": "j" * 200_000})
        assert huge_header.status_code == 431
        assert error_of(huge_header)["type"] == "RequestTooLarge"

        # Amounts the ledger or a table cannot hold are refused, not crashed on (these were 500s).
        for limits in [{"minimum": "1E+999999999"}, {"maximum": "1e99999"}]:
            response = client.patch("/api/tables/tiger", headers=pit, json={"limits": limits})
            assert response.status_code == 422, response.text
            assert error_of(response)["type"] == "ConfigError"
        too_much = client.post(
            "/api/cage/deposit",
            headers=pit,
            json={"username": "demo", "amount": "1e17", "key": "big"},
        )
        assert too_much.status_code == 422, too_much.text
        error_of(too_much)

        # Wrong routes and methods answer in the same JSON shape.
        assert error_of(client.get("/api/nowhere"))["type"] == "HTTPError"
        wrong_method = client.put(bets, headers=player, json={})
        assert wrong_method.status_code == 405
        error_of(wrong_method)
        # An unknown round is not found (404), not a conflict.
        missing = client.get("/api/tables/dragon/rounds/r99", headers=dealer)
        assert missing.status_code == 404
        assert error_of(missing)["type"] == "RoundNotFoundError"

        # After all that the server still answers, and nothing moved money.
        assert client.get("/api/health").json()["status"] == "ok"
        assert client.get("/api/me", headers=player).json()["balance"] == "10000.00"
        ledger = server_of_app(app).ledger
        assert ledger.trial_balance() == 0
        assert json.loads(json.dumps(ledger.audit().problems)) == []


def test_a_table_keeps_its_game_and_changes_its_shoe_only_before_dealing(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'punto.db'}"
    app = make_app(url)
    with live_server(app) as base, httpx2.Client(base_url=base, timeout=30) as client:
        pit, dealer = login(client, PIT), login(client, DEALER)
        created = client.post(
            "/api/tables",
            headers=pit,
            json={"id": "fresh", "game": "dragon-tiger", "mode": "dealer"},
        )
        assert created.status_code == 201
        # The log is written for Dragon Tiger: another game would not restore from it.
        other_game = client.patch(
            "/api/tables/fresh", headers=pit, json={"game": "tiger-buffalo", "layout": "B"}
        )
        assert other_game.status_code == 422
        assert "cannot change" in error_of(other_game)["message"]
        assert server_of_app(app).table("fresh").game.id == "dragon-tiger"
        # Before the first round the shoe may change: the table is set up afresh.
        six = client.patch("/api/tables/fresh", headers=pit, json={"decks": 6})
        assert six.status_code == 200, six.text
        assert server_of_app(app).table("fresh").table.decks == 6
        assert client.post("/api/tables/fresh/round/open", headers=dealer).is_success
        eight = client.patch("/api/tables/fresh", headers=pit, json={"decks": 8})
        assert eight.status_code == 422
        assert "once it has dealt" in error_of(eight)["message"]
    with live_server(make_app(url)) as base:  # and the server starts again on that log
        assert httpx2.get(f"{base}/api/tables/fresh").json()["table"]["decks"] == 6
