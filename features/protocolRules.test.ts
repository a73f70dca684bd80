/** The suite's protocol rules: built once with the target, and what the checks that ask them compute. */
import { describe, expect, test } from "bun:test";
import { PROTOCOL_VERSIONS } from "../lib/protocolVersion.ts";
import { bidDigest, VECTOR_INPUT } from "./support/bidDigest.ts";
import { emptySlashAmount, noBidOptions, PROTOCOL_RULES, rulesOf } from "./support/protocolRules.ts";
import { parseTarget } from "./support/target.ts";

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

describe("the suite's protocol rules", () => {
  test("a target carries the rules of its protocol, v1.1's when the file names none", () => {
    expect(parseTarget(minimal, "t").rules).toBe(rulesOf("v1.1"));
    expect(parseTarget({ ...minimal, protocol: "v1.2" }, "t").rules).toBe(rulesOf("v1.2"));
  });

  test("each version has its rules, named for it", () => {
    for (const v of PROTOCOL_VERSIONS) expect(PROTOCOL_RULES[v].version).toBe(v);
  });

  test("the facts of v1.1 and v1.2 (upstream-head-delta §1.2, §1.4, §2.6, §3)", () => {
    const [v11, v12] = [rulesOf("v1.1"), rulesOf("v1.2")];
    expect([v11.deposits, v12.deposits]).toEqual(["window", "provider"]);
    expect([v11.windows, v12.windows]).toEqual([true, false]);
    expect([v11.autoDeposit, v12.autoDeposit]).toEqual([true, false]);
    expect([v11.withdrawalPeriod, v12.withdrawalPeriod]).toEqual([false, true]);
    expect([emptySlashAmount(v11, "7"), emptySlashAmount(v12, "7")]).toEqual(["0", "7"]);
    expect([noBidOptions(v11), noBidOptions(v12)]).toEqual([{}, { bidOptions: null }]);
  });

  // The vectors of bid-options.feature (upstream's digest test vectors, crypto-contracts §1.6).
  test("the bid digest follows the rules' bid options: upstream's vectors", () => {
    expect(bidDigest(rulesOf("v1.1"), VECTOR_INPUT)).toBe(
      "0x8d1f669e1d55329ba0dc133fba063c06c8ae146b8e815732f9951930c807ff7f",
    );
    expect(bidDigest(rulesOf("v1.2"), { ...VECTOR_INPUT, bidOptions: "0x1234" })).toBe(
      "0x63fc79776bb6995561cf5850551f6abf99471e5130bd3785feff90285f7dda26",
    );
    expect(bidDigest(rulesOf("v1.2"), { ...VECTOR_INPUT, bidOptions: "0x" })).toBe(
      "0xabfb28441e35ddbe17a41f3d306127fb6049dcc46a3ebbc9c68719f370dc2784",
    );
  });
});
