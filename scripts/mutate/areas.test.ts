import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AREAS, areaOf, tagsFor } from "./areas.ts";
import { mutateGlobs, suiteCommand } from "./strykerConfig.ts";

const ROOT = join(import.meta.dir, "..", "..");

describe("areas: which scenarios run for a mutated path", () => {
  test("the longest matching area wins, by whole path segments", () => {
    expect(areaOf("node/bidder/deposits/window/registry.ts")?.tags).toBe("@deposits");
    expect(areaOf("./node/bidder/bids/")?.tags).toBe("@bids or @deposits");
    expect(areaOf("node/query")?.tags).toBe("@queries");
    expect(areaOf("node/queryX/a.ts")).toBeUndefined();
  });

  test("several paths: their tags or'ed; a path under no area means the whole suite", () => {
    expect(tagsFor(["node/query", "node/query/grouping.ts"])).toBe("@queries");
    expect(tagsFor(["node/query", "node/notify"])).toBe("(@queries) or (@notifications)");
    expect(tagsFor(["node/query", "node/chain"])).toBeUndefined();
  });

  test("every area names a path that exists and tags some feature uses", async () => {
    const features = await Array.fromAsync(new Bun.Glob("features/*.feature").scan({ cwd: ROOT }));
    const text = features.map((f) => readFileSync(join(ROOT, f), "utf8")).join("\n");
    for (const a of AREAS) {
      expect(existsSync(join(ROOT, a.path)), a.path).toBe(true);
      for (const tag of a.tags.match(/@[\w-]+/g) ?? [])
        expect(text, `${a.path}: ${tag}`).toMatch(new RegExp(`${tag}\\b`));
    }
  });

  test("mutated: the code of the paths, never tests or generated code; the suite fails fast", () => {
    expect(mutateGlobs(["node/query/", "node/notify/subscriptions.ts"])).toEqual([
      "node/query/**/*.ts",
      "node/notify/subscriptions.ts",
      "!**/*.test.ts",
      "!**/*.bench.ts",
      "!**/bench/**",
      "!node/gen/**",
      "!node/testing/**",
    ]);
    expect(suiteCommand("@queries")).toBe(
      "bun features/cli/conformance.ts --fail-fast --tags '@queries' --reports reports/mutant",
    );
    expect(suiteCommand(undefined)).toBe("bun features/cli/conformance.ts --fail-fast --reports reports/mutant");
  });
});
