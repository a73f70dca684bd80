/**
 * The network faults of a `--network netns` devnet, applied: each host's faults table (nftables) and its
 * interface's root qdisc (tc), inside the host's own namespace, rewritten whole whenever a fault on it changes.
 * Everything lives in the devnet's namespaces: removing them (a stop, or the next start after a crash:
 * removeNetwork) removes every rule and qdisc with them; `removeAll` takes them off before that.
 */
import { spawnSync } from "bun";
import { MevCommitError } from "../../lib/errors.ts";
import { FailedPreconditionError, NotFoundError } from "../protocol/grpcCodes.ts";
import type { NetnsHosts } from "../role/netnsHosts.ts";
import {
  FAULTS_TABLE,
  type HostAddress,
  hostRules,
  nftScript,
  peerFilter,
  qdiscCommands,
  qdiscRemove,
} from "./faultRules.ts";
import { checkSpec, FAULT_KINDS, type FaultKind, type FaultSpec, isPseudoHost, kindsOf, placeOf } from "./faultSpec.ts";

/** A command that applies faults failed (its argv and output). */
export class NetFaultError extends MevCommitError {
  constructor(
    readonly command: string[],
    readonly output: string,
  ) {
    super(`${command.join(" ")} failed: ${output.trim()}`, { context: { command, output } });
  }
}

