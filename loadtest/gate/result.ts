/**
 * The gate's result in the conformance result's shape (docs/load-gate-result.schema.json: the fields of
 * docs/conformance-result.schema.json, one scenario per level of bids in flight, and a `gate` object with each
 * level's figures), so that a CI job reads it as it reads a conformance run. Built from the summary gate.js writes.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import { type RunInfo, suiteInfo } from "../../features/cli/results.ts";
import { MevCommitError } from "../../lib/errors.ts";

export const RESULT_SCHEMA = "docs/load-gate-result.schema.json";
const BASE_SCHEMA = "docs/conformance-result.schema.json";
const ROOT = resolve(import.meta.dir, "..", "..");

/** One level of the gate as gate.js's handleSummary writes it. */
export interface GateLevel {
  inFlight: number;
  maxInFlight: number | null;
  bids: number;
  commitments: number;
  commitmentsPerBid: number | null;
  fewestCommitments: number | null;
  shortBids: number;
  unverifiedCommitments: number;
  bidErrors: number;
  checks: { passed: number; failed: number };
  durationMs: number | null;
  passed: boolean;
}

/** gate.js's summary (reports/load-gate.json). */
export interface GateSummary {
  profile: "gate";
  bidderTransport: string;
  providers: number;
  acceptingProviders: number;
  providerApplications: string;
  bidsPerLevel: number;
  durationS: number;
  levels: GateLevel[];
  thresholdsPassed: boolean;
}

export interface GateRun {
  target: RunInfo["target"];
  transport: string;
  startedAt: Date;
  durationMs: number;
  /** The levels asked for (the scenarios when k6 wrote no summary). */
  levels: number[];
  bidsPerLevel: number;
  /** Why there is no summary (k6 ended before writing it). */
  noSummary?: string;
}

export class GateResultError extends MevCommitError {}

const FEATURE = "Load gate: every bid fully committed and verified at each level of bids in flight";
const RESTS_ON =
  "interface.md §4.1 (SendBid: each provider commitment comes back as a streamed message) and §2.2 (Commitment)";

/** The highest level up to which every level passed (null: not even the first). */
export function levelReached(levels: Pick<GateLevel, "inFlight" | "passed">[]): number | null {
  let reached: number | null = null;
  for (const l of levels) {
    if (!l.passed) break;
    reached = l.inFlight;
  }
  return reached;
}

/** What went wrong at a level, in one line. */
export function levelFailure(l: GateLevel, accepting: number, bidsPerLevel: number): string {
  const parts: string[] = [];
  if (l.bids < bidsPerLevel) parts.push(`${l.bids} of ${bidsPerLevel} bids ended`);
  if (l.shortBids > 0)
    parts.push(
      `${l.shortBids} of ${l.bids} bids got fewer than ${accepting} commitments (${(l.commitmentsPerBid ?? 0).toFixed(2)} per bid, fewest ${l.fewestCommitments ?? "-"})`,
    );
  if (l.unverifiedCommitments > 0) parts.push(`${l.unverifiedCommitments} commitments failed verification`);
  if (l.bidErrors > 0) parts.push(`${l.bidErrors} bid streams ended in an error`);
  if (l.maxInFlight !== null && l.maxInFlight !== l.inFlight)
    parts.push(`${l.maxInFlight} bids in flight at most, not ${l.inFlight}`);
  if (parts.length === 0) parts.push(`${l.checks.failed} checks failed of ${l.checks.passed + l.checks.failed}`);
  return `at ${l.inFlight} bids in flight: ${parts.join("; ")}`;
}

/** The result document: one scenario per level (passed or failed; not-run for all when k6 wrote no summary). */
export function gateResult(run: GateRun, summary: GateSummary | undefined, suite = suiteInfo()) {
  const levels = summary?.levels ?? [];
  const scenarios = (summary ? levels.map((l) => l.inFlight) : run.levels).map((k, i) => {
    const l = summary ? levels[i] : undefined;
    const outcome = l ? (l.passed ? "passed" : "failed") : "not-run";
    return {
      name: `every bid fully committed and verified at ${k} bids in flight (${run.bidsPerLevel} bids)`,
      feature: FEATURE,
      uri: "loadtest/gate.js",
      line: 0,
      level: "spec" as const,
      divergence: null,
      capabilities: run.transport === "grpc" || summary?.providerApplications === "k6" ? ["grpc"] : [],
      versions: ["v1.1", "v1.2"],
      tags: ["@spec", "@load-gate"],
      pass: 1,
      outcome,
      reason: l ? null : (run.noSummary ?? "k6 wrote no summary"),
      durationMs: Math.max(0, Math.round(l?.durationMs ?? 0)),
      failure:
        l && !l.passed ? `${levelFailure(l, summary!.acceptingProviders, run.bidsPerLevel)} (${RESTS_ON})` : null,
      observations: [],
    };
  });
  const count = (o: string) => scenarios.filter((s) => s.outcome === o).length;
  const totals = { passed: count("passed"), failed: count("failed"), skipped: 0, notRun: count("not-run") };
  const none = { passed: 0, failed: 0, skipped: 0, notRun: 0 };
  return {
    schemaVersion: 1 as const,
    suite,
    target: run.target,
    run: {
      levels: ["spec"],
      tags: "@load-gate",
      order: "levels of bids in flight, ascending",
      transport: run.transport,
      startedAt: run.startedAt.toISOString(),
      durationMs: Math.max(0, Math.round(run.durationMs)),
    },
    preflight: null,
    success: scenarios.length > 0 && totals.failed === 0 && totals.notRun === 0,
    totals,
    byLevel: { spec: totals, upstream: none, intended: none },
    observations: [],
    leftOnTarget: [],
    scenarios,
    gate: {
      levels: summary ? levels : [],
      levelReached: summary ? levelReached(levels) : null,
      bidsPerLevel: run.bidsPerLevel,
      acceptingProviders: summary?.acceptingProviders ?? null,
      providerApplications: summary?.providerApplications ?? null,
    },
  };
}

/** Checks a result against docs/load-gate-result.schema.json; throws GateResultError with Ajv's errors. */
export function checkGateResult(result: unknown): void {
  const read = (p: string) => JSON.parse(readFileSync(join(ROOT, p), "utf8"));
  const ajv = new Ajv({ allErrors: true });
  ajv.addSchema(read(BASE_SCHEMA));
  const validate = ajv.compile(read(RESULT_SCHEMA));
  if (!validate(result))
    throw new GateResultError(`the gate's result does not match ${RESULT_SCHEMA}: ${ajv.errorsText(validate.errors)}`);
}
