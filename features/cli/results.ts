/**
 * The result of a conformance run, built from cucumber's messages: one record per scenario with its level,
 * capabilities, divergence, outcome, duration and failure text; totals per level; the console summary and the JSON
 * result (schema: docs/conformance-result.schema.json).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Envelope, GherkinDocument, Pickle } from "@cucumber/messages";
import { CAPABILITY_TAGS } from "../support/capabilities.ts";
import { NOT_RUN_PREFIX, SKIPPED_PREFIX } from "../support/health.ts";
import { type Observation, observationTotals, parseObservation } from "../support/observations.ts";
import type { preflightJson } from "../support/preflight.ts";
import { type ProtocolVersion, versionsOf } from "../support/protocolVersion.ts";

export const LEVELS = ["spec", "upstream", "intended"] as const;
export type Level = (typeof LEVELS)[number];
export type Outcome = "passed" | "failed" | "skipped" | "not-run";

export interface ScenarioResult {
  name: string;
  feature: string;
  uri: string;
  line: number;
  level: Level | null;
  /** The docs/divergences.md entry the scenario enforces or is affected by ("Divergence: …" in its description). */
  divergence: string | null;
  capabilities: string[];
  /** The protocol versions the scenario holds for (@v1.1, @v1.2; untagged: every version). */
  versions: ProtocolVersion[];
  tags: string[];
  /** 1: the main pass; 2: the @may-crash pass, run last. */
  pass: number;
  outcome: Outcome;
  /** Why a scenario was skipped or not run. */
  reason: string | null;
  durationMs: number;
  failure: string | null;
  /** Races the scenario reported instead of judging (features/support/observations.ts). */
  observations: Observation[];
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  notRun: number;
}

const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0, notRun: 0 });

/** Collects the messages of one or more cucumber passes. */
export class ResultCollector {
  readonly scenarios: ScenarioResult[] = [];
  private pass = 0;
  private readonly docs = new Map<string, GherkinDocument>();
  private readonly pickles = new Map<string, Pickle>();
  private readonly testCases = new Map<string, string>(); // testCase id → pickle id
  private readonly started = new Map<
    string,
    { pickleId: string; at: number; attachments: string[]; failures: string[]; statuses: string[] }
  >();

  startPass(): void {
    this.pass++;
  }

  onMessage = (e: Envelope): void => {
    if (e.gherkinDocument?.uri) this.docs.set(e.gherkinDocument.uri, e.gherkinDocument);
    if (e.pickle) this.pickles.set(e.pickle.id, e.pickle);
    if (e.testCase) this.testCases.set(e.testCase.id, e.testCase.pickleId);
    if (e.testCaseStarted) {
      const pickleId = this.testCases.get(e.testCaseStarted.testCaseId)!;
      this.started.set(e.testCaseStarted.id, {
        pickleId,
        at: ms(e.testCaseStarted.timestamp),
        attachments: [],
        failures: [],
        statuses: [],
      });
    }
    if (e.attachment?.testCaseStartedId)
      this.started.get(e.attachment.testCaseStartedId)?.attachments.push(e.attachment.body);
    if (e.testStepFinished) {
      const s = this.started.get(e.testStepFinished.testCaseStartedId);
      const r = e.testStepFinished.testStepResult;
      s?.statuses.push(r.status);
      if (s && r.status === "FAILED") s.failures.push(r.message ?? r.exception?.message ?? "failed");
      if (s && (r.status === "UNDEFINED" || r.status === "AMBIGUOUS" || r.status === "PENDING"))
        s.failures.push(`a step is ${r.status.toLowerCase()}`);
    }
    if (e.testCaseFinished && !e.testCaseFinished.willBeRetried) {
      const s = this.started.get(e.testCaseFinished.testCaseStartedId);
      if (s) this.scenarios.push(this.record(s, ms(e.testCaseFinished.timestamp)));
    }
  };

