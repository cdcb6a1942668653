#!/usr/bin/env bash
# Debian's Chromium for the browser tests (never a browser download), installed if missing,
# with the Noto CJK fonts the pages' Chinese (简体中文, 繁體中文) are drawn in.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-dejavu-core)
dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "ok installed" || missing+=(fonts-noto-cjk)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq "${missing[@]}" >/dev/null
command -v chromium >/dev/null
