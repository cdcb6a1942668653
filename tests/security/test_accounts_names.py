"""Security review: a display name (a tournament entrant's) could copy another
player's or carry control and bidi characters.  Now names are NFKC, one
space between words, free of invisible characters, and unique case-folded
(refused under the format's registration rule, T2.1).  On SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.security.accounts_support import headers_for
from tests.server.test_server_support import PIT, PLAYER, balance, make_app


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url)) as client:
        yield client


def test_accounts_display_names_are_normalised_unique_and_visible(client: TestClient) -> None:
    pit = headers_for(client, PIT)
    assert client.post("/api/tournaments", headers=pit, json={"id": "cup"}).status_code == 200

    def register(name: str) -> tuple[int, dict[str, object]]:
        r = client.post(
            "/api/tournaments/cup/register",
            headers=pit,
            json={"name": name, "strategy": "banker"},
        )
        return r.status_code, r.json()

    status, body = register("  Ａｎｎ   Lee ")
    assert status == 200
    assert body["name"] == "Ann Lee"
    for copy in ("ANN LEE", "ann lee", "Ann  Lee", "Ann\u00a0Lee"):
        status, body = register(copy)
        assert status == 422, copy
        assert body["error"]["type"] == "RegistrationError"  # type: ignore[index]
        assert body["error"]["clause"].startswith("T2.1")  # type: ignore[index]
    for hidden in ("Ann Lee\u200b", "\u202eeeL nnA", "Bo\u0007", "Cy\u2066x\u2069", "Di\ufeff"):
        status, body = register(hidden)
        assert status == 422, repr(hidden)
        assert "invisible or control character" in body["error"]["message"]  # type: ignore[index]

    # a player copying the name pays nothing: the refusal comes before the fee
    player = headers_for(client, PLAYER)
    copied = client.post("/api/tournaments/cup/register", headers=player, json={"name": "ANN lee"})
    assert copied.status_code == 422, copied.text
    assert balance(client, player) == "10000.00"
    mine = client.post("/api/tournaments/cup/register", headers=player, json={"name": "Demo"})
    assert mine.status_code == 200, mine.text
    assert mine.json()["name"] == "Demo"
    assert balance(client, player) == "9800.00"  # the daily format's entry fee, 200.00
    names = [e["name"] for e in client.get("/api/tournaments/cup").json()["entrants"]]
    assert sorted(names) == ["Ann Lee", "Demo"]
