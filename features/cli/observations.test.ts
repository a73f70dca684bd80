/**
 * Races a scenario reports instead of judging: the attachment a step writes reaches the scenario's record, the
 * result's per-race totals (checked against docs/conformance-result.schema.json) and the console summary, and never
 * the verdict.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Envelope } from "@cucumber/messages";
import Ajv from "ajv";
import { leftOnTarget, recordLeftOnTarget } from "../support/leftOnTarget.ts";
import { observationAttachment, parseObservation } from "../support/observations.ts";
import { ResultCollector, type RunInfo, resultJson, summaryText } from "./results.ts";

const schema = JSON.parse(
  readFileSync(join(import.meta.dir, "..", "..", "docs", "conformance-result.schema.json"), "utf8"),
);
const at = (s: number) => ({ seconds: s, nanos: 0 });

/** The messages of one passed scenario that attached `attachments`. */
function scenario(n: number, attachments: string[]): Envelope[] {
  const uri = `features/f${n}.feature`;
  return [
    {
      gherkinDocument: {
        uri,
        comments: [],
        feature: {
          location: { line: 1 },
          tags: [],
          language: "en",
          keyword: "Feature",
          name: `F${n}`,
          description: "",
          children: [
            {
              scenario: {
                id: `s${n}`,
                location: { line: 3 },
                tags: [],
                keyword: "Scenario",
                name: `race ${n}`,
                description: "    Divergence: Status updates",
                steps: [],
                examples: [],
              },
            },
          ],
        },
      },
    },
    {
      pickle: {
        id: `p${n}`,
        uri,
        name: `race ${n}`,
        language: "en",
        steps: [],
        tags: [{ name: "@intended", astNodeId: "t" }],
        astNodeIds: [`s${n}`],
      },
    },
    { testCase: { id: `c${n}`, pickleId: `p${n}`, testSteps: [] } },
    { testCaseStarted: { id: `r${n}`, testCaseId: `c${n}`, attempt: 0, timestamp: at(1) } },
    ...attachments.map(
      (body): Envelope => ({
        attachment: { testCaseStartedId: `r${n}`, body, mediaType: "text/plain", contentEncoding: "IDENTITY" as never },
      }),
    ),
    {
      testStepFinished: {
        testCaseStartedId: `r${n}`,
        testStepId: "x",
        testStepResult: { status: "PASSED" as never, duration: at(0) },
        timestamp: at(2),
      },
    },
    { testCaseFinished: { testCaseStartedId: `r${n}`, timestamp: at(2), willBeRetried: false } },
  ] as Envelope[];
}

const info: RunInfo = {
  suite: { name: "mev-commit-conformance", version: "0", commit: "0123456789ab" },
  target: { name: "t", version: null, protocol: "v1.1", capabilities: [], bidTimeoutMs: 5000, decisionTimeoutMs: 3000 },
  levels: ["spec", "upstream", "intended"],
  tags: null,
  order: "defined",
  transport: "http",
  startedAt: new Date(0).toISOString(),
  durationMs: 1,
};

test("observations reach the scenario, the per-race totals and the summary, and leave the verdict alone", () => {
  const c = new ResultCollector();
  c.startPass();
  const seen = observationAttachment({ what: "Status updates", observed: true, detail: "left opened" });
  const notSeen = observationAttachment({ what: "Status updates", observed: false, detail: "settled" });
  for (const e of [...scenario(1, [seen, "some other attachment"]), ...scenario(2, [notSeen])]) c.onMessage(e);

  expect(c.scenarios.map((s) => [s.outcome, s.observations.length])).toEqual([
    ["passed", 1],
    ["passed", 1],
  ]);
  const json = resultJson(info, c);
  expect(json.observations).toEqual([
    { what: "Status updates", observed: 1, tries: 2, scenarios: ["features/f1.feature:3", "features/f2.feature:3"] },
  ]);
  expect(json.success).toBe(true);
  const validate = new Ajv({ allErrors: true }).compile(schema);
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  expect(summaryText(info, c, "r.json")).toContain(
    '~ "Status updates": observed in 1 of 2 tries (features/f1.feature:3, features/f2.feature:3)',
  );
});

test("an attachment that is not an observation is none", () => {
  expect(parseObservation("not run: down")).toBeNull();
  expect(parseObservation(observationAttachment({ what: "x", observed: false, detail: "d" }))).toEqual({
    what: "x",
    observed: false,
    detail: "d",
  });
});

test("what a run left on a target's chains reaches the result, valid against its schema", () => {
  const c = new ResultCollector();
  c.startPass();
  for (const e of scenario(1, [])) c.onMessage(e);
  recordLeftOnTarget(["left: provider 3 (0x…) asked to unstake"]);
  const json = resultJson({ ...info, leftOnTarget: leftOnTarget() }, c);
  expect(json.leftOnTarget).toEqual(["left: provider 3 (0x…) asked to unstake"]);
  const validate = new Ajv({ allErrors: true }).compile(schema);
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  expect(resultJson(info, c).leftOnTarget).toEqual([]);
});
