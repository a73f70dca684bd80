#!/usr/bin/env bash
# Builds upstream's mev-commit node (the pinned commit 5f1068d1, protocol v1.1, or tag v1.2.5, protocol v1.2) and
# runs it (a bootnode, providers, a bidder) against a running `--no-nodes` devnet of the same protocol.
# docs/conformance.md §8 (pinned) and §10 (v1.2.5) explain every step. Upstream's code is BSL-1.1: it is built
# outside this repository and nothing of it is copied here.
#
#   scripts/upstream.sh build --version pinned|v1.2.5 --bin FILE [--src DIR] [--repo GIT_DIR_OR_URL]
#   scripts/upstream.sh start --version pinned|v1.2.5 --target FILE --run-dir DIR --port-base N --bin FILE
#                             [--providers 1|2|3] [--apps yes|no] [--netns]
#   scripts/upstream.sh demo  --run-dir DIR      deposits, one bid, its commitments opened and settled
#   scripts/upstream.sh restart --run-dir DIR    starts again whichever node does not answer (the suite's `restart`)
#   scripts/upstream.sh stop  --run-dir DIR
#
# `start` needs a --run-dir of its own (a new or empty directory): the nodes' stores there belong to the devnet
# they were started on. It writes DIR/target.json (the devnet's target plus the nodes and the restart command) for
# the conformance suite. `--apps no` attaches no provider application, as the suite wants: it attaches its own,
# and upstream hands each bid to one of the streams that read a provider's bids, so a second reader would take
# bids from the suite. `--providers 3` adds the provider that the suite's withdrawal-request and unstake scenarios
# take for their own. `--netns` starts each node on a host of a `--network netns --no-nodes --foreign-hosts
# bidder,provider-0,…` devnet (the target file's netnsHosts: `ip netns exec`, listening on the host's address), the
# bootnode on the devnet's own side of the bridge, so that the devnet's network faults act between upstream's bidder
# and providers (docs/devnet.md, Network faults); the target file written says which host runs which node.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$REPO_ROOT/node_modules/.bin:$PATH"
BIDDER_ACCOUNT=2
PROVIDER_ACCOUNTS=(3 4 5)
BOOTNODE_ACCOUNT=16
STAKE_WEI=20000000000000000000
DEPOSIT_WEI=1000000000000000000

die() {
  echo "error: $*" >&2
  exit 1
}
log() { echo "[upstream${version:+ $version}] $*" >&2; }

cmd="${1:-}"
[ -n "$cmd" ] || die "usage: $0 build|start|demo|restart|stop [options] (see the header of this script)"
shift
src="" bin="" repo="https://github.com/primev/mev-commit" target="" run="" base="" providers=2 apps=yes version="" netns=no
while [ $# -gt 0 ]; do
  case "$1" in
  --netns) netns=yes && shift && continue ;;
  --version) version="$2" ;;
  --src) src="$2" ;;
  --bin) bin="$2" ;;
  --repo) repo="$2" ;;
  --target) target="$2" ;;
  --run-dir) run="$2" ;;
  --port-base) base="$2" ;;
  --providers) providers="$2" ;;
  --apps) apps="$2" ;;
  *) die "unknown option $1" ;;
  esac
  shift 2 || die "option $1 needs a value"
done

# What --version names: the revision to build, the protocol its nodes speak, the version the target file gives.
set_version() {
  case "$version" in
  pinned | 5f1068d1) version=pinned REV=5f1068d1 PROTOCOL=v1.1 TARGET_VERSION=5f1068d1 ;;
  v1.2.5) REV=v1.2.5 PROTOCOL=v1.2 TARGET_VERSION=v1.2.5 ;;
  "") die "$cmd needs --version pinned|v1.2.5" ;;
  *) die "--version takes pinned (commit 5f1068d1, protocol v1.1) or v1.2.5, not $version" ;;
  esac
}

# A JSON field of a file: json FILE '.contracts.bidderRegistry'
json() { bun -e "const v = JSON.parse(require('fs').readFileSync('$1', 'utf8'))$2; console.log(typeof v === 'object' ? JSON.stringify(v) : v)"; }

