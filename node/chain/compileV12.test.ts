import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { CONTRACTS_DIR } from "./compile.ts";
import {
  COMMITTED_V12_CONTRACTS,
  CONTRACTS_V12_TS,
  type CompiledV12Contracts,
  readV12Sources,
  v12AbiTs,
  v12SourceHash,
} from "./compileV12.ts";

describe("v1.2 compile", () => {
  test("the sources are v1.2/*.sol plus the shared helpers they import, and nothing of v1.1's contracts", () => {
    const units = Object.keys(readV12Sources(CONTRACTS_DIR));
    expect(units).toContain("v1.2/DepositManager.sol");
    expect(units).toContain("Owned.sol");
    expect(units).toContain("FeePayout.sol");
    expect(units).not.toContain("BidderRegistry.sol");
    expect(units).not.toContain("WindowFromBlockNumber.sol");
  });

  test("compiled-contracts-v1.2.json and contractsV12.ts are the compile of the current sources (bun node/chain/compileV12.ts --write)", () => {
    expect(existsSync(COMMITTED_V12_CONTRACTS)).toBe(true);
    const committed = JSON.parse(readFileSync(COMMITTED_V12_CONTRACTS, "utf8")) as CompiledV12Contracts;
    expect(committed.sourceHash).toBe(v12SourceHash());
    expect(readFileSync(CONTRACTS_V12_TS, "utf8")).toBe(v12AbiTs(committed));
  });
});
