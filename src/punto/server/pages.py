"""The web pages: plain HTML, a little vanilla JavaScript and CSS, served by
the app itself (``static/``).  Each page finds its table id in its URL.

- ``/``                  the tables, with links to each page
- ``/play/{table}``      the player: layout, chips, countdown, cards, results, roads
- ``/dealer/{table}``    the dealer console
- ``/scoreboard/{table}`` the roads on a big screen
- ``/pit``               the pit: tables, limits, rounds, hold and commission, audit
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(str(resources.files("punto.server") / "static"))

_PAGES = {
    "/": "index.html",
    "/play/{table_id}": "player.html",
    "/dealer/{table_id}": "dealer.html",
    "/scoreboard/{table_id}": "scoreboard.html",
    "/pit": "pit.html",
}

#: Pages are not framed by other sites, and load scripts only from here.
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'",
}


def _page(name: str) -> HTMLResponse:
    return HTMLResponse((STATIC / name).read_text("utf-8"), headers=HEADERS)


def mount(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for path, name in _PAGES.items():
        # The table id is read by the page's script from its URL.
        app.add_api_route(path, _route(name), methods=["GET"], include_in_schema=False)


def _route(name: str) -> Callable[[], HTMLResponse]:
    def page() -> HTMLResponse:
        return _page(name)

    return page
