/**
 * A libp2p stream as mev-commit uses it (upstream pkg/p2p/libp2p/stream.go): msgio-framed StreamMsg envelopes,
 * and on every stream but the handshake a Header each way first.
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { Stream } from "@libp2p/interface";
import { lpStream, type LengthPrefixedStream } from "@libp2p/utils";
import { MSGIO_LENGTH_BYTES, MSGIO_MAX_SIZE, msgioLength, readMsgioLength } from "./wire/msgio.ts";
import { EMPTY_HEADER, decodeData, decodeHeader, encodeData, encodeError, throwIfStatus } from "./wire/streamMsg.ts";

export class MsgStream {
  private readonly lp: LengthPrefixedStream<Stream>;
  /** The peer's Header is still to be read before its first message (see `expectHeader`). */
  private headerDue = false;

  constructor(readonly stream: Stream) {
    this.lp = lpStream(stream, { lengthEncoder: msgioLength, lengthDecoder: readMsgioLength, maxLengthLength: MSGIO_LENGTH_BYTES, maxDataLength: MSGIO_MAX_SIZE });
  }

  async readMsg<D extends DescMessage>(schema: D, signal?: AbortSignal): Promise<MessageShape<D>> {
    await this.settleHeader(signal);
    return decodeData(schema, (await this.lp.read({ signal })).subarray());
  }

  async writeMsg<D extends DescMessage>(schema: D, message: MessageShape<D>, signal?: AbortSignal): Promise<void> {
    await this.lp.write(encodeData(schema, message), { signal });
  }

  /** A handler's failure, as a gRPC status the peer reads as an error. */
  async writeError(code: number, message: string, signal?: AbortSignal): Promise<void> {
    await this.lp.write(encodeError(code, message), { signal });
  }

  async writeHeader(signal?: AbortSignal): Promise<void> {
    await this.lp.write(EMPTY_HEADER, { signal });
  }

  async readHeader(signal?: AbortSignal): Promise<Record<string, unknown>> {
    return decodeHeader((await this.lp.read({ signal })).subarray());
  }

  /**
   * The opener of a stream reads the peer's Header before the peer's first message instead of before writing its
   * own: what it sends goes out without waiting a round trip (the peer reads the frames in order, so the wire is
   * the same as upstream's, which waits).
   */
  expectHeader(): void {
    this.headerDue = true;
  }

  private async settleHeader(signal?: AbortSignal): Promise<void> {
    if (!this.headerDue) return;
    this.headerDue = false;
    await this.readHeader(signal);
  }

  /**
   * Waits until the peer ends the stream, the way a sender learns that upstream's handler is done with what it
   * wrote: a status the handler wrote surfaces as PeerStatusError; an end without one resolves.
   */
  async awaitEnd(signal?: AbortSignal): Promise<void> {
    await this.settleHeader(signal);
    let frame;
    try {
      frame = await this.lp.read({ signal });
    } catch (e) {
      if (signal?.aborted) throw e;
      return;
    }
    throwIfStatus(frame.subarray());
  }

  async close(): Promise<void> {
    try {
      await this.stream.close();
    } catch {
      this.stream.abort(new Error("close failed"));
    }
  }

  abort(reason: string): void {
    this.stream.abort(new Error(reason));
  }
}
