#!/usr/bin/env bun
/**
 * `npm run load [-- --profile smoke|steady|ramp --rate N --duration 20s]`: one command for a load run. Installs
 * k6 if needed (install-k6.sh), starts a reference devnet (auto-accept, deposits for the bid block) unless
 * TARGET=file names another implementation, runs the k6 profile against it and prints k6's summary.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync, spawn } from "bun";
import { DEFAULTS } from "../node/devnet/config.ts";
import { startDevnet, type Devnet } from "../node/devnet/startDevnet.ts";
import { freePort } from "../node/util/ports.ts";
import { setLogSink } from "../node/util/log.ts";
import { appendFileSync, mkdirSync } from "node:fs";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    profile: { type: "string", default: "steady" },
    rate: { type: "string", default: "50" },
    duration: { type: "string", default: "20s" },
    block: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(`Usage: npm run load -- [--profile smoke|steady|ramp] [--rate bids/s] [--duration 20s] [--block N]
Without TARGET a reference devnet is started (auto-accept on, 1000 ETH per window deposited); TARGET=target.json
runs against another implementation (then --block names the L1 block to bid for; the bidder needs a deposit).`);
  process.exit(0);
}

const here = resolve(import.meta.dir);
const k6 = spawnSync(["bash", join(here, "install-k6.sh")], { stderr: "inherit" });
if (k6.exitCode !== 0) process.exit(1);
const k6Path = k6.stdout.toString().trim();

let devnet: Devnet | undefined;
let dataDir: string | undefined;
let targetFile = process.env.TARGET ? resolve(process.env.TARGET) : undefined;
let block = values.block;
try {
  if (!targetFile) {
    mkdirSync("reports", { recursive: true });
    setLogSink((l) => appendFileSync("reports/load-devnet.log", l + "\n"));
    dataDir = mkdtempSync(join(tmpdir(), "mev-commit-load-"));
    console.log("starting a reference devnet (log: reports/load-devnet.log) …");
    devnet = await startDevnet({
      ...DEFAULTS,
      dataDir,
      fresh: true,
      bidderPort: 0,
      providerPorts: [0, 0],
      controlPort: 0,
      l1Port: await freePort(),
      settlementPort: await freePort(),
      l1BlockTime: 0,
      autoAccept: true,
      autodepositAmount: 1000n * 10n ** 18n,
      logLevel: "warn",
    });
    targetFile = join(dataDir, "target.json");
    writeFileSync(targetFile, JSON.stringify(devnet.target()));
    block ??= String((await devnet.driver.blockNumber()) + 1n);
  }
  if (!block) throw new Error("--block is required with TARGET (the L1 block to bid for)");
  console.log(`k6 ${values.profile} profile, rate ${values.rate}/s, duration ${values.duration}, block ${block}`);
  const run = spawn([k6Path, "run", "-e", `TARGET=${targetFile}`, "-e", `BLOCK=${block}`, "-e", `PROFILE=${values.profile}`, "-e", `RATE=${values.rate}`, "-e", `DURATION=${values.duration}`, join(here, "bids.js")], {
    stdout: "inherit",
    stderr: "inherit",
  });
  process.exitCode = await run.exited;
} finally {
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
