/**
 * Hosts on this machine made of Linux network namespaces (`ip netns`) joined by a bridge: each host gets its own
 * namespace and address on one /24, and the calling (root) namespace gets an address on it too, so a process here
 * reaches every host and every host reaches the others. Needs root and iproute2.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "bun";
import { MevCommitError } from "../../lib/errors.ts";

/**
 * Where each network this machine's NetnsHosts made notes the process that owns it (one file per tag: its pid and
 * start time), so that a later start removes the networks of processes that were killed (removeOrphanNetworks).
 */
export const NETWORK_OWNERS_DIR = join(tmpdir(), "mev-commit-netns");

/** A process's start time in clock ticks since boot (/proc/PID/stat field 22), undefined when it is gone. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** A host network could not be made or torn down (the `ip` command that failed and its output). */
export class NetnsError extends MevCommitError {
  constructor(
    readonly command: string[],
    readonly output: string,
  ) {
    super(`${command.join(" ")} failed: ${output.trim()}`, { context: { command, output } });
  }
}

function sh(args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  return { ok: r.exitCode === 0, out: r.stdout.toString() + r.stderr.toString() };
}

function must(args: string[]): void {
  const r = sh(args);
  if (!r.ok) throw new NetnsError(args, r.out);
}

/** Why namespaces cannot be made here (not root, no iproute2, no permission), or undefined when they can. */
export function cannotMakeHosts(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (ip netns)";
  if (!sh(["ip", "-V"]).ok) return "needs iproute2 (ip)";
  const probe = `mcns-${Math.random().toString(36).slice(2, 7)}-probe`;
  if (!sh(["ip", "netns", "add", probe]).ok) return "cannot create network namespaces here";
  sh(["ip", "netns", "del", probe]);
  return undefined;
}

