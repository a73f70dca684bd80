import type { Address } from "viem";
import { NO_ACTIVE_RECEIVERS } from "../../network/network.ts";
import { type BidOptions, decodeBidOptions } from "../../protocol/bidOptions.ts";
import { bytesToHex } from "../../protocol/bytes.ts";
import { DeadlineExceededError, InternalError, InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { type ProcessedBid, ProcessedBidStatus, type SignedBid } from "../../protocol/types.ts";
import { markBid } from "../../util/bidTrace.ts";

/** A provider application's decision on one bid. */
export interface Decision {
  accepted: boolean;
  dispatchTimestamp: bigint;
}

/** A bid as the provider application is shown it: the signed bid and the bidder recovered from its signature. */
export interface DispatchedBid {
  readonly signed: SignedBid;
  readonly bidder: Address;
  /** The bid's options (v1.2), decoded from the wire bytes; undefined when the bid carries none. */
  readonly options?: BidOptions;
}

/**
 * The options of a bid as a provider reads them off the wire: none when the bytes are absent or empty, else their
 * decoding. Bytes that do not decode fail the bid before any application sees it, as upstream's ProcessBid does.
 */
function optionsOf(bid: SignedBid): BidOptions | undefined {
  const bytes = bid.bid.bidOptions;
  if (!bytes?.length) return undefined;
  try {
    return decodeBidOptions(bytes);
  } catch (e) {
    throw new InvalidArgumentError(`unmarshalling bid options: ${(e as Error).message}`, { cause: e });
  }
}

/** A ReceiveBids stream: an unbounded queue of bids for one connected provider application. */
export class BidReceiver {
  private readonly queue: DispatchedBid[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  push(bid: DispatchedBid): void {
    this.queue.push(bid);
    this.wake?.();
  }

  get pending(): number {
    return this.queue.length;
  }

  async *bids(): AsyncGenerator<DispatchedBid> {
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

  /**
   * Sends the bid of `bidder` (recovered from its signature) to one receiver and waits for its decision, at most
   * `timeoutMs`.
   */
  async process(bid: SignedBid, bidder: Address, timeoutMs: number, signal?: AbortSignal): Promise<Decision> {
    if (!this.receivers.length) throw new InternalError(NO_ACTIVE_RECEIVERS);
    const options = optionsOf(bid);
    const key = bytesToHex(bid.digest);
    const decided = new Promise<Decision>((resolve) => this.waiting.set(key, resolve));
    const receiver = this.receivers[this.next++ % this.receivers.length]!;
    receiver.push({ signed: bid, bidder, options });
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
