/**
 * The fixed fault schedules of `npm run bench:faults` (faultSchedules.ts) and what is made of their bids, as pure
 * data and arithmetic: which fault each schedule sets on which hosts, the figures of one schedule's bids, and the
 * table that prints them.
 */

/** The kinds of fault a target's control API offers (`/sim/v1/network/faults`). */
export type FaultKind = "partition" | "loss" | "bandwidth" | "delay";

export interface FaultSchedule {
  name: string;
  /** What the table's first column says. */
  title: string;
  kind: FaultKind;
  /** The fault's fields for POST /sim/v1/network/faults, without `hosts`. */
  fault: Record<string, number | boolean>;
  /** Between the bidder and the provider (a pair), or on the provider's host alone (all its traffic). */
  on: "pair" | "provider";
  /** Bids before the fault, with the fault in place, and after the heal (ms). */
  beforeMs: number;
  faultMs: number;
  afterMs: number;
}

/** The schedules, in the order they run; each faults the target's last provider. `scale` shortens every phase. */
export function faultSchedules(scale = 1): FaultSchedule[] {
  const ms = (v: number) => Math.max(1000, Math.round(v * scale));
  const phases = { beforeMs: ms(5_000), faultMs: ms(20_000), afterMs: ms(20_000) };
  return [
    {
      name: "partition",
      title: `partition bidder/provider, ${phases.faultMs / 1000} s, heal`,
      kind: "partition",
      fault: { partition: true },
      on: "pair",
      ...phases,
    },
    {
      name: "loss",
      title: "5 % loss on a provider",
      kind: "loss",
      fault: { lossPercent: 5 },
      on: "provider",
      ...phases,
    },
    {
      name: "rate",
      title: "128 kbit/s cap on a provider",
      kind: "bandwidth",
      fault: { rateKbit: 128 },
      on: "provider",
      ...phases,
    },
    {
      name: "delay",
      title: "150 ms (±20 ms) delay on a provider",
      kind: "delay",
      fault: { delayMs: 150, jitterMs: 20 },
      on: "provider",
      ...phases,
    },
  ];
}

/** The fault body a schedule posts, on the hosts the target's bidder and faulted provider run on. */
export function faultBody(s: FaultSchedule, hosts: { bidder: string; provider: string }): Record<string, unknown> {
  return { hosts: s.on === "pair" ? [hosts.bidder, hosts.provider] : [hosts.provider], ...s.fault };
}

/** One bid of a schedule: when it was sent and ended (ms since the schedule began), and what it got. */
export interface ScheduledBid {
  sentMs: number;
  endMs: number;
  /** HTTP status; 0 when the request failed. */
  status: number;
  /** The commitments' digests (hex, lower case, no 0x), one per commitment line. */
  digests: string[];
  /** An error line of the stream, or the request's failure. */
  error?: string;
}

export interface ScheduleFigures {
  bids: number;
  /** Bids whose stream ended with HTTP 200 and no error line. */
  answered: number;
  /** Mean commitments per bid over the bids sent while the fault was in place, and over every bid. */
  commitmentsPerBidInFault: number;
  commitmentsPerBid: number;
  /** Commitment lines received (each an acknowledged commitment) and how many of them the chain does not show. */
  acknowledged: number;
  lost: number;
  /**
   * From the heal to the end of the first bid sent after it that got a commitment from every provider (ms);
   * undefined when none did before the schedule ended.
   */
  recoverMs: number | undefined;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

/**
 * The figures of one schedule's bids: the fault was set at `faultAtMs` and healed at `healAtMs`; `stored` holds the
 * commitment digests the settlement chain shows (hex, lower case, no 0x).
 */
export function scheduleFigures(
  bids: ScheduledBid[],
  o: { faultAtMs: number; healAtMs: number; providers: number; stored: ReadonlySet<string> },
): ScheduleFigures {
  const inFault = bids.filter((b) => b.sentMs >= o.faultAtMs && b.sentMs < o.healAtMs);
  const digests = bids.flatMap((b) => b.digests);
  const full = bids
    .filter((b) => b.sentMs >= o.healAtMs && b.digests.length >= o.providers)
    .sort((a, b) => a.endMs - b.endMs)[0];
  return {
    bids: bids.length,
    answered: bids.filter((b) => b.status === 200 && !b.error).length,
    commitmentsPerBidInFault: mean(inFault.map((b) => b.digests.length)),
    commitmentsPerBid: mean(bids.map((b) => b.digests.length)),
    acknowledged: digests.length,
    lost: digests.filter((d) => !o.stored.has(d)).length,
    recoverMs: full ? Math.max(0, full.endMs - o.healAtMs) : undefined,
  };
}

/** A digest as the stream or the chain writes it, made comparable: hex, lower case, no 0x. */
export function normalDigest(hex: string): string {
  return hex.replace(/^0x/i, "").toLowerCase();
}

/** One row of the table: a schedule's figures, or why it did not run. */
export interface ScheduleRow {
  schedule: FaultSchedule;
  figures?: ScheduleFigures;
  unavailable?: string;
}

const num = (v: number, digits = 2) => (Number.isNaN(v) ? "n/a" : v.toFixed(digits));

const recovery = (ms: number | undefined) =>
  ms === undefined ? "not recovered" : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;

/** The table, in Markdown: one row per schedule. */
export function scheduleTable(rows: ScheduleRow[]): string[] {
  const head = [
    "| Schedule | Bids answered | Commitments per bid (in the fault / all) | Acknowledged commitments lost | Time to recover after the heal |",
    "| --- | --- | --- | --- | --- |",
  ];
  return [
    ...head,
    ...rows.map(({ schedule: s, figures: f, unavailable }) =>
      !f
        ? `| ${s.title} | unavailable: ${unavailable ?? "not run"} | | | |`
        : `| ${s.title} | ${f.answered}/${f.bids} | ${num(f.commitmentsPerBidInFault)} / ${num(f.commitmentsPerBid)} | ${f.lost} of ${f.acknowledged} | ${recovery(f.recoverMs)} |`,
    ),
  ];
}
