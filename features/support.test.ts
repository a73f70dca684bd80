/** Pure parts of the suite's support code: target files, error-text matching, the spec's settlement arithmetic. */
import { describe, expect, test } from "bun:test";
import { residualAfterDecay, rewardSplit, slashSplit, stableText, windowOfBlock } from "./support/protocol.ts";
import { parseTarget, TargetFileError, UPSTREAM_BID_TIMEOUT_MS } from "./support/target.ts";

const minimal = {
  bidderUrl: "http://127.0.0.1:1",
  providerUrls: ["http://127.0.0.1:2"],
  providerAddresses: ["0x0000000000000000000000000000000000000002"],
  bidderAddress: "0x0000000000000000000000000000000000000001",
  l1RpcUrl: "http://127.0.0.1:3",
  l1ChainId: 1,
  settlementRpcUrl: "http://127.0.0.1:4",
  settlementChainId: 2,
  contracts: {
    blockTracker: "0x1",
    providerRegistry: "0x2",
    bidderRegistry: "0x3",
    preconfManager: "0x4",
    oracle: "0x5",
  },
};

describe("target files", () => {
  test("timeouts default to upstream's, capabilities to none", () => {
    const t = parseTarget(minimal, "t");
    expect(t.bidTimeoutMs).toBe(UPSTREAM_BID_TIMEOUT_MS);
    expect(t.capabilities).toEqual([]);
    expect(t.name).toBe("t");
  });
  test("missing fields, unknown capabilities and a capability without its URL are refused", () => {
    expect(() => parseTarget({ ...minimal, bidderUrl: undefined }, "t")).toThrow(/lacks bidderUrl/);
    expect(() => parseTarget({ ...minimal, capabilities: ["teleport"] }, "t")).toThrow(/unknown capabilities teleport/);
    expect(() => parseTarget({ ...minimal, capabilities: ["sim-control"] }, "t")).toThrow(/needs controlUrl/);
    expect(() => parseTarget({ ...minimal, bidTimeoutMs: -1 }, "t")).toThrow(TargetFileError);
    expect(() => parseTarget({ ...minimal, providerAddresses: [] }, "t")).toThrow(/one address per provider URL/);
  });
  test("nodeHosts names one host for the bidder and one per provider URL, or is refused", () => {
    const nodeHosts = { bidder: "bidder", providers: ["provider-0"] };
    expect(parseTarget({ ...minimal, nodeHosts }, "t").nodeHosts).toEqual(nodeHosts);
    expect(() => parseTarget({ ...minimal, nodeHosts: { bidder: "bidder", providers: [] } }, "t")).toThrow(
      /nodeHosts must be .* one host per provider URL/,
    );
    expect(() => parseTarget({ ...minimal, nodeHosts: { providers: ["p"] } }, "t")).toThrow(/nodeHosts must be/);
  });
  test('the protocol is the file\'s "protocol", v1.1 when absent; an unknown one is refused', () => {
    expect(parseTarget(minimal, "t").protocol).toBe("v1.1");
    expect(parseTarget({ ...minimal, protocol: "v1.2" }, "t").protocol).toBe("v1.2");
    expect(() => parseTarget({ ...minimal, protocol: "1.2" }, "t")).toThrow(/protocol: unknown protocol version "1.2"/);
    expect(() => parseTarget({ ...minimal, protocol: "v1.3" }, "t")).toThrow(TargetFileError);
  });
});

describe("error texts", () => {
  test("protobuf-go's space or non-breaking space after proto: read the same", () => {
    expect(stableText("proto:\u00a0(line 1:12): invalid value for string type: 5")).toBe(
      "proto: (line 1:12): invalid value for string type: 5",
    );
    expect(stableText("proto: (line 1:12): x")).toBe("proto: (line 1:12): x");
    expect(stableText("validating: proto:\u00a0syntax error")).toBe("validating: proto: syntax error");
  });
});

describe("the spec's arithmetic (crypto-contracts §2)", () => {
  test("windows of 10 blocks", () => {
    expect([1n, 10n, 11n, 20n, 21n].map(windowOfBlock)).toEqual([1n, 1n, 2n, 2n, 3n]);
  });
  test("residual: all before the start, none at or after the end, floor in between", () => {
    expect(residualAfterDecay(100n, 200n, 50n)).toBe(10n ** 18n);
    expect(residualAfterDecay(100n, 200n, 200n)).toBe(0n);
    expect(residualAfterDecay(200n, 100n, 50n)).toBe(0n);
    expect(residualAfterDecay(0n, 3000n, 1000n)).toBe(666666666666666666n);
  });
  test("the worked examples: 1 ETH, 25 % into the decay, 2 % fee, 5 % penalty, 0.1 ETH slash amount", () => {
    const r = residualAfterDecay(0n, 1000n, 250n);
    expect(rewardSplit(10n ** 18n, r, 2n * 10n ** 16n)).toEqual({
      decayed: 75n * 10n ** 16n,
      provider: 735n * 10n ** 15n,
      fee: 15n * 10n ** 15n,
      bidderRefund: 25n * 10n ** 16n,
    });
    expect(slashSplit(10n ** 18n, r, 10n ** 17n, 5n * 10n ** 16n, 20n * 10n ** 18n)).toEqual({
      bidderPortion: 85n * 10n ** 16n,
      penalty: 375n * 10n ** 14n,
      totalSlash: 8875n * 10n ** 14n,
    });
  });
  test("a slash is capped by the stake, the bidder's portion first", () => {
    expect(slashSplit(10n ** 18n, 10n ** 18n, 0n, 5n * 10n ** 16n, 10n ** 18n)).toEqual({
      bidderPortion: 10n ** 18n,
      penalty: 0n,
      totalSlash: 10n ** 18n,
    });
  });
});
