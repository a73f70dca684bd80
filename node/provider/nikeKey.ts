import { keccak_256 } from "@noble/hashes/sha3.js";
import { BN254_CURVE_ORDER, publicKeyOf } from "../protocol/bn254.ts";
import { bytesToBigInt, concatBytes, hexToBytes, utf8 } from "../protocol/bytes.ts";
import type { G1Point } from "../protocol/types.ts";

/**
 * The provider's BN254 NIKE key pair, derived from its node key so that it survives restarts without a second
 * secret on disk (upstream keeps a random one in its keystore). Never logged.
 */
export function nikeKeyFromNodeKey(privateKey: `0x${string}`): { secret: bigint; publicKey: G1Point } {
  const h = keccak_256(concatBytes(utf8("mev-commit provider nike key"), hexToBytes(privateKey)));
  const secret = (bytesToBigInt(h) % (BN254_CURVE_ORDER - 1n)) + 1n;
  return { secret, publicKey: publicKeyOf(secret) };
}
