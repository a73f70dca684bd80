import { describe, expect, test } from "bun:test";
import { CONCURRENCY_DEFAULTS, parseTarget, TargetFileError } from "./support/target.ts";

const minimal = {
  bidderUrl: "http://b",
  providerUrls: ["http://p"],
  l1RpcUrl: "http://l1",
  l1ChainId: 1,
  settlementRpcUrl: "http://s",
  settlementChainId: 2,
  contracts: {},
  bidderAddress: "0x0",
  providerAddresses: ["0x1"],
};

describe("the concurrency settings of a target file", () => {
  test("default to 8 and 128 in flight, 64 bids per level", () => {
    const t = parseTarget(minimal, "t");
    expect(t.bidsInFlight).toEqual([8, 128]);
    expect(t.concurrentBids).toBe(64);
    expect(CONCURRENCY_DEFAULTS.concurrentBids).toBe(64);
  });

  test("are taken from the file", () => {
    const t = parseTarget({ ...minimal, bidsInFlight: [16, 64], concurrentBids: 256 }, "t");
    expect(t.bidsInFlight).toEqual([16, 64]);
    expect(t.concurrentBids).toBe(256);
  });

  test("refuse levels below 2 and counts that are not integers", () => {
    expect(() => parseTarget({ ...minimal, bidsInFlight: [1] }, "t")).toThrow(TargetFileError);
    expect(() => parseTarget({ ...minimal, bidsInFlight: [] }, "t")).toThrow(/bidsInFlight/);
    expect(() => parseTarget({ ...minimal, bidsInFlight: 8 }, "t")).toThrow(/bidsInFlight/);
    expect(() => parseTarget({ ...minimal, concurrentBids: 1.5 }, "t")).toThrow(/concurrentBids/);
  });
});
