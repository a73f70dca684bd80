import { createPublicClient, http, type Address, type PublicClient } from "viem";
import { bidderAccountIndex, devAccount, ROLES } from "../chain/accounts.ts";
import type { ContractAddresses } from "../chain/deploy.ts";
import { chainClients, localChain, localHttp, nonceManagerFor } from "../chain/clients.ts";
import type { EventPoller } from "../chain/eventPoller.ts";
import { protocolEventPoller } from "../chain/protocolEvents.ts";
import { blockTrackerAbi } from "../chain/contracts.ts";
import { Settler } from "../oracle/settler.ts";
import { Builder, type BuilderMode } from "../l1/builder.ts";
import { BundleBook, type PostedBundle } from "../l1/bundleBook.ts";
import { ProviderDirectory } from "../l1/providerDirectory.ts";
import { stopAllAnvils } from "../chain/anvil.ts";
import { L1BlockDriver } from "../l1/blockDriver.ts";
import { WinnerRecorder } from "../oracle/winnerRecorder.ts";
import { NodeStore } from "../store/db.ts";
import { BidderNode } from "../bidder/bidderNode.ts";
import { ProviderNode } from "../provider/providerNode.ts";
import { simApi, type DevnetStatus, type KilledNode, type SimControl } from "../control/simApi.ts";
import { SerialQueue } from "../util/serial.ts";
import { serve, type Served } from "../api/serve.ts";
import { logger } from "../util/log.ts";
import { shutdownStep } from "../util/deadline.ts";
import { ConfigError, FOREIGN_MIN_BLOCK_INTERVAL_MS, FOREIGN_SETTLE_DELAY_MS, type DevnetConfig } from "./config.ts";
import { DataDir } from "./dataDir.ts";
import { startChains, type ChainEndpoint } from "./chains.ts";
import { ensureContracts, ensureProvidersRegistered, ensureValidatorRegistry, installBlsVerifierStandIn } from "./contractsSetup.ts";
import { ValidatorService } from "../validators/validatorService.ts";
import { beaconApi, type BeaconSource } from "../validators/beaconApi.ts";
import { L1ValidatorChain, optInValidators } from "../validators/optInRegistry.ts";
import type { Notifier } from "../notify/notifier.ts";
import { targetOf, type DevnetTarget, type Target } from "./target.ts";
import type { NodeListen } from "../server/nodeServer.ts";
import { devnetCertificate, readTlsFiles, type TlsFiles } from "../grpc/tls.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { FailedPreconditionError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import { devnetNetworks, type DevnetNetworks } from "../network/devnetNetworks.ts";
import { providerStakeCheck } from "../p2p/stakeCheck.ts";
import { agentLog, ProviderAgent } from "../../scenarios/agents/providerAgent.ts";
import { acceptAll } from "../../scenarios/agents/policies.ts";

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
  override name = "NoNodesError";
  constructor(what: string) {
    super(`${what}: the devnet runs no nodes of its own (--no-nodes)`);
  }
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
    readonly contracts: ContractAddresses,
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
  ) {
    this.l1Client = createPublicClient({ transport: http(chains.l1.rpcUrl) });
    this.settlementClient = createPublicClient({ transport: http(chains.settlement.rpcUrl) });
  }

  /** false with --no-nodes: chains, contracts, driver, oracle, beacon and control API only. */
  get hasNodes(): boolean {
    return this.bidderNode !== undefined;
  }

  /** The devnet's bidder node (NoNodesError with --no-nodes). */
  get bidder(): BidderNode {
    if (!this.bidderNode) throw new NoNodesError("no bidder node");
    return this.bidderNode;
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

  async setBuilderMode(provider: Address, mode: BuilderMode, every = 1): Promise<void> {
    await this.registeredProvider(provider);
    this.builder.setMode(provider, mode, every);
  }

  /** Keeps a provider application's bundle for a future block; the builder includes it if the provider wins it. */
  async postBundle(bundle: PostedBundle): Promise<void> {
    await this.registeredProvider(bundle.provider);
    this.bundles.post(bundle, await this.driver.blockNumber());
  }

  /** A provider registered on-chain (by anyone), or InvalidArgument. */
  private async registeredProvider(address: Address): Promise<void> {
    if (this.directory.has(address)) return;
    await this.directory.sync();
    if (!this.directory.has(address)) throw new InvalidArgumentError(`no provider registered in ProviderRegistry with address ${address}`);
  }

  private readonly providerPorts = new Map<number, { http: number; rpc: number }>();
  /** The gRPC listeners' certificate, with --rpc-tls. */
  rpcTls: TlsFiles | undefined;

  /** Where provider i listens: the ports it had before a stop, else the configured ones. */
  providerListen(index: number): NodeListen {
    const kept = this.providerPorts.get(index);
    const c = this.config;
    return { host: c.host, httpPort: kept?.http ?? c.providerPorts[index] ?? 0, rpcPort: kept?.rpc ?? c.providerRpcPorts[index] ?? 0, rpcTls: this.rpcTls };
  }

  /** Stops a provider node (it leaves the network: peer_disconnected); its state stays in its store. */
  async stopProvider(index: number): Promise<void> {
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
    const p = this.providerAt(index);
    if (p.listening) throw new FailedPreconditionError(`provider ${index} is already running`);
    await p.start(this.providerListen(index));
    await this.networks?.settle(this.providers.map((x) => x.listening));
    if (this.config.autoAccept) await this.attachResponder(p);
  }

  private providerAt(index: number): ProviderNode {
    if (!this.hasNodes) throw new NoNodesError(`no provider node ${index}`);
    const p = this.providers[index];
    if (!p) throw new InvalidArgumentError(`no provider ${index}: the devnet has providers 0 to ${this.providers.length - 1}`);
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
  killNode(name: string): Promise<KilledNode> {
    return this.kills.run(async () => {
      if (!this.hasNodes) throw new NoNodesError(`no node ${name}`);
      const t0 = performance.now();
      const bidderAt = name === "bidder" ? 0 : /^bidder-([1-9]\d*)$/.exec(name) ? Number(name.slice(7)) : undefined;
      const providerAt = /^provider-(\d+)$/.exec(name) ? Number(name.slice(9)) : undefined;
      let down: number;
      let url: string;
      if (bidderAt !== undefined && bidderAt < this.bidders.length) {
        const old = this.bidders[bidderAt]!;
        const ports = old.listenPorts!;
        await old.kill();
        this.forgetNonces(old.address);
        down = performance.now() - t0;
        const fresh = new BidderNode({ ...old.options, network: bidderAt === 0 ? this.networks!.renew({ role: "bidder" }) : old.options.network });
        if (bidderAt === 0) this.bidderNode = fresh;
        else this.extraBidders[bidderAt - 1] = fresh;
        this.replaceAudience(old, fresh);
        url = await fresh.start({ host: this.config.host, ...ports, rpcTls: this.rpcTls });
      } else if (providerAt !== undefined && providerAt < this.providers.length) {
        const old = this.providers[providerAt]!;
        if (!old.listening) throw new FailedPreconditionError(`${name} is not running (start it first: POST /sim/v1/providers/${providerAt}/start)`);
        this.providerPorts.set(providerAt, { http: Number(new URL(old.url).port), rpc: Number(new URL(old.rpcUrl).port) });
        await old.kill();
        this.forgetNonces(old.address);
        down = performance.now() - t0;
        const fresh = new ProviderNode({ ...old.options, network: this.networks!.renew({ role: "provider", index: providerAt }) });
        this.providers[providerAt] = fresh;
        this.replaceAudience(old, fresh);
        url = await fresh.start(this.providerListen(providerAt));
      } else {
        const names = [...this.bidders.map((_, i) => (i === 0 ? "bidder" : `bidder-${i}`)), ...this.providers.map((p) => p.name)];
        throw new InvalidArgumentError(`no node named ${JSON.stringify(name)}: the devnet's nodes are ${names.join(", ")}`);
      }
      await this.networks?.settle(this.providers.map((x) => x.listening));
      const killed = { name, url, downMs: Math.round(down), restartMs: Math.round(performance.now() - t0 - down) };
      log.info("node killed and restarted on its store", killed);
      return killed;
    });
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
  injectFault(node: string, fault: "store" | "open" | "none"): void {
    if (node === "bidder") {
      if (fault === "store") throw new InvalidArgumentError("the bidder node sends no store transactions; fault must be open or none");
      this.bidder.tracker.failNextOpen = fault === "open";
      return;
    }
    const p = this.providerByAddress(node as Address);
    if (!p.storer || !p.tracker) throw new FailedPreconditionError(`provider ${node} is not running`);
    p.storer.failNext = fault === "store" || (fault !== "none" && p.storer.failNext);
    p.tracker.failNextOpen = fault === "open" || (fault !== "none" && p.tracker.failNextOpen);
  }

  private providerByAddress(address: Address): ProviderNode {
    if (!this.hasNodes) throw new NoNodesError(`no provider node ${address}`);
    const p = this.providers.find((x) => x.address.toLowerCase() === address.toLowerCase());
    if (!p) throw new InvalidArgumentError(`no provider node with address ${address}`);
    return p;
  }

  async status(): Promise<DevnetStatus> {
    const [l1Block, settlementBlock, currentWindow] = await Promise.all([
      this.l1Client.getBlockNumber({ cacheTime: 0 }),
      this.settlementClient.getBlockNumber({ cacheTime: 0 }),
      this.settlementClient.readContract({ address: this.contracts.blockTracker, abi: blockTrackerAbi, functionName: "getCurrentWindow" }),
    ]);
    return {
      l1: { rpcUrl: this.chains.l1.rpcUrl, chainId: this.chains.l1.chainId, blockNumber: l1Block.toString() },
      settlement: { rpcUrl: this.chains.settlement.rpcUrl, chainId: this.chains.settlement.chainId, blockNumber: settlementBlock.toString() },
      currentWindow: currentWindow.toString(),
      lastRecordedBlock: this.oracle.lastRecorded().toString(),
      nextWinner: this.driver.schedule.peek() ?? null,
      settledCommitments: this.settler.settledCount,
      contracts: { ...this.contracts },
      validatorOptInRouter: this.validatorRegistry ?? null,
      registeredProviders: this.directory.list().map((address) => ({
        address,
        builderKey: this.directory.builderKeyOf(address)!,
        builder: this.builder.modeOf(address),
        node: this.providers.find((p) => p.address.toLowerCase() === address.toLowerCase())?.name ?? null,
      })),
      postedBundles: this.bundles.size,
      nodes: [
        ...this.bidders.map((b, i) => ({
          name: i === 0 ? "bidder" : `bidder-${i}`,
          role: "bidder" as const,
          url: b.url,
          rpcUrl: b.rpcUrl,
          address: b.address,
          running: true,
          subscribers: b.notifier.subscriberCount,
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
          subscribers: p.notifier.subscriberCount,
          receivers: p.dispatcher.activeReceivers,
        })),
      ],
    };
  }

  private readonly responders: ProviderAgent[] = [];

  /** `--auto-accept`: a built-in provider application (accept all) on every provider node, over its own API. */
  async attachResponders(): Promise<void> {
    for (const p of this.providers) await this.attachResponder(p);
  }

  private async attachResponder(p: ProviderNode): Promise<void> {
    const agent = new ProviderAgent(p.url, acceptAll(), {
      idleTimeoutMs: this.config.responderIdleTimeoutMs,
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

  async listenControl(): Promise<void> {
    this.controlServed = serve(simApi(this), this.config.host, this.config.controlPort, "control API");
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
      const step = (what: string, work: () => unknown) => shutdownStep(what, Math.max(100, end - Date.now()), work, (m) => log.warn(m));
      this.driver.stopInterval();
      await step("the L1 block driver", () => this.driver.drain());
      await step("the control API", () => this.controlServed?.stop());
      await step("the beacon API", () => this.beaconServed?.stop());
      await step("the provider applications", () => Promise.allSettled(this.responders.map((r) => r.stop())));
      await step("the nodes", () => Promise.allSettled([...this.bidders.map((b) => b.stop()), ...this.providers.map((p) => p.stop())]));
      await step("the network between nodes", () => this.networks?.stop());
      this.directory.stop();
      this.oracleEvents.stop();
      await step("the oracle's settlements", () => this.settler.drain());
      this.oracleStore.close();
      const chains = () => Promise.allSettled([this.chains.l1.stop(), this.chains.settlement.stop()]);
      await shutdownStep("the chains", STOP_CHAINS_MS, chains, (m) => log.warn(m));
      await stopAllAnvils();
    })();
    return this.stopping;
  }
}

/** Starts a whole devnet from a config; on failure everything started so far is stopped again. */
export async function startDevnet(cfg: DevnetConfig): Promise<Devnet> {
  const dir = new DataDir(cfg.dataDir);
  if (cfg.fresh) dir.wipe();
  dir.ensure();
  const t0 = performance.now();
  try {
    const chains = await startChains(cfg, dir);
    log.info("chains up", { l1: chains.l1.rpcUrl, settlement: chains.settlement.rpcUrl, ms: Math.round(performance.now() - t0) });
    const owner = devAccount(ROLES.deployer);
    const oracleAccount = devAccount(ROLES.oracle);
    const providerAccounts = cfg.nodes ? Array.from({ length: cfg.providers }, (_, i) => devAccount(ROLES.firstProvider + i)) : [];
    const { addresses, reused } = await ensureContracts(chains.settlement, dir, owner.privateKey, oracleAccount.address, {
      commitmentDispatchWindow: BigInt(cfg.dispatchWindowMs),
    });
    if (reused) log.info("contracts reused from the data dir", { preconfManager: addresses.preconfManager });
    await installBlsVerifierStandIn(chains.settlement);
    await ensureProvidersRegistered(chains.settlement, addresses, owner.privateKey, providerAccounts, cfg.providerStake);

    await initCrypto();
    // With --no-nodes the user's nodes bring their own network (and bootnode).
    const networks = !cfg.nodes
      ? undefined
      : await devnetNetworks({
        kind: cfg.network,
        host: cfg.host,
        bootnodeKey: devAccount(ROLES.bootnode).privateKey,
        bootnodePort: cfg.bootnodePort,
        bidderKey: devAccount(ROLES.bidder).privateKey,
        bidderPort: cfg.bidderP2pPort,
        providerKeys: providerAccounts.map((a) => a.privateKey),
        providerPorts: cfg.providerP2pPorts,
        isStaked: providerStakeCheck(createPublicClient({ transport: localHttp(chains.settlement.rpcUrl) }), addresses.providerRegistry),
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
      publish: (topic, value) => audience.forEach((n) => n.notifier.publish(topic, value)),
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
    const bidder = !cfg.nodes
      ? undefined
      : new BidderNode({
      privateKey: devAccount(ROLES.bidder).privateKey,
      settlementChain,
      contracts: addresses,
      storePath: dir.store("bidder"),
      bidTimeoutMs: cfg.bidTimeoutMs,
          network: networks!.bidder,
          validators,
          streamKeepAliveMs: cfg.streamKeepAliveMs,
          cryptoWorkers: cfg.cryptoWorkers,
        });
    // Extra bidder nodes share the in-process network (over libp2p each node would need a peer of its own).
    if (cfg.bidders > 1 && (!bidder || cfg.network !== "in-process")) throw new ConfigError(`${cfg.bidders} bidder nodes need the nodes and the in-process network`);
    const extraBidders = Array.from(
      { length: cfg.bidders - 1 },
      (_, j) =>
        new BidderNode({
          privateKey: devAccount(bidderAccountIndex(j + 1)).privateKey,
          settlementChain,
          contracts: addresses,
          storePath: dir.store(`bidder-${j + 1}`),
          bidTimeoutMs: cfg.bidTimeoutMs,
          network: networks!.bidder,
          validators,
          streamKeepAliveMs: cfg.streamKeepAliveMs,
          cryptoWorkers: cfg.cryptoWorkers,
        }),
    );
    const providers = providerAccounts.map(
      (acc, index) =>
        new ProviderNode({
          index,
          privateKey: acc.privateKey,
          settlementChain,
          contracts: addresses,
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
    const oracleEvents = protocolEventPoller(createPublicClient({ transport: http(chains.settlement.rpcUrl) }), addresses, oracleStore, "oracle.events.cursor", 50);
    const directory = new ProviderDirectory({
      owner: chainClients(settlementChain, owner.privateKey),
      providerRegistry: addresses.providerRegistry,
      events: oracleEvents,
      store: oracleStore,
      onChange: (list) => driver.schedule.setProviders(list),
    });
    const oracle = new WinnerRecorder({
      settlement: chainClients(settlementChain, oracleAccount.privateKey),
      l1: createPublicClient({ transport: http(chains.l1.rpcUrl) }),
      blockTracker: addresses.blockTracker,
      store: oracleStore,
      lag: cfg.oracleLag,
      firstBlock: (await createPublicClient({ transport: http(chains.l1.rpcUrl) }).getBlock({ blockTag: "earliest" })).number,
      builderKeyOf: (coinbase) => directory.builderKeyOf(coinbase),
    });
    driver.onAfterMine(oracle.onBlock);
    audience.push(...(bidder ? [bidder] : []), ...extraBidders, ...providers);
    driver.onAfterMine(validators.onL1Block);
    const settler = new Settler({
      settlement: chainClients(settlementChain, oracleAccount.privateKey),
      l1: createPublicClient({ transport: http(chains.l1.rpcUrl) }),
      blockTracker: addresses.blockTracker,
      preconfManager: addresses.preconfManager,
      oracle: addresses.oracle,
      events: oracleEvents,
      store: oracleStore,
      delayMs: cfg.settleDelayMs ?? (cfg.nodes ? 0 : FOREIGN_SETTLE_DELAY_MS),
    });
    const bundles = new BundleBook();
    const builder = new Builder(
      createPublicClient({ transport: http(chains.l1.rpcUrl) }),
      chains.l1.rpcUrl,
      () => [...providers.filter((p) => p.listening), ...bundles.sources()],
      devAccount(ROLES.l1Filler).privateKey,
    );
    driver.onBeforeMine(builder.beforeMine);
    driver.onAfterMine(async (b) => bundles.forget(b.number));

    const devnet = new Devnet(cfg, dir, chains, addresses, bidder, providers, driver, oracle, oracleStore, oracleEvents, settler, builder, directory, bundles);
    devnet.validatorRegistry = registry.address;
    devnet.networks = networks;
    devnet.extraBidders = extraBidders;
    devnet.validatorAudience = audience;
    await directory.start();
    devnet.rpcTls = cfg.rpcTlsCert && cfg.rpcTlsKey ? readTlsFiles(cfg.rpcTlsCert, cfg.rpcTlsKey) : cfg.rpcTls ? await devnetCertificate(dir.rpcTlsCert, dir.rpcTlsKey, cfg.host) : undefined;
    await bidder?.start({ host: cfg.host, httpPort: cfg.bidderPort, rpcPort: cfg.bidderRpcPort, rpcTls: devnet.rpcTls });
    const offset = (port: number, j: number) => (port === 0 ? 0 : port + 10 * (j + 1));
    for (const [j, b] of extraBidders.entries())
      await b.start({ host: cfg.host, httpPort: offset(cfg.bidderPort, j), rpcPort: offset(cfg.bidderRpcPort, j), rpcTls: devnet.rpcTls });
    if (bidder && cfg.autodepositAmount !== undefined && !bidder.deposits.auto.running) {
      const next = (await driver.blockNumber()) + 1n;
      await bidder.deposits.startAutoDeposit(cfg.autodepositAmount, { windowNumber: windowOfBlock(next) });
    }
    for (const [i, p] of providers.entries()) await p.start(devnet.providerListen(i));
    await networks?.settle(providers.map(() => true));
    if (networks && cfg.network === "libp2p") log.info("nodes meet over libp2p", { bootnode: networks.bootnodeAddrs().join(",") });
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
    driver.startInterval(cfg.l1BlockTime);
    log.info("devnet ready", { ms: Math.round(performance.now() - t0) });
    return devnet;
  } catch (e) {
    await stopAllAnvils();
    throw e;
  }
}
