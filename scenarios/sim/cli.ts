#!/usr/bin/env bun
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { namedTargetFile, TargetFileError } from "../../features/support/target.ts";
/** `npm run simulate -- scenarios/<file>.yaml`: runs a market scenario and writes its report. */
import { CliUsageError, exitOnCliErrors, parseCliArgs } from "../../lib/cli.ts";
import { stopAllAnvils } from "../../node/chain/anvil.ts";
import { rulesOf } from "../../node/protocol/rules.ts";
import { chooseProtocol } from "../util/protocolChoice.ts";
import { SenderFundingError } from "./agents/l1Senders.ts";
import { ValidatorWatchError } from "./agents/validatorWatch.ts";
import { oneScreen } from "./report/oneScreen.ts";
import { SimEnvironmentError } from "./run/environment.ts";
import { Progress } from "./run/progress.ts";
import { SimulationError, type StopSignal } from "./run/simulation.ts";
import { runScenario } from "./runScenario.ts";
import { ScenarioError } from "./scenario/fields.ts";
import { loadScenario } from "./scenario/load.ts";

const HELP = `Usage: npm run simulate -- <scenario.yaml|json> [options]

Runs a seeded market scenario of simulated bidders and providers, every one a client of the nodes' public API,
and writes a report: reports/simulation/<name>-<time>/index.html (plots), summary.json (every figure, checked
against the settlement chain) and events.csv (raw events).

Without TARGET it starts a reference devnet of its own (manual L1 mining driven by the run, one bidder node per
simulated bidder, the devnet's log in the report folder). The same seed gives the same bids, decisions, winners
and settlement amounts (summary.json, timestamps aside).

Options:
  --target FILE      run against an existing implementation (also TARGET=FILE); scenario parts that need the
                     control API (manual mining, winners, faults, builder behaviours) are refused on a target
                     without it
  --protocol V       v1.1 (default) or v1.2: the protocol of the reference devnet; with --target the target
                     file's "protocol" decides and a --protocol that disagrees is an error
  --out DIR          report folder (default reports/simulation/<name>-<time>)
  --seed N           override the scenario's seed
  --blocks N         override l1.blocks
  --check            only check the scenario file and print what it contains
  --quiet            no progress bar
  -h, --help         this text

Ctrl-C stops after the current block, settles what ran and still writes the report; a second Ctrl-C skips the
settling; a third exits at once.

Shipped scenarios: ls scenarios/*.yaml (the README says what each one shows).`;

async function main(): Promise<number> {
  exitOnCliErrors({
    unreachable: "is the target running? (without --target the simulation starts its own devnet)",
    cleanup: stopAllAnvils,
  });
  const parsed = parseCliArgs({
    allowPositionals: true,
    options: {
      target: { type: "string" },
      protocol: { type: "string" },
      out: { type: "string" },
      seed: { type: "string" },
      blocks: { type: "string" },
      check: { type: "boolean" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const o = parsed.values;
  if (o.help) {
    console.log(HELP);
    return 0;
  }
  if (parsed.positionals.length !== 1)
    throw new CliUsageError(
      "name one scenario file, e.g. npm run simulate -- scenarios/honest-market.yaml (--help for more)",
    );
  const file = parsed.positionals[0]!;
  let scenario;
  try {
    scenario = loadScenario(file);
    if (o.seed !== undefined) scenario = { ...scenario, seed: intArg("--seed", o.seed) };
    if (o.blocks !== undefined)
      scenario = { ...scenario, l1: { ...scenario.l1, blocks: intArg("--blocks", o.blocks) } };
  } catch (e) {
    if (e instanceof ScenarioError) {
      console.error(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (o.check) {
    console.log(
      `${file}: ok — ${scenario.name}, seed ${scenario.seed}, ${scenario.l1.blocks} blocks, ${scenario.bidders.length} bidder(s), ${scenario.providers.length} provider(s), ${scenario.faults.length} fault(s), protocols ${scenario.protocols.join(", ")}`,
    );
    return 0;
  }

  let targetFile: string | undefined;
  try {
    targetFile = namedTargetFile(o.target ?? process.env.TARGET);
  } catch (e) {
    if (!(e instanceof TargetFileError)) throw e;
    console.error(`error: ${e.message}`);
    return 2;
  }
  const protocol = chooseProtocol(o.protocol, targetFile ? readTarget(targetFile) : undefined, targetFile);
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const outDir = resolve(o.out ?? join("reports", "simulation", `${scenario.name}-${stamp}`));
  const stop: StopSignal = { stop: false, skipSettling: false };
  let interrupts = 0;
  process.on("SIGINT", () => {
    interrupts++;
    if (interrupts === 1) stop.stop = true;
    else if (interrupts === 2) stop.skipSettling = true;
    else process.exit(130);
  });
  try {
    const summary = await runScenario({
      scenario,
      file,
      outDir,
      targetFile,
      rules: rulesOf(protocol),
      progress: new Progress(process.stderr, !o.quiet),
      stop,
    });
    console.log(oneScreen(summary, outDir));
    return summary.checksPassed && !summary.error ? 0 : 1;
  } catch (e) {
    if (
      e instanceof SimEnvironmentError ||
      e instanceof SenderFundingError ||
      e instanceof SimulationError ||
      e instanceof ValidatorWatchError
    ) {
      console.error(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

function readTarget(file: string): { protocol?: unknown } {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new CliUsageError(`cannot read the target file ${file}: ${(e as Error).message.split("\n")[0]}`);
  }
}

function intArg(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new ScenarioError("command line", name, `must be a whole number, got "${v}"`);
  return n;
}

process.exit(await main());
