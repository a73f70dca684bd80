import type { Address } from "viem";
import { bytesToHex } from "../protocol/bytes.ts";
import type { Commitment, CommitmentStatus } from "../protocol/types.ts";

/** One commitment as a node records it (bidder: each one received; provider: each one made). */
export interface CommitmentRecord {
  /** Commitment digest, hex without 0x: the key. */
  digest: string;
  commitmentIndex: string;
  commitmentSignature: string;
  bidDigest: string;
  bidSignature: string;
  bidder: string;
  provider: string;
  txnHash: string;
  revertingTxHashes: string;
  rawTransactions: string[];
  bidAmount: bigint;
  blockNumber: bigint;
  decayStart: bigint;
  decayEnd: bigint;
  dispatchTimestamp: bigint;
  slashAmount: bigint;
  bidderPkX: bigint;
  bidderPkY: bigint;
  sharedX: bigint;
  sharedY: bigint;
  status: CommitmentStatus;
  details: string;
  payment: string;
  refund: string;
  /** The bid's options as raw proto bytes, hex without 0x (absent or "" = none; protocol v1.2 opens with them). */
  bidOptions?: string;
}

/** The stored form of a commitment (hex without 0x, lower case). */
export function toRecord(c: Commitment, bidder: Address, status: CommitmentStatus): CommitmentRecord {
  const b = c.signedBid;
  return {
    digest: bytesToHex(c.digest),
    commitmentIndex: bytesToHex(c.commitmentIndex),
    commitmentSignature: bytesToHex(c.signature),
    bidDigest: bytesToHex(b.digest),
    bidSignature: bytesToHex(b.signature),
    bidder: bidder.toLowerCase().slice(2),
    provider: c.providerAddress.toLowerCase().slice(2),
    txnHash: b.txnHash,
    revertingTxHashes: b.revertingTxHashes,
    rawTransactions: [...b.bid.rawTransactions],
    bidAmount: b.bid.amount,
    blockNumber: b.bid.blockNumber,
    decayStart: b.bid.decayStartTimestamp,
    decayEnd: b.bid.decayEndTimestamp,
    dispatchTimestamp: c.dispatchTimestamp,
    slashAmount: b.bid.slashAmount,
    bidderPkX: b.bidderNikePublicKey.x,
    bidderPkY: b.bidderNikePublicKey.y,
    sharedX: c.sharedKey.x,
    sharedY: c.sharedKey.y,
    status,
    details: "",
    payment: "",
    refund: "",
    ...(b.bid.bidOptions?.length ? { bidOptions: bytesToHex(b.bid.bidOptions) } : {}),
  };
}
