/**
 * Bid → commitment benchmark: `bun run bench:bids [--bids N] [--concurrency C] [--providers P] [--warmup W]`.
 *
 * Starts a reference devnet in this process (fresh temp data dir, free ports, manual L1 mining, the built-in
 * accept-all provider applications, auto-deposit of a large amount), drives N bids through the bidder's SendBid with
 * C in flight, and prints throughput and latency: SendBid → first commitment line, and SendBid → end of the stream.
 * Everything runs on this machine and in this process (chains excepted), so the numbers are the whole devnet's.
 * It measures and prints; it never fails on speed (exit 1 only when the devnet cannot start or no bid got any
 * commitment at all).
 */
import os from "node:os";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseEther } from "viem";
import { DEFAULTS } from "../../node/devnet/config.ts";
import { startDevnet } from "../../node/devnet/startDevnet.ts";
import { freePort } from "../../node/util/ports.ts";
import { setLogSink } from "../../node/util/log.ts";

const { values: args } = parseArgs({
  options: {
    bids: { type: "string", default: "300" },
    concurrency: { type: "string", default: "8" },
    providers: { type: "string", default: "2" },
    warmup: { type: "string", default: "10" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log("Usage: bun run bench:bids [--bids N (300)] [--concurrency C (8)] [--providers P (2)] [--warmup W (10)]");
  process.exit(0);
}
const N = positive("bids", args.bids!);
const C = positive("concurrency", args.concurrency!);
const P = positive("providers", args.providers!);
const WARMUP = Number(args.warmup);

function positive(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer, got "${v}"`);
    process.exit(2);
  }
  return n;
}

/** What one SendBid call gave. */
interface BidResult {
  status: number;
  commitments: number;
  errorLine?: string;
  firstMs?: number;
  endMs: number;
  failure?: string;
}

async function sendBid(bidderUrl: string, body: string): Promise<BidResult> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${bidderUrl}/v1/bidder/bid`, { method: "POST", body, headers: { "content-type": "application/json" } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let commitments = 0;
    let firstMs: number | undefined;
    let errorLine: string | undefined;
    const take = (line: string) => {
      if (!line.trim()) return;
      if (line.startsWith('{"result"')) {
        commitments++;
        firstMs ??= performance.now() - t0;
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
    return { status: res.status, commitments, errorLine, firstMs, endMs: performance.now() - t0 };
  } catch (e) {
    return { status: 0, commitments: 0, endMs: performance.now() - t0, failure: (e as Error).message };
  }
}

/** Nearest-rank percentile of sorted values. */
function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const ms = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(1)} ms`);

// ------------------------------------------------------------------------------------------- devnet

const cpus = os.cpus();
const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
console.log(
  `machine: ${cpus.length} cores (os.cpus().length), ${cpus[0]?.model ?? "unknown CPU"}; ${os.platform()}-${os.arch()}, Bun ${Bun.version}; load average ${load} at start`,
);

mkdirSync("reports", { recursive: true });
const logFile = join("reports", "bench-bids.log");
writeFileSync(logFile, "");
setLogSink((line) => appendFileSync(logFile, line + "\n"));
const dataDir = mkdtempSync(join(os.tmpdir(), "mev-commit-bench-"));
const tStart = performance.now();
let devnet;
try {
  devnet = await startDevnet({
    ...DEFAULTS,
    dataDir,
    fresh: true,
    providers: P,
    bidderPort: 0,
    providerPorts: Array.from({ length: P }, () => 0),
    controlPort: 0,
    l1Port: await freePort(),
    settlementPort: await freePort(),
    l1BlockTime: 0,
    autoAccept: true,
    autodepositAmount: parseEther("1000"),
    logLevel: "info",
  });
} catch (e) {
  console.error(`the devnet did not start: ${(e as Error).message} (log: ${logFile})`);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}
const target = devnet.target();
const head = await devnet.l1Client.getBlockNumber({ cacheTime: 0 });
// Auto-deposit covers the window of the next block and the one after: 20 blocks, 100 ETH of allowance each.
const firstBlock = ((head + 1n - 1n) / 10n) * 10n + 1n;
console.log(
  `devnet: 1 bidder, ${P} providers with accept-all applications, auto-deposit 1000 ETH/window; up in ${((performance.now() - tStart) / 1000).toFixed(1)} s (log: ${logFile})`,
);

let seq = 0;
function bidBody(): string {
  const i = seq++;
  const now = Date.now();
  const hash = (BigInt(i) * 0x9e3779b97f4a7c15n + 0x1234567n).toString(16).padStart(64, "0").slice(-64);
  return JSON.stringify({
    txHashes: [hash],
    amount: String(1_000_000_000 + i),
    blockNumber: String(firstBlock + BigInt(i % 20)),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 12_000),
  });
}

async function drive(count: number, concurrency: number): Promise<{ results: BidResult[]; seconds: number }> {
  const results: BidResult[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        next++;
        results.push(await sendBid(target.bidderUrl, bidBody()));
      }
    }),
  );
  return { results, seconds: (performance.now() - t0) / 1000 };
}

// ------------------------------------------------------------------------------------------- run

let exitCode = 0;
try {
  if (WARMUP > 0) {
    const w = await drive(WARMUP, Math.min(C, WARMUP));
    const got = w.results.reduce((n, r) => n + r.commitments, 0);
    console.log(`warm-up: ${WARMUP} bids, ${got} commitments in ${w.seconds.toFixed(2)} s (not counted)`);
  }
  console.log(`running: ${N} bids, ${C} in flight, ${P} providers (expect ${P} commitments per bid)`);
  const { results, seconds } = await drive(N, C);
  const commitments = results.reduce((n, r) => n + r.commitments, 0);
  const first = results.filter((r) => r.firstMs !== undefined).map((r) => r.firstMs!).sort((a, b) => a - b);
  const full = results.filter((r) => r.status === 200 && !r.failure).map((r) => r.endMs).sort((a, b) => a - b);
  const httpErrors = results.filter((r) => r.failure || r.status !== 200);
  const errorLines = results.filter((r) => r.status === 200 && r.errorLine);
  const short = results.filter((r) => r.status === 200 && !r.failure && r.commitments < P);
  console.log("");
  console.log(`duration:            ${seconds.toFixed(2)} s`);
  console.log(`throughput:          ${(N / seconds).toFixed(1)} bids/s, ${(commitments / seconds).toFixed(1)} commitments/s`);
  console.log(`first commitment:    p50 ${ms(pct(first, 50))}, p99 ${ms(pct(first, 99))}, max ${ms(first.at(-1) ?? NaN)}  (SendBid sent → first commitment line)`);
  console.log(`full stream:         p50 ${ms(pct(full, 50))}, p99 ${ms(pct(full, 99))}, max ${ms(full.at(-1) ?? NaN)}  (SendBid sent → end of stream)`);
  console.log(
    `errors:              ${httpErrors.length + errorLines.length} (failed requests or non-200: ${httpErrors.length}, error lines: ${errorLines.length}); bids with fewer than ${P} commitments: ${short.length}`,
  );
  const sample = httpErrors[0] ?? errorLines[0];
  if (sample) console.log(`first error:         ${sample.failure ?? sample.errorLine ?? `HTTP ${sample.status}`}`);
  if (commitments === 0) exitCode = 1;
} finally {
  await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
