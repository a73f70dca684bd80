/**
 * A lock file that names the process holding it: its pid, its start time (Linux /proc: a pid the OS handed to
 * another process after the holder died does not count as the holder) and what the holder wants others to read.
 * It is held while that process runs: a lock left by a process that died (kill -9, a crash) is stale and is taken over.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { MevCommitError } from "../../lib/errors.ts";

export interface LockHolder<T> {
  pid: number;
  /** The holder's start time in clock ticks since boot (/proc/PID/stat field 22); absent where there is no /proc. */
  started?: string;
  info: T;
}

/** Another live process holds the lock. */
export class LockHeldError<T> extends MevCommitError {
  constructor(
    readonly file: string,
    readonly holder: LockHolder<T>,
  ) {
    super(`${file} is held by process ${holder.pid}`, { context: { file, pid: holder.pid } });
  }
}

/** When process `pid` started (ticks since boot), or undefined without /proc or when it does not run. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") return undefined;
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote `holder` still runs (not a zombie, not another process with its pid). */
export function holderAlive(holder: LockHolder<unknown>): boolean {
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (process.platform !== "linux") return true;
  const now = startTime(holder.pid);
  return now !== undefined && (holder.started === undefined || holder.started === now);
}

/** The lock's holder as its file says, or undefined when there is no file or it cannot be read. */
export function readLock<T>(file: string): LockHolder<T> | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as LockHolder<T>;
    return typeof parsed?.pid === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The lock's holder when it is alive, else undefined. */
export function liveHolder<T>(file: string): LockHolder<T> | undefined {
  const holder = readLock<T>(file);
  return holder && holderAlive(holder) ? holder : undefined;
}

/** A lock this process holds; `release()` removes the file unless another process took it over meanwhile. */
export interface HeldLock<T = unknown> {
  file: string;
  /** Rewrites what the lock tells others (atomically), while this process still holds it. */
  update(info: T): void;
  release(): void;
}

const held = new Set<HeldLock>();
process.on("exit", () => {
  for (const lock of held) lock.release();
});

/**
 * Takes the lock for this process, or throws LockHeldError naming the live holder. A stale lock (its holder is
 * gone) is replaced. Of two processes taking it at once, one wins: the file is created exclusively (a hard link).
 */
export function acquireLock<T>(file: string, info: T): HeldLock<T> {
  const me: LockHolder<T> = { pid: process.pid, started: startTime(process.pid), info };
  const text = `${JSON.stringify(me, null, 2)}\n`;
  // Written whole to a file of our own, then linked to the lock's name: it appears with its content or not at all.
  const mine = `${file}.${process.pid}`;
  writeFileSync(mine, text);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 5) throw e;
        const holder = readLock<T>(file);
        if (holder && holderAlive(holder)) throw new LockHeldError(file, holder);
        // Its holder is gone (kill -9, a crash): take it over.
        rmSync(file, { force: true });
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
  const ours = () => {
    const now = readLock<T>(file);
    return now !== undefined && now.pid === me.pid && now.started === me.started;
  };
  const lock: HeldLock<T> = {
    file,
    update(next) {
      if (!ours()) return;
      writeFileSync(mine, `${JSON.stringify({ ...me, info: next }, null, 2)}\n`);
      renameSync(mine, file);
    },
    release() {
      held.delete(lock as HeldLock);
      if (ours()) rmSync(file, { force: true });
    },
  };
  held.add(lock as HeldLock);
  return lock;
}
