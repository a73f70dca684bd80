/**
 * One start-up call for every crypto backend that needs asynchronous initialisation.
 * Await it once before using bn254.ts / zkProof.ts / bidSigning.ts / commitmentSigning.ts.
 * (The secp256k1 backend needs none.)
 */
import { initBn254, isBn254Ready } from './bn254.ts';

export async function initCrypto(): Promise<void> {
  await initBn254();
}

export function isCryptoReady(): boolean {
  return isBn254Ready();
}
