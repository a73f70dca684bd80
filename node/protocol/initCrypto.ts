/**
 * One start-up call for every crypto backend that needs asynchronous initialisation.
 * Await it once before using bn254.ts / zkProof.ts / bidSigning.ts / commitmentSigning.ts.
 * (The secp256k1 backend needs none; keccak works before it, only slower.)
 */
import { initBn254, isBn254Ready } from "./bn254.ts";
import { initKeccak } from "./keccak.ts";

export async function initCrypto(): Promise<void> {
  await Promise.all([initBn254(), initKeccak()]);
}

export function isCryptoReady(): boolean {
  return isBn254Ready();
}
