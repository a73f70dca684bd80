/**
 * The fault soak's figures, from the clients' bids, the faults as applied and the checker's result: what the text
 * summary, the JSON file and the HTML report show. Pure.
 */
import type { FaultSpec } from "../../node/faults/faultSpec.ts";
import type { CheckResult, Fate } from "./checker.ts";
import type { ClientBid, NodeBid } from "./records.ts";
import { describeFault } from "./schedule.ts";

/** A fault as the soak applied it: when it was set and healed, ms from the start of the load. */
export interface AppliedFault {
  spec: FaultSpec;
  at: number;
  until: number;
  /** Why setting it failed, if it did (it then never acted). */
  error?: string;
}

export interface Recovery {
  fault: string;
  healedAt: number;
  /** From the heal to the first commitment of a bid sent after it from each provider the fault cut off; null: none came. */
  ms: number | null;
}

export interface Figures {
  protocol: string;
  seed: number;
  minutes: number;
  streams: number;
  providers: number;
  bids: { sent: number; answered: number; full: number; short: number; none: number; failed: number };
  commitments: { acknowledged: number; perBid: number; latencyMs: { p50: number; p95: number; max: number } };
  fates: Record<Fate, number>;
  lost: number;
  duplicates: number;
  disagreements: number;
  unacknowledged: CheckResult["unacknowledged"];
  faults: { applied: number; failed: number; byKind: Record<string, number> };
  recovery: { medianMs: number | null; maxMs: number | null; notRecovered: number; each: Recovery[] };
  /** Providers that committed to no bid sent after the last heal (when no fault acted): they never came back. */
  silentAfterLastHeal: string[];
  /** Why a bid lacked a provider's commitment, as the nodes' record says (`reason: text`), counted. */
  missing: Record<string, number>;
}

/**
 * Why each short bid lacked each missing provider's commitment, from the nodes' record of the bid (found by its
 * transaction hash): the provider's outcome and reason, or that the bidder did not ask it (no connection to it).
 */
export function missingReasons(
  bids: ClientBid[],
  nodeBids: NodeBid[],
  providerAddresses: string[],
): Record<string, number> {
  const byTx = new Map(nodeBids.map((b) => [b.txnHash.replace(/^0x/, "").toLowerCase(), b]));
  const out: Record<string, number> = {};
  for (const b of bids)
    for (const p of providerAddresses) {
      if (b.commitments.some((c) => c.provider === p)) continue;
      const record = byTx.get(b.txHash.replace(/^0x/, "").toLowerCase());
      const outcome = record?.providers.find((o) => o.provider === p);
      const why = !record
        ? "not in the nodes' record"
        : !outcome
          ? "not asked: the bidder had no connection to it"
          : `${outcome.outcome}${outcome.reason ? ` (${outcome.reason})` : ""}${outcome.commitment ? ": committed, not delivered to the client" : ""}`;
      out[why] = (out[why] ?? 0) + 1;
    }
  return out;
}

const quantile = (xs: number[], q: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]! : 0;

function kindOf(s: FaultSpec): string {
  return s.partition
    ? "partition"
    : s.lossPercent !== undefined
      ? "loss"
      : s.rateKbit !== undefined
        ? "bandwidth"
        : "delay";
}

/**
 * Time to recover after each heal: a fault between the bidder and a provider, on a provider's host or between it and
 * the settlement chain, cut that provider off; one on the bidder's host or its link to the chain every provider. Recovered once a bid sent after the heal got a
 * commitment from each of them (another link's fault may still be acting then: the figure is what a client saw).
 */
export function recoveries(
  faults: AppliedFault[],
  bids: ClientBid[],
  providerNames: string[],
  providerAddresses: string[],
  t0: number,
): Recovery[] {
  return faults
    .filter((f) => !f.error)
    .map((f) => {
      // The providers the fault cut off from the bidder, or from the chain: a provider's own host or link; every
      // provider for the bidder's host or the bidder's link to the settlement chain.
      const provider = f.spec.hosts.find((h) => providerNames.includes(h));
      const cut = provider ? [providerAddresses[providerNames.indexOf(provider)]!] : providerAddresses;
      const healedAt = t0 + f.until;
      const firstFrom = cut.map((p) => {
        const times = bids
          .filter((b) => b.sentAt >= healedAt)
          .flatMap((b) => b.commitments.filter((c) => c.provider === p).map((c) => c.at));
        return times.length ? Math.min(...times) : undefined;
      });
      const ms = firstFrom.some((t) => t === undefined) ? null : Math.max(...(firstFrom as number[])) - healedAt;
      return { fault: describeFault(f.spec), healedAt: f.until, ms };
    })
    .sort((a, b) => a.healedAt - b.healedAt);
}

