/**
 * One simulation from start to report: the environment (a reference devnet, or a target), the run, the
 * collection of the nodes' and the chain's view, the report folder. The CLI and the tests call this.
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ProtocolRules } from "../../node/protocol/rules.ts";
import type { Summary } from "./report/summary.ts";
import { collect, writeReport } from "./report/writeReport.ts";
import { referenceDevnet, type SimEnvironment, SimEnvironmentError, targetEnvironment } from "./run/environment.ts";
import { Progress } from "./run/progress.ts";
import { RunLog } from "./run/runLog.ts";
import { Simulation, type StopSignal } from "./run/simulation.ts";
import type { Scenario } from "./scenario/schema.ts";

export interface RunScenarioOptions {
  scenario: Scenario;
  /** The scenario file as named on the command line (recorded in the summary). */
  file: string;
  outDir: string;
  /** A target file; without it a reference devnet is started. */
  targetFile?: string;
  /** The rules of the reference devnet's protocol; a target speaks the protocol its file says. */
  rules: ProtocolRules;
  progress?: Progress;
  stop?: StopSignal;
}

/** A scenario runs only on the protocol versions it says it holds for (`protocols`). */
function holdsFor(s: Scenario, { version: protocol }: ProtocolRules): void {
  if (!s.protocols.includes(protocol))
    throw new SimEnvironmentError(
      `scenario ${s.name} holds for protocol ${s.protocols.join(", ")} only (its protocols field), not for ${protocol}`,
    );
}

export async function runScenario(o: RunScenarioOptions): Promise<Summary> {
  const progress = o.progress ?? new Progress(process.stderr, false);
  const stop = o.stop ?? { stop: false, skipSettling: false };
  mkdirSync(o.outDir, { recursive: true });
  let env: SimEnvironment;
  if (o.targetFile) {
    env = targetEnvironment(o.targetFile, o.scenario);
    holdsFor(o.scenario, env.rules);
  } else {
    holdsFor(o.scenario, o.rules);
    const logFile = join(o.outDir, "devnet.log");
    progress.note(
      `starting a reference devnet of protocol ${o.rules.version} (${o.scenario.bidders.length} bidder node(s), ${o.scenario.providers.length} provider node(s)); its log: ${logFile}`,
    );
    env = await referenceDevnet(o.scenario, logFile, o.rules);
  }
  try {
    const log = new RunLog();
    progress.note(
      `running ${o.scenario.name} (seed ${o.scenario.seed}, ${o.scenario.l1.blocks} blocks) on ${env.name}`,
    );
    const run = await new Simulation(env, o.scenario, log, progress, stop).run();
    progress.done();
    const summary = await collect(run, env, log, o.file);
    writeReport(o.outDir, summary, log);
    return summary;
  } finally {
    progress.done();
    await env.stop();
  }
}
