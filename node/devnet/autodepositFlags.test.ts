/**
 * Flags win over what a data dir saved, and saved state fills only what no flag says: a devnet restarted on the
 * data dir of one that auto-deposited resumes that setting with no flag, replaces it with --autodeposit-amount, and
 * runs none with --no-autodeposit (the banner saying what runs). The same for a `--network processes` devnet, whose
 * bidder process is told `--autodeposit-keep-saved` when no flag gave the amount.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { call } from "../clients/http.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { banner } from "./banner.ts";
import { type DevnetConfig, parseDevnetArgs } from "./config.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";

const dataDir = mkdtempSync(join(tmpdir(), "mev-commit-autodeposit-flags-"));
let running: LocalDevnet | undefined;

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The auto-deposit part of what `bun run node <argv>` is told. */
function flags(...argv: string[]): Partial<DevnetConfig> {
  const c = parseDevnetArgs(argv) as DevnetConfig;
  return { autodepositAmount: c.autodepositAmount, autodepositFromFlag: c.autodepositFromFlag };
}

async function restart(fresh: boolean, o: Partial<DevnetConfig>): Promise<LocalDevnet> {
  await running?.stop();
  running = undefined;
  running = await startLocalDevnet({ dataDir, fresh, ...o }, "reports/autodeposit-flags-devnet.log");
  return running;
}

test("a restart resumes the saved auto-deposit with no flag, and --no-autodeposit or a new amount replaces it", async () => {
  let d = await restart(true, flags("--autodeposit-amount", parseEther("3").toString()));
  expect(d.devnet.bidder.windowDeposits.auto.amountPerWindow).toBe(parseEther("3"));

  d = await restart(false, flags());
  expect(d.devnet.bidder.windowDeposits.auto.amountPerWindow).toBe(parseEther("3"));
  expect(banner(d.devnet)).toContain("Bidder auto-deposit: 3 ETH per window");

  d = await restart(false, flags("--autodeposit-amount", parseEther("4").toString()));
  expect(d.devnet.bidder.windowDeposits.auto.amountPerWindow).toBe(parseEther("4"));

  d = await restart(false, flags("--no-autodeposit"));
  expect(d.devnet.bidder.windowDeposits.auto.running).toBe(false);
  expect(banner(d.devnet)).toContain("Bidder auto-deposit: off");
}, 240_000);

test("a --network processes devnet restarted with no flag resumes the bidder's saved amount too", async () => {
  const processes = { network: "processes", providers: 2, autoAccept: true } as const;
  await restart(true, { ...processes, ...flags("--autodeposit-amount", parseEther("3").toString()) });
  const d = (await restart(false, { ...processes, ...flags() })).devnet;
  type Status = { windowBalances: { windowNumber: string; depositedAmount: string }[]; isAutodepositEnabled: boolean };
  const status = async () =>
    (await call("GET", `${d.nodeEndpoints().bidder.url}/v1/bidder/auto_deposit_status`)).json as Status;
  expect((await status()).isAutodepositEnabled).toBe(true);
  // The next window's start makes the bidder deposit into the one after it, at the amount it runs with.
  const after = windowOfBlock((await d.driver.blockNumber()) + 1n) + 2n;
  await d.mine(20); // BlockTracker records them an oracle lag behind: a new window either way
  const deadline = Date.now() + 30_000;
  let deposit: string | undefined;
  while (deposit === undefined && Date.now() < deadline) {
    deposit = (await status()).windowBalances.find((w) => BigInt(w.windowNumber) === after)?.depositedAmount;
    if (deposit === undefined) await Bun.sleep(200);
  }
  expect(deposit).toBe(parseEther("3").toString());
}, 240_000);

test("--no-autodeposit and --autodeposit-amount together are refused", () => {
  expect(() => parseDevnetArgs(["--no-autodeposit", "--autodeposit-amount", "1"])).toThrow("contradict");
});
