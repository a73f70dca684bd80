/**
 * Our devnet against upstream's node, the same bids through each, in alternated rounds, with a table of medians:
 * `npm run bench:side-by-side`. Each round runs every side once, one side at a time: upstream's nodes afresh for each
 * level (scenarios/bench/upstreamNodes.sh; a running upstream node set loses more and more commitments, so a fresh
 * start is its best case), then each of our devnets afresh for all levels. Every run is `bench:bids --target`'s
 * (targetBench.ts) with the side's processes for the CPU per bid. docs/performance.md "Side by side" quotes it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import { CliFailure, CliUsageError, exitOnCliErrors, integerFlag, parseCliArgs } from "../../lib/cli.ts";
import { processTree } from "./health.ts";
import { type SideRuns, sideBySideLines } from "./sideBySideTable.ts";
import { type TargetLevelResult, targetBench } from "./targetBench.ts";

const USAGE = `Usage: npm run bench:side-by-side -- [options]
  --sides LIST       which sides, in this order each round (default upstream,ours,ours-like-for-like):
                       upstream            upstream's pinned node (protocol v1.1: MEV_COMMIT and PROVIDER_EMULATOR,
                                           its binaries, built as docs/conformance.md §8 says) on a --no-nodes devnet
                                           without L1 blocks
                       upstream-v1.2.5     upstream's v1.2.5 node the same way (protocol v1.2: MEV_COMMIT_V1_2_5 and
                                           PROVIDER_EMULATOR_V1_2_5, docs/conformance.md §10)
                       ours                our devnet with --network libp2p (one event loop, 2 s L1 blocks)
                       ours-auto           our devnet as \`npm run node\` starts it (--network auto: by the cores)
                       ours-v1.2           ours with --network libp2p --protocol v1.2
                       ours-like-for-like  ours with --l1-block-time 0, as upstream's side runs (nothing opened or
                                           settled during the runs)
                       ours-processes      ours with --network processes (a process per node)
  --rounds R         rounds (default 3)
  --in-flight LIST   bids in flight at each level (default 1,8,32)
  --bids N           timed bids per level (default 500)
  --warmup W         untimed bids before the first level of each run (default 100)
  --settle S         seconds each side idles once started, before the warm-up (default 5)
  --port-base P      upstream's side at P.. (its devnet and nodes), ours at P+600.. (default 26000: below the
                     ephemeral port range, where the machine's own outgoing connections could hold a port)
  --dir DIR          data dirs and logs (default .side-by-side)
Prints each run's row as it goes, then each figure's median over the rounds (the range in brackets) per side.`;

/** Upstream's node of one version: the environment variables that name its binaries. */
interface UpstreamSide {
  version: "pinned" | "v1.2.5";
  bin: string;
  emulator: string;
}

const SIDES: Record<string, string[] | UpstreamSide> = {
  upstream: { version: "pinned", bin: "MEV_COMMIT", emulator: "PROVIDER_EMULATOR" },
  "upstream-v1.2.5": { version: "v1.2.5", bin: "MEV_COMMIT_V1_2_5", emulator: "PROVIDER_EMULATOR_V1_2_5" },
  // Named: `npm run node` alone is --network auto, which picks by the machine's cores.
  ours: ["--network", "libp2p"],
  "ours-auto": [],
  "ours-v1.2": ["--network", "libp2p", "--protocol", "v1.2"],
  "ours-like-for-like": ["--network", "libp2p", "--l1-block-time", "0"],
  "ours-processes": ["--network", "processes"],
};

const ROOT = resolve(import.meta.dir, "../..");