# Waits until URL answers HTTP (any status), up to $2 seconds.
wait_http() {
  for _ in $(seq 1 "$(($2 * 2))"); do
    curl -s -o /dev/null -m 2 "$1" && return 0
    sleep 0.5
  done
  return 1
}

# A dev account of Anvil's default mnemonic: "address key" (key as 64 hex digits, no 0x, as --priv-key-file wants).
account() {
  (cd "$REPO_ROOT" && bun -e "import { devAccount } from './node/chain/accounts.ts'; const a = devAccount($1); console.log(a.address, a.privateKey.slice(2))")
}

build() {
  set_version
  [ -n "$bin" ] || die "build needs --bin FILE (and --src DIR, where the source goes, default <FILE>-src)"
  [ -n "$src" ] || src="$bin-src"
  command -v go >/dev/null || die "Go 1.23+ is needed on PATH"
  if [ ! -d "$src/p2p" ]; then
    mkdir -p "$src"
    if [ -d "$repo" ] && git --git-dir="$repo" rev-parse --verify -q "$REV^{commit}" >/dev/null; then
      git --git-dir="$repo" archive "$REV" | tar -x -C "$src"
    else
      git clone --quiet "$repo" "$src" && git -C "$src" checkout --quiet "$REV"
    fi
  fi
  mkdir -p "$(dirname "$bin")"
  (cd "$src/p2p" && GOFLAGS=-buildvcs=false go build -o "$bin" ./cmd)
  log "built $bin (upstream $REV)"
}

# start_node NAME PEER_TYPE ACCOUNT P2P_PORT [extra flags...]: HTTP is P2P+1, gRPC P2P+2; pid in $run/NAME.pid.
start_node() {
  local name=$1 type=$2 acct=$3 p2p=$4
  shift 4
  local c="$target" ip
  ip=$(addr_of "$name")
  account "$acct" | cut -d' ' -f2 >"$run/$name.key"
  mkdir -p "$run/$name"
  # shellcheck disable=SC2046
  $(in_host "$name") "$bin" --peer-type "$type" --priv-key-file "$run/$name.key" --data-dir "$run/$name/db" \
    --http-port $((p2p + 1)) --rpc-port $((p2p + 2)) --p2p-port "$p2p" --p2p-addr "$ip" \
    --nat-addr "$ip" --nat-port "$p2p" --secret devnet-secret \
    --settlement-rpc-endpoint "$(json "$c" .settlementRpcUrl)" --l1-rpc-url "$(json "$c" .l1RpcUrl)" \
    --beacon-api-url "$(json "$c" .beaconUrl)" \
    --block-tracker-contract "$(json "$c" .contracts.blockTracker)" \
    --bidder-registry-contract "$(json "$c" .contracts.bidderRegistry)" \
    --provider-registry-contract "$(json "$c" .contracts.providerRegistry)" \
    --preconf-contract "$(json "$c" .contracts.preconfManager)" --oracle-contract "$(json "$c" .contracts.oracle)" \
    --validator-router-contract "$(json "$c" .validatorOptInRouter)" \
    --slot-duration 12s --laggard-mode 0 --bidder-bid-timeout 5s --provider-decision-timeout 3s \
    "$@" >>"$run/$name.log" 2>&1 &
  echo $! >"$run/$name.pid"
  wait_http "http://$ip:$((p2p + 1))/health" 60 || die "$name did not answer on its HTTP port (log: $run/$name.log)"
}

# With --netns, the host each node runs on (the target's netnsHosts): the bidder on `bidder`, provider i on
# `provider-<i-1>`; the bootnode on the devnet's own side of the bridge. A node's HTTP and gRPC servers listen on
# every address of its host's namespace, its libp2p on the host's address.
host_of() {
  case "$1" in
  bidder) echo bidder ;;
  p[0-9]) echo "provider-$((${1#p} - 1))" ;;
  *) echo "" ;;
  esac
}

