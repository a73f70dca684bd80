/**
 * What the benchmark prints about the devnet's health at the start and end of a phase: rss of this process (every
 * node, the oracle and the driver) and of each Anvil, each chain's head and pending transactions (txpool_status).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { anvilPidFile } from "../../node/chain/anvil.ts";
import { jsonRpc } from "../../node/chain/jsonRpc.ts";
import type { Devnet } from "../../node/devnet/startDevnet.ts";

export interface ChainHealth {
  head: bigint;
  pending: number;
  queued: number;
  /** Resident memory of the Anvil process, bytes (undefined for a chain we did not start). */
  rss?: number;
  /** CPU time the Anvil process used so far, ms. */
  cpuMs?: number;
}

export interface Health {
  at: number;
  rss: number;
  /** Of `rss`, the JavaScript heap in use (every thread's objects are in other heaps: this is the event loop's). */
  heapUsed: number;
  /** CPU time this process (every node, the oracle, the driver, the benchmark's client) used so far, ms. */
  cpuMs: number;
  /** CPU time of this process's main thread (the nodes' event loop) so far, ms; undefined off Linux. */
  loopCpuMs?: number;
  l1: ChainHealth;
  settlement: ChainHealth;
}

/** Resident set size of a process from /proc (Linux), bytes. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process used so far, from /proc (Linux), ms. */
export function cpuMsOf(pid: number): number | undefined {
  return cpuMsOfStat(`/proc/${pid}/stat`);
}

/** CPU time (user + system) of this process's main thread so far, from /proc (Linux), ms. */
export function mainThreadCpuMs(): number | undefined {
  return cpuMsOfStat(`/proc/self/task/${process.pid}/stat`);
}

/** CPU time (user + system) of another process's main thread (a devnet's event loop) so far, from /proc, ms. */
export function mainThreadCpuMsOf(pid: number): number | undefined {
  return cpuMsOfStat(`/proc/${pid}/task/${pid}/stat`);
}

/** CPU time (user + system) of one thread of a process so far, from /proc, ms. */
export function threadCpuMsOf(pid: number, tid: number): number | undefined {
  return cpuMsOfStat(`/proc/${pid}/task/${tid}/stat`);
}

/** A /proc stat file: the command name, and the fields after it (state [0], ppid [1], utime [11], stime [12]). */
function readStat(path: string): { comm: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(path, "utf8");
    const close = stat.lastIndexOf(")");
    return { comm: stat.slice(stat.indexOf("(") + 1, close), fields: stat.slice(close + 2).split(" ") };
  } catch {
    return undefined;
  }
}

function cpuMsOfStat(path: string): number | undefined {
  const fields = readStat(path)?.fields;
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : undefined;
}

