/**
 * BN254 (alt_bn128) G1 backend: the per-bid NIKE keys, the ECDH shared point and the group
 * operations of the opening proof (crypto-contracts §5). Generator (1, 2), scalars in Fr.
 * Points are affine bigints; (0, 0) is the point at infinity, as in the EVM precompiles 0x06/0x07.
 *
 * Backend: mcl-wasm (BN_SNARK1 = the Ethereum alt_bn128 curve), ~5x faster than @noble/curves
 * for a variable-base multiplication (see bench/crypto.bench.ts). It needs an asynchronous
 * WebAssembly initialisation: await `initBn254()` (or `initCrypto()`) once at start; calling any
 * group operation before that throws CryptoNotInitializedError. This module and its fixed-base tables
 * (bn254FixedBase.ts) are the only ones that talk to a BN254 library; swap them here.
 *
 * Multiples of the generator, and of any point multiplied at least TABLE_AFTER_USES times (a provider's NIKE
 * key at its bidders), come from a precomputed table, 3 to 4 times faster than a variable-base multiplication.
 */
import * as mcl from "mcl-wasm";
import { MevCommitError } from "../../lib/errors.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import { FixedBaseTable } from "./bn254FixedBase.ts";
import { bigIntToBytes, bytesToBigInt } from "./bytes.ts";
import type { G1Point } from "./types.ts";

/** Base field modulus p. */
export const BN254_FIELD_MODULUS = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n;
/** Group order r (the scalar field Fr). */
export const BN254_CURVE_ORDER = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
export const G1_GENERATOR: G1Point = Object.freeze({ x: 1n, y: 2n });
export const G1_INFINITY: G1Point = Object.freeze({ x: 0n, y: 0n });

export class CryptoNotInitializedError extends MevCommitError {
  constructor(operation: string) {
    super(`${operation}: the BN254 backend is not initialised; await initCrypto() once at start`, {
      context: { operation },
    });
  }
}

export class InvalidPointError extends MevCommitError {
  constructor(
    readonly point: G1Point,
    detail = "not on the BN254 curve",
  ) {
    super(`invalid BN254 G1 point (${point.x}, ${point.y}): ${detail}`, { context: { point } });
  }
}

export class InvalidScalarError extends MevCommitError {
  constructor(
    readonly scalar: bigint,
    detail: string,
  ) {
    super(`invalid BN254 scalar ${scalar}: ${detail}`, { context: { scalar } });
  }
}

let ready = false;
let initializing: Promise<void> | undefined;
let generatorTable: FixedBaseTable | undefined;

/** A point gets a table at its TABLE_AFTER_USES-th multiplication (not the opening proof's two uses of a key). */
const TABLE_AFTER_USES = 8;
/**
 * At most MAX_TABLES points get a table (~1.2 MB of the WebAssembly memory and 20–40 ms each), the first to reach
 * the threshold; no eviction, so a bidder with more providers than that never rebuilds tables in turn (the others stay
 * variable-base).
 */
const MAX_TABLES = 16;
const tables = new Map<string, FixedBaseTable>();
const uses = new BoundedMap<string, number>(1024);

function tableFor(p: G1Point): FixedBaseTable | undefined {
  if (p.x === 1n && p.y === 2n) return generatorTable;
  const key = `${p.x.toString(16)}:${p.y.toString(16)}`;
  const table = tables.get(key);
  if (table) return table;
  if (tables.size >= MAX_TABLES) return undefined;
  const n = (uses.get(key) ?? 0) + 1;
  if (n < TABLE_AFTER_USES) {
    uses.set(key, n);
    return undefined;
  }
  uses.delete(key);
  const built = new FixedBaseTable(toMclG1(p)); // checks the point is on the curve
  tables.set(key, built);
  return built;
}

/** Initialises the WebAssembly backend. Idempotent; concurrent callers share one initialisation. */
export function initBn254(): Promise<void> {
  if (ready) return Promise.resolve();
  initializing ??= mcl.init(mcl.BN_SNARK1).then(() => {
    generatorTable = new FixedBaseTable(toMclG1(G1_GENERATOR));
    ready = true;
  });
  return initializing;
}

export function isBn254Ready(): boolean {
  return ready;
}

function requireReady(operation: string): void {
  if (!ready) throw new CryptoNotInitializedError(operation);
}

export function isInfinity(p: G1Point): boolean {
  return p.x === 0n && p.y === 0n;
}

/** True for (0, 0) or a point of y² = x³ + 3 with coordinates below p (G1 has cofactor 1). */
export function isOnCurve(p: G1Point): boolean {
  if (isInfinity(p)) return true;
  const P = BN254_FIELD_MODULUS;
  if (p.x < 0n || p.y < 0n || p.x >= P || p.y >= P) return false;
  return (p.y * p.y - (p.x * p.x * p.x + 3n)) % P === 0n;
}

