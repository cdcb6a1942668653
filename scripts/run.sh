#!/usr/bin/env bash
# The main job: set up on a fresh machine, then run punto.
# With no arguments it opens a terminal table of Tiger Baccarat; any arguments
# are passed to the punto command (e.g. `scripts/run.sh games`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
if [ "$#" -eq 0 ]; then
  set -- play tiger-baccarat
fi
exec "$root/.venv/bin/punto" "$@"
