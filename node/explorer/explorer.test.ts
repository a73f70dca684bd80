/**
 * The devnet's record of each bid's outcomes (`/sim/v1/bids`) and the explorer page, on a real devnet: bids sent
 * through the bidder's API, refusals by the real provider nodes, settlement by the oracle on the chains.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { createPublicClient, http, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../chain/accounts.ts";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../testing/chromium.ts";
import type { BidRecord } from "./bidOutcomes.ts";

let local: LocalDevnet;

beforeAll(async () => {
  local = await startLocalDevnet({}, "reports/explorer-devnet.log");
}, 120_000);

afterAll(async () => {
  await local?.stop();
}, 60_000);

const sim = (path: string) => call("GET", `${local.devnet.controlUrl}${path}`);

/** A signed L1 transaction (1 wei to itself from dev account 9) that the winning provider's builder includes. */
async function rawTransaction(): Promise<string> {
  const l1 = createPublicClient({ transport: http(local.devnet.chains.l1.rpcUrl) });
  const account = privateKeyToAccount(devAccount(9).privateKey);
  const raw = await account.signTransaction({
    chainId: local.devnet.chains.l1.chainId,
    nonce: await l1.getTransactionCount({ address: account.address, blockTag: "pending" }),
    to: account.address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
  return raw.slice(2);
}

/** Sends a bid through the bidder's API; returns the commitments' bid digest (0x…) and how many came back. */
export async function sendBid(
  bidderUrl: string,
  bid: Record<string, unknown>,
): Promise<{ bidDigest?: string; commitments: number }> {
  const lines = await (
    await NdjsonStream.open<{ receivedBidDigest: string }>("POST", `${bidderUrl}/v1/bidder/bid`, bid)
  ).all();
  const results = lines.flatMap((l) => ("result" in l ? [l.result] : []));
  return { bidDigest: results[0] && `0x${results[0].receivedBidDigest}`, commitments: results.length };
}

function timing(block: bigint, amount: bigint) {
  const now = Date.now();
  return {
    amount: amount.toString(),
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  };
}

async function waitFor<T>(what: string, get: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (performance.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

describe("/sim/v1/bids", () => {
  let committed: BidRecord;
  let block: bigint;

  test("a bid both providers commit to: each provider's outcome with its commitment", async () => {
    const d = local.devnet;
    block = (await d.driver.blockNumber()) + 3n;
    const sent = await sendBid(d.bidder.url, { rawTransactions: [await rawTransaction()], ...timing(block, 1000n) });
    expect(sent.commitments).toBe(2);
    const res = await sim(`/sim/v1/bids/${sent.bidDigest}`);
    expect(res.status).toBe(200);
    committed = res.json as BidRecord;
    expect(committed.digest).toBe(sent.bidDigest!);
    expect(committed.blockNumber).toBe(block.toString());
    expect(committed.bidder).toBe(d.bidder.address.toLowerCase());
    expect(committed.providers.map((p) => p.provider).sort()).toEqual(
      d.providers.map((p) => p.address.toLowerCase()).sort(),
    );
    for (const p of committed.providers) {
      expect(p.outcome).toBe("committed");
      expect(p.commitment!.digest).toMatch(/^0x[0-9a-f]{64}$/);
    }
    // The same bid by one of its commitments' digests.
    const byCommitment = await sim(`/sim/v1/bids/${committed.providers[0]!.commitment!.digest}`);
    expect((byCommitment.json as BidRecord).digest).toBe(committed.digest);
  }, 60_000);

  test("a bid over the bidder's allowance for the block: refused by both nodes with the reason", async () => {
    const d = local.devnet;
    // The autodeposit is 10 ETH per window, so a block's allowance is 1 ETH.
    const sent = await sendBid(d.bidder.url, { txHashes: ["ab".repeat(32)], ...timing(block, parseEther("2")) });
    expect(sent.commitments).toBe(0);
    const list = await sim(`/sim/v1/bids?outcome=refused&reason=allowance_used&limit=5`);
    expect(list.status).toBe(200);
    const refused = (list.json as { bids: BidRecord[] }).bids[0]!;
    expect(refused.amount).toBe(parseEther("2").toString());
    for (const p of refused.providers) {
      expect(p.outcome).toBe("refused");
      expect(p.reason).toBe("allowance_used");
      expect(p.message).toContain("insufficient balance");
    }
  }, 60_000);

  test("bad input and unknown bids get clear errors", async () => {
    const bad = await sim(`/sim/v1/bids/0x1234`);
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toContain("32 bytes of hex");
    const unknown = await sim(`/sim/v1/bids/0x${"00".repeat(32)}`);
    expect(unknown.status).toBe(404);
    const badFilter = await sim(`/sim/v1/bids?outcome=won`);
    expect(badFilter.status).toBe(400);
  });

  test("the winner's commitment is stored, opened and settled (payment) once its block is mined", async () => {
    const d = local.devnet;
    const winner = d.providers[0]!.address;
    const head = await d.driver.blockNumber();
    if (block - head > 1n) await d.mine(Number(block - head - 1n));
    await d.mine(1, winner);
    await d.mine(2);
    const settled = await waitFor("the commitment settled on the bid's record", async () => {
      const bid = (await sim(`/sim/v1/bids/${committed.digest}`)).json as BidRecord;
      const o = bid.providers.find((p) => p.provider === winner.toLowerCase());
      return o?.lifecycle.settled ? o : undefined;
    });
    expect(settled.lifecycle.stored).toBeDefined();
    expect(settled.lifecycle.opened!.bidAmount).toBe("1000");
    expect(BigInt(settled.lifecycle.settled!.payment)).toBeGreaterThan(0n);
  }, 90_000);
});

describe("the explorer page in Chromium", () => {
  test("a bid appears live with both providers' commitments and settles; a refused bid with its reason; search; no console error", async () => {
    const d = local.devnet;
    const profile = mkdtempSync(join(tmpdir(), "explorer-chromium-"));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1400, height: 1000 },
    });
    const errors: string[] = [];
    const foreign: string[] = [];
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("response", (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
      page.on("request", (r) => !r.url().startsWith(d.controlUrl) && foreign.push(r.url()));
      await page.goto(d.explorerUrl);
      await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 });
      // Live: the page's loading line is gone.
      expect(await page.textContent("header")).toContain("live");
      expect(await page.evaluate(`document.body.innerText.includes("Connecting")`)).toBe(false);
      // A bid sent now shows up live, without a reload: both providers' commitments.
      const block = (await d.driver.blockNumber()) + 3n;
      const t0 = performance.now();
      const sent = await sendBid(d.bidder.url, { rawTransactions: [await rawTransaction()], ...timing(block, 2000n) });
      expect(sent.commitments).toBe(2);
      const row = `tr[data-bid="${sent.bidDigest}"]`;
      await page.waitForFunction(
        `document.querySelectorAll('${row} [data-outcome=committed]').length === 2`,
        undefined,
        { timeout: 10_000 },
      );
      const shownMs = performance.now() - t0;

      // A refused bid, with the node's reason on each provider.
      const refused = await sendBid(d.bidder.url, { txHashes: ["cd".repeat(32)], ...timing(block, parseEther("3")) });
      expect(refused.commitments).toBe(0);
      await page.waitForSelector("[data-reason=allowance_used]", { timeout: 10_000 });
      const reasonText = await page.textContent("[data-reason=allowance_used] .chip");
      expect(reasonText).toContain("allowance for the block is used up");

      // The winner's commitment settles on the page once its block is mined.
      const head = await d.driver.blockNumber();
      if (block - head > 1n) await d.mine(Number(block - head - 1n));
      await d.mine(1, d.providers[1]!.address);
      await d.mine(2);
      await page.waitForSelector(`tr[data-block="${block}"]`, { timeout: 30_000 });
      await page.waitForSelector(`${row} .step.settled`, { timeout: 30_000 });
      expect(await page.textContent(`${row} .step.settled`)).toContain("paid");

      // Search by the bid digest finds it; the heading shows the digest as typed (lower case), not upper-cased.
      await page.fill("#search input", sent.bidDigest!);
      await page.click("#search button");
      await page.waitForSelector(`#results tr[data-bid="${sent.bidDigest}"]`, { timeout: 10_000 });
      // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered (after CSS text-transform) is checked
      expect(await page.innerText("#results h2 .mono")).toBe(sent.bidDigest!);
      await page.click("#results button");

      // A slash (the winner's builder omits the committed transaction) shows in the providers table, which stays
      // whole at this width: nothing of it is cut off behind a scroll bar.
      const slashBlock = (await d.driver.blockNumber()) + 2n;
      const omitted = await sendBid(d.bidder.url, {
        rawTransactions: [await rawTransaction()],
        ...timing(slashBlock, 3000n),
      });
      expect(omitted.commitments).toBe(2);
      const cheat = d.providers[0]!.address;
      await d.setBuilderMode(cheat, "omit");
      try {
        await d.mine(1);
        await d.mine(1, cheat);
        await d.mine(2);
        await page.waitForSelector(`tr[data-bid="${omitted.bidDigest}"] .step.slashed`, { timeout: 30_000 });
      } finally {
        await d.setBuilderMode(cheat, "honest");
      }
      const providers = (await page.evaluate(
        `(() => { const s = document.getElementById("providers"); return { scroll: s.scrollWidth, client: s.clientWidth }; })()`,
      )) as { scroll: number; client: number };
      expect(providers.scroll).toBeLessThanOrEqual(providers.client);

      const painted = (await page.evaluate(
        `(() => { const c = document.getElementById("per-block"); const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++; return n; })()`,
      )) as number;
      expect(painted).toBeGreaterThan(500);
      mkdirSync("reports", { recursive: true });
      await page.screenshot({ path: process.env.EXPLORER_SCREENSHOT ?? "reports/explorer.png", fullPage: false });
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      console.log(`explorer: the bid was on the page ${Math.round(shownMs)} ms after it was sent`);
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Reads an SSE stream until its first `snapshot` event. */
async function firstSnapshot(url: string): Promise<Record<string, any>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before a snapshot: ${text.slice(0, 200)}`);
      text += new TextDecoder().decode(value);
      const m = /event: snapshot\ndata: (.*)\n\n/.exec(text);
      if (m) return JSON.parse(m[1]!);
    }
  } finally {
    await reader.cancel();
  }
}

describe("npm run explorer -- --target file", () => {
  test("against a target it shows what the chains tell and names the columns that need the reference devnet", async () => {
    const { startTargetExplorer } = await import("./targetExplorer.ts");
    const target = local.devnet.target();
    const explorer = await startTargetExplorer(target, { host: "127.0.0.1", port: 0 });
    try {
      const api = explorer.url.replace(/\/explorer\/$/, "/explorer/api");
      const snap = await waitFor("the chain's settled commitment in the snapshot", async () => {
        const s = await firstSnapshot(`${api}/events`);
        return s.commitments.some((c: { settled?: unknown }) => c.settled) ? s : undefined;
      });
      expect(snap.mode).toBe("target");
      expect(snap.devnetOnly.join(" ")).toContain("bid outcomes per provider");
      expect(snap.bids).toEqual([]);
      expect(snap.blocks.length).toBeGreaterThan(0);
      expect(snap.blocks[0].winner).toMatch(/^0x[0-9a-f]{40}$/);
      expect(snap.deposits.some((d: { bidder: string }) => d.bidder === target.bidderAddress.toLowerCase())).toBe(true);
      expect(snap.providers.map((p: { provider: string }) => p.provider).sort()).toEqual(
        target.providerAddresses.map((a) => a.toLowerCase()).sort(),
      );
      const settled = snap.commitments.find((c: { settled?: unknown }) => c.settled);
      const found = await call("GET", `${api}/search?q=${settled.digest}`);
      expect((found.json as { commitments: { digest: string }[] }).commitments.map((c) => c.digest)).toEqual([
        settled.digest,
      ]);
      const page = await call("GET", explorer.url);
      expect(page.status).toBe(200);
      expect(page.text).toContain("importmap");
    } finally {
      await explorer.stop();
    }
  }, 60_000);
});