export function assertOnCurve(p: G1Point): void {
  if (!isOnCurve(p)) throw new InvalidPointError(p);
}

function toMclG1(p: G1Point): mcl.G1 {
  assertOnCurve(p);
  const point = new mcl.G1();
  if (!isInfinity(p)) point.setStr(`1 ${p.x.toString(16)} ${p.y.toString(16)}`, 16);
  return point;
}

function fromMclG1(point: mcl.G1): G1Point {
  const s = mcl.normalize(point).getStr(16);
  if (s === "0") return G1_INFINITY;
  const [, x, y] = s.split(" ");
  return { x: BigInt(`0x${x}`), y: BigInt(`0x${y}`) };
}

function toMclFr(scalar: bigint): mcl.Fr {
  if (scalar < 0n) throw new InvalidScalarError(scalar, "negative");
  const fr = new mcl.Fr();
  fr.setStr((scalar % BN254_CURVE_ORDER).toString(16), 16);
  return fr;
}

/** scalar · p (any scalar ≥ 0, reduced mod r, as the ecMul precompile does). */
export function g1Mul(p: G1Point, scalar: bigint): G1Point {
  requireReady("g1Mul");
  if (scalar < 0n) throw new InvalidScalarError(scalar, "negative");
  const table = isInfinity(p) ? undefined : tableFor(p);
  if (table) return fromMclG1(table.mul(scalar % BN254_CURVE_ORDER));
  return fromMclG1(mcl.mul(toMclG1(p), toMclFr(scalar)));
}

/** scalar · G. */
export function g1MulBase(scalar: bigint): G1Point {
  return g1Mul(G1_GENERATOR, scalar);
}

/** a + b (the ecAdd precompile). */
export function g1Add(a: G1Point, b: G1Point): G1Point {
  requireReady("g1Add");
  return fromMclG1(mcl.add(toMclG1(a), toMclG1(b)));
}

/** s·p + t·q in one call (used by proof verification). */
export function g1MulAdd(p: G1Point, s: bigint, q: G1Point, t: bigint): G1Point {
  requireReady("g1MulAdd");
  return fromMclG1(mcl.add(mcl.mul(toMclG1(p), toMclFr(s)), mcl.mul(toMclG1(q), toMclFr(t))));
}

/** Uniform scalar in [1, r-1] from the platform CSPRNG. */
export function randomScalar(): bigint {
  const buf = new Uint8Array(32);
  for (;;) {
    crypto.getRandomValues(buf);
    buf[0]! &= 0x3f; // r < 2^254: rejection sampling accepts ~76 % of draws
    const k = bytesToBigInt(buf);
    if (k !== 0n && k < BN254_CURVE_ORDER) return k;
  }
}

export interface Bn254KeyPair {
  /** Secret scalar in [1, r-1]. */
  readonly secret: bigint;
  /** secret · G. */
  readonly publicKey: G1Point;
}

/** A fresh BN254 key pair (the bidder's per-bid key, or a provider's NIKE key). */
export function randomKeyPair(): Bn254KeyPair {
  const secret = randomScalar();
  return { secret, publicKey: publicKeyOf(secret) };
}

export function publicKeyOf(secret: bigint): G1Point {
  if (secret <= 0n || secret >= BN254_CURVE_ORDER) throw new InvalidScalarError(secret, "secret must be in [1, r-1]");
  return g1MulBase(secret);
}

/** ECDH: secret · publicPoint. The provider's C = a·B equals the bidder's b·A. */
export function sharedPoint(secret: bigint, publicPoint: G1Point): G1Point {
  if (isInfinity(publicPoint)) throw new InvalidPointError(publicPoint, "point at infinity is not a public key");
  return g1Mul(publicPoint, secret);
}

/** 64 bytes X‖Y big-endian (gnark "raw" encoding, the p2p `nike_public_key`). */
export function encodeG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(64);
  out.set(bigIntToBytes(p.x, 32), 0);
  out.set(bigIntToBytes(p.y, 32), 32);
  return out;
}

/** Inverse of encodeG1; rejects points off the curve. */
export function decodeG1(bytes: Uint8Array): G1Point {
  if (bytes.length !== 64) throw new InvalidPointError(G1_INFINITY, `expected 64 bytes, got ${bytes.length}`);
  const p = { x: bytesToBigInt(bytes.subarray(0, 32)), y: bytesToBigInt(bytes.subarray(32)) };
  assertOnCurve(p);
  return p;
}
