/** Helpers shared by the bench phases (scenarios/bench/bids.bench.ts): SendBid over HTTP, percentiles, formatting. */

/** What one SendBid call gave. */
import { Bidder } from "../../node/gen/proto/bidderapi/v1/bidderapi_pb.ts";
import { GrpcCallError, GrpcClient } from "../../node/grpc/client.ts";

export interface BidResult {
  status: number;
  commitments: number;
  errorLine?: string;
  firstMs?: number;
  /** Bid digest of the first commitment line (hex), to find the bid in a stage trace. */
  digest?: string;
  endMs: number;
  /** performance.now() when the request was sent. */
  startedAt?: number;
  failure?: string;
}

/** POST /v1/bidder/bid and reads the NDJSON stream to its end, counting commitment lines. */
export async function sendBid(bidderUrl: string, body: string): Promise<BidResult> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${bidderUrl}/v1/bidder/bid`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let commitments = 0;
    let firstMs: number | undefined;
    let errorLine: string | undefined;
    let digest: string | undefined;
    const take = (line: string) => {
      if (!line.trim()) return;
      if (line.startsWith('{"result"')) {
        commitments++;
        if (firstMs === undefined) {
          firstMs = performance.now() - t0;
          digest = /"receivedBidDigest":"([0-9a-f]+)"/.exec(line)?.[1];
        }
      } else errorLine ??= line.trim();
    };
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        take(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    }
    take(buffer + decoder.decode());
    return {
      status: res.status,
      commitments,
      errorLine,
      firstMs,
      digest,
      endMs: performance.now() - t0,
      startedAt: t0,
    };
  } catch (e) {
    return { status: 0, commitments: 0, endMs: performance.now() - t0, failure: (e as Error).message };
  }
}

/**
 * Bid bodies for POST /v1/bidder/bid (and the gRPC sender), one per call: the i-th has a distinct transaction hash
 * (from `seed`, so two drivers of one run never send the same hash), the block `block(i)`, the amount `amount(i)`
 * wei and a 12 s decay from now. `counter` lets several makers share one sequence (default: their own).
 */
export function bidBodies(o: {
  seed: bigint;
  block: (i: number) => bigint;
  amount?: (i: number) => number;
  counter?: { next: number };
}): () => string {
  const counter = o.counter ?? { next: 0 };
  const amount = o.amount ?? ((i: number) => 1_000_000_000 + i);
  return () => {
    const n = counter.next++;
    const now = Date.now();
    return JSON.stringify({
      txHashes: [(BigInt(n) * 0x9e3779b97f4a7c15n + o.seed).toString(16).padStart(64, "0").slice(-64)],
      amount: String(amount(n)),
      blockNumber: String(o.block(n)),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 12_000),
    });
  };
}

/** Where bids go: the bidder's HTTP base URL, or a function that sends one bid body (e.g. over gRPC). */
export type BidTarget = string | ((body: string) => Promise<BidResult>);

export const senderOf = (t: BidTarget) => (typeof t === "string" ? (body: string) => sendBid(t, body) : t);

/**
 * SendBid over gRPC (bidderapi.v1.Bidder), from the same JSON body the HTTP sender posts: the commitments as they
 * arrive on the server stream, timed like the HTTP lines.
 */
export function grpcBidSender(rpcUrl: string): { send: (body: string) => Promise<BidResult>; close: () => void } {
  const client = new GrpcClient(Bidder, rpcUrl);
  const send = async (body: string): Promise<BidResult> => {
    const j = JSON.parse(body) as {
      txHashes: string[];
      amount: string;
      blockNumber: string;
      decayStartTimestamp: string;
      decayEndTimestamp: string;
    };
    const t0 = performance.now();
    let commitments = 0;
    let firstMs: number | undefined;
    let digest: string | undefined;
    try {
      const req = {
        ...j,
        blockNumber: BigInt(j.blockNumber),
        decayStartTimestamp: BigInt(j.decayStartTimestamp),
        decayEndTimestamp: BigInt(j.decayEndTimestamp),
      };
      for await (const c of client.serverStream("sendBid", req)) {
        commitments++;
        if (firstMs === undefined) {
          firstMs = performance.now() - t0;
          digest = c.receivedBidDigest;
        }
      }
      return { status: 200, commitments, firstMs, digest, endMs: performance.now() - t0, startedAt: t0 };
    } catch (e) {
      const err =
        e instanceof GrpcCallError ? `{"error":{"code":${e.code},"message":${JSON.stringify(e.details)}}}` : undefined;
      return {
        status: err ? 200 : 0,
        commitments,
        firstMs,
        digest,
        errorLine: err,
        endMs: performance.now() - t0,
        startedAt: t0,
        failure: err ? undefined : (e as Error).message,
      };
    }
  };
  return { send, close: () => client.close() };
}

/** Runs `jobs` with at most `concurrency` in flight; results in job order. */
export async function pool<T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

/** Nearest-rank percentile of sorted values. */
export function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const ms = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(1)} ms`);
export const secs = (v: number) => (Number.isNaN(v) ? "n/a" : `${(v / 1000).toFixed(2)} s`);

/** Polls `done` every `everyMs` until it is true or `timeoutMs` passed; answers whether it became true. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 20,
): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (performance.now() >= end) return false;
    await Bun.sleep(everyMs);
  }
}

export { prng } from "../util/prng.ts";
