/**
 * Bid and commitment digests, byte-identical to upstream (crypto-contracts §1.2–1.4, §1.8).
 *
 * The domain separators are NOT standard EIP-712: `name` and `version` are ABI-encoded as dynamic
 * strings (offset word + length + padded bytes) instead of being hashed, so viem's hashTypedData
 * gives a different (wrong) digest. Both are hand-rolled here with keccak256 over fixed words.
 */

import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { bigIntToBytes, concatBytes, hexToBytes, strip0x, utf8 } from "./bytes.ts";
import { keccak256 } from "./keccak.ts";
import type { G1Point, ProtocolDomains } from "./types.ts";

export const BID_DOMAIN_NAME = "PreConfBid";
export const COMMITMENT_DOMAIN_NAME = "OpenedCommitment";
export const DOMAIN_VERSION = "1";

export const EIP712_DOMAIN_TYPE = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)";
export const BID_TYPE =
  "PreConfBid(string txnHash,string revertingTxHashes,uint256 bidAmt,uint64 blockNumber,uint64 decayStartTimeStamp,uint64 decayEndTimeStamp,uint256 slashAmt,uint256 bidderPKx,uint256 bidderPKy)";
/** The v1.2 bid type: the v1.1 type with `bytes bidOptions` last (upstream-head-delta §2.6). */
export const BID_TYPE_WITH_OPTIONS =
  "PreConfBid(string txnHash,string revertingTxHashes,uint256 bidAmt,uint64 blockNumber,uint64 decayStartTimeStamp,uint64 decayEndTimeStamp,uint256 slashAmt,uint256 bidderPKx,uint256 bidderPKy,bytes bidOptions)";
export const COMMITMENT_TYPE =
  "OpenedCommitment(bytes32 bidHash,string signature,uint256 sharedKeyX,uint256 sharedKeyY)";

export const EIP712_DOMAIN_TYPEHASH = keccak256(utf8(EIP712_DOMAIN_TYPE));
export const BID_TYPEHASH = keccak256(utf8(BID_TYPE));
export const BID_TYPEHASH_WITH_OPTIONS = keccak256(utf8(BID_TYPE_WITH_OPTIONS));
export const COMMITMENT_TYPEHASH = keccak256(utf8(COMMITMENT_TYPE));

const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

export class DigestInputError extends MevCommitError {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`cannot build digest: ${field} ${detail}`, { context: { field } });
  }
}

function uintWord(field: string, value: bigint, max: bigint): Uint8Array {
  if (value < 0n || value > max) throw new DigestInputError(field, `= ${value} is out of range`);
  return bigIntToBytes(value, 32);
}

function paddedTail(bytes: Uint8Array): Uint8Array {
  const words = Math.ceil(bytes.length / 32);
  const out = new Uint8Array(32 + words * 32);
  out.set(bigIntToBytes(BigInt(bytes.length), 32), 0);
  out.set(bytes, 32);
  return out;
}

/**
 * keccak256(abi.encode(typeHash, string name, string "1", uint256 chainId, address verifyingContract))
 * with the strings as dynamic ABI values (PreconfManager.initialize / encryptor.ComputeDomainSeparator).
 */
export function domainSeparator(name: string, chainId: bigint, verifyingContract: Address | string): Uint8Array {
  const contract = hexToBytes(verifyingContract);
  if (contract.length !== 20) throw new DigestInputError("verifyingContract", "must be 20 bytes");
  const nameTail = paddedTail(utf8(name));
  const versionTail = paddedTail(utf8(DOMAIN_VERSION));
  const head = concatBytes(
    EIP712_DOMAIN_TYPEHASH,
    bigIntToBytes(160n, 32),
    bigIntToBytes(160n + BigInt(nameTail.length), 32),
    uintWord("chainId", chainId, UINT256_MAX),
    concatBytes(new Uint8Array(12), contract),
  );
  return keccak256(concatBytes(head, nameTail, versionTail));
}

/** Both separators of a deployment: settlement chain id and the PreconfManager address. */
export function protocolDomains(chainId: bigint, preconfManager: Address | string): ProtocolDomains {
  return {
    bid: domainSeparator(BID_DOMAIN_NAME, chainId, preconfManager),
    commitment: domainSeparator(COMMITMENT_DOMAIN_NAME, chainId, preconfManager),
  };
}

function typedDataHash(domain: Uint8Array, structHash: Uint8Array): Uint8Array {
  if (domain.length !== 32) throw new DigestInputError("domain separator", "must be 32 bytes");
  const pre = new Uint8Array(66);
  pre[0] = 0x19;
  pre[1] = 0x01;
  pre.set(domain, 2);
  pre.set(structHash, 34);
  return keccak256(pre);
}

