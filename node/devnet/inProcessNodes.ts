/**
 * The devnet's nodes in its own process (`--network libp2p|in-process`): a bidder (and `--bidders N` more), the
 * providers, the network they meet on, and `--auto-accept`'s built-in provider applications. A kill is simulated:
 * the node's listeners and connections close at once and a new node starts on its store, keys and ports
 * (docs/crash-safety.md says what is and is not simulated).
 */
import type { Address } from "viem";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { nonceManagerFor } from "../chain/clients.ts";
import type { BuiltInApplications, DevnetStatus, KilledNode } from "../control/simApi.ts";
import type { TlsFiles } from "../grpc/tls.ts";
import type { BundleSource } from "../l1/builder.ts";
import { type DevnetNetworks, devnetNetworks } from "../network/devnetNetworks.ts";
import type { BidderNode } from "../nodes/bidderNode.ts";
import type { ProviderNode } from "../nodes/providerNode.ts";
import type { Notifier } from "../notify/notifier.ts";
import { FailedPreconditionError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { acceptAll } from "../providerApp/policies.ts";
import { agentLog, ProviderAgent } from "../providerApp/providerAgent.ts";
import type { NodeListen } from "../server/nodeServer.ts";
import { logger } from "../util/log.ts";
import type { ChainEndpoint } from "./chains.ts";
import { type DevnetConfig, extraBidderPort } from "./config.ts";
import { NoNodesError } from "./devnetErrors.ts";
import { NodeFactory } from "./nodeFactory.ts";
import type { BuilderOf, NodeEndpoint, NodeHost, NodeStartContext, StopStep } from "./nodeHost.ts";
import {
  armBidderFault,
  armProviderFault,
  diedAfterAck,
  type Fault,
  type KillPoint,
  nodeCounts,
  rewindEventCursor,
} from "./nodeOps.ts";

const log = logger("devnet");

export class InProcessNodes implements NodeHost {
  readonly hasNodes = true;
  private nets: DevnetNetworks | undefined;
  readonly providerNodes: ProviderNode[] = [];
  private bidder: BidderNode | undefined;
  /** Bidder nodes after the first (`--bidders N`). */
  private extraBidders: BidderNode[] = [];
  private factory: NodeFactory | undefined;
  private settlement: ChainEndpoint | undefined;
  private rpcTls: TlsFiles | undefined;
  private readiness: NodeListen["readiness"];
  /** The ports a stopped or killed provider had: it starts again on them. */
  private readonly providerPorts = new Map<number, { http: number; rpc: number }>();
  private readonly responders: ProviderAgent[] = [];
  /** Whether running provider nodes get a built-in application: `--auto-accept`, then `POST /sim/v1/responders`. */
  private respondersOn = false;

  constructor(private readonly config: DevnetConfig) {}

  /** How the nodes meet (libp2p around the devnet's bootnode, or in-process); set by start(). */
  get networks(): DevnetNetworks | undefined {
    return this.nets;
  }

  /** Every bidder node: the devnet's bidder, then the extra ones. */
  get bidderNodes(): BidderNode[] {
    return this.bidder ? [this.bidder, ...this.extraBidders] : [];
  }

  /** The built-in provider applications (`--auto-accept`), one per running provider node. */
  get responderAgents(): readonly ProviderAgent[] {
    return this.responders;
  }

  bidderNode(): BidderNode {
    if (!this.bidder) throw new NoNodesError("no bidder node");
    return this.bidder;
  }

  async start(ctx: NodeStartContext): Promise<void> {
    const cfg = this.config;
    this.rpcTls = ctx.rpcTls;
    this.readiness = ctx.readiness;
    this.settlement = ctx.chain.chains.settlement;
    const providerKeys = Array.from(
      { length: cfg.providers },
      (_, i) => devAccount(ROLES.firstProvider + i).privateKey,
    );
    const networks = await devnetNetworks({
      kind: cfg.network === "in-process" ? "in-process" : "libp2p",
      host: cfg.host,
      bootnodeKey: devAccount(ROLES.bootnode).privateKey,
      bootnodePort: cfg.bootnodePort,
      bidderKey: devAccount(ROLES.bidder).privateKey,
      bidderPort: cfg.bidderP2pPort,
      providerKeys,
      providerPorts: cfg.providerP2pPorts,
      isStaked: ctx.isStaked,
      rules: cfg.rules,
    });
    this.nets = networks;
    const { chain } = ctx;
    const factory = new NodeFactory({
      config: cfg,
      dir: ctx.dir,
      settlementChain: chain.settlementChain,
      contracts: chain.contracts,
      validators: chain.validators,
      bidOutcomes: ctx.bidOutcomes,
    });
    this.factory = factory;
    // Extra bidder nodes share the in-process network (over libp2p each node would need a peer of its own).
    const bidders = Array.from({ length: cfg.bidders }, (_, j) =>
      factory.bidder(factory.bidderOptions(j, networks.bidder)),
    );
    [this.bidder, ...this.extraBidders] = bidders;
    for (const i of providerKeys.keys())
      this.providerNodes.push(factory.provider(factory.providerOptions(i, networks.providers[i]!)));
    await this.startBidders(ctx);
    for (const [i, p] of this.providerNodes.entries()) await p.start(this.providerListen(i));
    await networks.settle(this.providerNodes.map(() => true));
    if (cfg.network === "libp2p") log.info("nodes meet over libp2p", { bootnode: networks.bootnodeAddrs().join(",") });
  }

  /** The bidders, the first with v1.1's window auto-deposit (v1.2's deposits were made with the contracts). */
  private async startBidders(ctx: NodeStartContext): Promise<void> {
    const cfg = this.config;
    const bidder = this.bidderNode();
    const windowDeposits = cfg.rules.deposits === "window";
    if (windowDeposits && cfg.autodepositFromFlag) bidder.windowDeposits.auto.replaceSaved(cfg.autodepositAmount);
    const listen = (httpPort: number, rpcPort: number): NodeListen => ({
      host: cfg.host,
      httpPort,
      rpcPort,
      rpcTls: this.rpcTls,
      readiness: this.readiness,
    });
    await bidder.start(listen(cfg.bidderPort, cfg.bidderRpcPort));
    for (const [j, b] of this.extraBidders.entries())
      await b.start(listen(extraBidderPort(cfg.bidderPort, j), extraBidderPort(cfg.bidderRpcPort, j)));
    if (windowDeposits && cfg.autodepositAmount !== undefined && !bidder.windowDeposits.auto.running) {
      const next = (await ctx.l1BlockNumber()) + 1n;
      await bidder.windowDeposits.startAutoDeposit(cfg.autodepositAmount, { windowNumber: windowOfBlock(next) });
    }
  }

  /** Where provider i listens: the ports it had before a stop, else the configured ones. */
  private providerListen(index: number): NodeListen {
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

  private keepPorts(index: number, p: ProviderNode): void {
    this.providerPorts.set(index, { http: Number(new URL(p.url).port), rpc: Number(new URL(p.rpcUrl).port) });
  }

  async stop(step: StopStep): Promise<void> {
    await step("the provider applications", () => Promise.allSettled(this.responders.map((r) => r.stop())));
    await step("the nodes", () =>
      Promise.allSettled([...this.bidderNodes.map((b) => b.stop()), ...this.providerNodes.map((p) => p.stop())]),
    );
    await step("the network between nodes", () => this.nets?.stop());
  }

  close(): void {}

  /** A failed start leaves the nodes of this process to its exit. */
  async abort(): Promise<void> {}

  endpoints(): { bidder: NodeEndpoint; providers: NodeEndpoint[] } {
    const of = (n: BidderNode | ProviderNode, name: string): NodeEndpoint => ({
      name,
      url: n.url,
      rpcUrl: n.rpcUrl,
      address: n.address,
    });
    return { bidder: of(this.bidderNode(), "bidder"), providers: this.providerNodes.map((p) => of(p, p.name)) };
  }

  bootnodeAddrs(): string[] {
    return this.nets?.bootnodeAddrs() ?? [];
  }

  async settle(timeoutMs?: number): Promise<void> {
    await this.nets?.settle(
      this.providerNodes.map((x) => x.listening),
      timeoutMs,
    );
  }

  /** Stops a provider node (it leaves the network: peer_disconnected); its state stays in its store. */
  async stopProvider(index: number): Promise<void> {
    const p = this.providerAt(index);
    if (!p.listening) throw new FailedPreconditionError(`provider ${index} is not running`);
    this.keepPorts(index, p);
    const responder = this.responders.findIndex((r) => r.providerUrl === p.url);
    if (responder >= 0) await this.responders.splice(responder, 1)[0]!.stop();
    await p.stop();
    await this.settle();
  }

  /** Starts a stopped provider node again on its port (it joins the network: peer_connected). */
  async startProvider(index: number): Promise<void> {
    const p = this.providerAt(index);
    if (p.listening) throw new FailedPreconditionError(`provider ${index} is already running`);
    await p.start(this.providerListen(index));
    await this.settle();
    if (this.respondersOn) await this.attachResponder(p);
  }

  private providerAt(index: number): ProviderNode {
    const p = this.providerNodes[index];
    if (!p)
      throw new InvalidArgumentError(
        `no provider ${index}: the devnet has providers 0 to ${this.providerNodes.length - 1}`,
      );
    return p;
  }

  /**
   * Kills a node the way SIGKILL kills a process, then starts a new node on its store, keys and ports, and answers
   * once it serves again and the mesh has settled.
   */
  async kill(name: string, at: KillPoint, replayFrom?: bigint): Promise<KilledNode> {
    const t0 = performance.now();
    const bidderAt = name === "bidder" ? 0 : /^bidder-([1-9]\d*)$/.exec(name) ? Number(name.slice(7)) : undefined;
    const providerAt = /^provider-(\d+)$/.exec(name) ? Number(name.slice(9)) : undefined;
    let restarted: { down: number; url: string };
    if (bidderAt !== undefined && bidderAt < this.bidderNodes.length)
      restarted = await this.killBidder(bidderAt, name, at, replayFrom, t0);
    else if (providerAt !== undefined && providerAt < this.providerNodes.length)
      restarted = await this.killProvider(providerAt, name, at, replayFrom, t0);
    else {
      const names = [
        ...this.bidderNodes.map((_, i) => (i === 0 ? "bidder" : `bidder-${i}`)),
        ...this.providerNodes.map((p) => p.name),
      ];
      throw new InvalidArgumentError(
        `no node named ${JSON.stringify(name)}: the devnet's nodes are ${names.join(", ")}`,
      );
    }
    await this.settle();
    const { down, url } = restarted;
    const killed = { name, url, downMs: Math.round(down), restartMs: Math.round(performance.now() - t0 - down) };
    log.info("node killed and restarted on its store", {
      ...killed,
      ...(replayFrom !== undefined ? { replayFrom } : {}),
      ...(at !== "now" ? { at } : {}),
    });
    return killed;
  }

  private async killBidder(j: number, name: string, at: KillPoint, replayFrom: bigint | undefined, t0: number) {
    const old = this.bidderNodes[j]!;
    const ports = old.listenPorts!;
    await this.killOne(old, name, at, replayFrom);
    const down = performance.now() - t0;
    const network = j === 0 ? this.nets!.renew({ role: "bidder" }) : old.options.network;
    const fresh = this.factory!.bidder({ ...old.options, network });
    if (j === 0) this.bidder = fresh;
    else this.extraBidders[j - 1] = fresh;
    const url = await fresh.start({ host: this.config.host, ...ports, rpcTls: this.rpcTls });
    return { down, url };
  }

  private async killProvider(i: number, name: string, at: KillPoint, replayFrom: bigint | undefined, t0: number) {
    const old = this.providerNodes[i]!;
    if (!old.listening)
      throw new FailedPreconditionError(`${name} is not running (start it first: POST /sim/v1/providers/${i}/start)`);
    this.keepPorts(i, old);
    await this.killOne(old, name, at, replayFrom);
    const down = performance.now() - t0;
    const fresh = this.factory!.provider({
      ...old.options,
      network: this.nets!.renew({ role: "provider", index: i }),
    });
    this.providerNodes[i] = fresh;
    const url = await fresh.start(this.providerListen(i));
    return { down, url };
  }

  private async killOne(
    old: BidderNode | ProviderNode,
    name: string,
    at: KillPoint,
    replayFrom: bigint | undefined,
  ): Promise<void> {
    if (at === "after-ack") await diedAfterAck(old, name);
    await old.kill();
    if (replayFrom !== undefined) rewindEventCursor(old.options.storePath, replayFrom);
    // A new process asks the chain for its account's nonce: nothing the dead node counted but never sent is kept.
    const s = this.settlement!;
    nonceManagerFor(s.rpcUrl).reset({ address: old.address, chainId: s.chainId });
  }

  /** Arms (`store`, `open`) or disarms (`none`) a node's next failing transaction. */
  async injectFault(node: string, fault: Fault): Promise<void> {
    if (node === "bidder") return armBidderFault(this.bidderNode(), fault);
    const p = this.providerNodes.find((x) => x.address.toLowerCase() === node.toLowerCase());
    if (!p) throw new InvalidArgumentError(`no provider node with address ${node}`);
    armProviderFault(p, fault, node);
  }

  async status(builderOf: BuilderOf): Promise<DevnetStatus["nodes"]> {
    return [
      ...this.bidderNodes.map((b, i) => ({
        name: i === 0 ? "bidder" : `bidder-${i}`,
        role: "bidder" as const,
        url: b.url,
        rpcUrl: b.rpcUrl,
        address: b.address,
        running: true,
        ...nodeCounts(b),
      })),
      ...this.providerNodes.map((p) => ({
        name: p.name,
        role: "provider" as const,
        url: p.listening ? p.url : null,
        rpcUrl: p.listening ? p.rpcUrl : null,
        address: p.address,
        running: p.listening,
        ...builderOf(p.address),
        ...nodeCounts(p),
      })),
    ];
  }

  providerName(address: Address): string | undefined {
    return this.providerNodes.find((p) => p.address.toLowerCase() === address.toLowerCase())?.name;
  }

  bundleSources(): BundleSource[] {
    return this.providerNodes.filter((p) => p.listening);
  }

  notifiers(): Notifier[] {
    return [...this.bidderNodes, ...this.providerNodes].map((n) => n.notifier);
  }

  bidderFeed(): { notifier?: Notifier } {
    return { notifier: this.bidderNodes[0]?.notifier };
  }

  async attachResponders(): Promise<void> {
    this.respondersOn = true;
    for (const p of this.providerNodes) if (p.listening) await this.attachResponder(p);
  }

  /**
   * Detaches (or attaches again) the built-in accept-all applications, so that another provider application (the
   * conformance suite's) is the only one reading a provider's bids.
   */
  async setResponders(attached: boolean): Promise<BuiltInApplications> {
    if (attached && !this.respondersOn) {
      this.respondersOn = true;
      for (const p of this.providerNodes)
        if (p.listening && !this.responders.some((r) => r.providerUrl === p.url)) await this.attachResponder(p);
    } else if (!attached && this.respondersOn) {
      this.respondersOn = false;
      await Promise.all(this.responders.splice(0).map((r) => r.stop()));
    }
    return this.builtInApplications();
  }

  builtInApplications(): BuiltInApplications {
    return { attached: this.respondersOn, count: this.responders.length, detachable: true };
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
}
