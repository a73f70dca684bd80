/**
 * The conformance command: its options, and two real runs whose JSON results are validated against
 * docs/conformance-result.schema.json: one against a reference devnet (passes), one against a target that is not
 * there (one line says so, every scenario "not run", exit status 1).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv from "ajv";
import { parseCli, passTags, UsageError } from "./conformance.ts";

const ROOT = join(import.meta.dir, "..", "..");
const schema = JSON.parse(readFileSync(join(ROOT, "docs", "conformance-result.schema.json"), "utf8"));
const validate = new Ajv({ allErrors: true }).compile(schema);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

// Every temporary folder this file makes, removed when it ends (they held reports and target files only).
const tempDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

// The suite's own devnet unless a test names a target: TARGET set in the shell would be the one tested.
const { TARGET: _shellTarget, ...withoutTarget } = process.env;

async function runCli(args: string[], env: Record<string, string> = {}) {
  const dir = tempDir("conformance-cli-");
  const json = join(dir, "result.json");
  const p = Bun.spawn(
    ["bun", join(ROOT, "features", "cli", "conformance.ts"), "--reports", dir, "--json", json, ...args],
    {
      cwd: ROOT,
      env: { ...withoutTarget, ...env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  let result: unknown;
  try {
    result = JSON.parse(readFileSync(json, "utf8"));
  } catch {
    result = undefined;
  }
  return {
    code,
    out: out + err,
    stdout: out,
    err,
    result: result as {
      success: boolean;
      totals: Record<string, number>;
      scenarios: { outcome: string; failure: string | null; reason: string | null; level: string }[];
      preflight: { stopped: string | null; checks: { check: string; outcome: string; detail: string }[] } | null;
    },
    dir,
  };
}

describe("options", () => {
  test("levels, tags and the @clean-bidder, main and @may-crash passes make one tag expression each", () => {
    const o = parseCli(["--level", "spec,upstream", "--tags", "@bids"], {});
    if (o === "help") throw new Error("help");
    expect(o.levels).toEqual(["spec", "upstream"]);
    expect(passTags(o, "clean-bidder")).toBe("(@bids) and (@spec or @upstream) and @clean-bidder and not @may-crash");
    expect(passTags(o, "main")).toBe("(@bids) and (@spec or @upstream) and not @clean-bidder and not @may-crash");
    expect(passTags(o, "may-crash")).toBe("(@bids) and (@spec or @upstream) and @may-crash");
  });

  test("TARGET is the default target; --target wins", () => {
    const a = parseCli([], { TARGET: "a.json" });
    const b = parseCli(["--target", "b.json"], { TARGET: "a.json" });
    expect(a !== "help" && a.target).toBe("a.json");
    expect(b !== "help" && b.target).toBe("b.json");
  });

  test("--transport grpc (or TRANSPORT) picks the role clients' transport; http is the default", () => {
    const d = parseCli([], {});
    const e = parseCli([], { TRANSPORT: "grpc" });
    const f = parseCli(["--transport", "http"], { TRANSPORT: "grpc" });
    expect([d, e, f].map((o) => o !== "help" && o.transport)).toEqual(["http", "grpc", "http"]);
    expect(() => parseCli(["--transport", "websocket"], {})).toThrow(UsageError);
  });

  test("--protocol (or PROTOCOL) names the own devnet's version; none by default, an unknown one is refused", () => {
    const d = parseCli([], {});
    const e = parseCli([], { PROTOCOL: "v1.2" });
    const f = parseCli(["--protocol", "v1.1"], { PROTOCOL: "v1.2" });
    expect([d, e, f].map((o) => o !== "help" && o.protocol)).toEqual([undefined, "v1.2", "v1.1"]);
    expect(() => parseCli(["--protocol", "1.2"], {})).toThrow(UsageError);
  });

  test("--fail-fast stops at the first failed scenario (cucumber's failFast); off by default", () => {
    const on = parseCli(["--fail-fast"], {});
    const off = parseCli([], {});
    expect([on, off].map((o) => o !== "help" && o.failFast)).toEqual([true, false]);
  });

  test("an unknown level or option is a usage error", () => {
    expect(() => parseCli(["--level", "spec,nope"], {})).toThrow(UsageError);
    expect(() => parseCli(["--bogus"], {})).toThrow(UsageError);
    expect(() => parseCli(["--order", "shuffled"], {})).toThrow(UsageError);
  });

  test("--help", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Usage: mev-commit-conformance");
  });

  test("a target file that lacks fields exits 2 and says which", async () => {
    const dir = tempDir("conformance-target-");
    writeFileSync(join(dir, "t.json"), JSON.stringify({ bidderUrl: "http://127.0.0.1:1" }));
    const r = await runCli(["--target", join(dir, "t.json")]);
    expect(r.code).toBe(2);
    expect(r.out).toContain("lacks providerUrls");
  });
});

describe("runs", () => {
  test("against the reference devnet: the result validates and every selected scenario passed", async () => {
    const r = await runCli(["--tags", "@upstream or @spec", "features/node-shell.feature"]);
    expect(validate(r.result), JSON.stringify(validate.errors)).toBe(true);
    expect(r.code, r.out.slice(-3000)).toBe(0);
    expect(r.result.success).toBe(true);
    expect(r.result.totals.passed).toBeGreaterThan(10);
    expect(r.out).toMatch(/^conformance: \d+ passed, 0 failed, \d+ skipped, 0 not run$/m);
    // The suite's own devnet gives it everything it relies on.
    expect(r.result.preflight?.stopped).toBeNull();
    expect(r.result.preflight?.checks.filter((c) => c.outcome !== "ok")).toEqual([]);
  }, 120_000);

  test("against a target that is down from the start: one line says so, no scenario is run, exit 1", async () => {
    const { dir, target } = await deadTarget();
    writeFileSync(join(dir, "t.json"), JSON.stringify(target));
    const r = await runCli(["--target", join(dir, "t.json"), "features/node-shell.feature"]);
    expect(validate(r.result), JSON.stringify(validate.errors)).toBe(true);
    expect(r.code).toBe(1);
    expect(r.result.scenarios.filter((s) => s.outcome === "failed")).toEqual([]);
    const notRun = r.result.scenarios.filter((s) => s.outcome === "not-run");
    expect(notRun.length).toBeGreaterThan(5);
    expect(notRun.every((s) => s.reason === "the target is down")).toBe(true);
    // The console: the one line, and the count line CI tools read; no pass of cucumber's skips.
    expect(r.err.trim()).toMatch(
      /^error: the target .* does not answer: bidder \(http:\/\/127\.0\.0\.1:\d+\) refuses connections.*; is it running\?[^\n]*$/,
    );
    expect(r.stdout.trim()).toBe(`conformance: 0 passed, 0 failed, 0 skipped, ${notRun.length} not run`);
  }, 60_000);

  test("a target that is down before the first scenario is restarted first: no scenario fails for it", async () => {
    const { dir, target } = await deadTarget();
    const marker = join(dir, "restarted");
    // A restart command that cannot bring the target back: every scenario is then "not run", none failed.
    writeFileSync(join(dir, "t.json"), JSON.stringify({ ...target, restart: `echo again >> '${marker}'; exit 3` }));
    const r = await runCli(["--target", join(dir, "t.json"), "features/node-shell.feature"]);
    expect(validate(r.result), JSON.stringify(validate.errors)).toBe(true);
    expect(r.code).toBe(1);
    expect(r.result.scenarios.filter((s) => s.outcome === "failed")).toEqual([]);
    const notRun = r.result.scenarios.filter((s) => s.outcome === "not-run");
    expect(notRun.length).toBe(r.result.scenarios.length);
    expect(notRun.every((s) => s.reason === "the target is down (the restart command exited with 3)")).toBe(true);
    expect(readFileSync(marker, "utf8")).toStartWith("again\n");
  }, 60_000);
});

/** A target file whose nodes and chains are a port where nothing listens. */
async function deadTarget() {
  const dir = tempDir("conformance-target-");
  const dead = `http://127.0.0.1:${await freePort()}`;
  const target = {
    name: "nothing there",
    bidderUrl: dead,
    providerUrls: [dead, dead],
    l1RpcUrl: dead,
    l1ChainId: 31337,
    settlementRpcUrl: dead,
    settlementChainId: 17864,
    contracts: {
      blockTracker: "0x0",
      providerRegistry: "0x0",
      bidderRegistry: "0x0",
      preconfManager: "0x0",
      oracle: "0x0",
    },
    bidderAddress: "0x0000000000000000000000000000000000000001",
    providerAddresses: ["0x0000000000000000000000000000000000000002", "0x0000000000000000000000000000000000000003"],
    capabilities: [],
  };
  return { dir, target };
}
