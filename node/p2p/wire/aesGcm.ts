/**
 * AES-GCM as upstream seals bids and the key-exchange timestamp (pkg/crypto/aes.go): a random 12-byte nonce, then
 * the GCM output (ciphertext ‖ 16-byte tag), no additional data. Upstream's bidder keys are 32 bytes (AES-256).
 */
import { gcm } from "@noble/ciphers/aes.js";
import { randomBytes } from "@noble/hashes/utils.js";

export const AES_GCM_NONCE_BYTES = 12;
export const AES_KEY_BYTES = 32;

export class AesGcmError extends Error {
  override name = "AesGcmError";
}

export function newAesKey(): Uint8Array {
  return randomBytes(AES_KEY_BYTES);
}

function checkKey(key: Uint8Array): void {
  if (![16, 24, 32].includes(key.length)) throw new AesGcmError(`AES key of ${key.length} bytes`);
}

export function sealAesGcm(key: Uint8Array, plaintext: Uint8Array, nonce: Uint8Array = randomBytes(AES_GCM_NONCE_BYTES)): Uint8Array {
  checkKey(key);
  const sealed = gcm(key, nonce).encrypt(plaintext);
  const out = new Uint8Array(nonce.length + sealed.length);
  out.set(nonce);
  out.set(sealed, nonce.length);
  return out;
}

export function openAesGcm(key: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  checkKey(key);
  if (ciphertext.length < AES_GCM_NONCE_BYTES + 16) throw new AesGcmError(`ciphertext of ${ciphertext.length} bytes is too short`);
  try {
    return gcm(key, ciphertext.subarray(0, AES_GCM_NONCE_BYTES)).decrypt(ciphertext.subarray(AES_GCM_NONCE_BYTES));
  } catch (e) {
    throw new AesGcmError(`message authentication failed: ${(e as Error).message}`);
  }
}
