/**
 * The opening proof (crypto-contracts §5, `PreconfManager._verifyZKProof`): a Chaum–Pedersen
 * proof that the provider's NIKE key A = a·G and the shared key C = a·B use the same secret a.
 *
 *   prover:   k random; T1 = k·G; T2 = k·B
 *             c = keccak256(ctx ‖ A.x ‖ A.y ‖ B.x ‖ B.y ‖ C.x ‖ C.y ‖ T1.x ‖ T1.y ‖ T2.x ‖ T2.y) mod 2^253
 *             z = k − a·c mod r
 *   verifier: T1' = z·G + c·A; T2' = z·B + c·C; accept iff the truncated hash of them equals c
 *
 * ctx = keccak256("mev-commit opening " + decimal chainId); every word is 32 bytes big-endian.
 * The zkProof array passed to `openCommitment` is
 * [providerPkX, providerPkY, bidderPkX, bidderPkY, sharedX, sharedY, c, z].
 */

import { MevCommitError } from "../../lib/errors.ts";
import {
  BN254_CURVE_ORDER,
  G1_GENERATOR,
  g1Mul,
  g1MulAdd,
  isOnCurve,
  publicKeyOf,
  randomScalar,
  sharedPoint,
} from "./bn254.ts";
import { bigIntToBytes, bytesToBigInt, utf8 } from "./bytes.ts";
import { keccak256 } from "./keccak.ts";
import type { G1Point } from "./types.ts";
import { ZK_PROOF_INDEX } from "./types.ts";

export const BN254_MASK_253 = (1n << 253n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

export class InvalidZkProofArrayError extends MevCommitError {
  constructor(detail: string) {
    super(`invalid zkProof array: ${detail}`);
  }
}

/** keccak256("mev-commit opening " + chainId), the proof's domain separation. */
export function zkContextHash(chainId: bigint): Uint8Array {
  return keccak256(utf8(`mev-commit opening ${chainId.toString(10)}`));
}

function challenge(ctx: Uint8Array, points: readonly G1Point[]): bigint {
  const pre = new Uint8Array(32 + points.length * 64);
  pre.set(ctx, 0);
  points.forEach((p, i) => {
    pre.set(bigIntToBytes(p.x), 32 + i * 64);
    pre.set(bigIntToBytes(p.y), 64 + i * 64);
  });
  return bytesToBigInt(keccak256(pre)) & BN254_MASK_253;
}

export interface OpeningProof {
  /** Provider NIKE public key A = a·G. */
  readonly providerPublicKey: G1Point;
  /** Bidder's per-bid public key B. */
  readonly bidderPublicKey: G1Point;
  /** Shared key C = a·B (the point in the commitment digest). */
  readonly sharedKey: G1Point;
  /** Truncated challenge (< 2^253). */
  readonly c: bigint;
  /** Response k − a·c mod r. */
  readonly z: bigint;
}

export interface ProveOpeningInput {
  /** The provider's NIKE secret a. */
  readonly providerSecret: bigint;
  /** The bid's public key B (from the signed bid). */
  readonly bidderPublicKey: G1Point;
  /** Settlement chain id (the proof context). */
  readonly chainId: bigint;
  /** Fixed nonce k, for reproducible tests only; omitted → fresh CSPRNG scalar. */
  readonly nonce?: bigint;
  /**
   * C = a·B when the caller has it (the shared key of the stored commitment, computed when it was signed): saves a
   * variable-base multiplication (~0.1 ms) per opening. Computed here when absent.
   */
  readonly sharedKey?: G1Point;
}

/** The last provider key derived: a provider opens its commitments with one NIKE secret. */
let lastKey: { secret: bigint; publicKey: G1Point } | undefined;

function providerPublicKeyOf(secret: bigint): G1Point {
  if (lastKey?.secret !== secret) lastKey = { secret, publicKey: publicKeyOf(secret) };
  return lastKey.publicKey;
}

export function proveOpening(input: ProveOpeningInput): OpeningProof {
  const a = input.providerSecret;
  const providerPublicKey = providerPublicKeyOf(a);
  const sharedKey = input.sharedKey ?? sharedPoint(a, input.bidderPublicKey);
  const k = input.nonce ?? randomScalar();
  const t1 = g1Mul(G1_GENERATOR, k);
  const t2 = g1Mul(input.bidderPublicKey, k);
  const c = challenge(zkContextHash(input.chainId), [providerPublicKey, input.bidderPublicKey, sharedKey, t1, t2]);
  const r = BN254_CURVE_ORDER;
  const z = (((k - a * c) % r) + r) % r;
  return { providerPublicKey, bidderPublicKey: input.bidderPublicKey, sharedKey, c, z };
}

/** The 8-word array `openCommitment` takes, in contract order. */
export function zkProofArray(proof: OpeningProof): bigint[] {
  const { providerPublicKey: a, bidderPublicKey: b, sharedKey: s } = proof;
  return [a.x, a.y, b.x, b.y, s.x, s.y, proof.c, proof.z];
}

/**
 * The array a bidder passes when it opens a commitment itself: the contract checks the proof only
 * when the winner opens, so the provider key and (c, z) are zero (tracker.go at 5f1068d1).
 */
export function bidderZkProofArray(bidderPublicKey: G1Point, sharedKey: G1Point): bigint[] {
  return [0n, 0n, bidderPublicKey.x, bidderPublicKey.y, sharedKey.x, sharedKey.y, 0n, 0n];
}

export function parseZkProofArray(words: readonly bigint[]): OpeningProof {
  if (words.length !== 8) throw new InvalidZkProofArrayError(`expected 8 words, got ${words.length}`);
  for (const w of words)
    if (w < 0n || w > UINT256_MAX) throw new InvalidZkProofArrayError(`word ${w} is not a uint256`);
  const w = (i: number) => words[i]!;
  const I = ZK_PROOF_INDEX;
  return {
    providerPublicKey: { x: w(I.providerPkX), y: w(I.providerPkY) },
    bidderPublicKey: { x: w(I.bidderPkX), y: w(I.bidderPkY) },
    sharedKey: { x: w(I.sharedX), y: w(I.sharedY) },
    c: w(I.c),
    z: w(I.z),
  };
}

/**
 * The contract's check. Returns false (where the contract reverts or answers false) for a wrong
 * length, a point off the curve, or a challenge mismatch.
 */
export function verifyOpening(zkProof: readonly bigint[], chainId: bigint): boolean {
  let proof: OpeningProof;
  try {
    proof = parseZkProofArray(zkProof);
  } catch {
    return false;
  }
  const { providerPublicKey: A, bidderPublicKey: B, sharedKey: C, c, z } = proof;
  if (!isOnCurve(A) || !isOnCurve(B) || !isOnCurve(C)) return false;
  const t1 = g1MulAdd(G1_GENERATOR, z, A, c);
  const t2 = g1MulAdd(B, z, C, c);
  return challenge(zkContextHash(chainId), [A, B, C, t1, t2]) === c;
}
