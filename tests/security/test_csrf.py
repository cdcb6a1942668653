"""Security review, cross-site request forgery from a same-site origin.

The session cookie is SameSite=Strict, but a page on another port of the
same host is the same *site*: its form POSTs and ``fetch(..., {mode:
"no-cors", credentials: "include"})`` carried the dealer's cookie, and the
server acted on them.  Each attack is replayed here as the browser sends it
(the cookie, the attacker's ``Origin``, a form or text body) and shown
refused with nothing changed; the server's own pages (its own origin, JSON)
and programs with a Bearer token still work.  The real-browser version is
``test_browser.py``.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from tests.server import test_server_support as support
from tests.server.test_server_support import DEALER, PLAYER, error_of, make_app, new_table

#: The TestClient's own origin (its base URL), and an attacker's page on another port.
OWN = "http://testserver"
EVIL = "http://testserver:8081"


def cookie_login(client: TestClient, who: tuple[str, str]) -> None:
    """Log ``who`` in the way a page does: the session stays in the cookie jar."""
    response = client.post(
        "/api/auth/login",
        json={"username": who[0], "password": who[1]},
        headers={"Origin": OWN},
    )
    assert response.status_code == 200, response.text
    assert client.cookies.get("punto_session")


def phase(client: TestClient, table: str) -> str | None:
    """The table's round phase, as the dealer sees it (logged in anew, by token)."""
    client.cookies.clear()
    state = client.get(f"/api/tables/{table}", headers=support.login(client, DEALER)).json()
    return None if state["round"] is None else str(state["round"]["phase"])


def test_security_csrf_form_post_from_another_port_does_not_open_betting(
    client: TestClient,
) -> None:
    table = new_table(client, id="csrf", game="tiger-baccarat")
    cookie_login(client, DEALER)
    form = client.post(
        f"/api/tables/{table}/round/open",
        headers={"Origin": EVIL, "Content-Type": "application/x-www-form-urlencoded"},
        content=b"x=1",
    )
    assert form.status_code == 403, form.text
    assert error_of(form)["type"] == "CrossSiteError"
    # a no-cors fetch: no body, no content type, the attacker's origin
    bare = client.post(f"/api/tables/{table}/round/open", headers={"Origin": EVIL})
    assert bare.status_code == 403, bare.text
    # the Referer speaks when the Origin is missing
    referred = client.post(
        f"/api/tables/{table}/round/open", headers={"Referer": f"{EVIL}/attack.html"}
    )
    assert referred.status_code == 403, referred.text
    # neither header, the cookie alone: refused too (a browser always says one)
    anonymous = client.post(
        f"/api/tables/{table}/round/open", headers={"Content-Type": "application/json"}
    )
    assert anonymous.status_code == 403, anonymous.text
    assert phase(client, table) is None  # nothing happened at the table


def test_security_csrf_same_origin_needs_a_json_content_type(client: TestClient) -> None:
    table = new_table(client, id="json", game="tiger-baccarat")
    cookie_login(client, DEALER)
    text = client.post(
        f"/api/tables/{table}/round/open",
        headers={"Origin": OWN, "Content-Type": "text/plain"},
        content=b"{}",
    )
    assert text.status_code == 415, text.text
    assert error_of(text)["type"] == "ContentTypeError"
    assert phase(client, table) is None
    cookie_login(client, DEALER)
    ok = client.post(
        f"/api/tables/{table}/round/open",
        headers={"Origin": OWN, "Content-Type": "application/json"},
    )
    assert ok.status_code == 200, ok.text
    assert phase(client, table) == "betting"


def test_security_csrf_cross_site_bet_takes_no_money(client: TestClient) -> None:
    table = new_table(client, id="bet", game="tiger-baccarat")
    dealer = support.login(client, DEALER)
    assert client.post(f"/api/tables/{table}/round/open", headers=dealer).status_code == 200
    cookie_login(client, PLAYER)
    # a text/plain body that is JSON: what a form with enctype=text/plain sends
    response = client.post(
        f"/api/tables/{table}/bets",
        headers={"Origin": EVIL, "Content-Type": "text/plain"},
        content=b'{"wager": "banker", "stake": "500"}',
    )
    assert response.status_code == 403, response.text
    player = support.login(client, PLAYER)
    assert support.balance(client, player) == "10000.00"  # the wallet is whole
    support.check_books(client)


def test_security_csrf_bearer_token_may_come_from_anywhere(client: TestClient) -> None:
    """A Bearer token is not something a page can make a browser add to another
    origin's request: a program (or another site's own client) may use one."""
    table = new_table(client, id="bearer", game="tiger-baccarat")
    dealer = support.login(client, DEALER)
    response = client.post(f"/api/tables/{table}/round/open", headers={**dealer, "Origin": EVIL})
    assert response.status_code == 200, response.text
    assert phase(client, table) == "betting"


def test_security_csrf_websocket_from_another_origin_is_refused(client: TestClient) -> None:
    cookie_login(client, PLAYER)
    with (
        pytest.raises(WebSocketDenialResponse) as refused,
        client.websocket_connect("/ws/tables/tiger", headers={"Origin": EVIL}) as ws,
    ):
        ws.receive_json()  # the player's balance, on today's main
    assert refused.value.status_code == 403
    # the server's own page, with the same cookie, watches as the player
    with client.websocket_connect("/ws/tables/tiger", headers={"Origin": OWN}) as ws:
        state = ws.receive_json()
        assert state["me"]["balance"] == "10000.00"


def test_security_websockets_per_client_address_are_capped(tmp_path: object) -> None:
    app = make_app("sqlite://", ws_per_client=3)
    with TestClient(app) as client:
        sockets = [client.websocket_connect("/ws/tables/tiger") for _ in range(3)]
        for ws in sockets:
            ws.__enter__()
            assert ws.receive_json()["type"] == "state"
        try:
            with (
                pytest.raises(WebSocketDenialResponse) as refused,
                client.websocket_connect("/ws/tables/tiger") as fourth,
            ):
                fourth.receive_json()
            assert refused.value.status_code == 429
            assert refused.value.headers["retry-after"]
            assert error_of(refused.value)["type"] == "TooManySocketsError"
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)
        with client.websocket_connect("/ws/tables/tiger") as again:  # one closed: room again
            assert again.receive_json()["type"] == "state"


def test_security_csrf_login_from_another_origin_is_refused(client: TestClient) -> None:
    """Login CSRF: a page of another origin must not log the browser in under
    an account of its choosing (the victim would then play on it)."""
    response = client.post(
        "/api/auth/login",
        json={"username": PLAYER[0], "password": PLAYER[1]},
        headers={"Origin": EVIL},
    )
    assert response.status_code == 403, response.text
    assert error_of(response)["type"] == "CrossSiteError"
    assert "punto_session" not in response.cookies
