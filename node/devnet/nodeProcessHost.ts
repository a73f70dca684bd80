/**
 * The devnet's nodes as processes of their own (`--network processes|netns`): each a `--role` process (nodeProcesses.ts)
 * joined to the devnet's bootnode, on its namespace host with netns. The control API reaches them through their admin
 * API and signals.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { devAccount, ROLES } from "../chain/accounts.ts";
import type { BuiltInApplications, DevnetStatus, KilledNode } from "../control/simApi.ts";
import type { BundleSource } from "../l1/builder.ts";
import { MeshTimeoutError } from "../network/devnetNetworks.ts";
import { meshSettled } from "../network/meshView.ts";
import type { Notifier } from "../notify/notifier.ts";
import { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import { FailedPreconditionError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { logger } from "../util/log.ts";
import type { NetnsParts } from "./claimDevnet.ts";
import type { DevnetConfig } from "./config.ts";
import type { DataDir } from "./dataDir.ts";
import { NodesInProcessesError } from "./devnetErrors.ts";
import type { BuilderOf, NodeEndpoint, NodeHost, NodeProcesses, NodeStartContext, StopStep } from "./nodeHost.ts";
import type { Fault, KillPoint } from "./nodeOps.ts";
import { NodeProcess } from "./nodeProcesses.ts";

const log = logger("devnet");

export class NodeProcessHost implements NodeHost {
  readonly hasNodes = true;
  readonly bidderNodes = [];
  readonly providerNodes = [];
  readonly responderAgents = [];
  /** Every process started so far (a failed start stops them). */
  private readonly spawned: NodeProcess[] = [];
  private procs: NodeProcesses | undefined;
  private bootnode: Libp2pNetwork | undefined;

  constructor(
    private readonly config: DevnetConfig,
    private readonly netns: NetnsParts | undefined,
  ) {}

  get processes(): NodeProcesses {
    if (!this.procs) throw new FailedPreconditionError("the node processes have not started");
    return this.procs;
  }

  private get all(): NodeProcess[] {
    return this.procs ? [this.procs.bidder, ...this.procs.providers] : [];
  }

  async start(ctx: NodeStartContext): Promise<void> {
    const cfg = this.config;
    this.bootnode = new Libp2pNetwork({
      nodeKey: devAccount(ROLES.bootnode).privateKey,
      peerType: "bootnode",
      listen: [`/ip4/${cfg.host}/tcp/${cfg.bootnodePort}`],
      isStaked: ctx.isStaked,
      rules: cfg.rules,
    });
    await this.bootnode.start();
    const { bidder, providers } = makeNodeProcesses(ctx, this.bootnode, this.netns, this.spawned);
    await Promise.all(this.spawned.map((p) => p.start()));
    this.procs = { bidder, providers, bootnode: this.bootnode, hosts: this.netns?.hosts, isStaked: ctx.isStaked };
    await this.settle();
    log.info("node processes meet over libp2p", {
      bootnode: this.bootnode.multiaddrs().join(","),
      nodes: this.spawned.map((p) => `${p.name} pid ${p.pid} ${p.url}`).join(", "),
    });
  }

  async stop(step: StopStep): Promise<void> {
    await step("the node processes", () => Promise.allSettled(this.all.map((p) => p.stop(4_000))));
    await step("the network between nodes", () => this.bootnode?.stop());
  }

  close(): void {
    for (const p of this.all) p.close();
  }

  async abort(): Promise<void> {
    await Promise.allSettled(this.spawned.map((p) => p.stop(4_000)));
    await this.bootnode?.stop().catch(() => {});
  }

  endpoints(): { bidder: NodeEndpoint; providers: NodeEndpoint[] } {
    const of = (n: NodeProcess): NodeEndpoint => ({ name: n.name, url: n.url!, rpcUrl: n.rpcUrl!, address: n.address });
    return { bidder: of(this.processes.bidder), providers: this.processes.providers.map(of) };
  }

  bootnodeAddrs(): string[] {
    return this.processes.bootnode.multiaddrs();
  }

  async settle(timeoutMs = 60_000): Promise<void> {
    const procs = this.processes;
    const until = Date.now() + timeoutMs;
    const expected = await Promise.all(
      procs.providers.map(async (p) => p.running && (await procs.isStaked(p.address))),
    );
    for (;;) {
      const views = await Promise.all(
        this.all.map((p) =>
          p.running
            ? p.status().then(
                (s) => s.mesh,
                () => undefined,
              )
            : undefined,
        ),
      );
      const bidder = views[0];
      const providers = procs.providers.map((p, i) => ({
        address: p.address,
        expected: expected[i]!,
        running: p.running,
        view: views[i + 1],
      }));
      if (bidder && meshSettled(bidder, providers)) return;
      if (Date.now() > until)
        throw new MeshTimeoutError(`the node processes did not find each other over libp2p within ${timeoutMs} ms`);
      await Bun.sleep(50);
    }
  }

  async stopProvider(index: number): Promise<void> {
    const p = this.providerAt(index);
    if (!p.running) throw new FailedPreconditionError(`provider ${index} is not running`);
    await p.stop();
    return this.settle();
  }

  async startProvider(index: number): Promise<void> {
    const p = this.providerAt(index);
    if (p.running) throw new FailedPreconditionError(`provider ${index} is already running`);
    await p.start();
    return this.settle();
  }

  private providerAt(index: number): NodeProcess {
    const p = this.processes.providers[index];
    if (!p)
      throw new InvalidArgumentError(
        `no provider ${index}: the devnet has providers 0 to ${this.processes.providers.length - 1}`,
      );
    return p;
  }

  /** A real SIGKILL of the node's process, then the same node started again on its store, key and ports. */
  async kill(name: string, at: KillPoint, replayFrom?: bigint): Promise<KilledNode> {
    const cfg = this.config;
    if (at !== "now" || replayFrom !== undefined)
      throw new FailedPreconditionError(
        `a kill after-ack or with replayFrom needs the devnet's nodes in its own process; this devnet runs them as processes (--network ${cfg.network}${cfg.networkChoice ? `, chosen by --network auto: ${cfg.networkChoice}` : ""}): start it with --network libp2p`,
      );
    const p = this.all.find((x) => x.name === name);
    if (!p) {
      const names = this.all.map((x) => x.name);
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

  async injectFault(node: string, fault: Fault): Promise<void> {
    const procs = this.processes;
    const p =
      node === "bidder" ? procs.bidder : procs.providers.find((x) => x.address.toLowerCase() === node.toLowerCase());
    if (!p) throw new InvalidArgumentError(`no provider node with address ${node}`);
    if (!p.running) throw new FailedPreconditionError(`provider ${node} is not running`);
    return p.fault(fault);
  }

  /** /sim/v1/status's nodes when they are processes: the counts come from each running node's admin API. */
  status(builderOf: BuilderOf): Promise<DevnetStatus["nodes"]> {
    return Promise.all(
      this.all.map(async (p) => {
        const counts = p.serving ? await p.status() : undefined;
        return {
          name: p.name,
          role: p.role,
          url: p.running ? p.url : null,
          rpcUrl: p.running ? p.rpcUrl : null,
          address: p.address,
          running: p.running,
          ...(p.role === "provider" ? builderOf(p.address) : {}),
          subscribers: counts?.subscribers ?? 0,
          ...(p.role === "provider" ? { receivers: counts?.receivers ?? 0 } : {}),
        };
      }),
    );
  }

  providerName(address: Address): string | undefined {
    return this.spawned.find((p) => p.role === "provider" && p.address.toLowerCase() === address.toLowerCase())?.name;
  }

  bundleSources(): BundleSource[] {
    return this.spawned.filter((p) => p.role === "provider" && p.running);
  }

  notifiers(): Notifier[] {
    return [];
  }

  bidderFeed(): { url?: string } {
    return { url: this.procs?.bidder.url ?? undefined };
  }

  /** Node processes attach their own (`--role --auto-accept`). */
  async attachResponders(): Promise<void> {}

  async setResponders(attached: boolean): Promise<BuiltInApplications> {
    const auto = this.config.autoAccept;
    if (auto !== attached)
      throw new FailedPreconditionError(
        `the devnet's node processes ${auto ? "attach their own built-in applications" : "run without built-in applications"} (--auto-accept is fixed at their start): start the devnet with${attached ? "" : "out"} --no-auto-accept`,
      );
    return this.builtInApplications();
  }

  builtInApplications(): BuiltInApplications {
    const auto = this.config.autoAccept;
    return {
      attached: auto,
      count: auto ? this.all.filter((p) => p.role === "provider" && p.running).length : 0,
      detachable: false,
    };
  }

  bidderNode(): never {
    throw new NodesInProcessesError("no bidder node object");
  }
}

/**
 * The bidder and provider nodes as `--role` processes (on their namespace hosts with netns), not started yet; each
 * is pushed into `spawned` (so that a failed start stops the others).
 */
function makeNodeProcesses(
  ctx: NodeStartContext,
  bootnode: Libp2pNetwork,
  netns: NetnsParts | undefined,
  spawned: NodeProcess[],
): { bidder: NodeProcess; providers: NodeProcess[] } {
  const { config: cfg, dir } = ctx;
  const root = join(dir.root, "nodes");
  const contractsFile = writeContractsFile(ctx, root);
  /** The admin API sits two ports above the HTTP API (13525, 13625, …), or on any free port. */
  const admin = (http: number) => (http === 0 ? 0 : http + 2);
  const common = commonArgs(cfg, dir);
  const outcomes = ctx.bidOutcomes;
  const make = (
    name: string,
    role: "bidder" | "provider",
    key: Hex,
    ports: { http: number; rpc: number; p2p: number },
    args: string[],
    firstStartArgs: string[] = [],
  ) =>
    new NodeProcess({
      name,
      role,
      key,
      bindAddr: netns ? netns.hosts.ipOf(name) : cfg.host,
      ports: { ...ports, admin: admin(ports.http) },
      contractsFile,
      bootnodes: bootnode.multiaddrs(),
      dataDir: join(root, name),
      args: [...common, ...args],
      firstStartArgs,
      netns: netns && { hosts: netns.hosts, host: name },
      logFile: join(root, `${name}.log`),
      // The bidder streams what became of each bid: the devnet's explorer records it as for an in-process bidder.
      onBidEvent: role === "bidder" && outcomes ? (e) => outcomes.apply(e) : undefined,
    });
  const bidder = make(
    "bidder",
    "bidder",
    devAccount(ROLES.bidder).privateKey,
    { http: cfg.bidderPort, rpc: cfg.bidderRpcPort, p2p: cfg.bidderP2pPort },
    ["--bid-timeout", String(cfg.bidTimeoutMs)],
    bidderFirstStartArgs(cfg),
  );
  const providers = Array.from({ length: cfg.providers }, (_, i) =>
    make(
      `provider-${i}`,
      "provider",
      devAccount(ROLES.firstProvider + i).privateKey,
      { http: cfg.providerPorts[i] ?? 0, rpc: cfg.providerRpcPorts[i] ?? 0, p2p: cfg.providerP2pPorts[i] ?? 0 },
      ["--decision-timeout", String(cfg.decisionTimeoutMs), ...(cfg.autoAccept ? ["--auto-accept"] : [])],
    ),
  );
  spawned.push(bidder, ...providers);
  return { bidder, providers };
}

/** What a --role node reads with --contracts: the addresses, the RPC URLs and the validator opt-in router. */
function writeContractsFile(ctx: NodeStartContext, root: string): string {
  const contractsFile = join(root, "contracts.json");
  mkdirSync(root, { recursive: true });
  const { chains, contracts, validatorRegistry } = ctx.chain;
  ctx.dir.writeJson(contractsFile, {
    ...contracts,
    protocol: ctx.config.rules.version,
    settlementRpcUrl: chains.settlement.rpcUrl,
    l1RpcUrl: chains.l1.rpcUrl,
    validatorOptInRouter: validatorRegistry,
  });
  return contractsFile;
}

/** The options every node process gets. */
function commonArgs(cfg: DevnetConfig, dir: DataDir): string[] {
  return [
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
}

/**
 * v1.2 has no window auto-deposit: the devnet deposited with each provider before the node started. From the
 * current window, as the in-process bidder does, so the first bids find a deposit. Only at the first start: a
 * bidder killed through the control API comes back with what its store saved (a cancel stays cancelled). As for the
 * in-process bidder, the amount replaces a saved setting only when a flag gave it.
 */
function bidderFirstStartArgs(cfg: DevnetConfig): string[] {
  if (cfg.rules.deposits !== "window") return [];
  if (cfg.autodepositAmount !== undefined)
    return [
      "--autodeposit-amount",
      cfg.autodepositAmount.toString(),
      "--autodeposit-current-window",
      ...(cfg.autodepositFromFlag ? [] : ["--autodeposit-keep-saved"]),
    ];
  return cfg.autodepositFromFlag ? ["--no-autodeposit"] : [];
}
