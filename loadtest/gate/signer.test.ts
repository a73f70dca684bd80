/**
 * The gate's signature recovery (signer.ts) against viem's signatures, as source and as the bundle k6 imports: it
 * finds the signer of a valid signature, another address for the other v, and refuses malformed input.
 */
import { describe, expect, test } from "bun:test";
import { keccak256, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { bundleSigner } from "./bundle.ts";
import { signerOf } from "./signer.ts";

const bare = (h: string) => h.toLowerCase().replace(/^0x/, "");

async function signed(text: string) {
  const account = privateKeyToAccount(generatePrivateKey());
  const digest = keccak256(toHex(text));
  return {
    address: bare(account.address),
    digest: bare(digest),
    signature: bare(await account.sign({ hash: digest })),
  };
}

describe("signerOf", () => {
  test("recovers the address that signed a digest (v = 27/28 as on the node's wire)", async () => {
    for (const text of ["one", "two", "three", "four"]) {
      const s = await signed(text);
      expect(s.signature).toMatch(/(1b|1c)$/);
      expect(signerOf(s.digest, s.signature)).toBe(s.address);
    }
  });

  test("another digest or the other v recovers another address", async () => {
    const s = await signed("bid");
    const flipped = s.signature.slice(0, 128) + (s.signature.endsWith("1b") ? "1c" : "1b");
    expect(signerOf(s.digest, flipped)).not.toBe(s.address);
    expect(signerOf(bare(keccak256(toHex("another bid"))), s.signature)).not.toBe(s.address);
  });

  test("malformed digests and signatures are refused", async () => {
    const s = await signed("bid");
    expect(() => signerOf(s.digest.slice(2), s.signature)).toThrow(/digest must be 32 bytes/);
    expect(() => signerOf(s.digest, `${s.signature.slice(0, 128)}00`)).toThrow(/v = 1b\/1c/);
    expect(() => signerOf(s.digest.toUpperCase(), s.signature)).toThrow(/lower-case/);
  });

  test("the bundle k6 imports recovers the same signer", async () => {
    const path = await bundleSigner();
    const bundled = (await import(path)) as { signerOf: typeof signerOf };
    const s = await signed("bundled");
    expect(bundled.signerOf(s.digest, s.signature)).toBe(s.address);
  });
});
