/**
 * `npm run bench:faults -- --target FILE`: fixed network-fault schedules against any target with `sim-faults` (the
 * reference devnet with --network netns, or another implementation's nodes on a devnet's --foreign-hosts:
 * scripts/upstream.sh --netns), bids at a steady rate throughout, and a table of what each schedule did to them
 * (docs/faults.md, "Side by side"). Each schedule faults the target's last provider: bids before the fault, with it in
 * place and after its heal; per schedule the bids answered, commitments per bid, acknowledged commitments the
 * settlement chain does not show (an UnopenedCommitmentStored event with the commitment's digest) once every bid
 * ended and the chain had time to catch up, and the time from the heal to the first bid sent after it that got every
 * provider's commitment. A kind of fault the target cannot make is reported unavailable with its reason.
 *
 * The target's providers must decide (an accept-all application: the devnet's --auto-accept, or upstream.sh
 * --apps yes); the bench deposits for its bids when a first bid does not get every provider's commitment.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { type Address, createPublicClient, http } from "viem";
import { CliFailure, CliUsageError, exitOnCliErrors, parseCliArgs } from "../../lib/cli.ts";
import { MevCommitError } from "../../lib/errors.ts";
import { protocolAbis } from "../../node/chain/protocolContracts.ts";
import type { Target } from "../../node/clients/target.ts";
import { parseProtocolVersion, UnknownProtocolVersionError } from "../../node/protocol/protocolVersion.ts";
import { type ProtocolRules, rulesOf } from "../../node/protocol/rules.ts";
import { bidBodies } from "./common.ts";
import {
  type FaultSchedule,
  faultBody,
  faultSchedules,
  normalDigest,
  type ScheduledBid,
  type ScheduleRow,
  scheduleFigures,
  scheduleTable,
} from "./faultSchedule.ts";
import { readTarget } from "./targetBench.ts";

const USAGE = `npm run bench:faults -- --target FILE [--rate BIDS_PER_S] [--scale F] [--schedules a,b] [--json FILE]

  --target FILE     a target file with the sim-faults capability (default: TARGET)
  --rate N          bids sent per second, each on its own, throughout every schedule (default 2)
  --scale F         multiplies every phase's length (default 1: 5 s before, 20 s of fault, 20 s after the heal)
  --schedules LIST  which schedules, in order (default partition,loss,rate,delay)
  --json FILE       also write the rows as JSON
`;

class FaultBenchError extends MevCommitError {}

interface FaultsStatus {
  available: string[];
  unavailable: Record<string, string>;
  hosts: { name: string; ip: string }[];
}

interface ControlStatus {
  l1?: { blockTime?: number };
  nodes?: { name: string; address: string }[];
}

async function json<T>(method: string, url: string, body?: unknown): Promise<T> {
  const r = await fetch(url, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  if (!r.ok) throw new FaultBenchError(`${method} ${url} answered HTTP ${r.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** POST /v1/bidder/bid; each `{"result":…}` line's commitment digest, as the stream gives them. */
async function bid(bidderUrl: string, body: string, t0: number): Promise<ScheduledBid> {
  const sentMs = performance.now() - t0;
  const digests: string[] = [];
  let error: string | undefined;
  try {
    const r = await fetch(`${bidderUrl}/v1/bidder/bid`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      signal: AbortSignal.timeout(120_000),
    });
    for (const line of (await r.text()).split("\n")) {
      if (!line.trim()) continue;
      const j = JSON.parse(line) as { result?: { commitmentDigest?: string }; error?: unknown };
      if (j.result?.commitmentDigest) digests.push(normalDigest(j.result.commitmentDigest));
      else error ??= line.trim().slice(0, 200);
    }
    return { sentMs, endMs: performance.now() - t0, status: r.status, digests, error };
  } catch (e) {
    return { sentMs, endMs: performance.now() - t0, status: 0, digests, error: (e as Error).message };
  }
}

async function l1Head(t: Target): Promise<bigint> {
  return createPublicClient({ transport: http(t.l1RpcUrl) }).getBlockNumber();
}

/** The hosts of the target's bidder and last provider: the target file's nodeHosts, else the control API's node names. */
async function hostsOf(t: Target): Promise<{ bidder: string; provider: string }> {
  const named = (t as Target & { nodeHosts?: { bidder: string; providers: string[] } }).nodeHosts;
  if (named) return { bidder: named.bidder, provider: named.providers.at(-1)! };
  const status = await json<ControlStatus>("GET", `${t.controlUrl}/sim/v1/status`);
  const nameOf = (address: string) =>
    status.nodes?.find((n) => n.address.toLowerCase() === address.toLowerCase())?.name;
  const bidder = nameOf(t.bidderAddress);
  const provider = nameOf(t.providerAddresses.at(-1)!);
  if (!bidder || !provider)
    throw new FaultBenchError(
      "the control API's status names no node with the target's bidder or last provider address, and the target file has no nodeHosts",
    );
  return { bidder, provider };
}

