import { beforeAll, describe, expect, test } from "bun:test";
import { VECTOR } from "../testing/testVectors.ts";
import { BidVerificationError, signBid, verifyBid } from "./bidSigning.ts";
import { randomKeyPair } from "./bn254.ts";
import { bytesToHex } from "./bytes.ts";
import { CommitmentVerificationError, signCommitment, verifyCommitment } from "./commitmentSigning.ts";
import { protocolDomains } from "./digest.ts";
import { initCrypto } from "./initCrypto.ts";
import type { Bid } from "./types.ts";
import { proveOpening, verifyOpening, zkProofArray } from "./zkProof.ts";

beforeAll(async () => {
  await initCrypto();
});

const domains = protocolDomains(VECTOR.chainId, VECTOR.preconfManager);
const bid: Bid = {
  txHashes: ["aa".repeat(32), "bb".repeat(32)],
  rawTransactions: [],
  amount: 10n ** 18n,
  blockNumber: 42n,
  decayStartTimestamp: 1_700_000_000_000n,
  decayEndTimestamp: 1_700_000_012_000n,
  revertingTxHashes: [],
  slashAmount: 0n,
};

describe("bid → commitment → opening proof", () => {
  test("full round trip", () => {
    const { signedBid, nikeSecret } = signBid(bid, VECTOR.aliceKey, domains.bid);
    expect(signedBid.txnHash).toBe(`${"aa".repeat(32)},${"bb".repeat(32)}`);
    expect(signedBid.revertingTxHashes).toBe("");
    expect(signedBid.signature[64]).toBeOneOf([27, 28]);
    expect(verifyBid(signedBid, domains.bid)).toBe(VECTOR.aliceAddress);

    const provider = randomKeyPair();
    const commitment = signCommitment({
      signedBid,
      providerPrivateKey: VECTOR.bobKey,
      providerNikeSecret: provider.secret,
      commitmentDomain: domains.commitment,
      dispatchTimestamp: 1_700_000_001_000n,
    });
    expect(commitment.providerAddress).toBe(VECTOR.bobAddress);
    const verified = verifyCommitment({
      signedBid,
      bidderNikeSecret: nikeSecret,
      providerNikePublicKey: provider.publicKey,
      digest: commitment.digest,
      signature: commitment.signature,
      commitmentDomain: domains.commitment,
    });
    expect(verified.providerAddress).toBe(VECTOR.bobAddress);
    expect(verified.sharedKey).toEqual(commitment.sharedKey);

    const proof = proveOpening({
      providerSecret: provider.secret,
      bidderPublicKey: signedBid.bidderNikePublicKey,
      chainId: VECTOR.chainId,
    });
    expect(proof.sharedKey).toEqual(commitment.sharedKey);
    expect(verifyOpening(zkProofArray(proof), VECTOR.chainId)).toBe(true);
  });

  test("the §1.6 vector through signBid with the fixed key (1, 2) is not reachable, but digest fields line up", () => {
    // signBid draws a key pair; with a forced secret of 1 the public key is the generator (1, 2)
    const { signedBid } = signBid(
      {
        ...bid,
        txHashes: ["0xkartik"],
        revertingTxHashes: ["0xkartik"],
        amount: 2n,
        blockNumber: 2n,
        decayStartTimestamp: 10n,
        decayEndTimestamp: 20n,
      },
      VECTOR.aliceKey,
      domains.bid,
      { secret: 1n, publicKey: { x: 1n, y: 2n } },
    );
    // joinTxHashes strips the 0x of "0xkartik", so this is NOT the vector's "0xkartik" string
    expect(signedBid.txnHash).toBe("kartik");
    expect(bytesToHex(signedBid.digest)).not.toBe(VECTOR.bidDigest);
  });

  test("tampering is detected", () => {
    const { signedBid, nikeSecret } = signBid(bid, VECTOR.aliceKey, domains.bid);
    expect(() => verifyBid({ ...signedBid, bid: { ...bid, amount: 1n } }, domains.bid)).toThrow(BidVerificationError);
    expect(() => verifyBid({ ...signedBid, bid: { ...bid, amount: 1n } }, domains.bid)).toThrow(
      "bidhash doesn't match bid payload",
    );
    const provider = randomKeyPair();
    const c = signCommitment({
      signedBid,
      providerPrivateKey: VECTOR.bobKey,
      providerNikeSecret: provider.secret,
      commitmentDomain: domains.commitment,
      dispatchTimestamp: 0n,
    });
    expect(() =>
      verifyCommitment({
        signedBid,
        bidderNikeSecret: nikeSecret,
        providerNikePublicKey: randomKeyPair().publicKey,
        digest: c.digest,
        signature: c.signature,
        commitmentDomain: domains.commitment,
      }),
    ).toThrow(CommitmentVerificationError);
  });
});