# The address node $1 listens on: its host's with --netns (the bootnode: the devnet's), else 127.0.0.1.
addr_of() {
  [ "$netns" = yes ] || { echo 127.0.0.1 && return; }
  local h
  h=$(host_of "$1")
  if [ -z "$h" ]; then json "$target" '.controlUrl.replace(/^http:\/\/([^:/]+).*$/, "$1")' && return; fi
  json "$target" ".netnsHosts.find((x) => x.name === '$h')?.ip ?? ''"
}

# The command prefix that runs on node $1's host (`ip netns exec NS`); empty without --netns or for the bootnode.
in_host() {
  [ "$netns" = yes ] || return 0
  local h
  h=$(host_of "$1")
  [ -n "$h" ] || return 0
  echo "ip netns exec $(json "$target" ".netnsHosts.find((x) => x.name === '$h').namespace")"
}

# A process that died can linger as a zombie until its new parent reaps it: only a live one counts.
alive() { [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v Z)" ]; }

stop_pid() {
  local f="$run/$1.pid"
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do
    alive "$pid" || break
    sleep 0.25
  done
  if alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -f "$f"
}

# Whether the node whose p2p port is $1 answers on its HTTP port: a node is judged by its port, never its pid.
answers() {
  local ip
  ip=$(addr_of "$2")
  curl -s -o /dev/null -m 3 "http://$ip:$(($1 + 1))/health" ||
    { sleep 0.5 && curl -s -o /dev/null -m 3 "http://$ip:$(($1 + 1))/health"; }
}

# An accept-all provider application of ours (node/providerApp) on provider $1.
start_app() {
  cat >"$run/accept-all.ts" <<EOF
import { acceptAll } from "$REPO_ROOT/node/providerApp/policies.ts";
import { agentLog, ProviderAgent } from "$REPO_ROOT/node/providerApp/providerAgent.ts";
import { logger } from "$REPO_ROOT/node/util/log.ts";
const agent = new ProviderAgent(process.argv[2], acceptAll(), { log: agentLog(logger("accept-all")) });
await agent.start();
process.on("SIGTERM", async () => { await agent.stop(); process.exit(0); });
EOF
  bun "$run/accept-all.ts" "http://$(addr_of "p$1"):$((base + 10 * $1 + 1))" >>"$run/app$1.log" 2>&1 &
  echo $! >"$run/app$1.pid"
}

# Starts the bidder (again) until every provider logged its AES key: upstream's bidder sends its key once per
# provider connection, and a send that comes before the provider's handler is up is reset (docs/conformance.md §8).
# Each attempt counts afresh: a key a provider logged from an earlier attempt's bidder is no longer the bidder's.
start_bidder() {
  local before=() ok=0
  for attempt in 1 2 3 4 5; do
    log "bidder (attempt $attempt): waiting for every provider to log its AES key"
    stop_pid bidder
    for i in $(seq 1 "$providers"); do before[i]=$(key_exchanges "$i"); done
    sleep 3
    start_node bidder bidder "$BIDDER_ACCOUNT" $((base + 90)) --bootnodes "$bootnodes"
    for _ in $(seq 1 30); do
      ok=1
      for i in $(seq 1 "$providers"); do [ "$(key_exchanges "$i")" -gt "${before[i]}" ] || ok=0; done
      [ $ok = 1 ] && break
      sleep 0.5
    done
    [ $ok = 1 ] && return 0
  done
  die "a provider never received the bidder's AES key (logs in $run)"
}

key_exchanges() { grep -c 'successfully processed timestamp message' "$run/p$1.log" 2>/dev/null || true; }

start() {
  set_version
  [ -n "$target" ] && [ -n "$run" ] && [ -n "$base" ] && [ -n "$bin" ] ||
    die "start needs --version pinned|v1.2.5 --target FILE --run-dir DIR --port-base N --bin FILE"
  [ -x "$bin" ] || die "no binary at $bin (run build first)"
  case "$providers" in 1 | 2 | 3) ;; *) die "--providers takes 1, 2 or 3 (dev accounts 3, 4, 5), not $providers" ;; esac
  case "$apps" in yes | no) ;; *) die "--apps takes yes or no, not $apps" ;; esac
  local protocol
  protocol=$(json "$target" '.protocol ?? "v1.1"')
  [ "$protocol" = "$PROTOCOL" ] ||
    die "$target is a $protocol devnet's; upstream $version speaks $PROTOCOL (start the devnet with --protocol $PROTOCOL --no-nodes)"
  # The nodes' stores (keystores, the last block each saw, commitments) belong to the devnet they ran on: on
  # another devnet they start from that devnet's state and fail in ways that look like upstream's defects.
  if [ -d "$run" ] && [ -n "$(ls -A "$run")" ]; then
    die "--run-dir $run is not empty (an earlier start's nodes and stores): give each start a new directory, or run stop and remove this one"
  fi
  if [ "$netns" = yes ]; then
    local want="bidder" missing
    for i in $(seq 1 "$providers"); do want+=" provider-$((i - 1))"; done
    missing=$(bun -e "const t = JSON.parse(require('fs').readFileSync('$target', 'utf8'));
      console.log(t.netnsHosts ? '$want'.split(' ').filter((h) => !t.netnsHosts.some((x) => x.name === h)).join(' ') : 'netnsHosts')")
    [ -z "$missing" ] || die "--netns: $target has no $missing (start the devnet with --network netns --no-nodes --foreign-hosts ${want// /,})"
  fi
  mkdir -p "$run"
  target=$(cd "$(dirname "$target")" && pwd)/$(basename "$target")
  run=$(cd "$run" && pwd)
  local control
  control=$(json "$target" .controlUrl)

  log "mining two L1 blocks (the validator registry's deployment, then a block the oracle can record)"
  wait_http "$control/sim/v1/status" 30 || die "the devnet's control API $control does not answer"
  curl -sf -X POST "$control/sim/v1/mine" -H 'content-type: application/json' -d '{"blocks":2}' >/dev/null ||
    die "mining through $control/sim/v1/mine failed"

  log "bootnode"
  start_node boot bootnode "$BOOTNODE_ACCOUNT" "$base"
  local peer
  peer=$(curl -s "http://$(addr_of boot):$((base + 1))/v1/debug/topology" | bun -e 'console.log(JSON.parse(await Bun.stdin.text()).topology.self.Underlay)')
  local bootnodes="/ip4/$(addr_of boot)/tcp/$base/p2p/$peer"

  for i in $(seq 1 "$providers"); do
    local p2p=$((base + 10 * i)) acct=${PROVIDER_ACCOUNTS[$((i - 1))]}
    log "provider $i alone, staking through its own API"
    start_node "p$i" provider "$acct" "$p2p"
    local stake
    stake=$(curl -s "http://$(addr_of "p$i"):$((p2p + 1))/v1/provider/get_stake" | bun -e 'console.log(JSON.parse(await Bun.stdin.text()).amount ?? "0")')
    if [ "$stake" = 0 ]; then
      local bls sig
      bls=0x$(openssl rand -hex 48)
      sig=0x$(openssl rand -hex 96)
      curl -sf -m 30 -X POST "http://$(addr_of "p$i"):$((p2p + 1))/v1/provider/stake/$STAKE_WEI?bls_public_keys=$bls&bls_signatures=$sig" >/dev/null ||
        die "provider $i: stake failed (log: $run/p$i.log)"
    fi
    stop_pid "p$i"
    log "provider $i with the bootnode"
    start_node "p$i" provider "$acct" "$p2p" --bootnodes "$bootnodes"
    if [ "$apps" = yes ]; then start_app "$i"; fi
  done
  cat >"$run/start.env" <<EOF
version='$version' bin='$bin' target='$target' base='$base' providers='$providers' apps='$apps' bootnodes='$bootnodes' netns='$netns'
EOF
  start_bidder

  local provider_urls="" provider_rpcs="" provider_addrs="" provider_hosts="" bidder_ip
  bidder_ip=$(addr_of bidder)
  for i in $(seq 1 "$providers"); do
    local p2p=$((base + 10 * i)) ip
    ip=$(addr_of "p$i")
    provider_urls+="\"http://$ip:$((p2p + 1))\","
    provider_rpcs+="\"$ip:$((p2p + 2))\","
    provider_hosts+="\"$(host_of "p$i")\","
    provider_addrs+="\"$(account "${PROVIDER_ACCOUNTS[$((i - 1))]}" | cut -d' ' -f1)\","
  done
  bun -e "
    const t = JSON.parse(require('fs').readFileSync('$target', 'utf8'));
    Object.assign(t, {
      name: 'upstream mev-commit $TARGET_VERSION (--no-nodes devnet)', version: '$TARGET_VERSION',
      bidderUrl: 'http://$bidder_ip:$((base + 91))', bidderRpcUrl: '$bidder_ip:$((base + 92))',
      bidderAddress: '$(account $BIDDER_ACCOUNT | cut -d' ' -f1)',
      providerUrls: [${provider_urls%,}], providerRpcUrls: [${provider_rpcs%,}], providerAddresses: [${provider_addrs%,}],
      bidTimeoutMs: 5000, decisionTimeoutMs: 3000,
      capabilities: [...new Set([...(t.capabilities ?? []), 'grpc'])],
      restart: '$REPO_ROOT/scripts/upstream.sh restart --run-dir $run',
      ...('$netns' === 'yes' ? { nodeHosts: { bidder: 'bidder', providers: [${provider_hosts%,}] } } : {}),
    });
    require('fs').writeFileSync('$run/target.json', JSON.stringify(t, null, 2) + '\n');"
  echo "$target" >"$run/devnet-target"
  log "up: bidder http://$bidder_ip:$((base + 91)), providers ${provider_urls%,}; target file $run/target.json"
}