/** A first bid that gets every provider's commitment; deposits once when it does not (v1.1: the bids' window). */
async function ready(t: Target, rules: ProtocolRules, body: () => string, block: bigint): Promise<void> {
  const providers = t.providerAddresses.length;
  const t0 = performance.now();
  let b = await bid(t.bidderUrl, body(), t0);
  if (b.digests.length >= providers) return;
  const wei = 10n ** 19n;
  if (rules.deposits === "provider")
    for (const p of t.providerAddresses)
      await json("POST", `${t.bidderUrl}/v1/bidder/deposit/${wei}?provider=${p}`).catch((e) =>
        console.log(`  deposit toward ${p}: ${(e as Error).message}`),
      );
  else
    await json("POST", `${t.bidderUrl}/v1/bidder/deposit/${wei}?window_number=${(block - 1n) / 10n + 1n}`).catch((e) =>
      console.log(`  deposit for the bids' window: ${(e as Error).message}`),
    );
  for (const until = Date.now() + 60_000; Date.now() < until; await Bun.sleep(2_000)) {
    b = await bid(t.bidderUrl, body(), t0);
    if (b.digests.length >= providers) return;
  }
  throw new FaultBenchError(
    `before any fault a bid got ${b.digests.length} of ${providers} commitments (${b.error ?? `HTTP ${b.status}`}): the bidder needs a deposit for block ${block} and every provider an application that accepts`,
  );
}

/** The commitment digests UnopenedCommitmentStored shows on the settlement chain since `from`. */
async function storedSince(t: Target, rules: ProtocolRules, from: bigint): Promise<Set<string>> {
  const client = createPublicClient({ transport: http(t.settlementRpcUrl) });
  const logs = await client.getContractEvents({
    address: t.contracts.preconfManager as Address,
    abi: protocolAbis(rules).preconfManager,
    eventName: "UnopenedCommitmentStored",
    fromBlock: from,
    toBlock: "latest",
  });
  return new Set(logs.map((l) => normalDigest((l.args as { commitmentDigest: string }).commitmentDigest)));
}

async function runSchedule(
  t: Target,
  s: FaultSchedule,
  o: { rate: number; rules: ProtocolRules; hosts: { bidder: string; provider: string }; body: () => string },
): Promise<ScheduleRow> {
  const faults = `${t.controlUrl}/sim/v1/network/faults`;
  const settlement = createPublicClient({ transport: http(t.settlementRpcUrl) });
  const from = await settlement.getBlockNumber();
  const t0 = performance.now();
  const total = s.beforeMs + s.faultMs + s.afterMs;
  const pending: Promise<ScheduledBid>[] = [];
  let faultAtMs = Number.NaN;
  let healAtMs = Number.NaN;
  const body = faultBody(s, o.hosts);
  for (let i = 0; ; i++) {
    const at = (i * 1000) / o.rate;
    if (at >= total) break;
    if (Number.isNaN(faultAtMs) && at >= s.beforeMs) {
      await Bun.sleep(Math.max(0, s.beforeMs - (performance.now() - t0)));
      await json("POST", faults, body);
      faultAtMs = performance.now() - t0;
    }
    if (Number.isNaN(healAtMs) && at >= s.beforeMs + s.faultMs) {
      await Bun.sleep(Math.max(0, s.beforeMs + s.faultMs - (performance.now() - t0)));
      await json("DELETE", `${faults}?hosts=${(body.hosts as string[]).join(",")}`);
      healAtMs = performance.now() - t0;
    }
    await Bun.sleep(Math.max(0, at - (performance.now() - t0)));
    pending.push(bid(t.bidderUrl, o.body(), t0));
  }
  const bids = await Promise.all(pending);
  const acknowledged = new Set(bids.flatMap((b) => b.digests));
  // The providers store what they committed to once the chain answers them: wait until it shows every commitment,
  // or 30 s (and a few settlement blocks) past the last bid's end.
  let stored: Set<string>;
  for (const until = Date.now() + 30_000; ; await Bun.sleep(2_000)) {
    stored = await storedSince(t, o.rules, from);
    if ([...acknowledged].every((d) => stored.has(d)) || Date.now() >= until) break;
  }
  return {
    schedule: s,
    figures: scheduleFigures(bids, { faultAtMs, healAtMs, providers: t.providerAddresses.length, stored }),
  };
}

