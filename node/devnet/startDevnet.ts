import { type Address, createPublicClient, type PublicClient } from "viem";
import { stopAllAnvils } from "../chain/anvil.ts";
import { localHttp } from "../chain/localHttp.ts";
import { type DevnetTarget, type NetnsHostEntry, type Target, targetOf } from "../clients/target.ts";
import type {
  BuiltInApplications,
  DevnetStatus,
  KilledNode,
  ProviderScheduleEntry,
  SimControl,
} from "../control/simApi.ts";
import type { BuilderMode } from "../l1/builder.ts";
import type { PostedBundle } from "../l1/bundleBook.ts";
import type { BidderNode } from "../nodes/bidderNode.ts";
import type { ProviderNode } from "../nodes/providerNode.ts";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { shutdownStep } from "../util/deadline.ts";
import { logger } from "../util/log.ts";
import { SerialQueue } from "../util/serial.ts";
import type { PublishFn } from "../validators/validatorService.ts";
import { claimDevnet, type DevnetClaim } from "./claimDevnet.ts";
import { ConfigError, type DevnetConfig } from "./config.ts";
import { NoNodesError } from "./devnetErrors.ts";
import type { DevnetParts } from "./devnetParts.ts";
import { devnetStatus } from "./devnetStatus.ts";
import type { NodeEndpoint, NodeHost, StopStep } from "./nodeHost.ts";
import type { Fault, KillPoint } from "./nodeOps.ts";
import { type ChainParts, startChainsAndContracts, stopChains } from "./startChainsAndContracts.ts";
import { type ControlParts, startControl, stopControl } from "./startControl.ts";
import { nodeHostFor, startNodes } from "./startNodes.ts";
import { followChains, type OracleParts, startOracle, stopBlocks, stopOracle } from "./startOracle.ts";

export { NetnsUnavailableError, NodesInProcessesError, NoNodesError } from "./devnetErrors.ts";
export type { DevnetParts } from "./devnetParts.ts";
export type { NodeEndpoint } from "./nodeHost.ts";

const log = logger("devnet");
/**
 * How long the parts before the chains have to stop, together (each at most what is left of it). node/main.ts exits
 * 10 s after Ctrl-C whatever happens; the chains get 4 s of their own (stopChains), so two slow parts on a loaded
 * machine can no longer use up the 10 s and leave the Anvils running, their state unsaved.
 */
const STOP_BEFORE_CHAINS_MS = 5_000;

/** A running devnet: chains, contracts, nodes, L1 driver, oracle and control API. */
export class Devnet implements SimControl {
  readonly config: DevnetConfig;
  readonly dir: DevnetClaim["dir"];
  readonly lock: DevnetClaim["lock"];
  readonly chains: ChainParts["chains"];
  readonly contracts: ChainParts["contracts"];
  readonly validatorRegistry: Address;
  readonly nodes: NodeHost;
  readonly driver: OracleParts["driver"];
  readonly oracle: OracleParts["recorder"];
  readonly oracleEvents: OracleParts["events"];
  readonly settler: OracleParts["settler"];
  readonly builder: OracleParts["builder"];
  readonly directory: OracleParts["directory"];
  readonly bundles: OracleParts["bundles"];
  readonly liveness: OracleParts["liveness"];
  readonly bidOutcomes: OracleParts["bidOutcomes"];
  readonly rpcTls: DevnetParts["rpcTls"];
  readonly l1Client: PublicClient;
  readonly settlementClient: PublicClient;
  /** The control and beacon APIs and the explorer: the control phase serves the devnet itself, so it comes last. */
  private control: ControlParts | undefined;
  private readonly kills = new SerialQueue();
  private stopping: Promise<void> | undefined;

  constructor(readonly parts: DevnetParts) {
    const { claim, chain, oracle } = parts;
    this.config = claim.config;
    this.dir = claim.dir;
    this.lock = claim.lock;
    this.chains = chain.chains;
    this.contracts = chain.contracts;
    this.validatorRegistry = chain.validatorRegistry;
    this.nodes = parts.nodes;
    this.driver = oracle.driver;
    this.oracle = oracle.recorder;
    this.oracleEvents = oracle.events;
    this.settler = oracle.settler;
    this.builder = oracle.builder;
    this.directory = oracle.directory;
    this.bundles = oracle.bundles;
    this.liveness = oracle.liveness;
    this.bidOutcomes = oracle.bidOutcomes;
    this.rpcTls = parts.rpcTls;
    this.l1Client = createPublicClient({ transport: localHttp(this.chains.l1.rpcUrl) });
    this.settlementClient = createPublicClient({ transport: localHttp(this.chains.settlement.rpcUrl) });
  }

  /** The control phase's servers, once (startControl). */
  attachControl(control: ControlParts): void {
    this.control = control;
  }

  /** The network faults between the hosts (`--network netns` only): `--fault`, `/sim/v1/network/faults`. */
  get netFaults() {
    return this.parts.claim.netns?.faults;
  }

