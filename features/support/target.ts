/**
 * The target of a run: the implementation under test, described by a target file (docs/conformance.md lists every
 * field), or a reference devnet the suite starts itself when none is given. The suite reads its own copy of the
 * target type and imports nothing from node/ except, lazily and only without a target file, the devnet launcher.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { MevCommitError } from "../../lib/errors.ts";
import { type ProtocolRules, rulesOf } from "./protocolRules.ts";
import {
  DEFAULT_PROTOCOL_VERSION,
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "./protocolVersion.ts";

/** What a target can do beyond the interface; scenarios that need a capability the target lacks are skipped. */
export const CAPABILITIES = {
  "sim-control":
    "a /sim/v1 control API on the target's chains: mine L1 blocks, choose each block's winner and its builder's behaviour",
  "sim-nodes":
    "the control API also drives the target's nodes: stop and start provider nodes, inject failing store/open transactions, report subscriber and receiver counts",
  "sim-kill":
    "the control API kills a node with SIGKILL and restarts it on the same data (POST /sim/v1/nodes/{name}/kill)",
  openapi: "each node serves its OpenAPI document at /swagger/json",
  beacon: "the target's chains come with a beacon API (beaconUrl) and validator opt-ins the suite can make on the L1",
  grpc: "each node also serves the gRPC API (bidderRpcUrl, providerRpcUrls)",
  "sim-faults":
    "the control API sets network faults between the target's nodes (a partition between two nodes and its heal, loss, bandwidth, delay: POST/DELETE /sim/v1/network/faults; a node cut from the settlement chain or from its API clients: the hosts settlement and clients) and names each provider's outcome of a bid (GET /sim/v1/bids/{digest})",
} as const;
export type Capability = keyof typeof CAPABILITIES;

export interface Target {
  name: string;
  /** The implementation's version (shown in reports). */
  version?: string;
  /** The protocol version the target speaks (`"protocol"` in the file; absent means v1.1). */
  protocol: ProtocolVersion;
  /** The facts of `protocol` the suite's checks ask (features/support/protocolRules.ts), built once when the target is read. */
  rules: ProtocolRules;
  bidderUrl: string;
  providerUrls: string[];
  /** gRPC addresses (capability `grpc`). */
  bidderRpcUrl?: string;
  providerRpcUrls?: string[];
  /** The /sim/v1 control API (capability `sim-control`). */
  controlUrl?: string;
  /** A beacon node API (capability `beacon`). */
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
  };
  /** The validator opt-in registry (ValidatorOptInRouter interface) on the L1. */
  validatorOptInRouter?: string;
  bidderAddress: string;
  providerAddresses: string[];
  /** How long the bidder node waits for its providers' commitments (upstream's --bidder-bid-timeout). */
  bidTimeoutMs: number;
  /** How long a provider node waits for its application's decision (upstream's --provider-decision-timeout). */
  decisionTimeoutMs: number;
  /**
   * The concurrency scenarios' levels: how many bids one bidder keeps in flight at once (`"bidsInFlight"`, each at
   * least 2; default CONCURRENCY_DEFAULTS) and how many bids each level sends (`"concurrentBids"`).
   */
  bidsInFlight: number[];
  concurrentBids: number;
  /** A shell command that brings the target back after it went down; the suite runs it and goes on. */
  restart?: string;
  /**
   * Which host of the control API's network faults runs which node (the bidder, and each provider in providerUrls'
   * order), for nodes the control API does not run itself (capability `sim-faults`: scripts/upstream.sh --netns).
   */
  nodeHosts?: { bidder: string; providers: string[] };
  capabilities: string[];
}

export class TargetFileError extends MevCommitError {}

/** Upstream's defaults (api-behaviour §1.1 step 3, §2.2 step 5), assumed when a target file names no timeouts. */
export const UPSTREAM_BID_TIMEOUT_MS = 30_000;
export const UPSTREAM_DECISION_TIMEOUT_MS = 30_000;

/**
 * Defaults of the concurrency settings: a target that loses even one bid in ten at 8 in flight passes 64 bids with a
 * chance below 0.12 % (0.9^64); upstream's loss (82 % of bids short of a commitment at 8 in flight) never passes.
 */
export const CONCURRENCY_DEFAULTS = { bidsInFlight: [8, 128], concurrentBids: 64 } as const;

