/**
 * A Noise connection's plaintext gathered per turn of the event loop: the yamux frames handed to it in one turn
 * (a commitment's data frame and its stream's FIN, the frames of other bids in flight on the same connection) are
 * encrypted as one Noise message at the turn's end instead of one message per frame. The plaintext byte stream is
 * unchanged (Noise carries yamux as a byte stream; go-libp2p reads it so too); the peer decrypts once and yamux
 * parses the frames from one chunk: one ChaCha20-Poly1305 call, one length prefix and one 'message' event on each
 * side instead of one per frame.
 *
 * Back-pressure is kept as in turnWrites.ts: a send answers "cannot send more" only while the connection beneath
 * refused more on the last flush, until it drains. A close or reset first sends what is held.
 */
import type { ConnectionEncrypter, SecuredConnection } from "@libp2p/interface";
import { atTurnEnd } from "./turnEnd.ts";

type SendData = (data: Iterable<Uint8Array> & { byteLength: number }) => { sentBytes: number; canSendMore: boolean };

interface EncryptedStream {
  sendData?: SendData;
  close?: (options?: unknown) => Promise<void>;
  sendReset?: (err?: unknown) => void;
  abort?: (err: Error) => void;
  addEventListener?: (event: "drain", listener: () => void) => void;
}

/** Largest plaintext held before a flush: one Noise message (65,535 bytes less the 16-byte tag). */
const MAX_HELD = 65_519;

export function encryptionPerTurn(stream: unknown): void {
  const s = stream as EncryptedStream;
  const send = s.sendData?.bind(stream);
  const close = s.close?.bind(stream);
  const sendReset = s.sendReset?.bind(stream);
  if (!send || !close || !sendReset || !s.addEventListener) return;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let scheduled = false;
  /** The connection beneath refused more on the last flush and has not drained since. */
  let full = false;
  s.addEventListener("drain", () => {
    full = false;
  });
  const flush = () => {
    scheduled = false;
    if (held.length === 0) return;
    const one = held.length === 1 ? held[0]! : join(held, heldBytes);
    held = [];
    heldBytes = 0;
    try {
      full = !send(one as unknown as Parameters<SendData>[0]).canSendMore;
    } catch (err) {
      // The connection beneath closed within the turn: what was held cannot go out (sent at once, it would have
      // failed the same way in the sender's hands).
      s.abort?.(err as Error);
    }
  };
  s.sendData = (data) => {
    let sentBytes = 0;
    for (const buf of data) {
      held.push(buf);
      sentBytes += buf.byteLength;
    }
    heldBytes += sentBytes;
    if (heldBytes >= MAX_HELD) flush();
    else if (!scheduled) {
      scheduled = true;
      atTurnEnd(flush);
    }
    return { sentBytes, canSendMore: !full };
  };
  s.close = (options) => {
    flush();
    return close(options);
  };
  s.sendReset = (err) => {
    flush();
    sendReset(err);
  };
}

function join(bufs: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const b of bufs) {
    out.set(b, at);
    at += b.byteLength;
  }
  return out;
}

/** A connection encrypter whose secured connections gather their plaintext per turn. */
export function withEncryptionPerTurn<C>(
  make: (components: C) => ConnectionEncrypter,
): (components: C) => ConnectionEncrypter {
  return (components) => {
    const encrypter = make(components);
    const secure =
      (f: ConnectionEncrypter["secureInbound"]): ConnectionEncrypter["secureInbound"] =>
      async (connection, options) => {
        const secured: SecuredConnection = await f(connection, options);
        encryptionPerTurn(secured.connection);
        return secured;
      };
    const wrapped: ConnectionEncrypter = Object.create(encrypter);
    wrapped.secureInbound = secure(encrypter.secureInbound.bind(encrypter));
    wrapped.secureOutbound = secure(encrypter.secureOutbound.bind(encrypter));
    return wrapped;
  };
}