export function figures(o: {
  nodeBids: NodeBid[];
  protocol: string;
  seed: number;
  minutes: number;
  streams: number;
  providerNames: string[];
  providerAddresses: string[];
  bids: ClientBid[];
  faults: AppliedFault[];
  result: CheckResult;
  t0: number;
}): Figures {
  const n = o.providerAddresses.length;
  const answered = o.bids.filter((b) => b.answered);
  const acked = o.bids.reduce((s, b) => s + b.commitments.length, 0);
  const latencies = o.bids.flatMap((b) => b.commitments.map((c) => c.at - b.sentAt));
  const each = recoveries(o.faults, o.bids, o.providerNames, o.providerAddresses, o.t0);
  const recovered = each.filter((r) => r.ms !== null).map((r) => r.ms!);
  const byKind: Record<string, number> = {};
  for (const f of o.faults.filter((x) => !x.error)) byKind[kindOf(f.spec)] = (byKind[kindOf(f.spec)] ?? 0) + 1;
  const kinds = (k: string) => o.result.findings.filter((f) => f.kind === k).length;
  const lastHeal = o.t0 + Math.max(0, ...o.faults.map((f) => f.until));
  const afterLastHeal = o.bids.filter((b) => b.sentAt >= lastHeal);
  return {
    protocol: o.protocol,
    seed: o.seed,
    minutes: o.minutes,
    streams: o.streams,
    providers: n,
    bids: {
      sent: o.bids.length,
      answered: answered.length,
      full: o.bids.filter((b) => b.commitments.length >= n).length,
      short: o.bids.filter((b) => b.commitments.length > 0 && b.commitments.length < n).length,
      none: o.bids.filter((b) => b.commitments.length === 0).length,
      failed: o.bids.length - answered.length,
    },
    commitments: {
      acknowledged: acked,
      perBid: answered.length ? Number((acked / o.bids.length).toFixed(3)) : 0,
      latencyMs: { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), max: Math.max(0, ...latencies) },
    },
    fates: o.result.fates,
    lost: kinds("lost"),
    duplicates: kinds("duplicate"),
    disagreements: kinds("disagreement"),
    unacknowledged: o.result.unacknowledged,
    faults: {
      applied: o.faults.filter((f) => !f.error).length,
      failed: o.faults.filter((f) => f.error).length,
      byKind,
    },
    recovery: {
      medianMs: recovered.length ? quantile(recovered, 0.5) : null,
      maxMs: recovered.length ? Math.max(...recovered) : null,
      notRecovered: each.length - recovered.length,
      each,
    },
    missing: missingReasons(o.bids, o.nodeBids, o.providerAddresses),
    silentAfterLastHeal: o.providerNames.filter(
      (_, i) => !afterLastHeal.some((b) => b.commitments.some((c) => c.provider === o.providerAddresses[i])),
    ),
  };
}

/** The one-screen text summary. */
export function summaryText(f: Figures, findings: CheckResult["findings"]): string {
  const s = (ms: number | null) => (ms === null ? "–" : `${(ms / 1000).toFixed(1)} s`);
  const lines = [
    `fault soak: protocol ${f.protocol}, seed ${f.seed}, ${f.minutes} min, ${f.streams} client streams, ${f.providers} providers`,
    `  faults        ${f.faults.applied} applied (${Object.entries(f.faults.byKind)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")})${f.faults.failed ? `, ${f.faults.failed} could not be set` : ""}`,
    `  bids          ${f.bids.sent} sent, ${f.bids.answered} answered (${f.bids.full} with every provider's commitment, ${f.bids.short} short, ${f.bids.none} none), ${f.bids.failed} without an answer`,
    `  missing       ${
      Object.entries(f.missing)
        .map(([k, v]) => `${k} ${v}`)
        .join("; ") || "none"
    }`,
    `  commitments   ${f.commitments.acknowledged} acknowledged, ${f.commitments.perBid} per bid; latency p50 ${f.commitments.latencyMs.p50} ms, p95 ${f.commitments.latencyMs.p95} ms, max ${f.commitments.latencyMs.max} ms`,
    `  accounted     ${Object.entries(f.fates)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ", ",
      )}; committed but never acknowledged to a client: ${f.unacknowledged.nodes} (nodes), ${f.unacknowledged.chain} (chain; ${f.unacknowledged.settled} of them settled)`,
    `  recovery      after ${f.recovery.each.length} heals: median ${s(f.recovery.medianMs)}, max ${s(f.recovery.maxMs)}, ${f.recovery.notRecovered} without a commitment after the heal`,
    `  checker       ${f.lost} acknowledged commitments lost, ${f.duplicates} duplicates, ${f.disagreements} disagreements`,
  ];
  if (f.silentAfterLastHeal.length)
    lines.push(
      `  not recovered ${f.silentAfterLastHeal.join(", ")}: no commitment to any bid sent after the last heal (the bidder's nodes' logs say why)`,
    );
  for (const x of findings.slice(0, 10)) lines.push(`    ${x.kind}: ${x.subject}: ${x.detail}`);
  if (findings.length > 10) lines.push(`    … and ${findings.length - 10} more (the JSON file lists them all)`);
  return lines.join("\n");
}
