/**
 * The StrykerJS configuration of one mutation run: the files to mutate, and as the test command the conformance
 * suite against a devnet of its own, narrowed to the tags of the mutated area and stopping at its first failure.
 */
import { normalise } from "./areas.ts";

/** Where a run's reports go; the smoke has its own, so that `npm test` leaves a long run's report alone. */
export function reportDir(smoke: boolean): string {
  return smoke ? "reports/mutation-smoke" : "reports/mutation";
}

export function jsonReport(plan: Pick<RunPlan, "reportDir">): string {
  return `${plan.reportDir}/mutation.json`;
}

export interface RunPlan {
  /** Stryker `mutate` entries: globs, or `file:line:column-line:column` ranges. */
  mutate: string[];
  /** The tag expression the suite is narrowed to; undefined runs the whole suite. */
  tags: string | undefined;
  concurrency: number;
  /** Mutator names not to apply (Stryker's mutator.excludedMutations). */
  excludedMutations?: string[];
  /** reportDir(smoke). */
  reportDir: string;
  /** Stryker's sandboxes (copies of the repository), one folder per kind of run so that two can run at once. */
  tempDir: string;
}

/** What is never mutated: tests, benchmarks, generated code, test-only helpers. */
const NOT_MUTATED = ["!**/*.test.ts", "!**/*.bench.ts", "!**/bench/**", "!node/gen/**", "!node/testing/**"];

/** The `mutate` globs of folders or files: their TypeScript behaviour code, neither tests nor generated code. */
export function mutateGlobs(paths: readonly string[]): string[] {
  const globs = paths.map(normalise).map((p) => (p.endsWith(".ts") ? p : `${p}/**/*.ts`));
  return [...new Set(globs), ...NOT_MUTATED];
}

/** The command each mutant is tested with (run by Stryker in its sandbox copy of the repository). */
export function suiteCommand(tags: string | undefined): string {
  const tagArg = tags ? ` --tags '${tags.replaceAll("'", "")}'` : "";
  // Reports of the mutant's run stay in the sandbox (deleted with it); only its exit status counts.
  return `bun features/cli/conformance.ts --fail-fast${tagArg} --reports reports/mutant`;
}

export function strykerConfig(plan: RunPlan): Record<string, unknown> {
  return {
    testRunner: "command",
    commandRunner: { command: suiteCommand(plan.tags) },
    mutate: plan.mutate,
    // The command runner knows no tests, hence no coverage: every mutant runs the (narrowed) suite.
    coverageAnalysis: "off",
    // Each run starts a devnet of 4 nodes and 2 Anvil chains: one at a time keeps two cores from thrashing.
    concurrency: plan.concurrency,
    reporters: ["progress-append-only", "json", "html"],
    jsonReporter: { fileName: jsonReport(plan) },
    htmlReporter: { fileName: `${plan.reportDir}/mutation.html` },
    // Left out of the sandbox copy: earlier reports, devnet data, caches and downloaded binaries.
    ignorePatterns: [
      "/reports",
      "/.devnet",
      "/.devnet-*",
      "/.cache",
      "/.schemathesis",
      "/.stryker-tmp",
      "/loadtest/.bin",
    ],
    // Stryker rewrites tsconfig.json with TypeScript's JS API, which TypeScript 7 (the Go compiler) no longer has;
    // Bun needs no rewrite (the tsconfig extends nothing outside the repository), so it is pointed at no file.
    tsconfigFile: "stryker-has-no-tsconfig-to-rewrite.json",
    // A mutant whose run takes longer than this past the unmutated run is "timed out" (a hang, an endless loop):
    // a devnet start on a loaded machine can take tens of seconds.
    timeoutMS: 60_000,
    timeoutFactor: 1.5,
    dryRunTimeoutMinutes: 30,
    tempDirName: plan.tempDir,
    cleanTempDir: true,
    ...(plan.excludedMutations ? { mutator: { excludedMutations: plan.excludedMutations } } : {}),
  };
}
