#!/usr/bin/env bun
/**
 * `npm run soak -- --minutes N`: a devnet in a process of its own (`bun node/main.ts`, L1 blocks every second) under a
 * steady load of bids, deposits and subscriptions; prints the resident memory and open file descriptors of the devnet
 * process and of each Anvil it runs (L1, settlement, and the idle chain the settlement chain forks) every sample.
 * Growth is judged from just after the warm-up (the first fifth of the run, and until the settlement chain has mined
 * more blocks than it keeps the transactions of) to the end: the median of the first tenth of the samples after the
 * warm-up against the median of the last tenth (at least one sample each). The devnet process's rss and every
 * process's open fds fail the run when they grew by more than 10 % (fds: and by more than FD_NOISE). An Anvil holds
 * its chain in memory, so its rss grows with every block, transaction and storage slot the load adds, by design; it
 * fails the run when it grew by more than 10 % beyond what that chain data costs a bare Anvil started the same way,
 * measured by the soak before the devnet starts (scenarios/bench/anvilMemory.ts); the L1 Anvil, whose rss rises and
 * falls with the past states it keeps, against its highest rss before the end. Each sample also has both chains'
 * heads and their pending transactions; a chain that produced no block between two samples, or a transaction that
 * timed out waiting to be mined, fails the run. A bid answered with fewer commitments than there are providers is
 * listed with what its stream said instead.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { exitOnCliErrors, numberOption, parseCliArgs } from "../lib/cli.ts";
import { MevCommitError } from "../lib/errors.ts";
import { anvilPidFile } from "../node/chain/anvil.ts";
import { jsonRpc as rpc } from "../node/chain/jsonRpc.ts";
import { NdjsonStream } from "../node/clients/ndjson.ts";
import { parseDevnetArgs } from "../node/devnet/config.ts";
import { DataDir } from "../node/devnet/dataDir.ts";
import { TOPICS } from "../node/notify/topics.ts";
import { freePort } from "../node/util/ports.ts";
import {
  type AnvilCosts,
  type ChainData,
  explainedBytes,
  formatCosts,
  measureAnvilCosts,
  readChainDataSoon,
} from "../scenarios/bench/anvilMemory.ts";
import { headAndPool, rssOf } from "../scenarios/bench/health.ts";

const HELP = `Usage: npm run soak -- [--minutes N] [--bids-per-second R] [--sample-seconds S] [-- DEVNET FLAGS]
       npm run soak -- --faults [--help]   the fault soak instead (scripts/faultSoak/faultSoak.ts)

  --minutes N            how long the load runs (default 30)
  --bids-per-second R    SendBid rate (default 4); deposits go in once a window, a subscriber comes and goes every 2 s
  --sample-seconds S     how often rss and open fds are printed (default 60)
  --port-base P          the devnet's 11 ports are P, P+1, … (default: free ports picked by the OS)
  -h, --help
  -- DEVNET FLAGS        passed on to the devnet (\`npm run node -- --help\`), e.g. -- --settlement-history 0

Fails (exit 1) when, after the warm-up (the first fifth of the run, and until the settlement chain has mined more
blocks than it keeps transactions of), the rss of the devnet process or the open fds of any process grew by more
than 10 % (fds: and by more than 3), or an Anvil's rss grew by more than 10 % beyond what the chain data it gained
(blocks, transactions, storage slots) costs a bare Anvil started the same way (measured first, about a minute; the
L1, whose rss rises and falls with the past states it keeps: beyond its highest rss before the end); when
the devnet died, when a chain produced no block between two samples, or when a transaction timed out waiting to be
mined. The devnet's log: reports/soak-devnet.log.`;

// `--faults` (before any `--`): the fault soak, a run of its own that exits when done.
const ownFlags = process.argv.slice(2, process.argv.indexOf("--") < 0 ? undefined : process.argv.indexOf("--"));
if (ownFlags.includes("--faults")) await import("./faultSoak/faultSoak.ts");

exitOnCliErrors();
const { values: o, positionals: devnetFlags } = parseCliArgs({
  allowPositionals: true,
  options: {
    minutes: { type: "string" },
    "bids-per-second": { type: "string" },
    "sample-seconds": { type: "string" },
    "port-base": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (o.help) {
  console.log(HELP);
  process.exit(0);
}
const minutes = numberOption("--minutes", o.minutes, 30, { min: 0.01, fraction: true });
const rate = numberOption("--bids-per-second", o["bids-per-second"], 4, { min: 0.01, fraction: true });
const sampleMs = numberOption("--sample-seconds", o["sample-seconds"], 60, { min: 1 }) * 1000;
numberOption("--port-base", o["port-base"], 0, { min: 1 });
const ROOT = join(import.meta.dir, "..");
// The soak measures the devnet process with its nodes in it: the one loop unless a flag names the network (without
// one the devnet picks by the machine's cores, --network auto).
if (!devnetFlags.some((f) => f === "--network" || f.startsWith("--network=") || f === "--netns"))
  devnetFlags.unshift("--network", "libp2p");
const devnetConfig = parseDevnetArgs(devnetFlags);
if (devnetConfig === "help") {
  console.log(HELP);
  process.exit(0);
}

// What chain data costs an Anvil, measured before the devnet starts so that nothing else runs beside it.
console.log(
  `soak: measuring what a block, a transaction and a storage slot cost a bare settlement-like Anvil (about a minute) …`,
);
const anvilCosts: AnvilCosts = await measureAnvilCosts(devnetConfig.settlementKeepBlocks || undefined);
console.log(
  `soak: a bare Anvil keeping ${devnetConfig.settlementKeepBlocks || "all"} blocks' transactions costs ${formatCosts(anvilCosts)}`,
);

/** Distinct free ports (two calls of freePort may return the same port). */
async function ports(n: number): Promise<number[]> {
  if (o["port-base"]) return Array.from({ length: n }, (_, i) => Number(o["port-base"]) + i);
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

// ------------------------------------------------------------------------------------------------ the devnet
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-soak-"));
const devnetDir = new DataDir(dataDir);
const [bidder, p0, p1, control, beacon, bootnode, bidderP2p, p0P2p, p1P2p, l1, settlement] = await ports(11);
mkdirSync(join(ROOT, "reports"), { recursive: true });
const logPath = join(ROOT, "reports/soak-devnet.log");
rmSync(logPath, { force: true });
const child = spawn(
  [
    "bun",
    "node/main.ts",
    "--data-dir",
    dataDir,
    "--fresh",
    "--l1-block-time",
    "1",
    "--no-autodeposit",
    "--bidder-port",
    String(bidder),
    "--provider-ports",
    `${p0},${p1}`,
    "--control-port",
    String(control),
    "--beacon-port",
    String(beacon),
    "--bootnode-port",
    String(bootnode),
    "--bidder-p2p-port",
    String(bidderP2p),
    "--provider-p2p-ports",
    `${p0P2p},${p1P2p}`,
    "--l1-port",
    String(l1),
    "--settlement-port",
    String(settlement),
    ...devnetFlags,
  ],
  { cwd: ROOT, stdout: Bun.file(logPath), stderr: Bun.file(logPath) },
);
const stopDevnet = async () => {
  child.kill("SIGINT");
  await Promise.race([child.exited, Bun.sleep(20_000)]);
  if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void stopDevnet().then(() => process.exit(130)));
exitOnCliErrors({ cleanup: stopDevnet });

for (const deadline = Date.now() + 120_000; ; ) {
  if (existsSync(logPath) && readFileSync(logPath, "utf8").includes("devnet is up")) break;
  if (child.exitCode !== null || Date.now() > deadline) {
    console.error(`error: the devnet did not come up; see ${logPath}`);
    await stopDevnet();
    process.exit(1);
  }
  await Bun.sleep(200);
}
const bidderUrl = `http://127.0.0.1:${bidder}`;
const l1Url = `http://127.0.0.1:${l1}`;

// ------------------------------------------------------------------------------------------------ the load
const counts = {
  bids: 0,
  commitments: 0,
  bidErrors: 0,
  deposits: 0,
  depositErrors: 0,
  subscriptions: 0,
  notifications: 0,
};
let running = true;

async function l1Block(): Promise<bigint> {
  return BigInt(await rpc<string>(l1Url, "eth_blockNumber"));
}
const windowOf = (block: bigint) => (block - 1n) / 10n + 1n;

/** Deposits 10 ETH into the windows of the next blocks once each (the load's deposits). */
const deposited = new Set<bigint>();
async function depositAhead(): Promise<void> {
  const head = await l1Block();
  for (const w of [windowOf(head + 1n), windowOf(head + 11n)]) {
    if (deposited.has(w)) continue;
    deposited.add(w);
    const r = await fetch(`${bidderUrl}/v1/bidder/deposit/10000000000000000000?window_number=${w}`, { method: "POST" });
    await r.text();
    if (r.status === 200) counts.deposits++;
    else counts.depositErrors++;
  }
}

/** Providers of the soak's devnet: each bid should get one commitment from each. */
const PROVIDERS = 2;
/** Bids answered with fewer than PROVIDERS commitments: what their streams said instead. */
const short: { block: bigint; status: number; at: string; lines: unknown[] }[] = [];
let n = 0;
async function oneBid(): Promise<void> {
  try {
    const block = (await l1Block()) + 1n;
    const now = Date.now();
    const s = await NdjsonStream.open("POST", `${bidderUrl}/v1/bidder/bid`, {
      txHashes: [(++n).toString(16).padStart(64, "0")],
      amount: "1000",
      blockNumber: block.toString(),
      decayStartTimestamp: String(now),
      decayEndTimestamp: String(now + 10_000),
    });
    const lines = await s.all();
    counts.bids++;
    const got = lines.filter((l) => "result" in l).length;
    counts.commitments += got;
    if (s.status !== 200) counts.bidErrors++;
    if (got < PROVIDERS)
      short.push({
        block,
        status: s.status,
        at: new Date(now).toISOString(),
        lines: lines.filter((l) => !("result" in l)),
      });
  } catch (e) {
    counts.bidErrors++;
    short.push({ block: 0n, status: 0, at: new Date().toISOString(), lines: [String((e as Error)?.message ?? e)] });
  }
}

async function bidLoop(): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  const gap = 1000 / rate;
  for (let next = performance.now(); running; next += gap) {
    const p = oneBid().finally(() => inFlight.delete(p));
    inFlight.add(p);
    await Bun.sleep(Math.max(0, next + gap - performance.now()));
  }
  await Promise.allSettled([...inFlight]);
}

