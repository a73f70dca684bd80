/**
 * What the faults of a devnet become on each of its hosts: one nftables table (partition and loss, as drop rules)
 * and the root qdisc of the host's interface (netem for delay and jitter, tbf for the bandwidth cap). Pure: the
 * text of `nft -f` and the argv of `tc`, applied by netFaults.ts inside each host's namespace. Everything is named
 * FAULTS_TABLE, so removing it removes exactly what the faults made.
 */
import { type FaultSpec, isPseudoHost } from "./faultSpec.ts";

/** The nftables table (family inet) in each host's namespace that holds the faults' rules. */
export const FAULTS_TABLE = "mcfaults";

/** Where a host sits on the bridge: its address and its interface (both inside its namespace). */
export interface HostAddress {
  ip: string;
  iface: string;
  /** A place that is one TCP port of an address (the settlement chain's RPC): rules match that port alone. */
  port?: number;
  /** A place that is the clients of the host's own ports (its APIs): rules match those ports on the host's side. */
  ownPorts?: number[];
}

/** nft's match for one port or a set of them. */
function ports(list: number[]): string {
  return list.length === 1 ? String(list[0]) : `{ ${list.join(", ")} }`;
}

/** `nft -f` text that replaces the host's faults table with `rules` (no table at all when there are none). */
export function nftScript(input: string[], output: string[]): string {
  // Adding the table first makes the delete succeed whether or not an earlier one is there; one file is one
  // transaction, so the host never runs without the faults it had or with half of the new ones.
  const lines = [`table inet ${FAULTS_TABLE}`, `delete table inet ${FAULTS_TABLE}`];
  if (input.length || output.length) {
    lines.push(`table inet ${FAULTS_TABLE} {`);
    for (const [name, hook, rules, lo] of [
      ["input", "input", input, "iifname"],
      ["output", "output", output, "oifname"],
    ] as const) {
      lines.push(`  chain ${name} {`, `    type filter hook ${hook} priority -10; policy accept;`);
      // A host's own loopback traffic is no part of the network.
      lines.push(`    ${lo} "lo" accept`);
      for (const r of rules) lines.push(`    ${r}`);
      lines.push("  }");
    }
    lines.push("}");
  }
  return `${lines.join("\n")}\n`;
}

/** The drop rules of `host` for the faults that touch it. */
export function hostRules(
  host: string,
  faults: readonly FaultSpec[],
  addr: (place: string, host: string) => HostAddress,
): { input: string[]; output: string[] } {
  const input: string[] = [];
  const output: string[] = [];
  for (const f of faults) {
    if (!f.hosts.includes(host)) continue;
    // numgen's values are 0 to 99: a loss of 100 % is every packet.
    const loss =
      f.lossPercent === undefined
        ? undefined
        : f.lossPercent === 100
          ? "drop"
          : `numgen random mod 100 < ${f.lossPercent} drop`;
    if (f.hosts.length === 1) {
      // Each packet to or from the host meets the chance once, on its way in or out.
      if (loss) {
        input.push(loss);
        output.push(loss);
      }
      continue;
    }
    const other = f.hosts.find((h) => h !== host)!;
    const peer = addr(other, host);
    const [inPort, outPort] =
      peer.port !== undefined
        ? [` tcp sport ${peer.port}`, ` tcp dport ${peer.port}`]
        : peer.ownPorts?.length
          ? [` tcp dport ${ports(peer.ownPorts)}`, ` tcp sport ${ports(peer.ownPorts)}`]
          : ["", ""];
    const from = `ip saddr ${peer.ip}${inPort}`;
    const to = `ip daddr ${peer.ip}${outPort}`;
    if (f.partition) {
      input.push(`${from} drop`);
      output.push(`${to} drop`);
    }
    // Between a pair, each side drops on the way out: each packet meets the chance once. A pseudo-host (the root
    // namespace, the settlement chain) has no rules of its own: the host drops what comes from it too.
    if (loss) {
      output.push(`${to} ${loss}`);
      if (isPseudoHost(other)) input.push(`${from} ${loss}`);
    }
  }
  return { input, output };
}

/** A tbf burst that fits the rate (at least 20 ms of it and a few packets), in bytes. */
export function tbfBurstBytes(rateKbit: number): number {
  return Math.max(4096, Math.ceil((rateKbit * 1000) / 8 / 50));
}

