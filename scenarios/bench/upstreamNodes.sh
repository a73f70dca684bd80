#!/usr/bin/env bash
# Upstream's node on this repository's devnet, for `npm run bench:bids -- --target DIR/target.json` and
# `npm run bench:side-by-side` beside our devnet (docs/performance.md): a `--no-nodes` devnet of the version's
# protocol without L1 blocks, then upstream's bootnode, two providers and a bidder started by scripts/upstream.sh
# (docs/conformance.md §8 for the pinned node, §10 for v1.2.5), upstream's provider emulator (accept-all) on each
# provider's gRPC port, and the bidder's deposits (for the bids' window, or toward each provider).
#
#   MEV_COMMIT=~/bin/mev-commit PROVIDER_EMULATOR=~/bin/provideremulator scenarios/bench/upstreamNodes.sh start
#   scenarios/bench/upstreamNodes.sh stop
#
# Environment: MEV_COMMIT and PROVIDER_EMULATOR (upstream's binaries of VERSION, built as docs/conformance.md §8
# says: `scripts/upstream.sh build`, the emulator with `go build ./examples/provideremulator` in upstream's p2p
# folder), VERSION (pinned, the default, or v1.2.5), PORT_BASE (default 26000, below the ephemeral port range,
# where the machine's own outgoing connections could hold a port: the devnet takes PORT_BASE.., upstream's nodes
# PORT_BASE+410..+492), DIR (default .upstream-bench: logs, keys, stores, target.json, and `pids`: upstream's
# processes for bench:bids's --pid).
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${DIR:-.upstream-bench}
PB=${PORT_BASE:-26000}
VERSION=${VERSION:-pinned}
CONTROL=http://127.0.0.1:$PB
BASE=$((PB + 410))
DEPOSIT_WEI=100000000000000000000

stop_all() {
  if [ -f "$DIR/run/start.env" ]; then scripts/upstream.sh stop --run-dir "$DIR/run" >/dev/null 2>&1 || true; fi
  for f in "$DIR"/*.pid; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
}

if [ "${1:-}" = stop ]; then
  stop_all
  exit 0
fi
if [ "${1:-}" != start ]; then
  echo "usage: $0 start|stop" >&2
  exit 2
fi
: "${MEV_COMMIT:?set MEV_COMMIT to upstream's mev-commit binary}"
: "${PROVIDER_EMULATOR:?set PROVIDER_EMULATOR to upstream's provideremulator binary}"
case "$VERSION" in
pinned) PROTOCOL=v1.1 ;;
v1.2.5) PROTOCOL=v1.2 ;;
*)
  echo "error: VERSION takes pinned or v1.2.5, not $VERSION" >&2
  exit 2
  ;;
esac
stop_all
rm -rf "$DIR"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
tj() { bun -e "const t = await Bun.file('$1').json(); console.log($2)"; }

echo "devnet (--no-nodes, protocol $PROTOCOL) at port base $PB"
bun node/main.ts --no-nodes --fresh --protocol "$PROTOCOL" --l1-block-time 0 --port-base "$PB" --data-dir "$DIR/devnet" \
  >"$DIR/devnet.log" 2>&1 &
echo $! >"$DIR/devnet.pid"
for _ in $(seq 1 180); do [ -f "$DIR/devnet/target.json" ] && break; sleep 1; done
[ -f "$DIR/devnet/target.json" ] || {
  echo "error: the devnet did not start (see $DIR/devnet.log)" >&2
  exit 1
}

scripts/upstream.sh start --version "$VERSION" --bin "$MEV_COMMIT" --target "$DIR/devnet/target.json" \
  --run-dir "$DIR/run" --port-base "$BASE" --providers 2 --apps no
T=$DIR/run/target.json
for i in 1 2; do
  "$PROVIDER_EMULATOR" -server-addr "127.0.0.1:$((BASE + 10 * i + 2))" >"$DIR/emulator-p$i.log" 2>&1 &
  echo $! >"$DIR/emulator-p$i.pid"
done

bidder=$(tj "$T" t.bidderUrl)
if [ "$PROTOCOL" = v1.2 ]; then
  for p in $(tj "$T" 't.providerAddresses.join(" ")'); do
    curl -sf -XPOST "$bidder/v1/bidder/deposit/$DEPOSIT_WEI?provider=$p" >/dev/null
  done
  # The deposits are settlement-chain transactions the bidder waits for before its balance check counts them.
  sleep 3
else
  l1=$(tj "$T" t.l1RpcUrl)
  head=$(curl -s -XPOST -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$l1" |
    bun -e 'console.log(Number((await Bun.stdin.json()).result))')
  curl -sf -XPOST "$bidder/v1/bidder/deposit/$DEPOSIT_WEI?block_number=$((head + 2))" >/dev/null
fi
cp "$T" "$DIR/target.json"

# Upstream's processes, for bench:bids's --pid (its CPU per bid); the devnet's chains and oracle are not among them.
for n in run/boot run/p1 run/p2 run/bidder emulator-p1 emulator-p2; do cat "$DIR/$n.pid"; done | paste -sd, >"$DIR/pids"
echo "target: $DIR/target.json, processes: $(cat "$DIR/pids") (stop with: $0 stop)"
