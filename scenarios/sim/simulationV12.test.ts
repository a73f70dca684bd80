/**
 * The simulation on a `--protocol v1.2` reference devnet: deposits sit with providers (no windows), the summary says
 * the protocol and shows each bidder's deposit with each provider, and the ledger checks follow v1.2's money flows.
 * A scenario that holds only for the other version is refused before a devnet starts.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { rulesOf } from "../../node/protocol/rules.ts";
import { SimEnvironmentError } from "./run/environment.ts";
import { runScenario } from "./runScenario.ts";
import { parseScenarioText } from "./scenario/load.ts";

const out = mkdtempSync(join(tmpdir(), "sim-v12-test-"));

const SCENARIO = `
name: v12-small
seed: 5
l1: { blocks: 2, winners: [p0, p1] }
bidders:
  - name: small
    deposit: { perWindow: "1 ETH" }
    strategy: { type: constant, perBlock: 1 }
    amount: "0.001 ETH"
  - name: large
    deposit: { auto: "2 ETH" }
    strategy: { type: constant, perBlock: 1 }
    amount: "0.002 ETH"
    transactions: hash
providers:
  - name: p0
  - name: p1
`;

describe("simulation on protocol v1.2", () => {
  test("deposits per provider, the protocol in the summary, v1.2 ledger checks that agree with the chain", async () => {
    const scenario = parseScenarioText("v12.yaml", SCENARIO);
    const summary = await runScenario({ scenario, file: "v12.yaml", outDir: join(out, "run"), rules: rulesOf("v1.2") });
    expect(summary.protocol).toBe("v1.2");
    expect(summary.error).toBeNull();
    // No windows; each bidder starts with the largest plan (2 ETH) with each provider, from the devnet's start deposits.
    expect(summary.windows).toEqual([]);
    expect(summary.providerDeposits.map((d) => `${d.bidder}/${d.provider}/${d.before}`).sort()).toEqual(
      ["large/p0", "large/p1", "small/p0", "small/p1"].map((k) => `${k}/${parseEther("2")}`),
    );
    const names = new Set(summary.checks.map((c) => c.name));
    for (const n of [
      "deposits = BidderDeposited events",
      "bids escrowed = deposits − withdrawals − change of the deposits",
      "escrow left after settlement = 0",
      "slashed bids returned = FundsUnlocked events",
      "rewards = registry balance change",
    ])
      expect(names.has(n)).toBe(true);
    expect([...names].some((n) => n.includes("window"))).toBe(false);
    expect(summary.checks.filter((c) => !c.ok)).toEqual([]);
    expect(summary.totals.commitments).toBeGreaterThan(0);
  }, 300_000);

  test("a scenario that holds only for v1.1 is refused on v1.2, before any devnet starts", async () => {
    const scenario = parseScenarioText("v11.yaml", `${SCENARIO}protocols: [v1.1]\n`);
    const run = runScenario({ scenario, file: "v11.yaml", outDir: join(out, "refused"), rules: rulesOf("v1.2") });
    await expect(run).rejects.toThrow(
      new SimEnvironmentError("scenario v12-small holds for protocol v1.1 only (its protocols field), not for v1.2"),
    );
  });
});
