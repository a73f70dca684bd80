#!/usr/bin/env bash
# scripts/upstream.sh for upstream's v1.2.5 node (its earlier name): `build` and `start` get `--version v1.2.5`.
set -euo pipefail
cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
build | start) exec "$(dirname "${BASH_SOURCE[0]}")/upstream.sh" "$cmd" --version v1.2.5 "$@" ;;
*) exec "$(dirname "${BASH_SOURCE[0]}")/upstream.sh" "$cmd" "$@" ;;
esac
