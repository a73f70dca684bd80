/**
 * Every process of a target's tree, each on its own: which one saturates first as bids in flight rise. A process
 * is named from its command line (`anvil :8546`, `bun … --role provider :13723`, …); for each level the table gives
 * its CPU per bid and how busy it was: its threads together in cores, and its busiest thread in per cent of the
 * level's wall time (a thread near 100 % is an event loop at its ceiling, whatever the other cores do).
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpuMsOf, processTree, threadCpuMsOf } from "./health.ts";

export interface ProcessCpuSnapshot {
  at: number;
  /** Per pid: its CPU (every thread) and each thread's, ms. */
  byPid: Map<number, { cpuMs: number; threads: Map<number, number> }>;
}

export interface ProcessCpuRow {
  pid: number;
  name: string;
  cpuMsPerBid: number;
  /** The process's CPU over the level's wall time, in cores. */
  cores: number;
  /** Its busiest thread's CPU over the level's wall time, per cent. */
  busiestThreadPercent: number;
}

/** A process's name for the table: its program and the role and port that tell it apart from its siblings. */
export function processName(pid: number): string {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return `pid ${pid}`;
  }
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const program = (argv[0] ?? "?").split("/").pop()!;
  if (program.startsWith("anvil")) return `anvil :${flag("--port") ?? "?"}`;
  const role = flag("--role");
  if (role) return `${role} :${flag("--http-port") ?? flag("--port") ?? pid}`;
  const script = argv.find((a) => a.endsWith(".ts") || a.endsWith(".js"));
  return script ? `${program} ${script.split("/").slice(-2).join("/")}` : `${program} (${pid})`;
}

export function snapshotProcessCpu(root: number): ProcessCpuSnapshot {
  const byPid = new Map<number, { cpuMs: number; threads: Map<number, number> }>();
  for (const pid of processTree(root)) {
    const cpuMs = cpuMsOf(pid);
    if (cpuMs === undefined) continue;
    const threads = new Map<number, number>();
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {}
    for (const t of tids) {
      const ms = threadCpuMsOf(pid, Number(t));
      if (ms !== undefined) threads.set(Number(t), ms);
    }
    byPid.set(pid, { cpuMs, threads });
  }
  return { at: performance.now(), byPid };
}

/** Each process present in both snapshots, busiest first. */
export function processCpuRows(a: ProcessCpuSnapshot, b: ProcessCpuSnapshot, bids: number): ProcessCpuRow[] {
  const wallMs = b.at - a.at;
  const rows: ProcessCpuRow[] = [];
  for (const [pid, after] of b.byPid) {
    const before = a.byPid.get(pid);
    if (!before || wallMs <= 0 || bids <= 0) continue;
    let busiest = 0;
    for (const [tid, ms] of after.threads) busiest = Math.max(busiest, ms - (before.threads.get(tid) ?? ms));
    rows.push({
      pid,
      name: processName(pid),
      cpuMsPerBid: (after.cpuMs - before.cpuMs) / bids,
      cores: (after.cpuMs - before.cpuMs) / wallMs,
      busiestThreadPercent: (100 * busiest) / wallMs,
    });
  }
  return rows.sort((x, y) => y.cores - x.cores);
}

/** One block of lines per level: each process with a share of a core or more listed, the rest summed. */
export function processCpuLines(inFlight: number, rows: ProcessCpuRow[]): string[] {
  const shown = rows.filter((r) => r.cores >= 0.02);
  const rest = rows.filter((r) => r.cores < 0.02);
  const lines = [`  ${inFlight} in flight, per process: CPU/bid, cores busy, busiest thread`];
  const width = Math.max(12, ...shown.map((r) => r.name.length));
  for (const r of shown)
    lines.push(
      `    ${r.name.padEnd(width)}  ${r.cpuMsPerBid.toFixed(2).padStart(6)} ms  ${r.cores.toFixed(2).padStart(5)}  ${r.busiestThreadPercent.toFixed(0).padStart(3)} %`,
    );
  if (rest.length)
    lines.push(
      `    ${`${rest.length} more`.padEnd(width)}  ${rest
        .reduce((s, r) => s + r.cpuMsPerBid, 0)
        .toFixed(2)
        .padStart(6)} ms`,
    );
  return lines;
}
