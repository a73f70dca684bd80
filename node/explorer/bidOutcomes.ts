import type { Address } from "viem";
import type { BidOutcomeSink } from "../bidder/bids/outcomeSink.ts";
import { REFUSAL_TEXT, type RefusalReason } from "../bidder/bids/refusalReason.ts";
import type { Commitment, SignedBid } from "../protocol/types.ts";
import type { NodeStore } from "../store/db.ts";
import { BoundedMap } from "../util/boundedMap.ts";
import { logger } from "../util/log.ts";
import { type BidEvent, committedEvent, refusedEvent, sentEvent } from "./bidEvents.ts";
import type { BidRecord, Lifecycle, OutcomeKind, ProviderOutcome } from "./bidRecord.ts";

export type { BidRecord, Lifecycle, OutcomeKind, ProviderOutcome } from "./bidRecord.ts";

/** Bids kept (the oldest is forgotten first): bounded memory however long the devnet runs. */
export const MAX_BIDS = 10_000;

export interface BidFilter {
  bidder?: string;
  provider?: string;
  outcome?: OutcomeKind;
  reason?: string;
  blockNumber?: string;
  txnHash?: string;
  limit?: number;
}

const log = logger("explorer");
const lower = (s: string) => s.toLowerCase();
const with0x = (s: string) => (s.startsWith("0x") ? s : `0x${s}`).toLowerCase();

/**
 * The devnet's record of every bid its bidder sent: each provider's outcome (committed, refused by the node with a
 * named reason, rejected by the application) and then each commitment's life on chain (stored, opened, settled or
 * slashed). The bid path only stores into maps here; listeners (the explorer's live stream) learn which bids
 * changed in batches, off the path. With a store (`keepIn`, the devnet's data dir) the records changed are written
 * in the same batches, and the newest `max` are read back at the next start: the bid list survives a restart.
 */
export class BidOutcomes implements BidOutcomeSink {
  private readonly bids: BoundedMap<string, BidRecord>;
  private readonly byCommitment: BoundedMap<string, { bid: string; provider: string }>;
  /** Lifecycle steps seen on chain before the bidder recorded the commitment (or for bids of other bidders). */
  private readonly early = new BoundedMap<string, Lifecycle>(MAX_BIDS);
  private readonly listeners = new Set<(changed: BidRecord[]) => void>();
  private readonly changed = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private store: NodeStore | undefined;
  /** Bids changed since the last write to the store. */
  private readonly unsaved = new Set<string>();
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Each kept bid's place in the store's order (the order bids were sent in). */
  private readonly seqOf: BoundedMap<string, number>;
  private nextSeq = 0;

  constructor(
    readonly max = MAX_BIDS,
    /** How long changes are gathered before listeners hear of them. */
    private readonly batchMs = 100,
  ) {
    this.bids = new BoundedMap(max);
    this.byCommitment = new BoundedMap(max * 4);
    this.seqOf = new BoundedMap(max);
  }

  /**
   * Reads the bids `store` kept (the newest `max`, oldest first, as they were sent) and keeps every change there
   * from now on, written in batches off the bid path; the store's close writes the last batch.
   */
  keepIn(store: NodeStore): void {
    store.migrate(
      "explorer.bids.v1",
      "CREATE TABLE explorer_bids (digest TEXT PRIMARY KEY, seq INTEGER NOT NULL, record TEXT NOT NULL); CREATE INDEX explorer_bids_seq ON explorer_bids (seq);",
    );
    const rows = store.db
      .query<{ digest: string; seq: number; record: string }, [number]>(
        "SELECT digest, seq, record FROM (SELECT * FROM explorer_bids ORDER BY seq DESC LIMIT ?) ORDER BY seq",
      )
      .all(this.max);
    for (const row of rows) {
      const b = JSON.parse(row.record) as BidRecord;
      this.bids.set(row.digest, b);
      this.seqOf.set(row.digest, row.seq);
      for (const o of b.providers)
        if (o.commitment) this.byCommitment.set(o.commitment.digest, { bid: row.digest, provider: o.provider });
    }
    this.nextSeq = rows.length ? rows[rows.length - 1]!.seq + 1 : 0;
    this.store = store;
    store.onClose(() => this.save());
  }

