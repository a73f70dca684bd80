/**
 * What the explorer keeps of a bid: each provider's outcome and each commitment's life on the settlement chain.
 * Plain types, shared by the recorder (bidOutcomes.ts) and the events a bidder process streams (bidEvents.ts).
 */
import type { RefusalReason } from "../bidder/bids/refusalReason.ts";

/** A commitment's life on the settlement chain after the provider signed it. */
export interface Lifecycle {
  stored?: { tx: string; block: string };
  opened?: { tx: string; block: string; bidAmount: string };
  /** The provider was paid (FundsRewarded): `payment` in wei. */
  settled?: { tx: string; payment: string };
  /** The provider was slashed (FundsSlashed) and the bidder's locked amount returned (FundsRetrieved). */
  slashed?: { tx: string; amount: string; refund?: string };
}

export type OutcomeKind = "pending" | "committed" | "refused" | "rejected";

/** What one provider made of one bid. */
export interface ProviderOutcome {
  provider: string;
  outcome: OutcomeKind;
  /** Why there is no commitment (refused or rejected). */
  reason?: RefusalReason;
  /** The reason in words, and the provider's own message. */
  reasonText?: string;
  message?: string;
  /** From the bid sent to the answer, in ms. */
  ms?: number;
  commitment?: { digest: string; index: string; dispatchTimestamp: string };
  lifecycle: Lifecycle;
}

/** A bid the devnet's bidder sent, and each provider's outcome. Hex values are 0x-prefixed and lower case. */
export interface BidRecord {
  digest: string;
  bidder: string;
  txnHash: string;
  revertingTxHashes: string;
  amount: string;
  blockNumber: string;
  decayStart: string;
  decayEnd: string;
  slashAmount: string;
  /** Unix ms when the bid went out to the providers. */
  sentAt: number;
  providers: ProviderOutcome[];
}
