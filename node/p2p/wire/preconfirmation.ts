/**
 * Bids and commitments on the wire (p2p.md "Messages", upstream pkg/preconfirmation): a SignedBid becomes a
 * `preconfirmation.v1.Bid` (the comma-joined hash strings that enter the digest, decimal amounts, the bid's BN254
 * key as X‖Y), sealed with the bidder's AES key into an EncryptedBid; a provider answers an EncryptedPreConfirmation
 * (commitment digest, signature, dispatch timestamp; upstream leaves commitment_index empty, so do we).
 *
 * Protocol v1.2 adds `bid_options` (field 12). A v1.1 bid has none, and an empty bytes field is left out of the
 * encoding, so v1.1's bytes are those of the pinned wire. A v1.2 provider reads the field (empty when absent) and the
 * bid's digest is recomputed over it; a v1.1 provider ignores it, as the pinned node knows no field 12.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { MevCommitError } from "../../../lib/errors.ts";
import {
  type Bid as BidMessage,
  BidSchema,
  type EncryptedBid,
  EncryptedBidSchema,
  type EncryptedPreConfirmation,
  EncryptedPreConfirmationSchema,
} from "../../gen/proto/p2p/preconfirmation/v1/preconfirmation_pb.ts";
import type { CommitmentReply } from "../../network/network.ts";
import { decodeG1, encodeG1 } from "../../protocol/bn254.ts";
import { splitTxHashes } from "../../protocol/digest.ts";
import type { ProtocolRules } from "../../protocol/rules.ts";
import type { SignedBid } from "../../protocol/types.ts";
import { openAesGcm, sealAesGcm } from "./aesGcm.ts";

export class BidMessageError extends MevCommitError {}

const DECIMAL = /^\d+$/;

function hashList(joined: string): string[] {
  return joined === "" ? [] : splitTxHashes(joined);
}

export function bidToMessage(b: SignedBid): BidMessage {
  return create(BidSchema, {
    txHash: b.txnHash,
    bidAmount: b.bid.amount.toString(),
    blockNumber: b.bid.blockNumber,
    digest: b.digest,
    signature: b.signature,
    decayStartTimestamp: b.bid.decayStartTimestamp,
    decayEndTimestamp: b.bid.decayEndTimestamp,
    nikePublicKey: encodeG1(b.bidderNikePublicKey),
    revertingTxHashes: b.revertingTxHashes,
    rawTransactions: [...b.bid.rawTransactions],
    slashAmount: b.bid.slashAmount.toString(),
    bidOptions: b.bid.bidOptions ?? new Uint8Array(0),
  });
}

/** A received Bid as the provider's services take it; the signature is checked later (verifyBid). */
export function bidFromMessage(m: BidMessage, rules: ProtocolRules): SignedBid {
  if (!DECIMAL.test(m.bidAmount)) throw new BidMessageError(`invalid bid amount "${m.bidAmount}"`);
  if (!DECIMAL.test(m.slashAmount)) throw new BidMessageError(`invalid slash amount "${m.slashAmount}"`);
  if (m.blockNumber <= 0n) throw new BidMessageError(`invalid block number ${m.blockNumber}`);
  if (m.digest.length !== 32 || m.signature.length !== 65) throw new BidMessageError("missing hash or signature");
  let bidderNikePublicKey;
  try {
    bidderNikePublicKey = decodeG1(m.nikePublicKey);
  } catch (e) {
    throw new BidMessageError(`nike public key: ${(e as Error).message}`);
  }
  return {
    bid: {
      txHashes: hashList(m.txHash),
      rawTransactions: m.rawTransactions,
      amount: BigInt(m.bidAmount),
      blockNumber: m.blockNumber,
      decayStartTimestamp: m.decayStartTimestamp,
      decayEndTimestamp: m.decayEndTimestamp,
      revertingTxHashes: hashList(m.revertingTxHashes),
      slashAmount: BigInt(m.slashAmount),
      ...(rules.bidOptions ? { bidOptions: m.bidOptions } : {}),
    },
    txnHash: m.txHash,
    revertingTxHashes: m.revertingTxHashes,
    digest: m.digest,
    signature: m.signature,
    bidderNikePublicKey,
  };
}

export function encryptBid(aesKey: Uint8Array, bid: SignedBid): EncryptedBid {
  return create(EncryptedBidSchema, { ciphertext: sealAesGcm(aesKey, toBinary(BidSchema, bidToMessage(bid))) });
}

export function decryptBid(aesKey: Uint8Array, encrypted: EncryptedBid, rules: ProtocolRules): SignedBid {
  const plain = openAesGcm(aesKey, encrypted.ciphertext);
  let m: BidMessage;
  try {
    m = fromBinary(BidSchema, plain);
  } catch (e) {
    throw new BidMessageError(`failed to unmarshal bid: ${(e as Error).message}`);
  }
  return bidFromMessage(m, rules);
}

export function commitmentToMessage(reply: CommitmentReply): EncryptedPreConfirmation {
  return create(EncryptedPreConfirmationSchema, {
    commitment: reply.digest,
    signature: reply.signature,
    dispatchTimestamp: reply.dispatchTimestamp,
  });
}

export function commitmentFromMessage(m: EncryptedPreConfirmation): CommitmentReply {
  if (m.signature.length === 0) throw new BidMessageError("missing hash or signature");
  return { digest: m.commitment, signature: m.signature, dispatchTimestamp: m.dispatchTimestamp };
}
