/**
 * The run's and each scenario's life, in one place so that the order is plain:
 *
 * - BeforeAll: the target is loaded or started (once per process; the CLI may have done it already); a target with a
 *   restart command that does not answer is marked down, so that the first Before restarts it. The preflight checks
 *   what the run relies on in the target (preflight.ts; the CLI runs it before both passes). The settings of a
 *   target the suite did not start (auto-deposit, builder modes, attached applications) are read, and its bidder's
 *   auto-deposit is stopped for the run (scenarios deposit by hand). What the run changes on a target file's target is
 *   recorded next to the file until it is put back (targetChanges.ts); an earlier run's record is put back first.
 * - AfterAll: those settings are put back, and what could not be is printed (targetSettings.ts); on SIGINT or
 *   SIGTERM the CLI puts them back instead, from the record, and no scenario starts after the signal.
 * - Before: a scenario is not run when the target is down (unless its restart command brings it back) or the
 *   preflight found it cannot work at all, and is skipped when it holds only for another protocol version than the
 *   target's (@v1.1, @v1.2; protocolVersion.ts), when it needs a capability the target lacks or the
 *   preflight found not answering (tags below), or is tagged @http in a gRPC run.
 * - After: every teardown runs (last registered first), then the scenario's scope ends, which aborts every request
 *   it still has open, headers or not. When the scenario (or its teardown) failed and the target no longer answers,
 *   it fails with "the target went down during this scenario" alone, and the scenarios after it are not run.
 */
import { After, AfterAll, Before, BeforeAll, Status, setDefaultTimeout } from "@cucumber/cucumber";
import { MevCommitError } from "../../lib/errors.ts";
import { CAPABILITY_TAGS } from "./capabilities.ts";
import {
  markDown,
  NOT_RUN_PREFIX,
  probeTarget,
  restartTarget,
  SKIPPED_PREFIX,
  TargetDownError,
  targetDown,
} from "./health.ts";
import { preflight, preflightText, runPreflight, setPreflight, undoPreflight } from "./preflight.ts";
import { versionSkipReason } from "./protocolVersion.ts";
import { learnProviderNames, providersLine } from "./providerNames.ts";
import { hasRun, run, setRun } from "./run.ts";
import { startTarget } from "./target.ts";
import { beginRecord, endRecord, interrupted, noteSettings } from "./targetChanges.ts";
import { prepareTarget, readTargetSettings, restoreTargetSettings, type TargetSettings } from "./targetSettings.ts";
import type { ConformanceWorld } from "./world.ts";

setDefaultTimeout(60_000);

export class TeardownError extends MevCommitError {}

let startedHere = false;
/** Whether this pass ran the preflight (plain cucumber-js) and so puts back what it arranged. */
let preflightHere = false;
/** A target's settings as the pass found them (not read for the suite's own devnet), put back after it. */
let settingsBefore: TargetSettings | undefined;
/**
 * The settings as the run's first pass found them: the @may-crash pass puts back these, not what it reads after the
 * first pass (whose scenarios' deposits would read as a larger auto-deposit amount).
 */
let settingsOfRun: TargetSettings | undefined;

BeforeAll({ timeout: 180_000 }, async () => {
  if (!hasRun()) {
    const s = await startTarget();
    setRun(s);
    startedHere = true;
    const t = s.target;
    await learnProviderNames(t);
    console.log(
      `\nTarget: ${t.name}${t.version ? ` ${t.version}` : ""} — bidder ${t.bidderUrl}, ${t.providerUrls.length} providers, capabilities [${t.capabilities.join(", ")}]\nProviders: ${providersLine(t)}`,
    );
  }
  // A target with a restart command that is down already (e.g. a node the last run's @may-crash pass took down) is
  // restarted before the first scenario, which would otherwise fail for what happened before it.
  const t = run().target;
  const dead = t.restart && !targetDown() ? await probeTarget(t) : undefined;
  if (dead) markDown(dead);
  // The CLI runs the preflight once before both passes; under plain cucumber-js each pass runs it here.
  if (!preflight() && !targetDown()) {
    const file = run().file;
    if (file && !run().ownDevnet) await beginRecord(file, t, (line) => console.log(`\n${line}`));
    const p = await runPreflight(t);
    setPreflight(p);
    preflightHere = true;
    console.log(`\n${preflightText(p)}`);
    if (p.stop) console.log(`\nthe target cannot be tested as it is: ${p.stop}`);
  }
  if (!run().ownDevnet && !targetDown() && !interrupted()) {
    settingsOfRun ??= await readTargetSettings(t);
    settingsBefore = settingsOfRun;
    noteSettings(settingsOfRun);
    for (const line of await prepareTarget(t, settingsBefore)) console.log(`\n${line}`);
  }
});

