import { describe, expect, test } from "bun:test";
import {
  parseAutoDepositRequest,
  parseDepositRequest,
  parseWithdrawFromWindowsRequest,
  parseWithdrawFromWindowsRequestText,
} from "./depositValidation.ts";
import { InvalidArgumentError } from "./grpcCodes.ts";
import { parseQueryField, queryValuesOf } from "./queryParams.ts";

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return (err as Error).message;
  }
  throw new Error("expected an InvalidArgumentError");
}

describe("deposit / auto deposit", () => {
  test("valid requests", () => {
    expect(parseDepositRequest("1000")).toEqual({ amount: 1000n });
    expect(parseDepositRequest("5", { window_number: ["3"] })).toEqual({ amount: 5n, windowNumber: 3n });
    expect(parseAutoDepositRequest("5", { blockNumber: ["42"] })).toEqual({ amount: 5n, blockNumber: 42n });
  });

  test("amount path parameter", () => {
    for (const amount of ["0", "", "01", "abc", "-5", "1.0"]) {
      expect(messageOf(() => parseDepositRequest(amount))).toBe(
        "validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]",
      );
    }
    expect(messageOf(() => parseAutoDepositRequest("0"))).toBe(
      "validating auto deposit request: validation error:\n - amount: amount must be a valid integer. [amount]",
    );
  });

  test("amounts above uint256 are refused (ours)", () => {
    expect(parseDepositRequest(((1n << 256n) - 1n).toString()).amount).toBe((1n << 256n) - 1n);
    expect(messageOf(() => parseDepositRequest("9".repeat(100_000)))).toBe(
      "validating deposit request: amount must fit in a uint256 (at most 2^256-1 wei), got 999999999999…(100000 digits)",
    );
    expect(messageOf(() => parseAutoDepositRequest((1n << 256n).toString()))).toStartWith(
      "validating auto deposit request: amount must fit in a uint256",
    );
  });

  test("zero wrappers are violations, listed after amount", () => {
    expect(messageOf(() => parseDepositRequest("0", { window_number: ["0"], block_number: ["0"] }))).toBe(
      "validating deposit request: validation error:\n" +
        " - amount: amount must be a valid integer. [amount]\n" +
        " - window_number: window_number must be a positive integer if specified. [window_number]\n" +
        " - block_number: block_number must be a positive integer if specified. [block_number]",
    );
  });

  test("query parsing errors come first (§0.3)", () => {
    expect(messageOf(() => parseDepositRequest("0", { window_number: ["abc"] }))).toBe(
      'parsing field "window_number": strconv.ParseUint: parsing "abc": invalid syntax',
    );
    expect(messageOf(() => parseDepositRequest("1", { windowNumber: ["-1"] }))).toBe(
      'parsing field "window_number": strconv.ParseUint: parsing "-1": invalid syntax',
    );
    expect(messageOf(() => parseDepositRequest("1", { block_number: ["18446744073709551616"] }))).toBe(
      'parsing field "block_number": strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
    expect(messageOf(() => parseDepositRequest("1", { window_number: ["1", "2"] }))).toBe(
      'too many values for field "window_number": 1, 2',
    );
    expect(messageOf(() => parseDepositRequest("1", { window_number: [""] }))).toBe(
      'parsing field "window_number": strconv.ParseUint: parsing "": invalid syntax',
    );
  });

  test("proto name wins over the JSON name; unknown keys ignored", () => {
    expect(
      parseDepositRequest("1", { window_number: ["2"], windowNumber: ["3"], amount: ["9"], other: ["x"] }),
    ).toEqual({
      amount: 1n,
      windowNumber: 2n,
    });
  });
});

describe("query helpers", () => {
  test("int32 / int64 / bool parsing texts", () => {
    const q = queryValuesOf(new URLSearchParams("page=-2&limit=99999999999&flag=maybe&block_number=%2B7"));
    expect(parseQueryField(q, { name: "page", jsonName: "page", kind: "int32" })).toBe(-2);
    expect(parseQueryField(q, { name: "block_number", jsonName: "blockNumber", kind: "int64" })).toBe(7n);
    expect(messageOf(() => parseQueryField(q, { name: "limit", jsonName: "limit", kind: "int32" }))).toBe(
      'parsing field "limit": strconv.ParseInt: parsing "99999999999": value out of range',
    );
    expect(messageOf(() => parseQueryField(q, { name: "flag", jsonName: "flag", kind: "bool" }))).toBe(
      'parsing field "flag": strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(parseQueryField(q, { name: "absent", jsonName: "absent", kind: "int64" })).toBeUndefined();
  });
});

describe("withdraw from windows", () => {
  const bad =
    "validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers]";

  test("numbers or strings, either spelling", () => {
    expect(parseWithdrawFromWindowsRequest({ window_numbers: [1, "2"] })).toEqual([1n, 2n]);
    expect(parseWithdrawFromWindowsRequest({ windowNumbers: ["18446744073709551615"] })).toEqual([
      18446744073709551615n,
    ]);
    expect(parseWithdrawFromWindowsRequestText('{"windowNumbers":[18446744073709551615]}')).toEqual([
      18446744073709551615n,
    ]);
  });

  test("empty or non-positive lists", () => {
    expect(messageOf(() => parseWithdrawFromWindowsRequest({}))).toBe(bad);
    expect(messageOf(() => parseWithdrawFromWindowsRequest(undefined))).toBe(bad);
    expect(messageOf(() => parseWithdrawFromWindowsRequest({ windowNumbers: [] }))).toBe(bad);
    expect(messageOf(() => parseWithdrawFromWindowsRequest({ windowNumbers: [3, 0] }))).toBe(bad);
    expect(messageOf(() => parseWithdrawFromWindowsRequestText(""))).toBe(bad);
  });

  test("wrong JSON types", () => {
    expect(messageOf(() => parseWithdrawFromWindowsRequestText('{"windowNumbers":[-1]}'))).toBe(
      "proto: (line 1:19): invalid value for uint64 type: -1",
    );
    expect(messageOf(() => parseWithdrawFromWindowsRequestText('{"windowNumbers":[null]}'))).toBe(
      "proto: (line 1:19): invalid value for uint64 type: null",
    );
    expect(messageOf(() => parseWithdrawFromWindowsRequestText('{"windowNumbers":[1,'))).toBe("unexpected EOF");
  });
});