exitOnCliErrors({});
const { values: args } = parseCliArgs({
  options: {
    sides: { type: "string", default: "upstream,ours,ours-like-for-like" },
    rounds: { type: "string", default: "3" },
    "in-flight": { type: "string", default: "1,8,32" },
    bids: { type: "string", default: "500" },
    warmup: { type: "string", default: "100" },
    settle: { type: "string", default: "5" },
    "port-base": { type: "string", default: "26000" },
    dir: { type: "string", default: ".side-by-side" },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const sides = args.sides!.split(",").map((s) => s.trim());
for (const s of sides)
  if (!(s in SIDES)) throw new CliUsageError(`--sides: unknown side "${s}" (${Object.keys(SIDES).join(", ")})`);
for (const s of sides) {
  const side = SIDES[s]!;
  if (!Array.isArray(side) && (!process.env[side.bin] || !process.env[side.emulator]))
    throw new CliFailure(
      `the ${s} side needs ${side.bin} and ${side.emulator} (upstream's binaries, docs/conformance.md §8 and §10), or leave it out: --sides ours,ours-like-for-like`,
      2,
    );
}
const rounds = integerFlag("rounds", args.rounds!);
const levels = args["in-flight"]!.split(",").map((v) => integerFlag("in-flight", v.trim()));
const bids = integerFlag("bids", args.bids!);
const warmup = integerFlag("warmup", args.warmup!, 0);
const settleMs = integerFlag("settle", args.settle!, 0) * 1000;
const portBase = integerFlag("port-base", args["port-base"]!, 1024);
const dir = resolve(args.dir!);
mkdirSync(dir, { recursive: true });

const runs = new Map<number, SideRuns>(levels.map((l) => [l, new Map()]));
const keep = (side: string, rows: TargetLevelResult[]) => {
  for (const r of rows) {
    const bySide = runs.get(r.inFlight)!;
    bySide.set(side, [...(bySide.get(side) ?? []), r]);
  }
};
const print = (line: string) => console.log(`  ${line}`);

for (let round = 1; round <= rounds; round++)
  for (const side of sides) {
    const flags = SIDES[side]!;
    if (!Array.isArray(flags))
      for (const level of levels) {
        console.log(`round ${round}/${rounds}: ${side}, ${level} in flight`);
        keep(side, await upstreamRun(flags, level));
      }
    else {
      console.log(`round ${round}/${rounds}: ${side}, ${levels.join(", ")} in flight`);
      keep(side, await oursRun(side, flags));
    }
  }

console.log(
  `\n=== medians over ${rounds} round(s), the range in brackets (${bids} bids per level after ${warmup} untimed)`,
);
for (const line of sideBySideLines(levels, sides, runs)) console.log(line);

/** Upstream's nodes started afresh for one level; no rows when they do not start (the script's log says why). */
async function upstreamRun(side: UpstreamSide, level: number): Promise<TargetLevelResult[]> {
  const upDir = join(dir, `upstream-${side.version}`);
  const env = {
    ...process.env,
    DIR: upDir,
    PORT_BASE: String(portBase),
    VERSION: side.version,
    MEV_COMMIT: process.env[side.bin],
    PROVIDER_EMULATOR: process.env[side.emulator],
  };
  const log = join(dir, `upstream-${side.version}-start.log`);
  const start = spawn(["bash", "scenarios/bench/upstreamNodes.sh", "start"], {
    cwd: ROOT,
    env,
    stdout: Bun.file(log),
    stderr: Bun.file(log),
  });
  try {
    if ((await start.exited) !== 0) {
      print(`upstream's nodes did not start; this run is left out (${log})`);
      return [];
    }
    const pids = readFileSync(join(upDir, "pids"), "utf8").trim().split(",").map(Number);
    await Bun.sleep(settleMs);
    return await targetBench({ targetFile: join(upDir, "target.json"), levels: [level], bids, warmup, pids, print });
  } finally {
    await spawn(["bash", "scenarios/bench/upstreamNodes.sh", "stop"], { cwd: ROOT, env }).exited;
  }
}

/** One of our devnets started afresh, every level through it; no rows when it does not start. */
async function oursRun(side: string, flags: string[]): Promise<TargetLevelResult[]> {
  const dataDir = join(dir, side);
  rmSync(dataDir, { recursive: true, force: true });
  const log = join(dir, `${side}.log`);
  const devnet = spawn(
    [
      process.execPath,
      "node/main.ts",
      "--fresh",
      "--port-base",
      String(portBase + 600),
      "--data-dir",
      dataDir,
      ...flags,
    ],
    { cwd: ROOT, stdout: Bun.file(log), stderr: Bun.file(log) },
  );
  try {
    const targetFile = join(dataDir, "target.json");
    for (let waited = 0; !existsSync(targetFile); waited += 250) {
      if (devnet.exitCode !== null || waited > 180_000) {
        print(`the devnet did not start; this run is left out (${log})`);
        return [];
      }
      await Bun.sleep(250);
    }
    await Bun.sleep(settleMs);
    // The devnet's process and its node processes; the chains are not the node's CPU.
    const pids = processTree(devnet.pid, ["anvil"]);
    return await targetBench({ targetFile, levels, bids, warmup, pids, print });
  } finally {
    await stop(devnet);
  }
}

async function stop(p: Subprocess): Promise<void> {
  if (p.exitCode !== null) return;
  p.kill("SIGINT");
  const killer = setTimeout(() => p.kill("SIGKILL"), 30_000);
  await p.exited;
  clearTimeout(killer);
}
