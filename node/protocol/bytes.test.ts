import { expect, test } from "bun:test";
import { bytesToHex, hexToBytes } from "./bytes.ts";

test("bytesToHex: lower-case pairs, empty input, and only the bytes of a view into a larger buffer", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const hex = bytesToHex(all);
  expect(hex).toBe(Array.from(all, (b) => b.toString(16).padStart(2, "0")).join(""));
  expect(bytesToHex(new Uint8Array(0))).toBe("");
  expect(bytesToHex(all.subarray(254, 256))).toBe("feff");
  expect(hexToBytes(hex)).toEqual(all);
});