  /** `--foreign-hosts`: every host of the netns network, for the target file (scripts/upstream.sh --netns reads it). */
  get foreignNetnsHosts(): NetnsHostEntry[] | undefined {
    const hosts = this.netFaults?.hosts;
    const foreign = this.config.foreignHosts;
    if (!hosts || !foreign?.length) return undefined;
    return hosts.hosts.map((name) => ({
      name,
      ip: hosts.ipOf(name),
      namespace: hosts.namespace(name),
      own: !foreign.includes(name),
    }));
  }

  /** The kinds of network fault this devnet can set (none without netns); the target's `sim-faults` rests on it. */
  get netFaultKinds(): string[] {
    return this.netFaults?.available().available ?? [];
  }

  /** false with --no-nodes: chains, contracts, driver, oracle, beacon and control API only. */
  get hasNodes(): boolean {
    return this.nodes.hasNodes;
  }

  /** The devnet's bidder node (NoNodesError with --no-nodes, NodesInProcessesError with node processes). */
  get bidder(): BidderNode {
    return this.nodes.bidderNode();
  }

  /** Every bidder node in this process: the devnet's bidder, then the extra ones (`--bidders N`). */
  get bidders(): readonly BidderNode[] {
    return this.nodes.bidderNodes;
  }

  /** The provider nodes in this process (none with node processes or --no-nodes). */
  get providers(): readonly ProviderNode[] {
    return this.nodes.providerNodes;
  }

  /** How in-process nodes meet (libp2p around the devnet's bootnode, or in-process). */
  get networks() {
    return this.nodes.networks;
  }

  /** The node processes (`--network processes|netns`); undefined when the nodes live in this process. */
  get procs() {
    return this.nodes.processes;
  }

  /** The built-in provider applications (`--auto-accept`), one per running provider node. */
  get responderAgents() {
    return this.nodes.responderAgents;
  }

  /** The bidder's and each provider's URLs and address, wherever the nodes run (the target file's fields). */
  nodeEndpoints(): { bidder: NodeEndpoint; providers: NodeEndpoint[] } {
    return this.nodes.endpoints();
  }

  /** The devnet's bootnode multiaddrs (none in-process). */
  bootnodeAddrs(): string[] {
    return this.nodes.bootnodeAddrs();
  }

  /** Resolves once the running nodes see each other and nobody sees a stopped provider (devnetNetworks' settle). */
  settle(timeoutMs = 60_000): Promise<void> {
    return this.nodes.settle(timeoutMs);
  }

  get controlUrl(): string {
    return this.control!.control.url;
  }

  get beaconUrl(): string {
    return this.control!.beacon.url;
  }

  /** The explorer page's sources and live stream (`/explorer/` on the control port). */
  get explorer() {
    return this.control?.explorer;
  }

  get explorerUrl(): string {
    return `${this.controlUrl}/explorer/`;
  }

  async mine(blocks: number, winner?: Address) {
    // A provider registered a moment ago takes part in the round-robin from this block on.
    await this.directory.sync();
    return this.driver.mine(blocks, winner);
  }

  /** Mines an L1 block every `seconds` from now on (0: only through mine()); answers the new interval. */
  setL1BlockTime(seconds: number): { blockTime: number } {
    this.driver.startInterval(seconds);
    return { blockTime: this.driver.intervalSeconds };
  }

  async setBuilderMode(provider: Address, mode: BuilderMode, every = 1): Promise<void> {
    await this.registeredProvider(provider);
    this.builder.setMode(provider, mode, every);
  }

  /** Keeps a provider application's bundle for a future block; the builder includes it if the provider wins it. */
  async postBundle(bundle: PostedBundle): Promise<void> {
    await this.registeredProvider(bundle.provider);
    const head = await this.driver.blockNumber();
    this.bundles.post(bundle, head);
    this.liveness.heard(bundle.provider, head);
  }

  /** A provider's node says it is there: it stays in the winner schedule (or comes back) without a bundle to post. */
  async heartbeat(provider: Address): Promise<ProviderScheduleEntry> {
    await this.registeredProvider(provider);
    this.liveness.heard(provider, await this.driver.blockNumber());
    return this.scheduleEntry(provider);
  }

  /** Whether a registered provider is in the winner schedule, and why (`/sim/v1/status`). */
  scheduleEntry(provider: Address): ProviderScheduleEntry {
    const l = this.liveness.describe(provider);
    const staked = this.directory.inSchedule(provider);
    return {
      inSchedule: staked && l.live,
      schedule: staked ? l.reason : "unstaked: out until it registers again",
      lastHeardBlock: l.lastHeardBlock?.toString() ?? null,
    };
  }

  /** A provider registered on-chain (by anyone), or InvalidArgument. */
  private async registeredProvider(address: Address): Promise<void> {
    if (this.directory.has(address)) return;
    await this.directory.sync();
    if (!this.directory.has(address))
      throw new InvalidArgumentError(`no provider registered in ProviderRegistry with address ${address}`);
  }

  /** Stops a provider node (it leaves the network: peer_disconnected); its state stays in its store. */
  stopProvider(index: number): Promise<void> {
    return this.nodes.stopProvider(index);
  }

