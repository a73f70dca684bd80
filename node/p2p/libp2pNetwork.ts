/**
 * The Network of a node that meets its peers over libp2p, wire-compatible with upstream's node at the pinned commit
 * (shared/reference/p2p.md). One instance per node: it runs the node's host, handshakes every connection (a
 * provider's stake checked on the chain), spreads provider addresses (discovery), hands the bidder's AES key to
 * each provider (key exchange) and carries bids and commitments (preconfirmation).
 *
 * The node speaks one protocol version (`rules`, ProtocolRules): its handshake and preconfirmation ids and how
 * a bid is read from the wire follow it. A provider also answers the preconfirmation ids of the other versions, only
 * to refuse each bid with a status that names both versions, logged on both sides: a v1.1 node and a v1.2 node that
 * meet complete the handshake (both 10.0.0) but never exchange a bid, and neither side fails silently.
 *
 * On a bidder node a provider counts as connected (providers(), peer_connected) once it took the bidder's key, so a
 * bid never goes to a provider that cannot read it; upstream announces it at the handshake.
 */
import type { Connection, PeerId, Stream } from "@libp2p/interface";
import { type Multiaddr, multiaddr } from "@multiformats/multiaddr";
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { PeerListSchema } from "../gen/proto/p2p/discovery/v1/discovery_pb.ts";
import { EKMWithSignatureSchema } from "../gen/proto/p2p/keyexchange/v1/keyexchange_pb.ts";
import {
  EncryptedBidSchema,
  EncryptedPreConfirmationSchema,
} from "../gen/proto/p2p/preconfirmation/v1/preconfirmation_pb.ts";
import type { CommitmentReply, Network, PeerEvent, PeerType, ProviderPeer } from "../network/network.ts";
import { FailedPreconditionError, GrpcCode, InvalidArgumentError, RpcError } from "../protocol/grpcCodes.ts";
import type { ProtocolVersion } from "../protocol/protocolVersion.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { privateKeyToAddress } from "../protocol/secp256k1.ts";
import type { SignedBid } from "../protocol/types.ts";
import { logger } from "../util/log.ts";
import { Blocklist, createHost, type Host } from "./host.ts";
import { MsgStream } from "./msgStream.ts";
import { eciesKeyFromNodeKey } from "./nodeKeys.ts";
import { answerHandshake, dialHandshake, type HandshakeSelf } from "./protocols/handshake.ts";
import { WarmStreams } from "./warmStreams.ts";
import { newAesKey } from "./wire/aesGcm.ts";
import { type DiscoveredPeer, peerList, peersOf } from "./wire/discovery.ts";
import { eciesPublicKeyOf } from "./wire/ecies.ts";
import {
  handshakeRequest,
  InsufficientStakeError,
  ObservedAddressMismatchError,
  type ProviderKeys,
} from "./wire/handshake.ts";
import { SignatureVerificationError } from "./wire/hashSignature.ts";
import { openKeyExchange, sealKeyExchange } from "./wire/keyExchange.ts";
import { ethAddressOfPeer, peerIdOf } from "./wire/peerIdentity.ts";
import { commitmentFromMessage, commitmentToMessage, decryptBid, encryptBid } from "./wire/preconfirmation.ts";
import {
  DISCOVERY,
  handshakeSpec,
  KEY_EXCHANGE,
  otherPreconfirmationSpecs,
  type ProtocolSpec,
  preconfirmationSpec,
  protocolId,
} from "./wire/protocolIds.ts";

export interface Libp2pNetworkOptions {
  nodeKey: `0x${string}`;
  peerType: PeerType;
  /** Multiaddrs to listen on, e.g. `/ip4/127.0.0.1/tcp/13600` (upstream --p2p-addr / --p2p-port). */
  listen: string[];
  /** Extra addresses to announce (upstream --nat-addr). */
  announce?: string[];
  /** Multiaddrs of bootnodes, each ending in /p2p/<peer id> (upstream --bootnodes). */
  bootnodes?: string[];
  /** The handshake token (upstream --secret; signed, not compared). */
  token?: string;
  /** Whether a provider holds the minimum stake (ProviderRegistry); asked in every handshake with a provider. */
  isStaked: (provider: Address) => Promise<boolean>;
  /** How often unreachable bootnodes are dialled again (upstream: every minute). Default 5 s. */
  bootstrapIntervalMs?: number;
  handshakeTimeoutMs?: number;
  /** The rules of the protocol version this node speaks on the wire. */
  rules: ProtocolRules;
}

