import { expect, test } from "bun:test";
import { join } from "node:path";
import { CliFailure } from "../../lib/cli.ts";
import { SMOKE_SNIPPETS, smokeRanges, snippetRange } from "./smoke.ts";

test("a smoke snippet's range: 1-based line, 0-based columns (Stryker's mutate range)", () => {
  const source = "a\n  return page * limit;\n";
  expect(snippetRange("f.ts", source, "page * limit")).toBe("f.ts:2:9-2:21");
  expect(() => snippetRange("f.ts", source, "page / limit")).toThrow(CliFailure);
  expect(() => snippetRange("f.ts", "x + x", "x")).toThrow(/more than once/);
});

test("every smoke snippet is once in the smoke file", () => {
  expect(smokeRanges(join(import.meta.dir, "..", "..")).length).toBe(SMOKE_SNIPPETS.length);
});
