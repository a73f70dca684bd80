import { describe, expect, test } from "bun:test";
import { decimalAtMost, describeDecimal, UINT64_MAX, UINT256_MAX } from "./decimal.ts";

describe("decimalAtMost", () => {
  test("values up to the bound, leading zeros ignored", () => {
    expect(decimalAtMost("0", UINT64_MAX)).toBe(0n);
    expect(decimalAtMost("000123", UINT64_MAX)).toBe(123n);
    expect(decimalAtMost(UINT64_MAX.toString(), UINT64_MAX)).toBe(UINT64_MAX);
    expect(decimalAtMost(UINT256_MAX.toString(), UINT256_MAX)).toBe(UINT256_MAX);
    expect(decimalAtMost(`${"0".repeat(1000)}7`, UINT256_MAX)).toBe(7n);
  });

  test("one above the bound, or more digits than it has, is undefined", () => {
    expect(decimalAtMost((UINT64_MAX + 1n).toString(), UINT64_MAX)).toBeUndefined();
    expect(decimalAtMost((UINT256_MAX + 1n).toString(), UINT256_MAX)).toBeUndefined();
    expect(decimalAtMost("9".repeat(79), UINT256_MAX)).toBeUndefined();
  });

  test("a megabyte of digits is refused at once (no quadratic BigInt)", () => {
    const huge = "7".repeat(4 << 20);
    const t0 = performance.now();
    expect(decimalAtMost(huge, UINT256_MAX)).toBeUndefined();
    // Not a timing assertion on the machine: BigInt of 4 Mi digits takes seconds, this takes microseconds.
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  test("descriptions of huge numbers stay short", () => {
    expect(describeDecimal("12345")).toBe("12345");
    expect(describeDecimal("1".repeat(100))).toBe("111111111111…(100 digits)");
  });
});
