import type { Address } from "viem";
import type { Commitment, SignedBid } from "../../protocol/types.ts";
import type { RefusalReason } from "./refusalReason.ts";

/**
 * Where a bidder node tells what became of each bid, provider by provider (the devnet's explorer records it). Called
 * on the bid path: implementations only store and return, never wait.
 */
export interface BidOutcomeSink {
  bidSent(bid: SignedBid, bidder: Address, providers: readonly Address[]): void;
  committed(bid: SignedBid, provider: Address, c: Commitment, ms: number): void;
  refused(bid: SignedBid, provider: Address, reason: RefusalReason, message: string, ms: number): void;
}
