import { describe, expect, test } from "bun:test";
import { decayedAmount, ONE_HUNDRED_PERCENT, residualAfterDecay, rewardSplit, slashSplit } from "./decay.ts";

const E = 10n ** 18n;

describe("residualAfterDecay (crypto-contracts §2)", () => {
  test("before start: no decay", () => {
    expect(residualAfterDecay(1000n, 2000n, 999n)).toBe(ONE_HUNDRED_PERCENT);
    expect(residualAfterDecay(1000n, 2000n, 0n)).toBe(ONE_HUNDRED_PERCENT);
  });
  test("at start, 25 %, 50 %, 75 % through", () => {
    expect(residualAfterDecay(1000n, 2000n, 1000n)).toBe(ONE_HUNDRED_PERCENT);
    expect(residualAfterDecay(1000n, 2000n, 1250n)).toBe(75n * 10n ** 16n);
    expect(residualAfterDecay(1000n, 2000n, 1500n)).toBe(50n * 10n ** 16n);
    expect(residualAfterDecay(1000n, 2000n, 1750n)).toBe(25n * 10n ** 16n);
  });
  test("at and after end: nothing left", () => {
    expect(residualAfterDecay(1000n, 2000n, 2000n)).toBe(0n);
    expect(residualAfterDecay(1000n, 2000n, 5000n)).toBe(0n);
  });
  test("start ≥ end: zero whatever the dispatch", () => {
    expect(residualAfterDecay(2000n, 2000n, 0n)).toBe(0n);
    expect(residualAfterDecay(3000n, 2000n, 0n)).toBe(0n);
  });
  test("floor rounding", () => {
    // (3 - 1) * 1e18 / 3 = 666666666666666666.67 → floor
    expect(residualAfterDecay(0n, 3n, 1n)).toBe(666666666666666666n);
    expect(residualAfterDecay(0n, 3n, 2n)).toBe(333333333333333333n);
    expect(decayedAmount(7n, 333333333333333333n)).toBe(2n);
  });
});

describe("reward and slash splits", () => {
  test("the fact-sheet worked example (1 ETH, 1000→2000, dispatch 1250, fee 2 %, penalty 5 %, slash 0.1 ETH)", () => {
    const residual = residualAfterDecay(1000n, 2000n, 1250n);
    expect(rewardSplit(E, residual, 2n * 10n ** 16n)).toEqual({
      decayed: 75n * 10n ** 16n,
      provider: 735n * 10n ** 15n,
      fee: 15n * 10n ** 15n,
      bidderRefund: 25n * 10n ** 16n,
    });
    expect(slashSplit(E, residual, 10n ** 17n, 5n * 10n ** 16n)).toEqual({
      residualAmount: 75n * 10n ** 16n,
      bidderPortion: 85n * 10n ** 16n,
      penalty: 375n * 10n ** 14n,
      totalSlash: 8875n * 10n ** 14n,
      insufficientStake: false,
    });
  });
  test("fee floors", () => {
    expect(rewardSplit(99n, ONE_HUNDRED_PERCENT, 2n * 10n ** 16n)).toEqual({
      decayed: 99n,
      provider: 98n,
      fee: 1n,
      bidderRefund: 0n,
    });
    expect(rewardSplit(49n, ONE_HUNDRED_PERCENT, 2n * 10n ** 16n).fee).toBe(0n);
  });
  test("insufficient stake pays the bidder first, penalty from the rest", () => {
    const residual = ONE_HUNDRED_PERCENT;
    expect(slashSplit(E, residual, 0n, 5n * 10n ** 16n, E + 10n)).toEqual({
      residualAmount: E,
      bidderPortion: E,
      penalty: 10n,
      totalSlash: E + 10n,
      insufficientStake: true,
    });
    expect(slashSplit(E, residual, 10n ** 17n, 5n * 10n ** 16n, E / 2n)).toEqual({
      residualAmount: E,
      bidderPortion: E / 2n,
      penalty: 0n,
      totalSlash: E / 2n,
      insufficientStake: true,
    });
    expect(slashSplit(E, residual, 0n, 5n * 10n ** 16n, 2n * E).insufficientStake).toBe(false);
  });
});
