/**
 * The reference node's layering, checked on every file's imports (type-only imports count too):
 * - node/ imports nothing from scenarios/ or features/: what the node needs (its built-in provider application in
 *   node/providerApp/, its HTTP and NDJSON clients in node/clients/) lives in node/, and the scenarios use it there;
 * - node/network does not import node/devnet (the devnet is built from the network, not the other way round);
 * - node/protocol (tests and benchmarks aside) does no I/O: no Node or Bun built-in module, and nothing of node/
 *   outside node/protocol but the pure helpers listed in PROTOCOL_MAY_USE;
 * - no two modules of node/ import each other;
 * - code only tests (and benchmarks) use lives in node/testing/ when tests of more than one folder share it, and no
 *   production module imports node/testing/.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SOURCE_DIRS = ["node", "scenarios", "features", "scripts", "loadtest"];
const PROTOCOL_MAY_USE = ["node/util/boundedMap.ts", "lib/errors.ts", "lib/protocolVersion.ts"];

/** Static imports and re-exports at the start of a line (`import … from "x"`, `import "x"`, `export … from "x"`), and `import("x")`. */
const STATIC_IMPORT = /^(?:import|export)(?:[\w$*{},\s]+?\sfrom)?\s*["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "gen" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

interface Module {
  /** Repository-relative path. */
  path: string;
  /** Repository-relative paths of the project's modules it imports (specifiers starting with `.`). */
  imports: string[];
  /** Specifiers of packages and built-in modules it imports. */
  packages: string[];
}

function resolveSpecifier(from: string, spec: string): string {
  const abs = resolve(dirname(join(ROOT, from)), spec);
  const found = [abs, `${abs}.ts`, join(abs, "index.ts")].find((p) => existsSync(p) && statSync(p).isFile());
  return relative(ROOT, found ?? abs);
}

function readModule(path: string): Module {
  const text = readFileSync(join(ROOT, path), "utf8");
  const specs = [...text.matchAll(STATIC_IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!);
  return {
    path,
    imports: [...new Set(specs.filter((s) => s.startsWith(".")).map((s) => resolveSpecifier(path, s)))],
    packages: [...new Set(specs.filter((s) => !s.startsWith(".")))],
  };
}

const modules = SOURCE_DIRS.filter((d) => existsSync(join(ROOT, d)))
  .flatMap((d) => sourceFiles(join(ROOT, d)))
  .map((f) => readModule(relative(ROOT, f)));
const inNode = modules.filter((m) => m.path.startsWith("node/"));
const isTestOrBench = (path: string) => /\.(test|bench)\.tsx?$/.test(path);
const under = (path: string, dir: string) => path.startsWith(`${dir}/`);
const edges = (from: Module[], to: (target: string) => boolean) =>
  from.flatMap((m) => m.imports.filter(to).map((t) => `${m.path} -> ${t}`));

describe("layering of the reference node", () => {
  test("the import scan sees the node's modules and their imports", () => {
    // Guards the checks below against a scan that finds nothing (they would all pass vacuously).
    expect(inNode.length).toBeGreaterThan(100);
    const startDevnet = inNode.find((m) => m.path === "node/devnet/startDevnet.ts");
    expect(startDevnet?.imports).toContain("node/devnet/config.ts");
    expect(startDevnet?.packages).toContain("viem");
  });

  test("node/ imports nothing from scenarios/ or features/", () => {
    expect(edges(inNode, (t) => under(t, "scenarios") || under(t, "features"))).toEqual([]);
  });

  test("node/network does not import node/devnet", () => {
    expect(
      edges(
        inNode.filter((m) => under(m.path, "node/network")),
        (t) => under(t, "node/devnet"),
      ),
    ).toEqual([]);
  });

  test("node/protocol does no I/O: no built-in modules, nothing of node/ but node/protocol and pure helpers", () => {
    const protocol = inNode.filter((m) => under(m.path, "node/protocol") && !isTestOrBench(m.path));
    const builtins = protocol.flatMap((m) =>
      m.packages
        .filter((p) => p.startsWith("node:") || p === "bun" || p.startsWith("bun:"))
        .map((p) => `${m.path} -> ${p}`),
    );
    expect(builtins).toEqual([]);
    expect(edges(protocol, (t) => !under(t, "node/protocol") && !PROTOCOL_MAY_USE.includes(t))).toEqual([]);
  });

  test("no two modules of node/ import each other", () => {
    const importsOf = new Map(inNode.map((m) => [m.path, new Set(m.imports)]));
    const circles = inNode.flatMap((m) =>
      m.imports.filter((t) => m.path < t && importsOf.get(t)?.has(m.path)).map((t) => `${m.path} <-> ${t}`),
    );
    expect(circles).toEqual([]);
  });

  test("test-only code shared by tests of several folders lives in node/testing/, which production code never imports", () => {
    const production = inNode.filter((m) => !isTestOrBench(m.path) && !under(m.path, "node/testing"));
    expect(edges(production, (t) => under(t, "node/testing"))).toEqual([]);

    const importersOf = new Map<string, string[]>();
    for (const m of modules) for (const t of m.imports) importersOf.set(t, [...(importersOf.get(t) ?? []), m.path]);
    const misplaced = production
      .map((m) => ({ path: m.path, importers: importersOf.get(m.path) ?? [] }))
      .filter(
        ({ path, importers }) =>
          importers.length > 0 && importers.every(isTestOrBench) && importers.some((i) => dirname(i) !== dirname(path)),
      )
      .map(({ path, importers }) => `${path} (only ${importers.join(", ")})`);
    expect(misplaced).toEqual([]);
  });
});
