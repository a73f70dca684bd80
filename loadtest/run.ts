#!/usr/bin/env bun
/**
 * `npm run load [-- --profile smoke|steady|ramp --rate N --duration 20s]`: one command for a load run. Installs
 * k6 if needed (install-k6.sh), starts a reference devnet (auto-accept, deposits for the bid block) unless
 * TARGET=file names another implementation, runs the k6 profile against it and prints k6's summary.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { spawnSync, spawn } from "bun";
import type { Devnet } from "../node/devnet/startDevnet.ts";
import { startLocalDevnet, type LocalDevnet } from "../node/devnet/localDevnet.ts";

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
let local: LocalDevnet | undefined;
let targetFile = process.env.TARGET ? resolve(process.env.TARGET) : undefined;
let block = values.block;
try {
  if (!targetFile) {
    console.log("starting a reference devnet (log: reports/load-devnet.log) …");
    local = await startLocalDevnet({ autoAccept: true, autodepositAmount: 1000n * 10n ** 18n, logLevel: "warn" }, "reports/load-devnet.log");
    devnet = local.devnet;
    targetFile = devnet.dir.targetFile;
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
  await local?.stop();
}
