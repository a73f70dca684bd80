import { describe, expect, test } from "bun:test";
import { isHonoured, type TxOutcome } from "./inclusion.ts";

const block = new Map<string, TxOutcome>([
  ["aa", { position: 0, success: true }],
  ["bb", { position: 1, success: true }],
  ["cc", { position: 2, success: false }],
  ["dd", { position: 3, success: true }],
]);

describe("oracle inclusion rule", () => {
  test("one included transaction", () => expect(isHonoured("bb", "", block)).toBe(true));
  test("a contiguous bundle in order", () => expect(isHonoured("aa,bb", "", block)).toBe(true));
  test("out of order", () => expect(isHonoured("bb,aa", "", block)).toBe(false));
  test("not contiguous", () => expect(isHonoured("aa,dd", "", block)).toBe(false));
  test("missing transaction", () => expect(isHonoured("ee", "", block)).toBe(false));
  test("a missing transaction inside a bundle", () => expect(isHonoured("aa,ee", "", block)).toBe(false));
  test("a reverted transaction not allowed to revert", () => expect(isHonoured("bb,cc", "", block)).toBe(false));
  test("a reverted transaction allowed to revert", () => expect(isHonoured("bb,cc,dd", "cc", block)).toBe(true));
  test("mixed-case hashes never match", () => expect(isHonoured("AA", "", block)).toBe(false));
});