  /** Starts a stopped provider node again on its port (it joins the network: peer_connected). */
  startProvider(index: number): Promise<void> {
    return this.nodes.startProvider(index);
  }

  /**
   * Kills a node (`bidder`, `bidder-N`, `provider-N`) the way SIGKILL kills a process, then starts a new node on
   * its store, keys and ports, and answers once it serves again and the mesh has settled (docs/crash-safety.md
   * says what is and is not simulated when the devnet's nodes share one process).
   */
  killNode(name: string, at: KillPoint = "now", replayFrom?: bigint): Promise<KilledNode> {
    return this.kills.run(() => this.nodes.kill(name, at, replayFrom));
  }

  /** Arms (`store`, `open`) or disarms (`none`) a node's next failing transaction. */
  injectFault(node: string, fault: Fault): Promise<void> {
    return this.nodes.injectFault(node, fault);
  }

  status(): Promise<DevnetStatus> {
    return devnetStatus(this);
  }

  /**
   * Detaches (or attaches again) the built-in accept-all applications, so that another provider application (the
   * conformance suite's) is the only one reading a provider's bids. Node processes attach their own (`--role
   * --auto-accept`), which cannot be detached from here.
   */
  setResponders(attached: boolean): Promise<BuiltInApplications> {
    return this.nodes.setResponders(attached);
  }

  /** Whether the built-in applications are attached, and how many (/sim/v1/status). */
  builtInApplications(): BuiltInApplications {
    return this.nodes.builtInApplications();
  }

  /** The target the suite drives (NoNodesError with --no-nodes: the user's own nodes complete it). */
  target(): Target {
    if (!this.hasNodes) throw new NoNodesError("no target of its own");
    return targetOf(this) as Target;
  }

  /** What the devnet writes to its target file: without nodes, everything but the nodes' URLs and addresses. */
  targetFile(): DevnetTarget {
    return targetOf(this);
  }

  /**
   * Stops everything this devnet started, the phases in reverse; safe to call more than once. Bounded: a part that
   * does not stop within its deadline is logged by name and left behind, so the chains are always stopped last and
   * a stop never hangs.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const end = Date.now() + STOP_BEFORE_CHAINS_MS;
      const step: StopStep = (what, work) =>
        shutdownStep(what, Math.max(100, end - Date.now()), work, (m) => log.warn(m));
      const { oracle, chain, nodes, claim } = this.parts;
      await stopBlocks(oracle, step);
      await stopControl(this.control, step);
      await nodes.stop(step);
      await stopOracle(oracle, step);
      await stopChains(chain);
      nodes.close();
      claim.release();
    })();
    return this.stopping;
  }
}

/**
 * Starts a whole devnet from a config, phase after phase: the data dir (and netns hosts), the chains and contracts,
 * the oracle, the nodes, the control API; then the oracle follows the chains and the devnet is ready. On failure
 * everything started so far is stopped again.
 */
export async function startDevnet(cfg: DevnetConfig): Promise<Devnet> {
  // Extra bidder nodes share the in-process network (over libp2p each node would need a peer of its own).
  if (cfg.bidders > 1 && (!cfg.nodes || cfg.network !== "in-process"))
    throw new ConfigError(`${cfg.bidders} bidder nodes need the nodes and the in-process network`);
  const t0 = performance.now();
  const claim = await claimDevnet(cfg);
  const { config, dir } = claim;
  const nodes = nodeHostFor(config, claim.netns);
  try {
    const publish: PublishFn = (topic, value) => {
      for (const n of nodes.notifiers()) n.publish(topic, value);
    };
    const chain = await startChainsAndContracts(config, dir, publish, t0);
    // The bid-path crypto (bn254, keccak) before the oracle and the nodes use it.
    await initCrypto();
    const oracle = await startOracle(config, dir, chain, nodes);
    const readiness = { ready: false };
    const { rpcTls } = await startNodes(
      nodes,
      {
        config,
        dir,
        chain,
        bidOutcomes: oracle.bidOutcomes,
        readiness: async () =>
          readiness.ready ? undefined : "starting: the devnet has not written its target file yet",
        l1BlockNumber: () => oracle.driver.blockNumber(),
      },
      claim.netns,
    );
    const devnet = new Devnet({ claim, chain, oracle, nodes, rpcTls });
    devnet.attachControl(
      await startControl({ config, sim: devnet, chain, oracle, nodes, netFaults: claim.netns?.faults }),
    );
    await followChains(oracle);
    await chain.validators.start();
    dir.writeJson(dir.targetFile, devnet.targetFile());
    readiness.ready = true;
    claim.lock.update({
      dataDir: config.dataDir,
      bidderUrl: devnet.hasNodes ? devnet.nodeEndpoints().bidder.url : undefined,
      controlUrl: devnet.controlUrl,
    });
    oracle.driver.startInterval(config.l1BlockTime);
    log.info("devnet ready", { ms: Math.round(performance.now() - t0) });
    return devnet;
  } catch (e) {
    await nodes.abort();
    await stopAllAnvils();
    claim.release();
    throw e;
  }
}
