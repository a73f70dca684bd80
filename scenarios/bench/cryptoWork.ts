/**
 * The crypto of one bid with P providers and nothing else (no I/O): what the nodes must compute, the floor the
 * benchmark compares itself with. Bidder: sign the bid (a fresh BN254 key pair, digest, secp256k1 signature).
 * Each provider: verify the bid (digest, recover), sign a commitment (shared point, digest, signature). Bidder,
 * for each commitment: verify it (shared point, digest, recover).
 */

import { devAccount } from "../../node/chain/accounts.ts";
import type { BidCrypto as NodeBidCrypto } from "../../node/crypto/bidCrypto.ts";
import { signBid, verifyBid } from "../../node/protocol/bidSigning.ts";
import { randomKeyPair } from "../../node/protocol/bn254.ts";
import { signCommitment, verifyCommitment } from "../../node/protocol/commitmentSigning.ts";
import { protocolDomains } from "../../node/protocol/digest.ts";
import { initCrypto } from "../../node/protocol/initCrypto.ts";
import type { Bid } from "../../node/protocol/types.ts";

export interface BidCrypto {
  /** Runs the crypto of one bid; `i` varies the bid. */
  run(i: number): void;
}

/** Keys, domains and bids for the crypto of bids with `providers` providers. */
export async function bidFixture(providers: number) {
  await initCrypto();
  const domains = protocolDomains(17864n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
  const bidderKey = devAccount(0).privateKey;
  const ps = Array.from({ length: providers }, (_, i) => ({
    key: devAccount(1 + i).privateKey,
    address: devAccount(1 + i).address,
    nike: randomKeyPair(),
  }));
  const now = BigInt(Date.now());
  const bid = (i: number): Bid => ({
    txHashes: [(BigInt(i) * 0x9e3779b97f4a7c15n + 1n).toString(16).padStart(64, "0").slice(-64)],
    rawTransactions: [],
    amount: 1_000_000_000n + BigInt(i),
    blockNumber: 100n,
    decayStartTimestamp: now,
    decayEndTimestamp: now + 12_000n,
    revertingTxHashes: [],
    slashAmount: 0n,
  });
  return { domains, bidderKey, providers: ps, now, bid };
}

/** The crypto of one bid, called directly on this thread (the floor). */
export async function bidCrypto(providers: number): Promise<BidCrypto> {
  const { domains, bidderKey, providers: ps, now, bid } = await bidFixture(providers);
  return {
    run(i: number) {
      const { signedBid, nikeSecret } = signBid(bid(i), bidderKey, domains.bid);
      for (const p of ps) {
        verifyBid(signedBid, domains.bid);
        const c = signCommitment({
          signedBid,
          providerPrivateKey: p.key,
          providerNikeSecret: p.nike.secret,
          commitmentDomain: domains.commitment,
          dispatchTimestamp: now,
          providerAddress: p.address,
        });
        verifyCommitment({
          signedBid,
          bidderNikeSecret: nikeSecret,
          providerNikePublicKey: p.nike.publicKey,
          digest: c.digest,
          signature: c.signature,
          commitmentDomain: domains.commitment,
        });
      }
    },
  };
}

/** The same crypto of one bid through the nodes' asynchronous interface (inline or a worker pool), providers at once. */
export async function bidCryptoVia(providers: number): Promise<(c: NodeBidCrypto, i: number) => Promise<void>> {
  const { domains, bidderKey, providers: ps, now, bid } = await bidFixture(providers);
  return async (c, i) => {
    const { signedBid, nikeSecret } = await c.signBid(bid(i), bidderKey, domains.bid);
    await Promise.all(
      ps.map(async (p) => {
        await c.verifyBid(signedBid, domains.bid);
        const m = await c.signCommitment({
          signedBid,
          providerPrivateKey: p.key,
          providerNikeSecret: p.nike.secret,
          commitmentDomain: domains.commitment,
          dispatchTimestamp: now,
          providerAddress: p.address,
        });
        await c.verifyCommitment({
          signedBid,
          bidderNikeSecret: nikeSecret,
          providerNikePublicKey: p.nike.publicKey,
          digest: m.digest,
          signature: m.signature,
          commitmentDomain: domains.commitment,
        });
      }),
    );
  };
}
