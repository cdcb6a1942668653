"""Names that impersonate the staff or one another.

As found: tournament entrant names "dealer", "Admin " and "dеaler" (a
Cyrillic е) were accepted, and refusals then read "dealer has already bet
...".  Now entrant names and account names are normalised (NFKC, trimmed,
nothing invisible), refused when they read as a staff role or title, and
refused when their confusable skeleton (Unicode TR39) is another's.  On
SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.security.accounts_support import headers_for
from tests.server.test_server_support import ADMIN, PIT, PLAYER, balance, make_app

#: The names of the finding, and full-width, zero-width and look-alike variants.
STAFF_NAMES = [
    "dealer",
    "Admin ",
    "d\u0435aler",  # Cyrillic е
    "\uff44\uff45\uff41\uff4c\uff45\uff52",  # full-width "dealer"
    "\uff21\uff44\uff4d\uff49\uff4e",  # full-width "Admin"
    "pit boss",
    "Pit-Boss",
    "DEA1ER",
    "Shift Manager",
    "Dealer Bob",
]
ZERO_WIDTH = ["de\u200baler", "Ad\u200dmin", "\u2060dealer"]


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url)) as client:
        yield client


def test_security_entrant_names_that_impersonate_staff_are_refused(client: TestClient) -> None:
    pit = headers_for(client, PIT)
    assert client.post("/api/tournaments", headers=pit, json={"id": "cup"}).status_code == 200
    player = headers_for(client, PLAYER)

    def register(name: str) -> dict[str, str]:
        answer = client.post("/api/tournaments/cup/register", headers=player, json={"name": name})
        return refused(name, answer)

    def register_bot(name: str) -> dict[str, str]:
        body = {"name": name, "strategy": "banker"}
        answer = client.post("/api/tournaments/cup/register", headers=pit, json=body)
        return refused(name, answer)

    def refused(name: str, answer: Any) -> dict[str, str]:
        assert answer.status_code == 422, (name, answer.text)
        error: dict[str, str] = answer.json()["error"]
        assert error["type"] == "RegistrationError"
        assert error["clause"].startswith("T2.1")
        return error

    for name in STAFF_NAMES:
        error = register(name)
        assert "a staff role or title" in error["message"], (name, error)
        assert error["hint"] == "choose a name that is not one"
    for name in ZERO_WIDTH:
        assert "invisible or control character" in register(name)["message"], name
    assert balance(client, player) == "10000.00"  # refused before the fee
    # a name of one's own is taken; its look-alikes are not
    mine = client.post("/api/tournaments/cup/register", headers=player, json={"name": "Ann Lee"})
    assert mine.status_code == 200, mine.text
    for look_alike in ("\u0391nn Lee", "Ann L\u0435e", "ANN LEE", "Ann 1ee"):
        error = register_bot(look_alike)
        assert error["message"].startswith("an entrant is already called 'Ann Lee'"), error
    # a name that only holds the letters of a title is no title
    body = {"name": "Brad Pitt", "strategy": "banker"}
    taken = client.post("/api/tournaments/cup/register", headers=pit, json=body)
    assert taken.status_code == 200, taken.text


def test_security_player_account_names_that_impersonate_staff_or_others_are_refused(
    client: TestClient,
) -> None:
    admin = headers_for(client, ADMIN)

    def create(name: str, role: str = "player") -> tuple[int, dict[str, str]]:
        answer = client.post(
            "/api/users",
            headers=admin,
            json={"username": name, "password": "a long player password", "role": role},
        )
        body = answer.json()
        return answer.status_code, body.get("error", body)

    for name in ["dealer", "Admin ", "pit-boss", "dea1er", "\uff44\uff45\uff41\uff4c\uff45\uff52"]:
        status, error = create(name)
        assert status in (409, 422), (name, error)
        if status == 422:
            assert error["type"] == "UsernameError", (name, error)
            assert "staff role or title" in error["message"], (name, error)
        else:  # the staff's own account of that name exists already
            assert error["type"] == "UserExistsError", (name, error)
    for name in ["d\u0435aler", "de\u200baler"]:
        status, error = create(name)
        assert status == 422, (name, error)
        assert "is not one of them" in error["message"], (name, error)
        assert "U+" in error["message"]
    status, error = create("dem0")  # beside the player "demo"
    assert status == 422, error
    assert "reads as the account 'demo'" in error["message"]
    status, _ = create("dana.lee")
    assert status == 201
    # the admin names staff accounts after their role if they like
    status, _ = create("dealer2", role="dealer")
    assert status == 201
