/**
 * The topics protocol v1.2 adds, on a real `--protocol v1.2` devnet (Anvils, v1.2 contracts, in-process nodes): a bid
 * to both providers for a block provider 1 wins. Provider 0 announces other_provider_won_block for its commitment;
 * the bidder announces transaction_settled and transaction_payment for provider 1's. A rewarded commitment shows the
 * payment and no refund in the bidder's bid info (the decay's remainder goes to the bidder's account with no event),
 * and a slashed one the whole bid as the refund. A provider's failed store names the commitment's bidder and amount.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, type Hex, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../chain/accounts.ts";
import { localChain } from "../chain/clients.ts";
import { localHttp } from "../chain/localHttp.ts";
import { NdjsonStream } from "../clients/ndjson.ts";
import { type LocalDevnet, startLocalDevnet } from "../devnet/localDevnet.ts";
import type { Devnet } from "../devnet/startDevnet.ts";
import { decayedAmount, residualAfterDecay } from "../protocol/decay.ts";
import type { Notification, Subscription } from "./notifier.ts";

/** Sends the L1 transfer the rewarded bid is for. */
const L1_SENDER = devAccount(16);
const BID = parseEther("1");

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** Everything a subscription receives, collected as it arrives. */
function collect(s: Subscription): Notification[] {
  const got: Notification[] = [];
  void (async () => {
    for await (const n of s.notifications()) got.push(n);
  })();
  return got;
}

const first = (got: Notification[], topic: string, what: string) =>
  until(`${topic} ${what}`, 45_000, () => got.find((n) => n.topic === topic)?.value);

