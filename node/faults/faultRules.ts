/**
 * What the faults of a devnet become on each of its hosts: one nftables table (partition and loss, as drop rules)
 * and the root qdisc of the host's interface (netem for delay and jitter, tbf for the bandwidth cap). Pure: the
 * text of `nft -f` and the argv of `tc`, applied by netFaults.ts inside each host's namespace. Everything is named
 * FAULTS_TABLE, so removing it removes exactly what the faults made.
 */
import type { FaultSpec } from "./faultSpec.ts";

/** The nftables table (family inet) in each host's namespace that holds the faults' rules. */
export const FAULTS_TABLE = "mcfaults";

/** Where a host sits on the bridge: its address and its interface (both inside its namespace). */
export interface HostAddress {
  ip: string;
  iface: string;
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
  addr: (host: string) => HostAddress,
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
    const peer = addr(f.hosts.find((h) => h !== host)!).ip;
    if (f.partition) {
      input.push(`ip saddr ${peer} drop`);
      output.push(`ip daddr ${peer} drop`);
    }
    // Between a pair, each side drops on the way out: each packet meets the chance once.
    if (loss) output.push(`ip daddr ${peer} ${loss}`);
  }
  return { input, output };
}

/** A tbf burst that fits the rate (at least 20 ms of it and a few packets), in bytes. */
export function tbfBurstBytes(rateKbit: number): number {
  return Math.max(4096, Math.ceil((rateKbit * 1000) / 8 / 50));
}

/**
 * The `tc` commands (argv after `tc`) that give `host`'s interface its delay and bandwidth: netem at the root with
 * tbf under it, or either alone; none when the host has neither. Removing the root qdisc (`qdiscRemove`) comes first.
 */
export function qdiscCommands(iface: string, faults: readonly FaultSpec[], host: string): string[][] {
  const own = faults.filter((f) => f.hosts.length === 1 && f.hosts[0] === host);
  const delay = own.find((f) => f.delayMs !== undefined);
  const rate = own.find((f) => f.rateKbit !== undefined)?.rateKbit;
  const tbf = (parent: string[]) =>
    rate === undefined
      ? []
      : [
          [
            "qdisc",
            "add",
            "dev",
            iface,
            ...parent,
            "tbf",
            "rate",
            `${rate}kbit`,
            "burst",
            String(tbfBurstBytes(rate)),
            "latency",
            "400ms",
          ],
        ];
  if (!delay) return tbf(["root", "handle", "1:"]);
  const netem = ["qdisc", "add", "dev", iface, "root", "handle", "1:", "netem", "delay", `${delay.delayMs}ms`];
  if (delay.jitterMs) netem.push(`${delay.jitterMs}ms`);
  return [netem, ...tbf(["parent", "1:1", "handle", "10:"])];
}

/** Removes whatever root qdisc the faults gave the interface (the kernel's default comes back). */
export function qdiscRemove(iface: string): string[] {
  return ["qdisc", "del", "dev", iface, "root"];
}
