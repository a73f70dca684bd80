/** The bidder's record of its deposit windows, on a real SQLite store: every uint64 window comes back as it went in. */
import { expect, test } from "bun:test";
import { NodeStore } from "../../../store/db.ts";
import { DepositStore } from "./depositStore.ts";

test("windows from 1 to 2^64-1 are kept, found, listed in ascending order and removed (SQLite's integers are signed)", () => {
  const deposits = new DepositStore(new NodeStore(":memory:"));
  const max = 2n ** 64n - 1n;
  const high = 16082648317487605760n; // above 2^63: a deposit the fuzzer made
  deposits.addWindows([high, 5n, max, 2n ** 63n, 2n ** 63n - 1n]);
  expect(deposits.windows()).toEqual([5n, 2n ** 63n - 1n, 2n ** 63n, high, max]);
  expect(deposits.hasWindow(high)).toBe(true);
  expect(deposits.hasWindow(high - 1n)).toBe(false);
  deposits.removeWindows([high, max]);
  expect(deposits.windows()).toEqual([5n, 2n ** 63n - 1n, 2n ** 63n]);
});
