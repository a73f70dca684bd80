import { describe, expect, test } from "bun:test";
import { missingReasons } from "./figures.ts";
import type { ClientBid, NodeBid } from "./records.ts";

const P = [`0x${"a0".repeat(20)}`, `0x${"a1".repeat(20)}`];
const tx = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const clientBid = (n: number, from: string[]): ClientBid => ({
  stream: 0,
  seq: n,
  txHash: tx(n),
  blockNumber: "4",
  sentAt: 0,
  endedAt: 1,
  status: 200,
  answered: true,
  commitments: from.map((provider, i) => ({ digest: tx(100 + 10 * n + i), provider, bidDigest: tx(9), at: 1 })),
  errors: [],
});
const nodeBid = (n: number, providers: NodeBid["providers"]): NodeBid => ({
  digest: tx(50 + n),
  bidder: P[0]!,
  txnHash: tx(n),
  revertingTxHashes: "",
  amount: "1",
  blockNumber: "4",
  decayStart: "0",
  decayEnd: "1",
  slashAmount: "0",
  sentAt: 0,
  providers,
});

describe("why a bid lacked a provider's commitment", () => {
  test("the nodes' outcome and reason, a provider the bidder never asked, a bid the nodes never recorded", () => {
    const bids = [clientBid(1, P), clientBid(2, [P[0]!]), clientBid(3, [P[0]!]), clientBid(4, [])];
    const nodes = [
      nodeBid(2, [
        { provider: P[0]!, outcome: "committed", lifecycle: {} },
        { provider: P[1]!, outcome: "refused", reason: "bidder_timeout", lifecycle: {} },
      ]),
      nodeBid(3, [{ provider: P[0]!, outcome: "committed", lifecycle: {} }]),
    ];
    expect(missingReasons(bids, nodes, P)).toEqual({
      "refused (bidder_timeout)": 1,
      "not asked: the bidder had no connection to it": 1,
      "not in the nodes' record": 2,
    });
  });
});
