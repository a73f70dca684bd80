/**
 * The response bodies of GetCommitmentInfo and GetBidInfo built from one page of commitment records (already in
 * the store's order: block ascending, inside a block highest bid first, then commitment digest). Pure: no I/O.
 *
 * Wire rules (api-behaviour §0.2, §1.5, §1.6): every field present, 64-bit integers as strings, hex without 0x,
 * provider addresses lower-case. `revertableTxnHashes` is `[]` when the bid had none (upstream answers `[""]`:
 * docs/divergences.md).
 */
import type { CommitmentRecord } from "../tracker/record.ts";

/** The record fields the responses use. */
export type QueryRecord = Pick<
  CommitmentRecord,
  | "bidDigest"
  | "provider"
  | "txnHash"
  | "revertingTxHashes"
  | "bidAmount"
  | "blockNumber"
  | "decayStart"
  | "decayEnd"
  | "dispatchTimestamp"
  | "slashAmount"
  | "status"
  | "details"
  | "payment"
  | "refund"
>;

/** One commitment of GetCommitmentInfo (providerapi `CommitmentInfoResponse.Commitment`, field order kept). */
export interface CommitmentInfoItem {
  txnHashes: string[];
  revertableTxnHashes: string[];
  amount: string;
  blockNumber: string;
  providerAddress: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  dispatchTimestamp: string;
  slashAmount: string;
  status: string;
  details: string;
  payment: string;
  refund: string;
}

export interface CommitmentInfoResponse {
  commitments: { blockNumber: string; commitments: CommitmentInfoItem[] }[];
}

/** One provider's commitment to a bid in GetBidInfo (bidderapi `CommitmentWithStatus`). */
export interface CommitmentSummary {
  providerAddress: string;
  dispatchTimestamp: string;
  status: string;
  details: string;
  payment: string;
  refund: string;
}

/** One bid of GetBidInfo (bidderapi `BidInfo`, field order kept). */
export interface BidInfoItem {
  txnHashes: string[];
  revertableTxnHashes: string[];
  blockNumber: string;
  bidAmount: string;
  decayStartTimestamp: string;
  decayEndTimestamp: string;
  bidDigest: string;
  slashAmount: string;
  commitments: CommitmentSummary[];
}

export interface BidInfoResponse {
  blockBidInfo: { blockNumber: string; bids: BidInfoItem[] }[];
}

/** A comma-joined hash list as a JSON array; the empty list is `[]`. */
export function splitHashes(joined: string): string[] {
  return joined === "" ? [] : joined.split(",");
}

const lowerHex = (s: string) => (s.startsWith("0x") || s.startsWith("0X") ? s.slice(2) : s).toLowerCase();

export function commitmentInfoItem(r: QueryRecord): CommitmentInfoItem {
  return {
    txnHashes: splitHashes(r.txnHash),
    revertableTxnHashes: splitHashes(r.revertingTxHashes),
    amount: r.bidAmount.toString(),
    blockNumber: r.blockNumber.toString(),
    providerAddress: lowerHex(r.provider),
    decayStartTimestamp: r.decayStart.toString(),
    decayEndTimestamp: r.decayEnd.toString(),
    dispatchTimestamp: r.dispatchTimestamp.toString(),
    slashAmount: r.slashAmount.toString(),
    status: r.status,
    details: r.details,
    payment: r.payment,
    refund: r.refund,
  };
}

/** Consecutive records of one block form one group (the page is in block order, so each block appears once). */
export function groupCommitmentInfo(records: readonly QueryRecord[]): CommitmentInfoResponse {
  const groups: CommitmentInfoResponse["commitments"] = [];
  let last: bigint | undefined;
  for (const r of records) {
    if (last !== r.blockNumber || groups.length === 0) {
      groups.push({ blockNumber: r.blockNumber.toString(), commitments: [] });
      last = r.blockNumber;
    }
    groups[groups.length - 1]!.commitments.push(commitmentInfoItem(r));
  }
  return { commitments: groups };
}

export function commitmentSummary(r: QueryRecord): CommitmentSummary {
  return {
    providerAddress: lowerHex(r.provider),
    dispatchTimestamp: r.dispatchTimestamp.toString(),
    status: r.status,
    details: r.details,
    payment: r.payment,
    refund: r.refund,
  };
}

function bidInfoItem(r: QueryRecord): BidInfoItem {
  return {
    txnHashes: splitHashes(r.txnHash),
    revertableTxnHashes: splitHashes(r.revertingTxHashes),
    blockNumber: r.blockNumber.toString(),
    bidAmount: r.bidAmount.toString(),
    decayStartTimestamp: r.decayStart.toString(),
    decayEndTimestamp: r.decayEnd.toString(),
    bidDigest: lowerHex(r.bidDigest),
    slashAmount: r.slashAmount.toString(),
    commitments: [],
  };
}

/**
 * Consecutive records of one block form one group; inside it, the commitments of one bid (same bid digest) form
 * one bid, in the order the bid first appears. Two bids of equal amount can interleave in the store's order
 * (it breaks ties by commitment digest), so bids are matched by digest across the whole block group, as upstream.
 */
export function groupBidInfo(records: readonly QueryRecord[]): BidInfoResponse {
  const groups: BidInfoResponse["blockBidInfo"] = [];
  let last: bigint | undefined;
  let bids = new Map<string, BidInfoItem>();
  for (const r of records) {
    if (last !== r.blockNumber || groups.length === 0) {
      groups.push({ blockNumber: r.blockNumber.toString(), bids: [] });
      last = r.blockNumber;
      bids = new Map();
    }
    const digest = lowerHex(r.bidDigest);
    let bid = bids.get(digest);
    if (!bid) {
      bid = bidInfoItem(r);
      bids.set(digest, bid);
      groups[groups.length - 1]!.bids.push(bid);
    }
    bid.commitments.push(commitmentSummary(r));
  }
  return { blockBidInfo: groups };
}
