#!/usr/bin/env bash
# Build the sdist and the wheel, install the wheel as a user would -- once
# core-only, once with [all] -- into fresh virtual environments outside the
# source tree, and run scripts/smoke.py from there.
# pip may use its cache; the versions are those of constraints.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PUNTO_VENV:-$root/.venv}"  # the project's venv, with build (the dev extra)
python="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log="$tmp/log"
say() { echo "wheel: $* ($SECONDS s)"; }

# pip's and build's chatter goes to a log, shown only if a step fails
quiet() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "wheel: failed: $*" >&2
    exit 1
  fi
}

quiet "$venv/bin/python" -m build --outdir "$tmp/dist" "$root"
wheel="$(ls "$tmp"/dist/punto-*.whl)"
say "built $(basename "$wheel") and $(cd "$tmp/dist" && ls punto-*.tar.gz)"

for install in core all; do
  quiet "$python" -m venv "$tmp/$install"
  target="$wheel"
  [ "$install" = all ] && target="$wheel[all]"
  # --no-compile: the smoke tests do not need the .pyc of numba and Dask, and
  # compiling them is most of the install time on a 2-core machine
  quiet "$tmp/$install/bin/python" -m pip install --no-compile -c "$root/constraints.txt" "$target"
  say "installed $install"
  # cwd outside the tree and no PYTHONPATH: only the installed punto can be imported
  (cd "$tmp" && env -u PYTHONPATH "$tmp/$install/bin/python" "$root/scripts/smoke.py" "$install" --docs "$root/docs")
done
say "done"