  private record(
    s: { pickleId: string; at: number; attachments: string[]; failures: string[]; statuses: string[] },
    end: number,
  ): ScenarioResult {
    const p = this.pickles.get(s.pickleId)!;
    const doc = this.docs.get(p.uri);
    const scenario = findScenario(doc, p.astNodeIds[0]!);
    const tags = p.tags.map((t) => t.name);
    const levels = LEVELS.filter((l) => tags.includes(`@${l}`));
    const notRun = s.attachments.find((a) => a.startsWith(NOT_RUN_PREFIX));
    const skipped = s.attachments.find((a) => a.startsWith(SKIPPED_PREFIX));
    let outcome: Outcome;
    if (s.failures.length) outcome = "failed";
    else if (notRun) outcome = "not-run";
    else if (s.statuses.every((x) => x === "PASSED")) outcome = "passed";
    else outcome = "skipped";
    const down = s.failures.find((f) => f.includes("TargetDownError"));
    return {
      name: p.name,
      feature: doc?.feature?.name ?? "",
      uri: p.uri,
      line: scenario?.line ?? 0,
      level: levels.length === 1 ? levels[0]! : null,
      divergence: scenario?.divergence ?? null,
      capabilities: [...new Set(tags.flatMap((t) => CAPABILITY_TAGS[t] ?? []))],
      versions: versionsOf(tags),
      tags,
      pass: this.pass,
      outcome,
      reason: notRun
        ? notRun.slice(NOT_RUN_PREFIX.length)
        : outcome === "skipped"
          ? (skipped?.slice(SKIPPED_PREFIX.length) ?? "a step skipped the scenario")
          : null,
      durationMs: Math.max(0, Math.round(end - s.at)),
      failure: outcome === "failed" ? cleanFailure(down ?? s.failures[0]!) : null,
      observations: s.attachments.map(parseObservation).filter((o): o is Observation => o !== null),
    };
  }

  counts(filter: (s: ScenarioResult) => boolean = () => true): Counts {
    const c = zero();
    for (const s of this.scenarios.filter(filter)) {
      if (s.outcome === "passed") c.passed++;
      else if (s.outcome === "failed") c.failed++;
      else if (s.outcome === "skipped") c.skipped++;
      else c.notRun++;
    }
    return c;
  }
}

function ms(t: { seconds: number; nanos: number }): number {
  return t.seconds * 1000 + t.nanos / 1e6;
}

/** The first lines of a failure, without the stack. */
function cleanFailure(text: string): string {
  const lines = text.split("\n");
  const stack = lines.findIndex((l) => /^\s+at /.test(l));
  return (stack > 0 ? lines.slice(0, stack) : lines).join("\n").trim().slice(0, 4000);
}

/** The scenario (or outline) node with this id: its line and its "Divergence: …" line. */
function findScenario(
  doc: GherkinDocument | undefined,
  id: string,
): { line: number; divergence: string | null } | undefined {
  const children = [...(doc?.feature?.children ?? [])];
  for (const c of [...children]) if (c.rule) children.push(...c.rule.children);
  const sc = children.map((c) => c.scenario).find((s) => s?.id === id);
  if (!sc) return undefined;
  return { line: sc.location.line, divergence: divergenceOf(sc.description) };
}

/** `Divergence: <topic of docs/divergences.md>` in a scenario's description. */
export function divergenceOf(description: string | undefined): string | null {
  const m = /^\s*Divergence:\s*(.+?)\s*$/m.exec(description ?? "");
  return m ? m[1]! : null;
}

// ------------------------------------------------------------------------------------------- reporting

/** The suite's name, its package version and the commit it runs from ("unknown" outside a git checkout). */
export function suiteInfo(): RunInfo["suite"] {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: string };
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // not a git checkout (an installed package)
  }
  return { name: "mev-commit-conformance", version: pkg.version ?? "0.0.0", commit };
}

export interface RunInfo {
  suite: { name: string; version: string; commit: string };
  target: {
    name: string;
    version: string | null;
    /** The protocol version the target speaks: the one every count of the run is for. */
    protocol: ProtocolVersion;
    capabilities: string[];
    bidTimeoutMs: number;
    decisionTimeoutMs: number;
  };
  levels: Level[];
  tags: string | null;
  order: string;
  transport: string;
  startedAt: string;
  durationMs: number;
  /** What the preflight checked and arranged before the first scenario (features/support/preflight.ts). */
  preflight?: ReturnType<typeof preflightJson> | null;
  /** What the run left on a target's chains that the suite cannot undo (features/support/onChainLeftovers.ts). */
  leftOnTarget?: string[];
}

