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
.venv/bin/pytest "$@"
