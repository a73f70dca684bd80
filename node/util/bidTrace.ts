/**
 * Stage timestamps of bids as they cross the nodes of one process, for the benchmark's latency breakdown
 * (scenarios/bench). Off by default: `mark` is then one branch. The key is the bid digest (hex, no 0x); each
 * stage keeps its first time (with two providers, the earlier of the two), from `performance.now()`.
 */
import { bytesToHex } from "../protocol/bytes.ts";

export type BidStage =
  | "bidder.received"
  | "bidder.signed"
  | "provider.received"
  | "provider.verified"
  | "provider.reserved"
  | "provider.dispatched"
  | "provider.decided"
  | "provider.signed"
  | "provider.recorded"
  | "bidder.reply"
  | "bidder.verified"
  | "bidder.recorded"
  | "bidder.streamed";

let enabled = false;
const marks = new Map<string, Partial<Record<BidStage, number>>>();

export function setBidTracing(on: boolean): void {
  enabled = on;
  if (!on) marks.clear();
}

export function bidTracing(): boolean {
  return enabled;
}

/** Records when a bid reached `stage` (no-op unless tracing is on); `at` for a time taken before the digest was known. */
export function markBid(digest: Uint8Array | string, stage: BidStage, at?: number): void {
  if (!enabled) return;
  const key = typeof digest === "string" ? digest : bytesToHex(digest);
  let m = marks.get(key);
  if (!m) marks.set(key, (m = {}));
  m[stage] ??= at ?? performance.now();
}

/** The stages a bid reached, removed from the trace. */
export function takeBidTrace(digestHex: string): Partial<Record<BidStage, number>> | undefined {
  const m = marks.get(digestHex);
  marks.delete(digestHex);
  return m;
}
