/**
 * The libp2p host of a node (p2p.md "Host"): TCP, Noise, yamux and identify (so peers learn each other's listen
 * addresses, which discovery passes on), the node's secp256k1 key as its identity. Peers refused in a handshake are
 * kept out for a while by the connection gater, as upstream's blocklist does.
 */

import { noise } from "@chainsafe/libp2p-noise";
import { asCrypto, defaultCrypto } from "@chainsafe/libp2p-noise/crypto";
import { yamux } from "@chainsafe/libp2p-yamux";
import { type Identify, identify } from "@libp2p/identify";
import type { PeerId, Transport, Upgrader } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { createLibp2p, type Libp2p } from "libp2p";
import { skipKnownProtocolMerges } from "./peerStoreProtocols.ts";
import { libp2pLoggerOption } from "./quietLogger.ts";
import { withEncryptionPerTurn } from "./turnEncryption.ts";
import { writesPerTurn } from "./turnWrites.ts";
import "./yamuxWindowUpdates.ts";
import { libp2pKeyOf } from "./wire/peerIdentity.ts";

export type Host = Libp2p<{ identify: Identify }>;

/** Peers kept out until a time (upstream blockPeer: 0 = until restart, insufficient stake: minutes). */
export class Blocklist {
  private readonly until = new Map<string, number>();

  block(peer: PeerId | string, ms: number): void {
    this.until.set(peer.toString(), ms > 0 ? Date.now() + ms : Number.POSITIVE_INFINITY);
  }

  isBlocked(peer: PeerId | string): boolean {
    const t = this.until.get(peer.toString());
    if (t === undefined) return false;
    if (t > Date.now()) return true;
    this.until.delete(peer.toString());
    return false;
  }
}

export interface HostOptions {
  nodeKey: `0x${string}`;
  /** Multiaddrs to listen on, e.g. /ip4/127.0.0.1/tcp/13600. */
  listen: string[];
  /** Addresses to announce besides the listen ones (upstream --nat-addr). */
  announce?: string[];
  blocklist: Blocklist;
}

/**
 * Noise's crypto with ChaCha20-Poly1305 always from its WebAssembly implementation. The default hands messages of
 * 1,200 bytes and more to node:crypto's "chacha20-poly1305", which Bun does not have ("Unknown cipher"): every
 * such message (a bid with many transactions, frames batched under load) broke its connection.
 */
const bunNoiseCrypto = {
  ...defaultCrypto,
  chaCha20Poly1305Encrypt: asCrypto.chaCha20Poly1305Encrypt,
  chaCha20Poly1305Decrypt: asCrypto.chaCha20Poly1305Decrypt,
};

export async function createHost(o: HostOptions): Promise<Host> {
  const host = await createLibp2p({
    privateKey: libp2pKeyOf(o.nodeKey),
    ...libp2pLoggerOption(),
    addresses: { listen: o.listen, appendAnnounce: o.announce ?? [] },
    transports: [tcpTransport()],
    connectionEncrypters: [withEncryptionPerTurn(noise({ crypto: bunNoiseCrypto }))],
    streamMuxers: [yamux()],
    services: { identify: identify() },
    connectionGater: {
      denyDialPeer: (peer) => o.blocklist.isBlocked(peer),
      denyInboundEncryptedConnection: (peer) => o.blocklist.isBlocked(peer),
      denyOutboundEncryptedConnection: (peer) => o.blocklist.isBlocked(peer),
    },
  });
  skipKnownProtocolMerges(host.peerStore);
  return host;
}

/**
 * @libp2p/tcp with two changes, both local to this process (the bytes on the wire are the same):
 *
 * - The dial's abort signal does not reach `net.connect`. @libp2p/tcp spreads its dial options into net.connect's,
 *   signal included, so an aborted dial (the host stopping, a dial timeout) makes the socket destroy itself with an
 *   AbortError after @libp2p/tcp's own abort handler has removed the socket's only 'error' listener: an uncaught
 *   AbortError in the process (seen after node/p2p/crashRecovery.test.ts). The dial still honours the signal:
 *   @libp2p/tcp's own handler destroys the socket, and the connection upgrade gets the signal as before.
 * - What the connection is handed to send in one turn of the event loop is written as one buffer (turnWrites.ts).
 */
function tcpTransport(): ReturnType<typeof tcp> {
  const make = tcp();
  return (components) => {
    const transport: Transport = make(components);
    const dial = transport.dial.bind(transport);
    transport.dial = (ma, options) => {
      const { signal } = options;
      const upgrader: Upgrader = Object.create(options.upgrader);
      upgrader.upgradeOutbound = (maConn, o) =>
        options.upgrader.upgradeOutbound(writesPerTurn(maConn), { ...o, signal });
      const hidden = { ...options, upgrader };
      // Not enumerable: @libp2p/tcp reads options.signal itself, but its spread into net.connect's options skips it.
      Object.defineProperty(hidden, "signal", { value: signal, enumerable: false });
      return dial(ma, hidden);
    };
    const createListener = transport.createListener.bind(transport);
    transport.createListener = (options) => {
      const upgrader: Upgrader = Object.create(options.upgrader);
      upgrader.upgradeInbound = (maConn, o) => options.upgrader.upgradeInbound(writesPerTurn(maConn), o);
      return createListener({ ...options, upgrader });
    };
    return transport;
  };
}