export function resultJson(info: RunInfo, c: ResultCollector) {
  const totals = c.counts();
  return {
    schemaVersion: 1,
    suite: info.suite,
    target: info.target,
    run: {
      levels: info.levels,
      tags: info.tags,
      order: info.order,
      transport: info.transport,
      startedAt: info.startedAt,
      durationMs: info.durationMs,
    },
    preflight: info.preflight ?? null,
    success: totals.failed === 0 && totals.notRun === 0 && !info.preflight?.stopped,
    totals,
    byLevel: Object.fromEntries(LEVELS.map((l) => [l, c.counts((s) => s.level === l)])),
    observations: observationTotals(c.scenarios),
    leftOnTarget: info.leftOnTarget ?? [],
    scenarios: c.scenarios,
  };
}

/**
 * The console summary: a table per level, then each failure (with its divergence), each scenario not run, and each
 * race the scenarios reported.
 */
export function summaryText(info: RunInfo, c: ResultCollector, jsonPath: string): string {
  const out: string[] = [];
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  out.push(
    "",
    `=== conformance: ${info.target.name}${info.target.version ? ` ${info.target.version}` : ""}, protocol ${info.target.protocol} — suite ${info.suite.version} (${info.suite.commit.slice(0, 10)})`,
  );
  out.push(`level        ${pad("passed", 7)} ${pad("failed", 7)} ${pad("skipped", 8)} ${pad("not run", 8)}`);
  for (const l of LEVELS) {
    if (!info.levels.includes(l)) continue;
    const k = c.counts((s) => s.level === l);
    out.push(`@${l.padEnd(11)} ${pad(k.passed, 7)} ${pad(k.failed, 7)} ${pad(k.skipped, 8)} ${pad(k.notRun, 8)}`);
  }
  const t = c.counts();
  out.push(`${"total".padEnd(12)} ${pad(t.passed, 7)} ${pad(t.failed, 7)} ${pad(t.skipped, 8)} ${pad(t.notRun, 8)}`);
  const failed = c.scenarios.filter((s) => s.outcome === "failed");
  if (failed.length) {
    out.push("", "failed:");
    for (const s of failed) {
      out.push(`  ✗ [@${s.level ?? "no level"}] ${s.uri}:${s.line} ${s.name}`);
      if (s.divergence)
        out.push(
          `      divergence: docs/divergences.md, "${s.divergence}"${s.level === "intended" ? " (the suite expects the intended behaviour)" : ""}`,
        );
      out.push(`      ${(s.failure ?? "").split("\n").slice(0, 3).join("\n      ")}`);
    }
  }
  const notRun = c.scenarios.filter((s) => s.outcome === "not-run");
  // Every scenario not run for one reason (a target down from the start): said once.
  const reasons = new Set(notRun.map((s) => s.reason));
  if (notRun.length > 1 && reasons.size === 1 && c.scenarios.length === notRun.length)
    out.push(`  - not run (all ${notRun.length}): ${notRun[0]!.reason}`);
  else for (const s of notRun) out.push(`  - not run: ${s.reason} — ${s.uri}:${s.line} ${s.name}`);
  const skippedFor = new Map<string, number>();
  for (const s of c.scenarios.filter((x) => x.outcome === "skipped"))
    skippedFor.set(s.reason ?? "", (skippedFor.get(s.reason ?? "") ?? 0) + 1);
  for (const [why, n] of skippedFor) out.push(`  skipped ${n}: ${why}`);
  const races = observationTotals(c.scenarios);
  if (races.length) out.push("", "races (reported, not judged):");
  for (const r of races)
    out.push(
      `  ~ "${r.what}": ${r.observed ? `observed in ${r.observed}` : "not observed in any"} of ${r.tries} tries (${r.scenarios.join(", ")})`,
    );
  out.push("", `result: ${jsonPath}`);
  // The one line that CI tools read.
  out.push(`conformance: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped, ${t.notRun} not run`);
  return out.join("\n");
}
