#!/usr/bin/env bash
# Prints the path of a python3 that has the venv module, for the scripts that install tools into virtualenvs of
# their own (scripts/install-python-tools.sh, loadtest/install-k6.sh). When there is none, installs Debian's python3
# and python3-venv with apt-get (as root, or with sudo). Everything but the path goes to stderr.
set -euo pipefail
has_venv() { [ -n "$1" ] && "$1" -m venv --help >/dev/null 2>&1; }
python="$(command -v python3 || true)"
if has_venv "$python"; then echo "$python"; exit 0; fi
# apt-get puts Debian's python3 here, which may not be on PATH.
if has_venv /usr/bin/python3; then echo /usr/bin/python3; exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "python3 with the venv module is missing and apt-get is not available: install python3 and its venv module" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else echo "installing python3 and python3-venv with apt-get needs root (or sudo)" >&2; exit 1; fi
fi
echo "python3 with venv: not found; installing Debian's python3 and python3-venv with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends python3 python3-venv >&2
if ! has_venv /usr/bin/python3; then echo "apt-get installed python3-venv, but /usr/bin/python3 -m venv still fails" >&2; exit 1; fi
echo /usr/bin/python3
