import { describe, expect, spyOn, test } from "bun:test";
import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import secp from "secp256k1";
import { privateKeyToAccount } from "viem/accounts";
import { VECTOR } from "../testing/testVectors.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, hexToBytes, utf8 } from "./bytes.ts";
import {
  checksumAddress,
  InvalidPrivateKeyError,
  InvalidSignatureError,
  privateKeyToAddress,
  recoverAddress,
  SECP256K1_N,
  signDigest,
} from "./secp256k1.ts";

describe("§1.6 signature vectors", () => {
  test("Foundry alice/bob keys are keccak256 of the names", () => {
    expect(bytesToHex(keccak_256(utf8("alice")))).toBe(VECTOR.aliceKey);
    expect(bytesToHex(keccak_256(utf8("bob")))).toBe(VECTOR.bobKey);
  });

  test("alice signs the bid digest to the upstream signature (RFC 6979, v = 27)", () => {
    expect(bytesToHex(signDigest(VECTOR.aliceKey, hexToBytes(VECTOR.bidDigest)))).toBe(VECTOR.bidSignature);
  });

  test("bob signs the commitment digest to the upstream signature", () => {
    expect(bytesToHex(signDigest(VECTOR.bobKey, hexToBytes(VECTOR.commitmentDigest)))).toBe(VECTOR.commitmentSignature);
  });

  test("signatures recover to the listed addresses", () => {
    expect(recoverAddress(hexToBytes(VECTOR.bidDigest), hexToBytes(VECTOR.bidSignature))).toBe(VECTOR.aliceAddress);
    expect(recoverAddress(hexToBytes(VECTOR.commitmentDigest), hexToBytes(VECTOR.commitmentSignature))).toBe(
      VECTOR.bobAddress,
    );
    expect(privateKeyToAddress(VECTOR.aliceKey)).toBe(VECTOR.aliceAddress);
    expect(privateKeyToAddress(`0x${VECTOR.bobKey}`)).toBe(VECTOR.bobAddress);
  });
});

describe("cross-check with @noble/curves and viem", () => {
  test("random keys and digests: same signature bytes and signer", () => {
    for (let i = 0; i < 20; i++) {
      const key = noble.utils.randomSecretKey();
      const digest = keccak_256(utf8(`message ${i}`));
      const ours = signDigest(key, digest);
      const theirs = noble.sign(digest, key, { prehash: false, format: "recovered" });
      // noble's recovered format is recid ‖ r ‖ s
      expect(bytesToHex(ours.subarray(0, 64))).toBe(bytesToHex(theirs.subarray(1)));
      expect(ours[64]).toBe(27 + theirs[0]!);
      expect(bytesToBigInt(ours.subarray(32, 64)) <= SECP256K1_N / 2n).toBe(true);
      expect(recoverAddress(digest, ours)).toBe(privateKeyToAccount(`0x${bytesToHex(key)}`).address);
    }
  });

  test("checksumAddress is EIP-55", () => {
    expect(checksumAddress(hexToBytes("1d96f2f6bef1202e4ce1ff6dad0c2cb002861d3e"))).toBe(VECTOR.bobAddress);
  });
});

describe("rejections (OpenZeppelin ECDSA.recover rules)", () => {
  const digest = hexToBytes(VECTOR.bidDigest);
  const sig = hexToBytes(VECTOR.bidSignature);

  test("v must be 27 or 28", () => {
    for (const v of [0, 1, 29, 35]) {
      const bad = sig.slice();
      bad[64] = v;
      expect(() => recoverAddress(digest, bad)).toThrow(InvalidSignatureError);
    }
  });

  test("high-S is rejected even though it would recover", () => {
    const bad = sig.slice();
    const s = bytesToBigInt(sig.subarray(32, 64));
    bad.set(bigIntToBytes(SECP256K1_N - s), 32);
    bad[64] = sig[64] === 27 ? 28 : 27;
    try {
      recoverAddress(digest, bad);
      throw new Error("expected a throw");
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidSignatureError);
      expect((err as InvalidSignatureError).reason).toBe("high-s");
    }
  });

  test("wrong length and zero r are rejected", () => {
    expect(() => recoverAddress(digest, sig.subarray(0, 64))).toThrow(InvalidSignatureError);
    const zeroR = sig.slice();
    zeroR.fill(0, 0, 32);
    expect(() => recoverAddress(digest, zeroR)).toThrow(/r and s/);
  });

  test("bad private keys are named errors", () => {
    expect(() => signDigest(new Uint8Array(32), digest)).toThrow(InvalidPrivateKeyError);
    expect(() => signDigest("abcd", digest)).toThrow(InvalidPrivateKeyError);
  });

  test("a signature checked again over the same digest is not recovered again; any other byte is", () => {
    const key = keccak_256(utf8("recover once"));
    const d = keccak_256(utf8("one digest"));
    const signed = signDigest(key, d);
    const recover = spyOn(secp, "ecdsaRecover");
    try {
      const signer = privateKeyToAccount(`0x${bytesToHex(key)}`).address;
      expect(recoverAddress(d, signed)).toBe(signer);
      expect(recoverAddress(d, signed.slice())).toBe(signer);
      expect(recover).toHaveBeenCalledTimes(1);
      const other = keccak_256(utf8("another digest"));
      expect(recoverAddress(other, signed)).not.toBe(signer);
      expect(recover).toHaveBeenCalledTimes(2);
    } finally {
      recover.mockRestore();
    }
  });
});