# Whether a commitment digest (hex) holds the byte 0x2f: upstream keys a commitment by its raw digest under `/`
# separators and its store cleanup deletes such a key before its block's winner opens it (conformance.md §10).
slash_byte() { [[ "${1#0x}" =~ ^([0-9a-fA-F]{2})*2[fF] ]]; }

demo() {
  [ -n "$run" ] && [ -f "$run/start.env" ] && [ -f "$run/target.json" ] || die "demo needs --run-dir DIR of a started network"
  # shellcheck disable=SC1091
  . "$run/start.env"
  set_version
  local t="$run/target.json" bidder l1 head block first now
  bidder=$(json "$t" .bidderUrl)
  l1=$(json "$t" .l1RpcUrl)
  head=$(curl -s -X POST "$l1" -H 'content-type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' | bun -e 'console.log(Number(JSON.parse(await Bun.stdin.text()).result))')
  first=$((head + 1))
  if [ "$PROTOCOL" = v1.2 ]; then
    for p in $(json "$t" '.providerAddresses.join(" ")'); do
      log "deposit $DEPOSIT_WEI wei toward provider $p"
      curl -sf -X POST "$bidder/v1/bidder/deposit/$DEPOSIT_WEI?provider=$p" >/dev/null || die "deposit failed"
    done
    sleep 3
    curl -s "$bidder/v1/bidder/get_all_deposits"
  else
    log "deposit $DEPOSIT_WEI wei for the window of L1 block $first"
    curl -sf -X POST "$bidder/v1/bidder/deposit/$DEPOSIT_WEI?block_number=$first" || die "deposit failed"
    sleep 3
  fi
  echo
  # A bid whose commitments all have digests without 0x2f; a commitment with one may be lost (upstream's defect),
  # so the demo bids again for the next block, up to five times.
  local options="" answer digests dirty
  [ "$PROTOCOL" = v1.2 ] && options=',"bidOptions":{"options":[{"positionConstraint":{"anchor":"ANCHOR_TOP","basis":"BASIS_ABSOLUTE","value":1}}]}'
  for block in $(seq "$first" $((first + 4))); do
    now=$(($(date +%s) * 1000))
    log "bid for L1 block $block"
    answer=$(curl -s -m 20 -X POST "$bidder/v1/bidder/bid" -d "{\"txHashes\":[\"$(openssl rand -hex 32)\"],
      \"amount\":\"100000000000000000\",\"blockNumber\":$block,\"decayStartTimestamp\":$now,
      \"decayEndTimestamp\":$((now + 60000))$options}")
    echo "$answer"
    digests=$(echo "$answer" | grep -o '"commitmentDigest": *"[0-9a-fA-Fx]*"' | grep -o '[0-9a-fA-F]\{64\}' || true)
    [ -n "$digests" ] || die "the bid for block $block got no commitment (logs in $run)"
    dirty=""
    for d in $digests; do slash_byte "$d" && dirty+=" $d"; done
    [ -z "$dirty" ] && break
    log "a commitment digest holds the byte 0x2f ($dirty): upstream's store may drop it before the block's winner opens it (docs/conformance.md §10); bidding again for the next block"
    [ "$block" -lt $((first + 4)) ] || die "five bids in a row had a digest with 0x2f (about 1 in 60 for two providers' commitments)"
  done
  sleep 3
  # The oracle records a block once the next one is mined: mine through the bid's block and one more.
  log "mining L1 blocks $first to $((block + 1)); the oracle records the winner, who opens, then the oracle settles"
  curl -sf -X POST "$(json "$t" .controlUrl)/sim/v1/mine" -H 'content-type: application/json' \
    -d "{\"blocks\":$((block + 2 - first))}" >/dev/null
  local last=""
  for _ in $(seq 1 60); do
    local st
    st=$(curl -s "$bidder/v1/bidder/get_bid_info?block_number=$block" | bun -e "
      const r = JSON.parse(await Bun.stdin.text());
      const cs = (r.blockBidInfo ?? []).flatMap((b) => b.bids.flatMap((x) => x.commitments));
      const money = (c) => (c.payment ? ' payment=' + c.payment : '') + (c.refund ? ' refund=' + c.refund : '');
      console.log(cs.map((c) => c.providerAddress.slice(0, 8) + ':' + c.status + money(c)).join(' '))")
    [ "$st" = "$last" ] || echo "  $st"
    last=$st
    case "$st" in *settled* | *slashed*) return 0 ;; esac
    # The oracle's payment or refund seen while the record still says "opened": upstream applies an opening and a
    # settlement seen in one poll in either order, and "opened" can overwrite "settled" (§8, "Status updates").
    case "$st" in *opened\ payment=* | *opened\ refund=*)
      log "settled (the payment or refund is in), but the record stays \"opened\": upstream's \"Status updates\" race (docs/conformance.md §8)"
      return 0 ;;
    esac
    sleep 2
  done
  die "no commitment of block $block was settled (logs in $run)"
}

