import { describe, expect, test } from "bun:test";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { hashTypedData } from "viem";
import { VECTOR } from "../testing/testVectors.ts";
import { bytesToHex, concatBytes, hexToBytes, utf8 } from "./bytes.ts";
import {
  BID_TYPEHASH,
  BID_TYPEHASH_WITH_OPTIONS,
  bidDigest,
  COMMITMENT_TYPEHASH,
  commitmentDigest,
  commitmentIndex,
  domainSeparator,
  joinTxHashes,
  protocolDomains,
  splitTxHashes,
  txnHashReplayKey,
} from "./digest.ts";

const domains = protocolDomains(VECTOR.chainId, VECTOR.preconfManager);

describe("domain separators (non-standard EIP-712)", () => {
  test("type hashes match the fact sheet", () => {
    expect(bytesToHex(BID_TYPEHASH)).toBe("073d75b5c45f1d169a3eda1b35e0c7d5d34e8532aae0087812ec01c6c7386bd5");
    expect(bytesToHex(COMMITMENT_TYPEHASH)).toBe("2f74b1a76572e937d6645a0726fe0e63dc94ed85cb69e6374d31eeaa9428babd");
  });

  test("strings are ABI-encoded dynamically, not hashed", () => {
    // Build the expected pre-image word by word: head [typeHash, 0xa0, 0xe0, chainId, address], then tails.
    const word = (hex: string) => hexToBytes(hex.padStart(64, "0"));
    const tail = (s: string) => {
      const b = utf8(s);
      const padded = new Uint8Array(Math.ceil(b.length / 32) * 32);
      padded.set(b);
      return concatBytes(word(b.length.toString(16)), padded);
    };
    const pre = concatBytes(
      keccak_256(utf8("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")),
      word("a0"),
      word("e0"),
      word((31337).toString(16)),
      word(VECTOR.preconfManager.slice(2).toLowerCase()),
      tail("PreConfBid"),
      tail("1"),
    );
    expect(bytesToHex(domainSeparator("PreConfBid", 31337n, VECTOR.preconfManager))).toBe(bytesToHex(keccak_256(pre)));
    expect(bytesToHex(domains.bid)).not.toBe(bytesToHex(domains.commitment));
  });

  test("a name longer than 32 bytes moves the version offset", () => {
    const long = "x".repeat(40);
    expect(() => domainSeparator(long, 1n, VECTOR.preconfManager)).not.toThrow();
  });
});

describe("bid digest (§1.6 vector)", () => {
  test("matches upstream 8d1f66…", () => {
    expect(bytesToHex(bidDigest(VECTOR.bidFields, domains.bid))).toBe(VECTOR.bidDigest);
  });

  test("standard EIP-712 gives the known wrong value", () => {
    const wrong = hashTypedData({
      domain: { name: "PreConfBid", version: "1", chainId: 31337, verifyingContract: VECTOR.preconfManager },
      types: {
        PreConfBid: [
          { name: "txnHash", type: "string" },
          { name: "revertingTxHashes", type: "string" },
          { name: "bidAmt", type: "uint256" },
          { name: "blockNumber", type: "uint64" },
          { name: "decayStartTimeStamp", type: "uint64" },
          { name: "decayEndTimeStamp", type: "uint64" },
          { name: "slashAmt", type: "uint256" },
          { name: "bidderPKx", type: "uint256" },
          { name: "bidderPKy", type: "uint256" },
        ],
      },
      primaryType: "PreConfBid",
      message: {
        txnHash: "0xkartik",
        revertingTxHashes: "0xkartik",
        bidAmt: 2n,
        blockNumber: 2n,
        decayStartTimeStamp: 10n,
        decayEndTimeStamp: 20n,
        slashAmt: 0n,
        bidderPKx: 1n,
        bidderPKy: 2n,
      },
    });
    expect(wrong.slice(2)).toBe(VECTOR.wrongEip712BidDigest);
    expect(wrong.slice(2)).not.toBe(VECTOR.bidDigest);
  });

  test("every field changes the digest", () => {
    const base = bytesToHex(bidDigest(VECTOR.bidFields, domains.bid));
    const variants = [
      { txnHash: "0xKARTIK" },
      { revertingTxHashes: "" },
      { bidAmt: 3n },
      { blockNumber: 3n },
      { decayStart: 11n },
      { decayEnd: 21n },
      { slashAmt: 1n },
      { bidderPK: { x: 1n, y: 3n } },
    ];
    for (const v of variants) expect(bytesToHex(bidDigest({ ...VECTOR.bidFields, ...v }, domains.bid))).not.toBe(base);
  });

  test("uint64 fields are range-checked", () => {
    expect(() => bidDigest({ ...VECTOR.bidFields, blockNumber: 1n << 64n }, domains.bid)).toThrow(/blockNumber/);
    expect(() => bidDigest({ ...VECTOR.bidFields, bidAmt: -1n }, domains.bid)).toThrow(/bidAmt/);
  });
});

