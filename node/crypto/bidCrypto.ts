/**
 * The signing and verification of a bid's path as one small asynchronous interface, so the nodes can run it on
 * their own thread (`inlineCrypto`) or on worker threads (`CryptoPool`, cryptoPool.ts) without knowing which:
 * the bidder signs bids and verifies commitments, the provider verifies bids and signs commitments. Every
 * operation is the pure function of node/protocol; only where it runs differs.
 */
import type { Address } from "viem";
import { type SignedBidWithSecret, signBid, verifyBid } from "../protocol/bidSigning.ts";
import { sharedPoint } from "../protocol/bn254.ts";
import {
  type SignCommitmentInput,
  signCommitment,
  type VerifiedCommitment,
  type VerifyCommitmentInput,
  verifyCommitment,
} from "../protocol/commitmentSigning.ts";
import type { Bid, Commitment, G1Point, SignedBid } from "../protocol/types.ts";
import { queuedWritesSent } from "../util/queuedWrites.ts";

export interface BidCrypto {
  signBid(bid: Bid, bidderPrivateKey: string, bidDomain: Uint8Array): Promise<SignedBidWithSecret>;
  /** The bidder's address; rejects with BidVerificationError. */
  verifyBid(signedBid: SignedBid, bidDomain: Uint8Array): Promise<Address>;
  signCommitment(input: SignCommitmentInput): Promise<Commitment>;
  /** Rejects with CommitmentVerificationError. */
  verifyCommitment(input: VerifyCommitmentInput): Promise<VerifiedCommitment>;
  /** The NIKE shared key secret·point, computed ahead of a commitment's signing (SignCommitmentInput.sharedKey). */
  sharedKey(secret: bigint, point: G1Point): Promise<G1Point>;
}

/**
 * The crypto on the calling thread (tests, small devnets, and the workers of a pool themselves). Each operation
 * first lets the streamed lines already queued go out, so that one bid's crypto does not hold back another's
 * commitment line (node/util/queuedWrites.ts).
 */
export const inlineCrypto: BidCrypto = {
  signBid: afterQueuedWrites(signBid),
  verifyBid: afterQueuedWrites(verifyBid),
  signCommitment: afterQueuedWrites(signCommitment),
  verifyCommitment: afterQueuedWrites(verifyCommitment),
  sharedKey: afterQueuedWrites(sharedPoint),
};

/** `fn`, run once the streamed lines already queued have gone out. */
function afterQueuedWrites<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => Promise<R> {
  return async (...args) => {
    await queuedWritesSent();
    return fn(...args);
  };
}
