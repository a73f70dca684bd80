/**
 * The bidder node's signing of a bid and the provider's check of it (crypto-contracts §1.3, §1.5;
 * api-behaviour §2.1 step 2, §2.2 step 3): a fresh BN254 key per bid, the bid digest over the
 * comma-joined hash strings, a v = 27/28 signature; verification recomputes the digest, requires
 * byte equality with the carried digest, then recovers the bidder.
 */
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { type Bn254KeyPair, randomKeyPair } from "./bn254.ts";
import { bytesEqual } from "./bytes.ts";
import { type BidDigestFields, bidDigest, joinTxHashes } from "./digest.ts";
import { recoverAddress, signDigest } from "./secp256k1.ts";
import type { Bid, G1Point, SignedBid } from "./types.ts";

export class BidVerificationError extends MevCommitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The digest view of a bid given its per-bid public key. */
export function bidDigestFieldsOf(bid: Bid, bidderPK: G1Point): BidDigestFields {
  return {
    txnHash: joinTxHashes(bid.txHashes),
    revertingTxHashes: joinTxHashes(bid.revertingTxHashes),
    bidAmt: bid.amount,
    blockNumber: bid.blockNumber,
    decayStart: bid.decayStartTimestamp,
    decayEnd: bid.decayEndTimestamp,
    slashAmt: bid.slashAmount,
    bidderPK,
    ...(bid.bidOptions !== undefined ? { bidOptions: bid.bidOptions } : {}),
  };
}

export interface SignedBidWithSecret {
  readonly signedBid: SignedBid;
  /** The bid's BN254 secret; the bidder keeps it to check commitments (shared key b·A). */
  readonly nikeSecret: bigint;
}

/** Signs a bid with the bidder's key; draws a fresh BN254 key pair unless one is given. */
export function signBid(
  bid: Bid,
  bidderPrivateKey: Uint8Array | string,
  bidDomain: Uint8Array,
  nike: Bn254KeyPair = randomKeyPair(),
): SignedBidWithSecret {
  const fields = bidDigestFieldsOf(bid, nike.publicKey);
  const digest = bidDigest(fields, bidDomain);
  return {
    signedBid: {
      bid,
      txnHash: fields.txnHash,
      revertingTxHashes: fields.revertingTxHashes,
      digest,
      signature: signDigest(bidderPrivateKey, digest),
      bidderNikePublicKey: nike.publicKey,
    },
    nikeSecret: nike.secret,
  };
}

/** Provider-side `VerifyBid`: returns the bidder address, or throws BidVerificationError. */
export function verifyBid(signedBid: SignedBid, bidDomain: Uint8Array): Address {
  if (signedBid.digest.length === 0 || signedBid.signature.length === 0)
    throw new BidVerificationError("missing bid digest or signature");
  const fields = {
    ...bidDigestFieldsOf(signedBid.bid, signedBid.bidderNikePublicKey),
    txnHash: signedBid.txnHash,
    revertingTxHashes: signedBid.revertingTxHashes,
  };
  if (!bytesEqual(bidDigest(fields, bidDomain), signedBid.digest))
    throw new BidVerificationError("bidhash doesn't match bid payload");
  try {
    return recoverAddress(signedBid.digest, signedBid.signature);
  } catch (err) {
    throw new BidVerificationError(`invalid bid signature: ${(err as Error).message}`, { cause: err });
  }
}