function run(argv: string[], input?: string): { ok: boolean; out: string } {
  const r = spawnSync(argv, {
    stdin: input === undefined ? "ignore" : new TextEncoder().encode(input),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { ok: r.exitCode === 0, out: r.stdout.toString() + r.stderr.toString() };
}

/** Each fault kind: undefined where this machine has what it needs, else why not (the control API says so). */
export type FaultKinds = Record<FaultKind, string | undefined>;

const PROBE_NFT = `table inet ${FAULTS_TABLE}_probe {
  chain c {
    type filter hook output priority 0; policy accept;
    ip daddr 127.0.0.2 numgen random mod 100 < 1 drop
  }
}
delete table inet ${FAULTS_TABLE}_probe
`;

/** Tries each kind's facility once through `inNs` (a namespace of the devnet's own, on its loopback), undone after. */
export function probeFaultKinds(inNs: (argv: string[]) => string[]): FaultKinds {
  const nft = run(["nft", "--version"]).ok
    ? run(inNs(["nft", "-f", "-"]), PROBE_NFT)
    : { ok: false, out: "nft (nftables) is not installed: scripts/install-netfilter.sh installs it" };
  const nftWhy = nft.ok ? undefined : `nftables cannot be used here: ${nft.out.trim().split("\n")[0]}`;
  const tcWhy = (kind: string, args: string[], missing: string) => {
    if (!run(["tc", "-V"]).ok) return "tc (iproute2) is not installed";
    const r = run(inNs(["tc", "qdisc", "add", "dev", "lo", "root", kind, ...args]));
    if (r.ok) {
      run(inNs(["tc", "qdisc", "del", "dev", "lo", "root"]));
      return undefined;
    }
    return /unknown/i.test(r.out) ? missing : `tc ${kind} failed here: ${r.out.trim().split("\n")[0]}`;
  };
  const pairCap = () => {
    const why = tcWhy(
      "htb",
      ["default", "2"],
      "this kernel has no htb (CONFIG_NET_SCH_HTB): the bandwidth cap is unavailable",
    );
    if (why) return why;
    run(inNs(["tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb", "default", "2"]));
    const r = run(inNs(["tc", ...peerFilter("lo", "127.0.0.2", "1:2")]));
    run(inNs(["tc", "qdisc", "del", "dev", "lo", "root"]));
    return r.ok
      ? undefined
      : `this kernel's u32 classifier (CONFIG_NET_CLS_U32) does not answer: the bandwidth cap is unavailable (${r.out.trim().split("\n")[0]})`;
  };
  return {
    partition: nftWhy,
    loss: nftWhy,
    bandwidth:
      tcWhy(
        "tbf",
        ["rate", "1mbit", "burst", "32kbit", "latency", "400ms"],
        "this kernel has no tbf (CONFIG_NET_SCH_TBF): the bandwidth cap is unavailable",
      ) ?? pairCap(),
    delay: tcWhy(
      "netem",
      ["delay", "1ms"],
      "this kernel has no netem (CONFIG_NET_SCH_NETEM): delay and jitter are unavailable",
    ),
  };
}

export class NetFaults {
  private readonly faults = new Map<string, FaultSpec>();
  /** Hosts whose table or qdisc the faults have touched (removeAll undoes them). */
  private readonly touched = new Set<string>();
  readonly kinds: FaultKinds;
  /** The pseudo-hosts a fault can cut a host from (faultSpec.ts PSEUDO_HOSTS): where each is. */
  private readonly pseudo = new Map<string, { ip: string; port?: number }>();

  constructor(readonly hosts: NetnsHosts<string>) {
    this.kinds = probeFaultKinds((argv) => ["ip", "netns", "exec", hosts.namespace("hub"), ...argv]);
    this.pseudo.set("root", { ip: hosts.rootIp });
    this.pseudo.set("clients", { ip: hosts.rootIp });
  }

  /** Where the settlement chain's RPC listens (its URL as the nodes have it): the pseudo-host `settlement`. */
  placeSettlement(rpcUrl: string): void {
    const u = new URL(rpcUrl);
    if (!/^[0-9]+(\.[0-9]+){3}$/.test(u.hostname)) return;
    this.pseudo.set("settlement", { ip: u.hostname, port: Number(u.port || (u.protocol === "https:" ? 443 : 80)) });
  }

  /** The ports each host's own APIs listen on (HTTP, gRPC): what the pseudo-host `clients` cuts. */
  private readonly apiPorts = new Map<string, number[]>();

  /** Where the clients of a host's APIs reach it: the pseudo-host `clients` (from the root namespace). */
  placeClients(host: string, ports: number[]): void {
    this.apiPorts.set(host, ports);
  }

  /** Every name a fault may use: the hosts, then the pseudo-hosts, with their addresses. */
  places(): { name: string; ip: string; port?: number }[] {
    return [
      ...this.hosts.hosts.map((name) => ({ name, ip: this.hosts.ipOf(name) })),
      ...[...this.pseudo].map(([name, a]) => ({ name, ...a })),
    ];
  }

  private addressOf(h: string, from?: string): HostAddress {
    const p = this.pseudo.get(h);
    if (h === "clients" && p) return { ...p, iface: "", ownPorts: this.apiPorts.get(from ?? "") ?? [] };
    return p ? { ...p, iface: "" } : { ip: this.hosts.ipOf(h), iface: this.hosts.ifaceOf(h) };
  }

  /** The kinds this machine offers, and why the others are not. */
  available(): { available: FaultKind[]; unavailable: Partial<Record<FaultKind, string>> } {
    const unavailable: Partial<Record<FaultKind, string>> = {};
    for (const k of FAULT_KINDS) if (this.kinds[k]) unavailable[k] = this.kinds[k];
    return { available: FAULT_KINDS.filter((k) => !this.kinds[k]), unavailable };
  }

  /** Why this machine cannot make a fault (the first kind it lacks), or undefined when it can. */
  unavailableFor(spec: FaultSpec): string | undefined {
    return kindsOf(spec)
      .map((k) => this.kinds[k])
      .find(Boolean);
  }

  list(): FaultSpec[] {
    return [...this.faults.values()];
  }

  /**
   * Checks a fault (InvalidArgument; FailedPrecondition for a kind this machine lacks) and puts it in place of any
   * on the same host or pair.
   */
  set(raw: unknown): FaultSpec {
    const spec = checkSpec(
      raw,
      this.places().map((p) => p.name),
    );
    const why = this.unavailableFor(spec);
    if (why) throw new FailedPreconditionError(why);
    const served = spec.hosts.find((h) => !isPseudoHost(h))!;
    if (spec.hosts.includes("clients") && !this.apiPorts.get(served)?.length)
      throw new FailedPreconditionError(`the ports of ${served}'s APIs are not known: it runs no node of this devnet`);
    const place = placeOf(spec.hosts);
    const before = this.faults.get(place);
    this.faults.set(place, spec);
    try {
      this.apply(spec.hosts);
    } catch (e) {
      if (before) this.faults.set(place, before);
      else this.faults.delete(place);
      this.apply(spec.hosts);
      throw e;
    }
    return spec;
  }

  /** Removes the fault on a host or pair (NotFound when there is none), or every fault when `hosts` is undefined. */
  heal(hosts?: string[]): FaultSpec[] {
    if (hosts === undefined) {
      const all = this.list();
      this.faults.clear();
      this.apply(this.hosts.hosts);
      return all;
    }
    const place = placeOf(hosts);
    const f = this.faults.get(place);
    if (!f)
      throw new NotFoundError(
        `no fault on ${place}; the faults are on ${
          this.list()
            .map((x) => placeOf(x.hosts))
            .join(", ") || "no host"
        }`,
      );
    this.faults.delete(place);
    this.apply(f.hosts);
    return [f];
  }

  /** Takes every rule and qdisc off the hosts (before they are torn down); never throws. */
  removeAll(): void {
    this.faults.clear();
    for (const h of this.touched) {
      run(this.hosts.exec(h, ["nft", "delete", "table", "inet", FAULTS_TABLE]));
      run(this.hosts.exec(h, ["tc", ...qdiscRemove(this.hosts.ifaceOf(h))]));
    }
    this.touched.clear();
  }

  private apply(hosts: readonly string[]): void {
    const faults = this.list();
    const addr = (place: string, host: string) => this.addressOf(place, host);
    for (const h of hosts) {
      // A pseudo-host's rules are on the host's side.
      if (isPseudoHost(h)) continue;
      const { input, output } = hostRules(h, faults, addr);
      const qdiscs = qdiscCommands(this.hosts.ifaceOf(h), faults, h, (x) => this.hosts.ipOf(x));
      if (!this.touched.has(h) && !input.length && !output.length && !qdiscs.length) continue;
      this.touched.add(h);
      const nft = this.hosts.exec(h, ["nft", "-f", "-"]);
      if (input.length || output.length) {
        const r = run(nft, nftScript(input, output));
        if (!r.ok) throw new NetFaultError(nft, r.out);
      } else if (!this.kinds.partition) run(nft, nftScript([], []));
      run(this.hosts.exec(h, ["tc", ...qdiscRemove(this.hosts.ifaceOf(h))]));
      for (const c of qdiscs) {
        const argv = this.hosts.exec(h, ["tc", ...c]);
        const r = run(argv);
        if (!r.ok) throw new NetFaultError(argv, r.out);
      }
    }
  }
}
