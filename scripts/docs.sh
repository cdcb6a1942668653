#!/usr/bin/env bash
# Build the documentation -- docs/*.md and the API reference from the
# docstrings -- into build/docs/html, every warning an error.
# Open build/docs/html/index.html in a browser.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PUNTO_VENV:-$root/.venv}"
out="$root/build/docs/html"
# The API pages are generated afresh each time (docs/api is not in git).
rm -rf "$root/docs/api"
# Sphinx is quiet (-q) but for its warnings: say what takes the minutes.
echo "docs: building docs/, the example notebook (its committed outputs) and the API reference from the docstrings (a few minutes)" >&2
"$venv/bin/sphinx-build" -W --keep-going -q -b html "$root/docs" "$out"
echo "docs: $out/index.html"
