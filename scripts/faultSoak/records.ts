/**
 * The three records the fault soak's checker compares, as plain data: what the bid clients got (clientRecord), what
 * the devnet's nodes recorded (`/sim/v1/bids`, node/explorer/bidRecord.ts), and what the settlement chain says
 * (chainRecord). Hex values are 0x-prefixed and lower case.
 */
import type { BidRecord } from "../../node/explorer/bidRecord.ts";

/** A commitment a client's SendBid stream delivered: an acknowledged commitment. */
export interface AckedCommitment {
  digest: string;
  provider: string;
  bidDigest: string;
  /** When the client read it, Unix ms. */
  at: number;
}

/** One bid a client stream sent and what it got back. */
export interface ClientBid {
  stream: number;
  seq: number;
  txHash: string;
  blockNumber: string;
  sentAt: number;
  /** When the stream ended (or the call failed), Unix ms. */
  endedAt: number;
  /** HTTP status; 0 when no response came. */
  status: number;
  /** A response came and the server ended the stream (not a dropped connection or a client timeout). */
  answered: boolean;
  commitments: AckedCommitment[];
  /** Error lines of the stream, or why the call failed. */
  errors: string[];
}

/** A deposit call a client made and its answer. */
export interface ClientDeposit {
  /** `window N` (v1.1) or `provider 0x…` (v1.2). */
  place: string;
  amount: string;
  ok: boolean;
}

export type NodeBid = BidRecord;

/** What the settlement chain's events say, read from the chain itself. */
export interface ChainRecord {
  /** PreconfManager UnopenedCommitmentStored. */
  stored: { digest: string; provider: string }[];
  /** PreconfManager OpenedCommitmentStored. */
  opened: { digest: string; provider: string; bidder: string; txnHash: string; blockNumber: string }[];
  /** BidderRegistry FundsRewarded. */
  rewarded: { digest: string; provider: string; amount: string }[];
  /** FundsRetrieved (v1.1) or FundsUnlocked (v1.2): the bid back to the bidder after a slash. */
  slashed: { digest: string }[];
  /** BlockTracker NewL1Block: each L1 block the oracle recorded and its winner. */
  winners: Record<string, string>;
}

/** One amount as each side sees it (a deposit, a provider's rewards): the checker wants every side equal. */
export interface BalanceView {
  what: string;
  subject: string;
  sides: { name: string; wei: string }[];
}
