/**
 * The reference node's layering, checked on every file's imports (type-only imports count too):
 * - node/ imports nothing from scenarios/ or features/: what the node needs (its built-in provider application in
 *   node/providerApp/, its HTTP and NDJSON clients in node/clients/) lives in node/, and the scenarios use it there;
 * - node/network does not import node/devnet (the devnet is built from the network, not the other way round);
 * - node/protocol (tests and benchmarks aside) does no I/O: no Node or Bun built-in module, and nothing of node/
 *   outside node/protocol but the pure helpers listed in PROTOCOL_MAY_USE;
 * - no two modules of node/ import each other;
 * - no import runs back up the layers of LAYERS (but a short list, which may only shrink): the composition roots in
 *   node/nodes/ sit above the services and transports they wire, and role code never imports them;
 * - features/ imports nothing of node/ but the devnet launcher (node/devnet/);
 * - code both deposit models share (oracle, explorer, tracker) asks the deposit model, never the window module; each
 *   role's two deposit models never import each other; BLOCKS_PER_WINDOW is defined once in node/, once in features/;
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

/**
 * The node's layers, bottom to top. A module may import its own layer and the layers below it; an import of a higher
 * layer runs back up the layers. Tests, benchmarks and node/testing/ are not counted.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["lib", "node/gen", "package.json"],
  ["node/util", "node/protocol"],
  ["node/chain", "node/crypto", "node/store"],
  // the network between nodes: the Network interface and its libp2p, in-process and MessagePort implementations
  ["node/network", "node/p2p"],
  // shared code the roles and the devnet build on
  ["node/tracker", "node/notify", "node/query", "node/validators", "node/l1", "node/oracle"],
  // role code
  ["node/bidder", "node/provider"],
  ["node/services"],
  // transports
  ["node/api", "node/grpc"],
  ["node/server"],
  // composition roots
  ["node/nodes"],
  // the devnet's parts and the clients of the API
  ["node/clients", "node/providerApp", "node/control", "node/explorer", "node/faults"],
  // the devnet and --role
  ["node/devnet", "node/role"],
  ["node/main.ts"],
];

function layerOf(path: string): number {
  const layer = LAYERS.findIndex((folders) => folders.some((f) => path === f || under(path, f)));
  if (layer < 0) throw new Error(`${path} is in no layer of LAYERS`);
  return layer;
}

/**
 * The imports that run back up the layers today, each with its reason; the list may only shrink.
 * - node/control/simApi.ts parses /sim/v1's kill and fault requests with the node operations that the devnet and
 *   --role's admin API both apply (node/devnet/nodeOps.ts);
 * - node/faults/netFaults.ts (a type only) shapes traffic between the network namespaces --role's hosts run in.
 */
const UPWARD_IMPORTS_ALLOWED = [
  "node/control/simApi.ts -> node/devnet/nodeOps.ts",
  "node/faults/netFaults.ts -> node/role/netnsHosts.ts",
];

/** Role code, services and transports: what the composition roots wire. */
const BELOW_THE_ROOTS = [
  "node/bidder",
  "node/provider",
  "node/services",
  "node/api",
  "node/grpc",
  "node/p2p",
  "node/server",
];

/** Code both deposit models share, which asks the deposit model (node/protocol/depositModels.ts) about windows. */
const SHARED_CODE = ["node/oracle", "node/explorer", "node/tracker"];
/** The window module, and the index that re-exports it. */
const WINDOW_MODULES = ["node/protocol/windows.ts", "node/protocol/index.ts"];

/** Imports in production modules of node/ that name a module of a higher layer. */
function upwardImports(): string[] {
  const counted = inNode.filter((m) => !isTestOrBench(m.path) && !under(m.path, "node/testing"));
  return counted.flatMap((m) => m.imports.filter((t) => layerOf(t) > layerOf(m.path)).map((t) => `${m.path} -> ${t}`));
}

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

  test("no import runs back up the layers but the listed ones, and the list only shrinks", () => {
    expect(upwardImports().sort()).toEqual(UPWARD_IMPORTS_ALLOWED);
  });

  test("role code, services and transports never import the composition roots (node/nodes/)", () => {
    const below = inNode.filter((m) => BELOW_THE_ROOTS.some((dir) => under(m.path, dir)) && !isTestOrBench(m.path));
    expect(below.length).toBeGreaterThan(50);
    expect(edges(below, (t) => under(t, "node/nodes"))).toEqual([]);
  });

  test("shared code (oracle, explorer, tracker) asks the deposit model, never the window module", () => {
    const shared = inNode.filter((m) => SHARED_CODE.some((dir) => under(m.path, dir)) && !isTestOrBench(m.path));
    expect(shared.length).toBeGreaterThan(10);
    expect(edges(shared, (t) => WINDOW_MODULES.includes(t))).toEqual([]);
  });

  test("the two deposit models of each role are siblings: neither imports the other", () => {
    const pairs: [string, string][] = [
      ["node/bidder/deposits/window", "node/bidder/deposits/perProvider"],
      ["node/provider/bids/windowBalanceCheck.ts", "node/provider/bids/perProviderBalanceCheck.ts"],
    ];
    const inside = (path: string, place: string) => path === place || under(path, place);
    const crossing = pairs.flatMap(([a, b]) => [
      ...edges(
        inNode.filter((m) => inside(m.path, a)),
        (t) => inside(t, b),
      ),
      ...edges(
        inNode.filter((m) => inside(m.path, b)),
        (t) => inside(t, a),
      ),
    ]);
    expect(crossing).toEqual([]);
  });

  test("BLOCKS_PER_WINDOW is defined once in node/ and once in features/", () => {
    const definitions = modules
      .filter((m) => /\bBLOCKS_PER_WINDOW\s*=/.test(readFileSync(join(ROOT, m.path), "utf8")))
      .map((m) => m.path);
    expect(definitions.sort()).toEqual(["features/support/protocol.ts", "node/protocol/windows.ts"]);
  });

  test("features/ imports nothing of node/ but the devnet launcher (node/devnet/)", () => {
    const features = modules.filter((m) => under(m.path, "features"));
    expect(features.length).toBeGreaterThan(50);
    expect(edges(features, (t) => under(t, "node") && !under(t, "node/devnet"))).toEqual([]);
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
