/**
 * The gate's result: in the conformance result's shape and valid against docs/load-gate-result.schema.json for a
 * run that passed, one that failed at a level, and one where k6 wrote no summary; the level reached is the last
 * level of the passing run of levels from the first.
 */
import { describe, expect, test } from "bun:test";
import { checkGateResult, type GateLevel, type GateRun, type GateSummary, gateResult, levelReached } from "./result.ts";

const run: GateRun = {
  target: {
    name: "reference devnet",
    version: null,
    protocol: "v1.1",
    capabilities: ["grpc", "sim-control"],
    bidTimeoutMs: 5000,
    decisionTimeoutMs: 3000,
  },
  transport: "grpc",
  startedAt: new Date("2026-11-28T21:00:00Z"),
  durationMs: 12_345,
  levels: [1, 8, 32],
  bidsPerLevel: 32,
};

function level(inFlight: number, short = 0, unverified = 0): GateLevel {
  const passed = short === 0 && unverified === 0;
  return {
    inFlight,
    maxInFlight: inFlight,
    bids: 32,
    commitments: 64 - short,
    commitmentsPerBid: (64 - short) / 32,
    fewestCommitments: short ? 1 : 2,
    shortBids: short,
    unverifiedCommitments: unverified,
    bidErrors: 0,
    checks: { passed: passed ? 96 : 90, failed: passed ? 0 : 6 },
    durationMs: 700.5,
    passed,
  };
}

function summary(levels: GateLevel[]): GateSummary {
  return {
    profile: "gate",
    bidderTransport: "grpc",
    providers: 2,
    acceptingProviders: 2,
    providerApplications: "k6",
    bidsPerLevel: 32,
    durationS: 9.3,
    levels,
    thresholdsPassed: levels.every((l) => l.passed),
  };
}

const SUITE = { name: "mev-commit-conformance", version: "0.1.0", commit: "abc" };

describe("gateResult", () => {
  test("a run where every level passed: success, level reached 32, valid against the schema", () => {
    const r = gateResult(run, summary([level(1), level(8), level(32)]), SUITE);
    checkGateResult(r);
    expect(r.success).toBe(true);
    expect(r.totals).toEqual({ passed: 3, failed: 0, skipped: 0, notRun: 0 });
    expect(r.byLevel.spec).toEqual(r.totals);
    expect(r.gate.levelReached).toBe(32);
    expect(r.scenarios.map((s) => s.outcome)).toEqual(["passed", "passed", "passed"]);
    expect(r.scenarios[1]!.name).toBe("every bid fully committed and verified at 8 bids in flight (32 bids)");
  });

  test("a run that failed from 8 in flight: level reached 1, each failure says what fell short", () => {
    const r = gateResult(run, summary([level(1), level(8, 12), level(32, 20, 3)]), SUITE);
    checkGateResult(r);
    expect(r.success).toBe(false);
    expect(r.gate.levelReached).toBe(1);
    expect(r.totals).toEqual({ passed: 1, failed: 2, skipped: 0, notRun: 0 });
    expect(r.scenarios[1]!.failure).toStartWith(
      "at 8 bids in flight: 12 of 32 bids got fewer than 2 commitments (1.63 per bid, fewest 1)",
    );
    expect(r.scenarios[2]!.failure).toContain("3 commitments failed verification");
  });

  test("no summary from k6: every level not run, and no success", () => {
    const r = gateResult({ ...run, noSummary: "k6 exited with 107 before writing its summary" }, undefined, SUITE);
    checkGateResult(r);
    expect(r.success).toBe(false);
    expect(r.totals.notRun).toBe(3);
    expect(r.scenarios[0]!.reason).toBe("k6 exited with 107 before writing its summary");
    expect(r.gate.levelReached).toBeNull();
  });

  test("the schema check refuses a result without its gate figures or with a bad scenario", () => {
    const r = gateResult(run, summary([level(1)]), SUITE);
    const { gate: _gate, ...withoutGate } = r;
    expect(() => checkGateResult(withoutGate)).toThrow(/must have required property 'gate'/);
    const badOutcome = { ...r, scenarios: [{ ...r.scenarios[0]!, outcome: "maybe" }] };
    expect(() => checkGateResult(badOutcome)).toThrow(/does not match/);
  });
});

test("levelReached: the last level of the passing levels from the first", () => {
  const l = (inFlight: number, passed: boolean) => ({ inFlight, passed });
  expect(levelReached([l(1, true), l(8, true), l(32, true)])).toBe(32);
  expect(levelReached([l(1, true), l(8, false), l(32, true)])).toBe(1);
  expect(levelReached([l(1, false), l(8, true)])).toBeNull();
  expect(levelReached([])).toBeNull();
});
