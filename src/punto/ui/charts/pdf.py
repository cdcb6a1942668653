"""The report printed to PDF by Chromium (Playwright driving the system's
``chromium``: never a browser download), with every request but the page's
own file refused, so the PDF is the offline document exactly."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from punto.errors import PuntoError
from punto.ui.charts.figure import require

__all__ = ["chromium_executable", "print_pdf"]

_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]


class ChromiumMissingError(PuntoError):
    """No Chromium to print with (a system package, not a Python extra)."""


def chromium_executable() -> str:
    """The system's Chromium, or a refusal saying how to install it."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise ChromiumMissingError(
            "printing the report to PDF needs Chromium, and none is installed",
            hint="install Debian's chromium (bash scripts/chromium.sh), or leave out --pdf",
        )
    return path


def print_pdf(page: Path, target: Path) -> Path:
    """Print the HTML file ``page`` to ``target`` (A4, backgrounds kept)."""
    sync_api = require("playwright.sync_api", "report")
    executable = chromium_executable()
    own = page.resolve().as_uri()

    def local_only(route: Any) -> None:
        if route.request.url == own:
            route.continue_()
        else:
            route.abort()

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=_FLAGS, headless=True)
        try:
            tab = browser.new_page()
            tab.route("**/*", local_only)
            tab.goto(own)
            tab.wait_for_load_state("load")
            tab.pdf(path=str(target), format="A4", print_background=True)
        finally:
            browser.close()
    return target
