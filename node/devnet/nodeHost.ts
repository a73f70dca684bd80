/**
 * Where the devnet's nodes run, behind one interface: in this process (InProcessNodes), as `--role` processes
 * (NodeProcessHost, `--network processes|netns`), or nowhere (NoNodes, `--no-nodes`). The Devnet asks its host and
 * never which kind it is.
 */
import type { Address } from "viem";
import type { BuiltInApplications, DevnetStatus, KilledNode } from "../control/simApi.ts";
import type { BidOutcomes } from "../explorer/bidOutcomes.ts";
import type { TlsFiles } from "../grpc/tls.ts";
import type { BuilderMode, BundleSource } from "../l1/builder.ts";
import type { DevnetNetworks } from "../network/devnetNetworks.ts";
import type { BidderNode } from "../nodes/bidderNode.ts";
import type { ProviderNode } from "../nodes/providerNode.ts";
import type { Notifier } from "../notify/notifier.ts";
import type { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import type { ProviderAgent } from "../providerApp/providerAgent.ts";
import type { NetnsHosts } from "../role/netnsHosts.ts";
import type { DevnetConfig } from "./config.ts";
import type { DataDir } from "./dataDir.ts";
import type { Fault, KillPoint } from "./nodeOps.ts";
import type { NodeProcess } from "./nodeProcesses.ts";
import type { ChainParts } from "./startChainsAndContracts.ts";

/** Where the suite and the banner find a node: the same for in-process nodes and node processes. */
export interface NodeEndpoint {
  name: string;
  url: string;
  rpcUrl: string;
  address: Address;
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

/** One bounded step of a stop: logged by name and left behind when it overruns (util/deadline.ts shutdownStep). */
export type StopStep = (what: string, work: () => unknown) => Promise<unknown>;

/** A provider's builder mode as /sim/v1/status shows it beside the node. */
export type BuilderOf = (provider: Address) => { builder: BuilderMode; builderEvery: number };

/** What the nodes are started with: the chains and contracts, the oracle's bid record, the listeners' settings. */
export interface NodeStartContext {
  config: DevnetConfig;
  dir: DataDir;
  chain: ChainParts;
  bidOutcomes: BidOutcomes | undefined;
  /** Every node's /health answers 503 with this reason until the devnet is ready. */
  readiness: () => Promise<string | undefined>;
  /** The gRPC listeners' certificate, with --rpc-tls. */
  rpcTls: TlsFiles | undefined;
  isStaked: (provider: Address) => Promise<boolean>;
  /** The L1 head (the bidder's first auto-deposit window follows it). */
  l1BlockNumber: () => Promise<bigint>;
}

export interface NodeHost {
  /** false with --no-nodes. */
  readonly hasNodes: boolean;
  /** Starts every node and resolves once they serve and see each other. */
  start(ctx: NodeStartContext): Promise<void>;
  /** Stops the nodes, their built-in applications and their network (each a bounded step). */
  stop(step: StopStep): Promise<void>;
  /** After the chains stopped: what outlives a stop (the node processes' log files). */
  close(): void;
  /** A failed start: stops what start() began, unbounded by steps. */
  abort(): Promise<void>;

  endpoints(): { bidder: NodeEndpoint; providers: NodeEndpoint[] };
  bootnodeAddrs(): string[];
  /** Resolves once the running nodes see each other and nobody sees a stopped provider. */
  settle(timeoutMs?: number): Promise<void>;
  stopProvider(index: number): Promise<void>;
  startProvider(index: number): Promise<void>;
  /** Kills a node (`bidder`, `bidder-N`, `provider-N`) and starts it again on its store, keys and ports. */
  kill(name: string, at: KillPoint, replayFrom?: bigint): Promise<KilledNode>;
  injectFault(node: string, fault: Fault): Promise<void>;
  /** /sim/v1/status's nodes. */
  status(builderOf: BuilderOf): Promise<DevnetStatus["nodes"]>;
  /** The devnet node that runs a provider (`provider-0`, …), running or not. */
  providerName(address: Address): string | undefined;
  /** The running providers' bundles, for the L1 builder. */
  bundleSources(): BundleSource[];
  /** The notifiers of the nodes in this process (the validator service publishes to them). */
  notifiers(): Notifier[];
  /** The first bidder's notifications for the explorer: its notifier in this process, or its process's URL. */
  bidderFeed(): { notifier?: Notifier; url?: string };

  /** `--auto-accept`: a built-in accept-all provider application on every provider node. */
  attachResponders(): Promise<void>;
  setResponders(attached: boolean): Promise<BuiltInApplications>;
  builtInApplications(): BuiltInApplications;

  /** The node objects of this process (tests, benchmarks, the banner); NoNodesError or NodesInProcessesError. */
  bidderNode(): BidderNode;
  readonly bidderNodes: readonly BidderNode[];
  readonly providerNodes: readonly ProviderNode[];
  readonly responderAgents: readonly ProviderAgent[];
  /** How in-process nodes meet (libp2p around the devnet's bootnode, or in-process). */
  readonly networks?: DevnetNetworks;
  /** The node processes, with `--network processes|netns`. */
  readonly processes?: NodeProcesses;
}
