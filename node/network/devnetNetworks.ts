/**
 * The networks of a devnet's nodes: one InProcessNetwork shared by all, or a Libp2pNetwork per node on loopback
 * around a bootnode of the devnet's own (upstream's wire; foreign nodes may join through the same bootnode).
 */
import type { Address } from "viem";
import { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import { InProcessNetwork, type Network } from "./network.ts";

export interface DevnetNetworkOptions {
  kind: "libp2p" | "in-process";
  host: string;
  bootnodeKey: `0x${string}`;
  bootnodePort: number;
  bidderKey: `0x${string}`;
  bidderPort: number;
  providerKeys: `0x${string}`[];
  providerPorts: number[];
  isStaked: (provider: Address) => Promise<boolean>;
}

export class MeshTimeoutError extends Error {
  override name = "MeshTimeoutError";
}

export interface DevnetNetworks {
  readonly bidder: Network;
  readonly providers: Network[];
  /** The bootnode's multiaddrs (what `--bootnodes` takes), when nodes meet over libp2p. */
  bootnodeAddrs(): string[];
  /**
   * Resolves once the running nodes see each other (the bidder every running provider, every running provider the
   * bidder and the other running providers) and nobody sees a stopped one. At once in-process.
   */
  settle(providerRunning: boolean[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function devnetNetworks(o: DevnetNetworkOptions): Promise<DevnetNetworks> {
  if (o.kind === "in-process") {
    const shared = new InProcessNetwork();
    return { bidder: shared, providers: o.providerKeys.map(() => shared), bootnodeAddrs: () => [], settle: async () => {}, stop: async () => {} };
  }
  const listen = (port: number) => [`/ip4/${o.host}/tcp/${port}`];
  const bootnode = new Libp2pNetwork({ nodeKey: o.bootnodeKey, peerType: "bootnode", listen: listen(o.bootnodePort), isStaked: o.isStaked });
  await bootnode.start();
  const bootnodes = bootnode.multiaddrs();
  const node = (nodeKey: `0x${string}`, peerType: "bidder" | "provider", port: number) => new Libp2pNetwork({ nodeKey, peerType, listen: listen(port), bootnodes, isStaked: o.isStaked, bootstrapIntervalMs: 1000 });
  const bidder = node(o.bidderKey, "bidder", o.bidderPort);
  const providers = o.providerKeys.map((k, i) => node(k, "provider", o.providerPorts[i] ?? 0));
  const has = (list: Address[], a: Address) => list.some((x) => x.toLowerCase() === a.toLowerCase());
  const meshed = (running: boolean[]): boolean => {
    const up = providers.filter((_, i) => running[i]);
    const down = providers.filter((_, i) => !running[i]);
    const seen = (n: Libp2pNetwork) => n.providers().map((p) => p.address);
    if (!up.every((p) => has(seen(bidder), p.address)) || down.some((p) => has(seen(bidder), p.address))) return false;
    return up.every((n) => has(n.bidders(), bidder.address) && up.every((m) => m === n || has(seen(n), m.address)) && !down.some((m) => has(seen(n), m.address)));
  };
  return {
    bidder,
    providers,
    bootnodeAddrs: () => bootnode.multiaddrs(),
    async settle(running, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (!meshed(running)) {
        if (Date.now() > until) throw new MeshTimeoutError(`nodes did not find each other over libp2p within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      await Promise.all([bidder, ...providers, bootnode].map((n) => n.stop()));
    },
  };
}
