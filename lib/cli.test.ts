import { expect, test } from "bun:test";
import { CliUsageError, integerFlag } from "./cli.ts";

test("integerFlag: an integer of at least the minimum, anything else a usage error naming the flag", () => {
  expect(integerFlag("bids", "500")).toBe(500);
  expect(integerFlag("warmup", "0", 0)).toBe(0);
  for (const bad of ["0", "1.5", "abc", ""])
    expect(() => integerFlag("bids", bad)).toThrow(new CliUsageError(`--bids must be an integer ≥ 1, got "${bad}"`));
  expect(integerFlag("bids", "0", 0)).toBe(0);
});
