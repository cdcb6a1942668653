#!/usr/bin/env bash
# Create .venv (if missing) and install punto into it with every extra (all) and its
# development tools (dev).
# Sourced by run.sh and test.sh; safe to run again (pip only installs what changed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-python3}"
if [ ! -x "$root/.venv/bin/python" ]; then
  "$python" -m venv "$root/.venv"
fi
stamp="$root/.venv/.punto-installed"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ] || [ "$root/constraints.txt" -nt "$stamp" ] || [ -n "$(find "$root/src" -name '*.c' -newer "$stamp" 2>/dev/null)" ]; then
  log="$(mktemp)"
  # pip's chatter goes to a log, shown only if the install fails
  if ! { "$root/.venv/bin/python" -m pip install --quiet --upgrade pip &&
         "$root/.venv/bin/python" -m pip install --quiet -c "$root/constraints.txt" -e "$root[all,dev]"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: installing punto into .venv failed (log above)" >&2
    exit 1
  fi
  rm -f "$log"
  touch "$stamp"
fi
# punto's own bytecode, written now: where PYTHONDONTWRITEBYTECODE is set (as on
# the CI machines) every start of `punto serve` would otherwise compile its
# ~240 modules again, and a server restarted after a crash would answer later.
"$root/.venv/bin/python" -m compileall -q -j0 "$root/src/punto" >/dev/null
