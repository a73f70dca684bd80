import { beforeAll, describe, expect, test } from "bun:test";
import { bn254 } from "@noble/curves/bn254.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { VECTOR } from "../testing/testVectors.ts";
import { BN254_CURVE_ORDER, randomKeyPair, sharedPoint } from "./bn254.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes } from "./bytes.ts";
import { initCrypto } from "./initCrypto.ts";
import { bidderZkProofArray, proveOpening, verifyOpening, zkContextHash, zkProofArray } from "./zkProof.ts";

beforeAll(async () => {
  await initCrypto();
});

describe("opening proof", () => {
  test("context hash for chain 31337", () => {
    const h = bytesToHex(zkContextHash(31337n));
    expect(h.startsWith(VECTOR.zkContextHashPrefix)).toBe(true);
    expect(h.endsWith(VECTOR.zkContextHashSuffix)).toBe(true);
  });

  test("the PreconfManagerTest vector (A = B = C = (1, 2)) verifies", () => {
    expect(verifyOpening(VECTOR.zkProof, 31337n)).toBe(true);
  });

  test("the vector fails on another chain or with a tampered word", () => {
    expect(verifyOpening(VECTOR.zkProof, 1n)).toBe(false);
    for (const i of [0, 4, 6, 7]) {
      const bad: bigint[] = [...VECTOR.zkProof];
      bad[i] = i === 0 || i === 4 ? 0n : bad[i]! + 1n;
      expect(verifyOpening(bad, 31337n)).toBe(false);
    }
    expect(verifyOpening(VECTOR.zkProof.slice(0, 7), 31337n)).toBe(false);
    expect(verifyOpening([1n, 3n, ...VECTOR.zkProof.slice(2)], 31337n)).toBe(false);
  });

  test("prove → verify round trip with random keys", () => {
    for (let i = 0; i < 3; i++) {
      const provider = randomKeyPair();
      const bidder = randomKeyPair();
      const proof = proveOpening({
        providerSecret: provider.secret,
        bidderPublicKey: bidder.publicKey,
        chainId: 8855n,
      });
      expect(proof.providerPublicKey).toEqual(provider.publicKey);
      expect(proof.c < 1n << 253n).toBe(true);
      expect(verifyOpening(zkProofArray(proof), 8855n)).toBe(true);
      expect(verifyOpening(zkProofArray(proof), 31337n)).toBe(false);
    }
  });

  test("a fixed nonce gives the challenge an independent noble computation gives", () => {
    const a = 0x1234567n;
    const k = 0xabcdef987654321n;
    const bidder = randomKeyPair();
    const proof = proveOpening({ providerSecret: a, bidderPublicKey: bidder.publicKey, chainId: 31337n, nonce: k });
    const G = bn254.G1.Point.BASE;
    const B = bn254.G1.Point.fromAffine(bidder.publicKey);
    const pts = [G.multiply(a), B, B.multiply(a), G.multiply(k), B.multiply(k)].map((p) => p.toAffine());
    const pre = concatBytes(zkContextHash(31337n), ...pts.flatMap((p) => [bigIntToBytes(p.x), bigIntToBytes(p.y)]));
    const c = bytesToBigInt(keccak_256(pre)) & ((1n << 253n) - 1n);
    expect(proof.c).toBe(c);
    expect(proof.z).toBe((((k - a * c) % BN254_CURVE_ORDER) + BN254_CURVE_ORDER) % BN254_CURVE_ORDER);
  });

  test("the shared key the caller passes is the one proven (the stored commitment's), with the same proof", () => {
    const provider = randomKeyPair();
    const bidder = randomKeyPair();
    const k = 0xabcdef987654321n;
    const common = { providerSecret: provider.secret, bidderPublicKey: bidder.publicKey, chainId: 31337n, nonce: k };
    const computed = proveOpening(common);
    const given = proveOpening({ ...common, sharedKey: sharedPoint(bidder.secret, provider.publicKey) });
    expect(given).toEqual(computed);
    expect(verifyOpening(zkProofArray(given), 31337n)).toBe(true);
    const wrong = proveOpening({ ...common, sharedKey: provider.publicKey });
    expect(wrong.sharedKey).toEqual(provider.publicKey);
    expect(verifyOpening(zkProofArray(wrong), 31337n)).toBe(false);
  });

  test("a bidder-opened proof array carries zeros where the contract expects them", () => {
    const arr = bidderZkProofArray({ x: 1n, y: 2n }, { x: 3n, y: 4n });
    expect(arr).toEqual([0n, 0n, 1n, 2n, 3n, 4n, 0n, 0n]);
  });
});
