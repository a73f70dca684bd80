/**
 * One devnet per data dir. The devnet running on a data dir holds its lock (devnet.lock: pid, start time, ports);
 * a second start on that data dir stops at it, before it touches the chains' pid files, the target file or a port.
 * A lock whose devnet is gone (kill -9, a crash) is stale: the next start stops the Anvils that devnet left behind
 * and takes the lock over.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { killOrphan } from "../chain/anvil.ts";
import { acquireLock, type HeldLock, LockHeldError, type LockHolder, liveHolder } from "../util/pidLock.ts";
import { checkPortsFree } from "./busyPorts.ts";
import { type DevnetConfig, StartRefusedError } from "./config.ts";
import type { DataDir } from "./dataDir.ts";

/** What the lock tells a second start about the running devnet. */
export interface DevnetLockInfo {
  /** The data dir as its devnet was given it. */
  dataDir: string;
  /** The bidder's HTTP URL once the devnet is up (its configured port until then). */
  bidderUrl?: string;
  controlUrl?: string;
}

export class DevnetRunningError extends StartRefusedError {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder<DevnetLockInfo>,
  ) {
    const at = (url: string | undefined) => (url ? `:${new URL(url).port}` : undefined);
    const bidder = at(holder.info.bidderUrl);
    const control = at(holder.info.controlUrl);
    const where = bidder ? `, bidder on ${bidder}` : control ? `, control API on ${control}` : "";
    super(`a devnet is already running on ${dataDir} (pid ${holder.pid}${where})`, {
      context: { dataDir, pid: holder.pid },
    });
  }
}

/** Stops the Anvils a dead devnet left behind (their pid files), and waits until they are gone. */
async function stopLeftAnvils(dir: DataDir): Promise<void> {
  let files: string[];
  try {
    files = readdirSync(dir.pidDir).filter((f) => /^anvil-.*\.pid$/.test(f));
  } catch {
    return;
  }
  const pids = files.map((f) => Number(readFileSync(join(dir.pidDir, f), "utf8").trim()));
  for (const f of files) killOrphan(join(dir.pidDir, f));
  const until = Date.now() + 5_000;
  const running = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  while (process.platform === "linux" && pids.some(running) && Date.now() < until) await Bun.sleep(50);
}

const lockInfo = (cfg: DevnetConfig): DevnetLockInfo => ({
  dataDir: cfg.dataDir,
  bidderUrl: cfg.nodes && cfg.bidderPort > 0 ? `http://${cfg.host}:${cfg.bidderPort}` : undefined,
  controlUrl: cfg.controlPort > 0 ? `http://${cfg.host}:${cfg.controlPort}` : undefined,
});

/**
 * Claims the data dir for this devnet: DevnetRunningError when a live devnet holds it, PortsBusyError when a port
 * this one needs is taken (after the Anvils of a dead devnet on this data dir are stopped). Nothing is changed
 * before either check passes. `checkPorts` is false where the listeners' address is not known yet (netns).
 */
export async function claimDataDir(
  cfg: DevnetConfig,
  dir: DataDir,
  checkPorts = true,
): Promise<HeldLock<DevnetLockInfo>> {
  const running = liveHolder<DevnetLockInfo>(dir.lockFile);
  if (running) throw new DevnetRunningError(cfg.dataDir, running);
  await stopLeftAnvils(dir);
  if (checkPorts) await checkPortsFree(cfg);
  dir.ensure();
  try {
    return acquireLock(dir.lockFile, lockInfo(cfg));
  } catch (e) {
    if (e instanceof LockHeldError) throw new DevnetRunningError(cfg.dataDir, e.holder as LockHolder<DevnetLockInfo>);
    throw e;
  }
}
