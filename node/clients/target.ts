import pkg from "../../package.json" with { type: "json" };
import type { ContractAddresses } from "../chain/contracts.ts";
import { DEFAULT_PROTOCOL_VERSION, type ProtocolVersion } from "../protocol/protocolVersion.ts";
import type { ProtocolRules } from "../protocol/rules.ts";

const REFERENCE_VERSION = (pkg as { version?: string }).version ?? "0.0.0";

/**
 * A target: everything the conformance suite needs to drive an implementation. The devnet writes its own to
 * `<data-dir>/target.json`; another implementation writes one by hand and runs the suite with TARGET=file.
 */
export interface Target {
  name: string;
  /** The protocol version the target speaks; absent = v1.1 (parseProtocolVersion reads it). */
  protocol?: ProtocolVersion;
  bidderUrl: string;
  providerUrls: string[];
  /** gRPC servers (capability `grpc`): `http://host:port` plaintext, `https://host:port` TLS. */
  bidderRpcUrl?: string;
  providerRpcUrls?: string[];
  /** The /sim/v1 control API, when the target has the `sim-control` capability. */
  controlUrl?: string;
  /** A beacon API (genesis, proposer duties, finality checkpoints) for the L1, when the target has `beacon`. */
  beaconUrl?: string;
  l1RpcUrl: string;
  l1ChainId: number;
  settlementRpcUrl: string;
  settlementChainId: number;
  contracts: {
    blockTracker: string;
    providerRegistry: string;
    bidderRegistry: string;
    preconfManager: string;
    oracle: string;
    /** v1.2: the DepositManager implementation bidder accounts delegate to (EIP-7702). */
    depositManager?: string;
  };
  /** The validator opt-in registry (upstream's ValidatorOptInRouter interface) on the L1 chain, if any. */
  validatorOptInRouter?: string;
  bidderAddress: string;
  providerAddresses: string[];
  /** The nodes' bid and decision timeouts, which the conformance suite may assume. */
  bidTimeoutMs: number;
  decisionTimeoutMs: number;
  /** Implementation version (shown in the suite's reports). */
  version?: string;
  /** See docs/conformance.md, "Target file". */
  capabilities: string[];
  /**
   * A netns devnet with `--foreign-hosts`: every host of its network (its own nodes' and the foreign ones), each
   * with its namespace and address, where another implementation's nodes are started (scripts/upstream.sh --netns).
   */
  netnsHosts?: NetnsHostEntry[];
  /**
   * Which host of `netnsHosts` runs which node (the bidder, and each provider in providerUrls' order): the suite's
   * faults name these hosts. The devnet's own nodes are named by the control API's status instead.
   */
  nodeHosts?: { bidder: string; providers: string[] };
}

export interface NetnsHostEntry {
  name: string;
  ip: string;
  namespace: string;
  /** Whether one of the devnet's own nodes runs there (false: a foreign host). */
  own: boolean;
}

/** The fields only nodes can fill: a devnet started with --no-nodes leaves them to the user. */
export const NODE_FIELDS = [
  "bidderUrl",
  "providerUrls",
  "bidderAddress",
  "providerAddresses",
  "bidTimeoutMs",
  "decisionTimeoutMs",
  "version",
] as const;
type NodeField = (typeof NODE_FIELDS)[number];

/** What the devnet writes: a whole target, or (with --no-nodes) one the user completes with their nodes' fields. */
export type DevnetTarget = Omit<Target, NodeField> & Partial<Pick<Target, NodeField>>;

/** What a target is made from: the parts of a running devnet (startDevnet.ts's Devnet) that targetOf reads. */
export interface TargetSource {
  readonly hasNodes: boolean;
  nodeEndpoints(): { bidder: TargetNode; providers: TargetNode[] };
  readonly controlUrl: string;
  readonly beaconUrl: string;
  readonly chains: { l1: TargetChain; settlement: TargetChain };
  readonly contracts: ContractAddresses;
  readonly validatorRegistry: string | undefined;
  readonly config: { bidTimeoutMs: number; decisionTimeoutMs: number; rules: ProtocolRules };
  /** The kinds of network fault the devnet can set (`--network netns`): `sim-faults` needs a partition. */
  readonly netFaultKinds?: readonly string[];
  /** `--foreign-hosts`: every host of the netns network; undefined without foreign hosts. */
  readonly foreignNetnsHosts?: NetnsHostEntry[];
}

interface TargetNode {
  url: string;
  rpcUrl: string;
  address: string;
}

interface TargetChain {
  rpcUrl: string;
  chainId: number;
}

/**
 * Capabilities of the devnet as a target: `sim-control` (mine, winners, builder modes, bundles), `beacon`, and, with
 * its own nodes, `sim-nodes` (the control API also drives the nodes: stop/start providers, faults, subscriber counts),
 * `sim-kill` (kill a node and restart it on its store), `openapi`, and with `--network netns` where the kernel's packet
 * filter answers, `sim-faults` (network faults between the nodes' hosts). With --no-nodes the user adds their nodes' fields and capabilities.
 */
export function targetOf(d: TargetSource): DevnetTarget {
  const n = d.hasNodes ? d.nodeEndpoints() : undefined;
  const nodes = n
    ? {
        bidderUrl: n.bidder.url,
        providerUrls: n.providers.map((p) => p.url),
        bidderRpcUrl: n.bidder.rpcUrl,
        providerRpcUrls: n.providers.map((p) => p.rpcUrl),
      }
    : {};
  const protocol = d.config.rules.version;
  return {
    name: d.hasNodes ? "reference devnet" : "reference devnet (--no-nodes)",
    // Written for every version but the default, whose target files stay as they were.
    ...(protocol !== DEFAULT_PROTOCOL_VERSION ? { protocol } : {}),
    ...nodes,
    controlUrl: d.controlUrl,
    beaconUrl: d.beaconUrl,
    l1RpcUrl: d.chains.l1.rpcUrl,
    l1ChainId: d.chains.l1.chainId,
    settlementRpcUrl: d.chains.settlement.rpcUrl,
    settlementChainId: d.chains.settlement.chainId,
    contracts: { ...d.contracts },
    validatorOptInRouter: d.validatorRegistry,
    ...(n
      ? {
          bidderAddress: n.bidder.address,
          providerAddresses: n.providers.map((p) => p.address),
          bidTimeoutMs: d.config.bidTimeoutMs,
          decisionTimeoutMs: d.config.decisionTimeoutMs,
          version: REFERENCE_VERSION,
        }
      : {}),
    capabilities: d.hasNodes
      ? [
          "sim-control",
          "sim-nodes",
          "sim-kill",
          "openapi",
          "beacon",
          "grpc",
          ...(d.netFaultKinds?.includes("partition") ? ["sim-faults"] : []),
        ]
      : [
          "sim-control",
          "beacon",
          // Foreign hosts: faults between them, for the nodes the user starts there.
          ...(d.foreignNetnsHosts && d.netFaultKinds?.includes("partition") ? ["sim-faults"] : []),
        ],
    ...(d.foreignNetnsHosts ? { netnsHosts: d.foreignNetnsHosts } : {}),
  };
}
