/**
 * Protocol v1.2's deposits: the bidder's money sits per (bidder, provider) (upstream v1.2.5, upstream-head-delta
 * §2.2), so a scenario that bids deposits to every provider of the target, through the bidder's Deposit
 * (`POST /v1/bidder/deposit/{amount}?provider=`), and checks the answer against BidderRegistry.
 */
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { chainOf } from "./chain.ts";
import type { ConformanceWorld } from "./world.ts";

export class ProviderDepositError extends MevCommitError {}

/**
 * Deposits `wei` toward each of the target's providers and answers the available amount per provider after it.
 * A provider toward which the bidder has a pending withdrawal request (the withdrawal scenarios leave one on
 * provider 3) is left out: BidderRegistry refuses deposits toward it, and its node refuses the bidder's bids.
 */
export async function depositToEveryProvider(world: ConformanceWorld, wei: bigint): Promise<bigint[]> {
  const totals: bigint[] = [];
  const chain = chainOf(world.target);
  for (const provider of world.target.providerAddresses) {
    if (await chain.readV12("withdrawalRequestExists", [world.target.bidderAddress, provider])) continue;
    const r = await world.bidder.perProvider.deposit(wei.toString(), provider);
    if (r.error) throw new ProviderDepositError(`deposit of ${wei} wei toward provider ${provider}: ${r.describe()}`);
    const body = r.value as { amount?: unknown };
    // Upstream answers this deposit's amount (BidderDeposited.depositedAmount), not the new total.
    if (String(body?.amount) !== wei.toString())
      throw new ProviderDepositError(
        `deposit of ${wei} wei toward provider ${provider} answered amount ${JSON.stringify(body?.amount)}: ${r.describe()}`,
      );
    totals.push(await chain.providerDeposit(provider as Address));
  }
  return totals;
}
