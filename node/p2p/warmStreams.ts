/**
 * Preconfirmation streams to one provider opened ahead of the bids that will use them. Upstream's wire carries one
 * bid per stream, and opening a stream costs a round trip before the bid can be written (multistream-select's
 * answer) plus the header exchange: ~1 ms of the bid's hop on an idle loop, several under load. A stream opened
 * ahead has both behind it, so a bid is written as soon as it is signed. The wire is unchanged: the provider sees
 * the same stream, header and bid, only earlier.
 *
 * Each bid takes a ready stream (or opens one if none is ready); when a bid is done, or found none ready, streams
 * are opened until one more is ready than bids are in flight, up to `max`. A ready stream the provider ended or
 * reset, or one older than `maxAgeMs`, is reset and not used (a provider may time idle streams out).
 */
import { logger } from "../util/log.ts";
import type { MsgStream } from "./msgStream.ts";

export interface WarmStreamsOptions {
  /** Opens a stream and writes our header (Libp2pNetwork.open). */
  open: (signal: AbortSignal) => Promise<MsgStream>;
  /** Most streams kept ready. Default 16. */
  max?: number;
  /** A ready stream older than this is not used. Default 30 s. */
  maxAgeMs?: number;
  /** How long a stream opened ahead may take. Default 10 s. */
  openTimeoutMs?: number;
}

interface Ready {
  readonly stream: MsgStream;
  readonly openedAt: number;
}

const log = logger("p2p-warm-streams");

export class WarmStreams {
  private readonly ready: Ready[] = [];
  private opening = 0;
  private inUse = 0;
  private closed = false;
  private fillTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly max: number;
  private readonly maxAgeMs: number;

  constructor(private readonly o: WarmStreamsOptions) {
    this.max = o.max ?? 16;
    this.maxAgeMs = o.maxAgeMs ?? 30_000;
  }

  /** Streams ready now (for tests and the bench's counts). */
  get readyCount(): number {
    return this.ready.length;
  }

  /** A stream for one bid; call `release` when the bid is done with it. */
  async take(signal: AbortSignal): Promise<MsgStream> {
    this.inUse++;
    const ready = this.takeReady();
    if (ready) return ready;
    this.fillSoon();
    try {
      return await this.o.open(signal);
    } catch (e) {
      this.inUse--;
      throw e;
    }
  }

  release(): void {
    this.inUse--;
    this.fillSoon();
  }

  /**
   * Fills after what the current turn of the event loop still has to do: a bid's stream is released when its
   * commitment is read, before the commitment is checked and passed on, and opening its replacement then would
   * put that work on the bid's path.
   */
  private fillSoon(): void {
    if (this.fillTimer || this.closed) return;
    this.fillTimer = setTimeout(() => {
      this.fillTimer = undefined;
      this.fill();
    }, 0);
  }

  /** Drops stale ready streams and opens streams until as many are ready as are in use, plus one. */
  fill(): void {
    if (this.closed) return;
    this.dropStale();
    const want = Math.min(this.max, this.inUse + 1);
    while (this.ready.length + this.opening < want) this.openOne();
  }

  /** Resets every ready stream; nothing is opened ahead any more. */
  close(): void {
    this.closed = true;
    clearTimeout(this.fillTimer);
    for (const r of this.ready.splice(0)) r.stream.abort("warm stream closed");
  }

  private takeReady(): MsgStream | undefined {
    this.dropStale();
    return this.ready.shift()?.stream;
  }

  private dropStale(): void {
    const now = performance.now();
    for (let i = this.ready.length - 1; i >= 0; i--) {
      const r = this.ready[i]!;
      if (now - r.openedAt < this.maxAgeMs && usable(r.stream)) continue;
      this.ready.splice(i, 1);
      r.stream.abort("warm stream expired");
    }
  }

  private openOne(): void {
    this.opening++;
    this.o
      .open(AbortSignal.timeout(this.o.openTimeoutMs ?? 10_000))
      .then(
        (stream) => {
          if (this.closed) stream.abort("warm stream closed");
          else this.ready.push({ stream, openedAt: performance.now() });
        },
        (e: Error) => log.debug("opening a stream ahead failed", { reason: e.message }),
      )
      .finally(() => this.opening--);
  }
}

/** Open both ways: we can write the bid and the provider can still answer. */
function usable(s: MsgStream): boolean {
  const st = s.stream;
  return st.status === "open" && st.writeStatus === "writable" && st.remoteWriteStatus === "writable";
}
