#!/usr/bin/env bash
# Installs Debian's chromium (headless browser for the simulation report test) when it is missing.
# Idempotent: prints where chromium is and exits 0 when it is already there. Needs apt-get (as root, or sudo).
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "chromium: $CHROMIUM ($("$CHROMIUM" --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "chromium is missing at $CHROMIUM and apt-get is not available: install Chromium and set CHROMIUM_PATH" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else echo "installing chromium needs root (or sudo)" >&2; exit 1; fi
fi
echo "chromium: not found at $CHROMIUM; installing Debian's chromium with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium
"$CHROMIUM" --version
