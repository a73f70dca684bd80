import { describe, expect, test } from "bun:test";
import { groupBidInfo, groupCommitmentInfo, type QueryRecord, splitHashes } from "./grouping.ts";

const H1 = "11".repeat(32);
const H2 = "22".repeat(32);

function rec(
  block: bigint,
  amount: bigint,
  bidDigest: string,
  provider = "aa".repeat(20),
  extra: Partial<QueryRecord> = {},
): QueryRecord {
  return {
    bidDigest,
    provider,
    txnHash: H1,
    revertingTxHashes: "",
    bidAmount: amount,
    blockNumber: block,
    decayStart: 1000n,
    decayEnd: 2000n,
    dispatchTimestamp: 1500n,
    slashAmount: 0n,
    status: "pending",
    details: "",
    payment: "",
    refund: "",
    ...extra,
  };
}

describe("splitHashes", () => {
  test('empty is [] (upstream answers [""])', () => {
    expect(splitHashes("")).toEqual([]);
    expect(splitHashes(`${H1},${H2}`)).toEqual([H1, H2]);
  });
});

describe("groupCommitmentInfo", () => {
  test("no records: empty list", () => {
    expect(groupCommitmentInfo([])).toEqual({ commitments: [] });
  });

  test("every field present, integers as strings, addresses lower-case without 0x", () => {
    const r = rec(9n, 5n, "ab".repeat(32), "0xAbCdEf0000000000000000000000000000000001", {
      txnHash: `${H1},${H2}`,
      revertingTxHashes: H2,
      slashAmount: 7n,
      status: "settled",
      details: "opened by provider",
      payment: "5",
    });
    expect(groupCommitmentInfo([r])).toEqual({
      commitments: [
        {
          blockNumber: "9",
          commitments: [
            {
              txnHashes: [H1, H2],
              revertableTxnHashes: [H2],
              amount: "5",
              blockNumber: "9",
              providerAddress: "abcdef0000000000000000000000000000000001",
              decayStartTimestamp: "1000",
              decayEndTimestamp: "2000",
              dispatchTimestamp: "1500",
              slashAmount: "7",
              status: "settled",
              details: "opened by provider",
              payment: "5",
              refund: "",
            },
          ],
        },
      ],
    });
  });

  test("consecutive records of a block form one group, in the given order", () => {
    const out = groupCommitmentInfo([rec(9n, 3n, "01"), rec(9n, 1n, "02"), rec(10n, 5n, "03"), rec(100n, 1n, "04")]);
    expect(out.commitments.map((g) => [g.blockNumber, g.commitments.map((c) => c.amount)])).toEqual([
      ["9", ["3", "1"]],
      ["10", ["5"]],
      ["100", ["1"]],
    ]);
  });
});

describe("groupBidInfo", () => {
  test("no records: empty list", () => {
    expect(groupBidInfo([])).toEqual({ blockBidInfo: [] });
  });

  test("a bid with two providers' commitments is one bid with two summaries", () => {
    const d = "cd".repeat(32);
    const out = groupBidInfo([rec(9n, 5n, d, "aa".repeat(20)), rec(9n, 5n, d, "bb".repeat(20), { status: "stored" })]);
    expect(out).toEqual({
      blockBidInfo: [
        {
          blockNumber: "9",
          bids: [
            {
              txnHashes: [H1],
              revertableTxnHashes: [],
              blockNumber: "9",
              bidAmount: "5",
              decayStartTimestamp: "1000",
              decayEndTimestamp: "2000",
              bidDigest: d,
              slashAmount: "0",
              commitments: [
                {
                  providerAddress: "aa".repeat(20),
                  dispatchTimestamp: "1500",
                  status: "pending",
                  details: "",
                  payment: "",
                  refund: "",
                },
                {
                  providerAddress: "bb".repeat(20),
                  dispatchTimestamp: "1500",
                  status: "stored",
                  details: "",
                  payment: "",
                  refund: "",
                },
              ],
            },
          ],
        },
      ],
    });
  });

  test("bids of equal amount whose commitments interleave are still grouped by digest", () => {
    const out = groupBidInfo([
      rec(9n, 5n, "0a", "aa".repeat(20)),
      rec(9n, 5n, "0b", "aa".repeat(20)),
      rec(9n, 5n, "0a", "bb".repeat(20)),
    ]);
    expect(out.blockBidInfo).toHaveLength(1);
    expect(out.blockBidInfo[0]!.bids.map((b) => [b.bidDigest, b.commitments.length])).toEqual([
      ["0a", 2],
      ["0b", 1],
    ]);
  });

  test("blocks form separate groups; the same digest in another block starts a new bid", () => {
    const out = groupBidInfo([rec(9n, 5n, "0a"), rec(10n, 4n, "0a"), rec(10n, 3n, "0c")]);
    expect(out.blockBidInfo.map((g) => [g.blockNumber, g.bids.map((b) => b.bidAmount)])).toEqual([
      ["9", ["5"]],
      ["10", ["4", "3"]],
    ]);
  });

  test("bid digests are answered lower-case without 0x", () => {
    expect(groupBidInfo([rec(1n, 1n, "0xABCD")]).blockBidInfo[0]!.bids[0]!.bidDigest).toBe("abcd");
  });
});