const REQUIRED = [
  "bidderUrl",
  "providerUrls",
  "l1RpcUrl",
  "l1ChainId",
  "settlementRpcUrl",
  "settlementChainId",
  "contracts",
  "bidderAddress",
  "providerAddresses",
] as const;

/** Checks a parsed target file and fills the defaults; `where` names it in errors. */
export function parseTarget(raw: unknown, where: string): Target {
  const t = raw as Partial<Target> & Record<string, unknown>;
  if (!t || typeof t !== "object") throw new TargetFileError(`${where} is not a JSON object`);
  const missing = REQUIRED.filter((k) => t[k] === undefined);
  if (missing.length)
    throw new TargetFileError(`${where} lacks ${missing.join(", ")} (docs/conformance.md lists every field)`);
  const problems: string[] = [];
  if (!Array.isArray(t.providerUrls) || t.providerUrls.length === 0)
    problems.push("providerUrls must be a non-empty array of URLs");
  if (!Array.isArray(t.providerAddresses) || t.providerAddresses.length !== t.providerUrls?.length)
    problems.push("providerAddresses must list one address per provider URL");
  for (const k of ["bidTimeoutMs", "decisionTimeoutMs"] as const)
    if (t[k] !== undefined && !(Number.isInteger(t[k]) && (t[k] as number) > 0))
      problems.push(`${k} must be a positive integer of milliseconds`);
  if (
    t.bidsInFlight !== undefined &&
    !(
      Array.isArray(t.bidsInFlight) &&
      t.bidsInFlight.length > 0 &&
      t.bidsInFlight.every((n) => Number.isInteger(n) && n >= 2)
    )
  )
    problems.push("bidsInFlight must be a non-empty array of integers, each at least 2");
  if (t.concurrentBids !== undefined && !(Number.isInteger(t.concurrentBids) && t.concurrentBids >= 2))
    problems.push("concurrentBids must be an integer of at least 2");
  const caps = t.capabilities ?? [];
  if (!Array.isArray(caps)) problems.push("capabilities must be an array");
  else {
    const unknown = caps.filter((c) => !(c in CAPABILITIES));
    if (unknown.length)
      problems.push(`unknown capabilities ${unknown.join(", ")} (known: ${Object.keys(CAPABILITIES).join(", ")})`);
    if (caps.includes("sim-control") && !t.controlUrl) problems.push("capability sim-control needs controlUrl");
    if (caps.includes("beacon") && !t.beaconUrl) problems.push("capability beacon needs beaconUrl");
  }
  let protocol: ProtocolVersion | undefined;
  try {
    protocol = parseProtocolVersion(t.protocol as string | undefined);
  } catch (e) {
    if (!(e instanceof UnknownProtocolVersionError)) throw e;
    problems.push(`protocol: ${e.message}`);
  }
  const nh = t.nodeHosts;
  if (
    nh !== undefined &&
    !(
      nh &&
      typeof nh.bidder === "string" &&
      Array.isArray(nh.providers) &&
      nh.providers.length === t.providerUrls?.length &&
      nh.providers.every((h) => typeof h === "string")
    )
  )
    problems.push('nodeHosts must be {"bidder": HOST, "providers": [HOST, …]} with one host per provider URL');
  if (problems.length) throw new TargetFileError(`${where}: ${problems.join("; ")}`);
  return {
    ...(t as Target),
    name: t.name ?? where,
    protocol: protocol!,
    rules: rulesOf(protocol!),
    bidTimeoutMs: t.bidTimeoutMs ?? UPSTREAM_BID_TIMEOUT_MS,
    decisionTimeoutMs: t.decisionTimeoutMs ?? UPSTREAM_DECISION_TIMEOUT_MS,
    bidsInFlight: t.bidsInFlight ?? [...CONCURRENCY_DEFAULTS.bidsInFlight],
    concurrentBids: t.concurrentBids ?? CONCURRENCY_DEFAULTS.concurrentBids,
    capabilities: caps,
  };
}

/**
 * The target file a command was told to use (`--target`, else TARGET; `name` is whichever is set), checked before
 * anything starts. undefined when neither is set, and only then may the command start a devnet of its own: an empty
 * name or one of no file is a TargetFileError, so that a run meant for one implementation never tests another.
 */
