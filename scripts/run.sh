#!/usr/bin/env bash
# The main job: set up on a fresh machine, then run punto.
# With no arguments it starts the table server on an embedded SQLite database
# (./punto.db) with demo tables and demo accounts, and prints the URL and the
# logins; any arguments are passed to the punto command instead
# (e.g. `scripts/run.sh play tiger-baccarat`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
if [ "$#" -eq 0 ]; then
  set -- serve --demo
fi
exec "$root/.venv/bin/punto" "$@"
