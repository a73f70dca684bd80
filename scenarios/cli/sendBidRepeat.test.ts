/**
 * `npm run bid` run again and again on a real devnet (the command spawned as a process, both providers with the
 * built-in accept-all application): each run bids for a transaction no earlier run used, including runs before a
 * restart of the devnet on the same data dir whose transactions were never mined, and once the blocks are mined
 * every bid settles with its winner; no commitment is slashed or fails to open.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { call } from "../../node/clients/http.ts";
import { type LocalDevnet, startLocalDevnet } from "../../node/devnet/localDevnet.ts";
import { runSendBid } from "./runSendBid.ts";

let local: LocalDevnet;
let dataDir: string;

beforeAll(async () => {
  local = await startLocalDevnet({}, "reports/send-bid-repeat-devnet.log");
  dataDir = local.devnet.dir.root;
}, 120_000);

afterAll(async () => {
  await local?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** Runs `npm run bid` for `block`; answers the transaction hash it printed and why it says it is new. */
async function bid(block: bigint): Promise<{ hash: string; why: string }> {
  const { code, stdout, stderr } = await runSendBid(local.devnet.dir.targetFile, "--block", `${block}`);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(stdout).toContain(`2 commitment(s) for block ${block}`);
  const m = /^transaction (0x[0-9a-f]{64}): (.*)$/m.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return { hash: m![1]!, why: m![2]! };
}

interface BidInfo {
  txnHashes: string[];
  commitments: { providerAddress: string; status: string; details: string }[];
}

/** Mines through `last` and waits until the bid for each transaction settled with one provider, none slashed or failed. */
async function everyBidSettles(hashes: string[], last: bigint): Promise<void> {
  const d = local.devnet;
  const head = await d.driver.blockNumber();
  if (last >= head) await d.mine(Number(last - head) + 1);
  const until = performance.now() + 60_000;
  for (;;) {
    const res = await call("GET", `${d.bidder.url}/v1/bidder/get_bid_info?page=0&limit=100`);
    const bids = ((res.json as { blockBidInfo: { bids: BidInfo[] }[] }).blockBidInfo ?? []).flatMap((b) => b.bids);
    const ours = hashes.map((h) => bids.find((b) => b.txnHashes.includes(h.slice(2))));
    const bad = ours.flatMap(
      (b) => b?.commitments.filter((c) => c.status === "slashed" || c.status === "failed") ?? [],
    );
    expect(bad).toEqual([]);
    if (ours.every((b) => b?.commitments.some((c) => c.status === "settled"))) return providersSawNoFailure(hashes);
    if (performance.now() > until)
      throw new Error(`not every bid settled within 60 s: ${JSON.stringify(ours.map((b) => b?.commitments))}`);
    await d.mine(1);
    await Bun.sleep(500);
  }
}

/** Neither provider's commitments to these transactions ended failed (an open refused) or slashed. */
async function providersSawNoFailure(hashes: string[]): Promise<void> {
  for (const p of local.devnet.providers) {
    const res = await call("GET", `${p.url}/v1/provider/get_commitment_info`);
    const all = (res.json as { commitments: { commitments: { txnHashes: string[]; status: string }[] }[] }).commitments;
    const ours = all.flatMap((b) => b.commitments).filter((c) => hashes.some((h) => c.txnHashes.includes(h.slice(2))));
    expect(ours.length).toBe(hashes.length);
    expect(ours.filter((c) => c.status === "slashed" || c.status === "failed")).toEqual([]);
  }
}

test("three runs in a row for consecutive blocks: three transactions, each included by its block's winner", async () => {
  const head = await local.devnet.driver.blockNumber();
  const sent = [];
  for (const k of [2n, 3n, 4n]) sent.push(await bid(head + k));
  const hashes = sent.map((s) => s.hash);
  expect(new Set(hashes).size).toBe(3);
  for (const s of sent) expect(s.why).toContain("new: no earlier bid recorded");
  // The second and third come after the first's nonce, which is still waiting for its block.
  expect(sent[1]!.why).toContain("still waiting for their blocks");
  await everyBidSettles(hashes, head + 4n);
}, 180_000);

test("runs before and after a restart on the same data dir, the first ones not mined yet: new transactions", async () => {
  const head = await local.devnet.driver.blockNumber();
  const before = [await bid(head + 2n), await bid(head + 3n)];
  await local.devnet.stop();
  local = await startLocalDevnet({ dataDir, fresh: false }, "reports/send-bid-repeat-devnet-restarted.log");
  // Nothing mined meanwhile: the first two transactions still wait for their blocks.
  expect(await local.devnet.driver.blockNumber()).toBeLessThan(head + 2n);
  const after = [await bid(head + 4n), await bid(head + 5n)];
  const hashes = [...before, ...after].map((s) => s.hash);
  expect(new Set(hashes).size).toBe(4);
  await everyBidSettles(hashes, head + 5n);
}, 240_000);
