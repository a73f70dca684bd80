/**
 * Who signed a digest: secp256k1 public-key recovery and the Ethereum address (keccak-256 of the key), written for the
 * gate's k6 script with @noble/curves and @noble/hashes, independently of the node's crypto. k6 cannot import
 * packages, so `bundleSigner` (bundle.ts) bundles this file into one ES module under loadtest/.bin before each gate
 * run; the same code is tested under Bun against viem's signatures (signer.test.ts).
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

/**
 * The address (40 lower-case hex digits, no 0x) whose key signed `digest` (32 bytes) with `signature` (65 bytes,
 * r ‖ s ‖ v with v = 27/28, as the node's wire carries it); both as hex without 0x. Throws on malformed input or a
 * signature that recovers no key.
 */
export function signerOf(digest: string, signature: string): string {
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new Error(`digest must be 32 bytes of lower-case hex, got "${digest}"`);
  if (!/^[0-9a-f]{128}(1b|1c)$/.test(signature))
    throw new Error(`signature must be 65 bytes of lower-case hex ending in v = 1b/1c, got "${signature}"`);
  const sig = hexToBytes(signature);
  const recovered = secp256k1.Signature.fromBytes(sig.slice(0, 64), "compact")
    .addRecoveryBit(sig[64]! - 27)
    .recoverPublicKey(hexToBytes(digest))
    .toBytes(false);
  return bytesToHex(keccak_256(recovered.slice(1)).slice(12));
}