# The suite's restart command: the bootnode and each provider again if it does not answer, then the bidder again
# after any provider it restarted (a provider keeps bidders' AES keys in memory only) or if it does not answer.
restart() {
  [ -n "$run" ] && [ -f "$run/start.env" ] || die "restart needs --run-dir DIR of a started network"
  run=$(cd "$run" && pwd)
  # shellcheck disable=SC1091
  . "$run/start.env"
  local again=""
  if ! answers "$base" boot; then
    log "restart: the bootnode"
    stop_pid boot
    start_node boot bootnode "$BOOTNODE_ACCOUNT" "$base"
  fi
  for i in $(seq 1 "$providers"); do
    local p2p=$((base + 10 * i))
    answers "$p2p" "p$i" && continue
    log "restart: provider $i"
    stop_pid "p$i"
    start_node "p$i" provider "${PROVIDER_ACCOUNTS[$((i - 1))]}" "$p2p" --bootnodes "$bootnodes"
    if [ "$apps" = yes ]; then
      stop_pid "app$i"
      start_app "$i"
    fi
    again=1
  done
  if [ -n "$again" ] || ! answers $((base + 90)) bidder; then
    log "restart: the bidder"
    start_bidder
  fi
}

stop() {
  [ -n "$run" ] || die "stop needs --run-dir DIR"
  for f in "$run"/*.pid; do
    [ -e "$f" ] || continue
    stop_pid "$(basename "$f" .pid)"
  done
  log "stopped"
}

case "$cmd" in
build) build ;;
start) start ;;
demo) demo ;;
restart) restart ;;
stop) stop ;;
*) die "unknown command $cmd (build|start|demo|stop)" ;;
esac
