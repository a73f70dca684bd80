import { describe, expect, test } from "bun:test";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { queryValuesOf } from "../protocol/queryParams.ts";
import { BID_INFO_DEFAULT_LIMIT, COMMITMENT_INFO_DEFAULT_LIMIT, parsePageRequest } from "./pageRequest.ts";

const q = (s: string) => queryValuesOf(new URLSearchParams(s));

function refusal(query: string): string {
  try {
    parsePageRequest(q(query), 100);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return (e as Error).message;
  }
  throw new Error(`"${query}" was accepted`);
}

describe("parsePageRequest", () => {
  test("defaults: page 0, the operation's limit, no block filter", () => {
    expect(parsePageRequest(q(""), COMMITMENT_INFO_DEFAULT_LIMIT)).toEqual({ page: 0, limit: 100, offset: 0 });
    expect(parsePageRequest(q(""), BID_INFO_DEFAULT_LIMIT)).toEqual({ page: 0, limit: 50, offset: 0 });
  });

  test("limit 0 means the default", () => {
    expect(parsePageRequest(q("limit=0&page=2"), 50)).toEqual({ page: 2, limit: 50, offset: 100 });
  });

  test("offset is page × limit", () => {
    expect(parsePageRequest(q("page=3&limit=7"), 50)).toEqual({ page: 3, limit: 7, offset: 21 });
    expect(parsePageRequest(q("page=2147483647&limit=1000"), 50).offset).toBe(2147483647 * 1000);
  });

  test("block_number and blockNumber both name the block; 0 is no filter", () => {
    expect(parsePageRequest(q("block_number=12"), 50).blockNumber).toBe(12n);
    expect(parsePageRequest(q("blockNumber=12"), 50).blockNumber).toBe(12n);
    expect(parsePageRequest(q("block_number=12&blockNumber=13"), 50).blockNumber).toBe(12n);
    expect(parsePageRequest(q("block_number=0"), 50).blockNumber).toBeUndefined();
  });

  test("limit 1000 is the largest accepted", () => {
    expect(parsePageRequest(q("limit=1000"), 50).limit).toBe(1000);
  });

  test("negative page, negative limit and a limit above 1000 are refused", () => {
    expect(refusal("page=-1")).toBe("page must be a non-negative integer, got -1");
    expect(refusal("limit=-5")).toBe("limit must be between 0 and 1000, got -5");
    expect(refusal("limit=1001")).toBe("limit must be between 0 and 1000, got 1001");
    expect(refusal("page=-1&limit=1001")).toBe("page must be a non-negative integer, got -1");
  });

  test("values that do not parse give grpc-gateway's strconv texts", () => {
    expect(refusal("page=abc")).toBe('parsing field "page": strconv.ParseInt: parsing "abc": invalid syntax');
    expect(refusal("limit=2147483648")).toBe(
      'parsing field "limit": strconv.ParseInt: parsing "2147483648": value out of range',
    );
    expect(refusal("blockNumber=1.5")).toBe(
      'parsing field "block_number": strconv.ParseInt: parsing "1.5": invalid syntax',
    );
    expect(refusal("limit=1&limit=2")).toBe('too many values for field "limit": 1, 2');
  });

  test("parse errors come before range checks", () => {
    expect(refusal("page=-1&limit=x")).toBe('parsing field "limit": strconv.ParseInt: parsing "x": invalid syntax');
  });
});
