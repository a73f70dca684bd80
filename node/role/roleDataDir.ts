/**
 * One `--role` node per data dir. The node running on a data dir holds its lock (node.lock: pid, start time, its
 * API); a second node on that data dir stops at it, before it binds a port or opens the store. A lock whose node is
 * gone (kill -9, a crash) is stale: the next node takes it over. Before the lock, every port the node will listen on
 * must be free, so a node refused for a busy port changes nothing either.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { StartRefusedError } from "../devnet/config.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import { acquireLock, type HeldLock, LockHeldError, type LockHolder, liveHolder } from "../util/pidLock.ts";
import { portFree } from "../util/ports.ts";
import type { RoleConfig } from "./roleConfig.ts";

/** What the lock tells a second node about the running one. */
export interface RoleLockInfo {
  role: RoleConfig["role"];
  /** The data dir as its node was given it (or its default). */
  dataDir: string;
  /** Its HTTP API once it serves (bidder and provider). */
  url?: string;
  /** Its libp2p port. */
  p2pPort?: number;
}

/** The node's data dir: --data-dir, else `.node-<role>-<first 8 hex digits of its address>`. */
export function roleDataDir(cfg: Pick<RoleConfig, "dataDir" | "role" | "nodeKey">): string {
  return cfg.dataDir || `.node-${cfg.role}-${privateKeyToAddress(cfg.nodeKey).slice(2, 10).toLowerCase()}`;
}

export class RoleNodeRunningError extends StartRefusedError {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder<RoleLockInfo>,
  ) {
    const { role, url, p2pPort } = holder.info;
    const where = url ? `, API on :${new URL(url).port}` : p2pPort ? `, libp2p on :${p2pPort}` : "";
    super(
      `a ${role === "bootnode" ? "bootnode" : `${role} node`} is already running on ${dataDir} (pid ${holder.pid}${where})`,
      {
        context: { dataDir, pid: holder.pid },
      },
    );
  }
}

interface RolePort {
  port: number;
  host: string;
  flag: string;
}

/** A port the node needs is taken: the first is named with its flag. */
export class RolePortsBusyError extends StartRefusedError {
  constructor(readonly busy: RolePort[]) {
    const [first, ...more] = busy;
    const others = more.length ? ` (and ${more.map((p) => `${p.port} (${p.flag})`).join(", ")})` : "";
    super(
      `port ${first!.port} (${first!.flag}) on ${first!.host} is in use${others}: another node or program listens ` +
        `there; give this node another ${first!.flag}, or stop what listens`,
      { context: { busy } },
    );
  }
}

/** The fixed ports the node listens on (0, chosen at listen time, is left out). */
export function rolePorts(cfg: RoleConfig): RolePort[] {
  const out: RolePort[] = [];
  const add = (port: number | undefined, host: string, flag: string) => {
    if (port !== undefined && port > 0) out.push({ port, host, flag });
  };
  add(cfg.p2pPort, cfg.p2pAddr, "--p2p-port");
  if (cfg.role === "bootnode") return out;
  add(cfg.httpPort, cfg.httpAddr, "--http-port");
  add(cfg.rpcPort, cfg.httpAddr, "--rpc-port");
  add(cfg.adminPort, cfg.httpAddr, "--admin-port");
  return out;
}

/**
 * Claims the node's data dir: RoleNodeRunningError when a live node holds it, RolePortsBusyError when a port the
 * node needs is taken. Nothing is created or bound before both checks pass.
 */
export async function claimRoleDataDir(cfg: RoleConfig): Promise<HeldLock<RoleLockInfo>> {
  const dataDir = roleDataDir(cfg);
  const file = join(dataDir, "node.lock");
  const running = liveHolder<RoleLockInfo>(file);
  if (running) throw new RoleNodeRunningError(dataDir, running);
  const ports = rolePorts(cfg);
  const free = await Promise.all(ports.map((p) => portFree(p.port, p.host)));
  const busy = ports.filter((_, i) => !free[i]);
  if (busy.length) throw new RolePortsBusyError(busy);
  mkdirSync(dataDir, { recursive: true });
  try {
    return acquireLock<RoleLockInfo>(file, { role: cfg.role, dataDir, p2pPort: cfg.p2pPort || undefined });
  } catch (e) {
    if (e instanceof LockHeldError) throw new RoleNodeRunningError(dataDir, e.holder as LockHolder<RoleLockInfo>);
    throw e;
  }
}
