/**
 * The provider's committed amounts a balance check starts from (CommitmentStore.committedForBlock and
 * committedUnsettled): read through the journal, so what a killed node acknowledged counts for the next node on its
 * store.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommitmentStatus } from "../protocol/types.ts";
import { NodeStore } from "../store/db.ts";
import { CommitmentStore } from "./commitmentStore.ts";
import type { CommitmentRecord } from "./record.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "committed-"));
  dirs.push(dir);
  return join(dir, "node.db");
}

const BIDDER = `0x${"Bb".repeat(20)}` as const;
const OTHER = `0x${"cc".repeat(20)}` as const;

let n = 0;
function record(bidder: string, blockNumber: bigint, bidAmount: bigint, status: CommitmentStatus): CommitmentRecord {
  const h = (salt: number) => (++n * 7919 + salt).toString(16).padStart(64, "0");
  return {
    digest: h(1),
    commitmentIndex: h(2),
    commitmentSignature: "ab".repeat(65),
    bidDigest: h(3),
    bidSignature: "cd".repeat(65),
    bidder: bidder.slice(2).toLowerCase(),
    provider: "aa".repeat(20),
    txnHash: h(4),
    revertingTxHashes: "",
    rawTransactions: [],
    bidAmount,
    blockNumber,
    decayStart: 1n,
    decayEnd: 2n,
    dispatchTimestamp: 1n,
    slashAmount: 0n,
    bidderPkX: 1n,
    bidderPkY: 2n,
    sharedX: 3n,
    sharedY: 4n,
    status,
    details: "",
    payment: "",
    refund: "",
  };
}

test("v1.1: a bidder's commitments for one block, whatever their status, and no one else's", async () => {
  const path = storePath();
  const first = new CommitmentStore(new NodeStore(path));
  for (const r of [
    record(BIDDER, 10n, 3n, "pending"),
    record(BIDDER, 10n, 5n, "stored"),
    record(BIDDER, 10n, 7n, "failed"),
    record(BIDDER, 11n, 100n, "stored"),
    record(OTHER, 10n, 1000n, "stored"),
  ])
    await first.record(r);
  first.crash();
  const next = new CommitmentStore(new NodeStore(path));
  expect(next.committedForBlock(BIDDER, 10n)).toBe(15n);
  expect(next.committedForBlock(BIDDER.toLowerCase(), 11n)).toBe(100n);
  expect(next.committedForBlock(BIDDER, 12n)).toBe(0n);
});

test("v1.2: a bidder's commitments neither opened, settled nor refunded", async () => {
  const store = new CommitmentStore(new NodeStore(storePath()));
  const refunded = record(BIDDER, 11n, 40n, "stored");
  for (const r of [
    record(BIDDER, 10n, 1n, "pending"),
    record(BIDDER, 10n, 2n, "stored"),
    record(BIDDER, 10n, 4n, "failed"),
    record(BIDDER, 10n, 8n, "opened"),
    record(BIDDER, 10n, 16n, "settled"),
    record(BIDDER, 10n, 32n, "slashed"),
    refunded,
    record(OTHER, 10n, 1000n, "stored"),
  ])
    await store.record(r);
  expect(store.committedUnsettled(BIDDER)).toBe(47n);
  await store.markRefunded(refunded.digest);
  expect(store.committedUnsettled(BIDDER)).toBe(7n);
});
