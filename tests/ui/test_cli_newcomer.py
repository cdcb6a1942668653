"""The command line as a newcomer meets it:
``punto --version``; ``punto serve`` on a busy port refused before it prints a
login or touches the database, and a clean stop that leaves nothing beside the
database; ``punto roads`` as wide as its text."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
import pytest

import punto
from punto.cli import main
from punto.server.cluster.sqlite_lock import lock_path, lock_sqlite, release_sqlite
from punto.ui.roads_svg import text_width
from tests.server.test_server_support import free_port, wait_for

SVG = "{http://www.w3.org/2000/svg}"


def _punto(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``punto ARGS`` in a process of its own (the server must not run in the tests')."""
    return subprocess.run(
        [sys.executable, "-m", "punto.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


# -- punto --version ---------------------------------------------------------------------------


def test_version_is_the_installed_packages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"punto {version('punto')}\n"
    assert punto.__version__ == version("punto")


def test_version_of_the_installed_command(tmp_path: Path) -> None:
    done = _punto("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"punto {version('punto')}\n", "")


# -- punto serve: the port first, and nothing left after a clean stop --------------------------


@contextmanager
def busy_port() -> Iterator[int]:
    """A port another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


def test_serve_on_a_busy_port_says_so_and_names_port_before_any_login(tmp_path: Path) -> None:
    with busy_port() as port:
        done = _punto("serve", "--demo", "--port", str(port), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""  # no URL, no logins
    assert done.stderr == (
        f"punto: error: port {port} on 127.0.0.1 is in use (another punto serve, or another "
        f"program); stop it, or give this server another port: --port {port + 1}\n"
    )
    assert list(tmp_path.iterdir()) == []  # no database made, no migration run, no lock


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ("192.0.2.1", "--host 192.0.2.1 is not an address of this machine"),
        ("no-such-host.invalid", "--host no-such-host.invalid is not an address or a name"),
    ],
    ids=["not ours", "no such name"],
)
def test_serve_on_a_host_it_cannot_listen_on_says_so(
    tmp_path: Path, host: str, message: str
) -> None:
    done = _punto("serve", "--host", host, "--port", str(free_port()), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"punto: error: {message}")
    assert done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_serve_stopped_cleanly_leaves_no_lock_file(tmp_path: Path, stop: signal.Signals) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "punto.cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:

        def answers() -> bool:
            assert process.poll() is None, "the server stopped"
            try:
                return httpx2.get(f"http://127.0.0.1:{port}/api/health", timeout=1).is_success
            except httpx2.TransportError:
                return False

        wait_for(answers, timeout=60, step=0.1)
        assert (tmp_path / "punto.db.serve.lock").is_file()  # held while it serves
        process.send_signal(stop)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read().decode()
    assert (tmp_path / "punto.db").is_file()
    assert not (tmp_path / "punto.db.serve.lock").exists()


def test_a_released_lock_is_gone_and_the_file_can_be_locked_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'punto.db'}"
    held = lock_sqlite(url)
    assert held is not None
    assert lock_path(str(tmp_path / "punto.db")).read_text() == f"{os.getpid()}\n"
    release_sqlite(held)
    assert list(tmp_path.iterdir()) == []
    again = lock_sqlite(url)
    assert again is not None
    assert lock_path(str(tmp_path / "punto.db")).is_file()
    release_sqlite(again)


# -- punto roads: as wide as its text ----------------------------------------------------------

TWO_COUPS: dict[str, Any] = {
    "game": "tiger-baccarat",
    "limits": {"minimum": "10", "maximum": "1000"},
    "actions": [
        {"action": "open"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "QH 2C 2D KS 3H 4D"},
        {"action": "settle"},
        {"action": "open"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "9H 9C 9D 6S"},
        {"action": "settle"},
    ],
}


def _two_coup_roads(tmp_path: Path) -> ET.Element:
    replay = tmp_path / "two-coups.json"
    replay.write_text(json.dumps(TWO_COUPS), "utf-8")
    out = tmp_path / "roads.svg"
    assert main(["roads", str(replay), "--out", str(out)]) == 0
    return ET.fromstring(out.read_text("utf-8"))


def test_roads_of_a_two_coup_replay_are_as_wide_as_their_title(tmp_path: Path) -> None:
    svg = _two_coup_roads(tmp_path)
    width = float(svg.attrib["viewBox"].split()[2])
    title = next(t for t in svg.iter(f"{SVG}text") if t.get("class") == "title")
    assert title.text == "Tiger Baccarat, replay two-coups.json: shoe 1 of 1"
    # Wider than the road (2 columns of 10) and than the title at the narrowest
    # advance a letter of Arial has (the lower bound, whatever text_width says).
    assert width > 2 * 10
    assert width >= len(title.text) * 0.278 * float(title.attrib["font-size"])
    for text in svg.iter(f"{SVG}text"):
        assert width >= text_width(text.text or "", float(text.attrib["font-size"]))
    assert float(svg.attrib["width"]) == 2 * width  # drawn at twice its units
    stats = next(t for t in svg.iter(f"{SVG}text") if t.get("class") == "stats")
    assert stats.text is not None
    assert stats.text.startswith("2 coups: ")


def test_one_coup_is_one_coup(tmp_path: Path) -> None:
    replay = tmp_path / "one.json"
    replay.write_text(json.dumps({**TWO_COUPS, "actions": TWO_COUPS["actions"][:4]}), "utf-8")
    out = tmp_path / "roads.svg"
    assert main(["roads", str(replay), "--out", str(out)]) == 0
    stats = [t for t in ET.parse(out).iter(f"{SVG}text") if t.get("class") == "stats"]
    assert stats[0].text is not None
    assert stats[0].text.startswith("1 coup: Banker 1")
