/**
 * `npm run soak -- --faults`: a `--network netns` devnet under bids from several client streams while a seeded random
 * schedule of network faults comes and goes on every link; then every fault healed, settlement given time to catch
 * up, and the checker (checker.ts) compares the clients', the nodes' and the chain's records. Writes the report
 * (index.html, summary.json) and prints a one-screen summary; exit 1 when the checker finds a loss, a duplicate or a
 * disagreement.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, spawnSync } from "bun";
import { createPublicClient, http, type PublicClient } from "viem";
import { exitOnCliErrors, numberOption, parseCliArgs } from "../../lib/cli.ts";
import { jsonRpc } from "../../node/chain/jsonRpc.ts";
import { cannotStartNetnsDevnet } from "../../node/devnet/localDevnet.ts";
import type { FaultKind } from "../../node/faults/faultSpec.ts";
import { rulesOf } from "../../node/protocol/rules.ts";
import { windowOfBlock } from "../../node/protocol/windows.ts";
import { removeNetwork } from "../../node/role/netnsHosts.ts";
import { freePort } from "../../node/util/ports.ts";
import { fundSenders, SenderPool } from "../../scenarios/sim/agents/l1Senders.ts";
import { readLedger, snapshot } from "../../scenarios/sim/report/chainLedger.ts";
import { balanceViews } from "./balances.ts";
import { BidStreams } from "./bidStreams.ts";
import { readChainRecord } from "./chainRecord.ts";
import { check } from "./checker.ts";
import { type AppliedFault, figures, summaryText } from "./figures.ts";
import { renderFaultSoakHtml, reportData } from "./html.ts";
import type { ClientDeposit, NodeBid } from "./records.ts";
import { describeFault, faultSchedule } from "./schedule.ts";

const HELP = `Usage: npm run soak -- --faults [--minutes N] [--seed S] [--streams K] [--bids-per-second R]
                       [--protocol v1.1|v1.2] [--port-base P] [--out DIR] [-- DEVNET FLAGS]

Starts a --network netns devnet (each node a process on a network namespace host of its own; needs root, ip and
nft: scripts/install-netfilter.sh) and sends bids from K independent client streams through its one bidder node
(a netns devnet runs one bidder node), while a seeded random schedule puts faults on every link (the bidder with each
provider, each host on its own, each host with the settlement chain): partitions, loss and bandwidth caps (delay and
jitter too where the kernel has netem), each a few seconds long with healthy gaps between them. L1 blocks come every 2 s, so commitments are
stored, opened and settled throughout. At the end every fault is healed, settlement catches up a few blocks, and a
checker compares what the clients were acknowledged, what the nodes recorded (/sim/v1/bids) and what the settlement
chain's events and balances say: every acknowledged commitment settled, slashed, not opened because another provider
won its block, or lost; none twice in any record; deposits and rewards the same on every side.

  --minutes N            how long the bids and faults run (default 10)
  --seed S               the fault schedule's seed (default: random; printed, so a run can be repeated)
  --streams K            independent client streams of bids (default 3)
  --bids-per-second R    all streams together (default 3)
  --protocol V           passed on to the devnet (v1.1 or v1.2)
  --port-base P          the devnet's ports from P (default: a free port)
  --out DIR              the report's folder (default reports/fault-soak): index.html, summary.json, devnet.log
  -h, --help
  -- DEVNET FLAGS        passed on to the devnet (npm run node -- --help)

Prints a progress line every 10 s (elapsed, bids, commitments, faults active), then the summary: bids sent and
answered, commitments per bid, acknowledged commitments lost, duplicates, disagreements, time to recover after each
heal. Exit 1 when the checker finds a loss, a duplicate or a disagreement (or the devnet fails); 2 on a bad flag.
Ctrl-C stops the load and the devnet, which removes its namespaces, rules and qdiscs (no report then).`;

const ROOT = join(import.meta.dir, "../..");
/** The commit the run's code comes from (read at the start: the checkout may move while it runs). */
const commit = spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
exitOnCliErrors();
const { values: o, positionals: devnetFlags } = parseCliArgs({
  allowPositionals: true,
  options: {
    faults: { type: "boolean" },
    minutes: { type: "string" },
    seed: { type: "string" },
    streams: { type: "string" },
    "bids-per-second": { type: "string" },
    protocol: { type: "string" },
    "port-base": { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (o.help) {
  console.log(HELP);
  process.exit(0);
}
const minutes = numberOption("--minutes", o.minutes, 10, { min: 0.1, fraction: true });
const seed = numberOption("--seed", o.seed, Math.floor(Math.random() * 2 ** 31), { min: 0 });
const streams = numberOption("--streams", o.streams, 3, { min: 1 });
const rate = numberOption("--bids-per-second", o["bids-per-second"], 3, { min: 0.1, fraction: true });
const portBase = numberOption("--port-base", o["port-base"], 0, { min: 1 });
const outDir = o.out ?? join(ROOT, "reports/fault-soak");

const cannot =
  cannotStartNetnsDevnet() ??
  (spawnSync(["nft", "--version"]).exitCode === 0 ? undefined : "needs nft (scripts/install-netfilter.sh)");
if (cannot) {
  console.error(`error: the fault soak needs a --network netns devnet, which this machine cannot start: ${cannot}`);
  process.exit(1);
}

// ------------------------------------------------------------------------------------------------ the devnet
mkdirSync(outDir, { recursive: true });
const logPath = join(outDir, "devnet.log");
rmSync(logPath, { force: true });
const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-fault-soak-"));
const has = (flag: string) => devnetFlags.some((f) => f === flag || f.startsWith(`${flag}=`));
const child = spawn(
  [
    "bun",
    "node/main.ts",
    "--network",
    "netns",
    "--data-dir",
    dataDir,
    "--fresh",
    "--port-base",
    String(portBase || Math.min(await freePort(), 60_000)),
    "--no-autodeposit",
    "--parent-pid",
    String(process.pid),
    // Every block's logs stay on the settlement chain: the checker reads the events of the whole run at the end.
    ...(has("--settlement-keep-blocks") ? [] : ["--settlement-keep-blocks", "0"]),
    ...(has("--bid-timeout") ? [] : ["--bid-timeout", "5000"]),
    ...(o.protocol ? ["--protocol", o.protocol] : []),
    ...devnetFlags,
  ],
  { cwd: ROOT, stdout: Bun.file(logPath), stderr: Bun.file(logPath) },
);
let stopping: Promise<void> | undefined;
const stopDevnet = () =>
  (stopping ??= (async () => {
    const from = Date.now();
    child.kill("SIGINT");
    await Promise.race([child.exited, Bun.sleep(45_000)]);
    if (child.exitCode === null) {
      console.log("fault soak: the devnet did not stop within 45 s of SIGINT; killing it");
      child.kill("SIGKILL");
      await child.exited;
    }
    console.log(
      `fault soak: the devnet stopped in ${((Date.now() - from) / 1000).toFixed(1)} s (exit ${child.exitCode})`,
    );
    // The nodes' own logs stay with the report (the data dir goes).
    for (const node of ["bidder", ...Array.from({ length: 8 }, (_, i) => `provider-${i}`)]) {
      const log = join(dataDir, "nodes", `${node}.log`);
      if (existsSync(log)) copyFileSync(log, join(outDir, `${node}.log`));
    }
    rmSync(dataDir, { recursive: true, force: true });
  })());
/** The devnet's network tag (its data dir notes it): its namespaces are named `mcns-TAG-host`. */
let netnsTag: string | undefined;
/** Namespaces (with their rules and qdiscs) and the bridge's veth end this run's devnet made and did not remove. */
const leftBehind = () =>
  netnsTag === undefined
    ? []
    : [
        ...(spawnSync(["ip", "netns", "list"]).stdout.toString().match(/^\S+/gm) ?? []).filter((n) =>
          n.startsWith(`mcns-${netnsTag}-`),
        ),
        ...(spawnSync(["ip", "link", "show", `mc${netnsTag}ra`]).exitCode === 0 ? [`link mc${netnsTag}ra`] : []),
      ];
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.log("\nfault soak: interrupted; stopping the load and the devnet …");
    void stopDevnet().then(() => {
      const left = leftBehind();
      console.log(
        left.length
          ? `fault soak: the devnet left its network behind: ${left.join(", ")}`
          : "fault soak: stopped; no namespace or link left",
      );
      process.exit(130);
    });
  });
exitOnCliErrors({ cleanup: stopDevnet });

const targetPath = join(dataDir, "target.json");
for (const deadline = Date.now() + 240_000; ; ) {
  if (existsSync(logPath) && readFileSync(logPath, "utf8").includes("devnet is up") && existsSync(targetPath)) break;
  if (child.exitCode !== null || Date.now() > deadline) {
    console.error(`error: the devnet did not come up; see ${logPath}`);
    await stopDevnet();
    process.exit(1);
  }
  await Bun.sleep(300);
}
try {
  netnsTag = readFileSync(join(dataDir, "run/netns-tag"), "utf8").trim();
} catch {
  console.log(
    "fault soak: the devnet's data dir names no network tag (run/netns-tag): namespaces left behind go unchecked",
  );
}
const target = JSON.parse(readFileSync(targetPath, "utf8")) as {
  bidderUrl: string;
  controlUrl: string;
  l1RpcUrl: string;
  l1ChainId: number;
  settlementRpcUrl: string;
  bidderAddress: string;
  providerAddresses: string[];
  contracts: { preconfManager: string; bidderRegistry: string; providerRegistry: string; blockTracker: string };
};
const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const r = await fetch(`${target.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
};
const status = await control<{ protocol: "v1.1" | "v1.2" }>("GET", "/sim/v1/status");
const protocol = status.protocol;
const rules = rulesOf(protocol);
const faultsInfo = await control<{ available: FaultKind[]; hosts: { name: string }[] }>(
  "GET",
  "/sim/v1/network/faults",
);
const hosts = faultsInfo.hosts.map((h) => h.name);
const providerNames = hosts.filter((h) => /^provider-[0-9]+$/.test(h));
const providerAddresses = target.providerAddresses.map((a) => a.toLowerCase());
const bidder = target.bidderAddress.toLowerCase();
const chain = createPublicClient({ transport: http(target.settlementRpcUrl) }) as PublicClient;
const contracts = target.contracts as Parameters<typeof readChainRecord>[1] & { providerRegistry: string };

let l1Head = BigInt(await jsonRpc<string>(target.l1RpcUrl, "eth_blockNumber"));
let headPoller = true;
void (async () => {
  while (headPoller) {
    l1Head = BigInt(await jsonRpc<string>(target.l1RpcUrl, "eth_blockNumber").catch(() => `0x${l1Head.toString(16)}`));
    await Bun.sleep(250);
  }
})();

// The bids' L1 transactions: self-transfers signed by a pool of accounts funded from a dev account, one account per
// bid in turn (SENDERS apart, so two bids of one block never share a nonce); the winner's builder includes them.
const SENDERS = 64;
const senders = new SenderPool(
  createPublicClient({ transport: http(target.l1RpcUrl), cacheTime: 0 }) as PublicClient,
  target.l1ChainId,
  seed,
  0,
  SENDERS,
);
if (await fundSenders(target.l1RpcUrl, target.l1ChainId, [senders])) {
  const funded = l1Head + 2n;
  while (l1Head < funded) await Bun.sleep(250);
}

const before = await snapshot(chain, contracts as never, {
  providers: providerAddresses,
  bidders: [bidder],
  rules,
});

// ------------------------------------------------------------------------------------------------ deposits
const clientDeposits: ClientDeposit[] = [];
async function deposit(place: string, path: string, amount: bigint): Promise<void> {
  const r = await fetch(`${target.bidderUrl}${path}`, { method: "POST" }).catch((e: Error) => e);
  const ok = !(r instanceof Error) && r.ok;
  if (!(r instanceof Error)) await r.text();
  clientDeposits.push({ place, amount: String(amount), ok });
}
const DEPOSIT = 10n ** 19n;
const depositedWindows = new Set<bigint>();
/** Deposits in windows (v1.1): 10 ETH into the windows of the coming blocks, once each. Deposits with providers (v1.2): 100 ETH with each, once. */
async function depositAhead(): Promise<void> {
  if (rules.deposits === "provider") {
    if (clientDeposits.length) return;
    for (const p of providerAddresses)
      await deposit(`provider ${p}`, `/v1/bidder/deposit/${10n * DEPOSIT}?provider=${p}`, 10n * DEPOSIT);
    return;
  }
  for (const w of [windowOfBlock(l1Head + 2n), windowOfBlock(l1Head + 12n)]) {
    if (depositedWindows.has(w)) continue;
    depositedWindows.add(w);
    await deposit(`window ${w}`, `/v1/bidder/deposit/${DEPOSIT}?window_number=${w}`, DEPOSIT);
  }
}
await depositAhead();

// ------------------------------------------------------------------------------------------------ the run
const durationMs = minutes * 60_000;
const schedule = faultSchedule({
  seed,
  durationMs,
  quietMs: Math.min(30_000, durationMs / 5),
  hosts,
  available: faultsInfo.available,
});
console.log(
  `fault soak: protocol ${protocol}, seed ${seed}, ${minutes} min, ${streams} client streams at ${rate} bids/s in all, ` +
    `${schedule.length} faults scheduled on ${new Set(schedule.map((f) => f.spec.hosts.join("/"))).size} links ` +
    `(kinds: ${faultsInfo.available.join(", ")}); devnet log ${logPath}`,
);
const bids = new BidStreams({
  bidderUrl: target.bidderUrl,
  streams,
  rate,
  // Two blocks ahead: a bid for the very next block, sent as that block is built (the head is polled every 250 ms),
  // misses it, and its winner's commitment is slashed for the timing of the client, not for any fault.
  nextBlock: () => l1Head + 2n,
  sign: async (n, block) => (await senders.sign([n % SENDERS], block))[0]!,
  idleTimeoutMs: 45_000,
});
const t0 = Date.now();
const applied: AppliedFault[] = [];
const active = new Map<string, AppliedFault>();

async function runSchedule(): Promise<void> {
  const actions = schedule
    .flatMap((f) => [
      { t: f.at, f, set: true },
      { t: f.until, f, set: false },
    ])
    .sort((a, b) => a.t - b.t);
  for (const a of actions) {
    await Bun.sleep(Math.max(0, t0 + a.t - Date.now()));
    if (interrupted) return;
    const place = a.f.spec.hosts.join("/");
    if (a.set) {
      const record: AppliedFault = { spec: a.f.spec, at: Date.now() - t0, until: a.f.until };
      await control("POST", "/sim/v1/network/faults", a.f.spec).catch((e: Error) => (record.error = e.message));
      applied.push(record);
      if (!record.error) active.set(place, record);
    } else {
      const record = active.get(place);
      if (!record) continue;
      await control("DELETE", `/sim/v1/network/faults?hosts=${a.f.spec.hosts.join(",")}`).catch(
        (e: Error) => (record.error = `heal failed: ${e.message}`),
      );
      record.until = Date.now() - t0;
      active.delete(place);
    }
  }
}

bids.start();
const scheduleDone = runSchedule();
const depositLoop = (async () => {
  while (!interrupted && Date.now() - t0 < durationMs) {
    await depositAhead().catch(() => undefined);
    await Bun.sleep(1_000);
  }
})();
const progress = setInterval(() => {
  const acked = bids.bids.reduce((s, b) => s + b.commitments.length, 0);
  console.log(
    `  ${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s  bids ${bids.bids.length} (in flight ${bids.inFlight}), ` +
      `commitments ${acked}, L1 ${l1Head}; faults active: ${
        [...active.values()].map((f) => describeFault(f.spec)).join("; ") || "none"
      }`,
  );
}, 10_000);
await Bun.sleep(durationMs);
clearInterval(progress);
await bids.stop();
await Promise.all([scheduleDone, depositLoop]);
if (interrupted) await new Promise(() => undefined); // the signal handler stops the devnet and exits

// ------------------------------------------------------------------------------------------------ the check
await control("DELETE", "/sim/v1/network/faults");
const lastBlock = bids.bids.reduce((m, b) => (BigInt(b.blockNumber) > m ? BigInt(b.blockNumber) : m), 0n);
console.log(
  `fault soak: load stopped at ${((Date.now() - t0) / 1000).toFixed(0)} s; every fault healed; ` +
    `waiting for L1 block ${lastBlock + 6n} and settlement to catch up …`,
);
for (const deadline = Date.now() + 180_000; l1Head < lastBlock + 6n && Date.now() < deadline; ) await Bun.sleep(500);
await Bun.sleep(10_000);
headPoller = false;

const nodeBids = (await control<{ bids: NodeBid[] }>("GET", `/sim/v1/bids?limit=10000&bidder=${target.bidderAddress}`))
  .bids;
const chainRecord = await readChainRecord(chain, contracts as never, rules);
const ledger = await readLedger(chain, contracts as never, before, providerAddresses, [bidder], rules);
const nodeDeposits: Record<string, string> = {};
for (const place of new Set(clientDeposits.map((d) => d.place))) {
  const [kind, key] = place.split(" ");
  const q = kind === "window" ? `window_number=${key}` : `provider=${key}`;
  const r = await fetch(`${target.bidderUrl}/v1/bidder/get_deposit?${q}`);
  nodeDeposits[place] = String(((await r.json()) as { amount?: string }).amount ?? "0");
}
const recorded = Object.keys(chainRecord.winners).map(BigInt);
const horizon = (recorded.length ? recorded.reduce((m, b) => (b > m ? b : m)) : 0n) - 3n;
const result = check({
  clientBids: bids.bids,
  nodeBids,
  chain: chainRecord,
  balances: balanceViews({
    ledger,
    providers: providerNames.map((name, i) => ({ name, address: providerAddresses[i]! })),
    bidder,
    nodeBids,
    clientDeposits,
    nodeDeposits,
  }),
  horizon,
});
await stopDevnet();
const left = leftBehind();

const fig = figures({
  nodeBids,
  protocol,
  seed,
  minutes,
  streams,
  providerNames,
  providerAddresses,
  bids: bids.bids,
  faults: applied,
  result,
  t0,
});
writeFileSync(
  join(outDir, "summary.json"),
  `${JSON.stringify(
    {
      figures: fig,
      findings: result.findings,
      accounted: result.accounted,
      // Bids short of a commitment from every provider, and what their streams said instead.
      shortBids: bids.bids
        .filter((b) => b.commitments.length < providerAddresses.length)
        .map((b) => ({
          stream: b.stream,
          seq: b.seq,
          blockNumber: b.blockNumber,
          sentAt: (b.sentAt - t0) / 1000,
          commitments: b.commitments.map((c) => c.provider),
          errors: b.errors,
        })),
      horizon: String(horizon),
      commit,
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(outDir, "index.html"),
  renderFaultSoakHtml(
    reportData({
      figures: fig,
      findings: result.findings,
      faults: applied,
      providerNames,
      startedAt: new Date(t0).toISOString(),
      commit,
      clientBids: bids.bids,
      providerAddresses,
      t0,
    }),
  ),
);
console.log(summaryText(fig, result.findings));
console.log(`  report        ${join(outDir, "index.html")}, ${join(outDir, "summary.json")}`);
if (left.length) {
  removeNetwork(netnsTag!);
  console.log(`fault soak: FAILED: the devnet left its network behind (removed now): ${left.join(", ")}`);
}
const failed =
  result.findings.length > 0 ||
  left.length > 0 ||
  fig.commitments.acknowledged === 0 ||
  fig.silentAfterLastHeal.length > 0;
console.log(
  failed
    ? `fault soak: FAILED${fig.commitments.acknowledged === 0 ? " (no commitment at all)" : fig.silentAfterLastHeal.length ? ` (${fig.silentAfterLastHeal.join(", ")} never came back)` : ""}`
    : "fault soak: passed (every acknowledged commitment accounted for, none twice, every side agrees)",
);
process.exit(failed ? 1 : 0);
