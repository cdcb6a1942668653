"""scripts/setup.sh and scripts/run.sh on a checkout whose .venv is a fake: which
extras each installs, that a first install says what it does a line a step, that
a current install does nothing and says nothing, and that a failed one shows
pip's log.  (tests/project/test_main_job.py runs the real run.sh.)

The fake ``.venv/bin/python`` writes its arguments to ``calls.txt`` and, for a
``pip install -e``, prints what pip prints; ``.venv/bin/punto`` writes its
arguments to ``punto.txt``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/usr/bin/env bash
echo "$*" >> "$(dirname "$0")/../../calls.txt"
case "$*" in
  *"-e "*)
    [ -f "$(dirname "$0")/../../pip-fails" ] && { echo "ERROR: No matching distribution"; exit 1; }
    echo "Looking in indexes: https://pypi.org/simple"
    echo "Obtaining file:///checkout"
    echo "  Installing build dependencies: started"
    echo "Collecting fastapi>=0.110 (from punto==0.1.0)"
    echo "  Downloading fastapi-0.115.0-py3-none-any.whl (94 kB)"
    echo "Collecting uvicorn>=0.29 (from uvicorn[standard]>=0.29->punto==0.1.0)"
    echo "Building wheels for collected packages: punto, httptools"
    echo "  Building editable for punto (pyproject.toml): started"
    echo "  Building editable for punto (pyproject.toml): finished with status 'done'"
    echo "  Building wheel for httptools (pyproject.toml): started"
    echo "Installing collected packages: uvicorn, fastapi, punto"
    echo "Successfully installed fastapi-0.115.0 punto-0.1.0 uvicorn-0.30.0"
    ;;
esac
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout with the real scripts and a fake, already created .venv."""
    (tmp_path / "scripts").mkdir()
    for script in ("setup.sh", "run.sh"):
        shutil.copy(ROOT / "scripts" / script, tmp_path / "scripts" / script)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'punto'\n")
    (tmp_path / "constraints.txt").write_text("")
    (tmp_path / "src" / "punto").mkdir(parents=True)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text(FAKE_PYTHON)
    (bin_dir / "punto").write_text(
        '#!/usr/bin/env bash\necho "$*" > "$(dirname "$0")/../../punto.txt"\n'
    )
    for fake in bin_dir.iterdir():
        fake.chmod(0o755)
    return tmp_path


def _bash(checkout: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(checkout / "scripts" / script), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": os.environ["PATH"]},
        check=False,
    )


def _installs(checkout: Path) -> list[str]:
    calls = checkout / "calls.txt"
    lines = calls.read_text().splitlines() if calls.exists() else []
    return [line.rsplit(" -e ", 1)[1] for line in lines if " -e " in line]


def test_run_sh_installs_the_server_alone_and_says_each_step(checkout: Path) -> None:
    done = _bash(checkout, "run.sh")
    assert done.returncode == 0, done.stderr
    assert _installs(checkout) == [f"{checkout}[server]"]
    assert (checkout / "punto.txt").read_text() == "serve --demo\n"
    assert done.stdout == ""  # standard output is the server's
    assert done.stderr.splitlines() == [
        "setup: updating pip",
        "setup: installing punto[server] and its dependencies into .venv "
        "(a few minutes the first time)",
        "setup:   preparing punto itself (its build tools and metadata)",
        "setup:   fetching fastapi>=0.110",
        "setup:   fetching uvicorn>=0.29",
        "setup:   building punto",
        "setup:   building httptools",
        "setup:   installing 3 packages (half a minute or so, without a word from pip)",
        "setup: compiling punto's bytecode",
        "setup: done: punto[server] is installed in .venv",
    ]
    again = _bash(checkout, "run.sh", "serve", "--port", "8001")
    assert (again.returncode, again.stderr) == (0, "")  # current: nothing to do or say
    assert _installs(checkout) == [f"{checkout}[server]"]
    assert (checkout / "punto.txt").read_text() == "serve --port 8001\n"


def test_run_sh_gives_another_command_every_extra_but_not_the_dev_tools(checkout: Path) -> None:
    assert _bash(checkout, "run.sh", "simulate", "tiger-baccarat").returncode == 0
    assert _installs(checkout) == [f"{checkout}[all]"]
    assert (checkout / "punto.txt").read_text() == "simulate tiger-baccarat\n"


def test_setup_sh_installs_all_and_dev_which_serve_every_later_need(checkout: Path) -> None:
    assert _bash(checkout, "setup.sh").returncode == 0  # as test.sh and .ci/run call it
    assert _installs(checkout) == [f"{checkout}[all,dev]"]
    assert (checkout / ".venv" / ".punto-installed").is_file()
    assert _bash(checkout, "run.sh").stderr == ""
    assert _installs(checkout) == [f"{checkout}[all,dev]"]  # the server is in it


def test_a_changed_pyproject_installs_again(checkout: Path) -> None:
    assert _bash(checkout, "setup.sh", "server").returncode == 0
    assert _bash(checkout, "setup.sh", "server").stderr == ""
    stamp = checkout / ".venv" / ".punto-installed-server"
    os.utime(stamp, (stamp.stat().st_mtime - 60,) * 2)  # pyproject.toml edited since
    assert "setup: installing punto[server]" in _bash(checkout, "setup.sh", "server").stderr
    assert _installs(checkout) == [f"{checkout}[server]"] * 2


def test_a_failed_install_shows_pips_log_and_fails(checkout: Path) -> None:
    (checkout / "pip-fails").touch()
    done = _bash(checkout, "run.sh")
    assert done.returncode == 1
    assert "ERROR: No matching distribution" in done.stderr
    assert done.stderr.endswith("setup: installing punto into .venv failed (log above)\n")
    assert not (checkout / "punto.txt").exists()  # punto not started
    assert not (checkout / ".venv" / ".punto-installed-server").exists()
