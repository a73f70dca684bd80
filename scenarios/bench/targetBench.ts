/**
 * The same bids through any implementation's bidder, side by side: `npm run bench:bids -- --target FILE`. FILE is a
 * target file (node/clients/target.ts): a devnet's `<data-dir>/target.json`, or one written by hand for another
 * implementation's nodes (upstream's, a user's). Bids go to the bidder's POST /v1/bidder/bid at each level of
 * concurrency; the first commitment line of each response is timed, as a user's HTTP client sees it.
 *
 * The target's bidder must hold a deposit for the bids' window and its providers must decide (an accept-all
 * application, or the devnet's --auto-accept).
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { CliFailure } from "../../lib/cli.ts";
import type { Target } from "../../node/clients/target.ts";
import { driveClosed, summarise } from "./bidPhase.ts";
import { bidBodies, ms } from "./common.ts";
import { cpuMsOf, headAndPool, mainThreadCpuMsOf } from "./health.ts";
import { processCpuLines, processCpuRows, snapshotProcessCpu } from "./processCpu.ts";

export interface TargetBenchOptions {
  targetFile: string;
  /** Bids in flight at each level, e.g. [1, 8, 32]. */
  levels: number[];
  /** Bids timed at each level. */
  bids: number;
  /** Untimed bids before the first level. */
  warmup: number;
  /**
   * The target's processes on this machine (a devnet's pid, or every process of another implementation's node set):
   * their CPU per bid at each level is printed, summed; the main thread's only for a single process.
   */
  pids?: number[];
  /** A process whose whole tree (a devnet and its node processes and Anvils) is measured process by process. */
  cpuTree?: number;
  print: (line: string) => void;
}

export interface TargetLevelResult {
  inFlight: number;
  bids: number;
  firstP50: number;
  firstP99: number;
  commitmentsPerBid: number;
  /** Answered bids with fewer commitments than the target has providers. */
  short: number;
  /** Failed requests, non-200 answers or error lines. */
  errors: number;
  bidsPerSec: number;
  /** Commitments received per second: the throughput to compare when a side answers bids without commitments. */
  commitmentsPerSec: number;
  load: string;
  /** With pids: the processes' CPU (every thread, summed) and, for a single process, its main thread's, ms per bid. */
  cpuMsPerBid?: number;
  loopCpuMsPerBid?: number;
}

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export function readTarget(file: string): Target {
  let t: Target;
  try {
    t = JSON.parse(readFileSync(file, "utf8")) as Target;
  } catch (e) {
    throw new CliFailure(`cannot read the target file ${file}: ${(e as Error).message.split("\n")[0]}`, 2);
  }
  if (typeof t.bidderUrl !== "string" || typeof t.l1RpcUrl !== "string" || !Array.isArray(t.providerAddresses))
    throw new CliFailure(`the target file ${file} has no bidderUrl, l1RpcUrl or providerAddresses`, 2);
  return t;
}

/** Every thread's CPU of the processes, summed (ms). */
function cpuOf(pids?: number[]): number | undefined {
  if (!pids?.length) return undefined;
  let sum = 0;
  for (const pid of pids) {
    const ms = cpuMsOf(pid);
    if (ms === undefined) return undefined;
    sum += ms;
  }
  return sum;
}
/** The main thread's CPU of a single process (ms): one event loop's figure, meaningless summed over processes. */
const loopCpuOf = (pids?: number[]) => (pids?.length === 1 ? mainThreadCpuMsOf(pids[0]!) : undefined);

export async function targetBench(o: TargetBenchOptions): Promise<TargetLevelResult[]> {
  const target = readTarget(o.targetFile);
  const providers = target.providerAddresses.length;
  // Bids for the L1 block after the next one, followed as the chain moves (a manual-mining devnet stays put).
  let head = (await headAndPool(target.l1RpcUrl)).head;
  const follow = setInterval(() => {
    headAndPool(target.l1RpcUrl).then(
      (h) => (head = h.head),
      () => {},
    );
  }, 1000);
  const body = bidBodies({ seed: BigInt(Date.now()) << 20n, block: () => head + 2n });
  const cpus = os.cpus();
  o.print(`machine: ${cpus.length} cores, ${cpus[0]?.model ?? "unknown CPU"}; Bun ${Bun.version}`);
  o.print(
    `target: ${target.name ?? "?"} (${target.bidderUrl}), ${providers} providers; ${o.bids} bids per level; load average ${loadavg()} at start`,
  );
  const rows: TargetLevelResult[] = [];
  const perProcess: string[] = [];
  try {
    if (o.warmup > 0) await driveClosed(target.bidderUrl, body, o.warmup, 1);
    for (const inFlight of o.levels) {
      const cpu0 = cpuOf(o.pids);
      const loop0 = loopCpuOf(o.pids);
      const tree0 = o.cpuTree === undefined ? undefined : snapshotProcessCpu(o.cpuTree);
      const s = summarise(await driveClosed(target.bidderUrl, body, o.bids, inFlight), providers);
      if (tree0)
        perProcess.push(...processCpuLines(inFlight, processCpuRows(tree0, snapshotProcessCpu(o.cpuTree!), s.bids)));
      const cpu1 = cpuOf(o.pids);
      const loop1 = loopCpuOf(o.pids);
      const perBid = (a?: number, b?: number) =>
        a === undefined || b === undefined || !s.bids ? undefined : (b - a) / s.bids;
      rows.push({
        inFlight,
        bids: s.bids,
        firstP50: s.first.p50,
        firstP99: s.first.p99,
        commitmentsPerBid: s.bids ? s.commitments / s.bids : 0,
        short: s.short,
        errors: s.errors,
        bidsPerSec: s.bidsPerSec,
        commitmentsPerSec: s.commitmentsPerSec,
        load: loadavg(),
        cpuMsPerBid: perBid(cpu0, cpu1),
        loopCpuMsPerBid: perBid(loop0, loop1),
      });
      if (s.firstError) o.print(`  ${inFlight} in flight: first error: ${s.firstError}`);
    }
  } finally {
    clearInterval(follow);
  }
  for (const line of targetTableLines(rows, providers)) o.print(line);
  for (const line of perProcess) o.print(line);
  return rows;
}

const msOf = (v: number | undefined) => (v === undefined ? "n/a" : `${v.toFixed(2)} ms`);

export function targetTableLines(rows: TargetLevelResult[], providers: number): string[] {
  const head = [
    "in flight",
    "bids",
    "bids/s",
    "commitments/s",
    "first p50",
    "first p99",
    "commitments/bid",
    `short (< ${providers})`,
    "errors",
    "load average",
  ];
  const withCpu = rows.some((r) => r.cpuMsPerBid !== undefined);
  if (withCpu) head.splice(head.length - 1, 0, "CPU/bid", "loop CPU/bid");
  const cells = rows.map((r) => [
    String(r.inFlight),
    String(r.bids),
    r.bidsPerSec.toFixed(1),
    r.commitmentsPerSec.toFixed(1),
    ms(r.firstP50),
    ms(r.firstP99),
    r.commitmentsPerBid.toFixed(2),
    String(r.short),
    String(r.errors),
    ...(withCpu ? [msOf(r.cpuMsPerBid), msOf(r.loopCpuMsPerBid)] : []),
    r.load.split(" ")[0]!,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padStart(widths[i]!)).join("  ");
  return [line(head), ...cells.map(line)];
}