/** The ceiling of a host's link where it has no cap of its own (kbit/s): 10 gbit/s, more than a veth pair moves here. */
export const NO_CAP_KBIT = 10_000_000;

/** tc's filter (argv after `tc`) that sends an interface's packets for one peer's address to that peer's htb class. */
export function peerFilter(iface: string, ip: string, flowid: string): string[] {
  const match = ["u32", "match", "ip", "dst", `${ip}/32`, "flowid", flowid];
  return ["filter", "add", "dev", iface, "parent", "1:", "protocol", "ip", "prio", "1", ...match];
}

/**
 * The `tc` commands (argv after `tc`) that give `host`'s interface its delay and bandwidth. A host's own cap and
 * delay alone: tbf or netem at the root (tbf under netem for both). With a cap or a delay towards a peer (a pair's
 * rateKbit, delayMs), an htb at the root: one class for the host's whole link (its own cap, or NO_CAP_KBIT), under
 * it one for the rest and one per such peer (a u32 filter on the peer's address), each with a netem under it for the
 * pair's delay, else the host's. None when the host has neither. Removing the root qdisc (`qdiscRemove`) comes first.
 */
export function qdiscCommands(
  iface: string,
  faults: readonly FaultSpec[],
  host: string,
  ipOf: (host: string) => string,
): string[][] {
  const own = faults.filter((f) => f.hosts.length === 1 && f.hosts[0] === host);
  const delay = own.find((f) => f.delayMs !== undefined);
  const rate = own.find((f) => f.rateKbit !== undefined)?.rateKbit;
  const peers = faults
    .filter((f) => f.hosts.length === 2 && f.hosts.includes(host) && (f.rateKbit ?? f.delayMs) !== undefined)
    .map((f) => ({
      ip: ipOf(f.hosts.find((h) => h !== host)!),
      kbit: f.rateKbit,
      delay: f.delayMs === undefined ? undefined : f,
    }));
  const dev = ["dev", iface];
  // A pair's own delay replaces the host's for what goes to that peer.
  const netem = (parent: string[], d: FaultSpec | undefined = delay) => {
    if (!d) return [];
    const argv = ["qdisc", "add", ...dev, ...parent, "netem", "delay", `${d.delayMs}ms`];
    if (d.jitterMs) argv.push(`${d.jitterMs}ms`);
    return [argv];
  };
  const tbf = (parent: string[], kbit: number) => [
    [
      "qdisc",
      "add",
      ...dev,
      ...parent,
      "tbf",
      "rate",
      `${kbit}kbit`,
      "burst",
      String(tbfBurstBytes(kbit)),
      "latency",
      "400ms",
    ],
  ];
  if (!peers.length) {
    if (!delay) return rate === undefined ? [] : tbf(["root", "handle", "1:"], rate);
    return [
      ...netem(["root", "handle", "1:"]),
      ...(rate === undefined ? [] : tbf(["parent", "1:1", "handle", "10:"], rate)),
    ];
  }
  const top = rate ?? NO_CAP_KBIT;
  // Leaves guarantee little and borrow up to their ceiling: the link's class keeps their sum within the host's cap.
  const leaf = (classid: string, ceil: number) => [
    "class",
    "add",
    ...dev,
    "parent",
    "1:1",
    "classid",
    classid,
    "htb",
    "rate",
    "8kbit",
    "ceil",
    `${Math.min(ceil, top)}kbit`,
  ];
  const out: string[][] = [
    ["qdisc", "add", ...dev, "root", "handle", "1:", "htb", "default", "2"],
    ["class", "add", ...dev, "parent", "1:", "classid", "1:1", "htb", "rate", `${top}kbit`, "ceil", `${top}kbit`],
    leaf("1:2", top),
    ...netem(["parent", "1:2", "handle", "2:"]),
  ];
  peers.forEach((p, i) => {
    const minor = (16 + i).toString(16);
    out.push(
      leaf(`1:${minor}`, p.kbit ?? top),
      peerFilter(iface, p.ip, `1:${minor}`),
      ...netem(["parent", `1:${minor}`, "handle", `${minor}:`], p.delay ?? delay),
    );
  });
  return out;
}

/** Removes whatever root qdisc the faults gave the interface (the kernel's default comes back). */
export function qdiscRemove(iface: string): string[] {
  return ["qdisc", "del", "dev", iface, "root"];
}
