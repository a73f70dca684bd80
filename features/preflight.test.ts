/**
 * The preflight against a real devnet started as `npm run node` starts it by default (built-in accept-all provider
 * applications, no past settlement states): it detaches the built-in applications for the run and attaches them
 * again at the end, skips the settlement checks with the flag to pass, and stops on what cannot work at all (another
 * application attached, a target file naming other chains or contracts) with one message that says what to change.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawn } from "bun";
import { type LocalDevnet, startLocalDevnet } from "../node/devnet/localDevnet.ts";
import { call } from "./support/clients/http.ts";
import { HttpProviderApi } from "./support/clients/httpApi.ts";
import { acceptAll, ProviderApplication } from "./support/clients/providerApp.ts";
import { ScenarioScope } from "./support/clients/scope.ts";
import { runPreflight, undoPreflight } from "./support/preflight.ts";
import { loadTargetFile, parseTarget, type Target } from "./support/target.ts";

const ROOT = resolve(import.meta.dir, "..");
let local: LocalDevnet;
let target: Target;

beforeAll(async () => {
  local = await startLocalDevnet(
    { autoAccept: true, settlementHistory: 0, l1BlockTime: 2 },
    "reports/preflight-devnet.log",
  );
  target = loadTargetFile(local.devnet.dir.targetFile);
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

async function receivers(): Promise<number[]> {
  const r = await call("GET", `${target.controlUrl}/sim/v1/status`);
  const nodes = (r.json as { nodes: { role: string; receivers?: number }[] }).nodes;
  return nodes.filter((n) => n.role === "provider").map((n) => n.receivers ?? 0);
}

async function l1BlockTime(): Promise<number> {
  const r = await call("GET", `${target.controlUrl}/sim/v1/status`);
  return (r.json as { l1: { blockTime: number } }).l1.blockTime;
}

async function until(what: () => Promise<boolean>, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !(await what()); await Bun.sleep(100))
    if (Date.now() > end) throw new Error("timed out");
}

test("the built-in applications are detached and the L1's own blocks paused for the run, and put back at its end; no past states skip the settlement checks", async () => {
  expect(await receivers()).toEqual([1, 1]);
  expect(await l1BlockTime()).toBe(2);
  const p = await runPreflight(target);
  expect(p.stop).toBeUndefined();
  expect(await receivers()).toEqual([0, 0]);
  expect(await l1BlockTime()).toBe(0);
  expect(p.checks.find((c) => c.check === "L1 mining")?.outcome).toBe("arranged");
  expect(p.checks.find((c) => c.check === "provider applications")?.outcome).toBe("arranged");
  expect(p.unmet["past-states"]).toContain("start the devnet with --settlement-history 64");
  expect(p.checks.filter((c) => c.outcome === "ok").map((c) => c.check)).toEqual([
    "nodes answer",
    "L1 chain id",
    "settlement chain id",
    "contracts",
    "sim-control",
    "sim-nodes",
    "beacon",
    "grpc",
    "openapi",
  ]);
  expect(await undoPreflight(p)).toEqual([
    "restored: the devnet's built-in provider applications (2): detached for the run, attached again at its end",
    "restored: the devnet's own L1 blocks (one every 2 s): paused for the run, paced again at its end",
  ]);
  expect(await l1BlockTime()).toBe(2);
  await until(async () => (await receivers()).every((n) => n === 1));
}, 60_000);

test("another application attached to a provider stops the run with one message that says what to change", async () => {
  const app = new ProviderApplication(
    "provider-0",
    new HttpProviderApi(target.providerUrls[0]!, new ScenarioScope()),
    acceptAll(),
  );
  await app.start();
  try {
    await until(async () => (await receivers())[0] === 2);
    const p = await runPreflight(target);
    expect(p.stop).toBe(
      "the providers have applications attached (provider-0: 1): start the devnet with --no-auto-accept, or detach them",
    );
    await undoPreflight(p);
  } finally {
    await app.stop();
  }
  await until(async () => (await receivers()).every((n) => n === 1));
}, 60_000);

test("a target file naming another chain or contracts without code stops; a claimed capability that does not answer skips", async () => {
  const wrong = parseTarget(
    {
      ...target,
      settlementChainId: 1,
      contracts: { ...target.contracts, oracle: "0x000000000000000000000000000000000000dEaD" },
      controlUrl: "http://127.0.0.1:9",
    },
    "a wrong target",
  );
  const p = await runPreflight(wrong);
  expect(p.stop).toContain(
    `the settlement chain at ${target.settlementRpcUrl} is chain 17864, not the target file's 1`,
  );
  expect(p.stop).toContain("no contract code at oracle 0x000000000000000000000000000000000000dEaD");
  expect(p.unusable["sim-control"]).toContain("the target claims sim-control but its control API");
  expect(p.unusable["sim-kill"]).toBe(p.unusable["sim-control"]);
  expect(await receivers()).toEqual([1, 1]); // nothing arranged without a control API to ask
}, 60_000);

test("the CLI stops before the first scenario with one line, and the result records the preflight", async () => {
  const dir = join(local.devnet.dir.root, "stop-run");
  const file = join(local.devnet.dir.root, "wrong-target.json");
  writeFileSync(file, JSON.stringify({ ...target, l1ChainId: 5 }));
  const p = spawn(["bun", "features/cli/conformance.ts", "--target", file, "--reports", dir, "--tags", "@bids"], {
    cwd: ROOT,
    env: { ...process.env, TARGET: "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(code, out + err).toBe(1);
  expect(err.trim().split("\n")).toEqual([
    `error: the target cannot be tested as it is: the L1 chain at ${target.l1RpcUrl} is chain 31337, not the target file's 5: fix the target file`,
  ]);
  expect(out).toContain("restored: the devnet's built-in provider applications (2)");
  const result = JSON.parse(readFileSync(join(dir, "conformance-result.json"), "utf8"));
  expect(result.success).toBe(false);
  expect(result.scenarios).toEqual([]);
  expect(result.preflight.stopped).toContain("is chain 31337, not the target file's 5");
  expect(result.preflight.skipped["past-states"]).toContain("--settlement-history 64");
  await until(async () => (await receivers()).every((n) => n === 1));
}, 120_000);