export class NetnsHosts<H extends string> {
  /** A short random tag in every namespace and interface name: runs side by side do not collide. */
  private readonly id = Math.random().toString(36).slice(2, 7);
  /** 10.200–249.x.0/24: a random subnet, unlikely to meet the machine's own routes. */
  private readonly subnet = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 250)}`;
  private made = false;

  /** `hosts` get addresses .1, .2, … in this order; the calling namespace gets .254. */
  constructor(readonly hosts: readonly H[]) {
    if (hosts.length < 1 || hosts.length > 250) throw new RangeError(`1 to 250 hosts, got ${hosts.length}`);
  }

  /** The namespace of a host (or of the bridge, "hub"). */
  namespace(host: H | "hub"): string {
    return `mcns-${this.id}-${host}`;
  }

  ipOf(host: H): string {
    const i = this.hosts.indexOf(host);
    if (i < 0) throw new RangeError(`no host ${host}: the hosts are ${this.hosts.join(", ")}`);
    return `${this.subnet}.${i + 1}`;
  }

  /** The calling namespace's address on the hosts' network. */
  get rootIp(): string {
    return `${this.subnet}.254`;
  }

  /** A command line that runs `argv` on a host. */
  exec(host: H, argv: string[]): string[] {
    return ["ip", "netns", "exec", this.namespace(host), ...argv];
  }

  /** The random tag in this network's namespace and interface names (removeNetwork takes it). */
  get tag(): string {
    return this.id;
  }

  /** The interface of a host inside its namespace (the host's end of its veth pair). */
  ifaceOf(host: H): string {
    const i = this.hosts.indexOf(host);
    if (i < 0) throw new RangeError(`no host ${host}: the hosts are ${this.hosts.join(", ")}`);
    return `${this.ifName(i)}a`;
  }

  /** Interface names stay under Linux's 15 characters: "mc" + id + the host's number + "a"/"b". */
  private ifName(i: number | "r"): string {
    return `mc${this.id}${i}`;
  }

  /** A hub namespace with a bridge; each host's namespace and the calling one plug into it with a veth pair. */
  setUp(): void {
    if (this.made) return;
    this.made = true;
    mkdirSync(NETWORK_OWNERS_DIR, { recursive: true });
    writeFileSync(
      join(NETWORK_OWNERS_DIR, this.id),
      JSON.stringify({ pid: process.pid, start: startTimeOf(process.pid) }),
    );
    try {
      must(["ip", "netns", "add", this.namespace("hub")]);
      must(["ip", "-n", this.namespace("hub"), "link", "add", "br0", "type", "bridge"]);
      must(["ip", "-n", this.namespace("hub"), "link", "set", "br0", "up"]);
      this.hosts.forEach((h, i) => {
        must(["ip", "netns", "add", this.namespace(h)]);
        this.plug(this.ifName(i), this.namespace(h), this.ipOf(h));
      });
      this.plug(this.ifName("r"), undefined, this.rootIp);
    } catch (e) {
      this.tearDown();
      throw e;
    }
  }

  private plug(name: string, inNs: string | undefined, ip: string): void {
    const a = `${name}a`;
    const hub = this.namespace("hub");
    must(["ip", "link", "add", a, "type", "veth", "peer", "name", `${name}b`]);
    must(["ip", "link", "set", `${name}b`, "netns", hub]);
    must(["ip", "-n", hub, "link", "set", `${name}b`, "master", "br0", "up"]);
    if (inNs) {
      must(["ip", "link", "set", a, "netns", inNs]);
      must(["ip", "-n", inNs, "addr", "add", `${ip}/24`, "dev", a]);
      must(["ip", "-n", inNs, "link", "set", a, "up"]);
      must(["ip", "-n", inNs, "link", "set", "lo", "up"]);
    } else {
      must(["ip", "addr", "add", `${ip}/24`, "dev", a]);
      must(["ip", "link", "set", a, "up"]);
    }
  }

  /** Removes everything setUp made (deleting a namespace deletes its veth ends); safe to call more than once. */
  tearDown(): void {
    if (!this.made) return;
    this.made = false;
    rmSync(join(NETWORK_OWNERS_DIR, this.id), { force: true });
    sh(["ip", "link", "del", `${this.ifName("r")}a`]);
    for (const h of [...this.hosts, "hub" as const]) sh(["ip", "netns", "del", this.namespace(h)]);
  }
}

/**
 * Removes a network NetnsHosts made and did not tear down (its process was killed): every namespace named with
 * `tag` (which takes the faults' rules and qdiscs in them along) and the calling namespace's veth end. Returns the
 * namespaces it removed.
 */
export function removeNetwork(tag: string): string[] {
  if (!/^[a-z0-9]{1,8}$/.test(tag)) throw new RangeError(`not a network tag: ${JSON.stringify(tag)}`);
  const list = sh(["ip", "netns", "list"]);
  const gone = list.out
    .split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((n) => n.startsWith(`mcns-${tag}-`));
  sh(["ip", "link", "del", `mc${tag}ra`]);
  for (const n of gone) sh(["ip", "netns", "del", n]);
  return gone;
}

/**
 * Removes every network whose owner (NETWORK_OWNERS_DIR) is no longer running: the namespaces, with their fault
 * rules and qdiscs, a killed devnet or test left behind, whatever its data dir. Returns the namespaces removed.
 */
export function removeOrphanNetworks(): string[] {
  let tags: string[];
  try {
    tags = readdirSync(NETWORK_OWNERS_DIR);
  } catch {
    return [];
  }
  const gone: string[] = [];
  for (const tag of tags) {
    if (!/^[a-z0-9]{1,8}$/.test(tag)) continue;
    let owner: { pid?: number; start?: string };
    try {
      owner = JSON.parse(readFileSync(join(NETWORK_OWNERS_DIR, tag), "utf8"));
    } catch {
      continue;
    }
    // The same pid started at another time is another process: its owner is gone too.
    if (typeof owner.pid === "number" && startTimeOf(owner.pid) === owner.start && owner.start !== undefined) continue;
    gone.push(...removeNetwork(tag));
    rmSync(join(NETWORK_OWNERS_DIR, tag), { force: true });
  }
  return gone;
}
