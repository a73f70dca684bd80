import { describe, expect, test } from "bun:test";
import type { PositionConstraint } from "../protocol/bidOptions.ts";
import { type BlockLayout, isPositionConstraintMet, unmetBidOptions } from "./positionConstraints.ts";

const TOP = 1;
const BOTTOM = 2;
const PERCENTILE = 1;
const ABSOLUTE = 2;
const GAS_PERCENTILE = 3;

/** A block of `n` transactions of 21000 gas each. */
const blockOf = (n: number): BlockLayout => ({
  gasByPosition: Array.from({ length: n }, () => 21000n),
  gasUsed: 21000n * BigInt(n),
});
const pc = (basis: number, anchor: number, value: number): PositionConstraint => ({ basis, anchor, value });
/** The positions of a block of `n` that meet the constraint. */
const metAt = (c: PositionConstraint, block: BlockLayout) =>
  block.gasByPosition.map((_, i) => i).filter((i) => isPositionConstraintMet(c, i, block));

describe("ABSOLUTE", () => {
  test("TOP: position ≤ value", () => {
    expect(metAt(pc(ABSOLUTE, TOP, 0), blockOf(10))).toEqual([0]);
    expect(metAt(pc(ABSOLUTE, TOP, 2), blockOf(10))).toEqual([0, 1, 2]);
    expect(metAt(pc(ABSOLUTE, TOP, 100), blockOf(3))).toEqual([0, 1, 2]);
    expect(metAt(pc(ABSOLUTE, TOP, -1), blockOf(3))).toEqual([]);
  });
  test("BOTTOM: position ≥ n − value", () => {
    expect(metAt(pc(ABSOLUTE, BOTTOM, 1), blockOf(10))).toEqual([9]);
    expect(metAt(pc(ABSOLUTE, BOTTOM, 3), blockOf(10))).toEqual([7, 8, 9]);
    // value 0 asks for a position past the last transaction: never met.
    expect(metAt(pc(ABSOLUTE, BOTTOM, 0), blockOf(10))).toEqual([]);
    expect(metAt(pc(ABSOLUTE, BOTTOM, 100), blockOf(3))).toEqual([0, 1, 2]);
  });
  test("a block of one transaction", () => {
    expect(metAt(pc(ABSOLUTE, TOP, 0), blockOf(1))).toEqual([0]);
    expect(metAt(pc(ABSOLUTE, BOTTOM, 1), blockOf(1))).toEqual([0]);
    expect(metAt(pc(ABSOLUTE, BOTTOM, 0), blockOf(1))).toEqual([]);
  });
});

