#!/usr/bin/env bash
# Create .venv (if missing) and install punto into it.
#   bash scripts/setup.sh            every extra and the development tools (all,dev):
#                                    what test.sh and .ci/run need
#   bash scripts/setup.sh server     the table server alone: what run.sh's demo needs
# Run by run.sh and test.sh; safe to run again (pip only installs what changed, and
# nothing runs when the install is current). A first install says what it is doing,
# a line a step on standard error (standard output is the server's URL and logins).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-python3}"
extras="${1:-all,dev}"
say() { echo "setup: $*" >&2; }

# One stamp per set of extras installed; all,dev (the stamp's old name) covers any.
stamp_of() {
  if [ "$1" = "all,dev" ]; then echo "$root/.venv/.punto-installed"; else echo "$root/.venv/.punto-installed-$1"; fi
}
current() {
  local stamp
  stamp="$(stamp_of "$1")"
  [ -f "$stamp" ] && [ ! "$root/pyproject.toml" -nt "$stamp" ] && [ ! "$root/constraints.txt" -nt "$stamp" ] &&
    [ -z "$(find "$root/src" -name '*.c' -newer "$stamp" 2>/dev/null)" ]
}

if current "$extras" || current "all,dev"; then
  installed=""
else
  installed=1
  if [ ! -x "$root/.venv/bin/python" ]; then
    say "creating the virtual environment .venv ($("$python" --version 2>&1))"
    "$python" -m venv "$root/.venv"
  fi
  log="$(mktemp)"
  say "updating pip"
  if ! "$root/.venv/bin/python" -m pip install --quiet --upgrade pip >"$log" 2>&1; then
    cat "$log" >&2
    say "updating pip in .venv failed (log above)"
    exit 1
  fi
  say "installing punto[$extras] and its dependencies into .venv (a few minutes the first time)"
  # pip's own output goes to the log, shown in full only if the install fails;
  # each package it fetches or builds is a line here, so a first install is not silence.
  if ! "$root/.venv/bin/python" -m pip install --progress-bar off -c "$root/constraints.txt" \
      -e "$root[$extras]" 2>&1 | tee "$log" | while IFS= read -r line; do
        line="${line#"${line%%[![:space:]]*}"}"  # pip indents its sub-steps
        case "$line" in
          "Obtaining file:"*) say "  preparing punto itself (its build tools and metadata)" ;;
          "Collecting "*)
            name="${line#Collecting }"
            say "  fetching ${name%% (*}"
            ;;
          *": finished with status "*) ;;  # its start was the line
          "Building wheel for "* | "Building editable for "*)
            name="${line#Building * for }"
            say "  building ${name%% (*}"
            ;;
          "Installing collected packages: "*)
            count="$(echo "${line#Installing collected packages: }" | tr ',' '\n' | wc -l)"
            say "  installing $count packages (half a minute or so, without a word from pip)"
            ;;
        esac
      done; then
    cat "$log" >&2
    say "installing punto into .venv failed (log above)"
    exit 1
  fi
  rm -f "$log"
  touch "$(stamp_of "$extras")"
fi
# punto's own bytecode, written now: where PYTHONDONTWRITEBYTECODE is set (as on
# the CI machines) every start of `punto serve` would otherwise compile its
# ~240 modules again, and a server restarted after a crash would answer later.
if [ -n "$installed" ]; then say "compiling punto's bytecode"; fi
"$root/.venv/bin/python" -m compileall -q -j0 "$root/src/punto" >/dev/null
if [ -n "$installed" ]; then say "done: punto[$extras] is installed in .venv"; fi
