#!/usr/bin/env bun
/**
 * `npm run load [-- --profile NAME …]`: one command for a load run where k6 is the whole market. Installs k6 if
 * needed (install-k6.sh), starts a reference devnet without provider applications (`--no-auto-accept`: k6's
 * provider VUs answer the bids) unless TARGET=file names another implementation, runs the profile
 * (loadtest/market.js), prints the figures and writes the JSON summary under reports/. Exits non-zero when a check
 * failed (correctness only: nothing fails on speed).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawn, spawnSync } from "bun";
import { loadTargetFile, namedTargetFile, TargetFileError } from "../features/support/target.ts";
import {
  CliFailure,
  CliUsageError,
  exitOnCliErrors,
  numberOption,
  parseCliArgs,
  requireReachable,
} from "../lib/cli.ts";
import { stopAllAnvils } from "../node/chain/anvil.ts";
import { type LocalDevnet, startLocalDevnet } from "../node/devnet/localDevnet.ts";
import { chooseProtocol } from "../scenarios/util/protocolChoice.ts";
import { bundleSigner } from "./gate/bundle.ts";
import { checkGateResult, type GateSummary, gateResult } from "./gate/result.ts";
import { profileHeader } from "./profileHeader.ts";

exitOnCliErrors({
  unreachable: "is the target running? (without TARGET the run starts its own devnet)",
  cleanup: stopAllAnvils,
});

const PROFILES = ["smoke", "steady", "ramp", "slot-burst", "soak", "fan-out", "gate"] as const;
const DEFAULT_DURATION: Record<(typeof PROFILES)[number], string> = {
  gate: "0s",
  smoke: "5s",
  steady: "20s",
  ramp: "30s",
  "slot-burst": "20s",
  soak: "60s",
  "fan-out": "20s",
};

const HELP = `Usage: npm run load -- [options]

k6 plays both sides of the market: provider VUs hold ReceiveBids on every provider node over gRPC and answer each
bid on a SendProcessedBids stream; bidder VUs send bids over gRPC (or HTTP). Without TARGET a reference devnet is
started with no provider applications of its own (--no-auto-accept), L1 blocks every 2 s and 1000 ETH deposited
(v1.1: per window; v1.2: with each provider, by the devnet before its nodes start); TARGET=target.json runs against
another implementation (its providerRpcUrls and bidderRpcUrl); --target FILE says the same.

Options:
  --profile NAME            ${PROFILES.join(" | ")} (default steady)
                              smoke       20 bids from 2 VUs; every check must hold (CI runs it)
                              steady      --rate bids/s for --duration
                              ramp        from rate/5 up to rate, to 2 × rate, back to 0
                              slot-burst  --burst bids at once right after each new L1 block
                              soak        steady for longer (default 60 s); prints whether the node's memory stays flat
                              fan-out     steady bids with --subscribers Subscribe streams held open
                              gate        --bids bids at each of --levels bids in flight; fails when a bid gets
                                          fewer commitments than accepting providers or a commitment does not
                                          verify; prints the level reached and writes a result (--json)
  --target FILE             the target file of the implementation to load (as TARGET=FILE)
  --levels L                gate: the numbers of bids in flight, ascending (default 1,8,32)
  --bids N                  gate: bids per level, at least the highest level (default 128)
  --json PATH               gate: its result, in the conformance result's shape (default
                            reports/load-gate-result.json; schema docs/load-gate-result.schema.json)
  --rate N                  bids per second (default 30)
  --duration D              e.g. 20s, 2m (default per profile: smoke 5s, steady 20s, ramp 30s, slot-burst 20s,
                            soak 60s, fan-out 20s)
  --bidders grpc|http       the bidder VUs' transport (default grpc; only gRPC measures the first commitment)
  --policy P                provider VUs: accept | reject:N (N % rejected) | delay:MS (default accept)
  --streams-per-provider N  ReceiveBids streams per provider node (default 1)
  --subscribers N           fan-out: Subscribe streams (default 100)
  --burst N                 slot-burst: bids per block (default 20)
  --block-time S            the devnet's L1 block time in seconds (default 2)
  --network N               how the devnet's nodes meet: libp2p (default) or in-process
  --protocol V              v1.1 (default) or v1.2: the devnet's protocol; with TARGET the file's "protocol"
                            decides and a --protocol that disagrees is an error
  --no-provider-vus         no k6 providers: the target's own provider applications answer
  -h, --help                this text

The JSON summary goes to reports/load-<profile>.json; the devnet's log to reports/load-devnet.log.
Exit status: 0 when every check held, 99 when one failed (k6's thresholds), 2 for a bad flag, 1 otherwise.
`;

const values = parseCliArgs({
  options: {
    profile: { type: "string", default: "steady" },
    rate: { type: "string", default: "30" },
    duration: { type: "string" },
    bidders: { type: "string", default: "grpc" },
    policy: { type: "string", default: "accept" },
    "streams-per-provider": { type: "string", default: "1" },
    subscribers: { type: "string", default: "100" },
    burst: { type: "string", default: "20" },
    "block-time": { type: "string", default: "2" },
    network: { type: "string", default: "libp2p" },
    protocol: { type: "string" },
    "no-provider-vus": { type: "boolean" },
    target: { type: "string" },
    levels: { type: "string", default: "1,8,32" },
    bids: { type: "string", default: "128" },
    json: { type: "string", default: "reports/load-gate-result.json" },
    help: { type: "boolean", short: "h" },
  },
}).values;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const profile = values.profile as (typeof PROFILES)[number];
if (!PROFILES.includes(profile))
  throw new CliUsageError(`--profile must be one of ${PROFILES.join(", ")}, got "${values.profile}"`);
if (values.bidders !== "grpc" && values.bidders !== "http")
  throw new CliUsageError(`--bidders must be grpc or http, got "${values.bidders}"`);
if (values.network !== "libp2p" && values.network !== "in-process")
  throw new CliUsageError(`--network must be libp2p or in-process, got "${values.network}"`);
numberOption("--rate", values.rate, 30, { min: 1 });
for (const flag of ["streams-per-provider", "subscribers", "burst"] as const)
  numberOption(`--${flag}`, values[flag], 1, { min: 1 });
if (values.duration !== undefined && !/^\d+(ms|s|m|h)$/.test(values.duration))
  throw new CliUsageError(`--duration must be like 20s or 2m, got "${values.duration}"`);
const gate = profile === "gate" ? gateLevels(values.levels!, values.bids!) : undefined;
let namedTarget: string | undefined;
try {
  namedTarget = namedTargetFile(values.target ?? process.env.TARGET);
} catch (e) {
  if (e instanceof TargetFileError) throw new CliUsageError(e.message);
  throw e;
}
const duration = values.duration ?? DEFAULT_DURATION[profile];
const blockTime = numberOption("--block-time", values["block-time"], 2, { min: 1 });

let protocol = chooseProtocol(values.protocol);
if (namedTarget) {
  let t: { bidderUrl: string; providerUrls: string[]; protocol?: string };
  try {
    t = JSON.parse(readFileSync(namedTarget, "utf8"));
  } catch (e) {
    throw new CliFailure(
      `cannot read the target file ${namedTarget} (${(e as Error).message.split("\n")[0]}); name none (--target, TARGET) to start a devnet for the run`,
      2,
    );
  }
  protocol = chooseProtocol(values.protocol, t, namedTarget);
  for (const url of [t.bidderUrl, ...t.providerUrls])
    await requireReachable(
      `${url}/health`,
      `is the target ${namedTarget} running? (without --target or TARGET the run starts its own devnet)`,
    );
}
const here = resolve(import.meta.dir);
const root = resolve(here, "..");
const k6 = spawnSync(["bash", join(here, "install-k6.sh")], { stderr: "inherit" });
if (k6.exitCode !== 0) process.exit(1);
const k6Path = k6.stdout.toString().trim();

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const report = join(root, "reports", `load-${profile}.json`);
const startedAt = new Date();
let local: LocalDevnet | undefined;
let targetFile = namedTarget;
const samples: { s: number; rssMiB: number }[] = [];
let sampler: ReturnType<typeof setInterval> | undefined;
try {
  if (!targetFile) {
    console.log("starting a reference devnet without provider applications (log: reports/load-devnet.log) …");
    local = await startLocalDevnet(
      {
        protocol,
        autoAccept: false,
        autodepositAmount: 1000n * 10n ** 18n,
        logLevel: "warn",
        l1BlockTime: blockTime,
        network: values.network as "libp2p" | "in-process",
      },
      join(root, "reports", "load-devnet.log"),
    );
    targetFile = local.devnet.dir.targetFile;
    // The devnet runs in this process: its memory over the run (the Anvil chains are separate processes).
    const t0 = performance.now();
    sampler = setInterval(
      () => samples.push({ s: (performance.now() - t0) / 1000, rssMiB: process.memoryUsage().rss / 2 ** 20 }),
      1000,
    );
  }
  const header = profileHeader(profile, {
    rate: values.rate!,
    duration,
    burst: values.burst!,
    subscribers: values.subscribers!,
    levels: gate?.levels.join(", ") ?? "",
    bids: values.bids!,
  });
  console.log(
    `k6 ${profile} (protocol ${protocol}): ${header}, bidders over ${values.bidders}, ${gate ? (values["no-provider-vus"] ? "the target's own provider applications answer" : "k6's provider applications accept every bid") : `policy ${values.policy}`}${local ? `, nodes over ${values.network}` : ""}; load average ${load()}`,
  );
  const env = {
    TARGET: targetFile,
    PROFILE: profile,
    RATE: values.rate,
    DURATION: duration,
    BIDDER_TRANSPORT: values.bidders,
    POLICY: values.policy,
    STREAMS_PER_PROVIDER: values["streams-per-provider"],
    SUBSCRIBERS: values.subscribers,
    BURST: values.burst,
    PROVIDER_VUS: values["no-provider-vus"] ? "off" : "on",
    REPORT: report,
    ...(gate ? { LEVELS: gate.levels.join(","), BIDS: String(gate.bids) } : {}),
  };
  if (gate) await bundleSigner();
  const args = [
    k6Path,
    "run",
    "--quiet",
    ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    join(here, gate ? "gate.js" : "market.js"),
  ];
  const run = spawn(args, { cwd: here, stdout: "inherit", stderr: "inherit" });
  const code = await run.exited;
  clearInterval(sampler);
  if (samples.length > 0 && existsSync(report)) {
    const memory = memoryCheck(samples);
    console.log(`  devnet memory        ${memory.text}`);
    const summary = JSON.parse(readFileSync(report, "utf8"));
    writeFileSync(
      report,
      `${JSON.stringify({ ...summary, devnetMemory: memory.figures, loadAverage: load() }, null, 2)}\n`,
    );
  }
  console.log(`  load average         ${load()} (k6 and the devnet share the machine's cores)`);
  if (gate) finishGate(code ?? 1);
  if (code !== 0)
    console.log(code === 99 ? "load run FAILED: a check did not hold (see above)" : `k6 exited with ${code}`);
  process.exitCode = code ?? 1;
} finally {
  clearInterval(sampler);
  await local?.stop();
}

/** --levels and --bids of the gate: ascending whole numbers ≥ 1, none above the bids per level. */
function gateLevels(levels: string, bids: string): { levels: number[]; bids: number } {
  const n = numberOption("--bids", bids, 128, { min: 1 });
  const ks = levels.split(",").map((k) => numberOption("--levels", k.trim(), 1, { min: 1 }));
  if (ks.some((k, i) => i > 0 && k <= ks[i - 1]!))
    throw new CliUsageError(`--levels must be ascending, got "${levels}"`);
  if (ks.at(-1)! > n)
    throw new CliUsageError(`--bids (${n}) must be at least the highest level of --levels (${ks.at(-1)})`);
  return { levels: ks, bids: n };
}

