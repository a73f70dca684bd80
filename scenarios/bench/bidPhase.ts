/**
 * The bid phases of bids.bench.ts: drive bids through the bidder's SendBid (closed loop with C in flight, or open
 * loop at a rate), then summarise throughput, latency and, when the nodes were traced (node/util/bidTrace.ts), where
 * the first commitment's time went stage by stage.
 */
import { type BidStage, takeBidTrace } from "../../node/util/bidTrace.ts";
import { type BidResult, type BidTarget, ms, pct, senderOf } from "./common.ts";

export interface Driven {
  results: BidResult[];
  seconds: number;
}

/** N bids with at most C in flight (closed loop). */
export async function driveClosed(
  bidder: BidTarget,
  body: () => string,
  count: number,
  concurrency: number,
): Promise<Driven> {
  const send = senderOf(bidder);
  const results: BidResult[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        next++;
        results.push(await send(body()));
      }
    }),
  );
  return { results, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Bids sent at `perSecond` for `seconds` whatever the answers (open loop), at most `maxInFlight` at once (a bid
 * that would exceed it is counted as not sent): floor(seconds × perSecond) bids sent or not sent in all. `tick` runs about every second with the results so far.
 */
export async function driveOpen(
  bidder: BidTarget,
  body: () => string,
  perSecond: number,
  seconds: number,
  maxInFlight: number,
  tick?: (done: BidResult[], elapsedS: number) => void | Promise<void>,
): Promise<Driven & { skipped: number }> {
  const send = senderOf(bidder);
  const results: BidResult[] = [];
  const inFlight = new Set<Promise<void>>();
  let skipped = 0;
  let sent = 0;
  const t0 = performance.now();
  let nextTick = 1;
  const total = Math.floor(seconds * perSecond);
  for (;;) {
    const elapsed = (performance.now() - t0) / 1000;
    // Every bid due by `seconds` is sent (or counted as not sent), even when this turn came late.
    const due = Math.min(total, Math.floor(elapsed * perSecond));
    while (sent < due) {
      sent++;
      if (inFlight.size >= maxInFlight) {
        skipped++;
        continue;
      }
      const p = send(body()).then((r) => {
        results.push(r);
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    if (tick && elapsed >= nextTick) {
      nextTick = Math.floor(elapsed) + 1;
      await tick(results, elapsed);
    }
    if (elapsed >= seconds) break;
    await Bun.sleep(Math.max(1, Math.min(20, ((sent + 1) / perSecond - elapsed) * 1000)));
  }
  await Promise.all(inFlight);
  return { results, seconds: (performance.now() - t0) / 1000, skipped };
}

export interface BidSummary {
  bids: number;
  commitments: number;
  seconds: number;
  bidsPerSec: number;
  commitmentsPerSec: number;
  first: { p50: number; p99: number; max: number };
  full: { p50: number; p99: number; max: number };
  errors: number;
  short: number;
  firstError?: string;
}

export function summarise(d: Driven, providers: number): BidSummary {
  const { results, seconds } = d;
  const commitments = results.reduce((n, r) => n + r.commitments, 0);
  const first = results
    .filter((r) => r.firstMs !== undefined)
    .map((r) => r.firstMs!)
    .sort((a, b) => a - b);
  const full = results
    .filter((r) => r.status === 200 && !r.failure)
    .map((r) => r.endMs)
    .sort((a, b) => a - b);
  const bad = results.filter((r) => r.failure || r.status !== 200 || r.errorLine);
  const short = results.filter((r) => r.status === 200 && !r.failure && r.commitments < providers);
  const sample = bad[0];
  const stats = (v: number[]) => ({ p50: pct(v, 50), p99: pct(v, 99), max: v.at(-1) ?? NaN });
  return {
    bids: results.length,
    commitments,
    seconds,
    bidsPerSec: results.length / seconds,
    commitmentsPerSec: commitments / seconds,
    first: stats(first),
    full: stats(full),
    errors: bad.length,
    short: short.length,
    firstError: sample ? (sample.failure ?? sample.errorLine ?? `HTTP ${sample.status}`) : undefined,
  };
}

export function summaryLines(s: BidSummary, providers: number): string[] {
  return [
    `throughput:          ${s.bidsPerSec.toFixed(1)} bids/s, ${s.commitmentsPerSec.toFixed(1)} commitments/s (${s.bids} bids in ${s.seconds.toFixed(2)} s)`,
    `first commitment:    p50 ${ms(s.first.p50)}, p99 ${ms(s.first.p99)}, max ${ms(s.first.max)}  (SendBid sent → first commitment line)`,
    `full stream:         p50 ${ms(s.full.p50)}, p99 ${ms(s.full.p99)}, max ${ms(s.full.max)}  (SendBid sent → end of stream)`,
    `errors:              ${s.errors} (failed, non-200 or error line); bids with fewer than ${providers} commitments: ${s.short}` +
      (s.firstError ? `; first: ${s.firstError.slice(0, 200)}` : ""),
  ];
}

/** The path of a first commitment, stage by stage (node/util/bidTrace.ts), with what each step covers. */
const STAGES: [BidStage | "client.sent" | "client.line", string][] = [
  ["client.sent", ""],
  ["bidder.received", "client → bidder HTTP: request sent, read, parsed and validated"],
  ["bidder.signed", "bidder: sign the bid (BN254 key pair + digest + secp256k1)"],
  ["provider.received", "bidder → provider over the network"],
  ["provider.verified", "provider: verify the bid (digest + recover)"],
  ["provider.reserved", "provider: check and reserve the deposit allowance"],
  ["provider.dispatched", "provider: hand the bid to a ReceiveBids stream"],
  ["provider.decided", "provider application round trip (ReceiveBids line → SendProcessedBids decision)"],
  ["provider.signed", "provider: sign the commitment (shared point + secp256k1)"],
  ["provider.recorded", "provider: record the commitment (SQLite) and queue its store transaction"],
  ["bidder.reply", "provider → bidder over the network"],
  ["bidder.verified", "bidder: verify the commitment (shared point + recover)"],
  ["bidder.recorded", "bidder: record the commitment (SQLite)"],
  ["bidder.streamed", "bidder: hand it to the SendBid stream"],
  ["client.line", "bidder HTTP stream → client line"],
];

/**
 * Median time of each stage of the first commitment's path over the traced bids, with its share, beside the mean
 * of each stage over the slowest 1 % of them (at least 3 bids): where a p99 comes from.
 */
export function breakdownLines(results: BidResult[]): string[] {
  const rows: { first: number; steps: number[] }[] = [];
  for (const r of results) {
    if (!r.digest || r.startedAt === undefined || r.firstMs === undefined) continue;
    const t = takeBidTrace(r.digest);
    if (!t) continue;
    const times = STAGES.map(([s]) =>
      s === "client.sent" ? r.startedAt! : s === "client.line" ? r.startedAt! + r.firstMs! : t[s],
    );
    if (times.some((v) => v === undefined)) continue;
    rows.push({ first: r.firstMs, steps: times.slice(1).map((v, i) => Math.max(0, v! - times[i]!)) });
  }
  if (!rows.length) return ["breakdown:           no traced bid completed"];
  const medians = STAGES.slice(1).map((_, i) =>
    pct(
      rows.map((r) => r.steps[i]!).sort((a, b) => a - b),
      50,
    ),
  );
  const total = medians.reduce((a, b) => a + b, 0);
  const slowest = [...rows].sort((a, b) => b.first - a.first).slice(0, Math.max(3, Math.ceil(rows.length / 100)));
  const slowMeans = STAGES.slice(1).map((_, i) => slowest.reduce((a, r) => a + r.steps[i]!, 0) / slowest.length);
  const slowFirst = slowest.reduce((a, r) => a + r.first, 0) / slowest.length;
  return [
    `breakdown of the first commitment (median of ${rows.length} bids per step, steps sum to ${ms(total)}; ` +
      `mean over the slowest ${slowest.length}, first commitment ${ms(slowFirst)}):`,
    `     median          slowest`,
    ...STAGES.slice(1).map(
      ([, what], i) =>
        `  ${ms(medians[i]!).padStart(9)}  ${((100 * medians[i]!) / total).toFixed(0).padStart(3)} %  ${ms(slowMeans[i]!).padStart(9)}  ${what}`,
    ),
  ];
}
