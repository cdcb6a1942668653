"""The security review's cross-site finding in a real browser (Debian's
Chromium): a page on another port of
the same host -- the same *site*, so the SameSite=Strict cookie goes along --
tries to make a logged-in dealer's browser open betting (a form POST and a
no-cors fetch) and to read the table's staff stream over a WebSocket.  The
server refuses all three and nothing changes at the table; the dealer's own
console still works.  And the API docs load with no request to any other host.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from playwright.sync_api import Browser, expect

from tests.ui.test_browser_support import DEALER, Site, browser, open_page, site

__all__ = ["browser", "site"]

TABLE = "csrf-web"

ATTACK = """<!doctype html>
<html><body>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="{base}/api/tables/{table}/round/open" target="sink">
  <input name="x" value="1">
</form>
<script>
  const body = document.body;
  document.getElementById("form").submit();
  fetch("{base}/api/tables/{table}/round/open", {{method: "POST", mode: "no-cors", credentials: "include"}})
    .then(() => {{ body.dataset.fetch = "sent"; }}, () => {{ body.dataset.fetch = "failed"; }});
  const ws = new WebSocket("{ws}/ws/tables/{table}");
  ws.onmessage = (event) => {{ body.dataset.ws = "read " + event.data.slice(0, 80); }};
  ws.onclose = (event) => {{ if (!body.dataset.ws) body.dataset.ws = "closed " + event.code; }};
</script>
</body></html>
"""


@contextlib.contextmanager
def attacker(page: str) -> Iterator[str]:
    """Another origin on loopback (its own port) serving ``page``; its URL."""
    content = page.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/attack.html"
    finally:
        server.shutdown()
        server.server_close()


def round_of(site: Site) -> object:
    return site.call("GET", f"/api/tables/{TABLE}", DEALER)["round"]


def test_security_csrf_page_on_another_port_cannot_drive_the_dealers_browser(
    browser: Browser, site: Site
) -> None:
    site.new_table(TABLE, "tiger-baccarat")
    dealer = open_page(browser, site, f"/dealer/{TABLE}", "security-dealer")
    dealer.login(DEALER)
    page = ATTACK.format(base=site.base, ws=site.base.replace("http", "ws"), table=TABLE)
    with attacker(page) as url:
        assert url.split("/")[2] != site.base.split("/")[2]  # another origin, the same host
        evil = dealer.context.new_page()  # the dealer's own browser, logged in
        evil.goto(url)
        evil.locator("body[data-fetch]").wait_for(state="attached")
        evil.locator("body[data-ws]").wait_for(state="attached")
        evil.frame_locator("iframe[name=sink]").locator("body").wait_for(state="attached")
        ws = evil.evaluate("document.body.dataset.ws")
        sink = evil.frame_locator("iframe[name=sink]").locator("body").inner_text()
        evil.close()
    assert ws.startswith("closed"), ws  # the handshake was refused: nothing read
    assert "CrossSiteError" in sink, sink  # the form's answer, which the attacker cannot read
    assert round_of(site) is None  # betting never opened
    # the dealer's own console, with the same cookie, still acts
    dealer.testid("btn-open").click()
    dealer.wait_phase("betting")
    assert round_of(site) is not None
    dealer.check()
    dealer.close()


def test_security_api_docs_load_with_no_request_to_another_host(
    browser: Browser, site: Site
) -> None:
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.base}/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("punto table server")
    page.locator(".opblock").first.wait_for()
    context.close()
    assert requests, "the page made no request at all"
    assert all(url.startswith(site.base + "/") for url in requests), requests
    assert errors == [], errors  # a policy violation shows up here
