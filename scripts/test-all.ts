#!/usr/bin/env bun
import { readFileSync } from "node:fs";
import Ajv from "ajv";
/**
 * `npm test`: the lint (`npm run lint`: Biome's format, lint and import order), the unit and contract tests (bun
 * test), then the conformance suite (features/cli/conformance.ts: cucumber, the level summary and the JSON result)
 * against a devnet the suite starts itself (or TARGET=file), then a check of that JSON result against
 * docs/conformance-result.schema.json, the whole suite again over gRPC (--transport grpc, reports under reports/grpc;
 * HTTP-only scenarios are reported skipped), the suite once more on a protocol v1.2 devnet
 * of its own over HTTP (--protocol v1.2, reports under reports/v1.2, its JSON result checked too), the fuzz run, the k6 smoke load run (loadtest/run.ts: bidders and
 * providers in k6), the load gate (loadtest/run.ts --profile gate: 1, 8 and 32 bids in flight) and the mutation smoke (scripts/mutate.ts --smoke: three chosen mutants the suite must kill). Prints one closing line with the counts of all: `tests: N passed, N failed, N skipped`.
 */
import { spawn } from "bun";

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

async function runStep(
  name: string,
  cmd: string[],
  parse: (out: string) => Counts | undefined,
): Promise<{ code: number; counts?: Counts; seconds: number }> {
  console.log(`\n=== ${name}: ${cmd.join(" ")}\n`);
  const started = performance.now();
  const proc = spawn(cmd, { stdout: "pipe", stderr: "pipe", env: { ...process.env, FORCE_COLOR: "0" } });
  let out = "";
  const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const dec = new TextDecoder();
    for await (const chunk of stream) {
      const s = dec.decode(chunk, { stream: true });
      out += s;
      sink.write(s);
    }
  };
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  const code = await proc.exited;
  return { code, counts: parse(out), seconds: (performance.now() - started) / 1000 };
}

function parseBunTest(out: string): Counts | undefined {
  const pass = /^\s*(\d+) pass$/m.exec(out);
  const fail = /^\s*(\d+) fail$/m.exec(out);
  if (!pass && !fail) return undefined;
  const skip = /^\s*(\d+) skip$/m.exec(out);
  const todo = /^\s*(\d+) todo$/m.exec(out);
  return {
    passed: Number(pass?.[1] ?? 0),
    failed: Number(fail?.[1] ?? 0),
    skipped: Number(skip?.[1] ?? 0) + Number(todo?.[1] ?? 0),
  };
}

/** The conformance command's closing line: `conformance: N passed, N failed, N skipped, N not run`. */
function parseConformance(out: string): Counts | undefined {
  const m = /^conformance: (\d+) passed, (\d+) failed, (\d+) skipped, (\d+) not run$/m.exec(out);
  if (!m) return undefined;
  return { passed: Number(m[1]), failed: Number(m[2]) + Number(m[4]), skipped: Number(m[3]) };
}

/** loadtest/run.ts's `checks  N passed, N failed` line: the smoke run is one test, passed when every check held. */
function parseLoad(out: string): Counts | undefined {
  const m = /^\s*checks\s+(\d+) passed, (\d+) failed$/m.exec(out);
  if (!m) return undefined;
  const failed = Number(m[2]) > 0 || Number(m[1]) === 0;
  return { passed: failed ? 0 : 1, failed: failed ? 1 : 0, skipped: 0 };
}

/** loadtest/run.ts --profile gate's closing line: `load gate: level reached … ; N passed, N failed` (one per level). */
function parseLoadGate(out: string): Counts | undefined {
  const m = /^load gate: level reached .*; (\d+) passed, (\d+) failed$/m.exec(out);
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: 0 } : undefined;
}

const RESULT = "reports/conformance-result.json";
const RESULT_V12 = "reports/v1.2/conformance-result.json";

/** A run's JSON result, checked against its schema (one test). */
function checkResult(path = RESULT): { code: number; counts: Counts } {
  console.log(`\n=== conformance result: ${path} against docs/conformance-result.schema.json\n`);
  try {
    const validate = new Ajv({ allErrors: true }).compile(
      JSON.parse(readFileSync("docs/conformance-result.schema.json", "utf8")),
    );
    const result = JSON.parse(readFileSync(path, "utf8")) as { scenarios: unknown[] };
    if (!validate(result)) throw new Error(JSON.stringify(validate.errors, null, 2));
    console.log(`valid (${result.scenarios.length} scenarios)`);
    return { code: 0, counts: { passed: 1, failed: 0, skipped: 0 } };
  } catch (e) {
    console.log(`invalid: ${(e as Error).message}`);
    return { code: 1, counts: { passed: 0, failed: 1, skipped: 0 } };
  }
}

/** `mutate smoke: N killed, N not killed` from scripts/mutate.ts --smoke: each mutant one test, passed when killed. */
function parseMutateSmoke(out: string): Counts | undefined {
  const m = /^mutate smoke: (\d+) killed, (\d+) not killed$/m.exec(out);
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: 0 } : undefined;
}

/** `fuzz: N passed, N failed` from scripts/fuzz.ts. */
function parseFuzz(out: string): Counts | undefined {
  const m = /^fuzz: (\d+) passed, (\d+) failed$/m.exec(out);
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: 0 } : undefined;
}

