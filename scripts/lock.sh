#!/usr/bin/env bash
# Write constraints.txt anew from the newest versions pyproject.toml allows:
# installs punto[all,dev] into a throw-away venv without the old constraints and
# freezes it. Run the tests (bash scripts/test.sh) before committing the result.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-python3}"
venv="$(mktemp -d)"
log="$(mktemp)"
trap 'rm -rf "$venv" "$log"' EXIT
# pip's chatter goes to a log, shown only if the install fails
if ! { "$python" -m venv "$venv" &&
       "$venv/bin/python" -m pip install --quiet --upgrade pip &&
       "$venv/bin/python" -m pip install --quiet "$root[all,dev]"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "lock: installing punto[all,dev] into a fresh venv failed (log above)" >&2
  exit 1
fi
{
  sed -n '1,/^# Refresh/p' "$root/constraints.txt"
  "$venv/bin/python" -m pip freeze --exclude punto 2>>"$log"
} > "$root/constraints.txt.new"
mv "$root/constraints.txt.new" "$root/constraints.txt"
echo "constraints.txt: $(grep -cv '^#' "$root/constraints.txt") packages pinned"
