/**
 * Network faults of a `--network netns` devnet, as data: on one host (everything it sends and receives) or between
 * a pair of hosts. Parsed from the start flag (`--fault bidder/provider-1:partition`) and from the control API's
 * JSON; pure (the rules they become are in faultRules.ts, applying them is netFaults.ts).
 */
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";

/** The kinds of fault, each backed by one kernel facility (faultKinds.ts says which this machine has). */
export const FAULT_KINDS = ["partition", "loss", "bandwidth", "delay"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Places that are not hosts of their own but a fault can cut a host from, as the other end of a pair: `settlement`,
 * the settlement chain's RPC port in the devnet's own (root) namespace; `clients`, the clients of the host's own APIs
 * (its HTTP and gRPC ports) in that namespace, such as the conformance suite's; `root`, everything in that namespace
 * (the chains, the control and beacon APIs, the bootnode, the clients). Only partition and loss towards them: their
 * rules sit on the host's side alone.
 */
export const PSEUDO_HOSTS = ["clients", "root", "settlement"] as const;

export function isPseudoHost(h: string): boolean {
  return (PSEUDO_HOSTS as readonly string[]).includes(h);
}

export interface FaultSpec {
  /** One host (the fault is on all its traffic) or two (only the traffic between them). Sorted, no repeats. */
  hosts: string[];
  /** No packet passes between the pair (pairs only). */
  partition?: boolean;
  /** Each packet dropped with this chance, in percent (1 to 100). */
  lossPercent?: number;
  /** What the host sends capped at this many kbit/s (a pair: what each sends to the other). */
  rateKbit?: number;
  /** Added to each packet the host sends (a pair: each sends to the other), in ms, and its random variation. */
  delayMs?: number;
  jitterMs?: number;
}

/** The kinds a spec uses (what the machine must have for it). */
export function kindsOf(f: FaultSpec): FaultKind[] {
  const kinds: FaultKind[] = [];
  if (f.partition) kinds.push("partition");
  if (f.lossPercent !== undefined) kinds.push("loss");
  if (f.rateKbit !== undefined) kinds.push("bandwidth");
  if (f.delayMs !== undefined || f.jitterMs !== undefined) kinds.push("delay");
  return kinds;
}

/** The key a spec replaces: one host, or a pair in either order. */
export function placeOf(hosts: readonly string[]): string {
  return [...hosts].sort().join("/");
}

function intIn(name: string, v: unknown, min: number, max: number): number {
  const n = typeof v === "string" && /^[0-9]+$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return n;
}

/** Checks a spec against the devnet's hosts and returns it normalised (hosts sorted); InvalidArgument otherwise. */
export function checkSpec(raw: unknown, known: readonly string[]): FaultSpec {
  if (!raw || typeof raw !== "object") throw new InvalidArgumentError("a fault must be a JSON object");
  const r = raw as Record<string, unknown>;
  const extra = Object.keys(r).filter(
    (k) => !["hosts", "partition", "lossPercent", "rateKbit", "delayMs", "jitterMs"].includes(k),
  );
  if (extra.length)
    throw new InvalidArgumentError(
      `unknown fault fields ${extra.join(", ")} (known: hosts, partition, lossPercent, rateKbit, delayMs, jitterMs)`,
    );
  const hosts = r.hosts;
  if (!Array.isArray(hosts) || hosts.length < 1 || hosts.length > 2 || !hosts.every((h) => typeof h === "string"))
    throw new InvalidArgumentError(`hosts must name one host or a pair of hosts, got ${JSON.stringify(hosts)}`);
  for (const h of hosts)
    if (!known.includes(h)) throw new InvalidArgumentError(`no host ${h}: the hosts are ${known.join(", ")}`);
  if (hosts.length === 2 && hosts[0] === hosts[1])
    throw new InvalidArgumentError(`a pair needs two different hosts, got ${hosts[0]} twice`);
  const pseudo = hosts.filter(isPseudoHost);
  if (pseudo.length && (hosts.length !== 2 || pseudo.length === 2))
    throw new InvalidArgumentError(
      `${pseudo.join(" and ")} is not a host: name it with one host, as a pair (e.g. provider-0/${pseudo[0]})`,
    );
  const spec: FaultSpec = { hosts: [...hosts].sort() };
  const pair = hosts.length === 2;
  if (r.partition !== undefined) {
    if (typeof r.partition !== "boolean")
      throw new InvalidArgumentError(`partition must be true or false, got ${JSON.stringify(r.partition)}`);
    if (r.partition && !pair)
      throw new InvalidArgumentError(
        "a partition is between a pair of hosts: name two (a host cut from all would lose its devnet too)",
      );
    if (r.partition) spec.partition = true;
  }
  if (r.lossPercent !== undefined) spec.lossPercent = intIn("lossPercent", r.lossPercent, 1, 100);
  for (const [k, min, max] of [
    ["rateKbit", 8, 10_000_000],
    ["delayMs", 0, 60_000],
    ["jitterMs", 0, 60_000],
  ] as const) {
    if (r[k] !== undefined) spec[k] = intIn(k, r[k], min, max);
  }
  if (spec.jitterMs !== undefined && spec.delayMs === undefined)
    throw new InvalidArgumentError("jitterMs needs delayMs (jitter is a variation of the added delay)");
  if (pseudo.length && (spec.rateKbit !== undefined || spec.delayMs !== undefined))
    throw new InvalidArgumentError(
      `towards ${pseudo[0]} a fault can be a partition or loss only (rateKbit and delayMs shape a host's own interface)`,
    );
  if (!kindsOf(spec).length)
    throw new InvalidArgumentError(
      "a fault needs at least one of partition, lossPercent, rateKbit, delayMs (to remove faults, DELETE them)",
    );
  return spec;
}

/** `10` or `10%` for loss; `1mbit`, `500kbit` or `500` (kbit/s) for rate; `50ms` or `50` for delay and jitter. */
function flagValue(kind: string, v: string): number | string {
  const m = /^([0-9]+)(%|ms|kbit|mbit)?$/.exec(v);
  if (!m) throw new InvalidArgumentError(`--fault: ${kind}=${v} is not a number (with %, ms, kbit or mbit)`);
  const n = Number(m[1]);
  return m[2] === "mbit" ? n * 1000 : n;
}

/**
 * The start flag's form, `HOST[/HOST]:SETTING[,SETTING…]` with settings `partition`, `loss=P[%]`,
 * `rate=N[kbit|mbit]`, `delay=MS[ms]`, `jitter=MS[ms]`: e.g. `bidder/provider-1:partition`,
 * `provider-0:loss=10%,rate=1mbit`.
 */
export function parseFaultFlag(text: string, known: readonly string[]): FaultSpec {
  const colon = text.indexOf(":");
  if (colon < 1)
    throw new InvalidArgumentError(
      `--fault ${text}: expected HOST[/HOST]:SETTING[,SETTING…], e.g. bidder/provider-1:partition or provider-0:loss=10%`,
    );
  const raw: Record<string, unknown> = { hosts: text.slice(0, colon).split("/") };
  const names: Record<string, string> = { loss: "lossPercent", rate: "rateKbit", delay: "delayMs", jitter: "jitterMs" };
  for (const part of text.slice(colon + 1).split(",")) {
    const [k, v] = part.split("=", 2) as [string, string | undefined];
    if (k === "partition" && v === undefined) raw.partition = true;
    else if (names[k] && v !== undefined) raw[names[k]] = flagValue(k, v);
    else
      throw new InvalidArgumentError(
        `--fault ${text}: unknown setting "${part}" (known: partition, loss=P%, rate=Nkbit|Nmbit, delay=MSms, jitter=MSms)`,
      );
  }
  return checkSpec(raw, known);
}
