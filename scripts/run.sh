#!/usr/bin/env bash
# The main job: set up on a fresh machine, then run punto.
# With no arguments it starts the table server on an embedded SQLite database
# (./punto.db) with demo tables and demo accounts, and prints the URL and the
# logins; any arguments are passed to the punto command instead
# (e.g. `scripts/run.sh play tiger-baccarat`).
# The server needs the server extra alone; another command gets every extra (all),
# which brings the simulation, the charts and PostgreSQL. Neither installs the
# development tools (scripts/test.sh does).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "$#" -eq 0 ]; then
  set -- serve --demo
fi
if [ "$1" = "serve" ]; then extras=server; else extras=all; fi
bash "$root/scripts/setup.sh" "$extras"
exec "$root/.venv/bin/punto" "$@"
