import { describe, expect, test } from "bun:test";
import { type CheckInput, check } from "./checker.ts";
import type { ClientBid, NodeBid } from "./records.ts";

const P0 = `0x${"a0".repeat(20)}`;
const P1 = `0x${"a1".repeat(20)}`;
const BIDDER = `0x${"b0".repeat(20)}`;
const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

/** Bid `seq` for block `block`, committed by both providers; commitment digests 100·seq + provider index. */
function clientBid(seq: number, block: number): ClientBid {
  return {
    stream: 0,
    seq,
    txHash: h(seq),
    blockNumber: String(block),
    sentAt: 1000 * seq,
    endedAt: 1000 * seq + 50,
    status: 200,
    answered: true,
    commitments: [P0, P1].map((provider, i) => ({
      digest: h(100 * seq + i),
      provider,
      bidDigest: h(10_000 + seq),
      at: 1000 * seq + 40,
    })),
    errors: [],
  };
}

function nodeBid(b: ClientBid): NodeBid {
  return {
    digest: b.commitments[0]!.bidDigest,
    bidder: BIDDER,
    txnHash: b.txHash,
    revertingTxHashes: "",
    amount: "1000",
    blockNumber: b.blockNumber,
    decayStart: "0",
    decayEnd: "1",
    slashAmount: "0",
    sentAt: b.sentAt,
    providers: b.commitments.map((c, i) => ({
      provider: c.provider,
      outcome: "committed",
      commitment: { digest: c.digest, index: h(500 + i), dispatchTimestamp: "0" },
      lifecycle: i === 0 ? { settled: { tx: h(1), payment: "900" } } : {},
    })),
  };
}

/**
 * Two bids for blocks 10 and 11, which provider-0 won: each bid's provider-0 commitment stored, opened and paid 900
 * wei, its provider-1 commitment stored only. Every record agrees.
 */
function healthy(): CheckInput {
  const clientBids = [clientBid(1, 10), clientBid(2, 11)];
  const own = (b: ClientBid) => b.commitments[0]!;
  return {
    clientBids,
    nodeBids: clientBids.map(nodeBid),
    chain: {
      stored: clientBids.flatMap((b) => b.commitments.map((c) => ({ digest: c.digest, provider: c.provider }))),
      opened: clientBids.map((b) => ({
        digest: own(b).digest,
        provider: P0,
        bidder: BIDDER,
        txnHash: b.txHash,
        blockNumber: b.blockNumber,
      })),
      rewarded: clientBids.map((b) => ({ digest: own(b).digest, provider: P0, amount: "900" })),
      slashed: [],
      winners: { "10": P0, "11": P0 },
    },
    balances: [
      {
        what: "deposit",
        subject: "window 1",
        sides: [
          { name: "client", wei: "5" },
          { name: "chain", wei: "5" },
        ],
      },
    ],
    horizon: 11n,
  };
}

describe("the fault soak's checker", () => {
  test("records that agree: every acknowledged commitment accounted for, no finding", () => {
    const r = check(healthy());
    expect(r.findings).toEqual([]);
    expect(r.acknowledged).toBe(4);
    expect(r.fates).toEqual({ settled: 2, slashed: 0, "not-won": 2, pending: 0, lost: 0 });
    expect(r.accounted.find((a) => a.fate === "not-won")!.reason).toContain("block won by");
  });

  test("an acknowledged commitment the chain never stored is lost; past the horizon it is pending", () => {
    const input = healthy();
    const gone = input.clientBids[0]!.commitments[1]!.digest;
    input.chain.stored = input.chain.stored.filter((s) => s.digest !== gone);
    const r = check(input);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ kind: "lost", detail: expect.stringContaining("never stored") });
    expect(r.fates.lost).toBe(1);
    expect(check({ ...input, horizon: 9n }).findings).toEqual([]);
  });

  test("a commitment missing from the nodes' record is a disagreement", () => {
    const input = healthy();
    input.nodeBids[1]!.providers.pop();
    const r = check(input);
    expect(r.findings).toEqual([
      expect.objectContaining({
        kind: "disagreement",
        detail: expect.stringContaining("missing from the nodes' record"),
      }),
    ]);
  });

  test("an opened commitment that won its block and was never settled is lost", () => {
    const input = healthy();
    input.chain.rewarded.pop();
    const r = check(input);
    expect(r.findings.map((f) => f.kind)).toContain("lost");
    expect(r.findings.find((f) => f.kind === "lost")!.detail).toContain("never settled");
  });

  test("duplicates in each record are reported: a digest twice, a bid committed twice by one provider", () => {
    const input = healthy();
    const again = input.clientBids[0]!;
    input.clientBids.push({ ...again, seq: 9 }); // the same commitments acknowledged to a second bid
    input.chain.stored.push({ ...input.chain.stored[0]! });
    input.chain.opened.push({ ...input.chain.opened[0]!, digest: h(999) }); // the same bid opened under a new digest
    input.nodeBids[0]!.providers.push({
      ...input.nodeBids[0]!.providers[0]!,
      commitment: { digest: h(77), index: h(78), dispatchTimestamp: "0" },
    });
    const details = check(input)
      .findings.filter((f) => f.kind === "duplicate")
      .map((f) => f.detail);
    expect(details).toContainEqual(expect.stringContaining("acknowledged to the clients 2 times"));
    expect(details).toContainEqual(expect.stringContaining("stored on the chain 2 times"));
    expect(details).toContainEqual(expect.stringContaining("opened on the chain 2 times by one provider"));
    expect(details).toContainEqual(expect.stringContaining("committed 2 times by provider"));
  });

  test("a mismatching entry: a payment the nodes recorded differently, a deposit the chain disagrees with", () => {
    const input = healthy();
    input.nodeBids[0]!.providers[0]!.lifecycle = { settled: { tx: h(1), payment: "800" } };
    input.balances[0]!.sides[1]!.wei = "4";
    input.chain.opened[1]!.txnHash = h(55);
    const details = check(input).findings.map((f) => `${f.kind}: ${f.detail}`);
    expect(details).toContainEqual(expect.stringContaining("the chain paid 900 wei, the nodes' record says 800"));
    expect(details).toContainEqual("disagreement: client 5, chain 4");
    expect(details).toContainEqual(expect.stringMatching(/^disagreement: opened on the chain by .* the client's was/));
  });
});
