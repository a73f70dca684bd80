#!/usr/bin/env bash
# Makes k6 available for the load profiles: uses `k6` from PATH, else loadtest/.bin/k6, else builds the pinned
# version with `go install` (needs Go; takes a few minutes the first time). Prints the path of the k6 binary.
set -euo pipefail
K6_VERSION="v1.8.1"
here="$(cd "$(dirname "$0")" && pwd)"
if command -v k6 >/dev/null 2>&1; then command -v k6; exit 0; fi
if [ -x "$here/.bin/k6" ]; then echo "$here/.bin/k6"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "k6 is not installed and Go is not available to build it: install k6 (https://k6.io) or Go, then run again" >&2
  exit 1
fi
echo "building k6 $K6_VERSION with go install (first time only) …" >&2
GOBIN="$here/.bin" go install "go.k6.io/k6@$K6_VERSION" >&2
echo "$here/.bin/k6"
