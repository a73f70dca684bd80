import { beforeAll, describe, expect, test } from "bun:test";
import { bn254 } from "@noble/curves/bn254.js";
import {
  BN254_CURVE_ORDER,
  decodeG1,
  encodeG1,
  G1_INFINITY,
  g1Add,
  g1Mul,
  InvalidPointError,
  isOnCurve,
  publicKeyOf,
  randomKeyPair,
  sharedPoint,
} from "./bn254.ts";
import { initCrypto } from "./initCrypto.ts";

beforeAll(async () => {
  await initCrypto();
});

const nobleMul = (p: { x: bigint; y: bigint }, k: bigint) => {
  const r = bn254.G1.Point.fromAffine(p)
    .multiply(k % BN254_CURVE_ORDER)
    .toAffine();
  return { x: r.x, y: r.y };
};

describe("BN254 backend (mcl-wasm) against @noble/curves", () => {
  test("publicKeyOf = secret · (1, 2)", () => {
    for (const k of [1n, 2n, 123456789n, BN254_CURVE_ORDER - 1n]) {
      expect(publicKeyOf(k)).toEqual(nobleMul({ x: 1n, y: 2n }, k));
    }
  });

  test("ECDH: a·B = b·A, and equals noble", () => {
    for (let i = 0; i < 5; i++) {
      const provider = randomKeyPair();
      const bidder = randomKeyPair();
      const c1 = sharedPoint(provider.secret, bidder.publicKey);
      const c2 = sharedPoint(bidder.secret, provider.publicKey);
      expect(c1).toEqual(c2);
      expect(c1).toEqual(nobleMul(bidder.publicKey, provider.secret));
      expect(isOnCurve(c1)).toBe(true);
    }
  });

  test("add and scalar reduction follow the precompiles", () => {
    const p = publicKeyOf(5n);
    const q = publicKeyOf(7n);
    expect(g1Add(p, q)).toEqual(publicKeyOf(12n));
    expect(g1Add(p, G1_INFINITY)).toEqual(p);
    expect(g1Mul(p, 0n)).toEqual(G1_INFINITY);
    expect(g1Mul(p, BN254_CURVE_ORDER + 2n)).toEqual(g1Mul(p, 2n));
  });

  test("fixed-base tables (the generator, and a point multiplied again and again) agree with noble", () => {
    const edges = [
      0n,
      1n,
      2n,
      255n,
      256n,
      257n,
      (1n << 248n) - 1n,
      1n << 248n,
      1n << 253n,
      BN254_CURVE_ORDER - 1n,
      BN254_CURVE_ORDER,
      BN254_CURVE_ORDER + 5n,
      (1n << 256n) - 1n,
    ];
    const randoms = Array.from({ length: 20 }, () => randomKeyPair().secret);
    for (const k of [...edges, ...randoms]) {
      expect(g1Mul({ x: 1n, y: 2n }, k)).toEqual(
        k % BN254_CURVE_ORDER === 0n ? G1_INFINITY : nobleMul({ x: 1n, y: 2n }, k),
      );
    }
    const provider = randomKeyPair().publicKey; // a table from its 8th use on
    for (const k of [...randoms, ...edges]) {
      expect(g1Mul(provider, k)).toEqual(k % BN254_CURVE_ORDER === 0n ? G1_INFINITY : nobleMul(provider, k));
    }
  });

  test("past the table limit, more points multiplied again and again still multiply right (variable base)", () => {
    const points = Array.from({ length: 20 }, () => randomKeyPair().publicKey);
    const k = randomKeyPair().secret;
    for (let round = 0; round < 10; round++) for (const p of points) expect(g1Mul(p, k)).toEqual(nobleMul(p, k));
  });

  test("points off the curve are rejected", () => {
    for (let i = 0; i < 10; i++) expect(() => g1Mul({ x: 1n, y: 3n }, 2n)).toThrow(InvalidPointError); // also past the table threshold
    expect(() => sharedPoint(3n, G1_INFINITY)).toThrow(InvalidPointError);
  });

  test("64-byte X‖Y encoding round-trips", () => {
    const p = randomKeyPair().publicKey;
    const bytes = encodeG1(p);
    expect(bytes.length).toBe(64);
    expect(decodeG1(bytes)).toEqual(p);
    expect(() => decodeG1(new Uint8Array(63))).toThrow(InvalidPointError);
  });
});
