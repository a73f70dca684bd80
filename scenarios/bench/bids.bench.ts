/**
 * Bid → commitment benchmark: `npm run bench:bids -- [options]` (`--help` lists them).
 *
 * Measures the crypto floor first (the bids' signing and verification with no I/O, on every core at once,
 * scenarios/bench/cryptoFloor.ts), then for each network (in-process, libp2p) starts a reference devnet in this
 * process (fresh temp data dir, free ports, manual L1 mining, the built-in accept-all provider applications over
 * the provider API, auto-deposit of a large amount) and runs:
 * 1. settlement (first network only; scenarios/bench/settlementPhase.ts): M bids for each of the next K L1 blocks,
 *    then mines K + 1 blocks and times until every winner's commitment is settled.
 * Each bid phase runs once per transport (`--transports http,grpc`): bids posted to the HTTP gateway, then sent
 * over gRPC (bidderapi.v1.Bidder/SendBid).
 * 2. latency: bids one at a time, with the nodes traced (node/util/bidTrace.ts): SendBid → first commitment and
 *    where its time went, step by step.
 * 2b. paced (`--paced R`): bids sent at R per second for S seconds whatever the answers; first-commitment percentiles
 *     and the same step-by-step breakdown.
 * 3. throughput: N bids with C in flight; commitments/s and its ratio to the crypto floor.
 * The client of phases 2 and 3 runs on a thread of its own (scenarios/bench/clientThread.ts; `--client in-process`
 * puts it on the devnet's event loop, where it waits for the nodes' work before it reads a line).
 * 4. bid info (last network only; scenarios/bench/bidInfoPhase.ts): GET /v1/bidder/get_bid_info over R records.
 * With `--sustain S`, runs instead an open-loop run at `--rate` commitments/s for S seconds with the L1 mining on
 * an interval (scenarios/bench/sustained.ts).
 * It prints the load average with every figure, rss, pending transactions and chain heads at the start and end of
 * each phase, and a side-by-side table. It never fails on speed (exit 1 only when a devnet cannot start or no bid
 * got any commitment).
 */

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { CliUsageError, exitOnCliErrors, integerFlag, parseCliArgs } from "../../lib/cli.ts";
import { stopAllAnvils } from "../../node/chain/anvil.ts";
import { DEFAULTS, type DevnetConfig } from "../../node/devnet/config.ts";
import { type Devnet, startDevnet } from "../../node/devnet/startDevnet.ts";
import {
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../../node/protocol/protocolVersion.ts";
import { rulesOf } from "../../node/protocol/rules.ts";
import { BLOCKS_PER_WINDOW, windowBlockRange, windowOfBlock } from "../../node/protocol/windows.ts";
import { setBidTracing } from "../../node/util/bidTrace.ts";
import { setLogSink } from "../../node/util/log.ts";
import { freePort } from "../../node/util/ports.ts";
import { type AppThread, startAppThread } from "./appThread.ts";
import { bidInfoPhase } from "./bidInfoPhase.ts";
import { type BidSummary, breakdownLines, driveClosed, driveOpen, summarise, summaryLines } from "./bidPhase.ts";
import { threadBidSender } from "./clientThread.ts";
import { type BidResult, grpcBidSender, bidBodies as makeBodies, ms, sendBid, waitUntil } from "./common.ts";
import { type CryptoFloor, measureCryptoFloor } from "./cryptoFloor.ts";
import {
  cpuPerCommitmentLine,
  type Health,
  health,
  healthLine,
  type LoopMark,
  loopMark,
  loopPerBidLine,
  mib,
  pendingCommitments,
} from "./health.ts";
import { settlementPhase, waitForDeposits } from "./settlementPhase.ts";
import { sustainedRun } from "./sustained.ts";
import { targetBench } from "./targetBench.ts";

const USAGE = `Usage: npm run bench:bids -- [options]
  --protocol VERSION       v1.1 | v1.2: the protocol of the devnets it starts (default v1.1)
  --target FILE            instead of a devnet of its own: bids through the bidder of a running target (a devnet's
                           target.json, or one written for another implementation) at each --in-flight level; prints
                           first-commitment p50/p99, commitments per bid and bids short of one per provider
  --in-flight LIST         with --target: bids in flight at each level (default 1,8,32)
  --target-bids N          with --target: bids timed at each level (default 200)
  --pid PID[,PID…]         with --target: the target's processes on this machine (a devnet's pid, or each process
                           of another implementation's nodes); prints their CPU per bid at each level, every
                           thread's summed, and a single process's main thread's (from /proc)
  --cpu-tree PID           with --target: every process under PID (a devnet with its node processes and Anvils)
                           on its own at each level: CPU per bid, cores busy and its busiest thread's share
  --networks LIST          libp2p,in-process (default both, side by side; libp2p, the devnet's default, first)
  --transports LIST        http,grpc: how the bids reach the bidder (default both, side by side)
  --latency-bids N         bids sent one at a time, traced (default 200)
  --bids N                 bids of the throughput phase (default 1000)
  --concurrency C          bids in flight in the throughput phase (default 32)
  --paced R                after the latency phase: bids sent at R per second, open loop (default 0: none;
                           100 is the issue's sustained-latency case)
  --paced-seconds S        how long the paced phase runs (default 10)
  --providers P            provider nodes, each with an accept-all application (default 2)
  --warmup W               untimed bids before the phases (default 20)
  --client MODE            where the latency and throughput phases' client runs: thread (its own thread, like a
                           separate program; default) or in-process (on the devnet's event loop, as before)
  --apps MODE              where the accept-all provider applications run: thread (default) or in-process (the
                           devnet's built-in --auto-accept responders, on the nodes' event loop)
  --decisions MODE         how the applications on their thread send SendProcessedBids: stream (default: the lines
                           of one long POST, as the provider API allows) or request (one POST per decision)
  --settle-blocks K        settlement phase: L1 blocks (default 5; ≤ 20 on a fresh devnet)
  --settle-bids M          settlement phase: bids per block (default 20)
  --skip-settlement        no settlement phase
  --info-records R         bid info phase: synthetic commitments (default 100000)
  --skip-info              no bid info phase
  --settlement-block-time MS  the settlement chain's block interval (default: the devnet's)
  --crypto-workers N       worker threads for the nodes' bid crypto (default: the devnet's, 0 = the event loop)
  --sustain S              instead of the phases above: an open-loop run of S seconds (see --rate)
  --rate R                 sustained run: commitments per second asked for (default 500)
  --l1-block-time S        sustained run: L1 block interval in seconds (default 2)`;

exitOnCliErrors({ cleanup: stopAllAnvils });
const { values: args } = parseCliArgs({
  options: {
    networks: { type: "string", default: "libp2p,in-process" },
    protocol: { type: "string" },
    target: { type: "string" },
    "in-flight": { type: "string", default: "1,8,32" },
    "target-bids": { type: "string", default: "200" },
    pid: { type: "string" },
    "cpu-tree": { type: "string" },
    transports: { type: "string", default: "http,grpc" },
    "latency-bids": { type: "string", default: "200" },
    bids: { type: "string", default: "1000" },
    paced: { type: "string", default: "0" },
    "paced-seconds": { type: "string", default: "10" },
    concurrency: { type: "string", default: "32" },
    providers: { type: "string", default: "2" },
    warmup: { type: "string", default: "20" },
    "settle-blocks": { type: "string", default: "5" },
    "settle-bids": { type: "string", default: "20" },
    "info-records": { type: "string", default: "100000" },
    "skip-settlement": { type: "boolean", default: false },
    "skip-info": { type: "boolean", default: false },
    "settlement-block-time": { type: "string" },
    "crypto-workers": { type: "string" },
    sustain: { type: "string" },
    rate: { type: "string", default: "500" },
    "l1-block-time": { type: "string", default: "2" },
    client: { type: "string", default: "thread" },
    apps: { type: "string", default: "thread" },
    decisions: { type: "string", default: "stream" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const networks = args.networks!.split(",").map((s) => s.trim());
for (const n of networks)
  if (n !== "in-process" && n !== "libp2p")
    throw new CliUsageError(`--networks takes in-process and/or libp2p, got "${n}"`);
const transports = args.transports!.split(",").map((s) => s.trim());
for (const t of transports)
  if (t !== "http" && t !== "grpc") throw new CliUsageError(`--transports takes http and/or grpc, got "${t}"`);
const LATENCY_BIDS = integerFlag("latency-bids", args["latency-bids"]!, 0);
const N = integerFlag("bids", args.bids!, 0);
const PACED = integerFlag("paced", args.paced!, 0);
const PACED_SECONDS = integerFlag("paced-seconds", args["paced-seconds"]!);
const C = integerFlag("concurrency", args.concurrency!);
const P = integerFlag("providers", args.providers!);
function protocolOption(v: string | undefined): ProtocolVersion {
  try {
    return parseProtocolVersion(v);
  } catch (e) {
    if (e instanceof UnknownProtocolVersionError) throw new CliUsageError(`--protocol: ${e.message}`);
    throw e;
  }
}
const PROTOCOL = protocolOption(args.protocol);
const RULES = rulesOf(PROTOCOL);
const WARMUP = integerFlag("warmup", args.warmup!, 0);
const SETTLE_BLOCKS = integerFlag("settle-blocks", args["settle-blocks"]!);
const SETTLE_BIDS = integerFlag("settle-bids", args["settle-bids"]!);
const INFO_RECORDS = integerFlag("info-records", args["info-records"]!);
const SETTLEMENT_BLOCK_TIME =
  args["settlement-block-time"] === undefined
    ? undefined
    : integerFlag("settlement-block-time", args["settlement-block-time"], 0);
const CRYPTO_WORKERS =
  args["crypto-workers"] === undefined ? undefined : integerFlag("crypto-workers", args["crypto-workers"], 0);
/** The sustained run's settlement state dump interval, seconds (0: only at the end). */
const SUSTAIN_STATE_INTERVAL_S = 0;
const SUSTAIN = args.sustain === undefined ? undefined : integerFlag("sustain", args.sustain);
const RATE = integerFlag("rate", args.rate!);
const L1_BLOCK_TIME = integerFlag("l1-block-time", args["l1-block-time"]!);
if (args.client !== "thread" && args.client !== "in-process")
  throw new CliUsageError(`--client takes thread or in-process, got "${args.client}"`);
const CLIENT_THREAD = args.client === "thread";
if (args.apps !== "thread" && args.apps !== "in-process")
  throw new CliUsageError(`--apps takes thread or in-process, got "${args.apps}"`);
const APPS_THREAD = args.apps === "thread";
/** What shares the nodes' event loop besides the nodes, as the per-phase loop lines say. */
const ON_LOOP = [CLIENT_THREAD ? "" : "the client", APPS_THREAD ? "" : "the applications"].filter(Boolean);
const LOOP_HOLDS = ON_LOOP.length ? ` (with ${ON_LOOP.join(" and ")} on it)` : "";
if (args.decisions !== "stream" && args.decisions !== "request")
  throw new CliUsageError(`--decisions takes stream or request, got "${args.decisions}"`);
const DECISIONS = args.decisions;

if (args.target !== undefined) {
  const levels = args["in-flight"]!.split(",").map((v) => integerFlag("in-flight", v.trim()));
  const rows = await targetBench({
    targetFile: args.target,
    levels,
    bids: integerFlag("target-bids", args["target-bids"]!),
    warmup: WARMUP,
    ...(args.pid !== undefined ? { pids: args.pid.split(",").map((v) => integerFlag("pid", v.trim())) } : {}),
    ...(args["cpu-tree"] !== undefined ? { cpuTree: integerFlag("cpu-tree", args["cpu-tree"]) } : {}),
    print: console.log,
  });
  process.exit(rows.some((r) => r.commitmentsPerBid > 0) ? 0 : 1);
}

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const print = (line: string) => console.log(line);

// ------------------------------------------------------------------------------------------- machine, floor

const cpus = os.cpus();
print(
  `machine: ${cpus.length} cores, ${cpus[0]?.model ?? "unknown CPU"}; ${os.platform()}-${os.arch()}, Bun ${Bun.version}; load average ${loadavg()} at start`,
);
const floor: CryptoFloor = await measureCryptoFloor(P);
print(
  `crypto floor (no I/O, same run): one bid with ${P} providers ${ms(floor.bidMs)} of CPU; first commitment's path ${ms(floor.firstCommitmentMs)}; ` +
    `${floor.commitmentsPerSec.toFixed(0)} commitments/s on ${floor.cores} cores at once; load average ${loadavg()}`,
);

mkdirSync("reports", { recursive: true });
const logFile = join("reports", "bench-bids.log");
writeFileSync(logFile, "");
setLogSink((line) => appendFileSync(logFile, `${line}\n`));

async function withDevnet<T>(
  network: "in-process" | "libp2p",
  extra: Partial<DevnetConfig>,
  run: (d: Devnet) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(join(os.tmpdir(), "mev-commit-bench-"));
  const t0 = performance.now();
  let devnet: Devnet;
  try {
    devnet = await startDevnet({
      ...DEFAULTS,
      rules: RULES,
      dataDir,
      fresh: true,
      providers: P,
      bidderPort: 0,
      providerPorts: Array.from({ length: P }, () => 0),
      bidderRpcPort: 0,
      providerRpcPorts: Array.from({ length: P }, () => 0),
      controlPort: 0,
      beaconPort: 0,
      l1Port: await freePort(),
      settlementPort: await freePort(),
      l1BlockTime: 0,
      autoAccept: !APPS_THREAD,
      autodepositAmount: parseEther("1000"),
      logLevel: "info",
      network,
      bootnodePort: 0,
      bidderP2pPort: 0,
      providerP2pPorts: Array.from({ length: P }, () => 0),
      ...(SETTLEMENT_BLOCK_TIME === undefined ? {} : { settlementBlockTimeMs: SETTLEMENT_BLOCK_TIME }),
      ...(CRYPTO_WORKERS === undefined ? {} : { cryptoWorkers: CRYPTO_WORKERS }),
      ...extra,
    } as DevnetConfig);
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`the devnet (${network}) did not start: ${(e as Error).message} (log: ${logFile})`);
  }
  let apps: AppThread | undefined;
  try {
    if (APPS_THREAD)
      apps = await startAppThread(
        devnet.providers.map((p) => p.url),
        DECISIONS,
        devnet.config.responderIdleTimeoutMs,
      );
  } catch (e) {
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  print(
    `\n=== ${network}, protocol ${PROTOCOL}: 1 bidder, ${P} providers with accept-all applications over the provider API (${APPS_THREAD ? `on a thread of their own, decisions by ${DECISIONS === "stream" ? "one streamed POST" : "a POST each"}` : "on the devnet's event loop"}); ` +
      `up in ${((performance.now() - t0) / 1000).toFixed(1)} s (log: ${logFile})`,
  );
  try {
    return await run(devnet);
  } finally {
    const errors = (await apps?.stop()) ?? [];
    if (errors.length) print(`provider applications: ${errors.length} errors; first: ${errors[0]}`);
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// v1.1: auto-deposit covers the window of the next block and the one after: the bids spread over the blocks of those
// windows not mined yet. v1.2: the deposits with each provider cover any block; the bids spread over as many blocks.
async function bidBlocks(devnet: Devnet): Promise<{ first: bigint; span: bigint }> {
  const head = await devnet.l1Client.getBlockNumber({ cacheTime: 0 });
  if (RULES.deposits === "provider") {
    await waitForDeposits(devnet, [head + 1n], 3_000);
    return { first: head + 1n, span: 2n * BLOCKS_PER_WINDOW };
  }
  const next = windowOfBlock(head + 1n);
  let span = windowBlockRange(next + 1n).end - head;
  // Once the settlement phase mined into a later window, the auto-deposit funds the windows after it only when the
  // oracle records that window's first block: spread the bids over the funded windows only.
  const startOf = (w: bigint) => windowBlockRange(w).start;
  if (
    !(await waitForDeposits(devnet, [startOf(next), startOf(next + 1n)], 3_000)) &&
    (await waitForDeposits(devnet, [startOf(next)], 0))
  )
    span = windowBlockRange(next).end - head;
  return { first: head + 1n, span };
}

const bidCounter = { next: 0 };
/** Bids for blocks first … first + span - 1 in turn; one hash sequence across every phase of the run. */
function bidBodies(first: bigint, span: bigint): () => string {
  return makeBodies({ seed: 0x1234567n, counter: bidCounter, block: (i) => first + (BigInt(i) % span) });
}

/** The SendBid client of the bid phases: on its own thread (`--client thread`) or on the devnet's event loop. */
async function bidClient(
  devnet: Devnet,
  transport: "http" | "grpc",
): Promise<{ send: (body: string) => Promise<BidResult>; close: () => void | Promise<void> }> {
  const url = transport === "grpc" ? devnet.bidder.rpcUrl : devnet.target().bidderUrl!;
  if (CLIENT_THREAD) return threadBidSender(transport, url);
  return transport === "grpc" ? grpcBidSender(url) : { send: (b: string) => sendBid(url, b), close: () => {} };
}

interface NetworkResult {
  network: string;
  transport: string;
  latency?: BidSummary;
  paced?: BidSummary;
  throughput?: BidSummary;
  start: Health;
  end: Health;
  loadEnd: string;
  /** CPU of the node process per commitment in the throughput phase, ms. */
  cpuMs?: number;
}

async function phases(network: "in-process" | "libp2p", first: boolean, last: boolean): Promise<NetworkResult[]> {
  return withDevnet(network, {}, async (devnet) => {
    const start = await health(devnet);
    print(`start:               ${healthLine(start)}`);
    if (first && !args["skip-settlement"]) {
      print(
        `settlement: ${SETTLE_BLOCKS} blocks × ${SETTLE_BIDS} bids, ${C} in flight (runs first, on the fresh devnet)`,
      );
      await settlementPhase(devnet, {
        blocks: SETTLE_BLOCKS,
        bidsPerBlock: SETTLE_BIDS,
        concurrency: C,
        blockTime: DEFAULTS.l1BlockTime,
        oracleLag: devnet.config.oracleLag,
        print,
      });
    }
    const blocks = await bidBlocks(devnet);
    const body = bidBodies(blocks.first, blocks.span);
    const outs: NetworkResult[] = [];
    for (const transport of transports) {
      const client = await bidClient(devnet, transport as "http" | "grpc");
      const bidder = client.send;
      print(
        `\n--- bids over ${transport === "grpc" ? `gRPC (${devnet.bidder.rpcUrl})` : `HTTP (${devnet.bidder.url})`}`,
      );
      try {
        if (WARMUP > 0) {
          const w = await driveClosed(bidder, body, WARMUP, Math.min(C, WARMUP));
          print(
            `warm-up:             ${WARMUP} bids, ${w.results.reduce((n, r) => n + r.commitments, 0)} commitments in ${w.seconds.toFixed(2)} s (not counted)`,
          );
        }
        const out: NetworkResult = { network, transport, start, end: start, loadEnd: "" };
        if (LATENCY_BIDS > 0) {
          setBidTracing(true);
          const m0 = loopMark();
          const d = await driveClosed(bidder, body, LATENCY_BIDS, 1);
          const m1 = loopMark();
          out.latency = summarise(d, P);
          print(`\nlatency: ${LATENCY_BIDS} bids, one at a time; load average ${loadavg()}`);
          for (const l of summaryLines(out.latency, P)) print(l);
          print(`event loop:          ${loopPerBidLine(m0, m1, d.results.length)}${LOOP_HOLDS}`);
          print(
            `latency floor:       ${ms(floor.firstCommitmentMs)} (the first commitment's crypto done serially, no I/O); ` +
              `p50 / floor ${(out.latency.first.p50 / floor.firstCommitmentMs).toFixed(1)}, p99 / floor ${(out.latency.first.p99 / floor.firstCommitmentMs).toFixed(1)}`,
          );
          for (const l of breakdownLines(d.results)) print(l);
          setBidTracing(false);
        }
        if (PACED > 0) {
          setBidTracing(true);
          const m0 = loopMark();
          const d = await driveOpen(bidder, body, PACED, PACED_SECONDS, 2_000);
          const m1 = loopMark();
          out.paced = summarise(d, P);
          print(
            `\npaced: ${PACED} bids/s for ${PACED_SECONDS} s (open loop, sent on schedule whatever the answers; ${d.skipped} not sent); load average ${loadavg()}`,
          );
          for (const l of summaryLines(out.paced, P)) print(l);
          print(`event loop:          ${loopPerBidLine(m0, m1, d.results.length)}${LOOP_HOLDS}`);
          for (const l of breakdownLines(d.results)) print(l);
          setBidTracing(false);
        }
        const before = await health(devnet);
        let phaseEnd: LoopMark | undefined;
        if (N > 0) {
          const d = await driveClosed(bidder, body, N, C);
          phaseEnd = loopMark();
          out.throughput = summarise(d, P);
          print(`\nthroughput: ${N} bids, ${C} in flight; load average ${loadavg()}`);
          for (const l of summaryLines(out.throughput, P)) print(l);
          print(
            `ratio to the floor:  ${(out.throughput.commitmentsPerSec / floor.commitmentsPerSec).toFixed(3)} (${out.throughput.commitmentsPerSec.toFixed(0)} of ${floor.commitmentsPerSec.toFixed(0)} commitments/s)`,
          );
        }
        // Let the store transactions finish: they would otherwise share the CPU with the next phase.
        const tDrain = performance.now();
        await Promise.all(devnet.providers.map((p) => p.storer?.drain()));
        const drained = await waitUntil(() => pendingCommitments(devnet) === 0, 60_000, 100);
        out.end = await health(devnet);
        out.loadEnd = loadavg();
        print(
          `end:                 ${healthLine(out.end)}; store transactions ${drained ? "all mined" : "NOT all mined"} ${((performance.now() - tDrain) / 1000).toFixed(1)} s after the last bid`,
        );
        if (out.throughput) {
          print(
            `CPU per commitment:  ${cpuPerCommitmentLine(before, out.end, out.throughput.commitments, phaseEnd)} (throughput phase and its store transactions; the crypto floor is ${ms(floor.bidMs / P)})`,
          );
          out.cpuMs = (out.end.cpuMs - before.cpuMs) / out.throughput.commitments;
        }
        outs.push(out);
      } finally {
        await client.close();
      }
    }
    if (last && !args["skip-info"]) {
      print(`\nbid info: ${INFO_RECORDS} synthetic commitments; load average ${loadavg()}`);
      await bidInfoPhase(devnet, { records: INFO_RECORDS, requests: 200, warmup: 5, print });
    }
    return outs;
  });
}

// ------------------------------------------------------------------------------------------- run

let exitCode = 0;
const tStart = performance.now();
try {
  if (SUSTAIN !== undefined) {
    const network = networks[0] as "in-process" | "libp2p";
    // No past states on the settlement chain: each one kept is a copy of the whole state at every block (Anvil 1.7.1).
    // Its state is not dumped while it runs: under this load the state reaches hundreds of MB, and Anvil answers
    // nothing while it writes one (every 5 s the chain stalled for good after ~90 s at 200 commitments/s, every
    // 120 s at the second dump, ~900 MB). A kill -9 of this devnet loses its settlement chain; nothing is restarted.
    const ok = await withDevnet(
      network,
      { l1BlockTime: 0, settlementHistory: 0, settlementStateIntervalS: SUSTAIN_STATE_INTERVAL_S },
      async (devnet) => {
        const client = await bidClient(devnet, "http");
        try {
          return await sustainedRun(devnet, {
            seconds: SUSTAIN,
            commitmentsPerSec: RATE,
            providers: P,
            l1BlockTime: L1_BLOCK_TIME,
            floor,
            print,
            bidder: client.send,
          });
        } finally {
          await client.close();
        }
      },
    );
    if (!ok) exitCode = 1;
  } else {
    const results: NetworkResult[] = [];
    for (const [i, n] of networks.entries())
      results.push(...(await phases(n as "in-process" | "libp2p", i === 0, i === networks.length - 1)));
    if (results.every((r) => !(r.latency?.commitments || r.paced?.commitments || r.throughput?.commitments)))
      exitCode = 1;
    print(
      `\n=== side by side (crypto floor ${floor.commitmentsPerSec.toFixed(0)} commitments/s on ${floor.cores} cores; latency floor ${ms(floor.firstCommitmentMs)}, the first commitment's crypto done serially)`,
    );
    const col = (f: (r: NetworkResult) => string) => results.map((r) => f(r).padStart(18)).join("");
    print(`${"".padEnd(34)}${col((r) => (r.network === "libp2p" ? "libp2p (default)" : "in-process"))}`);
    print(`${"bids over".padEnd(34)}${col((r) => (r.transport === "grpc" ? "gRPC" : "HTTP"))}`);
    print(
      `${`bids/s, ${C} in flight`.padEnd(34)}${col((r) => (r.throughput ? r.throughput.bidsPerSec.toFixed(1) : "n/a"))}`,
    );
    print(`${"first commitment p50, 1 in flight".padEnd(34)}${col((r) => ms(r.latency?.first.p50 ?? NaN))}`);
    print(`${"first commitment p99, 1 in flight".padEnd(34)}${col((r) => ms(r.latency?.first.p99 ?? NaN))}`);
    print(
      `${"  p50 / latency floor".padEnd(34)}${col((r) => (r.latency ? (r.latency.first.p50 / floor.firstCommitmentMs).toFixed(1) : "n/a"))}`,
    );
    if (PACED > 0) {
      print(`${`first commitment p50, ${PACED} bids/s`.padEnd(34)}${col((r) => ms(r.paced?.first.p50 ?? NaN))}`);
      print(`${`first commitment p99, ${PACED} bids/s`.padEnd(34)}${col((r) => ms(r.paced?.first.p99 ?? NaN))}`);
    }
    print(
      `${`commitments/s, ${C} in flight`.padEnd(34)}${col((r) => (r.throughput ? r.throughput.commitmentsPerSec.toFixed(0) : "n/a"))}`,
    );
    print(
      `${"  ratio to the crypto floor".padEnd(34)}${col((r) => (r.throughput ? (r.throughput.commitmentsPerSec / floor.commitmentsPerSec).toFixed(3) : "n/a"))}`,
    );
    print(`${"  node process CPU per commitment".padEnd(34)}${col((r) => ms(r.cpuMs ?? NaN))}`);
    print(`${`first commitment p50, ${C} in flight`.padEnd(34)}${col((r) => ms(r.throughput?.first.p50 ?? NaN))}`);
    print(`${`first commitment p99, ${C} in flight`.padEnd(34)}${col((r) => ms(r.throughput?.first.p99 ?? NaN))}`);
    const sum = (r: NetworkResult, f: (s: BidSummary) => number) =>
      [r.latency, r.paced, r.throughput].reduce((n, s) => n + (s ? f(s) : 0), 0);
    print(`${"errors / short bids".padEnd(34)}${col((r) => `${sum(r, (s) => s.errors)} / ${sum(r, (s) => s.short)}`)}`);
    print(`${"node process rss start → end".padEnd(34)}${col((r) => `${mib(r.start.rss)}→${mib(r.end.rss)}`)}`);
    print(
      `${"settlement head, pending at end".padEnd(34)}${col((r) => `${r.end.settlement.head}, ${r.end.settlement.pending}`)}`,
    );
    print(`${"load average at end".padEnd(34)}${col((r) => r.loadEnd.split(" ")[0]!)}`);
    const headline = results.find((r) => r.network === "libp2p");
    if (headline)
      print(
        `headline, the default devnet (libp2p, bids over ${headline.transport === "grpc" ? "gRPC" : "HTTP"}): first commitment ` +
          `p50 ${ms(headline.latency?.first.p50 ?? NaN)}, p99 ${ms(headline.latency?.first.p99 ?? NaN)} one in flight; ` +
          `p50 ${ms(headline.throughput?.first.p50 ?? NaN)} with ${C} in flight` +
          (results.some((r) => r.network === "in-process")
            ? " (in-process: one loop, no node-to-node wire, not the default)"
            : ""),
      );
  }
} catch (e) {
  console.error((e as Error).message);
  exitCode = 1;
} finally {
  print(`\nload average ${loadavg()} at the end; ${((performance.now() - tStart) / 1000).toFixed(1)} s in all`);
}
process.exit(exitCode);
