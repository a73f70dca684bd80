/**
 * ECIES exactly as go-ethereum's crypto/ecies with its default parameters for secp256k1 (ECIES_AES128_SHA256), which
 * upstream uses to hand a bidder's AES key to each provider (pkg/keyexchange):
 *   R = r·G for a fresh r; z = x(r·K) as 32 bytes; NIST SP 800-56 concatenation KDF with SHA-256 gives 32 bytes,
 *   Ke = the first 16, Km = SHA-256(the last 16); c = IV ‖ AES-128-CTR(Ke, IV, m) with a random 16-byte IV;
 *   tag = HMAC-SHA-256(Km, c); output = R uncompressed (65 bytes) ‖ c ‖ tag. No shared info (s1 = s2 = empty).
 */

import { ctr } from "@noble/ciphers/aes.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { MevCommitError } from "../../../lib/errors.ts";
import { bytesEqual, concatBytes } from "../../protocol/bytes.ts";

const KEY_LEN = 16;
const BLOCK = 16;
const R_LEN = 65;
const TAG_LEN = 32;

export class EciesError extends MevCommitError {}

function concatKdf(z: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(length / 32) * 32);
  for (let counter = 1, at = 0; at < length; counter++, at += 32) {
    const c = new Uint8Array(4);
    new DataView(c.buffer).setUint32(0, counter);
    out.set(sha256(concatBytes(c, z)), at);
  }
  return out.subarray(0, length);
}

function deriveKeys(privateKey: Uint8Array, publicKey: Uint8Array): { ke: Uint8Array; km: Uint8Array } {
  let z: Uint8Array;
  try {
    z = secp256k1.getSharedSecret(privateKey, publicKey, true).subarray(1);
  } catch (e) {
    throw new EciesError(`invalid public key: ${(e as Error).message}`);
  }
  const k = concatKdf(z, 2 * KEY_LEN);
  return { ke: k.subarray(0, KEY_LEN), km: sha256(k.subarray(KEY_LEN)) };
}

/** A fresh ECIES key pair (secret 32 bytes, public key compressed, 33 bytes, as upstream's handshake carries it). */
export function eciesPublicKeyOf(privateKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(privateKey, true);
}

/** Encrypts `message` to a secp256k1 public key (compressed or uncompressed). */
export function eciesEncrypt(
  publicKey: Uint8Array,
  message: Uint8Array,
  ephemeral: Uint8Array = secp256k1.utils.randomSecretKey(),
  iv: Uint8Array = randomBytes(BLOCK),
): Uint8Array {
  const { ke, km } = deriveKeys(ephemeral, publicKey);
  const c = concatBytes(iv, ctr(ke, iv).encrypt(message));
  return concatBytes(secp256k1.getPublicKey(ephemeral, false), c, hmac(sha256, km, c));
}

export function eciesDecrypt(privateKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  if (ciphertext.length < R_LEN + TAG_LEN + 1) throw new EciesError("invalid message");
  if (ciphertext[0] !== 4) throw new EciesError("invalid public key");
  const { ke, km } = deriveKeys(privateKey, ciphertext.subarray(0, R_LEN));
  const c = ciphertext.subarray(R_LEN, ciphertext.length - TAG_LEN);
  if (!bytesEqual(hmac(sha256, km, c), ciphertext.subarray(ciphertext.length - TAG_LEN)))
    throw new EciesError("invalid message");
  if (c.length < BLOCK) throw new EciesError("invalid message");
  return ctr(ke, c.subarray(0, BLOCK)).decrypt(c.subarray(BLOCK));
}
