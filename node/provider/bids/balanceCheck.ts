import type { Address } from "viem";

/**
 * The provider's check that a bidder can pay for a bid before the provider application sees it: reserves the
 * amount and returns the function that gives it back when the bid is not committed. Per protocol version:
 * v1.1 per window and block (depositManager.ts), v1.2 per (bidder, this provider)
 * (providerDeposits.ts). Refusals are FailedPreconditionError, internal read failures InternalError.
 */
export interface BidderBalanceCheck {
  checkAndReserve(bidder: Address, amount: bigint, block: bigint): Promise<() => void>;
}
