"""The layers: the import-linter contracts in pyproject.toml hold for this
checkout -- no import circle among punto's modules at any depth (type-only
and in-function imports counted), the server's app over its routes over its
services over the cluster over the table runtime, the runtime over its
parts, and the tournaments apart from the tables' routes.  A contract broken
names the import that breaks it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CONTRACTS = ("no-cycles", "server-layers", "server-tables-inside", "server-tournaments-apart")


def test_server_import_contracts_hold() -> None:
    pytest.importorskip("importlinter", reason="import-linter is in the dev extra")
    lint = Path(sys.executable).parent / "lint-imports"
    command = [str(lint), "--no-cache", "--no-logo"]
    for contract in CONTRACTS:
        command += ["--contract", contract]
    # this checkout's code, whichever punto the environment has installed
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in done.stdout
