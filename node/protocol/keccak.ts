/**
 * keccak-256 for the protocol's digests, addresses and transactions: hash-wasm's WebAssembly Keccak, ~4x faster than
 * @noble/hashes on the 32- to 320-byte inputs of a bid's digests (a bid and its commitments hash a dozen of them),
 * once `initKeccak()` (part of `initCrypto()`) has run; @noble/hashes before that, with identical outputs.
 */

import { keccak_256 } from "@noble/hashes/sha3.js";
import { createKeccak, type IHasher } from "hash-wasm";

let hasher: IHasher | undefined;
let initializing: Promise<void> | undefined;

/** Compiles the WebAssembly hasher. Idempotent. */
export function initKeccak(): Promise<void> {
  initializing ??= createKeccak(256).then((h) => {
    hasher = h;
  });
  return initializing;
}

export function keccak256(data: Uint8Array): Uint8Array {
  if (hasher === undefined) return keccak_256(data);
  hasher.init();
  hasher.update(data);
  return hasher.digest("binary"); // a copy, not a view of the WebAssembly memory
}
