#!/usr/bin/env bash
# Debian's Chromium for the browser tests (never a browser download), installed if missing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