/** The gate's result (--json) from gate.js's summary, checked against its schema; prints the level reached. */
function finishGate(code: number) {
  const summary: GateSummary | undefined = existsSync(report) ? JSON.parse(readFileSync(report, "utf8")) : undefined;
  const t = loadTargetFile(targetFile!);
  const result = gateResult(
    {
      target: {
        name: t.name,
        version: t.version ?? null,
        protocol: t.protocol,
        capabilities: t.capabilities,
        bidTimeoutMs: t.bidTimeoutMs,
        decisionTimeoutMs: t.decisionTimeoutMs,
      },
      transport: values.bidders!,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
      levels: gate!.levels,
      bidsPerLevel: gate!.bids,
      noSummary: `k6 exited with ${code} before writing its summary`,
    },
    summary,
  );
  checkGateResult(result);
  const json = resolve(values.json!);
  mkdirSync(dirname(json), { recursive: true });
  writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  const r = result.gate.levelReached;
  const failed = result.scenarios.filter((s) => s.outcome !== "passed");
  console.log(`  result               ${values.json}`);
  for (const s of failed) console.log(`  ${s.outcome === "failed" ? "✗" : "-"} ${s.failure ?? s.reason}`);
  console.log(
    `load gate: level reached ${r === null ? "none" : `${r} in flight`} of ${gate!.levels.join(", ")}; ${result.totals.passed} passed, ${result.totals.failed + result.totals.notRun} failed`,
  );
}

/**
 * Flat memory: the devnet process's RSS over the second half of the run against the first half's peak (the first
 * half warms up caches, JIT and SQLite pages). Printed, never failed on.
 */
function memoryCheck(s: { s: number; rssMiB: number }[]) {
  const half = s[s.length - 1]!.s / 2;
  const first = s.filter((x) => x.s <= half);
  const second = s.filter((x) => x.s > half);
  const peak1 = Math.max(...first.map((x) => x.rssMiB));
  const peak2 = Math.max(...(second.length ? second : first).map((x) => x.rssMiB));
  const last = s[s.length - 1]!.rssMiB;
  const growth = peak2 - peak1;
  const flat = growth <= Math.max(16, peak1 * 0.05);
  return {
    figures: {
      firstHalfPeakMiB: +peak1.toFixed(1),
      secondHalfPeakMiB: +peak2.toFixed(1),
      lastMiB: +last.toFixed(1),
      samples: s.length,
      flat,
    },
    text: `rss peak ${peak1.toFixed(0)} MiB (first half) → ${peak2.toFixed(0)} MiB (second half), last ${last.toFixed(0)} MiB: ${flat ? "flat" : `GROWING by ${growth.toFixed(0)} MiB`}`,
  };
}
