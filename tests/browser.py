"""A real browser for tests: Debian's Chromium driven by Playwright.

Never a browser download: the executable is the system's ``chromium``
(installed by ``scripts/chromium.sh``).  Without it the browser tests skip,
except under CI (``CI=true``), where they fail so that a missing install step
cannot hide behind a green run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

#: Screenshots of every browser test land here (kept as test artifacts).
ARTIFACTS = Path(
    os.environ.get("PUNTO_ARTIFACTS", Path(__file__).resolve().parent.parent / "artifacts")
)

_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Debian's chromium is not installed; scripts/chromium.sh installs it")
        pytest.skip("Debian's chromium is not installed (bash scripts/chromium.sh)")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium for one test module: the sync Playwright API allows
    one running instance per thread, so each module's is closed before the
    next module opens its own."""
    executable = chromium_path()
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=executable, args=_FLAGS, headless=True)
        try:
            yield instance
        finally:
            instance.close()


def screenshot_path(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"
