"""The web pages: plain HTML, a little vanilla JavaScript and CSS, served by
the app itself (``static/``).  Each page finds its table id in its URL.

- ``/``                  the tables, with links to each page
- ``/play/{table}``      the player: the game's layout drawn from its data (areas and
  pays), chips, undo/clear/rebet, balance, countdown, the coup card by card,
  Insurance Plus offers (odds, cap; take or pass), results per bet and net, roads
- ``/dealer/{table}``    the dealer console: open and close betting, draw or key
  cards (keyboard or keypad), Insurance Plus windows, settle with what each bet
  pays, void and power failure with a pit manager's confirmation
- ``/scoreboard/{table}`` the big screen: large roads, last results, shoe statistics
- ``/pit``               the pit: tables, limits, rounds in play, drop, win, hold and
  commission per table and per shift, changing and opening tables, the audit log
- ``/tournaments``        the tournaments: scheduled, running and finished, with their
  format, entry fee, prize pool, seats and stage; a player registers and takes an entry back
- ``/tournaments/{id}``   a tournament's table: each hand on the felt as the player's
  page shows a coup, the betting window's clock, chips, the leaderboard
  (:mod:`punto.server.tournaments.routes`)
- ``/tournaments/{id}/board`` the big screen of a tournament: its leaderboard
- ``/pit/tournaments``   the pit's tournaments: create one from a format, start its
  sessions, advance one that is not live, cancel one
- ``/docs``              the API (Swagger UI from the ``swagger-ui-bundle-v2`` package,
  served from here: no CDN, and under the same policy as the pages)

The pages work on a phone-sized screen, give every control a label and a
``data-testid``, and run under a strict Content-Security-Policy: no inline
script or style (scripts set styles only through the CSSOM), and connections
(fetch and WebSocket) only to this server.  Every page answers ``HEAD`` as
``GET``, without the body.  They are exercised in Debian's Chromium by
``tests/ui/test_browser_*.py``.  The player's, scoreboard, tournament and
lobby pages speak English, 简体中文 and 繁體中文 (:mod:`punto.server.routes.i18n`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module, resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(str(resources.files("punto.server") / "static"))
#: Swagger UI's own files, as the ``swagger-ui-bundle-v2`` package ships them
#: (the package has no type information: its one attribute is read this way).
SWAGGER = Path(str(import_module("swagger_ui_bundle").swagger_ui_path))

_PAGES = {
    "/": "index.html",
    "/play/{table_id}": "player.html",
    "/dealer/{table_id}": "dealer.html",
    "/scoreboard/{table_id}": "scoreboard.html",
    "/pit": "pit.html",
    "/tournaments": "tournaments.html",
    "/tournaments/{table_id}/board": "board.html",
    "/pit/tournaments": "tournaments-pit.html",
    "/docs": "docs.html",
}

#: Pages are not framed by other sites, and load scripts only from here.
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'",
}


def _page(name: str) -> HTMLResponse:
    return HTMLResponse((STATIC / name).read_text("utf-8"), headers=HEADERS)


def mount(app: FastAPI) -> None:
    # The more specific mount first: /static/swagger is not a file of static/.
    app.mount("/static/swagger", StaticFiles(directory=SWAGGER), name="swagger")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for path, name in _PAGES.items():
        # The table id is read by the page's script from its URL.
        app.add_api_route(path, _route(name), methods=["GET", "HEAD"], include_in_schema=False)


def _route(name: str) -> Callable[[], HTMLResponse]:
    def page() -> HTMLResponse:
        return _page(name)

    return page
