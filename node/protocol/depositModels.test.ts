import { describe, expect, test } from "bun:test";
import { depositModelOf, PER_PROVIDER_DEPOSITS, WINDOW_DEPOSITS } from "./depositModels.ts";
import { rulesOf } from "./rules.ts";

describe("deposit models", () => {
  test("window deposits: blocks 1-10 are window 1, block 11 opens window 2", () => {
    expect([1n, 10n, 11n, 20n, 21n].map((b) => WINDOW_DEPOSITS.windowOfBlock(b))).toEqual([1n, 1n, 2n, 2n, 3n]);
  });

  test("per-provider deposits have no windows", () => {
    expect(PER_PROVIDER_DEPOSITS.windowOfBlock(11n)).toBeNull();
  });

  test("each protocol version's model", () => {
    expect(depositModelOf(rulesOf("v1.1")).name).toBe("window");
    expect(depositModelOf(rulesOf("v1.2")).name).toBe("perProvider");
  });
});
