"""The README's first command, ``bash scripts/run.sh``: set-up, then the table
server on ./punto.db with the demo tables and logins, printed on start.

Run from an empty directory with the port given (the README form takes the
default port 8000, which another process on a CI machine may hold; every
argument is passed on to ``punto``, so this is the same path)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx2
import pytest

from tests.server.test_server_support import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_run_sh_serves_the_demo_and_prints_the_url_and_logins(tmp_path: Path) -> None:
    port = free_port()
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        process = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "run.sh"), "serve", "--demo", "--port", str(port)],
            cwd=tmp_path,
            stdout=sink,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # the set-up may install
        while True:
            assert process.poll() is None, out.read_text()
            try:
                health = httpx2.get(f"{base}/api/health", timeout=1)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        assert health.json()["status"] == "ok"
        assert health.json()["database"] == "sqlite"
        assert (tmp_path / "punto.db").is_file()  # the embedded database, where it was run

        printed = out.read_text()
        assert f"punto table server: {base}" in printed
        lines = printed.splitlines()
        heading = lines.index("demo logins (user / password / role):")
        logins = []
        for line in lines[heading + 1 :]:
            if not line.startswith("  "):
                break  # the end of the list
            logins.append(line.strip().split(" / "))
        roles = {role for _user, _password, role in logins}
        assert {"player", "dealer", "pit manager", "admin"} <= roles
        for user, password, role in logins:  # every login printed works
            answer = httpx2.post(
                f"{base}/api/auth/login",
                json={"username": user, "password": password},
                timeout=10,
            )
            assert answer.status_code == 200, (user, answer.text)
            assert answer.json()["user"]["role"].replace("_", " ") == role

        tables = httpx2.get(f"{base}/api/tables", timeout=10).json()
        assert {t["id"] for t in tables} == {"tiger", "buffalo", "dragon"}
        page = httpx2.get(f"{base}/play/tiger", timeout=10)
        assert page.status_code == 200
        assert "text/html" in page.headers["content-type"]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert code == 0
    # a clean stop leaves the database and nothing beside it
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "out.txt") == ["punto.db"]
