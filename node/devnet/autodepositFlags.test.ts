/**
 * Flags win over what a data dir saved, and saved state fills only what no flag says: a devnet restarted on the
 * data dir of one that auto-deposited resumes that setting with no flag, replaces it with --autodeposit-amount, and
 * runs none with --no-autodeposit (the banner saying what runs).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
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
  expect(d.devnet.bidder.deposits.auto.amountPerWindow).toBe(parseEther("3"));

  d = await restart(false, flags());
  expect(d.devnet.bidder.deposits.auto.amountPerWindow).toBe(parseEther("3"));
  expect(banner(d.devnet)).toContain("Bidder auto-deposit: 3 ETH per window");

  d = await restart(false, flags("--autodeposit-amount", parseEther("4").toString()));
  expect(d.devnet.bidder.deposits.auto.amountPerWindow).toBe(parseEther("4"));

  d = await restart(false, flags("--no-autodeposit"));
  expect(d.devnet.bidder.deposits.auto.running).toBe(false);
  expect(banner(d.devnet)).toContain("Bidder auto-deposit: off");
}, 240_000);

test("--no-autodeposit and --autodeposit-amount together are refused", () => {
  expect(() => parseDevnetArgs(["--no-autodeposit", "--autodeposit-amount", "1"])).toThrow("contradict");
});
