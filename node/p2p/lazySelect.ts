/**
 * multistream-select without its round trip, on the streams a node opens to send a bid.
 *
 * js-libp2p's dialer writes the multistream header and the protocol, then waits for the peer's two answers before it
 * hands the stream over: a round trip before every bid (5 ms at the median on the benchmark's shared event loop,
 * docs/performance.md). go-multistream's "lazy" dialer, which go-libp2p uses whenever it knows the peer speaks the
 * protocol, writes the same two lines and carries on; it checks the answers when the peer's first bytes arrive. The
 * bytes on the wire are the same either way, and a listener (go's or js-libp2p's) reads them in order. This module
 * does that for the protocols it is given: the muxer marks the new stream as negotiated (so libp2p skips its own
 * select), queues the two lines ahead of whatever the caller writes, and strips and checks the two answers ahead of
 * whatever the caller reads. A peer that answers anything else (`na`: it does not speak the protocol) gets the stream
 * aborted with UnsupportedProtocolError, which the caller's pending read sees.
 */
import { StreamMessageEvent, UnsupportedProtocolError, type Stream, type StreamMuxer, type StreamMuxerFactory } from "@libp2p/interface";

export const MULTISTREAM_ID = "/multistream/1.0.0";
/** Longest line multistream-select accepts (js-libp2p's MAX_PROTOCOL_LENGTH). */
const MAX_LINE = 1024;

/** A multistream-select message: unsigned-varint length, then the text and a newline. */
export function multistreamLine(text: string): Uint8Array {
  const body = new TextEncoder().encode(`${text}\n`);
  const len = body.length < 0x80 ? [body.length] : [(body.length & 0x7f) | 0x80, body.length >> 7];
  const out = new Uint8Array(len.length + body.length);
  out.set(len);
  out.set(body, len.length);
  return out;
}

/** The first line in `buf` and the bytes after it, or undefined while it is incomplete. */
function takeLine(buf: Uint8Array): { line: string; rest: Uint8Array } | undefined {
  if (buf.length < 1) return undefined;
  let len = buf[0]! & 0x7f;
  let at = 1;
  if (buf[0]! & 0x80) {
    if (buf.length < 2) return undefined;
    len |= (buf[1]! & 0x7f) << 7;
    at = 2;
    if (buf[1]! & 0x80 || len > MAX_LINE) throw new UnsupportedProtocolError("multistream-select answer too long");
  }
  if (buf.length < at + len) return undefined;
  const text = new TextDecoder().decode(buf.subarray(at, at + len));
  return { line: text.endsWith("\n") ? text.slice(0, -1) : text, rest: buf.subarray(at + len) };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Proposes `protocol` on a new outbound stream without waiting for the answer (see the module comment). */
export function proposeLazily(stream: Stream, protocol: string): void {
  stream.protocol = protocol;
  const header = multistreamLine(MULTISTREAM_ID);
  const proposal = multistreamLine(protocol);
  const both = new Uint8Array(header.length + proposal.length);
  both.set(header);
  both.set(proposal, header.length);
  stream.send(both);
  const expected = [MULTISTREAM_ID, protocol];
  let answers: Uint8Array = new Uint8Array(0);
  // Registered before anyone else can listen: it sees the peer's bytes first and passes on what follows the answers.
  const onMessage = (evt: StreamMessageEvent) => {
    evt.stopImmediatePropagation();
    answers = concat(answers, evt.data.subarray());
    try {
      for (let next = takeLine(answers); next && expected.length; next = expected.length ? takeLine(answers) : undefined) {
        if (next.line !== expected[0]) throw new UnsupportedProtocolError(`the peer answered "${next.line}" to "${expected[0]}"`);
        expected.shift();
        answers = next.rest;
      }
    } catch (e) {
      stream.removeEventListener("message", onMessage);
      stream.abort(e as Error);
      return;
    }
    if (expected.length) return;
    stream.removeEventListener("message", onMessage);
    if (answers.length) stream.dispatchEvent(new StreamMessageEvent(answers));
  };
  stream.addEventListener("message", onMessage);
}

/**
 * A stream muxer whose outbound streams for `protocols` are proposed lazily (`proposeLazily`); every other stream
 * (identify, and anything opened for several protocols at once) goes through libp2p's own multistream-select.
 */
export function lazySelect<C>(make: (components: C) => StreamMuxerFactory, protocols: readonly string[]): (components: C) => StreamMuxerFactory {
  return (components) => {
    const factory = make(components);
    return {
      protocol: factory.protocol,
      createStreamMuxer(maConn): StreamMuxer {
        const muxer = factory.createStreamMuxer(maConn);
        const createStream = muxer.createStream.bind(muxer);
        muxer.createStream = async (options) => {
          const stream = await createStream(options);
          if (options?.protocol && protocols.includes(options.protocol) && stream.protocol === "") proposeLazily(stream, options.protocol);
          return stream;
        };
        return muxer;
      },
    };
  };
}
