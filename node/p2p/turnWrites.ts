/**
 * A libp2p TCP connection's writes gathered per turn of the event loop: what the connection is handed to send
 * (Noise's messages: each yamux frame, as its 2-byte length and its ciphertext) is held until the end of the turn
 * and written to the socket as one buffer. The bytes and their order are those of the sends; only the number of
 * socket writes changes, and with it the number of reads and 'data' events on the other end.
 *
 * Every node of a devnet shares one event loop, and a bid's path is frames on few connections: a provider's
 * commitment and the end of its stream, a bidder's end of one stream and the opening of the next, the frames of
 * other bids in flight. Each socket write was a system call and each read a round of js-libp2p's events on the
 * peer (docs/performance.md, "Over libp2p").
 *
 * Above it, Noise encrypts what yamux hands it in one turn as one message (turnEncryption.ts).
 *
 * Back-pressure is kept: a send answers "cannot send more" only while the socket itself refused more, so the
 * socket's 'drain' always follows. A close or reset of the connection first writes what is held.
 */
import type { MultiaddrConnection } from "@libp2p/interface";
import { TurnBuffer } from "./turnBuffer.ts";

/** What @libp2p/tcp's connection is handed to write: a Uint8ArrayList, read by iterating it, or an array. */
type Sendable = Iterable<Uint8Array>;
type SendData = (data: Sendable) => { sentBytes: number; canSendMore: boolean };

interface TcpConnection {
  sendData?: SendData;
  sendClose?: (options?: unknown) => Promise<void>;
  sendReset?: (err?: unknown) => void;
  socket?: { on(event: "drain", listener: () => void): unknown };
}

export function writesPerTurn(maConn: MultiaddrConnection): MultiaddrConnection {
  const conn = maConn as unknown as TcpConnection;
  const send = conn.sendData?.bind(maConn);
  const sendClose = conn.sendClose?.bind(maConn);
  const sendReset = conn.sendReset?.bind(maConn);
  if (!send || !sendClose || !sendReset || !conn.socket) return maConn;
  const buffer = new TurnBuffer((one) => send([one]).canSendMore);
  conn.socket.on("drain", () => buffer.drained());
  conn.sendData = (data) => buffer.add(data);
  conn.sendClose = (options) => {
    buffer.flush();
    return sendClose(options);
  };
  conn.sendReset = (err) => {
    buffer.flush();
    sendReset(err);
  };
  return maConn;
}
