import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NetFaults } from "../faults/netFaults.ts";
import { cannotMakeHosts, NetnsHosts, removeNetwork, removeOrphanNetworks } from "../role/netnsHosts.ts";
import { logger } from "../util/log.ts";
import type { HeldLock } from "../util/pidLock.ts";
import { ConfigError, type DevnetConfig, netnsHostNames } from "./config.ts";
import { DataDir } from "./dataDir.ts";
import { claimDataDir, type DevnetLockInfo } from "./dataDirLock.ts";
import { NetnsUnavailableError } from "./devnetErrors.ts";

const log = logger("devnet");

/** With `--network netns`: the nodes' hosts and the network faults between them. */
export interface NetnsParts {
  hosts: NetnsHosts<string>;
  faults: NetFaults;
}

/** What a start holds before anything else runs: its data dir (locked), and with netns the nodes' hosts. */
export interface DevnetClaim {
  /** The config the devnet runs with: with netns, `host` is the devnet's side of the hosts' bridge. */
  readonly config: DevnetConfig;
  readonly dir: DataDir;
  readonly lock: HeldLock<DevnetLockInfo>;
  readonly netns: NetnsParts | undefined;
  /** Takes the faults off, tears the hosts down and releases the data dir: the last thing a stop does. */
  release(): void;
}

/**
 * The first phase of a start: a devnet running on this data dir, or a busy port, stops it before anything changes;
 * with netns the hosts are made (what a killed run left removed first) and a `--fault` the kernel cannot make
 * stops it too. Then the data dir is made ready (wiped with --fresh; the last run's target file removed).
 */
export async function claimDevnet(cfg: DevnetConfig): Promise<DevnetClaim> {
  const dir = new DataDir(cfg.dataDir);
  const why = cfg.network === "netns" ? cannotMakeHosts() : undefined;
  if (why) throw new NetnsUnavailableError(why);
  const lock = await claimDataDir(cfg, dir, cfg.network !== "netns");
  let netns: NetnsParts | undefined;
  try {
    netns = cfg.network === "netns" ? makeHosts(cfg, dir) : undefined;
  } catch (e) {
    lock.release();
    throw e;
  }
  // The chains, the control and beacon APIs and the bootnode listen on this namespace's side of the bridge.
  const config = netns ? { ...cfg, host: netns.hosts.rootIp } : cfg;
  const release = () => {
    netns?.faults.removeAll();
    netns?.hosts.tearDown();
    if (netns) rmSync(netnsTagFile(dir), { force: true });
    lock.release();
  };
  try {
    if (config.fresh) dir.wipe();
    dir.ensure();
    if (netns) writeNetnsTag(dir, netns.hosts.tag);
    // The last run's target file names nodes that are not up yet: it comes back once this run is ready.
    rmSync(dir.targetFile, { force: true });
  } catch (e) {
    release();
    throw e;
  }
  return { config, dir, lock, netns, release };
}

function makeHosts(cfg: DevnetConfig, dir: DataDir): NetnsParts {
  // With --no-nodes a netns devnet only makes hosts (--foreign-hosts) for another implementation's nodes.
  const hosts = new NetnsHosts(netnsHostNames(cfg.nodes ? cfg.providers : 0, cfg.foreignHosts));
  try {
    // A run of this data dir, or any other run, that was killed left its namespaces, with their fault rules and
    // qdiscs, behind.
    const left = readNetnsTag(dir);
    const gone = [...(left ? removeNetwork(left) : []), ...removeOrphanNetworks()];
    if (gone.length) log.info("removed the network namespaces a killed run left", { namespaces: gone.join(", ") });
    hosts.setUp();
    // What the kernel offers is known now: a --fault it cannot make stops the start before anything else runs.
    const faults = new NetFaults(hosts);
    for (const f of cfg.faults ?? []) {
      const why = faults.unavailableFor(f);
      if (why) throw new ConfigError(`--fault ${JSON.stringify(f)}: ${why}`);
    }
    log.info("network namespaces made", {
      hosts: hosts.hosts.map((h) => `${h} ${hosts.ipOf(h)} (${hosts.namespace(h)})`).join(", "),
      devnet: hosts.rootIp,
    });
    return { hosts, faults };
  } catch (e) {
    hosts.tearDown();
    throw e;
  }
}

/** Where a netns devnet notes its network's tag, so that the next start on the data dir removes what a kill left. */
function netnsTagFile(dir: DataDir): string {
  return join(dir.pidDir, "netns-tag");
}

function readNetnsTag(dir: DataDir): string | undefined {
  const file = netnsTagFile(dir);
  return existsSync(file) ? readFileSync(file, "utf8").trim() || undefined : undefined;
}

function writeNetnsTag(dir: DataDir, tag: string): void {
  mkdirSync(dir.pidDir, { recursive: true });
  writeFileSync(netnsTagFile(dir), `${tag}\n`);
}
