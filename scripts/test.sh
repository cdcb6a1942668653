#!/usr/bin/env bash
# The whole test suite: set up, then lint, type-check and test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
echo "== ruff"
.venv/bin/ruff check
.venv/bin/ruff format --check
echo "== mypy --strict"
.venv/bin/mypy
echo "== lint-imports (the layers: pyproject.toml [tool.importlinter])"
.venv/bin/lint-imports --no-cache
echo "== services"
# A real PostgreSQL on loopback for the storage tests (installed and started if missing).
export PUNTO_TEST_POSTGRES="${PUNTO_TEST_POSTGRES:-$(bash scripts/postgres.sh)}"
echo "PostgreSQL: $PUNTO_TEST_POSTGRES"
# Debian's Chromium for the browser tests (Playwright drives it; no browser download).
bash scripts/chromium.sh
echo "Chromium: $(chromium --version 2>/dev/null)"
echo "== pytest"
# On two workers (pytest-xdist; PUNTO_TEST_WORKERS=0 for one process): the
# suite waits on servers, browsers and databases more than it computes, and
# took 17.5 minutes so against 27 in one process on the 2-core CI machine.
# Work-stealing keeps the slow tests from piling up on one worker at the end.
.venv/bin/pytest -n "${PUNTO_TEST_WORKERS:-2}" --dist worksteal "$@"
