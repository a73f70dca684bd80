import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, createPublicClient, type PublicClient } from "viem";
import { type Served, serve } from "../api/serve.ts";
import { bidderAccountIndex, devAccount, ROLES } from "../chain/accounts.ts";
import { stopAllAnvils } from "../chain/anvil.ts";
import { chainClients, localChain, nonceManagerFor } from "../chain/clients.ts";
import { blockTrackerAbi } from "../chain/contracts.ts";
import { bidderRegistryV12Abi } from "../chain/contractsV12.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { localHttp } from "../chain/localHttp.ts";
import type { ProtocolContractAddresses } from "../chain/protocolContracts.ts";
import { protocolEventPoller } from "../chain/protocolEvents.ts";
import { type DevnetTarget, type NetnsHostEntry, type Target, targetOf } from "../clients/target.ts";
import { networkFaultsApi, networkFaultsStatus } from "../control/networkFaultsApi.ts";
import {
  type BuiltInApplications,
  type DevnetStatus,
  type KilledNode,
  type ProviderScheduleEntry,
  type SimControl,
  simApi,
} from "../control/simApi.ts";
import { BidOutcomes } from "../explorer/bidOutcomes.ts";
import { devnetExplorer } from "../explorer/devnetExplorer.ts";
import { bidsApi, explorerPage } from "../explorer/explorerApi.ts";
import type { ExplorerHub } from "../explorer/explorerHub.ts";
import { NetFaults } from "../faults/netFaults.ts";
import { devnetCertificate, readTlsFiles, type TlsFiles } from "../grpc/tls.ts";
import { L1BlockDriver } from "../l1/blockDriver.ts";
import { Builder, type BuilderMode } from "../l1/builder.ts";
import { BundleBook, type PostedBundle } from "../l1/bundleBook.ts";
import { ProviderDirectory } from "../l1/providerDirectory.ts";
import { ProviderLiveness } from "../l1/providerLiveness.ts";
import { type DevnetNetworks, devnetNetworks, MeshTimeoutError } from "../network/devnetNetworks.ts";
import { meshSettled } from "../network/meshView.ts";
import { BidderNode } from "../nodes/bidderNode.ts";
import { ProviderNode } from "../nodes/providerNode.ts";
import type { Notifier } from "../notify/notifier.ts";
import { Settler } from "../oracle/settler.ts";
import { WinnerRecorder } from "../oracle/winnerRecorder.ts";
import { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import { providerStakeCheck } from "../p2p/stakeCheck.ts";
import { FailedPreconditionError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { acceptAll } from "../providerApp/policies.ts";
import { agentLog, ProviderAgent } from "../providerApp/providerAgent.ts";
import { cannotMakeHosts, NetnsHosts, removeNetwork, removeOrphanNetworks } from "../role/netnsHosts.ts";
import type { NodeListen } from "../server/nodeServer.ts";
import { NodeStore } from "../store/db.ts";
import { shutdownStep } from "../util/deadline.ts";
import { logger } from "../util/log.ts";
import type { HeldLock } from "../util/pidLock.ts";
import { SerialQueue } from "../util/serial.ts";
import { type BeaconSource, beaconApi } from "../validators/beaconApi.ts";
import { L1ValidatorChain, optInValidators } from "../validators/optInRegistry.ts";
import { ValidatorService } from "../validators/validatorService.ts";
import { type ChainEndpoint, startChains } from "./chains.ts";
import {
  ConfigError,
  type DevnetConfig,
  extraBidderPort,
  FOREIGN_MIN_BLOCK_INTERVAL_MS,
  FOREIGN_SETTLE_DELAY_MS,
  netnsHostNames,
} from "./config.ts";
import {
  ensureBidderDepositsV12,
  ensureContracts,
  ensureProvidersRegistered,
  ensureValidatorRegistry,
  installBlsVerifierStandIn,
} from "./contractsSetup.ts";
import { DataDir } from "./dataDir.ts";
import { claimDataDir, type DevnetLockInfo } from "./dataDirLock.ts";
import {
  armBidderFault,
  armProviderFault,
  diedAfterAck,
  type Fault,
  type KillPoint,
  nodeCounts,
  rewindEventCursor,
} from "./nodeOps.ts";
import { NodeProcess } from "./nodeProcesses.ts";

const log = logger("devnet");
/**
 * Deadlines of a stop. node/main.ts exits 10 s after Ctrl-C whatever happens, so the parts before the chains share
 * 5 s (each at most what is left of it) and the chains get 4 s of their own: two slow parts on a loaded machine can
 * no longer use up the 10 s and leave the Anvils running, their state unsaved.
 */
const STOP_BEFORE_CHAINS_MS = 5_000;
const STOP_CHAINS_MS = 4_000;

/** The devnet was started with --no-nodes and has no node of its own to answer for. */
export class NoNodesError extends FailedPreconditionError {
  constructor(what: string) {
    super(`${what}: the devnet runs no nodes of its own (--no-nodes)`);
  }
}

/** `--network netns` on a machine where network namespaces cannot be made (not root, no iproute2, …). */
export class NetnsUnavailableError extends ConfigError {
  constructor(why: string) {
    super(
      `--network netns cannot run here: ${why}. Use --network processes for one process per node on this host's own network`,
    );
  }
}

/** A devnet whose nodes run as processes has no node objects in its own process to hand out. */
export class NodesInProcessesError extends FailedPreconditionError {
  constructor(what: string) {
    super(
      `${what}: the devnet's nodes run in processes of their own (--network processes|netns); reach them through their URLs`,
    );
  }
}

/** The nodes of a devnet started with `--network processes|netns`, each a `--role` process, and their bootnode. */
export interface NodeProcesses {
  bidder: NodeProcess;
  providers: NodeProcess[];
  bootnode: Libp2pNetwork;
  /** With netns: the hosts the nodes run on (torn down when the devnet stops). */
  hosts?: NetnsHosts<string>;
  isStaked: (provider: Address) => Promise<boolean>;
}

/** Where the suite and the banner find a node: the same for in-process nodes and node processes. */
export interface NodeEndpoint {
  name: string;
  url: string;
  rpcUrl: string;
  address: Address;
}

/** A running devnet: chains, contracts, nodes, L1 driver, oracle and control API. */
export class Devnet implements SimControl {
  private controlServed: Served | undefined;
  private beaconServed: Served | undefined;
  /** The validator opt-in registry on the L1 chain. */
  validatorRegistry: Address | undefined;
  /** How the nodes meet (libp2p around the devnet's bootnode, or in-process). */
  networks: DevnetNetworks | undefined;
  private stopping: Promise<void> | undefined;
  readonly l1Client: PublicClient;
  readonly settlementClient: PublicClient;

  constructor(
    readonly config: DevnetConfig,
    readonly dir: DataDir,
    readonly chains: { l1: ChainEndpoint; settlement: ChainEndpoint },
    readonly contracts: ProtocolContractAddresses,
    private bidderNode: BidderNode | undefined,
    readonly providers: ProviderNode[],
    readonly driver: L1BlockDriver,
    readonly oracle: WinnerRecorder,
    private readonly oracleStore: NodeStore,
    readonly oracleEvents: EventPoller,
    readonly settler: Settler,
    readonly builder: Builder,
    /** Every provider registered on-chain (ours and foreign ones): the winner schedule and their builder keys. */
    readonly directory: ProviderDirectory,
    /** Bundles posted by provider applications for future blocks (`POST /sim/v1/bundles`). */
    readonly bundles: BundleBook,
    /** Which registered providers have something answering for them (the others are skipped in the schedule). */
    readonly liveness: ProviderLiveness,
  ) {
    this.l1Client = createPublicClient({ transport: localHttp(chains.l1.rpcUrl) });
    this.settlementClient = createPublicClient({ transport: localHttp(chains.settlement.rpcUrl) });
  }

  /** This devnet's hold on its data dir (dataDirLock.ts), released once it has stopped. */
  lock: HeldLock<DevnetLockInfo> | undefined;

  /** The node processes (`--network processes|netns`); undefined when the nodes live in this process. */
  procs: NodeProcesses | undefined;

  /** The network faults between the hosts (`--network netns` only): `--fault`, `/sim/v1/network/faults`. */
  netFaults: NetFaults | undefined;

  /** `--foreign-hosts`: every host of the netns network, for the target file (scripts/upstream.sh --netns reads it). */
  get foreignNetnsHosts(): NetnsHostEntry[] | undefined {
    const hosts = this.netFaults?.hosts;
    if (!hosts || !this.config.foreignHosts?.length) return undefined;
    return hosts.hosts.map((name) => ({
      name,
      ip: hosts.ipOf(name),
      namespace: hosts.namespace(name),
      own: !this.config.foreignHosts!.includes(name),
    }));
  }

  /** The kinds of network fault this devnet can set (none without netns); the target's `sim-faults` rests on it. */
  get netFaultKinds(): string[] {
    return this.netFaults?.available().available ?? [];
  }

  /** false with --no-nodes: chains, contracts, driver, oracle, beacon and control API only. */
  get hasNodes(): boolean {
    return this.bidderNode !== undefined || this.procs !== undefined;
  }

  /** The devnet's bidder node (NoNodesError with --no-nodes, NodesInProcessesError with node processes). */
  get bidder(): BidderNode {
    if (this.procs) throw new NodesInProcessesError("no bidder node object");
    if (!this.bidderNode) throw new NoNodesError("no bidder node");
    return this.bidderNode;
  }

  /** The bidder's and each provider's URLs and address, wherever the nodes run (the target file's fields). */
  nodeEndpoints(): { bidder: NodeEndpoint; providers: NodeEndpoint[] } {
    const of = (n: { name: string; url: string | null; rpcUrl: string | null; address: Address }): NodeEndpoint => ({
      name: n.name,
      url: n.url!,
      rpcUrl: n.rpcUrl!,
      address: n.address,
    });
    if (this.procs) return { bidder: of(this.procs.bidder), providers: this.procs.providers.map(of) };
    return {
      bidder: { name: "bidder", url: this.bidder.url, rpcUrl: this.bidder.rpcUrl, address: this.bidder.address },
      providers: this.providers.map(of),
    };
  }

  /** The devnet's bootnode multiaddrs (none in-process). */
  bootnodeAddrs(): string[] {
    return this.procs ? this.procs.bootnode.multiaddrs() : (this.networks?.bootnodeAddrs() ?? []);
  }

  /** Resolves once the running nodes see each other and nobody sees a stopped provider (devnetNetworks' settle). */
  async settle(timeoutMs = 60_000): Promise<void> {
    const procs = this.procs;
    if (!procs)
      return this.networks?.settle(
        this.providers.map((x) => x.listening),
        timeoutMs,
      );
    const until = Date.now() + timeoutMs;
    const expected = await Promise.all(
      procs.providers.map(async (p) => p.running && (await procs.isStaked(p.address))),
    );
    for (;;) {
      const views = await Promise.all(
        [procs.bidder, ...procs.providers].map((p) =>
          p.running
            ? p.status().then(
                (s) => s.mesh,
                () => undefined,
              )
            : undefined,
        ),
      );
      const bidder = views[0];
      if (
        bidder &&
        meshSettled(
          bidder,
          procs.providers.map((p, i) => ({
            address: p.address,
            expected: expected[i]!,
            running: p.running,
            view: views[i + 1],
          })),
        )
      )
        return;
      if (Date.now() > until)
        throw new MeshTimeoutError(`the node processes did not find each other over libp2p within ${timeoutMs} ms`);
      await Bun.sleep(50);
    }
  }

  private processNamed(name: string): NodeProcess | undefined {
    return this.procs && [this.procs.bidder, ...this.procs.providers].find((p) => p.name === name);
  }

  /** Bidder nodes after the first (`--bidders N`). */
  extraBidders: BidderNode[] = [];

  /** Every bidder node: the devnet's bidder, then the extra ones. */
  get bidders(): BidderNode[] {
    return this.bidderNode ? [this.bidderNode, ...this.extraBidders] : [];
  }

  get controlUrl(): string {
    return this.controlServed!.url;
  }

  get beaconUrl(): string {
    return this.beaconServed!.url;
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

  /** Set once the target file is written: until then every node's /health answers 503 (readiness). */
  ready = false;
  readonly readiness = async (): Promise<string | undefined> =>
    this.ready ? undefined : "starting: the devnet has not written its target file yet";

  private readonly providerPorts = new Map<number, { http: number; rpc: number }>();
  /** The gRPC listeners' certificate, with --rpc-tls. */
  rpcTls: TlsFiles | undefined;

  /** Where provider i listens: the ports it had before a stop, else the configured ones. */
  providerListen(index: number): NodeListen {
    const kept = this.providerPorts.get(index);
    const c = this.config;
    return {
      host: c.host,
      httpPort: kept?.http ?? c.providerPorts[index] ?? 0,
      rpcPort: kept?.rpc ?? c.providerRpcPorts[index] ?? 0,
      rpcTls: this.rpcTls,
      readiness: this.readiness,
    };
  }

  /** Stops a provider node (it leaves the network: peer_disconnected); its state stays in its store. */
  async stopProvider(index: number): Promise<void> {
    if (this.procs) {
      const p = this.providerProcessAt(index);
      if (!p.running) throw new FailedPreconditionError(`provider ${index} is not running`);
      await p.stop();
      return this.settle();
    }
    const p = this.providerAt(index);
    if (!p.listening) throw new FailedPreconditionError(`provider ${index} is not running`);
    this.providerPorts.set(index, { http: Number(new URL(p.url).port), rpc: Number(new URL(p.rpcUrl).port) });
    const responder = this.responders.findIndex((r) => r.providerUrl === p.url);
    if (responder >= 0) await this.responders.splice(responder, 1)[0]!.stop();
    await p.stop();
    await this.networks?.settle(this.providers.map((x) => x.listening));
  }

  /** Starts a stopped provider node again on its port (it joins the network: peer_connected). */
  async startProvider(index: number): Promise<void> {
    if (this.procs) {
      const p = this.providerProcessAt(index);
      if (p.running) throw new FailedPreconditionError(`provider ${index} is already running`);
      await p.start();
      return this.settle();
    }
    const p = this.providerAt(index);
    if (p.listening) throw new FailedPreconditionError(`provider ${index} is already running`);
    await p.start(this.providerListen(index));
    await this.networks?.settle(this.providers.map((x) => x.listening));
    if (this.respondersOn) await this.attachResponder(p);
  }

  private providerProcessAt(index: number): NodeProcess {
    const p = this.procs!.providers[index];
    if (!p)
      throw new InvalidArgumentError(
        `no provider ${index}: the devnet has providers 0 to ${this.procs!.providers.length - 1}`,
      );
    return p;
  }

  private providerAt(index: number): ProviderNode {
    if (!this.hasNodes) throw new NoNodesError(`no provider node ${index}`);
    const p = this.providers[index];
    if (!p)
      throw new InvalidArgumentError(
        `no provider ${index}: the devnet has providers 0 to ${this.providers.length - 1}`,
      );
    return p;
  }

  /** The nodes whose notifiers get the validator service's notifications (a restarted node takes its place). */
  validatorAudience: { notifier: Notifier }[] = [];
  private readonly kills = new SerialQueue();

  /**
   * Kills a node (`bidder`, `bidder-N`, `provider-N`) the way SIGKILL kills a process, then starts a new node on
   * its store, keys and ports, and answers once it serves again and the mesh has settled (docs/crash-safety.md
   * says what is and is not simulated: the devnet's nodes share one process).
   */
  killNode(name: string, at: KillPoint = "now", replayFrom?: bigint): Promise<KilledNode> {
    return this.kills.run(async () => {
      if (!this.hasNodes) throw new NoNodesError(`no node ${name}`);
      if ((at !== "now" || replayFrom !== undefined) && this.procs)
        throw new FailedPreconditionError(
          `a kill after-ack or with replayFrom needs the devnet's nodes in its own process; this devnet runs them as processes (--network ${this.config.network}${this.config.networkChoice ? `, chosen by --network auto: ${this.config.networkChoice}` : ""}): start it with --network libp2p`,
        );
      if (this.procs) return this.killProcess(name);
      const t0 = performance.now();
      const bidderAt = name === "bidder" ? 0 : /^bidder-([1-9]\d*)$/.exec(name) ? Number(name.slice(7)) : undefined;
      const providerAt = /^provider-(\d+)$/.exec(name) ? Number(name.slice(9)) : undefined;
      let down: number;
      let url: string;
      if (bidderAt !== undefined && bidderAt < this.bidders.length) {
        const old = this.bidders[bidderAt]!;
        const ports = old.listenPorts!;
        if (at === "after-ack") await diedAfterAck(old, name);
        await old.kill();
        if (replayFrom !== undefined) rewindEventCursor(old.options.storePath, replayFrom);
        this.forgetNonces(old.address);
        down = performance.now() - t0;
        const fresh = new BidderNode({
          ...old.options,
          network: bidderAt === 0 ? this.networks!.renew({ role: "bidder" }) : old.options.network,
        });
        if (bidderAt === 0) this.bidderNode = fresh;
        else this.extraBidders[bidderAt - 1] = fresh;
        this.replaceAudience(old, fresh);
        url = await fresh.start({ host: this.config.host, ...ports, rpcTls: this.rpcTls });
      } else if (providerAt !== undefined && providerAt < this.providers.length) {
        const old = this.providers[providerAt]!;
        if (!old.listening)
          throw new FailedPreconditionError(
            `${name} is not running (start it first: POST /sim/v1/providers/${providerAt}/start)`,
          );
        this.providerPorts.set(providerAt, {
          http: Number(new URL(old.url).port),
          rpc: Number(new URL(old.rpcUrl).port),
        });
        if (at === "after-ack") await diedAfterAck(old, name);
        await old.kill();
        if (replayFrom !== undefined) rewindEventCursor(old.options.storePath, replayFrom);
        this.forgetNonces(old.address);
        down = performance.now() - t0;
        const fresh = new ProviderNode({
          ...old.options,
          network: this.networks!.renew({ role: "provider", index: providerAt }),
        });
        this.providers[providerAt] = fresh;
        this.replaceAudience(old, fresh);
        url = await fresh.start(this.providerListen(providerAt));
      } else {
        const names = [
          ...this.bidders.map((_, i) => (i === 0 ? "bidder" : `bidder-${i}`)),
          ...this.providers.map((p) => p.name),
        ];
        throw new InvalidArgumentError(
          `no node named ${JSON.stringify(name)}: the devnet's nodes are ${names.join(", ")}`,
        );
      }
      await this.networks?.settle(this.providers.map((x) => x.listening));
      const killed = { name, url, downMs: Math.round(down), restartMs: Math.round(performance.now() - t0 - down) };
      log.info("node killed and restarted on its store", {
        ...killed,
        ...(replayFrom !== undefined ? { replayFrom } : {}),
        ...(at !== "now" ? { at } : {}),
      });
      return killed;
    });
  }

  /** A real SIGKILL of the node's process, then the same node started again on its store, key and ports. */
  private async killProcess(name: string): Promise<KilledNode> {
    const p = this.processNamed(name);
    if (!p) {
      const names = [this.procs!.bidder, ...this.procs!.providers].map((x) => x.name);
      throw new InvalidArgumentError(
        `no node named ${JSON.stringify(name)}: the devnet's nodes are ${names.join(", ")}`,
      );
    }
    if (!p.running)
      throw new FailedPreconditionError(
        `${name} is not running (start it first: POST /sim/v1/providers/${name.slice(9)}/start)`,
      );
    const t0 = performance.now();
    await p.kill();
    const down = performance.now() - t0;
    const url = await p.start();
    await this.settle();
    const killed = { name, url, downMs: Math.round(down), restartMs: Math.round(performance.now() - t0 - down) };
    log.info("node process killed (SIGKILL) and restarted on its store", killed);
    return killed;
  }

  private replaceAudience(old: { notifier: Notifier }, fresh: { notifier: Notifier }): void {
    const i = this.validatorAudience.indexOf(old);
    if (i >= 0) this.validatorAudience[i] = fresh;
  }

  /** A new process asks the chain for its account's nonce: nothing the dead node counted but never sent is kept. */
  private forgetNonces(address: Address): void {
    nonceManagerFor(this.chains.settlement.rpcUrl).reset({ address, chainId: this.chains.settlement.chainId });
  }

  /** Arms (`store`, `open`) or disarms (`none`) a node's next failing transaction. */
  async injectFault(node: string, fault: Fault): Promise<void> {
    if (this.procs) {
      const p =
        node === "bidder"
          ? this.procs.bidder
          : this.procs.providers.find((x) => x.address.toLowerCase() === node.toLowerCase());
      if (!p) throw new InvalidArgumentError(`no provider node with address ${node}`);
      if (!p.running) throw new FailedPreconditionError(`provider ${node} is not running`);
      return p.fault(fault);
    }
    if (node === "bidder") return armBidderFault(this.bidder, fault);
    armProviderFault(this.providerByAddress(node as Address), fault, node);
  }

  private providerByAddress(address: Address): ProviderNode {
    if (!this.hasNodes) throw new NoNodesError(`no provider node ${address}`);
    const p = this.providers.find((x) => x.address.toLowerCase() === address.toLowerCase());
    if (!p) throw new InvalidArgumentError(`no provider node with address ${address}`);
    return p;
  }

  async status(): Promise<DevnetStatus> {
    const rules = this.config.rules;
    const [l1Block, settlementBlock, currentWindow, withdrawalPeriod] = await Promise.all([
      this.l1Client.getBlockNumber({ cacheTime: 0 }),
      this.settlementClient.getBlockNumber({ cacheTime: 0 }),
      !rules.windows
        ? null
        : this.settlementClient.readContract({
            address: this.contracts.blockTracker,
            abi: blockTrackerAbi,
            functionName: "getCurrentWindow",
          }),
      rules.withdrawalPeriod
        ? this.settlementClient.readContract({
            address: this.contracts.bidderRegistry,
            abi: bidderRegistryV12Abi,
            functionName: "bidderWithdrawalPeriodMs",
          })
        : null,
    ]);
    return {
      protocol: this.config.rules.version,
      l1: {
        rpcUrl: this.chains.l1.rpcUrl,
        chainId: this.chains.l1.chainId,
        blockNumber: l1Block.toString(),
        blockTime: this.driver.intervalSeconds,
      },
      settlement: {
        rpcUrl: this.chains.settlement.rpcUrl,
        chainId: this.chains.settlement.chainId,
        blockNumber: settlementBlock.toString(),
      },
      currentWindow: currentWindow?.toString() ?? null,
      bidderWithdrawalPeriodMs: withdrawalPeriod?.toString() ?? null,
      bidOptionsSlash: rules.bidOptionsSlash ? this.config.bidOptionsSlash : null,
      lastRecordedBlock: this.oracle.lastRecorded().toString(),
      nextWinner: this.driver.schedule.peek() ?? null,
      settledCommitments: this.settler.settledCount,
      contracts: { ...this.contracts },
      validatorOptInRouter: this.validatorRegistry ?? null,
      registeredProviders: this.directory.list().map((address) => ({
        address,
        builderKey: this.directory.builderKeyOf(address)!,
        ...this.scheduleEntry(address),
        builder: this.builder.modeOf(address),
        node:
          [...this.providers, ...(this.procs?.providers ?? [])].find(
            (p) => p.address.toLowerCase() === address.toLowerCase(),
          )?.name ?? null,
      })),
      postedBundles: this.bundles.size,
      builtInApplications: this.builtInApplications(),
      networkFaults: networkFaultsStatus(this.netFaults, NO_NET_FAULTS),
      nodes: this.procs
        ? await this.processStatus(this.procs)
        : [
            ...this.bidders.map((b, i) => ({
              name: i === 0 ? "bidder" : `bidder-${i}`,
              role: "bidder" as const,
              url: b.url,
              rpcUrl: b.rpcUrl,
              address: b.address,
              running: true,
              ...nodeCounts(b),
            })),
            ...this.providers.map((p) => ({
              name: p.name,
              role: "provider" as const,
              url: p.listening ? p.url : null,
              rpcUrl: p.listening ? p.rpcUrl : null,
              address: p.address,
              running: p.listening,
              builder: this.builder.modeOf(p.address),
              builderEvery: this.builder.everyOf(p.address),
              ...nodeCounts(p),
            })),
          ],
    };
  }

  /** /sim/v1/status's nodes when they are processes: the counts come from each running node's admin API. */
  private processStatus(procs: NodeProcesses): Promise<DevnetStatus["nodes"]> {
    return Promise.all(
      [procs.bidder, ...procs.providers].map(async (p) => {
        const counts = p.serving ? await p.status() : undefined;
        return {
          name: p.name,
          role: p.role,
          url: p.running ? p.url : null,
          rpcUrl: p.running ? p.rpcUrl : null,
          address: p.address,
          running: p.running,
          ...(p.role === "provider"
            ? { builder: this.builder.modeOf(p.address), builderEvery: this.builder.everyOf(p.address) }
            : {}),
          subscribers: counts?.subscribers ?? 0,
          ...(p.role === "provider" ? { receivers: counts?.receivers ?? 0 } : {}),
        };
      }),
    );
  }

  private readonly responders: ProviderAgent[] = [];
  /** Whether running provider nodes get a built-in application: `--auto-accept`, then `POST /sim/v1/responders`. */
  private respondersOn = false;

  /** `--auto-accept`: a built-in provider application (accept all) on every provider node, over its own API. */
  async attachResponders(): Promise<void> {
    this.respondersOn = true;
    for (const p of this.providers) if (p.listening) await this.attachResponder(p);
  }

  /**
   * Detaches (or attaches again) the built-in accept-all applications, so that another provider application (the
   * conformance suite's) is the only one reading a provider's bids. Node processes attach their own (`--role
   * --auto-accept`), which cannot be detached from here.
   */
  async setResponders(attached: boolean): Promise<BuiltInApplications> {
    if (!this.hasNodes) throw new NoNodesError("no built-in provider applications");
    if (this.procs) {
      if (this.config.autoAccept !== attached)
        throw new FailedPreconditionError(
          `the devnet's node processes ${this.config.autoAccept ? "attach their own built-in applications" : "run without built-in applications"} (--auto-accept is fixed at their start): start the devnet with${attached ? "" : "out"} --no-auto-accept`,
        );
      return this.builtInApplications();
    }
    if (attached && !this.respondersOn) {
      this.respondersOn = true;
      for (const p of this.providers)
        if (p.listening && !this.responders.some((r) => r.providerUrl === p.url)) await this.attachResponder(p);
    } else if (!attached && this.respondersOn) {
      this.respondersOn = false;
      await Promise.all(this.responders.splice(0).map((r) => r.stop()));
    }
    return this.builtInApplications();
  }

  /** Whether the built-in applications are attached, and how many (/sim/v1/status). */
  builtInApplications(): BuiltInApplications {
    if (this.procs)
      return {
        attached: this.config.autoAccept,
        count: this.config.autoAccept ? this.procs.providers.filter((p) => p.running).length : 0,
        detachable: false,
      };
    return { attached: this.respondersOn, count: this.responders.length, detachable: this.hasNodes };
  }

  private async attachResponder(p: ProviderNode): Promise<void> {
    const agent = new ProviderAgent(p.url, acceptAll(), {
      idleTimeoutMs: this.config.responderIdleTimeoutMs,
      decisions: "stream",
      log: agentLog(logger(`responder-${p.options.index}`)),
    });
    await agent.start();
    this.responders.push(agent);
  }

  /** The built-in provider applications (`--auto-accept`), one per running provider node. */
  get responderAgents(): readonly ProviderAgent[] {
    return this.responders;
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
   * Each bid's outcome at every provider, as the devnet's bidders tell it (`/sim/v1/bids`): the in-process ones
   * directly, a bidder process through its admin API's bid-event stream.
   */
  bidOutcomes: BidOutcomes | undefined;
  /** The explorer page's sources and live stream (`/explorer/` on the control port). */
  explorer: ExplorerHub | undefined;

  get explorerUrl(): string {
    return `${this.controlUrl}/explorer/`;
  }

  async listenControl(): Promise<void> {
    let app = simApi(this);
    app = app.use(
      bidsApi(
        this.bidOutcomes,
        "the devnet runs no nodes of its own (--no-nodes): per-bid outcomes are recorded only for its own bidder",
      ),
    );
    app = app.use(networkFaultsApi(this.netFaults, NO_NET_FAULTS));
    if (this.explorer) app = app.use(explorerPage(this.explorer));
    this.controlServed = serve(app, this.config.host, this.config.controlPort, "control API");
  }

  /** Serves the beacon API of the simulated beacon schedule (what other nodes' validator services call). */
  listenBeacon(source: BeaconSource): void {
    this.beaconServed = serve(beaconApi(source), this.config.host, this.config.beaconPort, "beacon API");
  }

  /**
   * Stops everything this devnet started; safe to call more than once. Bounded: a part that does not stop within
   * its deadline is logged by name and left behind, so the chains are always stopped last and a stop never hangs.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const end = Date.now() + STOP_BEFORE_CHAINS_MS;
      const step = (what: string, work: () => unknown) =>
        shutdownStep(what, Math.max(100, end - Date.now()), work, (m) => log.warn(m));
      this.driver.stopInterval();
      await step("the L1 block driver", () => this.driver.drain());
      this.explorer?.stop();
      await step("the control API", () => this.controlServed?.stop());
      await step("the beacon API", () => this.beaconServed?.stop());
      await step("the provider applications", () => Promise.allSettled(this.responders.map((r) => r.stop())));
      await step("the nodes", () =>
        Promise.allSettled([...this.bidders.map((b) => b.stop()), ...this.providers.map((p) => p.stop())]),
      );
      await step("the node processes", () =>
        Promise.allSettled([this.procs?.bidder, ...(this.procs?.providers ?? [])].map((p) => p?.stop(4_000))),
      );
      await step("the network between nodes", () => Promise.all([this.networks?.stop(), this.procs?.bootnode.stop()]));
      this.directory.stop();
      this.oracleEvents.stop();
      await step("the oracle's settlements", () => this.settler.drain());
      this.oracleStore.close();
      const chains = () => Promise.allSettled([this.chains.l1.stop(), this.chains.settlement.stop()]);
      await shutdownStep("the chains", STOP_CHAINS_MS, chains, (m) => log.warn(m));
      await stopAllAnvils();
      for (const p of [this.procs?.bidder, ...(this.procs?.providers ?? [])]) p?.close();
      this.netFaults?.removeAll();
      const hosts = this.procs?.hosts ?? this.netFaults?.hosts;
      hosts?.tearDown();
      if (hosts) rmSync(netnsTagFile(this.dir), { force: true });
      this.lock?.release();
    })();
    return this.stopping;
  }
}

const NO_NET_FAULTS = "network faults need --network netns (each node on a host of its own)";

/** Where a netns devnet notes its network's tag, so that the next start on the data dir removes what a kill left. */
function netnsTagFile(dir: DataDir): string {
  return join(dir.pidDir, "netns-tag");
}

function readNetnsTag(dir: DataDir): string | undefined {
  const file = netnsTagFile(dir);
  return existsSync(file) ? readFileSync(file, "utf8").trim() || undefined : undefined;
}

function writeNetnsTag(dir: DataDir, tag: string): void {
  mkdirSync(dir.pidDir, { recursive: true });
  writeFileSync(netnsTagFile(dir), `${tag}\n`);
}

/** Starts a whole devnet from a config; on failure everything started so far is stopped again. */
export async function startDevnet(cfg: DevnetConfig): Promise<Devnet> {
  const dir = new DataDir(cfg.dataDir);
  const why = cfg.network === "netns" ? cannotMakeHosts() : undefined;
  if (why) throw new NetnsUnavailableError(why);
  // Before anything changes: a devnet running on this data dir, or a busy port, stops this start here.
  const lock = await claimDataDir(cfg, dir, cfg.network !== "netns");
  const t0 = performance.now();
  // With --no-nodes a netns devnet only makes hosts (--foreign-hosts) for another implementation's nodes.
  const asProcesses = cfg.nodes && (cfg.network === "processes" || cfg.network === "netns");
  let hosts: NetnsHosts<string> | undefined;
  let netFaults: NetFaults | undefined;
  let bootnode: Libp2pNetwork | undefined;
  const spawned: NodeProcess[] = [];
  if (cfg.network === "netns") {
    hosts = new NetnsHosts(netnsHostNames(cfg.nodes ? cfg.providers : 0, cfg.foreignHosts));
    try {
      // A run of this data dir, or any other run, that was killed left its namespaces, with their fault rules and
      // qdiscs, behind.
      const left = readNetnsTag(dir);
      const gone = [...(left ? removeNetwork(left) : []), ...removeOrphanNetworks()];
      if (gone.length) log.info("removed the network namespaces a killed run left", { namespaces: gone.join(", ") });
      hosts.setUp();
      // What the kernel offers is known now: a --fault it cannot make stops the start before anything else runs.
      netFaults = new NetFaults(hosts);
      for (const f of cfg.faults ?? []) {
        const why = netFaults.unavailableFor(f);
        if (why) throw new ConfigError(`--fault ${JSON.stringify(f)}: ${why}`);
      }
    } catch (e) {
      hosts.tearDown();
      lock.release();
      throw e;
    }
    // The chains, the control and beacon APIs and the bootnode listen on this namespace's side of the bridge.
    cfg = { ...cfg, host: hosts.rootIp };
    log.info("network namespaces made", {
      hosts: hosts.hosts.map((h) => `${h} ${hosts!.ipOf(h)} (${hosts!.namespace(h)})`).join(", "),
      devnet: hosts.rootIp,
    });
  }
  try {
    if (cfg.fresh) dir.wipe();
    dir.ensure();
    if (hosts) writeNetnsTag(dir, hosts.tag);
    // The last run's target file names nodes that are not up yet: it comes back once this run is ready.
    rmSync(dir.targetFile, { force: true });
    const chains = await startChains(cfg, dir);
    log.info("chains up", {
      l1: chains.l1.rpcUrl,
      settlement: chains.settlement.rpcUrl,
      ms: Math.round(performance.now() - t0),
    });
    const owner = devAccount(ROLES.deployer);
    const oracleAccount = devAccount(ROLES.oracle);
    const providerAccounts = cfg.nodes
      ? Array.from({ length: cfg.providers }, (_, i) => devAccount(ROLES.firstProvider + i))
      : [];
    const { addresses, reused } = await ensureContracts(
      chains.settlement,
      dir,
      owner.privateKey,
      oracleAccount.address,
      {
        commitmentDispatchWindow: BigInt(cfg.dispatchWindowMs),
        bidderWithdrawalPeriodMs: BigInt(cfg.bidderWithdrawalPeriodMs),
      },
      cfg.rules,
    );
    if (reused) log.info("contracts reused from the data dir", { preconfManager: addresses.preconfManager });
    await installBlsVerifierStandIn(chains.settlement);
    await ensureProvidersRegistered(
      chains.settlement,
      addresses,
      owner.privateKey,
      providerAccounts,
      cfg.providerStake,
    );
    // v1.2 has no window auto-deposit: the devnet's bidders deposit with each provider instead.
    if (cfg.rules.deposits === "provider" && cfg.nodes && cfg.autodepositAmount !== undefined)
      for (const j of Array.from({ length: cfg.bidders }, (_, i) => i))
        await ensureBidderDepositsV12(
          chains.settlement,
          addresses.bidderRegistry,
          devAccount(j === 0 ? ROLES.bidder : bidderAccountIndex(j)).privateKey,
          providerAccounts.map((a) => a.address),
          cfg.autodepositAmount,
        );

    await initCrypto();
    // With --no-nodes the user's nodes bring their own network (and bootnode); node processes have their own peers.
    const isStaked = providerStakeCheck(
      createPublicClient({ transport: localHttp(chains.settlement.rpcUrl) }),
      addresses.providerRegistry,
    );
    if (asProcesses) {
      bootnode = new Libp2pNetwork({
        nodeKey: devAccount(ROLES.bootnode).privateKey,
        peerType: "bootnode",
        listen: [`/ip4/${cfg.host}/tcp/${cfg.bootnodePort}`],
        isStaked,
        rules: cfg.rules,
      });
      await bootnode.start();
    }
    const networks =
      !cfg.nodes || asProcesses
        ? undefined
        : await devnetNetworks({
            kind: cfg.network === "in-process" ? "in-process" : "libp2p",
            host: cfg.host,
            bootnodeKey: devAccount(ROLES.bootnode).privateKey,
            bootnodePort: cfg.bootnodePort,
            bidderKey: devAccount(ROLES.bidder).privateKey,
            bidderPort: cfg.bidderP2pPort,
            providerKeys: providerAccounts.map((a) => a.privateKey),
            providerPorts: cfg.providerP2pPorts,
            isStaked,
            rules: cfg.rules,
          });
    const registry = await ensureValidatorRegistry(
      chains.l1,
      dir,
      { owner: owner.privateKey, deployer: devAccount(ROLES.l1Deployer).privateKey },
      Object.values(addresses),
    );
    const audience: { notifier: Notifier }[] = [];
    const validators = new ValidatorService({
      chain: new L1ValidatorChain({ rpcUrl: chains.l1.rpcUrl, registry: registry.address }),
      slotSeconds: cfg.l1BlockTime > 0 ? cfg.l1BlockTime : undefined,
      publish: (topic, value) => {
        for (const n of audience) n.notifier.publish(topic, value);
      },
    });
    if (registry.fresh)
      // Every 4th validator of the schedule starts opted in, so opt-in events happen on a fresh devnet.
      await optInValidators({
        rpcUrl: chains.l1.rpcUrl,
        registry: registry.address,
        privateKey: devAccount(ROLES.validatorOptIn).privateKey,
        keys: validators.schedule.validators.filter((_, i) => i % 4 === 0),
        wait: false,
      });
    const settlementChain = localChain(chains.settlement.chainId, chains.settlement.rpcUrl, "settlement");
    const bidOutcomes = cfg.nodes ? new BidOutcomes() : undefined;
    const bidder =
      !cfg.nodes || asProcesses
        ? undefined
        : new BidderNode({
            privateKey: devAccount(ROLES.bidder).privateKey,
            settlementChain,
            contracts: addresses,
            rules: cfg.rules,
            storePath: dir.store("bidder"),
            bidTimeoutMs: cfg.bidTimeoutMs,
            network: networks!.bidder,
            validators,
            streamKeepAliveMs: cfg.streamKeepAliveMs,
            cryptoWorkers: cfg.cryptoWorkers,
            outcomes: bidOutcomes,
          });
    // Extra bidder nodes share the in-process network (over libp2p each node would need a peer of its own).
    if (cfg.bidders > 1 && (!bidder || cfg.network !== "in-process"))
      throw new ConfigError(`${cfg.bidders} bidder nodes need the nodes and the in-process network`);
    const extraBidders = Array.from(
      { length: cfg.bidders - 1 },
      (_, j) =>
        new BidderNode({
          privateKey: devAccount(bidderAccountIndex(j + 1)).privateKey,
          settlementChain,
          contracts: addresses,
          rules: cfg.rules,
          storePath: dir.store(`bidder-${j + 1}`),
          bidTimeoutMs: cfg.bidTimeoutMs,
          network: networks!.bidder,
          validators,
          streamKeepAliveMs: cfg.streamKeepAliveMs,
          cryptoWorkers: cfg.cryptoWorkers,
          outcomes: bidOutcomes,
        }),
    );
    const providers = (asProcesses ? [] : providerAccounts).map(
      (acc, index) =>
        new ProviderNode({
          index,
          privateKey: acc.privateKey,
          settlementChain,
          contracts: addresses,
          rules: cfg.rules,
          storePath: dir.store(`provider-${index}`),
          decisionTimeoutMs: cfg.decisionTimeoutMs,
          network: networks!.providers[index]!,
          validators,
          streamKeepAliveMs: cfg.streamKeepAliveMs,
          cryptoWorkers: cfg.cryptoWorkers,
        }),
    );

    const driver = new L1BlockDriver(chains.l1.rpcUrl, []);
    driver.minIntervalMs = cfg.minBlockIntervalMs ?? (cfg.nodes ? 0 : FOREIGN_MIN_BLOCK_INTERVAL_MS);
    const oracleStore = new NodeStore(dir.store("oracle"));
    // The explorer's bid list lives with the oracle's records, so a restart shows the bids sent before it.
    bidOutcomes?.keepIn(oracleStore);
    const oracleEvents = protocolEventPoller(
      createPublicClient({ transport: localHttp(chains.settlement.rpcUrl) }),
      addresses,
      oracleStore,
      "oracle.events.cursor",
      50,
      cfg.rules,
    );
    const directory = new ProviderDirectory({
      owner: chainClients(settlementChain, owner.privateKey),
      providerRegistry: addresses.providerRegistry,
      events: oracleEvents,
      store: oracleStore,
      onChange: (list) => driver.schedule.setProviders(list),
    });
    const oracle = new WinnerRecorder({
      settlement: chainClients(settlementChain, oracleAccount.privateKey),
      l1: createPublicClient({ transport: localHttp(chains.l1.rpcUrl) }),
      blockTracker: addresses.blockTracker,
      store: oracleStore,
      lag: cfg.oracleLag,
      firstBlock: (
        await createPublicClient({ transport: localHttp(chains.l1.rpcUrl) }).getBlock({ blockTag: "earliest" })
      ).number,
      builderKeyOf: (coinbase) => directory.builderKeyOf(coinbase),
    });
    driver.onAfterMine(oracle.onBlock);
    audience.push(...(bidder ? [bidder] : []), ...extraBidders, ...providers);
    driver.onAfterMine(validators.onL1Block);
    const settler = new Settler({
      settlement: chainClients(settlementChain, oracleAccount.privateKey),
      l1: createPublicClient({ transport: localHttp(chains.l1.rpcUrl) }),
      blockTracker: addresses.blockTracker,
      preconfManager: addresses.preconfManager,
      oracle: addresses.oracle,
      events: oracleEvents,
      store: oracleStore,
      rules: cfg.rules,
      bidOptionsSlash: cfg.bidOptionsSlash,
      delayMs: cfg.settleDelayMs ?? (cfg.nodes ? 0 : FOREIGN_SETTLE_DELAY_MS),
    });
    const bundles = new BundleBook();
    const liveness = new ProviderLiveness({
      blocks: cfg.providerLivenessBlocks,
      nodeOf: (address) =>
        [...providers, ...spawned.filter((p) => p.role === "provider")].find(
          (p) => p.address.toLowerCase() === address.toLowerCase(),
        )?.name,
    });
    driver.schedule.setEligible((p) => liveness.isLive(p));
    driver.onAfterMine(async (b) => liveness.onBlock(b.number, directory.schedule()));
    const builder = new Builder(
      createPublicClient({ transport: localHttp(chains.l1.rpcUrl) }),
      chains.l1.rpcUrl,
      () => [
        ...providers.filter((p) => p.listening),
        ...spawned.filter((p) => p.role === "provider" && p.running),
        ...bundles.sources(),
      ],
      devAccount(ROLES.l1Filler).privateKey,
    );
    driver.onBeforeMine(builder.beforeMine);
    driver.onAfterMine(async (b) => bundles.forget(b.number));

    const devnet = new Devnet(
      cfg,
      dir,
      chains,
      addresses,
      bidder,
      providers,
      driver,
      oracle,
      oracleStore,
      oracleEvents,
      settler,
      builder,
      directory,
      bundles,
      liveness,
    );
    devnet.validatorRegistry = registry.address;
    devnet.networks = networks;
    devnet.extraBidders = extraBidders;
    devnet.validatorAudience = audience;
    devnet.bidOutcomes = bidOutcomes;
    devnet.explorer = devnetExplorer({
      events: oracleEvents,
      bids: bidOutcomes,
      notifier: () => devnet.bidders[0]?.notifier,
      bidderProcessUrl: () => devnet.procs?.bidder.url ?? undefined,
      info: async () => ({ ...(await devnet.status()) }),
    });
    await directory.start();
    devnet.rpcTls =
      cfg.rpcTlsCert && cfg.rpcTlsKey
        ? readTlsFiles(cfg.rpcTlsCert, cfg.rpcTlsKey)
        : cfg.rpcTls
          ? await devnetCertificate(dir.rpcTlsCert, dir.rpcTlsKey, cfg.host)
          : undefined;
    const windowDeposits = cfg.rules.deposits === "window";
    if (bidder && windowDeposits && cfg.autodepositFromFlag)
      bidder.windowDeposits.auto.replaceSaved(cfg.autodepositAmount);
    await bidder?.start({
      host: cfg.host,
      httpPort: cfg.bidderPort,
      rpcPort: cfg.bidderRpcPort,
      rpcTls: devnet.rpcTls,
      readiness: devnet.readiness,
    });
    for (const [j, b] of extraBidders.entries())
      await b.start({
        host: cfg.host,
        httpPort: extraBidderPort(cfg.bidderPort, j),
        rpcPort: extraBidderPort(cfg.bidderRpcPort, j),
        rpcTls: devnet.rpcTls,
        readiness: devnet.readiness,
      });
    if (bidder && windowDeposits && cfg.autodepositAmount !== undefined && !bidder.windowDeposits.auto.running) {
      const next = (await driver.blockNumber()) + 1n;
      await bidder.windowDeposits.startAutoDeposit(cfg.autodepositAmount, { windowNumber: windowOfBlock(next) });
    }
    for (const [i, p] of providers.entries()) await p.start(devnet.providerListen(i));
    await networks?.settle(providers.map(() => true));
    if (asProcesses) {
      devnet.procs = await startNodeProcesses(
        cfg,
        dir,
        {
          contracts: addresses,
          l1RpcUrl: chains.l1.rpcUrl,
          settlementRpcUrl: chains.settlement.rpcUrl,
          router: registry.address,
        },
        bootnode!,
        providerAccounts.map((a) => a.privateKey),
        hosts,
        isStaked,
        spawned,
        bidOutcomes,
      );
      await devnet.settle();
      log.info("node processes meet over libp2p", {
        bootnode: bootnode!.multiaddrs().join(","),
        nodes: spawned.map((p) => `${p.name} pid ${p.pid} ${p.url}`).join(", "),
      });
    }
    if (hosts) {
      devnet.netFaults = netFaults!;
      devnet.netFaults.placeSettlement(chains.settlement.rpcUrl);
      for (const p of spawned)
        if (p.spec.netns && p.url && p.rpcUrl)
          devnet.netFaults.placeClients(p.spec.netns.host, [
            Number(new URL(p.url).port),
            Number(new URL(p.rpcUrl).port),
          ]);
      for (const f of cfg.faults ?? []) devnet.netFaults.set(f);
      log.info("network faults", {
        ...devnet.netFaults.available(),
        set: (cfg.faults ?? []).map((f) => JSON.stringify(f)).join(" ") || "none",
      });
    }
    if (networks && cfg.network === "libp2p")
      log.info("nodes meet over libp2p", { bootnode: networks.bootnodeAddrs().join(",") });
    await devnet.listenControl();
    devnet.listenBeacon(validators);
    if (cfg.nodes && cfg.autoAccept) await devnet.attachResponders();
    // A restart resumes recording where the oracle stopped (or where the chains' history now ends).
    await oracle.reconcile();
    await oracle.catchUp(await driver.blockNumber());
    await settler.reconcile();
    await oracleEvents.start();
    await validators.start();
    dir.writeJson(dir.targetFile, devnet.targetFile());
    devnet.ready = true;
    devnet.lock = lock;
    lock.update({
      dataDir: cfg.dataDir,
      bidderUrl: devnet.hasNodes ? devnet.nodeEndpoints().bidder.url : undefined,
      controlUrl: devnet.controlUrl,
    });
    driver.startInterval(cfg.l1BlockTime);
    log.info("devnet ready", { ms: Math.round(performance.now() - t0) });
    return devnet;
  } catch (e) {
    await Promise.allSettled(spawned.map((p) => p.stop(4_000)));
    await bootnode?.stop().catch(() => {});
    await stopAllAnvils();
    hosts?.tearDown();
    if (hosts) rmSync(netnsTagFile(dir), { force: true });
    lock.release();
    throw e;
  }
}

/**
 * Spawns the bidder and provider nodes as `--role` processes (on their namespace hosts with netns), pushing each
 * into `spawned` as it starts (so that a failed start stops the others), and resolves once all of them serve.
 */
async function startNodeProcesses(
  cfg: DevnetConfig,
  dir: DataDir,
  chains: { contracts: ProtocolContractAddresses; l1RpcUrl: string; settlementRpcUrl: string; router: Address },
  bootnode: Libp2pNetwork,
  providerKeys: `0x${string}`[],
  hosts: NetnsHosts<string> | undefined,
  isStaked: (provider: Address) => Promise<boolean>,
  spawned: NodeProcess[],
  bidOutcomes: BidOutcomes | undefined,
): Promise<NodeProcesses> {
  const root = join(dir.root, "nodes");
  // What a --role node reads with --contracts: the addresses, the RPC URLs and the validator opt-in router.
  const contractsFile = join(root, "contracts.json");
  mkdirSync(root, { recursive: true });
  dir.writeJson(contractsFile, {
    ...chains.contracts,
    protocol: cfg.rules.version,
    settlementRpcUrl: chains.settlementRpcUrl,
    l1RpcUrl: chains.l1RpcUrl,
    validatorOptInRouter: chains.router,
  });
  /** The admin API sits two ports above the HTTP API (13525, 13625, …), or on any free port. */
  const admin = (http: number) => (http === 0 ? 0 : http + 2);
  const common = [
    "--protocol",
    cfg.rules.version,
    "--log-level",
    cfg.logLevel,
    "--stream-keepalive",
    String(cfg.streamKeepAliveMs),
    "--crypto-workers",
    String(cfg.cryptoWorkers),
    "--ready-file",
    dir.targetFile,
    ...(cfg.responderIdleTimeoutMs === undefined
      ? []
      : ["--responder-idle-timeout", String(cfg.responderIdleTimeoutMs)]),
  ];
  const make = (
    name: string,
    role: "bidder" | "provider",
    key: `0x${string}`,
    ports: { http: number; rpc: number; p2p: number },
    args: string[],
    firstStartArgs: string[] = [],
  ) =>
    new NodeProcess({
      name,
      role,
      key,
      bindAddr: hosts ? hosts.ipOf(name) : cfg.host,
      ports: { ...ports, admin: admin(ports.http) },
      contractsFile,
      bootnodes: bootnode.multiaddrs(),
      dataDir: join(root, name),
      args: [...common, ...args],
      firstStartArgs,
      netns: hosts && { hosts, host: name },
      logFile: join(root, `${name}.log`),
      // The bidder streams what became of each bid: the devnet's explorer records it as for an in-process bidder.
      onBidEvent: role === "bidder" && bidOutcomes ? (e) => bidOutcomes.apply(e) : undefined,
    });
  const bidder = make(
    "bidder",
    "bidder",
    devAccount(ROLES.bidder).privateKey,
    { http: cfg.bidderPort, rpc: cfg.bidderRpcPort, p2p: cfg.bidderP2pPort },
    ["--bid-timeout", String(cfg.bidTimeoutMs)],
    [
      // v1.2 has no window auto-deposit: the devnet deposited with each provider before the node started. From the
      // current window, as the in-process bidder does, so the first bids find a deposit. Only at the first start: a
      // bidder killed through the control API comes back with what its store saved (a cancel stays cancelled). As
      // for the in-process bidder, the amount replaces a saved setting only when a flag gave it.
      ...(cfg.rules.deposits !== "window"
        ? []
        : cfg.autodepositAmount !== undefined
          ? [
              "--autodeposit-amount",
              cfg.autodepositAmount.toString(),
              "--autodeposit-current-window",
              ...(cfg.autodepositFromFlag ? [] : ["--autodeposit-keep-saved"]),
            ]
          : cfg.autodepositFromFlag
            ? ["--no-autodeposit"]
            : []),
    ],
  );
  const providers = providerKeys.map((key, i) =>
    make(
      `provider-${i}`,
      "provider",
      key,
      { http: cfg.providerPorts[i] ?? 0, rpc: cfg.providerRpcPorts[i] ?? 0, p2p: cfg.providerP2pPorts[i] ?? 0 },
      ["--decision-timeout", String(cfg.decisionTimeoutMs), ...(cfg.autoAccept ? ["--auto-accept"] : [])],
    ),
  );
  spawned.push(bidder, ...providers);
  await Promise.all(spawned.map((p) => p.start()));
  return { bidder, providers, bootnode, hosts, isStaked };
}
