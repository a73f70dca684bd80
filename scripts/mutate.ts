#!/usr/bin/env bun
/**
 * `npm run mutate -- <folder or file>…`: the conformance suite's own mutation score. StrykerJS mutates the reference
 * node's code (scripts/mutate/strykerConfig.ts) and runs, for each mutant, the scenarios of the mutated area
 * (scripts/mutate/areas.ts) against a devnet of their own, stopping at the first failure. A mutant the suite fails
 * on is killed; one it passes survived: behaviour the suite does not pin down (or an equivalent mutant). Prints
 * killed / survived / timed out per file and each survivor's diff (scripts/mutate/report.ts); Stryker's reports go
 * to reports/mutation/ (mutation.json, mutation.html).
 *
 * `--smoke` runs three chosen mutants that must be killed (scripts/mutate/smoke.ts) and prints
 * `mutate smoke: N killed, N not killed`; exit 1 unless all were killed.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { CliFailure, CliUsageError, exitOnCliErrors, numberOption, parseCliArgs } from "../lib/cli.ts";
import { tagsFor } from "./mutate/areas.ts";
import { type MutationReport, summarise, summaryText } from "./mutate/report.ts";
import { SMOKE_EXCLUDED_MUTATIONS, SMOKE_FILE, SMOKE_SNIPPETS, SMOKE_TAGS, smokeRanges } from "./mutate/smoke.ts";
import { jsonReport, mutateGlobs, type RunPlan, reportDir, strykerConfig } from "./mutate/strykerConfig.ts";

exitOnCliErrors();

const HELP = `Usage: npm run mutate -- [--concurrency N] [--tags EXPR] <folder or file of node/>…
       npm run mutate -- --smoke

Mutation testing of the conformance suite: StrykerJS mutates the reference node's code, and each mutant is run
against the suite's scenarios for that area (node/query → @queries, node/bidder/deposits → @deposits, …; a path
under no area runs the whole suite) with --fail-fast, on a devnet of its own. Prints killed / survived / timed out
per file, the score, and each survivor's diff. Reports: ${reportDir(false)}/mutation.json and mutation.html (${reportDir(true)}/ for --smoke).

Options:
  --concurrency N   mutants tested at once (default 1: each starts a devnet of 6 processes)
  --tags EXPR       the scenarios to run for every mutant instead of the area's
  --smoke           three chosen mutants of ${SMOKE_FILE}, run against ${SMOKE_TAGS}: all must be killed
  -h, --help        this text`;

const ROOT = resolve(import.meta.dir, "..");
const CALLER_DIR = process.cwd();
process.chdir(ROOT);

const { values: opts, positionals } = parseCliArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: "string" },
    tags: { type: "string" },
    smoke: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}

const plan = planRun();
const JSON_REPORT = jsonReport(plan);
const configFile = join(plan.reportDir, "stryker.config.json");
mkdirSync(plan.reportDir, { recursive: true });
rmSync(JSON_REPORT, { force: true });
writeFileSync(configFile, `${JSON.stringify(strykerConfig(plan), null, 2)}\n`);
console.log(
  `Mutating ${plan.mutate.filter((m) => !m.startsWith("!")).join(", ")}; each mutant runs ${plan.tags ? `the scenarios tagged ${plan.tags}` : "the whole suite"}`,
);

const install = Bun.spawnSync(["bash", "scripts/install-stryker.sh"], { stdout: "pipe", stderr: "inherit" });
if (install.exitCode !== 0)
  throw new CliFailure("StrykerJS could not be installed (scripts/install-stryker.sh); its output above says why");
const strykerCli = install.stdout.toString().trim();
const started = Date.now();
// Stryker runs under Bun (the Node.js on the machine may be older than the v22 it asks for).
const stryker = Bun.spawn(["bun", strykerCli, "run", configFile], {
  stdio: ["ignore", "inherit", "inherit"],
});
const code = await stryker.exited;
let report: MutationReport;
try {
  report = JSON.parse(readFileSync(JSON_REPORT, "utf8")) as MutationReport;
} catch {
  throw new CliFailure(`Stryker exited with ${code} and wrote no report (${JSON_REPORT}); its output above says why`);
}
const summary = summarise(report);
console.log(`\n${summaryText(summary)}`);
console.log(`took ${Math.round((Date.now() - started) / 1000)} s; reports in ${relative(ROOT, dirname(JSON_REPORT))}/`);

if (opts.smoke) {
  // Each chosen mutant is one check: killed, or not (survived, timed out, errored, or missing from the report).
  const killed = summary.total.killed;
  console.log(`mutate smoke: ${killed} killed, ${Math.max(0, SMOKE_SNIPPETS.length - killed)} not killed`);
  process.exit(killed === SMOKE_SNIPPETS.length ? 0 : 1);
}
process.exit(code);

function planRun(): RunPlan {
  const concurrency = numberOption("--concurrency", opts.concurrency, 1, { min: 1 });
  if (opts.smoke) {
    if (positionals.length || opts.tags) throw new CliUsageError("--smoke takes no paths and no --tags");
    return {
      mutate: smokeRanges(ROOT),
      tags: SMOKE_TAGS,
      concurrency,
      excludedMutations: SMOKE_EXCLUDED_MUTATIONS,
      reportDir: reportDir(true),
      tempDir: ".stryker-tmp/smoke",
    };
  }
  if (positionals.length === 0)
    throw new CliUsageError("name the folders or files of node/ to mutate (e.g. node/query); --help for more");
  const paths = positionals.map((p) => {
    const abs = resolve(CALLER_DIR, p);
    if (!existsSync(abs)) throw new CliUsageError(`${p} does not exist`);
    const rel = relative(ROOT, abs);
    if (rel.startsWith("..")) throw new CliUsageError(`${p} is outside the repository`);
    return rel;
  });
  return {
    mutate: mutateGlobs(paths),
    tags: opts.tags ?? tagsFor(paths),
    concurrency,
    reportDir: reportDir(false),
    tempDir: ".stryker-tmp/run",
  };
}
