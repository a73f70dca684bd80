import { afterAll, beforeAll, expect, test } from "bun:test";
import { devAccount } from "../chain/accounts.ts";
import { BidVerificationError } from "../protocol/bidSigning.ts";
import { randomKeyPair } from "../protocol/bn254.ts";
import { CommitmentVerificationError } from "../protocol/commitmentSigning.ts";
import { protocolDomains } from "../protocol/digest.ts";
import { initCrypto } from "../protocol/initCrypto.ts";
import type { Bid } from "../protocol/types.ts";
import { inlineCrypto } from "./bidCrypto.ts";
import { CryptoPool, CryptoPoolError } from "./cryptoPool.ts";

const domains = protocolDomains(17864n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const bidder = devAccount(0);
const provider = devAccount(1);
const bid: Bid = {
  txHashes: ["ab".repeat(32)],
  rawTransactions: [],
  amount: 1_000_000_000n,
  blockNumber: 100n,
  decayStartTimestamp: 1_700_000_000_000n,
  decayEndTimestamp: 1_700_000_012_000n,
  revertingTxHashes: [],
  slashAmount: 0n,
};
let pool: CryptoPool;
beforeAll(async () => {
  await initCrypto();
  pool = new CryptoPool(2);
});
afterAll(() => pool.close());

test("a bid signed, verified, committed to and checked on the pool gives what the same calls give on this thread", async () => {
  const nike = randomKeyPair();
  const { signedBid, nikeSecret } = await pool.signBid(bid, bidder.privateKey, domains.bid);
  expect(await pool.verifyBid(signedBid, domains.bid)).toBe(await inlineCrypto.verifyBid(signedBid, domains.bid));
  expect((await pool.verifyBid(signedBid, domains.bid)).toLowerCase()).toBe(bidder.address.toLowerCase());
  const input = {
    signedBid,
    providerPrivateKey: provider.privateKey,
    providerNikeSecret: nike.secret,
    commitmentDomain: domains.commitment,
    dispatchTimestamp: 5n,
  };
  const onPool = await pool.signCommitment(input);
  const here = await inlineCrypto.signCommitment(input);
  expect(onPool).toEqual(here);
  expect(onPool.signedBid).toBe(signedBid); // the caller's own object, not a copy
  const check = {
    signedBid,
    bidderNikeSecret: nikeSecret,
    providerNikePublicKey: nike.publicKey,
    digest: onPool.digest,
    signature: onPool.signature,
    commitmentDomain: domains.commitment,
  };
  expect(await pool.verifyCommitment(check)).toEqual(await inlineCrypto.verifyCommitment(check));
  // The shared key computed ahead (the provider's, while its application decides) signs the same commitment.
  const sharedKey = await pool.sharedKey(nike.secret, signedBid.bidderNikePublicKey);
  expect(sharedKey).toEqual(await inlineCrypto.sharedKey(nike.secret, signedBid.bidderNikePublicKey));
  expect(sharedKey).toEqual(here.sharedKey);
  expect(await pool.signCommitment({ ...input, sharedKey })).toEqual(here);
});

test("failures come back as the protocol's named errors", async () => {
  const { signedBid, nikeSecret } = await pool.signBid(bid, bidder.privateKey, domains.bid);
  const tampered = { ...signedBid, bid: { ...signedBid.bid, amount: 2n } };
  expect(await pool.verifyBid(tampered, domains.bid).catch((e) => e)).toBeInstanceOf(BidVerificationError);
  const nike = randomKeyPair();
  const c = await pool.signCommitment({
    signedBid,
    providerPrivateKey: provider.privateKey,
    providerNikeSecret: nike.secret,
    commitmentDomain: domains.commitment,
    dispatchTimestamp: 5n,
  });
  const wrongKey = randomKeyPair().publicKey;
  const err = await pool
    .verifyCommitment({
      signedBid,
      bidderNikeSecret: nikeSecret,
      providerNikePublicKey: wrongKey,
      digest: c.digest,
      signature: c.signature,
      commitmentDomain: domains.commitment,
    })
    .catch((e) => e);
  expect(err).toBeInstanceOf(CommitmentVerificationError);
  expect((err as Error).message).toContain("doesn't match");
});

test("calls spread over the workers all settle; a closed pool refuses", async () => {
  const signed = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      pool.signBid({ ...bid, amount: BigInt(i + 1) }, bidder.privateKey, domains.bid),
    ),
  );
  expect(new Set(signed.map((s) => Buffer.from(s.signedBid.digest).toString("hex"))).size).toBe(40);
  const p = new CryptoPool(1);
  p.close();
  expect(await p.signBid(bid, bidder.privateKey, domains.bid).catch((e) => e)).toBeInstanceOf(CryptoPoolError);
});
