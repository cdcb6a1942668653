"""The admin page (``/admin``) in Debian's Chromium against a real server on
loopback: the admin unlocks the pit manager a stranger locked out, disables
and enables a player, and resets a password, each from the page; the pit
manager sees no controls there (the security review: "nobody can unlock it")."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.security.accounts_support import ADMIN
from tests.server.test_server_support import login
from tests.ui.test_browser_support import PIT, PLAYER2, Site, browser, open_page, site

__all__ = ["browser", "site"]


def _login_status(site: Site, who: tuple[str, str]) -> int:
    response = site.client.post("/api/auth/login", json={"username": who[0], "password": who[1]})
    site.client.cookies.clear()
    status: int = response.status_code
    return status


def test_accounts_the_admin_page_unlocks_disables_and_resets(browser: Browser, site: Site) -> None:
    for _ in range(5):
        assert _login_status(site, ("pit", "a wrong guess")) in (401, 429)
    assert _login_status(site, PIT) == 429  # locked out from this address

    page = open_page(browser, site, "/admin", "admin")
    try:
        page.login(ADMIN)
        page.testid("account-pit").filter(has_text="127.0.0.1 until").wait_for()
        page.testid("unlock-pit").click()
        page.wait_text("message", "pit: unlocked.")
        assert _login_status(site, PIT) == 200

        player2 = site.headers(PLAYER2)
        assert site.balance(PLAYER2) == 10000
        page.testid("disable-demo2").click()
        page.wait_text("message", "demo2: disabled, every session ended.")
        assert site.client.get("/api/me", headers=player2).status_code == 401
        assert _login_status(site, PLAYER2) == 403
        page.testid("enable-demo2").click()
        page.wait_text("message", "demo2: enabled.")

        page.testid("reset-account").select_option("demo2")
        page.testid("reset-password").fill("12345678")
        page.testid("reset-submit").click()
        page.wait_text(
            "message",
            "that password is one of the commonest passwords; "
            "anyone guessing tries it first: choose another, a few words make a good one",
        )
        page.testid("reset-password").fill("river stone lantern")
        page.testid("reset-submit").click()
        page.wait_text("message", "demo2: new password set, every session ended.")
        assert _login_status(site, PLAYER2) == 401
        assert _login_status(site, ("demo2", "river stone lantern")) == 200
        fresh = login(site.client, ("demo2", "river stone lantern"))
        me = site.client.get("/api/me", headers=fresh).json()
        assert me["balance"] == "10000.00"  # the wallet is untouched throughout
        page.assert_labelled()
        page.screenshot("security-admin-accounts")
        # the one console error allowed: the browser's note of the refused reset (422)
        assert [e for e in page.errors if "status of 422" not in e] == []
    finally:
        page.close()

    pit = open_page(browser, site, "/admin", "admin-as-pit")
    try:
        pit.login(PIT)
        pit.wait_text("message", "A pit manager may not manage accounts: it takes the admin.")
        assert pit.testid("unlock-pit").count() == 0
        pit.check()
    finally:
        pit.close()
