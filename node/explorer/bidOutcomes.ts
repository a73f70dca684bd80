import type { Address } from "viem";
import type { BidOutcomeSink } from "../bidder/bids/outcomeSink.ts";
import { REFUSAL_TEXT, type RefusalReason } from "../bidder/bids/refusalReason.ts";
import { bytesToHex } from "../protocol/bytes.ts";
import type { Commitment, SignedBid } from "../protocol/types.ts";
import { BoundedMap } from "../util/boundedMap.ts";

/** Bids kept (the oldest is forgotten first): bounded memory however long the devnet runs. */
export const MAX_BIDS = 10_000;

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

export interface BidFilter {
  bidder?: string;
  provider?: string;
  outcome?: OutcomeKind;
  reason?: string;
  blockNumber?: string;
  txnHash?: string;
  limit?: number;
}

const hex = (b: Uint8Array) => `0x${bytesToHex(b)}`;
const lower = (s: string) => s.toLowerCase();
const with0x = (s: string) => (s.startsWith("0x") ? s : `0x${s}`).toLowerCase();

/**
 * The devnet's record of every bid its bidder sent: each provider's outcome (committed, refused by the node with a
 * named reason, rejected by the application) and then each commitment's life on chain (stored, opened, settled or
 * slashed). The bid path only stores into maps here; listeners (the explorer's live stream) learn which bids
 * changed in batches, off the path.
 */
export class BidOutcomes implements BidOutcomeSink {
  private readonly bids: BoundedMap<string, BidRecord>;
  private readonly byCommitment: BoundedMap<string, { bid: string; provider: string }>;
  /** Lifecycle steps seen on chain before the bidder recorded the commitment (or for bids of other bidders). */
  private readonly early = new BoundedMap<string, Lifecycle>(MAX_BIDS);
  private readonly listeners = new Set<(changed: BidRecord[]) => void>();
  private readonly changed = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly max = MAX_BIDS,
    /** How long changes are gathered before listeners hear of them. */
    private readonly batchMs = 100,
  ) {
    this.bids = new BoundedMap(max);
    this.byCommitment = new BoundedMap(max * 4);
  }

  bidSent(bid: SignedBid, bidder: Address, providers: readonly Address[]): void {
    const b = bid.bid;
    const digest = hex(bid.digest);
    this.bids.set(digest, {
      digest,
      bidder: lower(bidder),
      txnHash: bid.txnHash,
      revertingTxHashes: bid.revertingTxHashes,
      amount: b.amount.toString(),
      blockNumber: b.blockNumber.toString(),
      decayStart: b.decayStartTimestamp.toString(),
      decayEnd: b.decayEndTimestamp.toString(),
      slashAmount: b.slashAmount.toString(),
      sentAt: Date.now(),
      providers: providers.map((p) => ({ provider: lower(p), outcome: "pending", lifecycle: {} })),
    });
    this.touch(digest);
  }

  committed(bid: SignedBid, provider: Address, c: Commitment, ms: number): void {
    const o = this.outcomeOf(bid, provider);
    if (!o) return;
    const digest = hex(c.digest);
    o.outcome = "committed";
    o.ms = Math.round(ms * 10) / 10;
    o.commitment = { digest, index: hex(c.commitmentIndex), dispatchTimestamp: c.dispatchTimestamp.toString() };
    this.byCommitment.set(digest, { bid: hex(bid.digest), provider: o.provider });
    const early = this.early.get(digest);
    if (early) {
      Object.assign(o.lifecycle, early);
      this.early.delete(digest);
    }
  }

  refused(bid: SignedBid, provider: Address, reason: RefusalReason, message: string, ms: number): void {
    const o = this.outcomeOf(bid, provider);
    if (!o) return;
    o.outcome = reason === "rejected_by_application" ? "rejected" : "refused";
    o.reason = reason;
    o.reasonText = REFUSAL_TEXT[reason];
    o.message = message;
    o.ms = Math.round(ms * 10) / 10;
  }

  /** A lifecycle step of a commitment seen on the settlement chain (by commitment digest). */
  lifecycle(commitmentDigest: string, step: Partial<Lifecycle>): void {
    const key = with0x(commitmentDigest);
    const at = this.byCommitment.get(key);
    const o = at && this.bids.get(at.bid)?.providers.find((p) => p.provider === at.provider);
    if (!o) {
      this.early.set(key, { ...this.early.get(key), ...step });
      return;
    }
    Object.assign(o.lifecycle, step);
    this.touch(at.bid);
  }

  /** A bid by its digest, or the bid of a commitment digest. */
  get(digest: string): BidRecord | undefined {
    const key = with0x(digest);
    return this.bids.get(key) ?? this.bids.get(this.byCommitment.get(key)?.bid ?? "");
  }

  /** Newest first. */
  list(f: BidFilter = {}): BidRecord[] {
    const limit = Math.max(1, Math.min(f.limit ?? 100, this.max));
    const txn = f.txnHash && lower(f.txnHash).replace(/^0x/, "");
    const out: BidRecord[] = [];
    const all = [...this.bids.values()];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
      const b = all[i]!;
      if (f.bidder && b.bidder !== lower(f.bidder)) continue;
      if (f.blockNumber && b.blockNumber !== f.blockNumber) continue;
      if (txn && !b.txnHash.split(",").includes(txn)) continue;
      const ps = f.provider ? b.providers.filter((p) => p.provider === lower(f.provider!)) : b.providers;
      if (f.provider && !ps.length) continue;
      if (f.outcome && !ps.some((p) => p.outcome === f.outcome)) continue;
      if (f.reason && !ps.some((p) => p.reason === f.reason)) continue;
      out.push(b);
    }
    return out;
  }

  get size(): number {
    return this.bids.size;
  }

  /** Hears, at most every `batchMs`, which bids changed (new, answered, or a step on chain). */
  subscribe(listener: (changed: BidRecord[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private outcomeOf(bid: SignedBid, provider: Address): ProviderOutcome | undefined {
    const digest = hex(bid.digest);
    const o = this.bids.get(digest)?.providers.find((p) => p.provider === lower(provider));
    if (o) this.touch(digest);
    return o;
  }

  private touch(digest: string): void {
    if (!this.listeners.size) return;
    this.changed.add(digest);
    this.flushTimer ??= setTimeout(() => this.flush(), this.batchMs);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const changed = [...this.changed].map((d) => this.bids.get(d)).filter((b): b is BidRecord => b !== undefined);
    this.changed.clear();
    if (changed.length) for (const l of this.listeners) l(changed);
  }
}
