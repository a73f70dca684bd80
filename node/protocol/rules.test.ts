import { describe, expect, test } from "bun:test";
import { PROTOCOL_VERSIONS } from "./protocolVersion.ts";
import { allRules, PROTOCOL_RULES, rulesOf } from "./rules.ts";

describe("the rules of each protocol version", () => {
  test("each is keyed by its own version, one object per version, in PROTOCOL_VERSIONS order", () => {
    for (const v of PROTOCOL_VERSIONS) expect(PROTOCOL_RULES[v].version).toBe(v);
    for (const v of PROTOCOL_VERSIONS) expect(rulesOf(v)).toBe(rulesOf(v));
    expect(allRules().map((r) => r.version)).toEqual([...PROTOCOL_VERSIONS]);
  });

  test("the switch points differ as upstream-head-delta §5 says", () => {
    const [v11, v12] = [rulesOf("v1.1"), rulesOf("v1.2")];
    expect([v11.upstream, v12.upstream]).toEqual(["5f1068d1", "v1.2.5"]);
    expect([v11.deposits, v12.deposits]).toEqual(["window", "provider"]);
    expect([v11.windows, v12.windows]).toEqual([true, false]);
    expect([v11.p2p.preconfirmation, v12.p2p.preconfirmation]).toEqual(["3.0.0", "4.0.0"]);
    expect(v11.p2p.handshake).toBe(v12.p2p.handshake);
    expect([v11.emptySlashAmount, v12.emptySlashAmount]).toEqual(["zero", "bidAmount"]);
    expect(v11.addedTopics).toEqual([]);
    expect(v12.addedTopics).toEqual(["other_provider_won_block", "transaction_settled", "transaction_payment"]);
    expect([v11.bidOptions, v12.bidOptions]).toEqual([false, true]);
    expect([v11.refundEvent, v12.refundEvent]).toEqual(["FundsRetrieved", "FundsUnlocked"]);
    expect([v11.slashPays, v12.slashPays]).toEqual(["decayedPlusSlashAmount", "slashAmount"]);
  });

  test("the settlement chain and the v1.2-only settings follow the contracts", () => {
    const [v11, v12] = [rulesOf("v1.1"), rulesOf("v1.2")];
    // v1.2's bidders delegate to the DepositManager with EIP-7702 (type-4) transactions: Prague.
    expect([v11.settlementHardfork, v12.settlementHardfork]).toEqual([undefined, "prague"]);
    expect([v11.withdrawalPeriod, v12.withdrawalPeriod]).toEqual([false, true]);
    expect([v11.bidOptionsSlash, v12.bidOptionsSlash]).toEqual([false, true]);
    expect([v11.depositManager, v12.depositManager]).toEqual([false, true]);
  });

  test("the facts are consistent with each other", () => {
    for (const r of allRules()) {
      // Windows exist exactly where deposits sit in them.
      expect(r.windows).toBe(r.deposits === "window");
      // Bids carry options exactly where the oracle can slash on them.
      expect(r.bidOptionsSlash).toBe(r.bidOptions);
      // The deposit manager needs the hard fork with EIP-7702.
      expect(r.settlementHardfork === "prague").toBe(r.depositManager);
    }
  });
});