function commitOf(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short=10", "HEAD"], { cwd: import.meta.dir })
      .toString()
      .trim();
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const { values: a } = parseCliArgs({
    options: {
      target: { type: "string" },
      rate: { type: "string", default: "2" },
      scale: { type: "string", default: "1" },
      schedules: { type: "string" },
      json: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (a.help) {
    console.log(USAGE);
    return;
  }
  const file = a.target ?? process.env.TARGET;
  if (!file) throw new CliUsageError("--target FILE is needed (a target file with the sim-faults capability)");
  const rate = Number(a.rate);
  if (!(rate > 0 && rate <= 50))
    throw new CliUsageError(`--rate must be a number of bids per second from 0 to 50, got ${a.rate}`);
  const scale = Number(a.scale);
  if (!(scale > 0 && scale <= 10)) throw new CliUsageError(`--scale must be a number from 0 to 10, got ${a.scale}`);
  const all = faultSchedules(scale);
  const names = a.schedules?.split(",").map((n) => n.trim()) ?? all.map((s) => s.name);
  const schedules = names.map((n) => {
    const s = all.find((x) => x.name === n);
    if (!s) throw new CliUsageError(`--schedules: no schedule ${n} (${all.map((x) => x.name).join(", ")})`);
    return s;
  });
  const t = readTarget(file);
  // The target file's "protocol" (absent: v1.1), parsed once.
  let rules: ProtocolRules;
  try {
    rules = rulesOf(parseProtocolVersion(t.protocol));
  } catch (e) {
    if (!(e instanceof UnknownProtocolVersionError)) throw e;
    throw new CliFailure(`the target file ${file}: ${e.message}`, 2);
  }
  if (!t.capabilities?.includes("sim-faults") || !t.controlUrl)
    throw new CliFailure(
      `the target ${file} lacks the sim-faults capability (a control API that sets network faults between its nodes): start a devnet with --network netns, or upstream's nodes with scripts/upstream.sh --netns`,
      2,
    );
  const status = await json<ControlStatus>("GET", `${t.controlUrl}/sim/v1/status`);
  const kinds = await json<FaultsStatus>("GET", `${t.controlUrl}/sim/v1/network/faults`);
  const hosts = await hostsOf(t);
  console.log(
    `target ${t.name} ${t.version ?? ""} (${rules.version}), ${t.providerAddresses.length} providers; faults on ${hosts.provider} (bidder ${hosts.bidder}); ${rate} bids/s`,
  );
  const blockTime = status.l1?.blockTime ?? 0;
  const restore = async () => {
    await json("DELETE", `${t.controlUrl}/sim/v1/network/faults`).catch(() => {});
    if (blockTime > 0) await json("POST", `${t.controlUrl}/sim/v1/l1`, { blockTime }).catch(() => {});
  };
  exitOnCliErrors({ cleanup: restore });
  // Every bid targets one block: the L1 stands still for the run, so the bids' deposit (v1.1: its window) holds.
  if (blockTime > 0) await json("POST", `${t.controlUrl}/sim/v1/l1`, { blockTime: 0 });
  await json("DELETE", `${t.controlUrl}/sim/v1/network/faults`);
  const block = (await l1Head(t)) + 1n;
  const body = bidBodies({ seed: BigInt(Date.now()) << 64n, block: () => block });
  await ready(t, rules, body, block);
  const rows: ScheduleRow[] = [];
  for (const s of schedules) {
    if (!kinds.available.includes(s.kind)) {
      rows.push({ schedule: s, unavailable: kinds.unavailable[s.kind] ?? `the target offers no ${s.kind}` });
      console.log(`${s.name}: unavailable (${rows.at(-1)!.unavailable})`);
      continue;
    }
    console.log(`${s.name}: ${s.title} (${(s.beforeMs + s.faultMs + s.afterMs) / 1000} s)`);
    rows.push(await runSchedule(t, s, { rate, rules, hosts, body }));
  }
  await restore();
  console.log(
    `\n${t.name} ${t.version ?? ""}, ${rules.version}; ${rate} bids/s; bid timeout ${t.bidTimeoutMs} ms; commit ${commitOf()}; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}\n`,
  );
  for (const line of scheduleTable(rows)) console.log(line);
  if (a.json) writeFileSync(a.json, `${JSON.stringify({ target: t.name, version: t.version, rate, rows }, null, 2)}\n`);
}

exitOnCliErrors({});
await main();
