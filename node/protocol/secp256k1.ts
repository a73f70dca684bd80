/**
 * secp256k1 backend for bid and commitment signatures (crypto-contracts §1.1): the 32-byte digest
 * is signed directly (no message prefix), RFC 6979 nonces, low-S, 65 bytes r‖s‖v with v = 27/28.
 * Recovery follows OpenZeppelin `ECDSA.recover`: 65 bytes only, v must be 27/28, s must be low.
 *
 * Backend: the native `secp256k1` binding (libsecp256k1, N-API prebuilds), ~10x faster than
 * @noble/curves for sign and recover (see bench/crypto.bench.ts). If the native addon cannot load,
 * the package itself falls back to its pure-JS implementation, with identical outputs.
 * This is the only module that talks to a secp256k1 library; swap it here.
 */
import secp from "secp256k1";
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import { bytesToBigInt, bytesToHex, toBytes } from "./bytes.ts";
import { keccak256 } from "./keccak.ts";

/** Curve order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP256K1_N >> 1n;

export class InvalidSignatureError extends MevCommitError {
  constructor(
    readonly reason: "length" | "v" | "high-s" | "r-or-s-out-of-range" | "unrecoverable",
    detail: string,
  ) {
    super(`invalid signature (${reason}): ${detail}`, { context: { reason } });
  }
}

export class InvalidPrivateKeyError extends MevCommitError {
  constructor(detail: string) {
    super(`invalid secp256k1 private key: ${detail}`);
  }
}

export class InvalidDigestError extends MevCommitError {
  constructor(readonly length: number) {
    super(`digest must be 32 bytes, got ${length}`, { context: { length } });
  }
}

function privateKeyBytes(privateKey: Uint8Array | string): Uint8Array {
  let key: Uint8Array;
  try {
    key = toBytes(privateKey);
  } catch (err) {
    throw new InvalidPrivateKeyError((err as Error).message);
  }
  if (key.length !== 32) throw new InvalidPrivateKeyError(`expected 32 bytes, got ${key.length}`);
  if (!secp.privateKeyVerify(key)) throw new InvalidPrivateKeyError("out of range");
  return key;
}

function checkDigest(digest: Uint8Array): void {
  if (digest.length !== 32) throw new InvalidDigestError(digest.length);
}

/** Signs a 32-byte digest; returns r‖s‖v (65 bytes) with low-S and v = 27 + recovery id. */
export function signDigest(privateKey: Uint8Array | string, digest: Uint8Array): Uint8Array {
  checkDigest(digest);
  const { signature, recid } = secp.ecdsaSign(digest, privateKeyBytes(privateKey));
  const out = new Uint8Array(65);
  out.set(signature, 0);
  out[64] = 27 + recid;
  return out;
}

/** EIP-55 checksum of 20 address bytes. */
export function checksumAddress(addressBytes: Uint8Array): Address {
  const lower = bytesToHex(addressBytes);
  const hash = keccak256(new TextEncoder().encode(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out as Address;
}

/** Address of an uncompressed public key (65 bytes, 0x04 prefix) or raw 64-byte X‖Y. */
export function publicKeyToAddress(publicKey: Uint8Array): Address {
  const xy = publicKey.length === 65 ? publicKey.subarray(1) : publicKey;
  return checksumAddress(keccak256(xy).subarray(12));
}

export function privateKeyToAddress(privateKey: Uint8Array | string): Address {
  return publicKeyToAddress(secp.publicKeyCreate(privateKeyBytes(privateKey), false));
}

/** Recovers the uncompressed public key (65 bytes) that produced `signature` over `digest`. */
export function recoverPublicKey(digest: Uint8Array, signature: Uint8Array): Uint8Array {
  checkDigest(digest);
  if (signature.length !== 65) throw new InvalidSignatureError("length", `expected 65 bytes, got ${signature.length}`);
  const v = signature[64]!;
  if (v !== 27 && v !== 28) throw new InvalidSignatureError("v", `v must be 27 or 28, got ${v}`);
  const r = bytesToBigInt(signature.subarray(0, 32));
  const s = bytesToBigInt(signature.subarray(32, 64));
  if (r === 0n || r >= SECP256K1_N || s === 0n || s >= SECP256K1_N) {
    throw new InvalidSignatureError("r-or-s-out-of-range", "r and s must be in [1, n-1]");
  }
  if (s > HALF_N) throw new InvalidSignatureError("high-s", "s is in the upper half of the curve order");
  try {
    return secp.ecdsaRecover(signature.subarray(0, 64), v - 27, digest, false);
  } catch (err) {
    throw new InvalidSignatureError("unrecoverable", (err as Error).message);
  }
}

/**
 * Addresses of the public keys recovered lately: the same few bidders and providers sign again and again, and
 * hashing a key into its checksummed address (two keccaks, ~20 µs) is a fifth of a recovery.
 */
const recoveredAddresses = new BoundedMap<string, Address>(1024);

/**
 * Signers of the signatures checked lately, by signature and digest: nodes that share a process (the devnet's
 * providers on one event loop) check the same bid's signature each, and a recovery is ~50 µs. A pure function of
 * the bytes, so a hit answers what a recovery would; only valid signatures are kept.
 */
const recentSigners = new BoundedMap<string, Address>(256);

/** Recovers the signer of a digest as a checksummed address (OpenZeppelin `ECDSA.recover` rules). */
export function recoverAddress(digest: Uint8Array, signature: Uint8Array): Address {
  const signed = `${bytesToHex(signature)}${bytesToHex(digest)}`;
  const known = recentSigners.get(signed);
  if (known !== undefined) return known;
  const publicKey = recoverPublicKey(digest, signature);
  const key = bytesToHex(publicKey);
  let address = recoveredAddresses.get(key);
  if (address === undefined) recoveredAddresses.set(key, (address = publicKeyToAddress(publicKey)));
  recentSigners.set(signed, address);
  return address;
}