/** The digest's view of a bid: the p2p `Bid` fields that are signed. */
export interface BidDigestFields {
  /** Comma-joined tx hashes (joinTxHashes), hashed as UTF-8 text. */
  readonly txnHash: string;
  /** Comma-joined reverting hashes, "" when none. */
  readonly revertingTxHashes: string;
  readonly bidAmt: bigint;
  readonly blockNumber: bigint;
  readonly decayStart: bigint;
  readonly decayEnd: bigint;
  readonly slashAmt: bigint;
  /** The bid's ephemeral BN254 public key. */
  readonly bidderPK: G1Point;
  /**
   * v1.2 only: the bid options exactly as carried on the wire (empty when the bid has none). Present, even empty,
   * it selects the v1.2 digest (BID_TYPE_WITH_OPTIONS, an 11th word keccak256(bidOptions)); absent, the v1.1 one.
   */
  readonly bidOptions?: Uint8Array;
}

/** keccak256(0x1901 ‖ domainSep("PreConfBid") ‖ structHash(bid)), in the form of the bid's protocol version. */
export function bidDigest(fields: BidDigestFields, bidDomain: Uint8Array): Uint8Array {
  const withOptions = fields.bidOptions !== undefined;
  const struct = concatBytes(
    withOptions ? BID_TYPEHASH_WITH_OPTIONS : BID_TYPEHASH,
    keccak256(utf8(fields.txnHash)),
    keccak256(utf8(fields.revertingTxHashes)),
    uintWord("bidAmt", fields.bidAmt, UINT256_MAX),
    uintWord("blockNumber", fields.blockNumber, UINT64_MAX),
    uintWord("decayStart", fields.decayStart, UINT64_MAX),
    uintWord("decayEnd", fields.decayEnd, UINT64_MAX),
    uintWord("slashAmt", fields.slashAmt, UINT256_MAX),
    uintWord("bidderPK.x", fields.bidderPK.x, UINT256_MAX),
    uintWord("bidderPK.y", fields.bidderPK.y, UINT256_MAX),
    fields.bidOptions !== undefined ? keccak256(fields.bidOptions) : new Uint8Array(0),
  );
  return typedDataHash(bidDomain, keccak256(struct));
}

/**
 * keccak256(0x1901 ‖ domainSep("OpenedCommitment") ‖ keccak256(abi.encode(typeHash, bidDigest,
 * keccak256(bidSignature), sharedX, sharedY))). The bid signature is hashed as transmitted (v = 27/28).
 */
export function commitmentDigest(
  bidDigestBytes: Uint8Array,
  bidSignature: Uint8Array,
  sharedKey: G1Point,
  commitmentDomain: Uint8Array,
): Uint8Array {
  if (bidDigestBytes.length !== 32) throw new DigestInputError("bidDigest", "must be 32 bytes");
  const struct = concatBytes(
    COMMITMENT_TYPEHASH,
    bidDigestBytes,
    keccak256(bidSignature),
    uintWord("sharedKey.x", sharedKey.x, UINT256_MAX),
    uintWord("sharedKey.y", sharedKey.y, UINT256_MAX),
  );
  return typedDataHash(commitmentDomain, keccak256(struct));
}

/** keccak256(digest ‖ signature): the index of both the unopened and the opened commitment. */
export function commitmentIndex(digest: Uint8Array, signature: Uint8Array): Uint8Array {
  return keccak256(concatBytes(digest, signature));
}

/**
 * The `txnHash` / `revertingTxHashes` strings of the digest: each hash without a leading `0x`,
 * joined with "," (no spaces). Case is preserved; callers normalise (bidValidation lower-cases).
 */
export function joinTxHashes(hashes: readonly string[]): string {
  return hashes.map(strip0x).join(",");
}

/** Go's strings.Split(s, ","): "" gives [""] (how upstream renders a bid with no reverting hashes). */
export function splitTxHashes(joined: string): string[] {
  return joined.split(",");
}

/**
 * The replay-guard key of `openCommitment`: keccak256(abi.encode(string txnHash, address bidder,
 * uint64 blockNumber)) (crypto-contracts §1.8).
 */
export function txnHashReplayKey(txnHash: string, bidder: Address | string, blockNumber: bigint): Uint8Array {
  const bidderBytes = hexToBytes(bidder);
  if (bidderBytes.length !== 20) throw new DigestInputError("bidder", "must be 20 bytes");
  return keccak256(
    concatBytes(
      bigIntToBytes(96n, 32),
      concatBytes(new Uint8Array(12), bidderBytes),
      uintWord("blockNumber", blockNumber, UINT64_MAX),
      paddedTail(utf8(txnHash)),
    ),
  );
}
