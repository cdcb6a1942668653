#!/usr/bin/env bash
# The pages' message catalogues (punto.server.routes.i18n), kept with Babel: every message
# of the pages extracted into locale/pages.pot, then merged into each language's
# pages.po (new messages come in untranslated: translate them there, in both).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
locale=src/punto/server/locale
.venv/bin/pybabel extract -F babel.cfg --no-default-keywords -k t -k tn:1,2 -k N_ \
  --no-location --sort-output --project punto -o "$locale/pages.pot" . >/dev/null
.venv/bin/pybabel update -D pages -i "$locale/pages.pot" -d "$locale" --no-fuzzy-matching \
  --ignore-obsolete -w 100
