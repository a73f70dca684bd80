/**
 * The fault soak's seeded random fault schedule: on every link (the bidder with each provider, and each host on its
 * own) faults come and go, each lasting a few seconds, with healthy gaps between them, one at a time per link (links
 * overlap). Pure: the same seed, hosts and kinds give the same schedule.
 */
import { type FaultKind, type FaultSpec, isPseudoHost } from "../../node/faults/faultSpec.ts";
import { prng, seedFrom } from "../../scenarios/util/prng.ts";

export interface ScheduledFault {
  /** From the start of the load, ms. */
  at: number;
  until: number;
  spec: FaultSpec;
}

export interface ScheduleOptions {
  seed: number;
  /** The load's length, ms; every fault has healed `quietMs` before its end. */
  durationMs: number;
  quietMs: number;
  /** The devnet's hosts: `bidder` and `provider-0`, … */
  hosts: string[];
  /** The kinds the devnet offers (GET /sim/v1/network/faults `available`). */
  available: FaultKind[];
  /** How long a fault lasts and the healthy gap after it, ms (default 2–8 s and 6–25 s). */
  faultMs?: [number, number];
  gapMs?: [number, number];
}

/**
 * The links faults go on: each bidder–provider pair, each host on its own, and each host with the settlement chain
 * (the `settlement` pseudo-host, where the devnet lists it). The other pseudo-hosts (`clients`, `root`) are left alone:
 * the soak's own clients and the devnet's control API must keep their view.
 */
export function linksOf(hosts: readonly string[]): string[][] {
  const real = hosts.filter((h) => !isPseudoHost(h));
  const providers = real.filter((h) => h !== "bidder");
  return [
    ...providers.map((p) => ["bidder", p]),
    ...real.map((h) => [h]),
    ...(hosts.includes("settlement") ? real.map((h) => [h, "settlement"]) : []),
  ];
}

function between(r: () => number, [lo, hi]: [number, number]): number {
  return Math.round(lo + r() * (hi - lo));
}

/** One fault of a kind the link can take (a partition only between a pair), with random settings. */
function randomFault(r: () => number, hosts: string[], available: FaultKind[]): FaultSpec | undefined {
  // Towards a pseudo-host only a partition or loss (its rules sit in the host's namespace alone).
  const kinds = available.filter(
    (k) =>
      (k !== "partition" || hosts.length === 2) && (!hosts.some(isPseudoHost) || k === "partition" || k === "loss"),
  );
  if (!kinds.length) return undefined;
  const kind = kinds[Math.floor(r() * kinds.length)]!;
  const spec: FaultSpec = { hosts };
  if (kind === "partition") spec.partition = true;
  else if (kind === "loss") spec.lossPercent = between(r, [5, 40]);
  else if (kind === "bandwidth") spec.rateKbit = between(r, [32, 512]);
  else {
    spec.delayMs = between(r, [50, 200]);
    spec.jitterMs = between(r, [0, 50]);
  }
  return spec;
}

export function faultSchedule(o: ScheduleOptions): ScheduledFault[] {
  const faultMs = o.faultMs ?? [2_000, 8_000];
  const gapMs = o.gapMs ?? [6_000, 25_000];
  const end = o.durationMs - o.quietMs;
  const out: ScheduledFault[] = [];
  for (const hosts of linksOf(o.hosts)) {
    const r = prng(seedFrom(o.seed, hosts.join("/")));
    for (let t = between(r, [1_000, gapMs[1]]); ; ) {
      const until = t + between(r, faultMs);
      if (until > end) break;
      const spec = randomFault(r, hosts, o.available);
      if (!spec) break;
      out.push({ at: t, until, spec });
      t = until + between(r, gapMs);
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A fault in words: `bidder/provider-1 partition`, `provider-0 loss 12%`, `bidder rate 64kbit`. */
export function describeFault(spec: FaultSpec): string {
  const parts: string[] = [];
  if (spec.partition) parts.push("partition");
  if (spec.lossPercent !== undefined) parts.push(`loss ${spec.lossPercent}%`);
  if (spec.rateKbit !== undefined) parts.push(`rate ${spec.rateKbit}kbit`);
  if (spec.delayMs !== undefined) parts.push(`delay ${spec.delayMs}±${spec.jitterMs ?? 0}ms`);
  return `${spec.hosts.join("/")} ${parts.join(",")}`;
}