const only = process.argv[2];
const startedAll = performance.now();
const results: { name: string; code: number; counts?: Counts; seconds?: number }[] = [];
// Biome's formatting, lint rules and import order (biome.jsonc): one test, passed when `npm run lint` exits 0.
if (!only || only === "lint") {
  const lint = await runStep("lint (biome check)", ["npm", "run", "--silent", "lint"], () => undefined);
  results.push({
    name: "lint",
    code: lint.code,
    seconds: lint.seconds,
    counts: { passed: lint.code === 0 ? 1 : 0, failed: lint.code === 0 ? 0 : 1, skipped: 0 },
  });
}
// The simulation report test opens its page in Debian's chromium; the script installs it when missing.
if (!only || only === "unit") {
  const install = Bun.spawnSync(["bash", "scripts/install-chromium.sh"], { stdout: "inherit", stderr: "inherit" });
  if (install.exitCode !== 0) console.log("chromium could not be installed: the simulation report test will fail");
  // The network-fault scenario (features/faults.test.ts) sets its partition with nft; the script installs it when missing.
  const netfilter = Bun.spawnSync(["bash", "scripts/install-netfilter.sh"], { stdout: "inherit", stderr: "inherit" });
  if (netfilter.exitCode !== 0) console.log("nft could not be installed: the network-fault scenario test is skipped");
}
// `npm run test:unit`: two test files at a time (bun test --parallel=2, each file in a fresh global), as many as CI's
// cores; most of a devnet test's time is spent waiting on its chains and processes, which the other file's CPU fills.
// The slowest files start first (scripts/test-timings.json), so that none of them is left to run alone at the end.
if (!only || only === "unit")
  results.push({
    name: "unit and contract tests",
    ...(await runStep("unit and contract tests", ["npm", "run", "--silent", "test:unit"], parseBunTest)),
  });
if (!only || only === "features") {
  results.push({
    name: "conformance features",
    ...(await runStep("conformance features", ["bun", "features/cli/conformance.ts"], parseConformance)),
  });
  results.push({ name: "conformance result", ...checkResult() });
  // The whole suite again over gRPC (upstream's services on the nodes' RPC ports): every bid, deposit, query,
  // subscription and provider decision of every feature goes over gRPC; HTTP-only scenarios are reported skipped.
  results.push({
    name: "conformance features over gRPC",
    ...(await runStep(
      "conformance features over gRPC",
      ["bun", "features/cli/conformance.ts", "--transport", "grpc", "--reports", "reports/grpc"],
      parseConformance,
    )),
  });
  // Protocol v1.2 (upstream's v1.2.x line) on a devnet of its own, over HTTP to stay within CI's time: the shared
  // scenarios and the @v1.2 ones; the @v1.1 ones are reported skipped.
  results.push({
    name: "conformance features, protocol v1.2",
    ...(await runStep(
      "conformance features, protocol v1.2",
      ["bun", "features/cli/conformance.ts", "--protocol", "v1.2", "--reports", "reports/v1.2"],
      parseConformance,
    )),
  });
  results.push({ name: "conformance result, protocol v1.2", ...checkResult(RESULT_V12) });
}
// OpenAPI fuzzing with a small budget (`npm run fuzz -- --examples 500` is the long run).
if (!only || only === "fuzz")
  results.push({
    name: "fuzz",
    ...(await runStep(
      "fuzz (schemathesis, 5 cases per operation)",
      ["bun", "scripts/fuzz.ts", "--examples", "5", "--workers", "1"],
      parseFuzz,
    )),
  });
// k6 plays bidders and providers against a devnet of its own (loadtest/run.ts builds k6 into loadtest/.bin once).
if (!only || only === "load")
  results.push({
    name: "load smoke",
    ...(await runStep(
      "load smoke (k6: bidder and provider VUs over gRPC)",
      ["bun", "loadtest/run.ts", "--profile", "smoke"],
      parseLoad,
    )),
  });
// The load gate at its default size (128 bids at each of 1, 8 and 32 in flight): every bid fully committed and
// verified at each level; its result (reports/load-gate-result.json) is checked against its schema by the run.
if (!only || only === "load")
  results.push({
    name: "load gate",
    ...(await runStep(
      "load gate (k6: 1, 8, 32 bids in flight, every commitment verified)",
      ["bun", "loadtest/run.ts", "--profile", "gate"],
      parseLoadGate,
    )),
  });
// Mutation testing of the suite itself, in small: three chosen mutants of the node that the suite must kill
// (`npm run mutate -- <folder>` is the long run).
if (!only || only === "mutate")
  results.push({
    name: "mutation smoke",
    ...(await runStep(
      "mutation smoke (StrykerJS: 3 mutants of node/query/pageRequest.ts against @queries)",
      ["bun", "scripts/mutate.ts", "--smoke"],
      parseMutateSmoke,
    )),
  });

const total: Counts = { passed: 0, failed: 0, skipped: 0 };
let ok = true;
console.log("\n=== summary");
for (const r of results) {
  const c = r.counts;
  if (!c) {
    console.log(`${r.name}: no test counts found (exit ${r.code})`);
    ok = false;
    total.failed++;
    continue;
  }
  const took = r.seconds === undefined ? "" : `, ${r.seconds.toFixed(0)} s`;
  console.log(`${r.name}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (exit ${r.code}${took})`);
  total.passed += c.passed;
  total.failed += c.failed;
  total.skipped += c.skipped;
  if (r.code !== 0 || c.failed > 0) ok = false;
}
if (total.passed === 0) ok = false;
console.log(`time: ${((performance.now() - startedAll) / 1000).toFixed(0)} s`);
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(ok ? 0 : 1);
