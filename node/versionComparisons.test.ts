/**
 * Two rules on how the project's non-test TypeScript asks which protocol version it runs
 * (docs/protocol-versions.md):
 * 1. No version-name comparison (`x === "v1.2"`, `"v1.1" !== y`, `case "v1.1":`) outside the rules modules: code asks
 *    the version's rules (`rules.deposits`, node/protocol/rules.ts; the suite's features/support/protocolRules.ts),
 *    which are built once where the version is parsed and handed down.
 * 2. No defaulted version (`?? DEFAULT_PROTOCOL_VERSION`, `?? "v1.1"`, a parameter's `= DEFAULT_PROTOCOL_VERSION` or
 *    `= "v1.1"`) outside the parsers of the command line and the target file: forgetting to pass the rules must fail
 *    to compile, not silently give v1.1.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SOURCE_DIRS = ["lib", "node", "features", "scenarios", "scripts", "loadtest"];
const DOC = "docs/protocol-versions.md";

/** The rules modules: the only files that may compare version names. */
const RULES_MODULES: readonly string[] = ["node/protocol/rules.ts", "features/support/protocolRules.ts"];

/**
 * The parsers that turn an absent `--protocol`, target-file or contracts-file `"protocol"` into the default version
 * (lib/'s `parseProtocolVersion` returns it without `??`). Remove a file when its default goes.
 */
const DEFAULTING_PARSERS: readonly string[] = [
  "features/support/target.ts", // startTarget: the suite's own devnet when neither --protocol nor a target names one
  "node/devnet/contractsSetup.ts", // ensureContracts: the data dir's contracts file of a v1.1 devnet names none
  "scenarios/util/protocolChoice.ts", // chooseProtocol: --protocol of simulate, load, bid and the benchmarks
];

const VERSION = String.raw`["'\x60]v\d+\.\d+["'\x60]`;
/** `=== "v1.2"`, `!= 'v1.1'`, `"v1.2" === x`, `case "v1.1":` (any vN.M, any quote). */
const COMPARISON = new RegExp(String.raw`[!=]==?\s*${VERSION}|${VERSION}\s*[!=]==?|\bcase\s+${VERSION}\s*:`, "g");
/** `?? DEFAULT_PROTOCOL_VERSION`, `?? "v1.1"`, and a parameter's or field's `= DEFAULT_PROTOCOL_VERSION,` / `= "v1.1")`. */
const VERSION_OR_DEFAULT = String.raw`(?:DEFAULT_PROTOCOL_VERSION\b|${VERSION})`;
const DEFAULTED = new RegExp(
  String.raw`\?\?\s*${VERSION_OR_DEFAULT}|(?<![=!<>])=\s*${VERSION_OR_DEFAULT}\s*(?=[,)]|$)`,
  "gm",
);

interface Hit {
  /** Repository-relative path. */
  file: string;
  /** 1-based. */
  line: number;
  text: string;
}

/** Every match of `pattern` in `text`, one entry per match (a line may hold two). */
function hits(pattern: RegExp, file: string, text: string): Hit[] {
  return text
    .split("\n")
    .flatMap((line, i) => [...line.matchAll(pattern)].map(() => ({ file, line: i + 1, text: line.trim() })));
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
const texts = scanned.map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, "utf8") }));
const comparisons = texts.flatMap((t) => hits(COMPARISON, t.file, t.text));
const defaults = texts.flatMap((t) => hits(DEFAULTED, t.file, t.text));
const where = (hs: readonly Hit[]) => hs.map((c) => `  ${c.file}:${c.line}: ${c.text}`).join("\n");

describe("the matchers", () => {
  test("comparisons: each form, one per comparison", () => {
    const text = [
      'if (cfg.protocol === "v1.2") x();',
      "const w = version !== 'v1.1';",
      'const y = "v1.2" === p ? 1 : 2;',
      "switch (v) { case `v1.1`: break; }",
      'a === "v1.1" || b !== "v1.3"',
      'if (p == "v2.0") z();',
    ].join("\n");
    expect(hits(COMPARISON, "x.ts", text).map((c) => c.line)).toEqual([1, 2, 3, 4, 5, 5, 6]);
  });

  test("comparisons: version names that are not compared are left alone", () => {
    const text = [
      'const ABIS = { "v1.1": a, "v1.2": b };',
      'export const PROTOCOL_VERSIONS = ["v1.1", "v1.2"] as const;',
      'const protocol = o.protocol ?? "v1.1";',
      "// v1.2 has no windows",
      'const api = "1.1.6-oas3";',
    ].join("\n");
    expect(hits(COMPARISON, "x.ts", text)).toEqual([]);
  });

  test("defaults: `??` and a parameter's or field's `=`, with the constant or a name", () => {
    const text = [
      "const v = o.protocol ?? DEFAULT_PROTOCOL_VERSION;",
      'const w = o.version ?? "v1.1";',
      "function f(version: ProtocolVersion = DEFAULT_PROTOCOL_VERSION) {}",
      "  protocol: ProtocolVersion = DEFAULT_PROTOCOL_VERSION,",
      'function g(p: ProtocolVersion = "v1.1", q = 2) {}',
      "  readonly protocol: ProtocolVersion = 'v1.2'",
    ].join("\n");
    expect(hits(DEFAULTED, "x.ts", text).map((c) => c.line)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test("defaults: the constant's definition, comparisons and tables are not defaults", () => {
    const text = [
      'export const DEFAULT_PROTOCOL_VERSION: ProtocolVersion = "v1.1";',
      "if (protocol !== DEFAULT_PROTOCOL_VERSION) x();",
      'if (protocol === "v1.1") y();',
      "  rules: rulesOf(DEFAULT_PROTOCOL_VERSION),",
      'const ABIS = { "v1.1": a };',
    ].join("\n");
    expect(hits(DEFAULTED, "x.ts", text)).toEqual([]);
  });
});

describe(`the version is asked of its rules, never compared or defaulted (${DOC})`, () => {
  test("the scan sees the tree", () => {
    // Guards the checks below against a scan that finds nothing (they would pass vacuously).
    const files = texts.map((t) => t.file);
    for (const f of ["node/tracker/tracker.ts", "features/support/target.ts", ...RULES_MODULES, ...DEFAULTING_PARSERS])
      expect(files).toContain(f);
  });

  test("no version-name comparison outside the rules modules", () => {
    const outside = comparisons.filter((c) => !RULES_MODULES.includes(c.file));
    if (outside.length)
      throw new Error(
        `a version-name comparison outside the rules modules:\n${where(outside)}\n` +
          `ask the version's rules instead (node/protocol/rules.ts; the suite's features/support/protocolRules.ts), ` +
          `adding a field there if none says it; ${DOC} lists every point where the versions differ`,
      );
  });

  test("no defaulted version outside the parsers of the command line and the target file", () => {
    const outside = defaults.filter((d) => !DEFAULTING_PARSERS.includes(d.file));
    if (outside.length)
      throw new Error(
        `a defaulted protocol version outside the parsers:\n${where(outside)}\n` +
          `take the rules (or the version) as a required field: the composition root that parsed the version passes them`,
      );
  });

  test("each listed parser still defaults (a parser whose default went is taken off the list)", () => {
    const stale = DEFAULTING_PARSERS.filter((f) => !defaults.some((d) => d.file === f));
    expect(stale).toEqual([]);
  });
});
