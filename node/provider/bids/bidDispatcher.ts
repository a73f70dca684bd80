import { NO_ACTIVE_RECEIVERS } from "../../network/network.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import { DeadlineExceededError, InternalError } from "../../protocol/grpcCodes.ts";
import { type ProcessedBid, ProcessedBidStatus, type SignedBid } from "../../protocol/types.ts";
import { markBid } from "../../util/bidTrace.ts";

/** A provider application's decision on one bid. */
export interface Decision {
  accepted: boolean;
  dispatchTimestamp: bigint;
}

/** A ReceiveBids stream: an unbounded queue of bids for one connected provider application. */
export class BidReceiver {
  private readonly queue: SignedBid[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  push(bid: SignedBid): void {
    this.queue.push(bid);
    this.wake?.();
  }

  get pending(): number {
    return this.queue.length;
  }

  async *bids(): AsyncGenerator<SignedBid> {
    while (!this.closed) {
      const bid = this.queue.shift();
      if (bid) {
        yield bid;
        continue;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }
}

/**
 * Hands each bid to exactly one connected ReceiveBids stream (round robin) and waits for the application's
 * decision from SendProcessedBids. Unknown, late or duplicate decisions are ignored, as upstream.
 */
export class BidDispatcher {
  private readonly receivers: BidReceiver[] = [];
  private next = 0;
  private readonly waiting = new Map<string, (d: Decision) => void>();

  get activeReceivers(): number {
    return this.receivers.length;
  }

  /** Opens a receiver; call `close` when its stream ends. */
  open(): BidReceiver {
    const r = new BidReceiver();
    this.receivers.push(r);
    return r;
  }

  close(r: BidReceiver): void {
    r.close();
    const i = this.receivers.indexOf(r);
    if (i >= 0) this.receivers.splice(i, 1);
  }

  /** Sends the bid to one receiver and waits for its decision, at most `timeoutMs`. */
  async process(bid: SignedBid, timeoutMs: number, signal?: AbortSignal): Promise<Decision> {
    if (!this.receivers.length) throw new InternalError(NO_ACTIVE_RECEIVERS);
    const key = bytesToHex(bid.digest);
    const decided = new Promise<Decision>((resolve) => this.waiting.set(key, resolve));
    const receiver = this.receivers[this.next++ % this.receivers.length]!;
    receiver.push(bid);
    markBid(bid.digest, "provider.dispatched");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceededError("context deadline exceeded")), timeoutMs);
      signal?.addEventListener("abort", () => reject(new DeadlineExceededError("context canceled")), { once: true });
    });
    try {
      return await Promise.race([decided, expired]);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(key);
    }
  }

  /** Applies one decision from SendProcessedBids; returns false when no bid waits for it. */
  decide(d: ProcessedBid): boolean {
    const key = bytesToHex(d.bidDigest);
    const resolve = this.waiting.get(key);
    if (!resolve) return false;
    this.waiting.delete(key);
    resolve({ accepted: d.status === ProcessedBidStatus.ACCEPTED, dispatchTimestamp: d.dispatchTimestamp });
    return true;
  }
}