describe("v1.2 bid digest with bid options (upstream-head-delta §2.6)", () => {
  test("type hash of the type string with `bytes bidOptions` is 0xc185e83c…", () => {
    expect(bytesToHex(BID_TYPEHASH_WITH_OPTIONS)).toBe(
      "c185e83c772a5c359c47362e51265e4860de956d9e3a9b83119437c251ab1b3d",
    );
  });

  test("bidOptions 0x1234 gives upstream's 63fc7977…", () => {
    const d = bidDigest({ ...VECTOR.bidFields, bidOptions: hexToBytes("1234") }, domains.bid);
    expect(bytesToHex(d)).toBe("63fc79776bb6995561cf5850551f6abf99471e5130bd3785feff90285f7dda26");
  });

  test("empty bidOptions gives abfb2844…, not the v1.1 digest of the same bid", () => {
    const d = bytesToHex(bidDigest({ ...VECTOR.bidFields, bidOptions: new Uint8Array(0) }, domains.bid));
    expect(d).toBe("abfb28441e35ddbe17a41f3d306127fb6049dcc46a3ebbc9c68719f370dc2784");
    expect(d).not.toBe(VECTOR.bidDigest);
  });
});

describe("commitment digest (§1.6 vector)", () => {
  test("matches upstream 87d7e7…", () => {
    const d = commitmentDigest(
      hexToBytes(VECTOR.bidDigest),
      hexToBytes(VECTOR.bidSignature),
      { x: 1n, y: 2n },
      domains.commitment,
    );
    expect(bytesToHex(d)).toBe(VECTOR.commitmentDigest);
  });

  test("commitment index is keccak(digest ‖ signature)", () => {
    const digest = hexToBytes(VECTOR.commitmentDigest);
    const sig = hexToBytes(VECTOR.commitmentSignature);
    expect(bytesToHex(commitmentIndex(digest, sig))).toBe(bytesToHex(keccak_256(concatBytes(digest, sig))));
  });
});

describe("tx hash strings", () => {
  test("joinTxHashes strips 0x and joins with commas, preserving case", () => {
    expect(joinTxHashes(["0xAb", "cd", "0xef"])).toBe("Ab,cd,ef");
    expect(joinTxHashes([])).toBe("");
  });
  test("splitTxHashes behaves like Go strings.Split", () => {
    expect(splitTxHashes("")).toEqual([""]);
    expect(splitTxHashes("a,b")).toEqual(["a", "b"]);
  });
  test("replay key encodes (string, address, uint64)", () => {
    const k1 = txnHashReplayKey("aa", "0x328809Bc894f92807417D2dAD6b7C998c1aFdac6", 2n);
    const k2 = txnHashReplayKey("aa", "0x328809Bc894f92807417D2dAD6b7C998c1aFdac6", 3n);
    expect(k1.length).toBe(32);
    expect(bytesToHex(k1)).not.toBe(bytesToHex(k2));
  });
});
