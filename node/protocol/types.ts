/**
 * Protocol value types shared by the node's roles. Everything here is plain data: amounts and
 * timestamps are bigint (wei, Unix milliseconds), hashes are lower-case hex without `0x`,
 * digests and signatures are raw bytes.
 */
import type { Address } from "viem";

/** An affine BN254 G1 point. The point at infinity is (0, 0), as in the EVM precompiles. */
export interface G1Point {
  readonly x: bigint;
  readonly y: bigint;
}

/** A bid as accepted from the bidder API, after validation and normalisation (bidValidation.ts). */
export interface Bid {
  /** Transaction hashes, 64 lower-case hex chars, no `0x`. From `tx_hashes` or hashed from `raw_transactions`. */
  readonly txHashes: readonly string[];
  /** Raw signed transactions exactly as the bidder sent them (may carry `0x`); empty when hashes were given. */
  readonly rawTransactions: readonly string[];
  /** Bid amount in wei (> 0). */
  readonly amount: bigint;
  /** Target L1 block number (> 0). */
  readonly blockNumber: bigint;
  /** Decay start, Unix ms (> 0). */
  readonly decayStartTimestamp: bigint;
  /** Decay end, Unix ms (> 0). Not checked against the start, as upstream. */
  readonly decayEndTimestamp: bigint;
  /** Hashes allowed to revert, normalised like txHashes. */
  readonly revertingTxHashes: readonly string[];
  /** Extra slash amount in wei, 0 when omitted (v1.2: the bid's amount); at most 2^64-1. */
  readonly slashAmount: bigint;
  /**
   * v1.2 bids only: the binary `bidderapi.v1.BidOptions` as carried on the wire (empty when the bid has none).
   * Absent on v1.1 bids; present, even empty, it puts the bid under the v1.2 digest (digest.ts).
   */
  readonly bidOptions?: Uint8Array;
}

/** A bid signed by the bidder node: what travels to providers (the p2p `Bid` message). */
export interface SignedBid {
  readonly bid: Bid;
  /** `joinTxHashes(bid.txHashes)`, the string that enters the digest. */
  readonly txnHash: string;
  /** `joinTxHashes(bid.revertingTxHashes)`. */
  readonly revertingTxHashes: string;
  /** EIP-712-style bid digest (32 bytes). */
  readonly digest: Uint8Array;
  /** Bidder signature r‖s‖v, v = 27/28, low-S (65 bytes). */
  readonly signature: Uint8Array;
  /** The bid's ephemeral BN254 public key (the p2p `nike_public_key`). */
  readonly bidderNikePublicKey: G1Point;
}

/** A provider's signed commitment to a bid, as the bidder node receives it. */
export interface Commitment {
  readonly signedBid: SignedBid;
  /** Commitment digest (32 bytes). */
  readonly digest: Uint8Array;
  /** Provider signature r‖s‖v, v = 27/28 (65 bytes). */
  readonly signature: Uint8Array;
  /** The BN254 shared point that enters the commitment digest. */
  readonly sharedKey: G1Point;
  /** Provider-chosen dispatch time, Unix ms. Not covered by the signature. */
  readonly dispatchTimestamp: bigint;
  /** Signer of the commitment (checksummed). */
  readonly providerAddress: Address;
  /** keccak256(digest ‖ signature). */
  readonly commitmentIndex: Uint8Array;
}

/** Decision status of a processed bid (providerapi `BidResponse.Status`). */
export const ProcessedBidStatus = {
  UNSPECIFIED: 0,
  ACCEPTED: 1,
  REJECTED: 2,
} as const;
export type ProcessedBidStatus = (typeof ProcessedBidStatus)[keyof typeof ProcessedBidStatus];

/** Enum value names as grpc-gateway renders and accepts them. */
export const PROCESSED_BID_STATUS_NAMES: Readonly<Record<string, number>> = {
  STATUS_UNSPECIFIED: 0,
  STATUS_ACCEPTED: 1,
  STATUS_REJECTED: 2,
};

/** One provider decision on a bid (SendProcessedBids body element), after validation. */
export interface ProcessedBid {
  readonly bidDigest: Uint8Array;
  readonly status: typeof ProcessedBidStatus.ACCEPTED | typeof ProcessedBidStatus.REJECTED;
  /** Unix ms; 0 when omitted. */
  readonly dispatchTimestamp: bigint;
}

/** Commitment status strings of the node's commitment store (api-behaviour §3.2). */
export const COMMITMENT_STATUSES = ["pending", "stored", "opened", "settled", "slashed", "failed"] as const;
export type CommitmentStatus = (typeof COMMITMENT_STATUSES)[number];

/** The two EIP-712-like domain separators of one deployment. */
export interface ProtocolDomains {
  readonly bid: Uint8Array;
  readonly commitment: Uint8Array;
}

/** Positions of the 8 words of an `openCommitment` zkProof array. */
export const ZK_PROOF_INDEX = {
  providerPkX: 0,
  providerPkY: 1,
  bidderPkX: 2,
  bidderPkY: 3,
  sharedX: 4,
  sharedY: 5,
  c: 6,
  z: 7,
} as const;