/** A process and its descendants, from /proc (Linux), leaving out those whose command is in `except`. */
export function processTree(root: number, except: string[] = []): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    const stat = Number.isInteger(pid) ? readStat(`/proc/${pid}/stat`) : undefined;
    if (!stat || except.includes(stat.comm)) continue;
    const ppid = Number(stat.fields[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

function anvilPid(devnet: Devnet, name: "l1" | "settlement"): number | undefined {
  const file = anvilPidFile(devnet.dir.pidDir, name);
  return existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : undefined;
}

/** A chain's head and its pool's pending and queued transactions (a chain without txpool_status shows none). */
export async function headAndPool(url: string): Promise<{ head: bigint; pending: number; queued: number }> {
  const [head, pool] = await Promise.all([
    jsonRpc<string>(url, "eth_blockNumber"),
    jsonRpc<{ pending: string; queued: string }>(url, "txpool_status").catch(() => ({ pending: "0x0", queued: "0x0" })),
  ]);
  return { head: BigInt(head), pending: Number(pool.pending), queued: Number(pool.queued) };
}

async function chainHealth(devnet: Devnet, name: "l1" | "settlement"): Promise<ChainHealth> {
  const pid = anvilPid(devnet, name);
  return {
    ...(await headAndPool(devnet.chains[name].rpcUrl)),
    rss: pid ? rssOf(pid) : undefined,
    cpuMs: pid ? cpuMsOf(pid) : undefined,
  };
}

export async function health(devnet: Devnet): Promise<Health> {
  const [l1, settlement] = await Promise.all([chainHealth(devnet, "l1"), chainHealth(devnet, "settlement")]);
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  return {
    at: performance.now(),
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    cpuMs: (cpu.user + cpu.system) / 1000,
    loopCpuMs: mainThreadCpuMs(),
    l1,
    settlement,
  };
}

export const mib = (n: number | undefined) => (n === undefined ? "n/a" : `${(n / 2 ** 20).toFixed(0)} MiB`);

export function healthLine(h: Health): string {
  const chain = (c: ChainHealth) =>
    `head ${c.head}, ${c.pending} pending${c.queued ? ` + ${c.queued} queued` : ""}, rss ${mib(c.rss)}`;
  return `node process rss ${mib(h.rss)} (JS heap ${mib(h.heapUsed)}); L1 ${chain(h.l1)}; settlement ${chain(h.settlement)}`;
}

/** When a phase ended and the event loop's CPU then (`loopMark`): its busy share is taken over the phase alone. */
export interface LoopMark {
  at: number;
  loopCpuMs?: number;
}

export const loopMark = (): LoopMark => ({ at: performance.now(), loopCpuMs: mainThreadCpuMs() });

/**
 * The event loop's CPU per bid between two marks and how busy it was: near 100 % even with one bid in flight, each
 * bid waits for the work of the bids before it (store transactions, receipts, events), so latency follows the CPU
 * per bid rather than the bid's own path.
 */
export function loopPerBidLine(a: LoopMark, b: LoopMark, bids: number): string {
  const busy = busyPercent(a, b);
  if (busy === undefined || !bids) return "n/a (no per-thread CPU on this system)";
  return `${((b.loopCpuMs! - a.loopCpuMs!) / bids).toFixed(2)} ms of CPU per bid, busy ${busy.toFixed(0)} % of the phase`;
}

/** How much of the time from `a` to `b` the event loop spent on a CPU; undefined without per-thread CPU times. */
function busyPercent(a: LoopMark, b: LoopMark): number | undefined {
  if (a.loopCpuMs === undefined || b.loopCpuMs === undefined || b.at <= a.at) return undefined;
  return (100 * (b.loopCpuMs - a.loopCpuMs)) / (b.at - a.at);
}

/**
 * CPU time per commitment between two snapshots: this process, of it the nodes' event loop, and each Anvil; with
 * `phaseEnd`, also how busy the event loop was from `a` to it (near 100 %, the loop is the bottleneck whatever the
 * other cores do).
 */
export function cpuPerCommitmentLine(a: Health, b: Health, commitments: number, phaseEnd?: LoopMark): string {
  const per = (x?: number, y?: number) =>
    x === undefined || y === undefined || !commitments ? "n/a" : `${((y - x) / commitments).toFixed(2)} ms`;
  const busy = phaseEnd && busyPercent(a, phaseEnd);
  return `node process ${per(a.cpuMs, b.cpuMs)}, of it the event loop ${per(a.loopCpuMs, b.loopCpuMs)}${busy === undefined ? "" : ` (busy ${busy.toFixed(0)} % of the phase)`}, settlement Anvil ${per(a.settlement.cpuMs, b.settlement.cpuMs)}, L1 Anvil ${per(a.l1.cpuMs, b.l1.cpuMs)}`;
}

/** Commitments the bidder holds whose store transaction is not mined yet. */
export function pendingCommitments(devnet: Devnet): number {
  return devnet.bidder.store.db
    .query<{ n: number }, []>("SELECT COUNT(*) AS n FROM commitments WHERE status = 'pending'")
    .get()!.n;
}
