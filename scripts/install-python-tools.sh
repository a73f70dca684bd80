#!/usr/bin/env bash
# Installs the project's Python tools (schemathesis, the OpenAPI fuzzer of `npm run fuzz`) into a virtualenv of its
# own under .cache/python-tools (git-ignored). Idempotent: a second run with the tools in place does nothing.
# Needs python3 with the venv module (Debian: python3-venv, installed here with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.cache/python-tools
SCHEMATHESIS_VERSION=4.32.5

if [ -x "$VENV/bin/st" ] && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" = "$SCHEMATHESIS_VERSION" ]; then
  exit 0
fi
if ! command -v python3 >/dev/null; then
  echo "install-python-tools: python3 is missing; installing it with apt-get" >&2
  apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  echo "install-python-tools: python3-venv is missing; installing it with apt-get" >&2
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
fi
echo "install-python-tools: schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
"$VENV/bin/st" --version >&2
