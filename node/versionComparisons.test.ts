/**
 * A ratchet on protocol-version string comparisons (`x === "v1.2"`, `"v1.1" !== y`, `case "v1.1":`) in the
 * project's non-test TypeScript. Code should ask the version's facts (node/protocol/protocolVersion.ts) rather than
 * compare its name; docs/protocol-versions.md lists every point where the versions differ and what a rules object
 * would carry for it. The files that compare names today are allowed with today's counts: a file not on the list
 * may not start comparing, a listed file may not compare more, and when a count falls the list must be lowered with
 * it, so the counts only go down.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SOURCE_DIRS = ["lib", "node", "features", "scenarios", "scripts", "loadtest"];
const DOC = "docs/protocol-versions.md";

/**
 * The files that compare version names today, with how many comparisons each has (`git grep -cE
 * "(===|!==)\s*[\"']v1\.[12][\"']" -- '*.ts' ':!*.test.ts'` counts the same). Lower a count when a comparison goes;
 * remove a file when its last one goes. Never raise one: ask the version's facts instead.
 */
const ALLOWED_VERSION_COMPARISONS: Readonly<Record<string, number>> = {
  "node/chain/protocolContracts.ts": 2,
  "node/devnet/banner.ts": 1,
  "node/devnet/chains.ts": 1,
  "node/devnet/config.ts": 2,
  "node/devnet/startDevnet.ts": 4,
  "node/role/roleConfig.ts": 2,
};

const VERSION = String.raw`["'\x60]v\d+\.\d+["'\x60]`;
/** `=== "v1.2"`, `!= 'v1.1'`, `"v1.2" === x`, `case "v1.1":` (any vN.M, any quote). */
const COMPARISON = new RegExp(String.raw`[!=]==?\s*${VERSION}|${VERSION}\s*[!=]==?|\bcase\s+${VERSION}\s*:`, "g");

interface Comparison {
  /** Repository-relative path. */
  file: string;
  /** 1-based. */
  line: number;
  text: string;
}

/** Every version-name comparison in `text`, one entry per comparison (a line may hold two). */
function versionComparisons(file: string, text: string): Comparison[] {
  return text
    .split("\n")
    .flatMap((line, i) => [...line.matchAll(COMPARISON)].map(() => ({ file, line: i + 1, text: line.trim() })));
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const scanned = SOURCE_DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => sourceFiles(join(ROOT, d)));
const found = scanned.flatMap((f) => versionComparisons(relative(ROOT, f), readFileSync(f, "utf8")));
const byFile = new Map<string, Comparison[]>();
for (const c of found) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
const where = (cs: readonly Comparison[]) => cs.map((c) => `  ${c.file}:${c.line}: ${c.text}`).join("\n");

describe("the matcher of version-name comparisons", () => {
  test("finds each form, one per comparison", () => {
    const text = [
      'if (cfg.protocol === "v1.2") x();',
      "const w = version !== 'v1.1';",
      'const y = "v1.2" === p ? 1 : 2;',
      "switch (v) { case `v1.1`: break; }",
      'a === "v1.1" || b !== "v1.3"',
      'if (p == "v2.0") z();',
    ].join("\n");
    expect(versionComparisons("x.ts", text).map((c) => c.line)).toEqual([1, 2, 3, 4, 5, 5, 6]);
  });

  test("leaves version names that are not compared alone", () => {
    const text = [
      'const ABIS = { "v1.1": a, "v1.2": b };',
      'export const PROTOCOL_VERSIONS = ["v1.1", "v1.2"] as const;',
      'const protocol = o.protocol ?? "v1.1";',
      "// v1.2 has no windows",
      'const api = "1.1.6-oas3";',
    ].join("\n");
    expect(versionComparisons("x.ts", text)).toEqual([]);
  });
});

describe(`version-name comparisons only go down (${DOC})`, () => {
  test("the scan sees the tree and today's comparisons", () => {
    // Guards the checks below against a scan that finds nothing (they would pass vacuously).
    const files = scanned.map((f) => relative(ROOT, f));
    for (const f of ["node/tracker/tracker.ts", "features/support/target.ts", "scenarios/sim/runScenario.ts"])
      expect(files).toContain(f);
    expect(found.length).toBeGreaterThan(0);
  });

  test("no file outside the allow-list compares version names", () => {
    const outside = found.filter((c) => !(c.file in ALLOWED_VERSION_COMPARISONS));
    if (outside.length)
      throw new Error(
        `a version-name comparison in a file that had none:\n${where(outside)}\n` +
          `ask the version's facts instead (node/protocol/protocolVersion.ts, features/support/protocolRules.ts); ` +
          `${DOC} lists every point where the versions differ and the rules field proposed for it`,
      );
  });

  test("no listed file compares version names more often than the allow-list says", () => {
    const grown = Object.entries(ALLOWED_VERSION_COMPARISONS).flatMap(([file, allowed]) => {
      const cs = byFile.get(file) ?? [];
      return cs.length > allowed ? [`${file}: ${cs.length} comparisons, ${allowed} allowed:\n${where(cs)}`] : [];
    });
    if (grown.length)
      throw new Error(
        `more version-name comparisons than allowed:\n${grown.join("\n")}\n` +
          `ask the version's facts instead of adding one; ${DOC} lists the differences and their proposed rules fields`,
      );
  });

  test("the allow-list is as low as the tree: a count that fell is lowered in it", () => {
    const fell = Object.entries(ALLOWED_VERSION_COMPARISONS).flatMap(([file, allowed]) => {
      const n = byFile.get(file)?.length ?? 0;
      return n < allowed ? [`${file}: ${n} now, ${allowed} allowed`] : [];
    });
    if (fell.length)
      throw new Error(
        `fewer version-name comparisons than the allow-list says (good): lower these in ALLOWED_VERSION_COMPARISONS ` +
          `of node/versionComparisons.test.ts (remove a file at 0):\n${fell.join("\n")}`,
      );
  });
});
