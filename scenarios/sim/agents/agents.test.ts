import { describe, expect, test } from "bun:test";
import { keccak256, stringToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ReceivedBid } from "../../../node/providerApp/policies.ts";
import { prng, randomFor, seedFrom } from "../../util/prng.ts";
import type { ProviderSpec } from "../scenario/schema.ts";
import { dispatchWithin, gasOfBid, refusal } from "./providerPolicies.ts";
import { bidsForBlock, drawAmount, poisson } from "./strategies.ts";

const bid = (over: Partial<ReceivedBid> & { amount?: string } = {}): ReceivedBid & { amount: string } => ({
  txHashes: ["aa".repeat(32)],
  bidAmount: "1000",
  amount: "1000",
  blockNumber: "7",
  bidDigest: "",
  decayStartTimestamp: "1000000",
  decayEndTimestamp: "1012000",
  revertingTxHashes: [],
  rawTransactions: [],
  slashAmount: "0",
  ...over,
});
const provider = (policy: ProviderSpec["policy"], dispatchAt = 0): ProviderSpec => ({
  name: "p",
  policy,
  dispatchAt,
  builder: { mode: "honest", every: 1 },
  transport: "http",
});

describe("bidding strategies", () => {
  test("constant spreads a fractional rate evenly", () => {
    const rnd = prng(1);
    expect(
      Array.from({ length: 6 }, (_, i) => bidsForBlock({ type: "constant", perBlock: 2.5 }, i, rnd, false)),
    ).toEqual([2, 3, 2, 3, 2, 3]);
    expect(
      Array.from({ length: 4 }, (_, i) => bidsForBlock({ type: "constant", perBlock: 0.5 }, i, rnd, false)),
    ).toEqual([0, 1, 0, 1]);
  });

  test("slot bursts every k-th block; the bot bids only for opted-in slots", () => {
    const rnd = prng(1);
    expect(
      [0, 1, 2, 3].map((i) => bidsForBlock({ type: "slot-burst", perBlock: 5, everyBlocks: 2 }, i, rnd, false)),
    ).toEqual([5, 0, 5, 0]);
    expect([true, false].map((o) => bidsForBlock({ type: "bot", perSlot: 2 }, 0, rnd, o))).toEqual([2, 0]);
  });

  test("Poisson counts repeat for a seed and average their mean", () => {
    const draw = (seed: number) => {
      const rnd = prng(seed);
      return Array.from({ length: 4000 }, () => poisson(1.5, rnd));
    };
    expect(draw(3)).toEqual(draw(3));
    const mean = draw(3).reduce((a, b) => a + b, 0) / 4000;
    expect(mean).toBeGreaterThan(1.4);
    expect(mean).toBeLessThan(1.6);
  });

  test("amounts stay inside their range", () => {
    const rnd = prng(9);
    for (let i = 0; i < 1000; i++) {
      const a = drawAmount(10n ** 15n, 4n * 10n ** 15n, rnd);
      expect(a >= 10n ** 15n && a <= 4n * 10n ** 15n).toBe(true);
    }
  });

  test("seeds from parts are stable and distinct", () => {
    expect(seedFrom(11, "bidder", 0)).toBe(seedFrom(11, "bidder", 0));
    expect(seedFrom(11, "bidder", 0)).not.toBe(seedFrom(11, "bidder", 1));
    expect(randomFor(1, "x")).toBe(randomFor(1, "x"));
  });
});

describe("provider policies", () => {
  test("dispatch time is a point of the bid's decay window", () => {
    expect(dispatchWithin(bid(), 0)).toBe(1_000_000n);
    expect(dispatchWithin(bid(), 0.25)).toBe(1_003_000n);
    expect(dispatchWithin(bid(), 1)).toBe(1_012_000n);
  });

  test("reject N % decides by the bid, whatever order bids arrive in", () => {
    const spec = provider({ type: "reject-percent", percent: 40 });
    const bids = Array.from({ length: 200 }, (_, i) => bid({ txHashes: [i.toString(16).padStart(64, "0")] }));
    const forward = bids.map((b) => refusal(spec, b, 5, 0) === undefined);
    const backward = [...bids]
      .reverse()
      .map((b) => refusal(spec, b, 5, 0) === undefined)
      .reverse();
    expect(backward).toEqual(forward);
    const rejected = forward.filter((a) => !a).length;
    expect(rejected).toBeGreaterThan(55);
    expect(rejected).toBeLessThan(105);
    // Another provider (or seed) decides independently.
    expect(bids.map((b) => refusal(spec, b, 5, 1) === undefined)).not.toEqual(forward);
  });

  test("a price floor compares per transaction and per gas", () => {
    const floor = (perTx?: bigint, perGas?: bigint) => provider({ type: "price-floor", perTx, perGas });
    expect(refusal(floor(1000n), bid(), 1, 0)).toBeUndefined();
    expect(refusal(floor(1001n), bid(), 1, 0)).toBe("below the floor of 1001 wei per transaction");
    expect(refusal(floor(undefined, 1n), bid({ amount: "21000" }), 1, 0)).toBeUndefined();
    expect(refusal(floor(undefined, 1n), bid({ amount: "20999" }), 1, 0)).toBe("below the floor of 1 wei per gas");
  });

  test("gas of a raw transaction is its gas limit", async () => {
    const account = privateKeyToAccount(keccak256(stringToHex("gas test")));
    const raw = await account.signTransaction({
      chainId: 31337,
      nonce: 0,
      to: account.address,
      value: 1n,
      gas: 50_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    expect(gasOfBid(bid({ rawTransactions: [raw.slice(2)] }))).toBe(50_000n);
    expect(gasOfBid(bid({ txHashes: ["a".repeat(64), "b".repeat(64)] }))).toBe(42_000n);
  });
});
