import type { Address } from "viem";

/**
 * The provider's check that a bidder can pay for a bid before the provider application sees it: reserves the
 * amount and returns the function that gives it back when the bid is not committed. One per deposit model:
 * per window and block (windowBalanceCheck.ts, v1.1), per (bidder, this provider) (perProviderBalanceCheck.ts,
 * v1.2). Refusals are FailedPreconditionError, internal read failures InternalError.
 */
export interface BidderBalanceCheck {
  checkAndReserve(bidder: Address, amount: bigint, block: bigint): Promise<() => void>;
  /**
   * Whether a committed bid's amount comes back when its money never leaves the deposit (another provider won its
   * block, or the chain refused to store the commitment): per provider it does; a window's per-block allowance does
   * not.
   */
  readonly refunds: boolean;
  /** Gives a committed bid's amount back to the bidder's balance; a no-op where the check `refunds` nothing. */
  refund(bidder: Address | string, amount: bigint): void;
}

/**
 * What the provider's own store says it committed (tracker/commitmentStore.ts). A balance check keeps its reservations
 * in memory and starts each bidder's from here, so a provider that restarts does not commit the same allowance twice:
 * every commitment is in the store before the provider answers the bidder.
 */
export interface CommittedAmounts {
  /** v1.1: the provider's commitments to `bidder`'s bids for `block`. */
  committedForBlock(bidder: Address, block: bigint): bigint;
  /** v1.2: the provider's commitments to `bidder` whose amount has neither left the deposit on chain nor come back. */
  committedUnsettled(bidder: Address): bigint;
}
