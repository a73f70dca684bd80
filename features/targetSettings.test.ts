/**
 * The conformance suite leaves a target's settings as it found them: a run against a devnet whose bidder
 * auto-deposits stops it for the run and starts it again at the end (saying so); builder modes changed by scenarios
 * are put back and provider nodes they stopped started; an attached provider application that left is reported.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { spawn } from "bun";
import { parseEther } from "viem";
import { type LocalDevnet, startLocalDevnet } from "../node/devnet/localDevnet.ts";
import { call } from "./support/clients/http.ts";
import { HttpProviderApi } from "./support/clients/httpApi.ts";
import { acceptAll, ProviderApplication } from "./support/clients/providerApp.ts";
import { ScenarioScope } from "./support/clients/scope.ts";
import { loadTargetFile } from "./support/target.ts";
import { readTargetSettings, restoreTargetSettings } from "./support/targetSettings.ts";

const ROOT = resolve(import.meta.dir, "..");
let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet(
    { autodepositAmount: parseEther("2"), autoAccept: false },
    "reports/target-settings-devnet.log",
  );
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

async function autoDepositOn(): Promise<boolean> {
  const r = await call("GET", `${local.devnet.bidder.url}/v1/bidder/auto_deposit_status`);
  return (r.json as { isAutodepositEnabled: boolean }).isAutodepositEnabled;
}

test("a run against a bidder that auto-deposits stops it for the run and starts it again at the end", async () => {
  expect(await autoDepositOn()).toBe(true);
  const p = spawn(
    [
      "bun",
      "features/cli/conformance.ts",
      "--target",
      local.devnet.dir.targetFile,
      "--reports",
      `${local.devnet.dir.root}/reports`,
      "--name",
      "get_deposit of a window without a deposit answers 0",
      "features/deposits.feature",
    ],
    { cwd: ROOT, env: { ...process.env, TARGET: "" }, stdout: "pipe", stderr: "pipe" },
  );
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(code, out + err).toBe(0);
  expect(out).toContain(
    "the bidder's auto-deposit was on: stopped for the run, started again at its end (2000000000000000000 wei per window)",
  );
  expect(out).toContain("restored: the bidder's auto-deposit (on, 2000000000000000000 wei per window)");
  expect(await autoDepositOn()).toBe(true);
  expect(local.devnet.bidder.windowDeposits.auto.amountPerWindow).toBe(parseEther("2"));
}, 120_000);

test("builder modes are put back, a stopped provider node is started; an application that left is reported", async () => {
  const target = loadTargetFile(local.devnet.dir.targetFile);
  const provider = target.providerAddresses[0]!;
  const builder = (mode: string, every?: number) =>
    call("POST", `${target.controlUrl}/sim/v1/builder`, { body: { provider, mode, ...(every ? { every } : {}) } });
  expect((await builder("omit", 2)).status).toBe(200);
  const agent = new ProviderApplication(
    "provider-0",
    new HttpProviderApi(local.devnet.providers[0]!.url, new ScenarioScope()),
    acceptAll(),
  );
  await agent.start();
  try {
    const before = await readTargetSettings(target);
    expect(before.receivers?.find((r) => r.name === "provider-0")?.receivers).toBe(1);
    expect((await builder("honest")).status).toBe(200);
    await agent.stop();
    expect((await call("POST", `${target.controlUrl}/sim/v1/providers/1/stop`)).status).toBe(200);
    const lines = await restoreTargetSettings(target, before);
    expect(lines).toContain("restored: provider-1 runs again (the run left it stopped)");
    expect(local.devnet.providers[1]!.listening).toBe(true);
    expect(lines).toContain(`restored: provider ${provider}'s builder mode (omit every 2; the run left honest)`);
    expect(
      lines.some((l) => l.startsWith("left changed: provider-0 had 1 provider application(s) attached, now 0")),
    ).toBe(true);
    const after = await readTargetSettings(target);
    expect(after.builders?.find((b) => b.provider === provider)).toEqual({ provider, mode: "omit", every: 2 });
  } finally {
    await agent.stop();
    await builder("honest");
  }
});