export function namedTargetFile(name: string | undefined = process.env.TARGET): string | undefined {
  if (name === undefined) return undefined;
  if (name.trim() === "")
    throw new TargetFileError(
      "--target (or TARGET) is empty: name a target file, or unset it for a devnet of the command's own",
    );
  const path = resolve(name);
  if (!existsSync(path)) throw new TargetFileError(`target file ${path} does not exist (--target or TARGET)`);
  return path;
}

/** Reads and checks a target file. */
export function loadTargetFile(path: string): Target {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new TargetFileError(`cannot read target file ${path}: ${(e as Error).message}`);
  }
  return parseTarget(raw, `target file ${path}`);
}

export interface StartedTarget {
  target: Target;
  /** True when the suite started the target itself (the reference devnet). */
  ownDevnet: boolean;
  /** The target file, when the target is one (what the run changes on it is recorded next to it: targetChanges.ts). */
  file?: string;
  stop(): Promise<void>;
}

/** The bidder withdrawal period of the suite's own protocol v1.2 devnet, in settlement-chain milliseconds. */
export const OWN_DEVNET_WITHDRAWAL_PERIOD_MS = 5_000;

/** The suite's own devnet: the decision timeout is shorter than the bid timeout, so that both can be checked. */
export const OWN_DEVNET_TIMEOUTS = { bidTimeoutMs: 5_000, decisionTimeoutMs: 3_000 } as const;

/**
 * The target of this run: the file named by `file` (--target, else TARGET), or, when neither is set, a reference
 * devnet of `protocol` the suite starts itself (manual L1 mining, no auto-accept, no auto-deposit, every port
 * picked free, state in a temp dir, its log `devnet.log` in `reportsDir`). With a target file, the file's
 * `"protocol"` decides; `protocol`, when given, must agree with it.
 */
export async function startTarget(
  file = process.env.TARGET,
  reportsDir = "reports",
  protocol: ProtocolVersion | undefined = envProtocol(),
): Promise<StartedTarget> {
  const named = namedTargetFile(file);
  if (named) {
    const target = loadTargetFile(named);
    if (protocol && protocol !== target.protocol)
      throw new TargetFileError(
        `the target file ${named} speaks protocol ${target.protocol} (its "protocol" field; absent means ${DEFAULT_PROTOCOL_VERSION}), not ${protocol}: the file decides; drop --protocol`,
      );
    return { target, ownDevnet: false, file: named, stop: async () => {} };
  }
  // The only way into node/: the launcher of the reference devnet, loaded only when there is no target file.
  const { startLocalDevnet } = await import("../../node/devnet/localDevnet.ts");
  const { devnet, stop } = await startLocalDevnet(
    // Three providers: the third is the one the unstake scenario may take out of the registry for good.
    // 64 past settlement states (the devnet keeps none by default): the settlement checks read the registries at
    // a settlement's block and the one before (features/support/settlement.ts), some time after it was mined.
    {
      autoAccept: false,
      autodepositAmount: undefined,
      providers: 3,
      settlementHistory: 64,
      ...OWN_DEVNET_TIMEOUTS,
      // The devnet's `protocol` setting. A version with a bidder withdrawal period gets a short one (upstream
      // deploys 10 minutes), so that the withdrawal after the period runs in seconds.
      ...(protocol ? { protocol } : {}),
      ...(protocol && rulesOf(protocol).withdrawalPeriod
        ? { bidderWithdrawalPeriodMs: OWN_DEVNET_WITHDRAWAL_PERIOD_MS }
        : {}),
    },
    join(reportsDir, "devnet.log"),
  );
  const target = parseTarget(devnet.target(), "the reference devnet's target");
  const wanted = protocol ?? DEFAULT_PROTOCOL_VERSION;
  if (target.protocol !== wanted) {
    await stop();
    throw new TargetFileError(
      `the reference devnet started for protocol ${wanted} describes itself as ${target.protocol}: this devnet cannot start a ${wanted} network`,
    );
  }
  return { target, ownDevnet: true, stop };
}

/** The protocol of the suite's own devnet from the environment (PROTOCOL), for plain cucumber-js runs. */
export function envProtocol(env = process.env): ProtocolVersion | undefined {
  const text = env.PROTOCOL;
  if (text === undefined || text === "") return undefined;
  try {
    return parseProtocolVersion(text);
  } catch (e) {
    throw new TargetFileError(`PROTOCOL: ${(e as Error).message}`);
  }
}