AfterAll({ timeout: 120_000 }, async () => {
  // A run stopped by a signal is put back by the signal's handler (features/cli/conformance.ts), not twice at once.
  if (settingsBefore && !interrupted()) {
    const lines = await restoreTargetSettings(run().target, settingsBefore).catch((e: Error) => [
      `left unknown: the target's settings (${e.message})`,
    ]);
    settingsBefore = undefined;
    if (lines.length)
      console.log(`\nThe target's settings this pass changed:\n${lines.map((l) => `  ${l}`).join("\n")}`);
  }
  const p = preflight();
  if (preflightHere && p) {
    for (const line of await undoPreflight(p)) console.log(`\n${line}`);
    setPreflight(undefined);
    preflightHere = false;
    endRecord();
  }
  if (!startedHere) return;
  await run().stop();
  setRun(undefined);
  startedHere = false;
});

Before({ timeout: 200_000 }, async function (this: ConformanceWorld, { pickle }) {
  const signal = interrupted();
  if (signal) {
    this.attach(`${NOT_RUN_PREFIX}the run was stopped (${signal})`, "text/plain");
    return "skipped";
  }
  if (targetDown()) {
    if (!this.target.restart) {
      this.attach(`${NOT_RUN_PREFIX}the target is down`, "text/plain");
      return "skipped";
    }
    try {
      await restartTarget(this.target, (line) => console.log(`\n${line}`));
    } catch (e) {
      this.attach(`${NOT_RUN_PREFIX}the target is down (${(e as Error).message})`, "text/plain");
      return "skipped";
    }
  }
  const pf = preflight();
  if (pf?.stop) {
    this.attach(`${NOT_RUN_PREFIX}the target cannot be tested as it is: ${pf.stop}`, "text/plain");
    return "skipped";
  }
  const tags = pickle.tags.map((t) => t.name);
  // A scenario tagged for another protocol version than the target's.
  const otherVersion = versionSkipReason(tags, this.target.protocol);
  if (otherVersion) {
    this.attach(`${SKIPPED_PREFIX}${otherVersion}`, "text/plain");
    return "skipped";
  }
  const needs = [...new Set(tags.flatMap((t) => CAPABILITY_TAGS[t] ?? []))];
  const missing = needs.filter((c) => !this.has(c));
  if (missing.length) {
    this.attach(`${SKIPPED_PREFIX}the target lacks ${missing.join(", ")}`, "text/plain");
    return "skipped";
  }
  // A capability the target file claims but the preflight found not answering.
  const unusable = needs.map((c) => pf?.unusable[c]).find(Boolean);
  if (unusable) {
    this.attach(`${SKIPPED_PREFIX}${unusable}`, "text/plain");
    return "skipped";
  }
  // @http: the scenario judges what exists only on the HTTP gateway (status codes, content types, JSON text).
  if (tags.includes("@http")) return this.httpOnly("a scenario tagged @http");
});

After({ timeout: 120_000 }, async function (this: ConformanceWorld, { result }) {
  // Teardowns first: they restart the provider nodes a scenario stopped, which would otherwise look down.
  const problems: string[] = [];
  for (const t of [...this.teardowns].reverse()) {
    try {
      problems.push(...(await t.run()).map((p) => `${t.what}: ${p}`));
    } catch (e) {
      problems.push(`${t.what}: ${(e as Error).message}`);
    }
  }
  this.scope.end();
  if (problems.length || result?.status === Status.FAILED) {
    const dead = await probeTarget(this.target);
    if (dead) {
      markDown(dead);
      throw new TargetDownError(`the target went down during this scenario: ${dead}`);
    }
  }
  if (problems.length) throw new TeardownError(`tearing down the scenario:\n${problems.join("\n")}`);
});
