/**
 * Steps of features/settlement-v1.2.feature: what a slash moves in protocol v1.2, read from the settlement
 * transactions' events (upstream-head-delta §2.1: FundsSlashed(provider, total) on ProviderRegistry,
 * FundsUnlocked(digest, bidder, provider, amount) on BidderRegistry).
 */
import { expect } from "bun:test";
import { Then } from "@cucumber/cucumber";
import { type Address, decodeEventLog, type Hex, parseAbi } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { chainOf } from "../support/chain.ts";
import { ONE_HUNDRED_PERCENT } from "../support/protocol.ts";
import { settlementOf } from "../support/settlement.ts";
import type { ConformanceWorld } from "../support/world.ts";

export class SettlementV12CheckError extends MevCommitError {}

const EVENTS = parseAbi([
  "event FundsSlashed(address indexed provider, uint256 amount)",
  "event FundsUnlocked(bytes32 indexed commitmentDigest, address indexed bidder, address indexed provider, uint256 amount)",
]);

/** The oracle's settlement transaction of the scenario's commitment, noted by "the oracle soon slashes …". */
const settlementTx = new WeakMap<ConformanceWorld, Hex>();

Then("the oracle soon slashes the commitment", async function (this: ConformanceWorld) {
  const s = settlementOf(this);
  const log = await s.settled(s.commitment());
  if (!(log.args.isSlash as boolean))
    throw new SettlementV12CheckError(
      `the oracle rewarded the commitment (tx ${log.transactionHash}), expected a slash`,
    );
  settlementTx.set(this, log.transactionHash as Hex);
});

Then("the commitment's slashAmount is {string}", function (this: ConformanceWorld, want: string) {
  expect(String(settlementOf(this).commitment().line.slashAmount)).toBe(want);
});

async function logsOfSettlement(world: ConformanceWorld) {
  const tx = settlementTx.get(world);
  if (!tx) throw new SettlementV12CheckError('say "the oracle soon slashes the commitment" first');
  const receipt = await chainOf(world.target).settlement.getTransactionReceipt({ hash: tx });
  return receipt.logs;
}

Then(
  "ProviderRegistry slashed provider {int} by {word} wei plus the penalty fee on it",
  async function (this: ConformanceWorld, p: number, slash: string) {
    const s = settlementOf(this);
    const provider = s.providerAddress(p);
    const { pr } = await s.chain.feePercents();
    const amount = BigInt(slash);
    const total = amount + (amount * pr) / ONE_HUNDRED_PERCENT;
    const slashed = (await logsOfSettlement(this))
      .filter((l) => l.address.toLowerCase() === this.target.contracts.providerRegistry.toLowerCase())
      .flatMap((l) => {
        try {
          return [decodeEventLog({ abi: EVENTS, data: l.data, topics: l.topics })];
        } catch {
          return [];
        }
      })
      .filter((e) => e.eventName === "FundsSlashed");
    expect(
      slashed.map((e) => ({
        provider: (e.args as { provider: Address }).provider.toLowerCase(),
        amount: e.args.amount,
      })),
      "FundsSlashed in the settlement transaction",
    ).toEqual([{ provider: provider.toLowerCase(), amount: total }]);
  },
);

Then(
  "BidderRegistry unlocked {word} wei of the commitment to the bidder",
  async function (this: ConformanceWorld, wei: string) {
    const c = settlementOf(this).commitment();
    const unlocked = (await logsOfSettlement(this))
      .filter((l) => l.address.toLowerCase() === this.target.contracts.bidderRegistry.toLowerCase())
      .flatMap((l) => {
        try {
          return [decodeEventLog({ abi: EVENTS, data: l.data, topics: l.topics })];
        } catch {
          return [];
        }
      })
      .filter((e) => e.eventName === "FundsUnlocked");
    expect(
      unlocked.map((e) => {
        const a = e.args as { commitmentDigest: Hex; bidder: Address; provider: Address; amount: bigint };
        return { digest: a.commitmentDigest.toLowerCase(), bidder: a.bidder.toLowerCase(), amount: a.amount };
      }),
      "FundsUnlocked in the settlement transaction",
    ).toEqual([
      { digest: c.digest.toLowerCase(), bidder: this.target.bidderAddress.toLowerCase(), amount: BigInt(wei) },
    ]);
  },
);
