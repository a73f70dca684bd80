import type { Address } from "viem";
import type { G1Point, SignedBid } from "../protocol/types.ts";

/** What a provider answers to a bid it accepted: the signed commitment and the dispatch time it chose. */
export interface CommitmentReply {
  digest: Uint8Array;
  signature: Uint8Array;
  dispatchTimestamp: bigint;
}

/**
 * What a provider answers (Internal, upstream's text) when no provider application is attached to it: the bid is
 * refused at once and gets no commitment from that provider.
 */
export const NO_ACTIVE_RECEIVERS = "no active receivers";

/** Is this a provider's `no active receivers` refusal, thrown in-process or carried as a peer's status? */
export function isNoActiveReceivers(e: unknown): boolean {
  const x = e as { message?: unknown; statusMessage?: unknown } | undefined;
  return x?.message === NO_ACTIVE_RECEIVERS || x?.statusMessage === NO_ACTIVE_RECEIVERS;
}

/** A provider as the network shows it to bidders (upstream: a libp2p peer with its handshake keys). */
export interface ProviderPeer {
  readonly address: Address;
  /** The provider's BN254 NIKE public key, learned in the handshake. */
  readonly nikePublicKey: G1Point;
  /** Delivers a signed bid; resolves with the commitment, or rejects (rejected, no deposit, timed out, …). */
  handleBid(bid: SignedBid, from: Address, signal: AbortSignal): Promise<CommitmentReply>;
}

export type PeerType = "provider" | "bidder" | "bootnode";

export interface PeerEvent {
  type: PeerType;
  address: Address;
}

/**
 * The transport between nodes: InProcessNetwork (nodes of one process, direct calls) or Libp2pNetwork
 * (node/p2p: one per node, upstream's wire). A node joins when it starts and leaves when it stops; a real network
 * needs time for that, so the calls may return promises, which nodes await.
 */
export interface Network {
  connectProvider(peer: ProviderPeer): void | Promise<void>;
  disconnectProvider(address: Address): void | Promise<void>;
  connectBidder(address: Address): void | Promise<void>;
  disconnectBidder(address: Address): void | Promise<void>;
  /** The node `address` died: its links drop with no goodbye (its peers see the connections reset). */
  crash(address: Address): void | Promise<void>;
  /** Providers connected now, in connection order. */
  providers(): ProviderPeer[];
  bidders(): Address[];
  onPeer(listener: (event: "connected" | "disconnected", peer: PeerEvent) => void): () => void;
}

export type PeerListener = (event: "connected" | "disconnected", peer: PeerEvent) => void;

/** What the networks of one process keep alike: their peer listeners, and a crash told as both goodbyes. */
export abstract class PeerEvents {
  private readonly listeners = new Set<PeerListener>();

  abstract disconnectProvider(address: Address): void;
  abstract disconnectBidder(address: Address): void;

  /** In one process, peers notice a dead node as they would a reset connection: it is gone. */
  crash(address: Address): void {
    this.disconnectProvider(address);
    this.disconnectBidder(address);
  }

  onPeer(listener: PeerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(event: "connected" | "disconnected", peer: PeerEvent): void {
    for (const l of this.listeners) l(event, peer);
  }
}

/** Nodes of one process talking through direct calls. */
export class InProcessNetwork extends PeerEvents implements Network {
  private readonly providerPeers = new Map<string, ProviderPeer>();
  private readonly bidderPeers = new Map<string, Address>();

  connectProvider(peer: ProviderPeer): void {
    this.providerPeers.set(peer.address.toLowerCase(), peer);
    this.emit("connected", { type: "provider", address: peer.address });
  }

  disconnectProvider(address: Address): void {
    if (this.providerPeers.delete(address.toLowerCase())) this.emit("disconnected", { type: "provider", address });
  }

  connectBidder(address: Address): void {
    this.bidderPeers.set(address.toLowerCase(), address);
    this.emit("connected", { type: "bidder", address });
  }

  disconnectBidder(address: Address): void {
    if (this.bidderPeers.delete(address.toLowerCase())) this.emit("disconnected", { type: "bidder", address });
  }

  providers(): ProviderPeer[] {
    return [...this.providerPeers.values()];
  }

  bidders(): Address[] {
    return [...this.bidderPeers.values()];
  }
}