async function depositLoop(): Promise<void> {
  while (running) {
    await depositAhead().catch(() => counts.depositErrors++);
    await Bun.sleep(1_000);
  }
}

/** A subscriber to every topic that reads for 2 s and leaves, over and over; and one that stays. */
async function subscriptionLoop(): Promise<void> {
  const topics = { topics: [...TOPICS] };
  const stay = await NdjsonStream.open("POST", `${bidderUrl}/v1/subscribe`, topics).catch(() => undefined);
  void stay?.all().then((lines) => (counts.notifications += lines.length));
  while (running) {
    const s = await NdjsonStream.open("POST", `${bidderUrl}/v1/subscribe`, topics).catch(() => undefined);
    if (s) {
      counts.subscriptions++;
      const t = setTimeout(() => s.close(), 2_000);
      counts.notifications += (await s.all().catch(() => [])).length;
      clearTimeout(t);
    }
    await Bun.sleep(100);
  }
  stay?.close();
}

// ------------------------------------------------------------------------------------------------ samples
/** Resident memory (MiB) and open descriptors of one process. */
interface ProcSample {
  rssMiB: number;
  fds: number;
}
interface ChainSample {
  head: bigint;
  pending: number;
}
interface Sample {
  at: number;
  l1: ChainSample;
  settlement: ChainSample;
  /** The devnet process and each Anvil, by name. */
  procs: Record<Proc, ProcSample>;
  /** Chain data each Anvil holds, from its state file (none for the settlement chain's idle genesis). */
  data: Record<Proc, ChainData | undefined>;
}
const PROCS = ["devnet", "l1", "settlement", "settlement-genesis"] as const;
type Proc = (typeof PROCS)[number];
class ProcessGoneError extends MevCommitError {}
/** rss and open fds of a process; the devnet's own pid, or an Anvil's from its pid file in the data dir. */
function procSample(name: Proc): ProcSample {
  const pidFile = anvilPidFile(devnetDir.pidDir, name);
  const pid =
    name === "devnet" ? child.pid : existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : undefined;
  try {
    if (!pid) throw new Error(`no pid file ${pidFile}`);
    const rss = rssOf(pid);
    if (rss === undefined) throw new Error("no /proc status");
    return { rssMiB: rss / 2 ** 20, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch (e) {
    throw new ProcessGoneError(`cannot read the ${name} process (pid ${pid ?? "?"}): ${(e as Error).message}`);
  }
}
/** A chain's head and its pool's pending transactions. */
async function chainSample(port: number): Promise<ChainSample> {
  const { head, pending } = await headAndPool(`http://127.0.0.1:${port}`);
  return { head, pending };
}
/** Chain data in a chain's state file; a dump being written is read again a moment later, else the last sample's. */
async function chainData(name: "l1" | "settlement", prev: ChainData | undefined): Promise<ChainData | undefined> {
  return (await readChainDataSoon(devnetDir.chainState(name))) ?? prev;
}
async function sample(prev: Sample | undefined): Promise<Sample> {
  const [l1Chain, settlementChain] = await Promise.all([chainSample(l1!), chainSample(settlement!)]);
  const procs = Object.fromEntries(PROCS.map((p) => [p, procSample(p)])) as Record<Proc, ProcSample>;
  const data = {
    devnet: undefined,
    "settlement-genesis": undefined,
    l1: await chainData("l1", prev?.data.l1),
    settlement: await chainData("settlement", prev?.data.settlement),
  };
  return { at: Date.now(), l1: l1Chain, settlement: settlementChain, procs, data };
}
/** Lines of the devnet's log that say a store, open or settlement transaction timed out. */
const txTimeouts = () => (readFileSync(logPath, "utf8").match(/Timed out while waiting for transaction/g) ?? []).length;

const t0 = Date.now();
const total = minutes * 60_000;
const fifth = Math.max(1, Math.floor(total / sampleMs / 5));
/** Open descriptors that may come and go between two samples (connections in flight) without counting as growth. */
const FD_NOISE = 3;
console.log(
  `soak: ${minutes} min, ${rate} bids/s, a deposit per window, subscribers coming and going; devnet pid ${child.pid} ` +
    `(log ${logPath}); load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
);
console.log(
  "minute  rss MiB  open fds  bids  commitments  short bids  bid errors  deposits  subscriptions  notifications  " +
    "L1 head  settlement head  pending  Anvil rss MiB (L1/settlement/genesis)  Anvil fds  load avg",
);
// The first window's deposit is mined before the first bid: a bid for a window without a deposit is refused by every
// provider ("balance not found for window 1"), as upstream's are, and would count as a bid short of commitments.
await depositAhead();
const loops = [bidLoop(), depositLoop(), subscriptionLoop()];
const samples: Sample[] = [];
let failed: string | undefined;
while (Date.now() - t0 < total) {
  await Bun.sleep(Math.min(sampleMs, total - (Date.now() - t0)));
  if (child.exitCode !== null) {
    failed = `the devnet exited (code ${child.exitCode}); see ${logPath}`;
    break;
  }
  const s = await sample(samples.at(-1)).catch((e: Error) => e);
  if (s instanceof Error) {
    failed = s instanceof ProcessGoneError ? s.message : `a chain did not answer: ${s.message}`;
    break;
  }
  const prev = samples.at(-1);
  samples.push(s);
  const anvils = PROCS.slice(1).map((p) => s.procs[p]);
  console.log(
    `${((s.at - t0) / 60_000).toFixed(1).padStart(6)}  ${s.procs.devnet.rssMiB.toFixed(1).padStart(7)}  ${String(s.procs.devnet.fds).padStart(8)}  ` +
      `${String(counts.bids).padStart(4)}  ${String(counts.commitments).padStart(11)}  ${String(short.length).padStart(10)}  ${String(counts.bidErrors).padStart(10)}  ` +
      `${String(counts.deposits).padStart(8)}  ${String(counts.subscriptions).padStart(13)}  ${String(counts.notifications).padStart(13)}  ` +
      `${String(s.l1.head).padStart(7)}  ${String(s.settlement.head).padStart(15)}  ${String(s.settlement.pending + s.l1.pending).padStart(7)}  ` +
      `${anvils
        .map((a) => a.rssMiB.toFixed(0))
        .join("/")
        .padStart(36)}  ${anvils
        .map((a) => a.fds)
        .join("/")
        .padStart(9)}  ${loadavg()[0]!.toFixed(2)}`,
  );
  // The stall the first 30-minute soak met: a chain that stops producing blocks stops the whole market.
  if (prev && s.l1.head === prev.l1.head)
    failed = `the L1 produced no block in the last ${((s.at - prev.at) / 1000).toFixed(0)} s`;
  else if (prev && s.settlement.head === prev.settlement.head)
    failed = `the settlement chain produced no block in the last ${((s.at - prev.at) / 1000).toFixed(0)} s`;
  if (failed) break;
}
running = false;
await Promise.allSettled(loops);
const timeouts = txTimeouts();
await stopDevnet();

if (short.length) {
  console.log(`soak: ${short.length} bid(s) got fewer than ${PROVIDERS} commitments:`);
  for (const b of short.slice(0, 20))
    console.log(`  sent ${b.at} for L1 block ${b.block}, HTTP ${b.status}: ${JSON.stringify(b.lines)}`);
}
if (!failed) {
  // Medians of a few samples on each side: in-flight requests (connections to the chains) make single samples noisy.
  const window = Math.max(1, Math.round(samples.length / 10));
  // The warm-up lasts at least until the settlement chain has mined more blocks than it keeps the transactions of:
  // until then each of its transactions stays in memory whole, after that Anvil drops old ones as new ones come.
  const keep = devnetConfig.settlementKeepBlocks;
  const filled = samples.findIndex((x) => x.settlement.head > BigInt(keep));
  const warmupSamples = Math.max(fifth, filled + 1);
  if (filled < 0 || warmupSamples >= samples.length - window)
    failed =
      `the run is too short to judge memory: the warm-up (the first fifth of the run, and until the settlement chain has mined more than ` +
      `--settlement-keep-blocks ${keep} blocks) leaves too few samples; run longer`;
  const after = samples.slice(warmupSamples, warmupSamples + window);
  const base = after.length ? after : samples.slice(-1);
  const end = samples.slice(-window);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const growth = ([a, b]: readonly [number, number]) => (b - a) / a;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  console.log(
    `soak: L1 ${first.l1.head} → ${last.l1.head}, settlement ${first.settlement.head} → ${last.settlement.head} ` +
      `(${((1000 * Number(last.settlement.head - first.settlement.head)) / (last.at - first.at)).toFixed(1)} blocks/s); ` +
      `pending at the last sample ${last.l1.pending + last.settlement.pending}; transactions timed out ${timeouts}; ` +
      `bids ${counts.bids}, commitments ${counts.commitments}, short bids ${short.length}, bid errors ${counts.bidErrors}`,
  );
  console.log(
    `soak: median of ${base.length} sample(s) after the warm-up (${warmupSamples}) vs the last ${end.length}:`,
  );
  const grew: string[] = [];
  const mid = (xs: Sample[]) => xs[Math.floor(xs.length / 2)]!;
  for (const p of PROCS) {
    const rss = [median(base.map((x) => x.procs[p].rssMiB)), median(end.map((x) => x.procs[p].rssMiB))] as const;
    const fds = [median(base.map((x) => x.procs[p].fds)), median(end.map((x) => x.procs[p].fds))] as const;
    // An Anvil's rss is judged net of the chain data it gained between the two windows' middle samples.
    const [from, to] = [mid(base).data[p], mid(end).data[p]];
    const explainedMiB = from && to ? explainedBytes(anvilCosts, from, to) / 2 ** 20 : 0;
    // The L1 Anvil keeps the states of past blocks: those of its last 500 blocks in memory, then it moves older ones to
    // disk, one more at each block, until 10 remain; its rss rises and falls by tens of MiB (28 → 75 → 35 over half an
    // hour). A sawtooth is judged against its highest point before the end: a leak sets new highs.
    const peak =
      p === "l1" ? Math.max(...samples.slice(0, samples.length - end.length).map((x) => x.procs[p].rssMiB)) : rss[0];
    const unexplained = (rss[1] - peak - explainedMiB) / peak;
    console.log(
      `  ${p.padEnd(18)} rss ${rss[0].toFixed(1)} → ${rss[1].toFixed(1)} MiB (${(growth(rss) * 100).toFixed(1)} %), ` +
        `open fds ${fds[0]} → ${fds[1]} (${(growth(fds) * 100).toFixed(1)} %)` +
        (from && to
          ? `; chain data gained: ${to.blocks - from.blocks} blocks, ${to.txs - from.txs} transactions, ${to.slots - from.slots} storage slots, ` +
            `${explainedMiB.toFixed(1)} MiB at a bare Anvil's costs; beyond that ${(unexplained * 100).toFixed(1)} %` +
            (p === "l1" ? ` of its highest rss before the end, ${peak.toFixed(1)} MiB` : "")
          : ""),
    );
    if (unexplained > 0.1)
      grew.push(
        `${p} rss grew ${(growth(rss) * 100).toFixed(1)} %${from && to ? ` (${(unexplained * 100).toFixed(1)} % beyond its chain data)` : ""}`,
      );
    // A few descriptors are connections in flight at the moment of the sample: 19 → 21 is no leak.
    if (growth(fds) > 0.1 && fds[1] - fds[0] > FD_NOISE)
      grew.push(`${p} open fds grew ${(growth(fds) * 100).toFixed(1)} %`);
  }
  failed ??= grew.length
    ? `${grew.join(", ")} after warm-up`
    : counts.commitments === 0
      ? "no bid got a commitment"
      : timeouts > 0
        ? `${timeouts} transaction(s) timed out waiting to be mined (see ${logPath})`
        : undefined;
}
console.log(
  failed
    ? `soak: FAILED: ${failed}`
    : "soak: passed (memory and descriptors flat; each Anvil's growth within its chain data)",
);
process.exit(failed ? 1 : 0);
