/**
 * `bun node/main.ts` (a whole devnet) as a child of a test, as a user runs it in a terminal: a process group of its
 * own, its output in a log file. Whatever happens to the test, the devnet does not outlive it: the child watches
 * the test's process (`--parent-pid`) and stops when it is gone, `stopDevnetChildren()` (afterAll / afterEach)
 * stops every one still running, and this process's exit SIGKILLs whatever is left.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { within } from "../util/deadline.ts";

const ROOT = resolve(import.meta.dir, "../..");

export interface DevnetChild {
  proc: Subprocess;
  log: string;
  dataDir: string;
  /** Everything it logged so far. */
  output(): string;
  /** Ctrl-C at its terminal (SIGINT to its process group); resolves with its exit code. */
  ctrlC(): Promise<number>;
}

const running = new Set<DevnetChild>();

/** The devnet's Anvils, from their pid files in its data dir (the settlement chain's fork source too). */
export function anvilPids(dataDir: string): number[] {
  const run = join(dataDir, "run");
  return existsSync(run)
    ? readdirSync(run)
        .filter((f) => /^anvil-.*\.pid$/.test(f))
        .map((f) => Number(readFileSync(join(run, f), "utf8")))
    : [];
}

/** Whether a process runs (a zombie left for a reaper does not). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function killHard(child: DevnetChild): void {
  for (const pid of [-child.proc.pid, ...anvilPids(child.dataDir)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

process.on("exit", () => {
  for (const child of running) killHard(child);
});

/**
 * Starts `bun node/main.ts --data-dir DIR ARGS… --parent-pid <this process>` and, with `waitUp` (the default),
 * resolves once it printed its banner (rejecting with its output if it exits first or `timeoutMs` passes).
 */
export async function startDevnetChild(
  dataDir: string,
  args: string[],
  o: { log: string; waitUp?: boolean; timeoutMs?: number; env?: Record<string, string> },
): Promise<DevnetChild> {
  const proc = spawn(["bun", "node/main.ts", "--data-dir", dataDir, ...args, "--parent-pid", String(process.pid)], {
    cwd: ROOT,
    // Set when given: a child's environment is this process's at its start, whatever process.env says later.
    ...(o.env ? { env: { ...process.env, ...o.env } } : {}),
    // A file, not a pipe: a pipe nobody drains would block the devnet once full.
    stdout: Bun.file(o.log),
    stderr: Bun.file(o.log),
    detached: true,
  });
  const output = () => (existsSync(o.log) ? readFileSync(o.log, "utf8") : "");
  const child: DevnetChild = {
    proc,
    log: o.log,
    dataDir,
    output,
    async ctrlC() {
      try {
        process.kill(-proc.pid, "SIGINT");
      } catch {
        // exited already
      }
      return proc.exited;
    },
  };
  running.add(child);
  void proc.exited.then(() => running.delete(child));
  if (o.waitUp === false) return child;
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  for (;;) {
    if (output().includes("devnet is up")) return child;
    if (proc.exitCode !== null) throw new Error(`devnet exited (${proc.exitCode}) before it was up:\n${output()}`);
    if (Date.now() > deadline)
      throw new Error(`devnet did not start within ${o.timeoutMs ?? 120_000} ms:\n${output()}`);
    await Bun.sleep(100);
  }
}

/**
 * `bun node/main.ts ARGS…` (a devnet, or a node with `--role`) expected to exit by itself (a refused start): its exit
 * code and output. It watches this process (`--parent-pid`), and is SIGKILLed if it has not exited within `timeoutMs`.
 */
export async function runDevnetOnce(
  args: string[],
  timeoutMs = 60_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = spawn(["bun", "node/main.ts", ...args, "--parent-pid", String(process.pid)], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const [stdout, stderr, code] = await within(
      "bun node/main.ts to exit",
      timeoutMs,
      Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]),
    );
    return { code, stdout, stderr };
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}

/**
 * Stops every devnet child still running: Ctrl-C, up to `graceMs` to exit, then SIGKILL to its group and its
 * Anvils. For afterEach / afterAll, so that a failed assertion never leaves a devnet behind.
 */
export async function stopDevnetChildren(graceMs = 20_000): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      try {
        await within("the devnet to stop", graceMs, child.ctrlC());
      } catch {
        killHard(child);
        await child.proc.exited;
      }
    }),
  );
}
