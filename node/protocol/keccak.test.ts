import { expect, test } from "bun:test";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { initKeccak, keccak256 } from "./keccak.ts";

test("the WebAssembly keccak gives @noble/hashes' digests, each result its own copy", async () => {
  const before = keccak256(new Uint8Array([1, 2, 3])); // before initialisation: @noble/hashes
  await initKeccak();
  const results: Uint8Array[] = [];
  for (let size = 0; size < 700; size += 7) {
    const data = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff);
    const ours = keccak256(data);
    expect(ours).toEqual(keccak_256(data));
    results.push(ours);
  }
  expect(results[0]).toEqual(keccak_256(new Uint8Array(0))); // not overwritten by the hashes after it
  expect(keccak256(new Uint8Array([1, 2, 3]))).toEqual(before);
});
