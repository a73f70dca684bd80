import { describe, expect, test } from "bun:test";
import { type MutationReport, mutantDiff, score, summarise, summaryText } from "./report.ts";

const SOURCE = ["export function offset(page: number, limit: number) {", "  return page * limit;", "}", ""].join("\n");

function mutant(id: string, status: string, replacement: string, line: number, from: number, to: number) {
  return {
    id,
    mutatorName: "ArithmeticOperator",
    replacement,
    status,
    location: { start: { line, column: from }, end: { line, column: to } },
  };
}

describe("mutation report", () => {
  test("a survivor's diff shows the line before and after the mutation", () => {
    expect(mutantDiff(SOURCE, mutant("1", "Survived", "page / limit", 2, 10, 22))).toBe(
      ["- 2   return page * limit;", "+ 2   return page / limit;"].join("\n"),
    );
  });

  test("a mutant across lines shows all of them", () => {
    const m = {
      ...mutant("2", "Survived", "{}", 1, 53, 0),
      location: { start: { line: 1, column: 53 }, end: { line: 3, column: 2 } },
    };
    expect(mutantDiff(SOURCE, m)).toBe(
      [
        "- 1 export function offset(page: number, limit: number) {",
        "- 2   return page * limit;",
        "- 3 }",
        "+ 1 export function offset(page: number, limit: number) {}",
      ].join("\n"),
    );
  });

  test("counts per file and the score: killed and timed out over all with a verdict", () => {
    const report: MutationReport = {
      files: {
        "b.ts": {
          source: SOURCE,
          mutants: [mutant("3", "Killed", "x", 2, 10, 22), mutant("4", "Timeout", "x", 2, 10, 22)],
        },
        "a.ts": {
          source: SOURCE,
          mutants: [
            mutant("5", "Survived", "page / limit", 2, 10, 22),
            mutant("6", "Killed", "x", 2, 10, 22),
            mutant("7", "RuntimeError", "x", 2, 10, 22),
            mutant("8", "Ignored", "x", 2, 10, 22),
          ],
        },
      },
    };
    const s = summarise(report);
    expect(s.files.map((f) => [f.file, f.killed, f.survived, f.timedOut, f.other, f.ignored])).toEqual([
      ["a.ts", 1, 1, 0, 1, 1],
      ["b.ts", 1, 0, 1, 0, 0],
    ]);
    expect(score(s.total)).toBeCloseTo(75);
    expect(s.survivors.map((v) => `${v.file} ${v.mutant.id}`)).toEqual(["a.ts 5"]);
    const text = summaryText(s);
    expect(text).toContain(
      "a.ts:2:10 ArithmeticOperator (mutant 5)\n- 2   return page * limit;\n+ 2   return page / limit;",
    );
    expect(text).toMatch(/^mutate: 2 killed, 1 survived, 1 timed out, 1 other \(1 ignored\); score 75\.0%$/m);
  });

  test("no mutant with a verdict has no score", () => {
    expect(score({ killed: 0, survived: 0, timedOut: 0 })).toBeUndefined();
  });
});
