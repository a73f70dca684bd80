/**
 * A Noise connection's plaintext gathered per turn of the event loop: the yamux frames handed to it in one turn
 * (a commitment's data frame and its stream's FIN, the frames of other bids in flight on the same connection) are
 * encrypted as one Noise message at the turn's end instead of one message per frame. The plaintext byte stream is
 * unchanged (Noise carries yamux as a byte stream; go-libp2p reads it so too); the peer decrypts once and yamux
 * parses the frames from one chunk: one ChaCha20-Poly1305 call, one length prefix and one 'message' event on each
 * side instead of one per frame.
 *
 * Back-pressure is kept (turnBuffer.ts). A close or reset first sends what is held.
 */
import type { ConnectionEncrypter, SecuredConnection } from "@libp2p/interface";
import { TurnBuffer } from "./turnBuffer.ts";

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
  const buffer = new TurnBuffer((one) => {
    try {
      return send(one as unknown as Parameters<SendData>[0]).canSendMore;
    } catch (err) {
      // The connection beneath closed within the turn: what was held cannot go out (sent at once, it would have
      // failed the same way in the sender's hands).
      s.abort?.(err as Error);
      return true;
    }
  }, MAX_HELD);
  s.addEventListener("drain", () => buffer.drained());
  s.sendData = (data) => buffer.add(data);
  s.close = (options) => {
    buffer.flush();
    return close(options);
  };
  s.sendReset = (err) => {
    buffer.flush();
    sendReset(err);
  };
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