describe("PERCENTILE", () => {
  test("TOP: position ≤ n·value/100, the division truncated", () => {
    expect(metAt(pc(PERCENTILE, TOP, 25), blockOf(10))).toEqual([0, 1, 2]); // 250/100 = 2
    expect(metAt(pc(PERCENTILE, TOP, 50), blockOf(3))).toEqual([0, 1]); // 150/100 = 1
    expect(metAt(pc(PERCENTILE, TOP, 0), blockOf(10))).toEqual([0]);
    expect(metAt(pc(PERCENTILE, TOP, 100), blockOf(10))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(metAt(pc(PERCENTILE, TOP, 99), blockOf(1))).toEqual([0]); // 99/100 = 0
  });
  test("TOP with a negative value truncates toward zero (−30/100 = 0), as Go does, not down to −1", () => {
    expect(metAt(pc(PERCENTILE, TOP, -10), blockOf(3))).toEqual([0]);
    expect(metAt(pc(PERCENTILE, TOP, -34), blockOf(3))).toEqual([]); // −102/100 = −1
  });
  test("BOTTOM: position ≥ n·(100 − value)/100, the division truncated", () => {
    expect(metAt(pc(PERCENTILE, BOTTOM, 25), blockOf(10))).toEqual([7, 8, 9]); // 750/100 = 7
    expect(metAt(pc(PERCENTILE, BOTTOM, 50), blockOf(3))).toEqual([1, 2]); // 150/100 = 1
    expect(metAt(pc(PERCENTILE, BOTTOM, 34), blockOf(3))).toEqual([1, 2]); // 198/100 = 1
    expect(metAt(pc(PERCENTILE, BOTTOM, 100), blockOf(4))).toEqual([0, 1, 2, 3]);
    // value 0 asks for position ≥ n: never met.
    expect(metAt(pc(PERCENTILE, BOTTOM, 0), blockOf(4))).toEqual([]);
  });
  test("a block of one transaction", () => {
    expect(metAt(pc(PERCENTILE, TOP, 0), blockOf(1))).toEqual([0]);
    expect(metAt(pc(PERCENTILE, BOTTOM, 100), blockOf(1))).toEqual([0]);
    expect(metAt(pc(PERCENTILE, BOTTOM, 1), blockOf(1))).toEqual([0]); // 99/100 = 0
    expect(metAt(pc(PERCENTILE, BOTTOM, 0), blockOf(1))).toEqual([]);
  });
});

describe("GAS_PERCENTILE", () => {
  // Gas before each position: 0%, 21%, 71%; own gas: 21%, 50%, 29%.
  const block: BlockLayout = { gasByPosition: [21000n, 50000n, 29000n], gasUsed: 100000n };
  test("TOP: gas used before the transaction, as a truncated percentage, ≤ value", () => {
    expect(metAt(pc(GAS_PERCENTILE, TOP, 0), block)).toEqual([0]);
    expect(metAt(pc(GAS_PERCENTILE, TOP, 20), block)).toEqual([0]);
    expect(metAt(pc(GAS_PERCENTILE, TOP, 21), block)).toEqual([0, 1]);
    expect(metAt(pc(GAS_PERCENTILE, TOP, 100), block)).toEqual([0, 1, 2]);
  });
  test("BOTTOM: that percentage + the transaction's own ≥ 100 − value", () => {
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 0), block)).toEqual([2]); // 71 + 29 = 100
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 28), block)).toEqual([2]); // ≥ 72: 21 + 50 = 71 falls short
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 29), block)).toEqual([1, 2]);
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 100), block)).toEqual([0, 1, 2]);
  });
  test("both percentages are truncated: a block of thirds leaves the last transaction at 66 + 33 = 99", () => {
    const thirds: BlockLayout = { gasByPosition: [100n, 100n, 100n], gasUsed: 300n };
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 0), thirds)).toEqual([]);
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 1), thirds)).toEqual([2]);
    expect(metAt(pc(GAS_PERCENTILE, TOP, 33), thirds)).toEqual([0, 1]); // 100·100/300 = 33
    expect(metAt(pc(GAS_PERCENTILE, TOP, 65), thirds)).toEqual([0, 1]); // 200·100/300 = 66
  });
  test("a block of one transaction: 0% before it, 100% its own", () => {
    expect(metAt(pc(GAS_PERCENTILE, TOP, 0), blockOf(1))).toEqual([0]);
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 0), blockOf(1))).toEqual([0]);
  });
  test("values outside 0..100 convert to uint64 as Go converts them", () => {
    // uint64(−1) is 2⁶⁴ − 1: every position is under it.
    expect(metAt(pc(GAS_PERCENTILE, TOP, -1), block)).toEqual([0, 1, 2]);
    // uint64(100 − 101) is 2⁶⁴ − 1: nothing reaches it.
    expect(metAt(pc(GAS_PERCENTILE, BOTTOM, 101), block)).toEqual([]);
  });
});

describe("unset or unknown enums", () => {
  test("an unspecified anchor or basis, or an unknown number, is never met", () => {
    for (const c of [pc(ABSOLUTE, 0, 5), pc(0, TOP, 5), pc(7, TOP, 5), pc(ABSOLUTE, 9, 5), pc(GAS_PERCENTILE, 0, 100)])
      expect(metAt(c, blockOf(3))).toEqual([]);
  });
});

describe("unmetBidOptions", () => {
  const top0 = { positionConstraint: pc(ABSOLUTE, TOP, 0) };
  const top1 = { positionConstraint: pc(ABSOLUTE, TOP, 1) };
  const last = { positionConstraint: pc(ABSOLUTE, BOTTOM, 1) };
  const block = blockOf(5);
  test("no options: nothing is left", () => expect(unmetBidOptions([], [3], block)).toEqual([]));
  test("a constraint met by any transaction of the bundle", () => {
    expect(unmetBidOptions([last], [3, 4], block)).toEqual([]);
    expect(unmetBidOptions([top0], [0, 1], block)).toEqual([]);
  });
  test("a constraint no transaction meets is left", () => {
    expect(unmetBidOptions([top0], [1, 2], block)).toEqual([top0]);
  });
  test("each transaction strikes out one constraint only: one transaction cannot meet two", () => {
    expect(unmetBidOptions([top0, top1], [0], block)).toEqual([top1]);
    expect(unmetBidOptions([top0, top1], [0, 1], block)).toEqual([]);
  });
  test("a transaction strikes out the first constraint it meets, in the options' order", () => {
    // Position 0 meets both and takes top1 (listed first); position 1 then cannot meet top0.
    expect(unmetBidOptions([top1, top0], [0, 1], block)).toEqual([top0]);
  });
  test("an option that is not a position constraint is never met", () => {
    expect(unmetBidOptions([{}], [0], block)).toEqual([{}]);
  });
});
