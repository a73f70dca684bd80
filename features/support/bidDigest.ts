/**
 * The bid digest, written here from the spec sheets (crypto-contracts §1.2–§1.3; protocol v1.2 adds
 * keccak256(bidOptions) as an 11th word and `,bytes bidOptions` to the type string, upstream-head-delta §2.6).
 * The domain separator is not standard EIP-712: the name and version are ABI-encoded as dynamic strings.
 */
import { concatHex, encodeAbiParameters, type Hex, keccak256, stringToHex } from "viem";
import type { ProtocolRules } from "./protocolRules.ts";

const DOMAIN_TYPE = keccak256(
  stringToHex("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
);
const BID_TYPE =
  "PreConfBid(string txnHash,string revertingTxHashes,uint256 bidAmt,uint64 blockNumber,uint64 decayStartTimeStamp,uint64 decayEndTimeStamp,uint256 slashAmt,uint256 bidderPKx,uint256 bidderPKy)";
const BID_TYPE_WITH_OPTIONS = `${BID_TYPE.slice(0, -1)},bytes bidOptions)`;

export interface BidDigestInput {
  chainId: bigint;
  verifyingContract: Hex;
  txnHash: string;
  revertingTxHashes: string;
  bidAmt: bigint;
  blockNumber: bigint;
  decayStart: bigint;
  decayEnd: bigint;
  slashAmt: bigint;
  bidderPKx: bigint;
  bidderPKy: bigint;
  /** The bid options' bytes as carried on the wire (protocol v1.2 only; "0x" = none). */
  bidOptions?: Hex;
}

export function bidTypeHash(rules: ProtocolRules): Hex {
  return keccak256(stringToHex(rules.bidOptions ? BID_TYPE_WITH_OPTIONS : BID_TYPE));
}

export function bidDomainSeparator(chainId: bigint, verifyingContract: Hex): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "string" }, { type: "string" }, { type: "uint256" }, { type: "address" }],
      [DOMAIN_TYPE, "PreConfBid", "1", chainId, verifyingContract],
    ),
  );
}

export function bidDigest(rules: ProtocolRules, b: BidDigestInput): Hex {
  const words: { type: string }[] = [
    { type: "bytes32" },
    { type: "bytes32" },
    { type: "bytes32" },
    { type: "uint256" },
    { type: "uint64" },
    { type: "uint64" },
    { type: "uint64" },
    { type: "uint256" },
    { type: "uint256" },
    { type: "uint256" },
  ];
  const values: unknown[] = [
    bidTypeHash(rules),
    keccak256(stringToHex(b.txnHash)),
    keccak256(stringToHex(b.revertingTxHashes)),
    b.bidAmt,
    b.blockNumber,
    b.decayStart,
    b.decayEnd,
    b.slashAmt,
    b.bidderPKx,
    b.bidderPKy,
  ];
  if (rules.bidOptions) {
    words.push({ type: "bytes32" });
    values.push(keccak256(b.bidOptions ?? "0x"));
  }
  const structHash = keccak256(encodeAbiParameters(words, values));
  return keccak256(concatHex(["0x1901", bidDomainSeparator(b.chainId, b.verifyingContract), structHash]));
}

/** The inputs of upstream's test vectors (crypto-contracts §1.6; upstream-head-delta §2.6). */
export const VECTOR_INPUT: Omit<BidDigestInput, "bidOptions"> = {
  chainId: 31337n,
  verifyingContract: "0xA4AD4f68d0b91CFD19687c881e50f3A00242828c",
  txnHash: "0xkartik",
  revertingTxHashes: "0xkartik",
  bidAmt: 2n,
  blockNumber: 2n,
  decayStart: 10n,
  decayEnd: 20n,
  slashAmt: 0n,
  bidderPKx: 1n,
  bidderPKy: 2n,
};
