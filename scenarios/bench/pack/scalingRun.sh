#!/usr/bin/env bash
# The scaling run on a bare many-core machine, from .devnet-pack/ (scenarios/bench/pack/packDevnet.sh) beside the
# project's tracked files: unpacks Bun, Anvil and the runtime node_modules, then starts each devnet side afresh and
# sends it BIDS bids (default 1000) at each of LEVELS bids in flight (default 1,8,32,128) through
# `bench:bids --target … --cpu-tree PID`, so every process of the side is measured on its own. Prints the machine
# first and each side's table as it goes; copies each side's log and table to $OUT when it is set.
#   bash .devnet-pack/scalingRun.sh            (BASE=port base, default 20000; sides 1000 apart)
set -u
cd "$(dirname "$0")/.."
PK=.devnet-pack
RT=$(mktemp -d)
mkdir -p "$RT/bin"
python3 - "$PK" "$RT" <<'PY'
import lzma, shutil, sys, tarfile
pk, rt = sys.argv[1], sys.argv[2]
for n in ("bun", "anvil"):
    with lzma.open(f"{pk}/{n}.xz") as src, open(f"{rt}/bin/{n}", "wb") as dst:
        shutil.copyfileobj(src, dst)
if not __import__("os").path.isdir("node_modules"):
    tarfile.open(f"{pk}/node_modules.tar.xz").extractall(".")
PY
chmod +x "$RT"/bin/*
export PATH=$RT/bin:$PATH
echo "machine: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg), commit $(cat $PK/commit 2>/dev/null), Bun $(bun --version), $(anvil --version | head -1)"
BIDS=${BIDS:-1000}
LEVELS=${LEVELS:-1,8,32,128}
B=${BASE:-20000}
side() {
  local name=$1 base=$2
  shift 2
  local dir=$RT/side-$name
  echo
  echo "=== side $name: bun node/main.ts --fresh --port-base $base $*"
  local t0=$SECONDS
  bun node/main.ts --fresh --port-base "$base" --data-dir "$dir" "$@" >"$RT/$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 240); do [ -f "$dir/target.json" ] && break; sleep 0.25; done
  if [ ! -f "$dir/target.json" ]; then
    echo "side $name did not start:"
    tail -20 "$RT/$name.log"
  else
    echo "started in about $((SECONDS - t0)) s"
    timeout 150 bun scenarios/bench/bids.bench.ts --target "$dir/target.json" --in-flight "$LEVELS" \
      --target-bids "$BIDS" --warmup 100 --cpu-tree "$pid" 2>&1 | tee "$RT/$name.bench"
  fi
  kill -INT "$pid" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null
  pkill -9 -f "$dir" 2>/dev/null
  sleep 0.5
}
# The one-loop sides name their network: without it the devnet picks by the machine's cores (--network auto).
side default "$B" --network libp2p
side default-crypto8 $((B + 1000)) --network libp2p --crypto-workers 8
side processes $((B + 2000)) --network processes
side processes-crypto4 $((B + 3000)) --network processes --crypto-workers 4
if [ -n "${OUT:-}" ]; then cp "$RT"/*.bench "$RT"/*.log "$OUT/" 2>/dev/null; fi
rm -rf "$RT"
