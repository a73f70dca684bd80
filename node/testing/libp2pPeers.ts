import type { PeerType } from "../network/network.ts";
import { Libp2pNetwork, type Libp2pNetworkOptions } from "../p2p/libp2pNetwork.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import type { Bid } from "../protocol/types.ts";

/**
 * Real libp2p nodes on loopback for tests and benchmarks of the p2p layer: each listens on a free port, holds every
 * provider staked unless told otherwise, and is stopped by `stopAll`.
 */
export class Libp2pPeers {
  private readonly nets: Libp2pNetwork[] = [];

  /** `rules`: the protocol version the nodes speak unless a node's options name others. */
  constructor(private readonly rules: ProtocolRules) {}

  node(
    nodeKey: `0x${string}`,
    peerType: PeerType,
    options: Partial<Omit<Libp2pNetworkOptions, "nodeKey" | "peerType">> = {},
  ): Libp2pNetwork {
    const n = new Libp2pNetwork({
      nodeKey,
      peerType,
      rules: this.rules,
      listen: ["/ip4/127.0.0.1/tcp/0"],
      isStaked: async () => true,
      ...options,
    });
    this.nets.push(n);
    return n;
  }

  async stopAll(): Promise<void> {
    for (const n of this.nets) await n.stop();
  }
}

/** A bid for block 7 with one transaction hash, for tests that only need some valid bid to cross the wire. */
export const sampleBid = (extra: Partial<Bid> = {}): Bid => ({
  txHashes: ["aa".repeat(32)],
  rawTransactions: [],
  amount: 10n ** 15n,
  blockNumber: 7n,
  decayStartTimestamp: 1n,
  decayEndTimestamp: 2n,
  revertingTxHashes: [],
  slashAmount: 0n,
  ...extra,
});
