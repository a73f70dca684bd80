/**
 * `POST /sim/v1/nodes/{name}/kill` (capability sim-kill) on a devnet whose nodes meet over libp2p: a node killed the
 * way SIGKILL kills a process (no goodbye, nothing drained) comes back on its store, keys and ports. Everything it
 * acknowledged before is listed, its peers find the new node (a new AES key, so a new key exchange) and new bids get
 * commitments from every provider; the dead node's provider applications reattach on their own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther } from "viem";
import { call } from "../clients/http.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { windowOfBlock } from "../protocol/windows.ts";
import { acceptAll } from "../providerApp/policies.ts";
import { ProviderAgent } from "../providerApp/providerAgent.ts";
import { type LocalDevnet, startLocalDevnet } from "./localDevnet.ts";

let local: LocalDevnet;
let agents: ProviderAgent[] = [];

beforeAll(async () => {
  local = await startLocalDevnet({ autoAccept: false, autodepositAmount: undefined }, "reports/kill-node-devnet.log");
  agents = local.devnet.providers.map((p) => new ProviderAgent(p.url, acceptAll(), { log: () => {} }));
  await Promise.all(agents.map((a) => a.start()));
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
  await local?.stop();
}, 60_000);

const control = (path: string) => call("POST", `${local.devnet.controlUrl}${path}`);

/** The providers (40 hex) whose commitments one bid for `block` got. */
async function bid(block: bigint, amount: string): Promise<string[]> {
  const now = Date.now();
  const body = {
    txHashes: [amount.padStart(64, "a")],
    amount,
    blockNumber: block.toString(),
    decayStartTimestamp: String(now),
    decayEndTimestamp: String(now + 60_000),
  };
  const lines = await (
    await NdjsonStream.open<{ providerAddress: string }>("POST", `${local.devnet.bidder.url}/v1/bidder/bid`, body)
  ).all();
  return lines.flatMap((l) => ("result" in l ? [l.result.providerAddress] : [])).sort();
}

/** 5 ETH into the window of `block` (0.5 ETH per block). */
async function depositFor(block: bigint): Promise<void> {
  const window = windowOfBlock(block);
  const r = await call(
    "POST",
    `${local.devnet.bidder.url}/v1/bidder/deposit/${parseEther("5")}?window_number=${window}`,
  );
  expect(r.status).toBe(200);
}

/** Waits (generously: a loaded machine) until every provider node has an application attached again. */
async function receiversBack(timeoutMs = 30_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (local.devnet.providers.some((p) => p.dispatcher.activeReceivers === 0)) {
    if (performance.now() > until) throw new Error(`provider applications did not reattach within ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

describe("sim-kill", () => {
  test("the devnet's target has the sim-kill capability", () => {
    expect(local.devnet.target().capabilities).toContain("sim-kill");
  });

  test("killed provider and bidder nodes come back on their stores; the mesh and the applications find them again", async () => {
    const d = local.devnet;
    const block = (await d.driver.blockNumber()) + 3n;
    await depositFor(block);
    const before = await bid(block, "7001");
    expect(before).toHaveLength(2);
    const bidderUrl = d.bidder.url;
    const providerUrl = d.providers[0]!.url;
    const oldProvider = d.providers[0];

    const killed = await control("/sim/v1/nodes/provider-0/kill");
    expect(killed.status).toBe(200);
    expect(killed.json).toMatchObject({ name: "provider-0", url: providerUrl });
    expect(d.providers[0]).not.toBe(oldProvider);
    expect((await control("/sim/v1/nodes/bidder/kill")).status).toBe(200);
    expect(d.bidder.url).toBe(bidderUrl);

    // Everything acknowledged before the kill, from each node's own store.
    type BidInfo = { blockBidInfo: { bids: { bidAmount: string; commitments: { providerAddress: string }[] }[] }[] };
    const listed = (await call("GET", `${bidderUrl}/v1/bidder/get_bid_info?block_number=${block}`)).json as BidInfo;
    const bid7001 = listed.blockBidInfo.flatMap((b) => b.bids).find((b) => b.bidAmount === "7001");
    expect(bid7001?.commitments.map((c) => c.providerAddress).sort()).toEqual(before);
    type CommitmentInfo = { commitments: { commitments: { amount: string; providerAddress: string }[] }[] };
    const provided = (await call("GET", `${providerUrl}/v1/provider/get_commitment_info?block_number=${block}`))
      .json as CommitmentInfo;
    expect(provided.commitments.flatMap((b) => b.commitments).map((c) => [c.amount, c.providerAddress])).toEqual([
      ["7001", d.providers[0]!.address.slice(2).toLowerCase()],
    ]);

    // The new nodes meet again (bidder ↔ both providers, a new key exchange) and the applications reattached.
    await receiversBack();
    expect(await bid(block, "7002")).toEqual(before);
  }, 120_000);

  test("a killed provider still counts the allowance it committed: a block's allowance is not committed twice", async () => {
    const d = local.devnet;
    // A window of its own (the test above deposited for an earlier one).
    const block = (await d.driver.blockNumber()) + 15n;
    await depositFor(block);
    const both = await bid(block, parseEther("0.3").toString());
    expect(both).toHaveLength(2);
    expect((await control("/sim/v1/nodes/provider-0/kill")).status).toBe(200);
    await receiversBack();
    // The new provider-0 commits the rest of the block's allowance and no more, as provider-1 does.
    expect(await bid(block, parseEther("0.2").toString())).toEqual(both);
    expect(await bid(block, "1")).toEqual([]);
  }, 120_000);

  // Last: provider-1 stays out of the registry for good.
  test("a provider whose unstake was requested is refused by its peers, and nothing waits for it to be seen", async () => {
    const d = local.devnet;
    expect((await call("POST", `${d.providers[1]!.url}/v1/provider/unstake`)).status).toBe(200);
    expect((await control("/sim/v1/providers/1/stop")).status).toBe(200);
    expect((await control("/sim/v1/providers/1/start")).status).toBe(200);
    expect((await control("/sim/v1/nodes/provider-1/kill")).status).toBe(200);
    expect((await control("/sim/v1/nodes/bidder/kill")).status).toBe(200);
    // The bidder refuses it in the handshake (a real network's stake check): bids go to provider-0 alone.
    await receiversBack();
    expect(d.networks!.bidder.providers().map((p) => p.address)).toEqual([d.providers[0]!.address]);
  }, 40_000);

  test("an unknown node is InvalidArgument and names the devnet's nodes", async () => {
    const r = await control("/sim/v1/nodes/provider-9/kill");
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toBe(
      'no node named "provider-9": the devnet\'s nodes are bidder, provider-0, provider-1',
    );
  });
});