/** The text a provider refuses a bid of another protocol version with (the bidder matches on it). */
export const PROTOCOL_MISMATCH = "preconfirmation protocol mismatch";

/** A provider's refusal of a bid that came on the preconfirmation protocol of another version. */
export class ProtocolMismatchError extends FailedPreconditionError {}

export class PeerNotConnectedError extends MevCommitError {
  constructor(readonly peer: Address) {
    super(`peer ${peer} is not connected`, { context: { peer } });
  }
}

export class NoAesKeyError extends RpcError {
  constructor(bidder: Address) {
    super(GrpcCode.FailedPrecondition, `no AES key found for bidder ${bidder}`, { context: { bidder } });
  }
}

interface RemotePeer {
  readonly id: PeerId;
  readonly address: Address;
  readonly type: PeerType;
  readonly keys?: ProviderKeys;
  /** Announced to listeners (a provider on a bidder node: once it took our key). */
  ready: boolean;
  asProvider?: ProviderPeer;
  /** Bidder node: preconfirmation streams to this provider opened ahead of bids. */
  warm?: WarmStreams;
  /** A refusal for a protocol version mismatch was logged for this peer. */
  mismatchLogged?: boolean;
}

type PeerListener = (event: "connected" | "disconnected", peer: PeerEvent) => void;

/** A provider to dial at the bootstrap ticks: named by a peer list, or `lost` (its link died while we ran). */
interface ToDial {
  address: Address;
  addrs: Multiaddr[];
  failures: number;
  lost?: boolean;
}

/**
 * How many bootstrap ticks in a row a bidder dials a provider whose link died before it forgets it (5 s ticks: 10
 * minutes). Such a provider usually still holds its link to the bootnode, so no peer list names it again.
 */
const LOST_PROVIDER_DIALS = 120;

/** Whether an address is a TCP one: the addresses announced in peer lists and dialled. */
const isTcp = (a: string | Multiaddr) => a.toString().includes("/tcp/");

const STREAM_LIMITS = { maxInboundStreams: 1024, maxOutboundStreams: 1024 };

export class Libp2pNetwork implements Network {
  readonly address: Address;
  readonly peerId: PeerId;
  readonly rules: ProtocolRules;
  private readonly handshakeProtocol: ProtocolSpec;
  private readonly preconfirmation: ProtocolSpec;
  private readonly log;
  private host: Host | undefined;
  private local: ProviderPeer | undefined;
  private readonly peers = new Map<string, RemotePeer>();
  private readonly handshakes = new Map<string, Promise<RemotePeer | undefined>>();
  /** Provider node: each bidder's AES key, from its key exchange. */
  private readonly bidderKeys = new Map<string, Uint8Array>();
  /** Bidder node: the key our bids are sealed with (one per process, as upstream). */
  private readonly aesKey = newAesKey();
  private readonly eciesKey: Uint8Array;
  private readonly blocklist = new Blocklist();
  private readonly listeners = new Set<PeerListener>();
  private bootstrapTimer: ReturnType<typeof setInterval> | undefined;
  /** Provider: since when it has waited for its stake before dialling (undefined: not waiting). */
  private stakeWaitSince: number | undefined;
  private self: HandshakeSelf | undefined;
  /**
   * Providers a peer list named that we have not reached yet, by peer id: dialled again at every bootstrap tick
   * until one dial works or three in a row fail. A list can arrive while we still hold the link of the provider's
   * previous run (it crashed and came back before we saw the link die), or a dial can fail once on a busy network;
   * nobody announces that provider again, so without a second try it would stay out of reach for good.
   */
  private readonly toDial = new Map<string, ToDial>();

  constructor(private readonly o: Libp2pNetworkOptions) {
    this.address = privateKeyToAddress(o.nodeKey);
    this.peerId = peerIdOf(o.nodeKey);
    this.eciesKey = eciesKeyFromNodeKey(o.nodeKey);
    this.log = logger(`p2p-${o.peerType}`);
    this.rules = o.rules;
    this.handshakeProtocol = handshakeSpec(this.rules);
    this.preconfirmation = preconfirmationSpec(this.rules);
  }

  get running(): boolean {
    return this.host !== undefined;
  }

  /** Our dialable addresses, each ending in /p2p/<peer id> (what others pass as --bootnodes). */
  multiaddrs(): string[] {
    return (this.host?.getMultiaddrs() ?? []).map(String);
  }

  // ---- Network -------------------------------------------------------------------------------------------------

