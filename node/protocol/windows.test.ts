import { describe, expect, test } from "bun:test";
import {
  BLOCKS_PER_WINDOW,
  InvalidBlockNumberError,
  InvalidWindowError,
  windowBlockRange,
  windowOfBlock,
} from "./windows.ts";

describe("windows", () => {
  test("window of a block", () => {
    expect(BLOCKS_PER_WINDOW).toBe(10n);
    expect(windowOfBlock(1n)).toBe(1n);
    expect(windowOfBlock(10n)).toBe(1n);
    expect(windowOfBlock(11n)).toBe(2n);
    expect(windowOfBlock(20n)).toBe(2n);
    expect(windowOfBlock(21n)).toBe(3n);
    expect(windowOfBlock(12345n)).toBe(1235n);
  });
  test("block 0 has no window", () => {
    expect(() => windowOfBlock(0n)).toThrow(InvalidBlockNumberError);
  });
  test("block range of a window, consistent with windowOfBlock", () => {
    expect(windowBlockRange(1n)).toEqual({ start: 1n, end: 10n });
    expect(windowBlockRange(5n)).toEqual({ start: 41n, end: 50n });
    for (let w = 1n; w < 30n; w++) {
      const { start, end } = windowBlockRange(w);
      expect(windowOfBlock(start)).toBe(w);
      expect(windowOfBlock(end)).toBe(w);
      expect(windowOfBlock(end + 1n)).toBe(w + 1n);
    }
    expect(() => windowBlockRange(0n)).toThrow(InvalidWindowError);
  });
});
