/**
 * Signatures of the node-to-node wire (handshake, key exchange): upstream's keysigner.SignHash, i.e. go-ethereum's
 * crypto.Sign over a keccak256 hash, r ‖ s ‖ v with v = 0/1 (unlike bids and commitments, which carry 27/28), and
 * its signer.Verify, which recovers the signer and refuses high-S signatures.
 */

import type { Address } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";
import { keccak256 } from "../../protocol/keccak.ts";
import { recoverAddress, signDigest } from "../../protocol/secp256k1.ts";

export class SignatureVerificationError extends MevCommitError {
  constructor(reason: string) {
    super(`signature verification failed: ${reason}`);
  }
}

/** Signs keccak256(message); v = 0/1. */
export function signMessageHash(privateKey: Uint8Array | string, message: Uint8Array): Uint8Array {
  const sig = signDigest(privateKey, keccak256(message));
  sig[64] = sig[64]! - 27;
  return sig;
}

/** The address that signed keccak256(message) with a v = 0/1 signature. */
export function recoverMessageSigner(message: Uint8Array, signature: Uint8Array): Address {
  if (signature.length !== 65) throw new SignatureVerificationError(`signature of ${signature.length} bytes`);
  const v = signature[64]!;
  if (v > 1) throw new SignatureVerificationError(`recovery id ${v}`);
  const sig = signature.slice();
  sig[64] = v + 27;
  try {
    return recoverAddress(keccak256(message), sig);
  } catch (e) {
    throw new SignatureVerificationError((e as Error).message);
  }
}
