/**
 * The fault soak's bid clients: independent streams of SendBid calls through the devnet's bidder node, each on its
 * own schedule and with its own transaction hashes, recording every commitment as its stream delivers it.
 */

import type { WireCommitment } from "../../features/support/bids.ts";
import { NdjsonStream } from "../../node/clients/ndjson.ts";
import type { ClientBid } from "./records.ts";

export interface BidStreamsOptions {
  bidderUrl: string;
  streams: number;
  /** Bids per second, all streams together. */
  rate: number;
  /** The L1 block to bid for now. */
  nextBlock: () => bigint;
  /** A call that hears nothing for this long is dropped by the client, ms. */
  idleTimeoutMs: number;
  /**
   * Signs the L1 transaction of the `n`-th bid (counted over every stream) for a block, so that the winner's builder
   * can include it and the commitment settle; without it bids carry hashes of no transaction (their winners' commitments
   * are slashed).
   */
  sign?: (n: number, block: bigint) => Promise<{ raw: string; hash: string }>;
}

const hex0x = (h: string) => `0x${h.replace(/^0x/, "").toLowerCase()}`;

export class BidStreams {
  readonly bids: ClientBid[] = [];
  inFlight = 0;
  private sent = 0;
  private running = true;
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly o: BidStreamsOptions) {}

  start(): void {
    for (let s = 0; s < this.o.streams; s++) this.loops.push(this.loop(s));
  }

  /** Stops sending and waits for the bids in flight to end. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.allSettled(this.loops);
  }

  private async loop(stream: number): Promise<void> {
    const gap = (1000 * this.o.streams) / this.o.rate;
    const pending = new Set<Promise<void>>();
    // Each stream starts at its own phase so the streams' bids interleave.
    await Bun.sleep((gap * stream) / this.o.streams);
    for (let seq = 1, next = performance.now(); this.running; seq++, next += gap) {
      const p = this.oneBid(stream, seq).finally(() => pending.delete(p));
      pending.add(p);
      await Bun.sleep(Math.max(0, next + gap - performance.now()));
    }
    await Promise.allSettled([...pending]);
  }

  private async oneBid(stream: number, seq: number): Promise<void> {
    const blockNumber = this.o.nextBlock();
    const n = this.sent++;
    let signError: string | undefined;
    const signed = await this.o.sign?.(n, blockNumber).catch((e: Error) => {
      signError = `could not sign its L1 transaction (sent a hash of none instead): ${e.message}`;
      return undefined;
    });
    const txHash = signed?.hash ?? `${stream.toString(16).padStart(8, "0")}${seq.toString(16).padStart(56, "0")}`;
    const sentAt = Date.now();
    const bid: ClientBid = {
      stream,
      seq,
      txHash: hex0x(txHash),
      blockNumber: blockNumber.toString(),
      sentAt,
      endedAt: sentAt,
      status: 0,
      answered: false,
      commitments: [],
      errors: signError ? [signError] : [],
    };
    this.bids.push(bid);
    this.inFlight++;
    try {
      const s = await NdjsonStream.open<WireCommitment>(
        "POST",
        `${this.o.bidderUrl}/v1/bidder/bid`,
        {
          ...(signed ? { rawTransactions: [signed.raw] } : { txHashes: [txHash] }),
          amount: String(1000 + seq),
          blockNumber: bid.blockNumber,
          decayStartTimestamp: String(sentAt),
          decayEndTimestamp: String(sentAt + 10_000),
        },
        { idleTimeoutMs: this.o.idleTimeoutMs },
      );
      bid.status = s.status;
      for (let line = await s.next(); line !== undefined; line = await s.next()) {
        if ("result" in line)
          bid.commitments.push({
            digest: hex0x(line.result.commitmentDigest),
            provider: hex0x(line.result.providerAddress),
            bidDigest: hex0x(line.result.receivedBidDigest),
            at: Date.now(),
          });
        else bid.errors.push(`${line.error.code}: ${line.error.message}`);
      }
      bid.answered = s.endReason === "ended by the server";
      if (!bid.answered && s.endReason) bid.errors.push(s.endReason);
    } catch (e) {
      bid.errors.push(String((e as Error)?.message ?? e));
    } finally {
      bid.endedAt = Date.now();
      this.inFlight--;
    }
  }
}
