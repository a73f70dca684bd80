#!/usr/bin/env bash
# Installs StrykerJS (npm run mutate) into .cache/stryker from scripts/mutate/stryker's package.json and lock file
# (git-ignored; idempotent: nothing is done when the pinned version is there). It is not one of the project's own
# dependencies because Stryker 10 declares Node.js 22 or later: npm would warn about it on every `npm install` on
# Node.js 20, while the project runs Stryker under Bun, which it works with. Prints the path of Stryker's CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=.cache/stryker
SRC=scripts/mutate/stryker
CLI="$DIR/node_modules/@stryker-mutator/core/bin/stryker.js"
want=$(node -p "require('./$SRC/package.json').dependencies['@stryker-mutator/core']")
have=$(node -p "try { require('./$DIR/node_modules/@stryker-mutator/core/package.json').version } catch { '' }" 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -f "$CLI" ]; then
  echo "install-stryker: @stryker-mutator/core $want into $DIR" >&2
  rm -rf "$DIR"
  mkdir -p "$DIR"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
  # --loglevel=error: the engine warnings are the Node.js 22 requirement explained above.
  (cd "$DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
fi
echo "$CLI"
