import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { InternalError, InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { queryValuesOf } from "../protocol/queryParams.ts";
import { NodeStore } from "../store/db.ts";
import { CommitmentStore } from "../tracker/commitmentStore.ts";
import type { CommitmentRecord } from "../tracker/record.ts";
import { bidInfo, commitmentInfo } from "./commitmentQueries.ts";
import { pageRequestFieldsOf } from "./pageRequest.ts";

const q = (s: string) => pageRequestFieldsOf(queryValuesOf(new URLSearchParams(s)));
const hex32 = (n: number, salt = 0) => (n * 7919 + salt).toString(16).padStart(64, "0");

function record(i: number, block: bigint, amount: bigint, bid = i, provider = "aa".repeat(20)): CommitmentRecord {
  return {
    digest: hex32(i, 1),
    commitmentIndex: hex32(i, 2),
    commitmentSignature: "00",
    bidDigest: hex32(bid, 3),
    bidSignature: "00",
    bidder: "bb".repeat(20),
    provider,
    txnHash: hex32(i, 4),
    revertingTxHashes: "",
    rawTransactions: [],
    bidAmount: amount,
    blockNumber: block,
    decayStart: 1n,
    decayEnd: 2n,
    dispatchTimestamp: 1n,
    slashAmount: 0n,
    bidderPkX: 0n,
    bidderPkY: 0n,
    sharedX: 0n,
    sharedY: 0n,
    status: "pending",
    details: "",
    payment: "",
    refund: "",
  };
}

describe("queries over a CommitmentStore", () => {
  const store = new NodeStore(":memory:");
  const commitments = new CommitmentStore(store);

  beforeAll(() => {
    // Blocks whose decimal texts sort differently from their numbers, inserted out of order.
    let i = 0;
    for (const [block, amount] of [
      [100n, 1n],
      [9n, 2n],
      [99n, 7n],
      [10n, 5n],
      [9n, 8n],
      [100n, 9n],
      [12n, 1n],
      [120n, 1n],
      [1200n, 1n],
    ] as const)
      commitments.insert(record(++i, block, amount));
    // One bid committed by two providers.
    commitments.insert(record(++i, 10n, 3n, 500, "aa".repeat(20)));
    commitments.insert(record(++i, 10n, 3n, 500, "cc".repeat(20)));
  });
  afterAll(() => store.close());

  test("blocks ascend numerically, highest bid first inside a block", () => {
    const out = commitmentInfo(commitments, q(""));
    expect(out.commitments.map((g) => [g.blockNumber, g.commitments.map((c) => c.amount)])).toEqual([
      ["9", ["8", "2"]],
      ["10", ["5", "3", "3"]],
      ["12", ["1"]],
      ["99", ["7"]],
      ["100", ["9", "1"]],
      ["120", ["1"]],
      ["1200", ["1"]],
    ]);
  });

  test("the block filter is exact (12 does not return 120 or 1200)", () => {
    expect(commitmentInfo(commitments, q("block_number=12")).commitments.map((g) => g.blockNumber)).toEqual(["12"]);
    expect(bidInfo(commitments, q("blockNumber=12")).blockBidInfo.map((g) => g.blockNumber)).toEqual(["12"]);
    expect(commitmentInfo(commitments, q("block_number=13"))).toEqual({ commitments: [] });
    expect(bidInfo(commitments, q("block_number=13"))).toEqual({ blockBidInfo: [] });
  });

  test("paging counts commitments and applies with the block filter", () => {
    const page = (s: string) =>
      commitmentInfo(commitments, q(s)).commitments.flatMap((g) =>
        g.commitments.map((c) => `${c.blockNumber}:${c.amount}`),
      );
    expect(page("limit=3")).toEqual(["9:8", "9:2", "10:5"]);
    expect(page("limit=3&page=1")).toEqual(["10:3", "10:3", "12:1"]);
    expect(page("limit=3&page=2")).toEqual(["99:7", "100:9", "100:1"]);
    expect(page("limit=3&page=3")).toEqual(["120:1", "1200:1"]);
    expect(page("limit=3&page=4")).toEqual([]);
    expect(page("block_number=10&limit=2")).toEqual(["10:5", "10:3"]);
    expect(page("block_number=10&limit=2&page=1")).toEqual(["10:3"]);
    expect(page("block_number=10&limit=2&page=2")).toEqual([]);
  });

  test("bid info groups a bid's commitments; paging can split them", () => {
    const whole = bidInfo(commitments, q("block_number=10"));
    expect(whole.blockBidInfo[0]!.bids.map((b) => [b.bidAmount, b.commitments.map((c) => c.providerAddress)])).toEqual([
      ["5", ["aa".repeat(20)]],
      ["3", ["aa".repeat(20), "cc".repeat(20)]],
    ]);
    const first = bidInfo(commitments, q("block_number=10&limit=2"));
    expect(first.blockBidInfo[0]!.bids.map((b) => b.commitments.length)).toEqual([1, 1]);
    const second = bidInfo(commitments, q("block_number=10&limit=2&page=1"));
    expect(second.blockBidInfo[0]!.bids.map((b) => [b.bidAmount, b.commitments.length])).toEqual([["3", 1]]);
  });

  test("invalid paging is refused before the store is read", () => {
    const failing = {
      page: () => {
        throw new Error("must not be called");
      },
    };
    expect(() => bidInfo(failing, q("page=-1"))).toThrow(InvalidArgumentError);
    expect(() => commitmentInfo(failing, q("limit=1001"))).toThrow("limit must be between 0 and 1000, got 1001");
  });

  test("a store failure is Internal `getting commitments: …`", () => {
    const failing = {
      page: () => {
        throw new Error("disk I/O error");
      },
    };
    expect(() => commitmentInfo(failing, q(""))).toThrow(InternalError);
    expect(() => bidInfo(failing, q(""))).toThrow("getting commitments: disk I/O error");
  });
});

describe("paging 100,000 commitments", () => {
  const store = new NodeStore(":memory:");
  const commitments = new CommitmentStore(store);
  const N = 100_000;

  beforeAll(() => {
    // CommitmentStore.insert numbers rows with MAX(seq) + 1, a full scan without an index on seq (quadratic over
    // 100k inserts); the index makes filling this fixture fast and does not change what is measured (page reads).
    store.db.exec("CREATE INDEX IF NOT EXISTS test_commitments_by_seq ON commitments (seq)");
    const started = performance.now();
    store.db.transaction(() => {
      for (let i = 0; i < N; i++)
        commitments.insert(record(i, BigInt(1 + (i % 5000)), BigInt(1 + ((i * 31) % 997)), Math.floor(i / 2)));
    })();
    console.log(`inserted ${N} commitments in ${(performance.now() - started).toFixed(0)} ms`);
  }, 120_000);
  afterAll(() => store.close());

  test("first, middle and last pages, with and without a block filter (timings printed)", () => {
    const cases = [
      "",
      "page=1000&limit=50",
      "page=1999&limit=50",
      "page=99&limit=1000",
      "page=2000&limit=50",
      "block_number=2500",
      "block_number=2500&limit=5&page=3",
    ];
    for (const c of cases) {
      const started = performance.now();
      const out = bidInfo(commitments, q(c));
      const ms = performance.now() - started;
      const count = out.blockBidInfo.reduce((n, g) => n + g.bids.reduce((m, b) => m + b.commitments.length, 0), 0);
      console.log(`get_bid_info ?${c || "(defaults)"}: ${count} commitments in ${ms.toFixed(2)} ms`);
    }
    expect(bidInfo(commitments, q("page=1999&limit=50")).blockBidInfo.at(-1)!.blockNumber).toBe("5000");
    expect(bidInfo(commitments, q("page=2000&limit=50"))).toEqual({ blockBidInfo: [] });
    const block = commitmentInfo(commitments, q("block_number=2500")).commitments;
    expect(block.map((g) => g.blockNumber)).toEqual(["2500"]);
    expect(block[0]!.commitments).toHaveLength(20);
    const amounts = block[0]!.commitments.map((c) => BigInt(c.amount));
    expect([...amounts].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))).toEqual(amounts);
  });
});
