#!/usr/bin/env bash
# Packs the devnet for a bare x86-64 Linux machine that has Python 3 but no Node, Bun or network (the borrowed
# many-core machine of docs/performance.md "On 16 cores"), into .devnet-pack/ (ignored by git, ~52 MiB):
#   bun.xz                 node_modules/bun's binary, xz --x86 (107 MB -> 37 MB)
#   anvil.xz               the stripped Anvil binary (44 MB -> 11 MB); on PATH there, the node falls back to it
#   node_modules.tar.xz    only the packages the devnet and bench:bids load (bun build's metafile over every entry
#                          point and worker, then their dependencies' closure), ~5 MB
#   scalingRun.sh, commit  the run script and the commit it was packed at
# The project's tracked files travel as a working tree beside it; on the far side: `bash .devnet-pack/scalingRun.sh`.
# Bun's and Anvil's archives are kept between packs (delete them after an npm update).
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=.devnet-pack
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$OUT"
export PATH=$PWD/node_modules/.bin:$PATH
if [ ! -f "$OUT/bun.xz" ]; then
  echo "compressing Bun (a few minutes)"
  xz --x86 --lzma2=preset=9e,dict=128MiB -T1 -c node_modules/bun/bin/bun.exe >"$OUT/bun.xz"
fi
if [ ! -f "$OUT/anvil.xz" ]; then
  echo "compressing Anvil"
  cp node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil "$STAGE/anvil"
  strip "$STAGE/anvil" 2>/dev/null || true
  xz --x86 -9e -c "$STAGE/anvil" >"$OUT/anvil.xz"
fi
echo "finding the packages the devnet loads"
bun build --target=bun --metafile="$STAGE/meta.json" --outdir "$STAGE/out" \
  node/main.ts node/crypto/cryptoWorker.ts node/chain/intervalMinerWorker.ts node/store/walCheckpointWorker.ts \
  node/role/roleThreadWorker.ts scenarios/bench/bids.bench.ts scenarios/bench/clientWorker.ts \
  scenarios/bench/appWorker.ts scenarios/bench/cryptoFloorWorker.ts >/dev/null
python3 - "$STAGE" <<'PY'
import json, os, re, sys
stage = sys.argv[1]
seen, todo = set(), ["solc", "preact", "htm", "chart.js", "@viem/anvil"]
for k in json.load(open(f"{stage}/meta.json"))["inputs"]:
    todo += re.findall(r"node_modules/((?:@[^/]+/)?[^/]+)", k)
while todo:
    p = todo.pop()
    if p in seen or not os.path.isdir(f"node_modules/{p}") or p in ("bun", "typescript") or p.startswith("@foundry-rs"):
        continue
    seen.add(p)
    if p == "solc":  # only its package.json is read: the compiled contracts are committed
        continue
    # the package's own dependencies and those of the packages nested in it (resolved from the top when not nested)
    for root, dirs, files in os.walk(f"node_modules/{p}"):
        if "package.json" not in files:
            continue
        try:
            pj = json.load(open(f"{root}/package.json"))
        except ValueError:
            continue
        for field in ("dependencies", "optionalDependencies", "peerDependencies"):
            todo += list((pj.get(field) or {}).keys())
open(f"{stage}/packages.txt", "w").write("".join(f"{p}\n" for p in sorted(seen)))
PY
mkdir -p "$STAGE/nm/node_modules"
while read -r p; do
  mkdir -p "$STAGE/nm/node_modules/$(dirname "$p")"
  cp -r "node_modules/$p" "$STAGE/nm/node_modules/$p"
done <"$STAGE/packages.txt"
find "$STAGE/nm/node_modules/solc" -mindepth 1 -maxdepth 1 ! -name package.json -exec rm -rf {} +
find "$STAGE/nm/node_modules" \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete
rm -rf "$STAGE/nm/node_modules/secp256k1/src" "$STAGE/nm/node_modules/secp256k1/prebuilds/"{darwin,win32}-*
tar -C "$STAGE/nm" -cf - node_modules | xz -9 -T2 >"$OUT/node_modules.tar.xz"
cp scenarios/bench/pack/scalingRun.sh "$OUT/scalingRun.sh"
git rev-parse --short HEAD >"$OUT/commit"
echo "packed $(wc -l <"$STAGE/packages.txt") packages:"
ls -la "$OUT"
du -sh "$OUT"
