import type { Address } from "viem";
import type { ProviderPeer } from "../network/network.ts";
import { publicKeyOf } from "../protocol/bn254.ts";
import { signCommitment } from "../protocol/commitmentSigning.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import type { SignedBid } from "../protocol/types.ts";
import { TEST_DOMAINS, TEST_KEYS, TEST_NIKE_SECRET } from "./testIdentities.ts";

export interface CommittingProviderOptions {
  privateKey?: `0x${string}`;
  nikeSecret?: bigint;
  commitmentDomain?: Uint8Array;
  dispatchTimestamp?: bigint;
  /** Called with each bid before it is committed to; a throw is the provider's refusal. */
  onBid?: (signed: SignedBid) => void;
}

/**
 * A provider that signs a real commitment to every bid it is handed (with the test provider key and NIKE secret
 * unless told otherwise), for tests that put it on a network, in process or over libp2p.
 */
export function committingProvider(o: CommittingProviderOptions = {}): ProviderPeer {
  const privateKey = o.privateKey ?? TEST_KEYS.provider;
  const nikeSecret = o.nikeSecret ?? TEST_NIKE_SECRET;
  const dispatchTimestamp = o.dispatchTimestamp ?? 42n;
  const address: Address = privateKeyToAddress(privateKey);
  return {
    address,
    nikePublicKey: publicKeyOf(nikeSecret),
    handleBid: async (signedBid) => {
      o.onBid?.(signedBid);
      const c = signCommitment({
        signedBid,
        providerPrivateKey: privateKey,
        providerNikeSecret: nikeSecret,
        commitmentDomain: o.commitmentDomain ?? TEST_DOMAINS.commitment,
        dispatchTimestamp,
      });
      return { digest: c.digest, signature: c.signature, dispatchTimestamp };
    },
  };
}
