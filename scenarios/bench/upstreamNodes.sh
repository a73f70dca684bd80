#!/usr/bin/env bash
# Upstream's node on this repository's devnet, for `npm run bench:bids -- --target DIR/target.json` side by side
# with our default devnet (docs/performance.md). The order of start is docs/conformance.md §8's: a devnet with
# --no-nodes (chains, contracts, oracle, beacon and control APIs), upstream's bootnode, two providers staked alone
# and restarted into the network, a bidder started again until both providers hold its key, upstream's provider
# emulator (accept-all) on each provider's gRPC port, and a deposit for the bids' window.
#
#   MEV_COMMIT=~/bin/mev-commit PROVIDER_EMULATOR=~/bin/provideremulator scenarios/bench/upstreamNodes.sh start
#   scenarios/bench/upstreamNodes.sh stop
#
# Environment: MEV_COMMIT and PROVIDER_EMULATOR (upstream's binaries, built as docs/conformance.md §8 says: the
# emulator with `go build -o ~/bin/provideremulator ./examples/provideremulator` in upstream's p2p folder),
# PORT_BASE (default 26000, below the ephemeral port range, where the machine's own outgoing connections could
# hold a port: the devnet takes PORT_BASE.., upstream's nodes PORT_BASE+410..+444), DIR (default
# .upstream-bench: logs, keys, stores, target.json, and `pids`: upstream's processes for bench:bids's --pid).
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${DIR:-.upstream-bench}
PB=${PORT_BASE:-26000}
CONTROL=http://127.0.0.1:$PB

stop_all() {
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
stop_all
rm -rf "$DIR"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

port() { case $1 in bootnode) echo $((PB + 410)) ;; p1) echo $((PB + 420)) ;; p2) echo $((PB + 430)) ;; bidder) echo $((PB + 440)) ;; esac; }
http() { echo $(($(port "$1") + 3)); }
answers() { curl -sf -m 3 -o /dev/null "http://127.0.0.1:$(http "$1")/v1/debug/topology"; }
up() { for _ in $(seq 1 120); do answers "$1" && return 0; sleep 0.5; done; echo "error: upstream's $1 does not answer" >&2; exit 1; }
keys_seen() { grep -c 'successfully processed timestamp message' "$DIR/$1.log" || true; }
tj() { bun -e "const t = await Bun.file('$DIR/devnet/target.json').json(); console.log($1)"; }

echo "devnet (--no-nodes) at port base $PB"
bun node/main.ts --no-nodes --fresh --l1-block-time 0 --port-base "$PB" --data-dir "$DIR/devnet" >"$DIR/devnet.log" 2>&1 &
echo $! >"$DIR/devnet.pid"
for _ in $(seq 1 180); do [ -f "$DIR/devnet/target.json" ] && break; sleep 1; done
[ -f "$DIR/devnet/target.json" ] || { echo "error: the devnet did not start (see $DIR/devnet.log)" >&2; exit 1; }

# Dev accounts of Anvil's default mnemonic: bidder 2, providers 3 and 4, bootnode 16 (docs/conformance.md §8).
bun -e "
import { mnemonicToAccount } from 'viem/accounts';
const m = 'test test test test test test test test test test test junk';
for (const [name, i] of [['bidder', 2], ['p1', 3], ['p2', 4], ['bootnode', 16]]) {
  const a = mnemonicToAccount(m, { addressIndex: i });
  await Bun.write('$DIR/' + name + '.key', Buffer.from(a.getHdKey().privateKey).toString('hex'));
  await Bun.write('$DIR/' + name + '.address', a.address);
}"

COMMON=(--secret devnet-secret
  --settlement-rpc-endpoint "$(tj t.settlementRpcUrl)" --l1-rpc-url "$(tj t.l1RpcUrl)" --beacon-api-url "$(tj t.beaconUrl)"
  --block-tracker-contract "$(tj t.contracts.blockTracker)" --bidder-registry-contract "$(tj t.contracts.bidderRegistry)"
  --provider-registry-contract "$(tj t.contracts.providerRegistry)" --preconf-contract "$(tj t.contracts.preconfManager)"
  --oracle-contract "$(tj t.contracts.oracle)" --validator-router-contract "$(tj t.validatorOptInRouter)"
  --slot-duration 12s --laggard-mode 0 --bidder-bid-timeout 5s --provider-decision-timeout 3s)