  async connectProvider(peer: ProviderPeer): Promise<void> {
    this.local = peer;
    await this.start();
  }

  async disconnectProvider(_address?: Address): Promise<void> {
    await this.stop();
  }

  async connectBidder(_address?: Address): Promise<void> {
    await this.start();
  }

  async disconnectBidder(_address?: Address): Promise<void> {
    await this.stop();
  }

  providers(): ProviderPeer[] {
    const out: ProviderPeer[] = [];
    for (const p of this.peers.values()) if (p.type === "provider" && p.ready) out.push(this.providerPeer(p));
    return out;
  }

  bidders(): Address[] {
    return [...this.peers.values()].filter((p) => p.type === "bidder").map((p) => p.address);
  }

  /** The streams open to a peer, by protocol and direction (diagnostics and tests). */
  streamsWith(peer: Address): { protocol: string; direction: "inbound" | "outbound" }[] {
    const remote = [...this.peers.values()].find((p) => p.address.toLowerCase() === peer.toLowerCase());
    if (!remote || !this.host) return [];
    return this.host
      .getConnections(remote.id)
      .flatMap((c) => c.streams)
      .filter((s) => s.status === "open")
      .map((s) => ({ protocol: s.protocol ?? "", direction: s.direction }));
  }

  onPeer(listener: PeerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- lifecycle -----------------------------------------------------------------------------------------------

  /** Starts the host, serves the protocols of our peer type and dials the bootnodes. */
  async start(): Promise<void> {
    if (this.host) return;
    const o = this.o;
    const keys = o.peerType === "provider" ? this.providerKeys() : undefined;
    this.self = {
      address: this.address,
      peerType: o.peerType,
      request: handshakeRequest({ privateKey: o.nodeKey, peerType: o.peerType, token: o.token, keys }),
      isStaked: o.isStaked,
    };
    const host = await createHost({
      nodeKey: o.nodeKey,
      listen: o.listen,
      announce: o.announce,
      blocklist: this.blocklist,
    });
    this.host = host;
    await host.handle(
      protocolId(this.handshakeProtocol),
      (stream, conn) => void this.handshake(conn, stream),
      STREAM_LIMITS,
    );
    await host.handle(
      protocolId(DISCOVERY),
      this.serve((peer, s, signal) => this.onPeerList(peer, s, signal)),
      STREAM_LIMITS,
    );
    if (o.peerType === "provider") {
      await host.handle(
        protocolId(KEY_EXCHANGE),
        this.serve((peer, s, signal) => this.onKeys(peer, s, signal)),
        STREAM_LIMITS,
      );
      await host.handle(
        protocolId(this.preconfirmation),
        this.serve((peer, s, signal) => this.onBid(peer, s, signal)),
        STREAM_LIMITS,
      );
      for (const other of otherPreconfirmationSpecs(this.rules))
        await host.handle(
          protocolId(other.spec),
          this.serve((peer, s, signal) => this.refuseBid(peer, s, signal, other)),
          STREAM_LIMITS,
        );
    }
    host.addEventListener("peer:disconnect", (e) => this.onDisconnect(e.detail));
    this.log.info("p2p host listening", { peerId: this.peerId.toString(), addrs: this.multiaddrs().join(",") });
    void this.bootstrap();
    this.bootstrapTimer = setInterval(() => void this.bootstrap(), o.bootstrapIntervalMs ?? 5000);
  }

  /** Leaves the network: every peer sees us disconnect. */
  async stop(): Promise<void> {
    const host = this.host;
    if (!host) return;
    clearInterval(this.bootstrapTimer);
    this.host = undefined;
    await host.stop();
    for (const p of [...this.peers.values()]) this.remove(p);
    this.bidderKeys.clear();
    this.toDial.clear();
  }

  /**
   * Dies (the node's process was killed): every connection is aborted, so peers see their streams reset and no
   * stream is closed or answered; the host stops listening. This network is not started again: a restarted node
   * gets a new one (a new AES key, no peers).
   */
  async crash(_address?: Address): Promise<void> {
    const host = this.host;
    if (!host) return;
    clearInterval(this.bootstrapTimer);
    this.host = undefined;
    const dead = new Error("the node was killed");
    for (const c of host.getConnections()) c.abort(dead);
    await host.stop();
    for (const p of this.peers.values()) p.warm?.close();
    this.peers.clear();
    this.bidderKeys.clear();
  }

  /** Dials a peer (multiaddr with /p2p/<id>) and handshakes; resolves with its address, or undefined if refused. */
  async connect(addr: string | Multiaddr | Multiaddr[]): Promise<Address | undefined> {
    const addrs = Array.isArray(addr) ? addr : [typeof addr === "string" ? multiaddr(addr) : addr];
    const id = addrs[0]?.getComponents().findLast((c) => c.name === "p2p")?.value;
    if (!id) throw new InvalidArgumentError(`${addrs[0]} has no /p2p/<peer id>`);
    if (id === this.peerId.toString()) return this.address;
    const known = this.peers.get(id) ?? (await this.handshakes.get(id));
    if (known) return known.address;
    const host = this.requireHost();
    const conn = await host.dial(addrs, { signal: AbortSignal.timeout(this.o.handshakeTimeoutMs ?? 10_000) });
    const raced = this.peers.get(id) ?? (await this.handshakes.get(id));
    if (raced) return raced.address;
    return (await this.handshake(conn))?.address;
  }

  /**
   * Dials the bootnodes we are not connected to (upstream's bootstrapper, which retries every minute). A provider
   * dials only once it holds the minimum stake (waitingForStake).
   */
  private async bootstrap(): Promise<void> {
    for (const p of this.peers.values()) p.warm?.fill();
    if (await this.waitingForStake()) return;
    for (const b of this.o.bootnodes ?? []) {
      let addr: Multiaddr;
      try {
        addr = multiaddr(b);
      } catch (e) {
        this.log.error("bad bootnode address", { addr: b, reason: (e as Error).message });
        continue;
      }
      const id = addr.getComponents().findLast((c) => c.name === "p2p")?.value;
      if (!id || this.peers.has(id) || !this.host) continue;
      try {
        const peer = await this.connect(addr);
        if (peer) this.log.info("connected to bootnode", { peer, addr: b });
      } catch (e) {
        this.log.debug("bootnode not reachable", { addr: b, reason: (e as Error).message });
      }
    }
    for (const [id, p] of this.toDial)
      if (!this.peers.has(id) && !this.handshakes.has(id)) await this.dialDiscovered(id, p);
  }

  /**
   * Whether this node is a provider without the minimum stake that has someone to dial. Every peer refuses such a
   * provider's handshake and keeps it out for minutes (upstream's blocklist: a bootnode 2 minutes), so a provider
   * dials nobody until it is staked and joins at the first bootstrap tick after its stake; upstream's provider dials
   * at once and waits out the blocklists. Says so once when the wait starts and once when it ends.
   */
  private async waitingForStake(): Promise<boolean> {
    if (this.o.peerType !== "provider") return false;
    const unreached = (this.o.bootnodes ?? []).some((b) => !this.peers.has(/\/p2p\/([^/]+)$/.exec(b)?.[1] ?? ""));
    if (!unreached && this.toDial.size === 0) return false;
    const staked = await this.o.isStaked(this.address);
    if (staked && this.stakeWaitSince !== undefined) {
      this.log.info("staked: dialling the bootnodes", {
        provider: this.address,
        waitedMs: Date.now() - this.stakeWaitSince,
      });
      this.stakeWaitSince = undefined;
    } else if (!staked && this.stakeWaitSince === undefined) {
      this.stakeWaitSince = Date.now();
      this.log.warn(
        "not staked: this provider dials its bootnodes once it holds ProviderRegistry's minimum stake (checked every " +
          `${(this.o.bootstrapIntervalMs ?? 5000) / 1000} s; peers refuse an unstaked provider and keep it out for ` +
          "2 minutes). Stake with POST /v1/provider/stake/{wei}?bls_public_keys=0x…&bls_signatures=0x… (docs/p2p.md)",
        { provider: this.address },
      );
    }
    return !staked;
  }

  /**
   * Dials a provider a peer list named, or one whose link died; forgets it once reached, or after its third failed
   * dial in a row (a lost one: after LOST_PROVIDER_DIALS).
   */
  private async dialDiscovered(id: string, p: ToDial): Promise<void> {
    if (!this.host) return;
    try {
      await this.connect(p.addrs);
      if (this.toDial.get(id) === p) this.toDial.delete(id);
      if (p.lost) this.log.info("a lost provider is back", { peer: p.address, dials: p.failures + 1 });
    } catch (e) {
      p.failures++;
      this.log.debug("dialling a discovered peer failed", {
        peer: p.address,
        attempt: p.failures,
        reason: (e as Error).message,
      });
      if (p.failures >= (p.lost ? LOST_PROVIDER_DIALS : 3) && this.toDial.get(id) === p) {
        this.toDial.delete(id);
        if (p.lost) this.log.warn("gave up dialling a lost provider", { peer: p.address, dials: p.failures });
      }
    }
  }

  /**
   * Bidder: a provider whose link died while we run (a partition, a dropped connection) is dialled again at each
   * bootstrap tick at the addresses the peer store holds for it. It usually still holds its link to the bootnode,
   * so no peer list names it again: without this the bidder would stay without it for good.
   */
  private async redialLost(peer: RemotePeer): Promise<void> {
    const host = this.host;
    if (!host || this.o.peerType !== "bidder" || peer.type !== "provider") return;
    const id = peer.id.toString();
    let addrs: Multiaddr[] = [];
    try {
      addrs = (await host.peerStore.get(peer.id)).addresses
        .map((a) => a.multiaddr)
        .filter(isTcp)
        .map((a) => (a.toString().includes("/p2p/") ? a : a.encapsulate(`/p2p/${id}`)));
    } catch {
      // not in the peer store: nothing to dial
    }
    if (!addrs.length || this.peers.has(id) || this.toDial.has(id)) return;
    this.toDial.set(id, { address: peer.address, addrs, failures: 0, lost: true });
    this.log.info("dialling a lost provider again at each bootstrap tick", { peer: peer.address });
  }

  /** Resolves once `predicate` holds, checked at each peer event (for tests and start-up). */
  waitFor(predicate: () => boolean, timeoutMs: number, what = "peers"): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const off = this.onPeer(() => {
        if (!predicate()) return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  }

  // ---- handshake and peers -------------------------------------------------------------------------------------

  private providerKeys(): ProviderKeys {
    if (!this.local)
      throw new Error("a provider network starts from connectProvider (it needs the provider's NIKE key)");
    return { pkePublicKey: eciesPublicKeyOf(this.eciesKey), nikePublicKey: this.local.nikePublicKey };
  }

  private requireHost(): Host {
    if (!this.host) throw new Error("p2p host is not running");
    return this.host;
  }

  /** Runs the handshake on a connection: as dialer without a stream, as listener on the peer's stream. */
  private handshake(conn: Connection, inbound?: Stream): Promise<RemotePeer | undefined> {
    const key = conn.remotePeer.toString();
    const task = (async () => {
      const signal = AbortSignal.timeout(this.o.handshakeTimeoutMs ?? 10_000);
      let s: MsgStream | undefined;
      try {
        const peerAddress = ethAddressOfPeer(conn.remotePeer);
        s = new MsgStream(inbound ?? (await conn.newStream(protocolId(this.handshakeProtocol), { signal })));
        const self = this.self!;
        const hp = inbound
          ? await answerHandshake(s, self, peerAddress, signal)
          : await dialHandshake(s, self, peerAddress, signal);
        await s.close();
        return this.add(conn.remotePeer, hp.address, hp.type, hp.keys);
      } catch (e) {
        s?.abort("handshake failed");
        this.refuse(conn, e as Error);
        return undefined;
      }
    })();
    if (!this.handshakes.has(key)) {
      this.handshakes.set(key, task);
      void task.finally(() => this.handshakes.get(key) === task && this.handshakes.delete(key));
    }
    return task;
  }

  /** Upstream's blocklist: a bad signature or address for long, too little stake for minutes. */
  private refuse(conn: Connection, e: Error): void {
    // A peer that refuses us just hangs up (upstream writes no reason): say what that usually means.
    const hungUp = /unexpected eof|reset/i.test(e.message);
    const why =
      this.o.peerType === "provider"
        ? "our stake, our signature or its blocklist, which keeps a provider it found unstaked out for 2 minutes"
        : "stake, signature or its blocklist";
    const reason = hungUp ? `the peer hung up during the handshake (it refused us: ${why}): ${e.message}` : e.message;
    this.log.warn("handshake refused", { peer: conn.remotePeer.toString(), addr: conn.remoteAddr.toString(), reason });
    if (e instanceof InsufficientStakeError)
      this.blocklist.block(conn.remotePeer, conn.direction === "inbound" ? 2 * 60_000 : 5 * 60_000);
    else if (e instanceof SignatureVerificationError || e instanceof ObservedAddressMismatchError)
      this.blocklist.block(conn.remotePeer, 10 * 60_000);
    void this.host?.hangUp(conn.remotePeer).catch(() => {});
  }

  private add(id: PeerId, address: Address, type: PeerType, keys?: ProviderKeys): RemotePeer {
    const known = this.peers.get(id.toString());
    if (known) return known;
    const peer: RemotePeer = { id, address, type, keys, ready: !(type === "provider" && this.o.peerType === "bidder") };
    this.peers.set(id.toString(), peer);
    this.log.info("peer connected", { peer: address, type });
    if (peer.ready) this.emit("connected", peer);
    else void this.giveKey(peer);
    void this.announce(peer);
    return peer;
  }

  private remove(peer: RemotePeer): void {
    if (this.peers.get(peer.id.toString()) !== peer) return;
    this.peers.delete(peer.id.toString());
    peer.warm?.close();
    this.log.info("peer disconnected", { peer: peer.address, type: peer.type });
    if (peer.ready) this.emit("disconnected", peer);
    void this.redialLost(peer);
  }

  private onDisconnect(id: PeerId): void {
    const peer = this.peers.get(id.toString());
    if (peer && (this.host?.getConnections(id).length ?? 0) === 0) this.remove(peer);
  }

  private emit(event: "connected" | "disconnected", p: RemotePeer): void {
    for (const l of this.listeners) l(event, { type: p.type, address: p.address });
  }

  // ---- streams -------------------------------------------------------------------------------------------------

  /**
   * Opens a stream to a handshaken peer and writes the (empty) header; the peer's header is read before its first
   * message (MsgStream.expectHeader), so the first message follows the header without waiting a round trip.
   * (multistream-select still costs one: libp2p 3.x declares `negotiateFully: false` but does not implement it; a
   * lazy select of our own was measured and not kept, docs/performance.md "Tried and rejected".)
   */
  private async open(peer: RemotePeer, spec: ProtocolSpec, signal: AbortSignal): Promise<MsgStream> {
    const host = this.requireHost();
    if (this.peers.get(peer.id.toString()) !== peer) throw new PeerNotConnectedError(peer.address);
    const s = new MsgStream(
      await host.dialProtocol(peer.id, protocolId(spec), {
        signal,
        maxOutboundStreams: STREAM_LIMITS.maxOutboundStreams,
      }),
    );
    try {
      await s.writeHeader(signal);
      s.expectHeader();
      return s;
    } catch (e) {
      s.abort("header exchange failed");
      throw e;
    }
  }

  /**
   * A handler for a protocol stream (upstream AddStreamHandlers): only from handshaken peers; headers first; a
   * failure goes back to the peer as a status; the signal fires when the peer resets the stream or leaves.
   */
  private serve(handler: (peer: RemotePeer, s: MsgStream, signal: AbortSignal) => Promise<void>) {
    return async (stream: Stream, conn: Connection): Promise<void> => {
      const id = conn.remotePeer.toString();
      const peer = this.peers.get(id) ?? (await this.handshakes.get(id));
      if (!peer) {
        this.log.warn("stream from a peer without handshake", { peer: id, protocol: stream.protocol });
        stream.abort(new Error("unknown peer"));
        return;
      }
      const s = new MsgStream(stream);
      const ctrl = new AbortController();
      const onClose = () => ctrl.abort(new Error("stream closed"));
      stream.addEventListener("close", onClose, { once: true });
      try {
        await s.readHeader(ctrl.signal);
        await s.writeHeader(ctrl.signal);
        await handler(peer, s, ctrl.signal);
      } catch (e) {
        if (ctrl.signal.aborted) return;
        const err = e as Error;
        this.log.debug("stream handler failed", { peer: peer.address, protocol: stream.protocol, reason: err.message });
        try {
          await s.writeError(err instanceof RpcError ? err.code : GrpcCode.Unknown, err.message);
        } catch {
          s.abort("writing error failed");
          return;
        }
      } finally {
        stream.removeEventListener("close", onClose);
      }
      await s.close();
    };
  }

  // ---- discovery -----------------------------------------------------------------------------------------------

  /** Upstream topology.Connected: tell a new peer the providers we know; tell our bidders about a new provider. */
  private async announce(peer: RemotePeer): Promise<void> {
    try {
      const others = [...this.peers.values()].filter((p) => p.type === "provider" && p !== peer);
      if (others.length) await this.sendPeers(peer, await Promise.all(others.map((p) => this.discovered(p))));
      const bidders = [...this.peers.values()].filter((p) => p.type === "bidder");
      if (peer.type === "provider" && bidders.length) {
        const me = await this.discovered(peer, true);
        await Promise.all(bidders.map((b) => this.sendPeers(b, [me]).catch(() => {})));
      }
    } catch (e) {
      this.log.debug("announcing peers failed", { peer: peer.address, reason: (e as Error).message });
    }
  }

  /**
   * A provider's entry for a peer list. `fresh`: the peer just connected, so ask it for its listen addresses
   * (identify) instead of trusting the peer store, which still holds its previous run's addresses until the
   * automatic identify of the new connection is done; on a busy machine that comes after the handshake, and a
   * restarted provider listening on a new port was announced at its old one, which nobody could dial.
   */
  private async discovered(p: RemotePeer, fresh = false): Promise<DiscoveredPeer> {
    const host = this.requireHost();
    const conn = fresh ? host.getConnections(p.id)[0] : undefined;
    if (conn) {
      try {
        const addrs = (await host.services.identify.identify(conn, { signal: AbortSignal.timeout(5_000) })).listenAddrs
          .map(String)
          .filter(isTcp);
        if (addrs.length) return { address: p.address, underlay: { id: p.id.toString(), addrs } };
      } catch (e) {
        this.log.debug("identify failed; announcing the peer store's addresses", {
          peer: p.address,
          reason: (e as Error).message,
        });
      }
    }
    let addrs: string[] = [];
    try {
      addrs = (await host.peerStore.get(p.id)).addresses.map((a) => a.multiaddr.toString()).filter(isTcp);
    } catch {
      // not in the peer store yet
    }
    if (!addrs.length)
      addrs = host
        .getConnections(p.id)
        .filter((c) => c.direction === "outbound")
        .map((c) => c.remoteAddr.decapsulateCode(421).toString());
    return { address: p.address, underlay: { id: p.id.toString(), addrs } };
  }

  private async sendPeers(to: RemotePeer, peers: DiscoveredPeer[]): Promise<void> {
    const usable = peers.filter((p) => p.underlay.addrs.length > 0);
    if (!usable.length) return;
    const signal = AbortSignal.timeout(10_000);
    const s = await this.open(to, DISCOVERY, signal);
    await s.writeMsg(PeerListSchema, peerList(usable), signal);
    await s.close();
  }

  private async onPeerList(from: RemotePeer, s: MsgStream, signal: AbortSignal): Promise<void> {
    const list = peersOf(await s.readMsg(PeerListSchema, signal));
    for (const p of list) {
      if (p.address.toLowerCase() === this.address.toLowerCase()) continue;
      const entry = {
        address: p.address,
        addrs: p.underlay.addrs.map((a) => multiaddr(`${a}/p2p/${p.underlay.id}`)),
        failures: 0,
      };
      this.toDial.set(p.underlay.id, entry);
      // Known already (maybe through the link of its previous run): the next bootstrap tick dials it if that link died.
      if ([...this.peers.values()].some((k) => k.address.toLowerCase() === p.address.toLowerCase())) continue;
      this.log.debug("dialling a discovered peer", { peer: p.address, from: from.address });
      void this.dialDiscovered(p.underlay.id, entry);
    }
  }

  // ---- key exchange --------------------------------------------------------------------------------------------

  /** Bidder: seal our AES key to a new provider; it is ready for bids once its handler is done with it. */
  private async giveKey(provider: RemotePeer, attempt = 1): Promise<void> {
    try {
      const signal = AbortSignal.timeout(10_000);
      const ekm = sealKeyExchange({
        bidderPrivateKey: this.o.nodeKey,
        bidder: this.address,
        aesKey: this.aesKey,
        providerKeys: [provider.keys!.pkePublicKey],
      });
      const s = await this.open(provider, KEY_EXCHANGE, signal);
      await s.writeMsg(EKMWithSignatureSchema, ekm, signal);
      await s.awaitEnd(signal);
      await s.close();
      if (this.peers.get(provider.id.toString()) !== provider || provider.ready) return;
      provider.ready = true;
      this.warmStreams(provider).fill();
      this.emit("connected", provider);
    } catch (e) {
      this.log.warn("key exchange failed", { provider: provider.address, attempt, reason: (e as Error).message });
      if (attempt < 3 && this.peers.get(provider.id.toString()) === provider)
        setTimeout(() => void this.giveKey(provider, attempt + 1), 1000 * attempt);
    }
  }

  private async onKeys(from: RemotePeer, s: MsgStream, signal: AbortSignal): Promise<void> {
    if (from.type !== "bidder") throw new InvalidArgumentError("invalid bidder type for message");
    const ekm = await s.readMsg(EKMWithSignatureSchema, signal);
    this.bidderKeys.set(
      from.address.toLowerCase(),
      openKeyExchange(ekm, { bidder: from.address, eciesPrivateKey: this.eciesKey }),
    );
    this.log.debug("bidder key received", { bidder: from.address });
  }

  // ---- bids ----------------------------------------------------------------------------------------------------

  private providerPeer(p: RemotePeer): ProviderPeer {
    p.asProvider ??= {
      address: p.address,
      nikePublicKey: p.keys!.nikePublicKey,
      handleBid: (bid, _from, signal) => this.sendBid(p, bid, signal),
    };
    return p.asProvider;
  }

  private warmStreams(provider: RemotePeer): WarmStreams {
    provider.warm ??= new WarmStreams({ open: (signal) => this.open(provider, this.preconfirmation, signal) });
    return provider.warm;
  }

  private async sendBid(provider: RemotePeer, bid: SignedBid, signal: AbortSignal): Promise<CommitmentReply> {
    const warm = this.warmStreams(provider);
    let s = await warm.take(signal);
    const onAbort = () => s.abort("bid cancelled");
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const message = encryptBid(this.aesKey, bid);
      try {
        await s.writeMsg(EncryptedBidSchema, message, signal);
      } catch (e) {
        // A stream opened ahead may have been reset by the provider just now (an idle timeout): the bid never left,
        // so it goes once more on a stream of its own instead of failing for this provider.
        if (signal.aborted) throw e;
        s.abort("bid not written");
        this.log.debug("a stream opened ahead failed; the bid goes on a new one", {
          provider: provider.address,
          reason: (e as Error).message,
        });
        s = await this.open(provider, this.preconfirmation, signal);
        await s.writeMsg(EncryptedBidSchema, message, signal);
      }
      const reply = commitmentFromMessage(await s.readMsg(EncryptedPreConfirmationSchema, signal));
      await s.close();
      return reply;
    } catch (e) {
      s.abort("bid failed");
      this.noteMismatch(provider, e);
      throw e;
    } finally {
      signal.removeEventListener("abort", onAbort);
      warm.release();
    }
  }

  /** Bidder: a provider of another protocol version refused our bid; said once per provider connection. */
  private noteMismatch(provider: RemotePeer, e: unknown): void {
    const x = e as { statusMessage?: unknown; message?: unknown; name?: unknown };
    const text = String(x.statusMessage ?? x.message ?? "");
    const unsupported = x.name === "UnsupportedProtocolError" || /protocol selection failed/i.test(text);
    if ((!text.includes(PROTOCOL_MISMATCH) && !unsupported) || provider.mismatchLogged) return;
    provider.mismatchLogged = true;
    this.log.warn("bids refused: the provider speaks another protocol version", {
      provider: provider.address,
      ours: `${this.rules.version} ${protocolId(this.preconfirmation)}`,
      reason: unsupported ? `the provider does not serve ${protocolId(this.preconfirmation)}` : text,
    });
  }

  private async onBid(from: RemotePeer, s: MsgStream, signal: AbortSignal): Promise<void> {
    if (from.type !== "bidder") throw new InvalidArgumentError("invalid bidder type for bid");
    const encrypted = await s.readMsg(EncryptedBidSchema, signal);
    const key = this.bidderKeys.get(from.address.toLowerCase());
    if (!key) throw new NoAesKeyError(from.address);
    if (!this.local) throw new RpcError(GrpcCode.Unavailable, "provider is not serving bids");
    const reply = await this.local.handleBid(decryptBid(key, encrypted, this.rules), from.address, signal);
    await s.writeMsg(EncryptedPreConfirmationSchema, commitmentToMessage(reply), signal);
  }

  /** Provider: a bid on another version's preconfirmation protocol is read (so the stream ends cleanly) and refused. */
  private async refuseBid(
    from: RemotePeer,
    s: MsgStream,
    signal: AbortSignal,
    theirs: { version: ProtocolVersion; spec: ProtocolSpec },
  ): Promise<void> {
    await s.readMsg(EncryptedBidSchema, signal);
    const reason =
      `${PROTOCOL_MISMATCH}: this provider speaks ${protocolId(this.preconfirmation)} (protocol ${this.rules.version}), ` +
      `the bid came on ${protocolId(theirs.spec)} (protocol ${theirs.version})`;
    if (!from.mismatchLogged) {
      from.mismatchLogged = true;
      this.log.warn("bids refused: the bidder speaks another protocol version", { bidder: from.address, reason });
    }
    throw new ProtocolMismatchError(reason, { context: { bidder: from.address, theirs: theirs.version } });
  }
}
