/**
 * Where a simulation runs: a reference devnet it starts itself (every part of a scenario works), or an existing
 * target named by a target file (TARGET=file), where steps that need the control API are refused up front.
 */
import { readFileSync } from "node:fs";
import { MevCommitError } from "../../../lib/errors.ts";
import { ControlClient } from "../../../node/clients/control.ts";
import type { Target } from "../../../node/clients/target.ts";
import { parseProtocolVersion } from "../../../node/protocol/protocolVersion.ts";
import { type ProtocolRules, rulesOf } from "../../../node/protocol/rules.ts";
import type { Scenario } from "../scenario/schema.ts";

/** A node of the run: its HTTP URL, its gRPC URL when known, its address. */
export interface SimNode {
  url: string;
  rpcUrl?: string;
  address: string;
}

export interface SimNodes {
  bidders: SimNode[];
  providers: SimNode[];
}

export interface SimEnvironment {
  name: string;
  target: Target;
  /** The protocol the environment speaks: where deposits sit and which money flows the ledger checks follow. */
  rules: ProtocolRules;
  /** The control API, when the target has it (sim-control). */
  control?: ControlClient;
  /** L1 blocks the oracle waits before recording a block's winner. */
  oracleLag: number;
  nodes(): Promise<SimNodes>;
  stop(): Promise<void>;
}

export class SimEnvironmentError extends MevCommitError {}

/** What in a scenario needs the control API (empty: it can run against any target). */
export function controlNeeds(s: Scenario): string[] {
  const needs: string[] = [];
  if (s.l1.blockTime === "manual") needs.push("l1.blockTime manual (the runner mines each block)");
  if (s.l1.winners.type !== "round-robin")
    needs.push(`l1.winners ${s.l1.winners.type} (the runner names each block's winner)`);
  if (s.faults.length) needs.push("faults (provider nodes stopped and started, failing transactions)");
  s.providers.forEach((p, i) => {
    if (p.builder.mode !== "honest") needs.push(`providers[${i}].builder ${p.builder.mode} (the devnet's builder)`);
  });
  return needs;
}

/**
 * The deposit a v1.2 reference devnet makes for every bidder with each provider before its nodes start: the largest
 * of the scenario's deposit plans, so that every simulated bidder starts with at least its plan with each provider.
 */
export function v12StartDeposit(s: Scenario): bigint {
  return s.bidders.reduce((m, b) => (b.deposit.amount > m ? b.deposit.amount : m), 0n);
}

/**
 * Starts a reference devnet shaped for the scenario: manual L1, no built-in responders. v1.1: no auto-deposit (the
 * simulated bidders deposit per window). v1.2: the devnet deposits `v12StartDeposit` per bidder and provider.
 */
export async function referenceDevnet(s: Scenario, logFile: string, rules: ProtocolRules): Promise<SimEnvironment> {
  const { startLocalDevnet } = await import("../../../node/devnet/localDevnet.ts");
  const local = await startLocalDevnet(
    {
      protocol: rules.version,
      providers: s.providers.length,
      bidders: s.bidders.length,
      network: "in-process",
      autoAccept: false,
      autodepositAmount: rules.deposits === "provider" ? v12StartDeposit(s) : undefined,
      l1BlockTime: 0,
      logLevel: "info",
      settlementKeepBlocks: 0,
    },
    logFile,
  );
  const target = local.devnet.target();
  const control = new ControlClient(target.controlUrl!);
  return {
    name: "reference devnet",
    target,
    rules,
    control,
    oracleLag: local.devnet.config.oracleLag,
    async nodes() {
      const st = await control.status();
      const pick = (role: "bidder" | "provider") =>
        st.nodes
          .filter((n) => n.role === role)
          .map((n) => ({ url: n.url!, rpcUrl: n.rpcUrl ?? undefined, address: n.address.toLowerCase() }));
      return { bidders: pick("bidder"), providers: pick("provider") };
    },
    stop: () => local.stop(),
  };
}

/** An existing implementation, from its target file. */
export function targetEnvironment(file: string, s: Scenario): SimEnvironment {
  let target: Target & { bidderUrls?: string[]; bidderRpcUrls?: string[]; bidderAddresses?: string[] };
  try {
    target = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new SimEnvironmentError(`cannot read the target file ${file}: ${(e as Error).message}`);
  }
  const hasControl = Boolean(target.controlUrl) && target.capabilities?.includes("sim-control");
  const needs = controlNeeds(s);
  if (!hasControl && needs.length)
    throw new SimEnvironmentError(
      `${target.name ?? file} has no control API (capability sim-control), which this scenario needs for:\n  - ${needs.join("\n  - ")}\n` +
        "Run it on the reference devnet (no TARGET), or use a scenario with l1.blockTime in seconds and none of these.",
    );
  const bidderUrls = target.bidderUrls ?? [target.bidderUrl];
  const bidderAddresses = target.bidderAddresses ?? [target.bidderAddress];
  if (s.bidders.length > bidderUrls.length)
    throw new SimEnvironmentError(
      `the scenario has ${s.bidders.length} bidders but ${target.name ?? file} names ${bidderUrls.length} bidder node(s)`,
    );
  if (s.providers.length !== target.providerUrls.length)
    throw new SimEnvironmentError(
      `the scenario has ${s.providers.length} providers but ${target.name ?? file} names ${target.providerUrls.length} provider node(s)`,
    );
  return {
    name: target.name ?? file,
    target,
    rules: rulesOf(parseProtocolVersion(target.protocol)),
    control: hasControl ? new ControlClient(target.controlUrl!) : undefined,
    oracleLag: 1,
    async nodes() {
      return {
        bidders: bidderUrls.map((url, i) => ({
          url,
          rpcUrl: (target.bidderRpcUrls ?? [target.bidderRpcUrl])[i],
          address: bidderAddresses[i]!.toLowerCase(),
        })),
        providers: target.providerUrls.map((url, i) => ({
          url,
          rpcUrl: target.providerRpcUrls?.[i],
          address: target.providerAddresses[i]!.toLowerCase(),
        })),
      };
    },
    stop: async () => {},
  };
}
