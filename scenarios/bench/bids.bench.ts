/**
 * Bid → commitment benchmark: `bun run bench:bids [--bids N] [--concurrency C] [--providers P] [--warmup W]
 * [--settle-blocks K] [--settle-bids M] [--info-records R] [--skip-settlement] [--skip-info]`.
 *
 * Starts a reference devnet in this process (fresh temp data dir, free ports, manual L1 mining, the built-in
 * accept-all provider applications, auto-deposit of a large amount), then runs three phases:
 * 1. settlement (scenarios/bench/settlementPhase.ts): M bids for each of the next K L1 blocks, each for a raw L1
 *    transaction the block's winner includes; mines K + 1 blocks and times until every winner's commitment is
 *    settled (wall time, settled per minute of wall and of L1 time, block mined → settled latency). It runs first,
 *    while no other commitment targets the blocks it mines.
 * 2. bids: drives N bids through the bidder's SendBid with C in flight, and prints throughput and latency:
 *    SendBid → first commitment line, and SendBid → end of the stream. The bids target the blocks not mined yet of
 *    the next block's window and the window after (the two windows the auto-deposit covers).
 * 3. bid info (scenarios/bench/bidInfoPhase.ts): R synthetic commitments inserted into the bidder's store, then
 *    GET /v1/bidder/get_bid_info timed for first / middle / last page, limit=1000 and an exact block filter.
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
import { startDevnet, type Devnet } from "../../node/devnet/startDevnet.ts";
import { freePort } from "../../node/util/ports.ts";
import { setLogSink } from "../../node/util/log.ts";
import { windowBlockRange, windowOfBlock } from "../../node/protocol/windows.ts";
import { ms, pct, sendBid, waitUntil, type BidResult } from "./common.ts";
import { settlementPhase, waitForDeposits } from "./settlementPhase.ts";
import { bidInfoPhase } from "./bidInfoPhase.ts";

const { values: args } = parseArgs({
  options: {
    bids: { type: "string", default: "300" },
    concurrency: { type: "string", default: "8" },
    providers: { type: "string", default: "2" },
    warmup: { type: "string", default: "10" },
    "settle-blocks": { type: "string", default: "5" },
    "settle-bids": { type: "string", default: "20" },
    "info-records": { type: "string", default: "100000" },
    "skip-settlement": { type: "boolean", default: false },
    "skip-info": { type: "boolean", default: false },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(
    "Usage: bun run bench:bids [--bids N (300)] [--concurrency C (8)] [--providers P (2)] [--warmup W (10)]\n" +
      "                          [--settle-blocks K (5)] [--settle-bids M per block (20)] [--skip-settlement]\n" +
      "                          [--info-records R (100000)] [--skip-info]\n" +
      "The settlement blocks must lie in the two windows the auto-deposit funds at start: K ≤ 20 on a fresh devnet.",
  );
  process.exit(0);
}
const N = positive("bids", args.bids!);
const C = positive("concurrency", args.concurrency!);
const P = positive("providers", args.providers!);
const WARMUP = Number(args.warmup);
const SETTLE_BLOCKS = positive("settle-blocks", args["settle-blocks"]!);
const SETTLE_BIDS = positive("settle-bids", args["settle-bids"]!);
const INFO_RECORDS = positive("info-records", args["info-records"]!);
/** GetBidInfo requests timed per case, after a few untimed ones. */
const INFO_REQUESTS = 200;
const INFO_WARMUP = 5;

function positive(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer, got "${v}"`);
    process.exit(2);
  }
  return n;
}

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
let devnet: Devnet;
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
console.log(
  `devnet: 1 bidder, ${P} providers with accept-all applications, auto-deposit 1000 ETH/window; up in ${((performance.now() - tStart) / 1000).toFixed(1)} s (log: ${logFile})`,
);

// Auto-deposit covers the window of the next block and the one after: 20 blocks, 100 ETH of allowance each. The
// bids spread over those not mined yet (all 20 on a fresh devnet; fewer after the settlement phase mined some).
let firstBlock = 1n;
let spanBlocks = 20n;
async function chooseBidBlocks(): Promise<void> {
  const head = await devnet.l1Client.getBlockNumber({ cacheTime: 0 });
  const next = windowOfBlock(head + 1n);
  firstBlock = head + 1n;
  spanBlocks = windowBlockRange(next + 1n).end - head;
  // Once the settlement phase mined into a later window, the auto-deposit funds the windows after it only when the
  // oracle records that window's first block: spread the bids over the funded windows only.
  if (await waitForDeposits(devnet, [next, next + 1n], 3_000)) return;
  if (await waitForDeposits(devnet, [next], 0)) spanBlocks = windowBlockRange(next).end - head;
  console.log(`note: window ${next + 1n} has no deposit yet; the bids go to blocks ${firstBlock}…${firstBlock + spanBlocks - 1n}`);
}

let seq = 0;
function bidBody(): string {
  const i = seq++;
  const now = Date.now();
  const hash = (BigInt(i) * 0x9e3779b97f4a7c15n + 0x1234567n).toString(16).padStart(64, "0").slice(-64);
  return JSON.stringify({
    txHashes: [hash],
    amount: String(1_000_000_000 + i),
    blockNumber: String(firstBlock + (BigInt(i) % spanBlocks)),
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
  if (!args["skip-settlement"]) {
    console.log(`settlement: ${SETTLE_BLOCKS} blocks × ${SETTLE_BIDS} bids, ${C} in flight (runs first, on the fresh devnet)`);
    await settlementPhase(devnet, {
      blocks: SETTLE_BLOCKS,
      bidsPerBlock: SETTLE_BIDS,
      concurrency: C,
      blockTime: DEFAULTS.l1BlockTime,
      oracleLag: devnet.config.oracleLag,
      print: (line) => console.log(line),
    });
    console.log("");
  }
  await chooseBidBlocks();
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

  if (!args["skip-info"]) {
    // Let the bid phase's store transactions finish first: they would otherwise share the CPU with the requests.
    const tDrain = performance.now();
    await Promise.all(devnet.providers.map((p) => p.storer?.drain()));
    const settledDown = await waitUntil(() => devnet.bidder.commitments.withStatus("pending").length === 0, 30_000, 100);
    console.log("");
    console.log(
      `bid info: ${INFO_RECORDS} synthetic commitments, ${INFO_REQUESTS} requests per case (after ${INFO_WARMUP} untimed); ` +
        `waited ${((performance.now() - tDrain) / 1000).toFixed(1)} s for the bid phase's store transactions${settledDown ? "" : " (some still pending)"}; ` +
        `load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
    );
    await bidInfoPhase(devnet, { records: INFO_RECORDS, requests: INFO_REQUESTS, warmup: INFO_WARMUP, print: (line) => console.log(line) });
  }
} finally {
  console.log(`\nload average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} at the end; ${((performance.now() - tStart) / 1000).toFixed(1)} s since the devnet started`);
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const mem = process.memoryUsage();
  // Every node, the oracle and the driver run in this process (the Anvil chains are separate processes).
  console.log(`memory of the node process: rss ${mb(mem.rss)}, JS heap ${mb(mem.heapUsed)}`);
  await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