  bidSent(bid: SignedBid, bidder: Address, providers: readonly Address[]): void {
    this.apply(sentEvent(bid, bidder, providers));
  }

  committed(bid: SignedBid, provider: Address, c: Commitment, ms: number): void {
    this.apply(committedEvent(bid, provider, c, ms));
  }

  refused(bid: SignedBid, provider: Address, reason: RefusalReason, message: string, ms: number): void {
    this.apply(refusedEvent(bid, provider, reason, message, ms));
  }

  /** A bidder's event: from a bidder in this process, or read from a bidder process's admin API. */
  apply(e: BidEvent): void {
    if (e.kind === "sent") {
      const digest = with0x(e.bid.digest);
      this.bids.set(digest, {
        ...e.bid,
        digest,
        providers: e.providers.map((p) => ({ provider: lower(p), outcome: "pending", lifecycle: {} })),
      });
      this.seqOf.set(digest, this.nextSeq++);
      this.touch(digest);
      return;
    }
    const o = this.outcomeOf(e.bid, e.provider);
    if (!o) return;
    o.ms = Math.round(e.ms * 10) / 10;
    if (e.kind === "refused") {
      o.outcome = e.reason === "rejected_by_application" ? "rejected" : "refused";
      o.reason = e.reason;
      o.reasonText = REFUSAL_TEXT[e.reason];
      o.message = e.message;
      return;
    }
    const digest = with0x(e.commitment.digest);
    o.outcome = "committed";
    o.commitment = { ...e.commitment, digest };
    this.byCommitment.set(digest, { bid: with0x(e.bid), provider: o.provider });
    const early = this.early.get(digest);
    if (early) {
      Object.assign(o.lifecycle, early);
      this.early.delete(digest);
    }
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

  private outcomeOf(bidDigest: string, provider: string): ProviderOutcome | undefined {
    const digest = with0x(bidDigest);
    const o = this.bids.get(digest)?.providers.find((p) => p.provider === lower(provider));
    if (o) this.touch(digest);
    return o;
  }

  private touch(digest: string): void {
    if (this.store) {
      this.unsaved.add(digest);
      this.saveTimer ??= setTimeout(() => this.save(), this.batchMs);
    }
    if (!this.listeners.size) return;
    this.changed.add(digest);
    this.flushTimer ??= setTimeout(() => this.flush(), this.batchMs);
  }

  /** Writes the bids changed since the last save, in one transaction, and drops rows older than the newest `max`. */
  private save(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const store = this.store;
    if (!store || store.isClosed || !this.unsaved.size) return;
    const rows = [...this.unsaved].flatMap((d) => {
      const b = this.bids.get(d);
      const seq = this.seqOf.get(d);
      return b && seq !== undefined ? [{ d, seq, json: JSON.stringify(b) }] : [];
    });
    this.unsaved.clear();
    const upsert = store.db.query(
      "INSERT INTO explorer_bids (digest, seq, record) VALUES (?, ?, ?) ON CONFLICT(digest) DO UPDATE SET record = excluded.record",
    );
    const oldest = this.nextSeq - this.max;
    // At once, not through the store's group commit: the store's close runs this last, just before it closes.
    try {
      store.db.transaction(() => {
        for (const r of rows) upsert.run(r.d, r.seq, r.json);
        if (oldest > 0) store.db.query("DELETE FROM explorer_bids WHERE seq < ?").run(oldest);
      })();
    } catch (e) {
      log.warn("cannot keep the explorer's bid records in the store; they stay in memory", { error: e });
    }
  }

  private flush(): void {
    this.flushTimer = undefined;
    const changed = [...this.changed].map((d) => this.bids.get(d)).filter((b): b is BidRecord => b !== undefined);
    this.changed.clear();
    if (changed.length) for (const l of this.listeners) l(changed);
  }
}
