/**
 * The explorer on a `--protocol v1.2` devnet (real Anvils, the v1.2 contracts, in-process nodes): the chain view
 * follows the v1.2 events (NewL1Block without a window, BidderDeposited per provider) without a failed event
 * handler, the page in Chromium shows the deposits per provider, and the target explorer decodes the chain with the
 * target file's protocol.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { parseEther } from "viem";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../testing/chromium.ts";
import type { DepositRow } from "./chainView.ts";

const LOG = "reports/explorer-devnet-v12.log";
const DEPOSIT = parseEther("5");
let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet({ protocol: "v1.2", network: "in-process", autodepositAmount: DEPOSIT }, LOG);
}, 180_000);

afterAll(async () => {
  await local?.stop();
}, 60_000);

async function waitFor<T>(what: string, get: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (performance.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

/** Sends a bid through the bidder's API; returns the bid digest (0x…) and how many commitments came back. */
async function sendBid(bidderUrl: string, bid: Record<string, unknown>) {
  const lines = await (
    await NdjsonStream.open<{ receivedBidDigest: string }>("POST", `${bidderUrl}/v1/bidder/bid`, bid)
  ).all();
  const results = lines.flatMap((l) => ("result" in l ? [l.result] : []));
  return { bidDigest: results[0] && `0x${results[0].receivedBidDigest}`, commitments: results.length };
}

/** The bidder's deposit rows, through the explorer's search. */
async function depositsOf(explorerUrl: string, bidder: string): Promise<DepositRow[]> {
  const r = await call("GET", `${explorerUrl}api/search?q=${bidder}`);
  expect(r.status).toBe(200);
  return (r.json as { deposits: DepositRow[] }).deposits;
}

describe("the explorer on a v1.2 devnet", () => {
  test("a bid shows live, its block without a window; deposits per provider; no console error, no failed event handler", async () => {
    const d = local.devnet;
    const winner = d.providers[0]!.address.toLowerCase() as `0x${string}`;
    const profile = mkdtempSync(join(tmpdir(), "explorer-v12-chromium-"));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1400, height: 1000 },
    });
    const errors: string[] = [];
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("response", (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
      await page.goto(d.explorerUrl);
      await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 });

      const block = (await d.driver.blockNumber()) + 3n;
      const now = Date.now();
      const sent = await sendBid(d.bidder.url, {
        txHashes: ["ef".repeat(32)],
        amount: "1000",
        blockNumber: block.toString(),
        decayStartTimestamp: String(now),
        decayEndTimestamp: String(now + 60_000),
      });
      expect(sent.commitments).toBe(2);
      const row = `tr[data-bid="${sent.bidDigest}"]`;
      await page.waitForFunction(
        `document.querySelectorAll('${row} [data-outcome=committed]').length === 2`,
        undefined,
        { timeout: 15_000 },
      );
      const head = await d.driver.blockNumber();
      if (block - head > 1n) await d.mine(Number(block - head - 1n));
      await d.mine(1, winner);
      await d.mine(2);
      await page.waitForSelector(`tr[data-block="${block}"]`, { timeout: 30_000 });

      // One deposit row per provider, the provider's column instead of the window's, with what the devnet deposited.
      const heading = await page.textContent("#deposits h2");
      expect(heading).toBe("Deposits per provider and their use");
      expect(await page.$$eval("#blocks thead th", (ths) => ths.map((t) => t.textContent))).toEqual([
        "block",
        "winner",
        "commitments",
      ]);
      const deposits = await depositsOf(d.explorerUrl, d.bidder.address);
      const mine = deposits.filter((x) => x.bidder === d.bidder.address.toLowerCase());
      expect(mine.map((x) => x.provider).sort()).toEqual(d.providers.map((p) => p.address.toLowerCase()).sort());
      for (const x of mine) expect(x.window).toBeUndefined();
      for (const x of mine) expect(x.deposited).toBe(DEPOSIT.toString());
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
    expect(readFileSync(LOG, "utf8")).not.toContain("event handler failed");
  }, 150_000);

  test("npm run explorer -- --target: the target file's protocol decodes the v1.2 events", async () => {
    const { startTargetExplorer } = await import("./targetExplorer.ts");
    const target = local.devnet.target();
    expect(target.protocol).toBe("v1.2");
    const explorer = await startTargetExplorer(target, { host: "127.0.0.1", port: 0 });
    try {
      const deposits = await waitFor("the bidder's deposits per provider", async () => {
        const mine = await depositsOf(explorer.url, target.bidderAddress);
        return mine.length === target.providerAddresses.length ? mine : undefined;
      });
      for (const x of deposits) expect(x.deposited).toBe(DEPOSIT.toString());
    } finally {
      await explorer.stop();
    }
  }, 60_000);
});
