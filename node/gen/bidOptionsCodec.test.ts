import { expect, test } from "bun:test";
import { decodeBidOptions, encodeBidOptions } from "./bidOptionsCodec.ts";
import { bytesToHex, hexToBytes } from "../protocol/bytes.ts";

/** BidOptions{options:[BidOption{position_constraint:{anchor:TOP(1), basis:PERCENTILE(1), value:10}}]}, by hand:
 * 0a 08 (options, 8 bytes) 0a 06 (position_constraint, 6 bytes) 08 01 (anchor) 10 01 (basis) 18 0a (value). */
const TOP_10_PERCENT = "0a080a0608011001180a";

test("a position constraint encodes to its proto bytes, from either JSON spelling, and decodes back", () => {
  const camel = { options: [{ positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } }] };
  const snake = { options: [{ position_constraint: { anchor: 1, basis: 1, value: 10 } }] };
  expect(bytesToHex(encodeBidOptions(camel))).toBe(TOP_10_PERCENT);
  expect(bytesToHex(encodeBidOptions(snake))).toBe(TOP_10_PERCENT);
  expect(decodeBidOptions(hexToBytes(TOP_10_PERCENT))).toEqual(camel);
});

test("no options and an empty BidOptions are both zero bytes", () => {
  expect(encodeBidOptions(undefined)).toEqual(new Uint8Array(0));
  expect(encodeBidOptions({})).toEqual(new Uint8Array(0));
  expect(encodeBidOptions({ options: [] })).toEqual(new Uint8Array(0));
  expect(decodeBidOptions(new Uint8Array(0))).toEqual({ options: [] });
});

test("bad input is InvalidArgument", () => {
  expect(() => encodeBidOptions({ options: [{ positionConstraint: { anchor: "SIDEWAYS" } }] })).toThrow(
    /marshaling bid options/,
  );
  expect(() => decodeBidOptions(hexToBytes("0aff"))).toThrow(/decoding bid options/);
});