start_node() { # start_node NAME TYPE [join]
  local p
  p=$(port "$1")
  local args=(--peer-type "$2" --priv-key-file "$DIR/$1.key" --data-dir "$DIR/$1/db" --http-port $((p + 3))
    --rpc-port $((p + 4)) --p2p-port "$p" --p2p-addr 127.0.0.1 --nat-addr 127.0.0.1 --nat-port "$p" "${COMMON[@]}")
  if [ "${3:-}" = join ]; then args+=(--bootnodes "$(cat "$DIR/bootnode.addr")"); fi
  mkdir -p "$DIR/$1"
  "$MEV_COMMIT" "${args[@]}" >>"$DIR/$1.log" 2>&1 </dev/null &
  echo $! >"$DIR/$1.pid"
}
halt() { kill "$(cat "$DIR/$1.pid")" 2>/dev/null || true; while kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; do sleep 0.2; done; }

curl -sf -XPOST -H 'content-type: application/json' -d '{"blocks":2}' "$CONTROL/sim/v1/mine" >/dev/null
start_node bootnode bootnode
up bootnode
peer=$(curl -s "http://127.0.0.1:$(http bootnode)/v1/debug/topology" | bun -e 'console.log((await Bun.stdin.json()).topology.self.Underlay)')
echo "/ip4/127.0.0.1/tcp/$(port bootnode)/p2p/$peer" >"$DIR/bootnode.addr"

i=0
for n in p1 p2; do
  i=$((i + 1))
  start_node $n provider
  up $n
  # Each provider a BLS key of its own (the devnet's stand-in verifier takes any bytes).
  pk=0x$(printf "%02x" $((0xa0 + i)))$(printf 'a%.0s' $(seq 1 94))
  sig=0x$(printf "%02x" $((0xb0 + i)))$(printf 'b%.0s' $(seq 1 190))
  curl -sf -XPOST "http://127.0.0.1:$(http $n)/v1/provider/stake/20000000000000000000?bls_public_keys=$pk&bls_signatures=$sig" >/dev/null
  halt $n
  start_node $n provider join
  up $n
  "$PROVIDER_EMULATOR" -server-addr "127.0.0.1:$(($(port $n) + 4))" >"$DIR/emulator-$n.log" 2>&1 &
  echo $! >"$DIR/emulator-$n.pid"
done

for attempt in 1 2 3 4 5 6; do
  c1=$(keys_seen p1)
  c2=$(keys_seen p2)
  sleep 4
  start_node bidder bidder join
  up bidder
  sleep 8
  if [ "$(keys_seen p1)" -gt "$c1" ] && [ "$(keys_seen p2)" -gt "$c2" ]; then break; fi
  echo "bidder start $attempt: a provider did not log the bidder's key; starting the bidder again"
  halt bidder
done

l1=$(tj t.l1RpcUrl)
head=$(curl -s -XPOST -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$l1" | bun -e 'console.log(Number((await Bun.stdin.json()).result))')
curl -sf -XPOST "http://127.0.0.1:$(http bidder)/v1/bidder/deposit/100000000000000000000?block_number=$((head + 2))" >/dev/null

bun -e "
const t = await Bun.file('$DIR/devnet/target.json').json();
t.name = 'upstream mev-commit on the reference devnet';
t.bidderUrl = 'http://127.0.0.1:$(http bidder)';
t.providerUrls = ['http://127.0.0.1:$(http p1)', 'http://127.0.0.1:$(http p2)'];
t.bidderAddress = '$(cat "$DIR/bidder.address")';
t.providerAddresses = ['$(cat "$DIR/p1.address")', '$(cat "$DIR/p2.address")'];
await Bun.write('$DIR/target.json', JSON.stringify(t, null, 2));"
# Upstream's processes, for bench:bids's --pid (its CPU per bid); the devnet's chains and oracle are not among them.
for n in bootnode p1 p2 bidder emulator-p1 emulator-p2; do cat "$DIR/$n.pid"; done | paste -sd, >"$DIR/pids"
echo "target: $DIR/target.json, processes: $(cat "$DIR/pids") (stop with: $0 stop)"
