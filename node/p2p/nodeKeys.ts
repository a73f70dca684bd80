/**
 * A provider's ECIES key, derived from its node key like its NIKE key (node/provider/nikeKey.ts) so that it needs no
 * second secret on disk and survives restarts (upstream keeps a random one in its keystore). Never logged.
 */

import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bigIntToBytes, bytesToBigInt, concatBytes, hexToBytes, utf8 } from "../protocol/bytes.ts";
import { SECP256K1_N } from "../protocol/secp256k1.ts";

export function eciesKeyFromNodeKey(nodeKey: `0x${string}`): Uint8Array {
  const h = keccak_256(concatBytes(utf8("mev-commit provider ecies key"), hexToBytes(nodeKey)));
  const key = bigIntToBytes((bytesToBigInt(h) % (SECP256K1_N - 1n)) + 1n, 32);
  if (!secp256k1.utils.isValidSecretKey(key)) throw new Error("derived ECIES key is invalid");
  return key;
}
