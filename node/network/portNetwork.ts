/**
 * Nodes on threads of one process meeting over MessagePorts (`npm run bench:processes -- --nodes threads`): each node
 * runs in a Worker of its own and holds a port to every node it talks to. A node announces the providers and bidders
 * it runs on every port; a provider heard of becomes a ProviderPeer whose `handleBid` posts the bid through the port
 * and settles with the answer. Structured cloning carries bids and commitments as they are (bigints, bytes), so the
 * wire costs a copy, not an encoding: what separate machines would gain in parallelism, without libp2p's CPU.
 */
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import type { G1Point, SignedBid } from "../protocol/types.ts";
import { type CommitmentReply, type Network, PeerEvents, type ProviderPeer } from "./network.ts";

type Message =
  | { t: "sync" }
  | { t: "provider"; address: Address; nikePublicKey: G1Point }
  | { t: "bidder"; address: Address }
  | { t: "gone"; address: Address }
  | { t: "bid"; id: number; to: Address; bid: SignedBid; from: Address }
  | { t: "abort"; id: number }
  | { t: "reply"; id: number; ok: true; value: CommitmentReply }
  | { t: "reply"; id: number; ok: false; error: { name: string; message: string } };

/** A bid for a provider this node does not run (it left, or never was here). */
export class PortPeerGoneError extends MevCommitError {}

interface Link {
  port: MessagePort;
  /** Bids sent through this link, waiting for their reply, by the provider they went to. */
  waiting: Map<number, { to: string; resolve: (r: CommitmentReply) => void; reject: (e: Error) => void }>;
  /** Bids received through this link and still being handled. */
  handling: Map<number, AbortController>;
}

const key = (a: string) => a.toLowerCase();

export class PortNetwork extends PeerEvents implements Network {
  private readonly links: Link[];
  private readonly localProviders = new Map<string, ProviderPeer>();
  private readonly localBidders = new Map<string, Address>();
  private readonly remoteProviders = new Map<string, ProviderPeer>();
  private readonly remoteBidders = new Map<string, Address>();
  private nextId = 1;

  constructor(ports: MessagePort[]) {
    super();
    this.links = ports.map((port) => ({ port, waiting: new Map(), handling: new Map() }));
    for (const link of this.links) {
      link.port.onmessage = (e) => this.receive(link, e.data as Message);
      link.port.postMessage({ t: "sync" } satisfies Message);
    }
  }

  connectProvider(peer: ProviderPeer): void {
    this.localProviders.set(key(peer.address), peer);
    this.broadcast({ t: "provider", address: peer.address, nikePublicKey: peer.nikePublicKey });
  }

  disconnectProvider(address: Address): void {
    if (this.localProviders.delete(key(address))) this.broadcast({ t: "gone", address });
  }

  connectBidder(address: Address): void {
    this.localBidders.set(key(address), address);
    this.broadcast({ t: "bidder", address });
  }

  disconnectBidder(address: Address): void {
    if (this.localBidders.delete(key(address))) this.broadcast({ t: "gone", address });
  }

  /** The providers this node can bid with: the other threads' (in this thread a node is a bidder or a provider). */
  providers(): ProviderPeer[] {
    return [...this.remoteProviders.values()];
  }

  bidders(): Address[] {
    return [...this.remoteBidders.values()];
  }

  /** Closes every port: the other threads see this node's peers gone. */
  close(): void {
    for (const a of [...this.localProviders.keys(), ...this.localBidders.keys()])
      this.broadcast({ t: "gone", address: a as Address });
    for (const link of this.links) {
      for (const w of link.waiting.values()) w.reject(new PortPeerGoneError("the network was closed"));
      link.port.close();
    }
  }

  private broadcast(m: Message): void {
    for (const link of this.links) link.port.postMessage(m);
  }

  private receive(link: Link, m: Message): void {
    switch (m.t) {
      case "sync":
        for (const p of this.localProviders.values())
          link.port.postMessage({
            t: "provider",
            address: p.address,
            nikePublicKey: p.nikePublicKey,
          } satisfies Message);
        for (const b of this.localBidders.values())
          link.port.postMessage({ t: "bidder", address: b } satisfies Message);
        return;
      // Heard twice when the announcement and the answer to a sync cross: connected once.
      case "provider": {
        const known = this.remoteProviders.has(key(m.address));
        this.remoteProviders.set(key(m.address), this.proxy(link, m.address, m.nikePublicKey));
        if (!known) this.emit("connected", { type: "provider", address: m.address });
        return;
      }
      case "bidder": {
        const known = this.remoteBidders.has(key(m.address));
        this.remoteBidders.set(key(m.address), m.address);
        if (!known) this.emit("connected", { type: "bidder", address: m.address });
        return;
      }
      case "gone":
        if (this.remoteProviders.delete(key(m.address))) {
          // Its bids will get no reply: they fail now, as a reset connection's would, not at the bid's timeout.
          for (const [id, w] of link.waiting)
            if (w.to === key(m.address)) {
              link.waiting.delete(id);
              w.reject(new PortPeerGoneError(`provider ${m.address} left`));
            }
          this.emit("disconnected", { type: "provider", address: m.address });
        }
        if (this.remoteBidders.delete(key(m.address)))
          this.emit("disconnected", { type: "bidder", address: m.address });
        return;
      case "bid":
        this.handle(link, m);
        return;
      case "abort":
        link.handling.get(m.id)?.abort();
        return;
      case "reply": {
        const w = link.waiting.get(m.id);
        if (!w) return;
        link.waiting.delete(m.id);
        if (m.ok) w.resolve(m.value);
        else w.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
      }
    }
  }

  private handle(link: Link, m: Extract<Message, { t: "bid" }>): void {
    const peer = this.localProviders.get(key(m.to));
    const ctrl = new AbortController();
    link.handling.set(m.id, ctrl);
    const answer = peer
      ? peer.handleBid(m.bid, m.from, ctrl.signal)
      : Promise.reject(new PortPeerGoneError(`provider ${m.to} is not on this node`));
    answer
      .then(
        (value) => link.port.postMessage({ t: "reply", id: m.id, ok: true, value } satisfies Message),
        (e: Error) =>
          link.port.postMessage({
            t: "reply",
            id: m.id,
            ok: false,
            error: { name: e.name, message: e.message },
          } satisfies Message),
      )
      .finally(() => link.handling.delete(m.id));
  }

  private proxy(link: Link, address: Address, nikePublicKey: G1Point): ProviderPeer {
    return {
      address,
      nikePublicKey,
      handleBid: (bid, from, signal) =>
        new Promise<CommitmentReply>((resolve, reject) => {
          const id = this.nextId++;
          link.waiting.set(id, { to: key(address), resolve, reject });
          signal.addEventListener("abort", () => link.port.postMessage({ t: "abort", id } satisfies Message), {
            once: true,
          });
          link.port.postMessage({ t: "bid", id, to: address, bid, from } satisfies Message);
        }),
    };
  }
}
