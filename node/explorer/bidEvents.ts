import type { Address } from "viem";
import type { BidOutcomeSink } from "../bidder/bids/outcomeSink.ts";
import { REFUSAL_TEXT, type RefusalReason } from "../bidder/bids/refusalReason.ts";
import { bytesToHex } from "../protocol/bytes.ts";
import type { Commitment, SignedBid } from "../protocol/types.ts";
import type { BidRecord } from "./bidRecord.ts";

/**
 * What a bidder node tells of its bids, as plain JSON: the explorer's recorder (BidOutcomes) applies these, whether
 * the bidder runs in the devnet's process or in a `--role bidder` process whose admin API streams them
 * (GET /admin/v1/bid-events, one JSON object a line).
 */
export type BidEvent =
  | { kind: "sent"; bid: Omit<BidRecord, "providers">; providers: string[] }
  | {
      kind: "committed";
      bid: string;
      provider: string;
      commitment: { digest: string; index: string; dispatchTimestamp: string };
      ms: number;
    }
  | { kind: "refused"; bid: string; provider: string; reason: RefusalReason; message: string; ms: number };

const hex = (b: Uint8Array) => `0x${bytesToHex(b)}`;
const lower = (s: string) => s.toLowerCase();

export function sentEvent(bid: SignedBid, bidder: Address, providers: readonly Address[]): BidEvent {
  const b = bid.bid;
  return {
    kind: "sent",
    bid: {
      digest: hex(bid.digest),
      bidder: lower(bidder),
      txnHash: bid.txnHash,
      revertingTxHashes: bid.revertingTxHashes,
      amount: b.amount.toString(),
      blockNumber: b.blockNumber.toString(),
      decayStart: b.decayStartTimestamp.toString(),
      decayEnd: b.decayEndTimestamp.toString(),
      slashAmount: b.slashAmount.toString(),
      sentAt: Date.now(),
    },
    providers: providers.map(lower),
  };
}

export function committedEvent(bid: SignedBid, provider: Address, c: Commitment, ms: number): BidEvent {
  return {
    kind: "committed",
    bid: hex(bid.digest),
    provider: lower(provider),
    commitment: {
      digest: hex(c.digest),
      index: hex(c.commitmentIndex),
      dispatchTimestamp: c.dispatchTimestamp.toString(),
    },
    ms,
  };
}

export function refusedEvent(
  bid: SignedBid,
  provider: Address,
  reason: RefusalReason,
  message: string,
  ms: number,
): BidEvent {
  return { kind: "refused", bid: hex(bid.digest), provider: lower(provider), reason, message, ms };
}

/** One line of the admin API's stream, checked for the fields the recorder reads; undefined for anything else. */
export function parseBidEvent(line: string): BidEvent | undefined {
  let e: unknown;
  try {
    e = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof e !== "object" || e === null) return undefined;
  const o = e as Record<string, unknown>;
  const str = (v: unknown) => typeof v === "string";
  if (o.kind === "sent") {
    const b = o.bid as Record<string, unknown> | undefined;
    return b && str(b.digest) && Array.isArray(o.providers) && o.providers.every(str) ? (o as BidEvent) : undefined;
  }
  if (!str(o.bid) || !str(o.provider) || typeof o.ms !== "number") return undefined;
  if (o.kind === "committed") {
    const c = o.commitment as Record<string, unknown> | undefined;
    return c && str(c.digest) && str(c.index) && str(c.dispatchTimestamp) ? (o as BidEvent) : undefined;
  }
  if (o.kind === "refused")
    return str(o.reason) && (o.reason as string) in REFUSAL_TEXT && str(o.message) ? (o as BidEvent) : undefined;
  return undefined;
}

/** Events kept while nobody follows the stream (a bid sent before the devnet connected, or between reconnects). */
export const MAX_UNREAD_EVENTS = 30_000;

/**
 * A `--role bidder` node's bid events for its admin API: each follower of the stream gets every event from when it
 * connected; events while nobody follows wait (at most MAX_UNREAD_EVENTS, the oldest dropped first) for the next
 * follower. On the bid path it only appends to a list; lines go out in batches off it.
 */
export class BidEventFeed implements BidOutcomeSink {
  private readonly followers = new Set<ReadableStreamDefaultController<Uint8Array>>();
  private unread: BidEvent[] = [];
  private batch: BidEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly enc = new TextEncoder();

  constructor(private readonly batchMs = 20) {}

  bidSent(bid: SignedBid, bidder: Address, providers: readonly Address[]): void {
    this.push(sentEvent(bid, bidder, providers));
  }

  committed(bid: SignedBid, provider: Address, c: Commitment, ms: number): void {
    this.push(committedEvent(bid, provider, c, ms));
  }

  refused(bid: SignedBid, provider: Address, reason: RefusalReason, message: string, ms: number): void {
    this.push(refusedEvent(bid, provider, reason, message, ms));
  }

  get following(): number {
    return this.followers.size;
  }

  /**
   * A stream of NDJSON: first `{"kind":"hello"}` (the follower is counted from then on), then the unread events,
   * then each event as it comes. Cancelling it (the follower went away) stops it.
   */
  follow(): ReadableStream<Uint8Array> {
    let me: ReadableStreamDefaultController<Uint8Array>;
    return new ReadableStream<Uint8Array>({
      start: (c) => {
        me = c;
        const first = [{ kind: "hello" }, ...this.unread];
        this.unread = [];
        c.enqueue(this.lines(first));
        this.followers.add(c);
      },
      cancel: () => {
        this.followers.delete(me);
      },
    });
  }

  close(): void {
    this.flush();
    for (const c of this.followers) {
      try {
        c.close();
      } catch {
        // already closed by its reader
      }
    }
    this.followers.clear();
  }

  private push(e: BidEvent): void {
    this.batch.push(e);
    this.timer ??= setTimeout(() => this.flush(), this.batchMs);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = [];
    if (!batch.length) return;
    if (!this.followers.size) {
      this.unread.push(...batch);
      if (this.unread.length > MAX_UNREAD_EVENTS) this.unread.splice(0, this.unread.length - MAX_UNREAD_EVENTS);
      return;
    }
    const chunk = this.lines(batch);
    for (const c of this.followers) {
      try {
        c.enqueue(chunk);
      } catch {
        this.followers.delete(c);
      }
    }
  }

  private lines(events: unknown[]): Uint8Array {
    return this.enc.encode(events.map((e) => `${JSON.stringify(e)}\n`).join(""));
  }
}
