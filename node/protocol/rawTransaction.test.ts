import { describe, expect, test } from "bun:test";
import { type Hex, keccak256, serializeTransaction } from "viem";
import { RawTransactionDecodeError, RawTransactionHexError, rawTransactionHash } from "./rawTransaction.ts";

const to = "0x0000000000000000000000000000000000000001" as const;
const sig = { r: `0x${"11".repeat(32)}` as Hex, s: `0x${"22".repeat(32)}` as Hex, yParity: 1 } as const;

describe("rawTransactionHash", () => {
  test("hash is keccak of the bytes, lower-case without 0x, with or without the 0x prefix", () => {
    const tx = serializeTransaction(
      { chainId: 1, type: "eip1559", to, nonce: 1, gas: 21000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n },
      sig,
    );
    expect(rawTransactionHash(tx)).toBe(keccak256(tx).slice(2));
    expect(rawTransactionHash(tx.slice(2))).toBe(keccak256(tx).slice(2));
  });

  test("an unsigned transaction has too few elements", () => {
    const unsigned = serializeTransaction({ chainId: 1, type: "eip1559", to, nonce: 1, gas: 21000n, maxFeePerGas: 2n });
    expect(() => rawTransactionHash(unsigned)).toThrow("rlp: too few elements for types.DynamicFeeTx");
    const legacy = serializeTransaction({ chainId: 1, type: "legacy", to, nonce: 1, gas: 21000n, gasPrice: 2n });
    expect(() => rawTransactionHash(legacy)).toThrow(RawTransactionDecodeError);
  });

  test("a blob transaction in network form hashes like its canonical form", () => {
    const base = {
      chainId: 1,
      type: "eip4844",
      to,
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 1n,
      blobVersionedHashes: [`0x01${"11".repeat(31)}` as Hex],
    } as const;
    const canonical = serializeTransaction(base, sig);
    const sidecar = {
      blob: `0x${"00".repeat(131072)}` as Hex,
      commitment: `0xc0${"00".repeat(47)}` as Hex,
      proof: `0xc0${"00".repeat(47)}` as Hex,
    };
    const network = serializeTransaction({ ...base, sidecars: [sidecar] }, sig);
    expect(rawTransactionHash(network)).toBe(keccak256(canonical).slice(2));
  });

  test("odd hex length", () => {
    expect(() => rawTransactionHash("0xabc")).toThrow(RawTransactionHexError);
  });
});
