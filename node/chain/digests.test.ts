/**
 * Digest and proof vectors of crypto-contracts.md §1.6, checked in TS and against the deployed
 * PreconfManager's views (chain id 31337, so the ZK context hash matches upstream's vector).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress, type Hex, hashTypedData, keccak256, recoverAddress, stringToHex } from "viem";
import {
  BID_TYPEHASH,
  type BidFields,
  bidDigest,
  COMMITMENT_TYPEHASH,
  commitmentDigest,
  domainSeparator,
  type Harness,
  setupChain,
  verifyZkProof,
  zkContextHash,
} from "../testing/chainHarness.ts";
import { VECTOR } from "../testing/testVectors.ts";

const VECTOR_PM = "0xA4AD4f68d0b91CFD19687c881e50f3A00242828c" as const;
const VECTOR_BID: BidFields = {
  txnHash: "0xkartik",
  revertingTxHashes: "0xkartik",
  bidAmt: 2n,
  blockNumber: 2n,
  decayStartTimeStamp: 10n,
  decayEndTimeStamp: 20n,
  slashAmt: 0n,
  bidderPKx: 1n,
  bidderPKy: 2n,
};
const VECTOR_BID_DIGEST = "0x8d1f669e1d55329ba0dc133fba063c06c8ae146b8e815732f9951930c807ff7f";
const VECTOR_BID_DIGEST_STD_EIP712 = "0xc97113d35d21abc5630c905f642bc6fdc686b5373af0efd65f1173aa0c3f60be";
const VECTOR_BID_SIG: Hex =
  "0xaeed5b345d04360c6ad52d4fb4fce32eec8a552f87686afb39ceea04f9fd1a782b180e4eef5e02af77015292840c541e2681c8e165b44be1d8276aba7211bde21b";
const VECTOR_BIDDER = "0x328809Bc894f92807417D2dAD6b7C998c1aFdac6";
const VECTOR_COMMITMENT_DIGEST = "0x87d7e787de6386cba19d3d5680a8feaa5378c46f1c5e13c622ffcdb354485d23";
const VECTOR_COMMITMENT_SIG: Hex =
  "0xa0b508b09c6942d73b8feb4feb308ea0b753e14e32cff231f75348f25feb07b02b97743c4c9c493825ec6730e2bc24a513d09a2996a20beac2013f134c047cd71b";
const VECTOR_PROVIDER = "0x1d96f2f6bef1202e4ce1ff6dad0c2cb002861d3e";
const VECTOR_ZK = [...VECTOR.zkProof];

const vectorOpenParams = (pm: BidFields) => ({
  unopenedCommitmentIndex: `0x${"00".repeat(32)}` as Hex,
  bidAmt: pm.bidAmt,
  slashAmt: pm.slashAmt,
  blockNumber: pm.blockNumber,
  decayStartTimeStamp: pm.decayStartTimeStamp,
  decayEndTimeStamp: pm.decayEndTimeStamp,
  txnHash: pm.txnHash,
  revertingTxHashes: pm.revertingTxHashes,
  bidSignature: VECTOR_BID_SIG,
  zkProof: [0n, 0n, pm.bidderPKx, pm.bidderPKy, 1n, 2n, 0n, 0n],
});

describe("§1.6 vectors in TS", () => {
  test("type hashes", () => {
    expect(BID_TYPEHASH).toBe("0x073d75b5c45f1d169a3eda1b35e0c7d5d34e8532aae0087812ec01c6c7386bd5");
    expect(COMMITMENT_TYPEHASH).toBe("0x2f74b1a76572e937d6645a0726fe0e63dc94ed85cb69e6374d31eeaa9428babd");
  });

  test("bid digest uses the non-standard domain separator", () => {
    expect(bidDigest(VECTOR_BID, 31337, VECTOR_PM)).toBe(VECTOR_BID_DIGEST);
    // Standard EIP-712 (viem) gives the documented *wrong* digest.
    const std = hashTypedData({
      domain: { name: "PreConfBid", version: "1", chainId: 31337, verifyingContract: VECTOR_PM },
      types: {
        PreConfBid: [
          { name: "txnHash", type: "string" },
          { name: "revertingTxHashes", type: "string" },
          { name: "bidAmt", type: "uint256" },
          { name: "blockNumber", type: "uint64" },
          { name: "decayStartTimeStamp", type: "uint64" },
          { name: "decayEndTimeStamp", type: "uint64" },
          { name: "slashAmt", type: "uint256" },
          { name: "bidderPKx", type: "uint256" },
          { name: "bidderPKy", type: "uint256" },
        ],
      },
      primaryType: "PreConfBid",
      message: VECTOR_BID,
    });
    expect(std).toBe(VECTOR_BID_DIGEST_STD_EIP712);
  });

  test("signatures recover to the documented signers", async () => {
    expect(await recoverAddress({ hash: VECTOR_BID_DIGEST, signature: VECTOR_BID_SIG })).toBe(VECTOR_BIDDER);
    expect(commitmentDigest(VECTOR_BID_DIGEST, VECTOR_BID_SIG, 1n, 2n, 31337, VECTOR_PM)).toBe(
      VECTOR_COMMITMENT_DIGEST,
    );
    expect(await recoverAddress({ hash: VECTOR_COMMITMENT_DIGEST, signature: VECTOR_COMMITMENT_SIG })).toBe(
      getAddress(VECTOR_PROVIDER),
    );
  });

  test("ZK context hash and proof vector", () => {
    expect(zkContextHash(31337)).toBe(keccak256(stringToHex("mev-commit opening 31337")));
    expect(zkContextHash(31337).startsWith("0x7b16db65")).toBe(true);
    expect(zkContextHash(31337).endsWith("45813d03")).toBe(true);
    expect(verifyZkProof(VECTOR_ZK, 31337)).toBe(true);
    expect(verifyZkProof([...VECTOR_ZK.slice(0, 7), VECTOR_ZK[7]! + 1n], 31337)).toBe(false);
  });
});

describe("§1.6 vectors on-chain (chain 31337)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setupChain({ name: "digests", chainId: 31337, providers: 0 });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  test("type hashes, domain separators and ZK context match the TS formulas for our address", async () => {
    const pm = h.read.preconfManager;
    expect(await pm.read.EIP712_BID_TYPEHASH()).toBe(BID_TYPEHASH);
    expect(await pm.read.EIP712_COMMITMENT_TYPEHASH()).toBe(COMMITMENT_TYPEHASH);
    expect(await pm.read.domainSeparatorBid()).toBe(domainSeparator("PreConfBid", 31337, h.addresses.preconfManager));
    expect(await pm.read.domainSeparatorPreconf()).toBe(
      domainSeparator("OpenedCommitment", 31337, h.addresses.preconfManager),
    );
    expect(await pm.read.zkContextHash()).toBe(zkContextHash(31337));
    expect(await pm.read.HEXCHARS()).toBe(stringToHex("0123456789abcdef"));
  });

  test("getBidHash / getPreConfHash / verifyBid of the vector bid equal the TS digests for our address", async () => {
    const pm = h.read.preconfManager;
    const ours = bidDigest(VECTOR_BID, 31337, h.addresses.preconfManager);
    const params = vectorOpenParams(VECTOR_BID);
    expect(await pm.read.getBidHash([params])).toBe(ours);
    expect(await pm.read.getPreConfHash([ours, VECTOR_BID_SIG, params.zkProof])).toBe(
      commitmentDigest(ours, VECTOR_BID_SIG, 1n, 2n, 31337, h.addresses.preconfManager),
    );
    // The vector digest itself, re-derived on-chain from its pieces: same pre-image, other verifying contract.
    expect(await pm.read.getPreConfHash([VECTOR_BID_DIGEST, VECTOR_BID_SIG, params.zkProof])).toBe(
      commitmentDigest(VECTOR_BID_DIGEST, VECTOR_BID_SIG, 1n, 2n, 31337, h.addresses.preconfManager),
    );
    const [digest, signer] = await pm.read.verifyBid([params]);
    expect(digest).toBe(ours);
    // The vector signature is over the vector digest, so it recovers to some other address here.
    expect(signer).not.toBe(VECTOR_BIDDER);
  });
});
