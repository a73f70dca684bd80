#!/usr/bin/env bash
# Installs the project's Python tools (schemathesis, the OpenAPI fuzzer of `npm run fuzz`) into a virtualenv of its
# own under .cache/python-tools (git-ignored). Idempotent: a second run with the tools in place does nothing.
# Needs python3 with the venv module: scripts/python3-with-venv.sh installs Debian's with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.cache/python-tools
SCHEMATHESIS_VERSION=4.32.5

if [ -x "$VENV/bin/st" ] && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" = "$SCHEMATHESIS_VERSION" ]; then
  exit 0
fi
python3="$(bash scripts/python3-with-venv.sh)"
echo "install-python-tools: schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
rm -rf "$VENV"
"$python3" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
"$VENV/bin/st" --version >&2
