/**
 * A gRPC client that reads a server stream slowly, written on HTTP/2 frames so that the suite, not a library, decides
 * when the server may send more. grpc-js on Bun cannot be used for this: Bun's HTTP/2 client grants the server more
 * window as data arrives, whether the stream is read or paused, so a paused grpc-js call never holds a server back.
 *
 * The client offers a small stream window (SETTINGS_INITIAL_WINDOW_SIZE) and sends no WINDOW_UPDATE while it is
 * paused: the server can then send no more than that window and must wait (RFC 9113 §5.2, §6.9). Once resumed it
 * grants the window back for every DATA frame it reads. Plain-text HTTP/2 (h2c) only, as the devnet serves gRPC.
 * Request headers are HPACK literals without indexing (RFC 7541 §6.2.2); response header blocks are not decoded:
 * the client needs to know only that the stream ended (HEADERS with END_STREAM, RST_STREAM or GOAWAY).
 */
import { createConnection, type Socket } from "node:net";
import { MevCommitError } from "../../lib/errors.ts";

export class SlowReaderError extends MevCommitError {}

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8 } as const;
const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8 } as const;
const STREAM = 1;

function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1). */
function hpackInt(value: number, prefixBits: number, firstByte = 0): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [firstByte | value];
  const out = [firstByte | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

function literal(name: string, value: string): Buffer {
  const n = Buffer.from(name, "latin1");
  const v = Buffer.from(value, "latin1");
  return Buffer.concat([Buffer.from([0x00, ...hpackInt(n.length, 7)]), n, Buffer.from(hpackInt(v.length, 7)), v]);
}

function windowUpdate(stream: number, increment: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(increment, 0);
  return frame(FRAME.WINDOW_UPDATE, 0, stream, p);
}

export interface SlowReaderOptions {
  /** `host:port` of the node's gRPC server (plain text). */
  address: string;
  /** `/package.Service/Method` of a server-streaming method. */
  path: string;
  /** The request message, serialized. */
  request: Uint8Array;
  /** The stream window the client offers, in bytes. */
  windowBytes: number;
}

/** One server-streaming call read by a client that can stop granting the server window. */
export class SlowReader {
  /** The response messages read so far, serialized. */
  readonly messages: Buffer[] = [];
  ended = false;
  endReason = "";
  private readonly socket: Socket;
  private inbox = Buffer.alloc(0);
  private grpcBytes = Buffer.alloc(0);
  private paused = true;
  /** Window the client owes the server for DATA it read while paused. */
  private owed = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly o: SlowReaderOptions) {
    const m = /^(.*):(\d+)$/.exec(o.address);
    if (!m) throw new SlowReaderError(`not host:port: ${o.address}`);
    this.socket = createConnection({ host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) });
    this.socket.on("data", (chunk: Buffer) => this.onBytes(chunk));
    this.socket.on("error", (e) => this.end(`connection error: ${e.message}`));
    this.socket.on("close", () => this.end("connection closed"));
  }

  /** Opens the call, paused: the server may send only `windowBytes` until `resume`. */
  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once("connect", resolve);
      this.socket.once("error", reject);
    });
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(0x2, 0); // ENABLE_PUSH
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(0x4, 6); // INITIAL_WINDOW_SIZE
    settings.writeUInt32BE(this.o.windowBytes, 8);
    const headers = Buffer.concat([
      literal(":method", "POST"),
      literal(":scheme", "http"),
      literal(":path", this.o.path),
      literal(":authority", this.o.address),
      literal("content-type", "application/grpc"),
      literal("te", "trailers"),
    ]);
    const message = Buffer.alloc(5 + this.o.request.length);
    message.writeUInt32BE(this.o.request.length, 1);
    Buffer.from(this.o.request).copy(message, 5);
    this.socket.write(
      Buffer.concat([
        PREFACE,
        frame(FRAME.SETTINGS, 0, 0, settings),
        frame(FRAME.HEADERS, FLAG.END_HEADERS, STREAM, headers),
        frame(FRAME.DATA, FLAG.END_STREAM, STREAM, message),
      ]),
    );
  }

  /** Reads on: grants the server the window of what was read while paused, and of everything read from now on. */
  resume(): void {
    this.paused = false;
    if (this.owed > 0) this.grant(this.owed);
    this.owed = 0;
  }

  /** Waits until `n` messages were read, or the stream ended, or `ms` passed. */
  async waitFor(n: number, ms: number): Promise<void> {
    const deadline = performance.now() + ms;
    while (this.messages.length < n && !this.ended && performance.now() < deadline)
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(0, deadline - performance.now()));
        this.waiters.add(() => {
          clearTimeout(t);
          r();
        });
      });
  }

  close(): void {
    if (!this.ended) this.end("closed by the suite");
    this.socket.destroy();
  }

  private grant(bytes: number): void {
    if (this.ended || bytes <= 0) return;
    this.socket.write(Buffer.concat([windowUpdate(STREAM, bytes), windowUpdate(0, bytes)]));
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  private onBytes(chunk: Buffer): void {
    this.inbox = Buffer.concat([this.inbox, chunk]);
    while (this.inbox.length >= 9) {
      const length = this.inbox.readUIntBE(0, 3);
      if (this.inbox.length < 9 + length) return;
      const type = this.inbox[3]!;
      const flags = this.inbox[4]!;
      const stream = this.inbox.readUInt32BE(5) & 0x7fffffff;
      const payload = this.inbox.subarray(9, 9 + length);
      this.inbox = this.inbox.subarray(9 + length);
      this.onFrame(type, flags, stream, payload);
    }
  }

  private onFrame(type: number, flags: number, stream: number, payload: Buffer): void {
    switch (type) {
      case FRAME.SETTINGS:
        if (!(flags & FLAG.ACK)) this.socket.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
        return;
      case FRAME.PING:
        if (!(flags & FLAG.ACK)) this.socket.write(frame(FRAME.PING, FLAG.ACK, 0, Buffer.from(payload)));
        return;
      case FRAME.GOAWAY:
        this.end(`GOAWAY (error code ${payload.length >= 8 ? payload.readUInt32BE(4) : "?"})`);
        return;
      case FRAME.RST_STREAM:
        if (stream === STREAM) this.end(`RST_STREAM (error code ${payload.readUInt32BE(0)})`);
        return;
      case FRAME.HEADERS:
        if (stream === STREAM && flags & FLAG.END_STREAM) this.end("the node ended the stream (trailers)");
        return;
      case FRAME.DATA: {
        if (stream !== STREAM) return;
        const padded = (flags & FLAG.PADDED) !== 0;
        const data = payload.subarray(padded ? 1 : 0, payload.length - (padded ? payload[0]! : 0));
        this.grpcBytes = Buffer.concat([this.grpcBytes, data]);
        while (this.grpcBytes.length >= 5) {
          const n = this.grpcBytes.readUInt32BE(1);
          if (this.grpcBytes.length < 5 + n) break;
          this.messages.push(Buffer.from(this.grpcBytes.subarray(5, 5 + n)));
          this.grpcBytes = this.grpcBytes.subarray(5 + n);
        }
        if (payload.length) {
          if (this.paused) this.owed += payload.length;
          else this.grant(payload.length);
        }
        if (flags & FLAG.END_STREAM) this.end("the node ended the stream (END_STREAM on DATA)");
        this.wake();
        return;
      }
      default:
        return;
    }
  }
}
