import type { PerProviderDeposits } from "./perProvider/perProviderDeposits.ts";
import type { WindowDeposits } from "./window/windowDeposits.ts";

/**
 * A bidder's deposit model: one of the two, each implementing BidderDeposits (bidderDeposits.ts); its `model` tells
 * which, so the transports serve that model's calls.
 */
export type BidderDepositModel = WindowDeposits | PerProviderDeposits;
