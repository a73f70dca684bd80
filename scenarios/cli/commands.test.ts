/**
 * Every command of ours fails in one line on stderr with a non-zero exit, never a stack trace: given an unknown flag,
 * a bad value, or a target that does not answer. And `npm run load`'s header says what the profile runs.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { profileHeader } from "../../loadtest/profileHeader.ts";
import { freePorts } from "../../node/util/ports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "mev-commit-commands-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command lines of package.json's scripts (bench:* included) and `node --role`. */
const COMMANDS: Record<string, string[]> = {
  node: ["node/main.ts"],
  "node --role": ["node/main.ts", "--role", "bidder"],
  bid: ["scenarios/cli/sendBid.ts"],
  explorer: ["node/explorer/cli.ts"],
  simulate: ["scenarios/sim/cli.ts"],
  load: ["loadtest/run.ts"],
  "test:features": ["features/cli/conformance.ts"],
  fuzz: ["scripts/fuzz.ts"],
  soak: ["scripts/soak.ts"],
  "bench:bids": ["scenarios/bench/bids.bench.ts"],
  "bench:processes": ["scenarios/bench/nodeProcesses.bench.ts"],
  "bench:anvil-memory": ["scenarios/bench/anvilMemory.bench.ts"],
};

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  // A node or devnet that should have refused but starts stops once this test process is gone.
  const watch = args[0] === "node/main.ts" ? ["--parent-pid", String(process.pid)] : [];
  const p = spawn(["bun", ...args, ...watch], {
    cwd: ROOT,
    env: { ...process.env, TARGET: "", ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  return { code, stderr };
}

/** stderr's lines without log lines (a node logs that it stops); there must be exactly one. */
function errorLine(stderr: string): string {
  const lines = stderr
    .trim()
    .split("\n")
    .filter((l) => !/^\d{4}-\d\d-\d\dT[\d:.]+Z (INFO|DEBUG) /.test(l));
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

describe("an unknown flag", () => {
  for (const [name, args] of Object.entries(COMMANDS))
    test(name, async () => {
      const r = await run([...args, "--bogus"]);
      expect(r.code).toBe(2);
      expect(errorLine(r.stderr)).toMatch(/^error: unknown option --bogus.*--help/);
    });
});

describe("a mistyped flag is answered with the nearest one", () => {
  for (const [name, args] of Object.entries(COMMANDS))
    test(name, async () => {
      const r = await run([...args, "--hepl"]);
      expect(r.code).toBe(2);
      expect(errorLine(r.stderr)).toMatch(/^error: unknown option --hepl \(did you mean --help\?\); run with .*--help/);
    });
  for (const [name, args] of [
    ["bid", ["scenarios/cli/sendBid.ts", "--protcol", "v1.2"]],
    ["test:features", ["features/cli/conformance.ts", "--protcol", "v1.2"]],
    ["node", ["node/main.ts", "--protcol", "v1.2"]],
  ] as const)
    test(`${name} --protcol`, async () => {
      const r = await run([...args]);
      expect(r.code).toBe(2);
      expect(errorLine(r.stderr)).toMatch(
        /^error: unknown option --protcol \(did you mean --protocol\?\); run with .*--help/,
      );
    });
});

describe("a bad value", () => {
  const cases: [string, string[], RegExp][] = [
    ["fuzz --examples", ["scripts/fuzz.ts", "--examples", "many"], /--examples must be a whole number/],
    ["soak --minutes", ["scripts/soak.ts", "--minutes", "0"], /--minutes must be a number ≥/],
    ["load --rate", ["loadtest/run.ts", "--rate", "fast"], /--rate must be a whole number/],
    [
      "bench:processes --bids",
      ["scenarios/bench/nodeProcesses.bench.ts", "--bids", "0"],
      /--bids must be a whole number ≥ 1/,
    ],
    [
      "bench:anvil-memory --runs",
      ["scenarios/bench/anvilMemory.bench.ts", "--runs", "x"],
      /--runs must be a whole number/,
    ],
  ];
  for (const [name, args, message] of cases)
    test(name, async () => {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(errorLine(r.stderr)).toMatch(message);
    });
});

describe("a target that does not answer", () => {
  test("load with TARGET", async () => {
    const [a, b] = await freePorts(2);
    const file = join(dir, "target.json");
    writeFileSync(
      file,
      JSON.stringify({ bidderUrl: `http://127.0.0.1:${a}`, providerUrls: [`http://127.0.0.1:${b}`] }),
    );
    const r = await run(["loadtest/run.ts", "--profile", "smoke"], { TARGET: file });
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toMatch(
      new RegExp(
        `^error: cannot reach http://127\\.0\\.0\\.1:${a}/health \\(connection refused\\); is the target .* running\\?`,
      ),
    );
  });

  test("node --role bidder with a chain that is not there", async () => {
    const [settlement, http, rpc, p2p] = await freePorts(4);
    const contracts = join(dir, "contracts.json");
    const zero = `0x${"11".repeat(20)}`;
    writeFileSync(
      contracts,
      JSON.stringify({
        settlementRpcUrl: `http://127.0.0.1:${settlement}`,
        contracts: {
          blockTracker: zero,
          providerRegistry: zero,
          bidderRegistry: zero,
          preconfManager: zero,
          oracle: zero,
        },
      }),
    );
    const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    const r = await run([
      "node/main.ts",
      "--role",
      "bidder",
      "--contracts",
      contracts,
      "--key",
      key,
      "--data-dir",
      join(dir, "bidder"),
      "--http-port",
      String(http),
      "--rpc-port",
      String(rpc),
      "--p2p-port",
      String(p2p),
    ]);
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toMatch(
      new RegExp(
        `^error: the bidder node failed to start: cannot reach http://127\\.0\\.0\\.1:${settlement}/? \\(connection refused\\); is the chain running\\?`,
      ),
    );
  });
});

test("the k6 smoke header says what runs: 20 bids from 2 VUs, whatever --rate says", () => {
  const flags = { rate: "30", duration: "5s", burst: "20", subscribers: "100" };
  expect(profileHeader("smoke", flags)).toBe(
    "20 bids from 2 VUs (a fixed profile: --rate and --duration do not apply)",
  );
  expect(profileHeader("steady", flags)).toBe("rate 30/s for 5s");
  expect(profileHeader("slot-burst", flags)).toBe("20 bids at once right after each new L1 block, for 5s");
});