describe("the v1.2 topics on a v1.2 devnet", () => {
  let local: LocalDevnet;
  let d: Devnet;

  beforeAll(async () => {
    local = await startLocalDevnet(
      { protocol: "v1.2", network: "in-process", autodepositAmount: parseEther("5") },
      "reports/devnet-v12-topics.log",
    );
    d = local.devnet;
  }, 180_000);

  afterAll(async () => {
    await local?.stop();
  }, 60_000);

  /** A bid of 1 ETH for the next block to both providers; answers the commitments' digests by provider address. */
  async function bid(
    txHash: string,
    rawTransactions: string[],
    stored = true,
  ): Promise<{ block: bigint; digests: Map<string, string> }> {
    const block = (await d.driver.blockNumber()) + 1n;
    const now = Date.now();
    const s = await NdjsonStream.open<{ providerAddress: string; commitmentDigest: string }>(
      "POST",
      `${d.bidder.url}/v1/bidder/bid`,
      {
        txHashes: rawTransactions.length ? [] : [txHash],
        rawTransactions,
        amount: BID.toString(),
        blockNumber: block.toString(),
        decayStartTimestamp: String(now - 250),
        decayEndTimestamp: String(now + 750),
      },
    );
    const digests = new Map<string, string>();
    for (const l of await s.all())
      if ("result" in l) digests.set(`0x${l.result.providerAddress}`.toLowerCase(), l.result.commitmentDigest);
    expect(digests.size).toBe(2);
    if (!stored) return { block, digests };
    await until("both commitments stored", 30_000, () =>
      d.providers.every((p) => p.commitments!.get(digests.get(p.address.toLowerCase())!)?.status === "stored"),
    );
    return { block, digests };
  }

  async function winnerIsProvider1(block: bigint): Promise<void> {
    await d.mine(Number(block - (await d.driver.blockNumber())), d.providers[1]!.address);
    await d.mine(1);
  }

  test("another provider's block, an honest winner: won_block from the loser, settled and payment from the bidder", async () => {
    const [p0, p1] = d.providers;
    const loser = collect(p0!.notifier.subscribe(["other_provider_won_block"]));
    const atBidder = collect(d.bidder.notifier.subscribe(["transaction_settled", "transaction_payment"]));
    const atWinner = collect(p1!.notifier.subscribe(["transaction_settled", "transaction_payment"]));
    const l1 = createWalletClient({
      account: privateKeyToAccount(L1_SENDER.privateKey),
      chain: localChain(d.chains.l1.chainId, d.chains.l1.rpcUrl, "l1"),
      transport: localHttp(d.chains.l1.rpcUrl),
    });
    const raw: Hex = await l1.signTransaction({
      to: L1_SENDER.address,
      value: 1n,
      nonce: await d.l1Client.getTransactionCount({ address: L1_SENDER.address }),
      gas: 21_000n,
      maxFeePerGas: parseEther("0.0000001"),
      maxPriorityFeePerGas: 1n,
    });
    const { block, digests } = await bid("", [raw.slice(2)]);
    const won = digests.get(p1!.address.toLowerCase())!;
    const record = d.bidder.commitments!.get(won)!;
    await winnerIsProvider1(block);

    expect(await first(loser, "other_provider_won_block", "at provider 0")).toEqual({
      commitmentDigest: digests.get(p0!.address.toLowerCase()),
      bidder: d.bidder.address.toLowerCase().slice(2),
      bidAmount: BID.toString(),
    });
    const settled = {
      transaction_hashes: record.txnHash,
      is_slashed: false,
      provider: p1!.address.toLowerCase().slice(2),
    };
    expect(await first(atBidder, "transaction_settled", "at the bidder")).toEqual(settled);
    expect(await first(atWinner, "transaction_settled", "at provider 1")).toEqual(settled);
    const decayed = decayedAmount(
      BID,
      residualAfterDecay(record.decayStart, record.decayEnd, record.dispatchTimestamp),
    );
    expect(decayed).toBeLessThan(BID);
    const payment = { transaction_hashes: record.txnHash, payment: decayed.toString(), refund: "" };
    expect(await first(atBidder, "transaction_payment", "at the bidder")).toEqual(payment);
    expect(await first(atWinner, "transaction_payment", "at provider 1")).toEqual(payment);

    // Upstream v1.2.5's bidder records the payment only: BID - decayed went to the bidder's account, unannounced.
    const info = (await (await fetch(`${d.bidder.url}/v1/bidder/get_bid_info`)).json()) as {
      blockBidInfo: { blockNumber: string; bids: { commitments: Record<string, string>[] }[] }[];
    };
    const row = info.blockBidInfo
      .find((b) => b.blockNumber === block.toString())!
      .bids[0]!.commitments.find((c) => c.providerAddress === p1!.address.toLowerCase().slice(2))!;
    expect({ status: row.status, payment: row.payment, refund: row.refund }).toEqual({
      status: "settled",
      payment: decayed.toString(),
      refund: "",
    });
  }, 150_000);

  test("a slashed commitment: settled with is_slashed, and the whole bid as the bidder's refund", async () => {
    const atBidder = collect(d.bidder.notifier.subscribe(["transaction_settled", "transaction_payment"]));
    // A transaction no block holds: the oracle slashes provider 1.
    const { block, digests } = await bid("5b".repeat(32), []);
    const record = d.bidder.commitments!.get(digests.get(d.providers[1]!.address.toLowerCase())!)!;
    await winnerIsProvider1(block);
    expect(await first(atBidder, "transaction_settled", "at the bidder")).toEqual({
      transaction_hashes: record.txnHash,
      is_slashed: true,
      provider: d.providers[1]!.address.toLowerCase().slice(2),
    });
    expect(await first(atBidder, "transaction_payment", "at the bidder")).toEqual({
      transaction_hashes: record.txnHash,
      payment: "",
      refund: BID.toString(),
    });
  }, 150_000);

  test("a provider's failed store: commitment_store_failed with the commitment's bidder and bid amount", async () => {
    const p0 = d.providers[0]!;
    const got = collect(p0.notifier.subscribe(["commitment_store_failed"]));
    p0.storer!.failNext = true;
    const { digests } = await bid("5d".repeat(32), [], false);
    expect(await first(got, "commitment_store_failed", "at provider 0")).toEqual({
      commitmentDigest: digests.get(p0.address.toLowerCase()),
      txnHash: "5d".repeat(32),
      error: expect.stringMatching(/^transaction failed: ./),
      bidder: d.bidder.address.toLowerCase().slice(2),
      bidAmount: BID.toString(),
    });
  }, 150_000);
});
