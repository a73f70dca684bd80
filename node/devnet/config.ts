import { parseEther } from "viem";
import { parseArgsOr } from "../../lib/cli.ts";
import { MevCommitError } from "../../lib/errors.ts";
import { DEFAULT_DEPLOY_V12_PARAMS } from "../chain/deployV12.ts";
import { type FaultSpec, PSEUDO_HOSTS, parseFaultFlag } from "../faults/faultSpec.ts";
import { DEFAULT_PROVIDER_LIVENESS_BLOCKS } from "../l1/providerLiveness.ts";
import {
  DEFAULT_PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../protocol/protocolVersion.ts";
import { type ProtocolRules, rulesOf } from "../protocol/rules.ts";
import { AUTO_PROCESSES_MIN_CORES, availableCores, CORES_ENV, CoresEnvError, chooseNetwork } from "./autoNetwork.ts";

/**
 * Default seconds between the settlement chain's state dumps (`--settlement-state-interval`): what a kill -9 of the
 * devnet can lose of it (the nodes send again the store and open transactions it lost, within PreconfManager's 60 s
 * dispatch window). A dump writes the whole state, which grows with every commitment: once a second it would take a
 * core under sustained load, and at 300 MB (60,000 commitments) each dump stalls the chain for seconds.
 */
export const SETTLEMENT_STATE_INTERVAL_S = 5;

/** Everything `bun run node` can be told. Defaults are the devnet a user gets with no flags. */
export interface DevnetConfig {
  /**
   * The rules of the protocol the devnet speaks (`--protocol`), built here once and handed to its contracts, chains
   * and nodes. v1.1 is the pinned interface (window deposits); v1.2 is upstream's v1.2.x line (deposits per bidder
   * and provider).
   */
  rules: ProtocolRules;
  /**
   * v1.2: BidderRegistry's withdrawal period (ms of chain time) between a bidder's withdrawal request and its
   * withdrawal; upstream deploys 10 minutes.
   */
  bidderWithdrawalPeriodMs: number;
  /**
   * v1.2 (`--bid-options-slash-enabled`): the oracle also slashes a commitment whose bundle does not meet every
   * position constraint of its bid options, as upstream's oracle flag of that name does (off by default there too).
   */
  bidOptionsSlash: boolean;
  host: string;
  dataDir: string;
  fresh: boolean;
  /**
   * false (`--no-nodes`): chains, contracts, the L1 driver, the oracle, the beacon and control APIs, and none of our
   * nodes; another implementation's bidder and providers are the only nodes.
   */
  nodes: boolean;
  providers: number;
  /** Bidder nodes (default 1); bidder i ≥ 1 listens on bidderPort + 10 * i (or a free port when bidderPort is 0). */
  bidders: number;
  bidderPort: number;
  /** Provider i listens on providerBasePort + 100 * i (13623, 13723, …) unless providerPorts is given. */
  providerPorts: number[];
  /** gRPC port of the bidder node (upstream's --rpc-port default 13524). */
  bidderRpcPort: number;
  /** gRPC port of provider i: providerRpcPorts[0] + 100 * i (13624, 13724, …) unless given. */
  providerRpcPorts: number[];
  /** Serve gRPC over TLS (`--rpc-tls`): with rpcTlsCert/rpcTlsKey, else a certificate made in the data dir. */
  rpcTls: boolean;
  rpcTlsCert?: string;
  rpcTlsKey?: string;
  controlPort: number;
  /** The beacon API (simulated beacon schedule) for foreign nodes' validator services. */
  beaconPort: number;
  l1Port: number;
  settlementPort: number;
  /**
   * Port of the idle chain the settlement chain forks (an Anvil of the devnet's own, chains.ts says why); 0 = a free
   * port none of the others names.
   */
  settlementGenesisPort: number;
  l1ChainId: number;
  settlementChainId: number;
  l1RpcUrl?: string;
  settlementRpcUrl?: string;
  /** Seconds between L1 blocks; 0 = blocks are mined only through the control API. */
  l1BlockTime: number;
  /**
   * Milliseconds between settlement blocks (interval mining, as upstream's settlement chain: store, open and
   * settlement transactions share blocks); 0 = a block per transaction (automine).
   */
  settlementBlockTimeMs: number;
  /**
   * Past states the settlement chain keeps (blocks): calls at a block older than that fail. Each kept state is a
   * copy of the chain's whole state made at every block (Anvil 1.7.1), so sustained load wants few; 0 = none.
   */
  settlementHistory: number;
  /**
   * Blocks whose transactions, receipts and logs the settlement chain keeps (Anvil's --transaction-block-keeper);
   * 0 = all. Every transaction costs the chain ~10 KB of memory and state file for good otherwise (docs/performance.md).
   */
  settlementKeepBlocks: number;
  /**
   * Seconds between the settlement chain's state dumps: what a kill -9 of the devnet can lose of it. A dump writes
   * the whole state (hundreds of MB after tens of thousands of commitments) and Anvil answers nothing meanwhile.
   */
  settlementStateIntervalS: number;
  /** L1 blocks the oracle waits before recording a block's winner. */
  oracleLag: number;
  /**
   * Worker threads for the nodes' bid-path crypto (signing and verification), shared by the nodes of the devnet's
   * process; 0 = on the event loop's thread (node/crypto/cryptoPool.ts, docs/performance.md).
   */
  cryptoWorkers: number;
  autoAccept: boolean;
  /**
   * v1.1: wei per window (auto-deposit); v1.2: wei the bidder holds with each provider at start (topped up to it);
   * undefined = no deposit at start.
   */
  autodepositAmount?: bigint;
  /**
   * Whether autodepositAmount comes from a flag (--autodeposit-amount or --no-autodeposit): it then replaces the
   * setting a bidder saved in the data dir; otherwise a saved setting is resumed and the amount only starts a bidder
   * that has none.
   */
  autodepositFromFlag?: boolean;
  bidTimeoutMs: number;
  decisionTimeoutMs: number;
  /**
   * PreconfManager's commitment dispatch window (ms): how far a dispatch time may lie before the store
   * transaction's block time. Upstream deploys 500 ms; the devnet uses 60 s so that a node restarted after a crash
   * can still store a commitment the chain lost (docs/divergences.md).
   */
  dispatchWindowMs: number;
  /**
   * Pacing for nodes the devnet does not run (undefined = 0 with the devnet's own nodes, the FOREIGN_* values with
   * --no-nodes): least ms between L1 blocks, and ms the oracle waits after an opening before settling it.
   */
  minBlockIntervalMs?: number;
  /**
   * Number of the L1's genesis block when the devnet starts the L1 (undefined = 0 with its own nodes,
   * FOREIGN_L1_GENESIS_NUMBER with --no-nodes).
   */
  l1GenesisNumber?: number;
  settleDelayMs?: number;
  /** Provider stake at start, wei. */
  providerStake: bigint;
  /**
   * L1 blocks a provider the devnet does not run may go without posting a bundle or a heartbeat to the control API
   * before it leaves the winner schedule (it comes back when it posts again); 0: every staked provider stays in.
   */
  providerLivenessBlocks: number;
  /**
   * How the nodes meet: over libp2p on loopback (upstream's wire, a bootnode of the devnet's own), or in-process
   * calls; `processes`: over libp2p, each bidder and provider node a `--role` process of its own; `netns`: those
   * processes each on a network namespace host of its own (ip netns, veth; needs root).
   */
  network: "libp2p" | "in-process" | "processes" | "netns";
  /** Why `--network auto` (the default of `npm run node`) chose `network`; undefined when a flag named it. */
  networkChoice?: string;
  /** `--fault`: network faults set at start (netns only; node/faults/faultSpec.ts), changed later through /sim/v1/network/faults. */
  faults?: FaultSpec[];
  /**
   * `--foreign-hosts`: hosts on the netns network that run none of the devnet's nodes, for another implementation's
   * nodes (scripts/upstream.sh --netns starts upstream's there); faults apply to them as to the devnet's own.
   */
  foreignHosts?: string[];
  /** libp2p listen ports of the bootnode, the bidder node and each provider node (0 = any free port). */
  bootnodePort: number;
  bidderP2pPort: number;
  providerP2pPorts: number[];
  /** How often every node's idle streams (ReceiveBids, Subscribe, SendBid) send a blank line, ms; 0 = never. */
  streamKeepAliveMs: number;
  /**
   * Idle timeout of the built-in provider applications' ReceiveBids connections, ms (Bun's fetch default, 300 s,
   * when undefined). They reattach with back-off whenever their stream ends; tests shorten it to prove that.
   */
  responderIdleTimeoutMs?: number;
  logLevel: "debug" | "info" | "warn" | "error";
  /** `--parent-pid`: the devnet stops when that process is gone (a test or tool that started it died). */
  parentPid?: number;
}

/** With --no-nodes: foreign nodes poll for events (upstream every 500 ms); see DevnetConfig.minBlockIntervalMs. */
export const FOREIGN_MIN_BLOCK_INTERVAL_MS = 1_000;
export const FOREIGN_SETTLE_DELAY_MS = 4_000;
/**
 * With --no-nodes the L1 starts at block 1,000,000, so that block numbers keep seven digits for the devnet's life, as
 * mainnet's keep eight: upstream's node keeps block winners under text keys ("bw/145" sorts before "bw/99") and picks
 * the latest blocks by that order, which goes wrong when block numbers grow a digit (100, 1000, …).
 */
export const FOREIGN_L1_GENESIS_NUMBER = 1_000_000;

export const DEFAULTS: DevnetConfig = {
  rules: rulesOf(DEFAULT_PROTOCOL_VERSION),
  bidderWithdrawalPeriodMs: Number(DEFAULT_DEPLOY_V12_PARAMS.bidderWithdrawalPeriodMs),
  bidOptionsSlash: false,
  host: "127.0.0.1",
  dataDir: ".devnet",
  fresh: false,
  nodes: true,
  providers: 2,
  bidders: 1,
  bidderPort: 13523,
  providerPorts: [13623, 13723],
  bidderRpcPort: 13524,
  providerRpcPorts: [13624, 13724],
  rpcTls: false,
  controlPort: 13500,
  beaconPort: 13501,
  l1Port: 8545,
  settlementPort: 8546,
  settlementGenesisPort: 0,
  l1ChainId: 31337,
  settlementChainId: 17864,
  l1BlockTime: 2,
  settlementBlockTimeMs: 200,
  settlementHistory: 0,
  settlementKeepBlocks: 1024,
  settlementStateIntervalS: SETTLEMENT_STATE_INTERVAL_S,
  oracleLag: 1,
  cryptoWorkers: 0,
  autoAccept: true,
  autodepositAmount: parseEther("10"),
  bidTimeoutMs: 30_000,
  decisionTimeoutMs: 30_000,
  providerStake: parseEther("20"),
  providerLivenessBlocks: DEFAULT_PROVIDER_LIVENESS_BLOCKS,
  dispatchWindowMs: 60_000,
  network: "libp2p",
  bootnodePort: 13510,
  bidderP2pPort: 13520,
  providerP2pPorts: [13620, 13720],
  streamKeepAliveMs: 15_000,
  logLevel: "info",
};

/** The highest --port-base: provider 7's admin port, the last derived one, is the base + 725. */
export const MAX_PORT_BASE = 65535 - 725;

/**
 * Every port of the devnet from one base (`--port-base B`), laid out as the defaults are around 13500: control B,
 * beacon B+1, L1 B+2, settlement B+3, the settlement chain's idle fork source B+4, bootnode B+10, the bidder's libp2p
 * B+20, HTTP B+23, gRPC B+24 (admin B+25 as a process; extra bidders 10 above each other), provider i's libp2p, HTTP
 * and gRPC B+120, B+123, B+124 plus 100·i (admin 2 above HTTP).
 */
export function portsFromBase(
  base: number,
  providers: number,
): Pick<
  DevnetConfig,
  | "controlPort"
  | "beaconPort"
  | "l1Port"
  | "settlementPort"
  | "settlementGenesisPort"
  | "bootnodePort"
  | "bidderP2pPort"
  | "bidderPort"
  | "bidderRpcPort"
  | "providerP2pPorts"
  | "providerPorts"
  | "providerRpcPorts"
> {
  const each = (offset: number) => Array.from({ length: providers }, (_, i) => base + offset + 100 * i);
  return {
    controlPort: base,
    beaconPort: base + 1,
    l1Port: base + 2,
    settlementPort: base + 3,
    settlementGenesisPort: base + 4,
    bootnodePort: base + 10,
    bidderP2pPort: base + 20,
    bidderPort: base + 23,
    bidderRpcPort: base + 24,
    providerP2pPorts: each(120),
    providerPorts: each(123),
    providerRpcPorts: each(124),
  };
}

export const HELP = `Usage: bun run node [options]

Starts a whole mev-commit devnet on this machine: an L1 and a settlement Anvil chain, the protocol contracts,
one bidder node, N provider nodes, the L1 block driver, the oracle and the /sim/v1 control API.

Options:
  --protocol VERSION          ${PROTOCOL_VERSIONS.join(" | ")}: the protocol of the contracts and nodes (default
                              ${DEFAULT_PROTOCOL_VERSION}, window deposits; v1.2: deposits per bidder and provider, the deposit
                              manager, bid options, on a Prague settlement chain)
  --bidder-withdrawal-period MS
                              v1.2: chain ms between a bidder's withdrawal request and its withdrawal (default
                              ${DEFAULT_DEPLOY_V12_PARAMS.bidderWithdrawalPeriodMs}, upstream's 10 minutes)
  --bid-options-slash-enabled v1.2: the oracle slashes a commitment whose bundle misses a position constraint of
                              its bid options (upstream's oracle flag of that name; off by default, as there)
  --data-dir DIR              node stores, chain state and target.json (default .devnet)
  --fresh                     wipe the data dir and start clean
  --host HOST                 address every listener binds (default 127.0.0.1)
  --port-base PORT            every port from this one (at most ${MAX_PORT_BASE}): control +0, beacon +1, L1 +2,
                              settlement +3, its fork source +4, bootnode +10, bidder libp2p/HTTP/gRPC +20/+23/+24,
                              provider i libp2p/HTTP/gRPC +120/+123/+124 plus 100·i; a port flag below still wins
  --no-nodes                  start no nodes of ours: chains, contracts, L1 driver, oracle, beacon and control
                              APIs only, for another implementation's bidder and providers (providers that
                              register on-chain take part in the winner schedule; see docs/conformance.md)
  --providers N               provider nodes (default 2, at most 7)
  --bidders N                 bidder nodes (default 1, at most 9; more than 1 needs --network in-process); bidder i
                              listens on the bidder port + 10·i (13533, …) with dev account 19 + i; only the first
                              has auto-deposit
  --bidder-port PORT          bidder node HTTP port (default 13523)
  --provider-ports P1,P2,…    provider node HTTP ports (default 13623, 13723, … one per provider)
  --bidder-rpc-port PORT      bidder node gRPC port (default 13524)
  --provider-rpc-ports P1,…   provider node gRPC ports (default 13624, 13724, … one per provider)
  --rpc-tls                   serve gRPC over TLS with a self-signed certificate made in the data dir
                              (rpc-tls/cert.pem, key.pem; clients dial with verification off or trust it)
  --rpc-tls-cert FILE         serve gRPC over TLS with this certificate chain (PEM; with --rpc-tls-key)
  --rpc-tls-key FILE          the certificate's private key (PEM)
  --control-port PORT         /sim/v1 control API port (default 13500)
  --beacon-port PORT          beacon API port: genesis, proposer duties, finality checkpoints of the simulated
                              beacon schedule, for other nodes' --beacon-api-url (default 13501)
  --l1-port PORT              L1 Anvil port (default 8545)
  --settlement-port PORT      settlement Anvil port (default 8546)
  --settlement-genesis-port PORT
                              port of the idle Anvil the settlement chain forks (default: a free port none of the
                              others names)
  --l1-chain-id ID            (default 31337)
  --settlement-chain-id ID    (default 17864)
  --l1-rpc-url URL            use an existing L1 chain instead of starting Anvil (it must answer Anvil's
                              anvil_setCoinbase and evm_mine: the block driver mines it)
  --settlement-rpc-url URL    use an existing settlement chain instead of starting Anvil
  --l1-genesis-number N       number of the L1's genesis block (default 0; ${FOREIGN_L1_GENESIS_NUMBER} with --no-nodes, so block numbers
                              keep their width: upstream's node orders blocks as text)
  --l1-block-time SECONDS     L1 block interval; 0 = mine only through the control API (default 2)
  --settlement-block-time MS  settlement chain block interval while transactions are pending (default 200; one a
                              second while idle; 0 = a block per transaction)
  --settlement-history N      past states the settlement chain keeps, in blocks (default 0: memory stays flat;
                              calls at older blocks fail, the devnet's own readers fall back to latest)
  --settlement-keep-blocks N  blocks whose transactions, receipts and logs the settlement chain keeps (default
                              1024, 3.4 min at 200 ms blocks: memory stays flat; 0 = all: logs from the start)
  --settlement-state-interval S  seconds between the settlement chain's state dumps, what a kill -9 can lose of it
                              (default 5; 0 = only at a clean stop; a dump of a large state stalls the chain)
  --oracle-lag BLOCKS         blocks the oracle waits before recording a winner (default 1)
  --crypto-workers N          worker threads for the nodes' bid signing and verification (default 0: on the
                              event loop's thread)
  --auto-accept / --no-auto-accept
                              attach a built-in accept-all provider application (default on)
  --autodeposit-amount WEI    bidder auto-deposit per window at start (default: the setting the data dir saved,
                              else 10 ETH); replaces a saved setting. v1.2: the bidder's deposit with each
                              provider at start (topped up to it; default 10 ETH)
  --no-autodeposit            start without auto-deposit, even when the data dir saved it on (v1.2: no deposit)
  --bid-timeout MS            how long SendBid waits for providers (default 30000)
  --decision-timeout MS       how long a provider node waits for its application (default 30000)
  --provider-stake WEI        stake each provider registers with (default 20 ETH)
  --provider-liveness-blocks N  a provider the devnet does not run leaves the winner schedule after N L1 blocks
                              without a bundle or heartbeat posted to the control API, and comes back when it
                              posts one (default ${DEFAULT_PROVIDER_LIVENESS_BLOCKS}; 0 = every staked provider stays in)
  --min-block-interval MS     least time between two L1 blocks, however fast the control API asks for them
                              (default 0; ${FOREIGN_MIN_BLOCK_INTERVAL_MS} with --no-nodes: nodes that poll, like upstream's, open
                              their commitments before later blocks make the bidder do it)
  --settle-delay MS           how long the oracle waits after an opening before settling it (default 0;
                              ${FOREIGN_SETTLE_DELAY_MS} with --no-nodes: upstream's nodes must see the opening before the settlement)
  --dispatch-window MS        PreconfManager commitment dispatch window at deployment (default 60000; upstream 500)
  --network auto|libp2p|in-process|processes|netns
                              how nodes meet. auto (default): processes with --crypto-workers min(4, cores / 4)
                              from ${AUTO_PROCESSES_MIN_CORES} cores (os.availableParallelism(), or ${CORES_ENV}), else libp2p; the banner says
                              which and why. libp2p: on loopback, upstream's wire, with a bootnode of the devnet's
                              own, every node on this process's event loop; in-process: direct calls inside this
                              process; processes: libp2p, each bidder and provider node a process of its own
                              (npm run node -- --role …, driven through its admin API); netns: those processes
                              each on a network namespace of its own, joined by a bridge (ip netns, veth; needs root
                              and iproute2; every listener binds the bridge)
  --netns                     the same as --network netns
  --fault HOST[/HOST]:SETTING[,SETTING…]
                              a network fault from the start (netns only; repeat for more): on one host (bidder,
                              provider-0, …) or between a pair; settings partition (pairs), loss=P%, rate=Nkbit|Nmbit,
                             delay=MSms, jitter=MSms; e.g. --fault bidder/provider-1:partition. A host can
                              be cut from root (the devnet's own namespace), clients (its APIs' clients there)
                              or settlement (the settlement chain's RPC): --fault
                              provider-0/settlement:partition. Changed at run time through
                              /sim/v1/network/faults (docs/devnet.md, Network faults)
  --foreign-hosts H1,H2,…     netns only: hosts that run none of the devnet's nodes, for another implementation's
                              (with --no-nodes: the only hosts); the target file lists each host's namespace and
                              address, faults name them like the devnet's own (docs/devnet.md, Network faults)
  --bootnode-port PORT        libp2p port of the devnet's bootnode (default 13510)
  --bidder-p2p-port PORT      libp2p port of the bidder node (default 13520)
  --provider-p2p-ports P1,…   libp2p ports of the provider nodes (default 13620, 13720, … one per provider)
  --stream-keepalive MS       idle streams send a blank line this often (default 15000; 0 = never)
  --responder-idle-timeout MS idle timeout of the built-in provider applications' streams (default 300000, Bun's);
                              they reattach whenever a stream ends
  --log-level LEVEL           debug | info | warn | error (default info)
  --parent-pid PID            stop when process PID is gone (a test or tool that starts the devnet passes its own)
  -h, --help                  this text
`;

export class ConfigError extends MevCommitError {}

/** The devnet refused to start before it started or changed anything (its data dir is taken, a port is busy). */
export class StartRefusedError extends ConfigError {}

function int(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`--${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

function coresOr(cores: () => number): number {
  try {
    return cores();
  } catch (e) {
    if (e instanceof CoresEnvError) throw new ConfigError(e.message, { cause: e });
    throw e;
  }
}

function wei(name: string, v: string | undefined): bigint | undefined {
  if (v === undefined) return undefined;
  if (!/^[0-9]+$/.test(v)) throw new ConfigError(`--${name} must be an amount in wei (digits only), got "${v}"`);
  return BigInt(v);
}

/**
 * Parses argv into a config; throws ConfigError with a readable message on bad input. Without --network it is
 * `auto`: `cores` (the machine's, or DEVNET_CORES) decides (autoNetwork.ts).
 */
export function parseDevnetArgs(
  argv: string[],
  base: DevnetConfig = DEFAULTS,
  cores: () => number = availableCores,
): DevnetConfig | "help" {
  const parsed = parseArgsOr(
    {
      args: argv,
      allowPositionals: false,
      options: {
        help: { type: "boolean", short: "h" },
        protocol: { type: "string" },
        "bidder-withdrawal-period": { type: "string" },
        "bid-options-slash-enabled": { type: "boolean" },
        "data-dir": { type: "string" },
        fresh: { type: "boolean" },
        "no-nodes": { type: "boolean" },
        host: { type: "string" },
        providers: { type: "string" },
        bidders: { type: "string" },
        "bidder-port": { type: "string" },
        "provider-ports": { type: "string" },
        "bidder-rpc-port": { type: "string" },
        "provider-rpc-ports": { type: "string" },
        "rpc-tls": { type: "boolean" },
        "rpc-tls-cert": { type: "string" },
        "rpc-tls-key": { type: "string" },
        "control-port": { type: "string" },
        "beacon-port": { type: "string" },
        "l1-port": { type: "string" },
        "settlement-port": { type: "string" },
        "settlement-genesis-port": { type: "string" },
        "port-base": { type: "string" },
        "l1-chain-id": { type: "string" },
        "settlement-chain-id": { type: "string" },
        "l1-rpc-url": { type: "string" },
        "settlement-rpc-url": { type: "string" },
        "l1-block-time": { type: "string" },
        "l1-genesis-number": { type: "string" },
        "settlement-block-time": { type: "string" },
        "settlement-history": { type: "string" },
        "settlement-keep-blocks": { type: "string" },
        "settlement-state-interval": { type: "string" },
        "crypto-workers": { type: "string" },
        "oracle-lag": { type: "string" },
        "auto-accept": { type: "boolean" },
        "no-auto-accept": { type: "boolean" },
        "autodeposit-amount": { type: "string" },
        "no-autodeposit": { type: "boolean" },
        "bid-timeout": { type: "string" },
        "decision-timeout": { type: "string" },
        "provider-stake": { type: "string" },
        "provider-liveness-blocks": { type: "string" },
        "dispatch-window": { type: "string" },
        "min-block-interval": { type: "string" },
        "settle-delay": { type: "string" },
        "stream-keepalive": { type: "string" },
        "responder-idle-timeout": { type: "string" },
        "log-level": { type: "string" },
        "parent-pid": { type: "string" },
        network: { type: "string" },
        netns: { type: "boolean" },
        fault: { type: "string", multiple: true },
        "foreign-hosts": { type: "string" },
        "bootnode-port": { type: "string" },
        "bidder-p2p-port": { type: "string" },
        "provider-p2p-ports": { type: "string" },
      },
    },
    (message) => new ConfigError(`${message}; run with --help for the options`),
  );
  const o = parsed.values;
  if (o.help) return "help";
  let protocol: ProtocolVersion = base.rules.version;
  try {
    if (o.protocol !== undefined) protocol = parseProtocolVersion(o.protocol);
  } catch (e) {
    if (e instanceof UnknownProtocolVersionError) throw new ConfigError(`--protocol: ${e.message}`, { cause: e });
    throw e;
  }
  const rules = rulesOf(protocol);
  if (o["bidder-withdrawal-period"] !== undefined && !rules.withdrawalPeriod)
    throw new ConfigError("--bidder-withdrawal-period is a v1.2 setting: add --protocol v1.2");
  if (o["bid-options-slash-enabled"] && !rules.bidOptionsSlash)
    throw new ConfigError("--bid-options-slash-enabled is a v1.2 setting: add --protocol v1.2");
  const providers = int("providers", o.providers, 1, 7) ?? base.providers;
  const portBase = int("port-base", o["port-base"], 1024, MAX_PORT_BASE);
  if (portBase !== undefined) base = { ...base, ...portsFromBase(portBase, providers) };
  const bidderPort = int("bidder-port", o["bidder-port"], 0, 65535) ?? base.bidderPort;
  const portList = (flag: string, given: string | undefined, defaults: number[], fallback: number): number[] => {
    if (given === undefined) {
      const first = defaults[0] ?? fallback;
      return Array.from({ length: providers }, (_, i) => (first === 0 ? 0 : first + 100 * i));
    }
    const ports = given.split(",").map((p) => int(flag, p.trim(), 0, 65535)!);
    if (ports.length !== providers)
      throw new ConfigError(`--${flag} names ${ports.length} ports for ${providers} providers`);
    return ports;
  };
  const providerPorts = portList("provider-ports", o["provider-ports"], base.providerPorts, 13623);
  if (o.netns && o.network !== undefined && o.network !== "netns")
    throw new ConfigError(`--netns and --network ${o.network} contradict each other`);
  const bidders = int("bidders", o.bidders, 1, 9) ?? base.bidders;
  const asked = o.netns ? "netns" : (o.network ?? "auto");
  const cryptoWorkers = int("crypto-workers", o["crypto-workers"], 0, 64);
  const auto =
    asked === "auto"
      ? chooseNetwork(coresOr(cores), {
          cryptoWorkers,
          blocker:
            o["rpc-tls"] || o["rpc-tls-cert"] !== undefined
              ? "--rpc-tls (a --role node has no TLS yet)"
              : o["no-nodes"]
                ? "--no-nodes"
                : bidders > 1
                  ? `--bidders ${bidders}`
                  : undefined,
        })
      : undefined;
  const network = auto?.network ?? asked;
  if (network !== "libp2p" && network !== "in-process" && network !== "processes" && network !== "netns")
    throw new ConfigError(`--network must be auto, libp2p, in-process, processes or netns, got "${network}"`);
  if ((network === "processes" || network === "netns") && (o["rpc-tls"] || o["rpc-tls-cert"] !== undefined))
    throw new ConfigError(`--network ${network} serves gRPC without TLS (a --role node has no --rpc-tls yet)`);
  const foreignHosts =
    o["foreign-hosts"] === undefined
      ? undefined
      : parseForeignHosts(o["foreign-hosts"], [...netnsHostNames(o["no-nodes"] ? 0 : providers), ...PSEUDO_HOSTS]);
  if (foreignHosts && network !== "netns")
    throw new ConfigError("--foreign-hosts needs --network netns (they are network namespaces on its bridge)");
  if ((network === "processes" || network === "netns") && o["no-nodes"] && !foreignHosts)
    throw new ConfigError(
      `--network ${network} runs nodes; it and --no-nodes contradict each other (--foreign-hosts makes hosts for nodes of your own)`,
    );
  if (o.fault?.length && network !== "netns")
    throw new ConfigError("--fault needs --network netns (faults act between the hosts of its network namespaces)");
  if (bidders > 1 && network !== "in-process")
    throw new ConfigError(
      `--bidders ${bidders} needs --network in-process (over libp2p the devnet runs one bidder node)`,
    );
  const providerRpcPorts = portList("provider-rpc-ports", o["provider-rpc-ports"], base.providerRpcPorts, 13624);
  if ((o["rpc-tls-cert"] === undefined) !== (o["rpc-tls-key"] === undefined))
    throw new ConfigError("--rpc-tls-cert and --rpc-tls-key go together");
  const level = o["log-level"] ?? base.logLevel;
  if (!["debug", "info", "warn", "error"].includes(level))
    throw new ConfigError(`--log-level must be debug, info, warn or error`);
  if (o["no-autodeposit"] && o["autodeposit-amount"] !== undefined)
    throw new ConfigError("--no-autodeposit and --autodeposit-amount contradict each other");
  const autoAccept = o["no-auto-accept"] ? false : o["auto-accept"] ? true : base.autoAccept;
  return {
    rules,
    bidderWithdrawalPeriodMs:
      int("bidder-withdrawal-period", o["bidder-withdrawal-period"], 0, 2 ** 48) ?? base.bidderWithdrawalPeriodMs,
    bidOptionsSlash: o["bid-options-slash-enabled"] ?? base.bidOptionsSlash,
    host: o.host ?? base.host,
    dataDir: o["data-dir"] ?? base.dataDir,
    fresh: o.fresh ?? base.fresh,
    nodes: o["no-nodes"] ? false : base.nodes,
    providers,
    bidders,
    bidderPort,
    providerPorts,
    bidderRpcPort: int("bidder-rpc-port", o["bidder-rpc-port"], 0, 65535) ?? base.bidderRpcPort,
    providerRpcPorts,
    rpcTls: Boolean(o["rpc-tls"] || o["rpc-tls-cert"]) || base.rpcTls,
    rpcTlsCert: o["rpc-tls-cert"] ?? base.rpcTlsCert,
    rpcTlsKey: o["rpc-tls-key"] ?? base.rpcTlsKey,
    controlPort: int("control-port", o["control-port"], 0, 65535) ?? base.controlPort,
    beaconPort: int("beacon-port", o["beacon-port"], 0, 65535) ?? base.beaconPort,
    l1Port: int("l1-port", o["l1-port"], 0, 65535) ?? base.l1Port,
    settlementPort: int("settlement-port", o["settlement-port"], 0, 65535) ?? base.settlementPort,
    settlementGenesisPort:
      int("settlement-genesis-port", o["settlement-genesis-port"], 0, 65535) ?? base.settlementGenesisPort,
    l1ChainId: int("l1-chain-id", o["l1-chain-id"], 1, 2 ** 32) ?? base.l1ChainId,
    settlementChainId: int("settlement-chain-id", o["settlement-chain-id"], 1, 2 ** 32) ?? base.settlementChainId,
    l1RpcUrl: o["l1-rpc-url"] ?? base.l1RpcUrl,
    settlementRpcUrl: o["settlement-rpc-url"] ?? base.settlementRpcUrl,
    l1BlockTime: int("l1-block-time", o["l1-block-time"], 0, 3600) ?? base.l1BlockTime,
    settlementBlockTimeMs:
      int("settlement-block-time", o["settlement-block-time"], 0, 3_600_000) ?? base.settlementBlockTimeMs,
    settlementHistory: int("settlement-history", o["settlement-history"], 0, 100_000) ?? base.settlementHistory,
    settlementKeepBlocks:
      int("settlement-keep-blocks", o["settlement-keep-blocks"], 0, 100_000_000) ?? base.settlementKeepBlocks,
    settlementStateIntervalS:
      int("settlement-state-interval", o["settlement-state-interval"], 0, 86_400) ?? base.settlementStateIntervalS,
    cryptoWorkers: cryptoWorkers ?? auto?.cryptoWorkers ?? base.cryptoWorkers,
    oracleLag: int("oracle-lag", o["oracle-lag"], 0, 64) ?? base.oracleLag,
    autoAccept,
    autodepositAmount: o["no-autodeposit"]
      ? undefined
      : (wei("autodeposit-amount", o["autodeposit-amount"]) ?? base.autodepositAmount),
    autodepositFromFlag:
      o["no-autodeposit"] !== undefined || o["autodeposit-amount"] !== undefined || base.autodepositFromFlag,
    bidTimeoutMs: int("bid-timeout", o["bid-timeout"], 1, 3_600_000) ?? base.bidTimeoutMs,
    decisionTimeoutMs: int("decision-timeout", o["decision-timeout"], 1, 3_600_000) ?? base.decisionTimeoutMs,
    providerStake: wei("provider-stake", o["provider-stake"]) ?? base.providerStake,
    providerLivenessBlocks:
      int("provider-liveness-blocks", o["provider-liveness-blocks"], 0, 1_000_000) ?? base.providerLivenessBlocks,
    l1GenesisNumber: int("l1-genesis-number", o["l1-genesis-number"], 0, 2 ** 48) ?? base.l1GenesisNumber,
    minBlockIntervalMs: int("min-block-interval", o["min-block-interval"], 0, 60_000) ?? base.minBlockIntervalMs,
    settleDelayMs: int("settle-delay", o["settle-delay"], 0, 60_000) ?? base.settleDelayMs,
    dispatchWindowMs: int("dispatch-window", o["dispatch-window"], 1, 2 ** 48) ?? base.dispatchWindowMs,
    network,
    networkChoice: auto?.reason,
    ...(o.fault?.length
      ? {
          faults: parseFaultFlags(o.fault, [
            ...netnsHostNames(o["no-nodes"] ? 0 : providers, foreignHosts),
            ...PSEUDO_HOSTS,
          ]),
        }
      : {}),
    ...(foreignHosts ? { foreignHosts } : {}),
    bootnodePort: int("bootnode-port", o["bootnode-port"], 0, 65535) ?? base.bootnodePort,
    bidderP2pPort: int("bidder-p2p-port", o["bidder-p2p-port"], 0, 65535) ?? base.bidderP2pPort,
    providerP2pPorts: portList("provider-p2p-ports", o["provider-p2p-ports"], base.providerP2pPorts, 13620),
    streamKeepAliveMs: int("stream-keepalive", o["stream-keepalive"], 0, 3_600_000) ?? base.streamKeepAliveMs,
    responderIdleTimeoutMs:
      int("responder-idle-timeout", o["responder-idle-timeout"], 1, 3_600_000) ?? base.responderIdleTimeoutMs,
    logLevel: level as DevnetConfig["logLevel"],
    parentPid: int("parent-pid", o["parent-pid"], 1, 2 ** 22),
  };
}

/**
 * Every port the configuration names (0, chosen at listen time, left out), extra bidders' included: a port the devnet
 * picks for itself (the settlement chain's empty fork source) must not be one of them, free now but bound later (a
 * restart on the same ports found one taken that way).
 */
export function configuredPorts(cfg: DevnetConfig): Set<number> {
  const ports = [
    cfg.bidderPort,
    cfg.bidderRpcPort,
    cfg.controlPort,
    cfg.beaconPort,
    cfg.l1Port,
    cfg.settlementPort,
    cfg.settlementGenesisPort,
    cfg.bootnodePort,
    cfg.bidderP2pPort,
  ];
  ports.push(...cfg.providerPorts, ...cfg.providerRpcPorts, ...cfg.providerP2pPorts);
  for (let j = 0; j < cfg.bidders - 1; j++)
    ports.push(extraBidderPort(cfg.bidderPort, j), extraBidderPort(cfg.bidderRpcPort, j));
  return new Set(ports.filter((p) => p > 0));
}

/** A port of extra bidder j (bidder j + 1): the first bidder's plus 10 · (j + 1), or 0 (chosen at listen time). */
export function extraBidderPort(first: number, j: number): number {
  return first === 0 ? 0 : first + 10 * (j + 1);
}

/** The `--fault` flags against the devnet's hosts (bidder, provider-0, …), each a ConfigError when it is wrong. */
/**
 * The hosts of a netns devnet: its own nodes' (`bidder`, `provider-0`, …; none with --no-nodes, `providers` 0)
 * then the foreign hosts.
 */
export function netnsHostNames(providers: number, foreignHosts: readonly string[] = []): string[] {
  const own = providers > 0 ? ["bidder", ...Array.from({ length: providers }, (_, i) => `provider-${i}`)] : [];
  return [...own, ...foreignHosts];
}

/**
 * `--foreign-hosts a,b,c`: names of letters, digits and `-`, none of them one of `own` (the devnet's own nodes'
 * hosts and the pseudo-hosts a fault may name).
 */
export function parseForeignHosts(text: string, own: readonly string[]): string[] {
  const names = text.split(",").map((n) => n.trim());
  for (const n of names)
    if (!/^[a-z][a-z0-9-]{0,11}$/.test(n))
      throw new ConfigError(
        `--foreign-hosts: "${n}" is not a host name (a lower-case letter, then up to 11 letters, digits or -)`,
      );
  const taken = names.find((n) => own.includes(n));
  if (taken)
    throw new ConfigError(
      `--foreign-hosts: ${taken} is taken (the devnet's own hosts and pseudo-hosts: ${own.join(", ")})`,
    );
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new ConfigError(`--foreign-hosts names ${twice} twice`);
  if (names.length > 16) throw new ConfigError(`--foreign-hosts names ${names.length} hosts; at most 16`);
  return names;
}

function parseFaultFlags(flags: string[], hosts: string[]): FaultSpec[] {
  return flags.map((f) => {
    try {
      return parseFaultFlag(f, hosts);
    } catch (e) {
      throw new ConfigError(
        (e as Error).message.startsWith("--fault") ? (e as Error).message : `--fault ${f}: ${(e as Error).message}`,
      );
    }
  });
}
