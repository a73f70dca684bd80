import { describe, expect, test } from "bun:test";
import type { ChainLedger } from "../../scenarios/sim/report/chainLedger.ts";
import { balanceViews } from "./balances.ts";
import { check } from "./checker.ts";
import type { NodeBid } from "./records.ts";

const P0 = `0x${"a0".repeat(20)}`;
const BIDDER = `0x${"b0".repeat(20)}`;
const d = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const PERCENT = 10n ** 16n; // 1 % of ONE_HUNDRED_PERCENT (1e18)

/** Two rewards of 1000 wei to provider-0 at a 2 % fee (980 net each); 5 ETH deposited into window 1, 4 ETH left. */
function ledger(): ChainLedger {
  return {
    before: { settlementBlock: 1n, providers: { [P0]: { stake: 100n, rewards: 0n } } },
    after: { settlementBlock: 9n, providers: { [P0]: { stake: 100n, rewards: 1960n } } },
    protocolFeePercent: 2n * PERCENT,
    penaltyFeePercent: 0n,
    // readLedger gives digests as bare hex.
    rewards: [1, 2].map((n) => ({ digest: d(n).slice(2), bidder: BIDDER, provider: P0, amount: 1000n })),
    slashes: [],
    retrieved: [],
    deposits: [{ bidder: BIDDER, window: 1n, amount: 5n }],
    withdrawals: [],
    remaining: [{ bidder: BIDDER, window: 1n, amount: 4n }],
    providerDeposits: [],
    providerWithdrawals: [],
    unlocked: [],
  };
}

/** The nodes recorded commitment 1, paid `payment`; commitment 2 came after the bidder stopped waiting. */
const nodeBids = (payment: string): NodeBid[] => [
  {
    digest: d(100),
    bidder: BIDDER,
    txnHash: d(7),
    revertingTxHashes: "",
    amount: "1000",
    blockNumber: "3",
    decayStart: "0",
    decayEnd: "1",
    slashAmount: "0",
    sentAt: 0,
    providers: [
      {
        provider: P0,
        outcome: "committed",
        commitment: { digest: d(1), index: d(50), dispatchTimestamp: "0" },
        lifecycle: { settled: { tx: d(9), payment } },
      },
    ],
  },
];

const views = (payment: string, left = "4") =>
  balanceViews({
    ledger: ledger(),
    providers: [{ name: "provider-0", address: P0 }],
    bidder: BIDDER,
    nodeBids: nodeBids(payment),
    clientDeposits: [{ place: "window 1", amount: "5", ok: true }],
    nodeDeposits: { "window 1": left },
  });
const findings = (v: ReturnType<typeof views>) =>
  check({
    clientBids: [],
    nodeBids: [],
    chain: { stored: [], opened: [], rewarded: [], slashed: [], winners: {} },
    balances: v,
    horizon: 0n,
  }).findings;

describe("the balances the fault soak's checker compares", () => {
  test("every side agrees, though the chain paid a commitment the nodes never recorded", () => {
    expect(findings(views("1000"))).toEqual([]);
  });

  test("a payment the nodes recorded differently, and a deposit left the bidder node misreads, disagree", () => {
    expect(findings(views("900", "3")).map((f) => f.subject)).toEqual([
      "rewards for the commitments the nodes recorded, provider-0",
      "deposit left, window 1",
    ]);
  });
});
