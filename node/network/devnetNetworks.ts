/**
 * The networks of a devnet's nodes: one InProcessNetwork shared by all, or a Libp2pNetwork per node on loopback
 * around a bootnode of the devnet's own (upstream's wire; foreign nodes may join through the same bootnode).
 */
import type { Address } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { Libp2pNetwork } from "../p2p/libp2pNetwork.ts";
import type { ProtocolRules } from "../protocol/rules.ts";
import { meshSettled, meshViewOf } from "./meshView.ts";
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
  /** The rules of the protocol version the libp2p nodes speak (their preconfirmation id). */
  rules: ProtocolRules;
}

export class MeshTimeoutError extends MevCommitError {}

export interface DevnetNetworks {
  readonly bidder: Network;
  readonly providers: readonly Network[];
  /**
   * The network of a node that starts again after a crash: a libp2p peer of its own, new in every way but its key
   * and listen address (a restarted process has lost its connections, its peers and its AES key), taking the dead
   * one's place in the devnet's mesh. In-process: the shared network.
   */
  renew(node: { role: "bidder" } | { role: "provider"; index: number }): Network;
  /** The bootnode's multiaddrs (what `--bootnodes` takes), when nodes meet over libp2p. */
  bootnodeAddrs(): string[];
  /**
   * Resolves once the running nodes see each other (the bidder every running provider, every running provider the
   * bidder and the other running providers) and nobody sees a stopped one. Running providers without a valid stake
   * are refused by every peer, as on a real network, so they are not waited for. At once in-process.
   */
  settle(providerRunning: boolean[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function devnetNetworks(o: DevnetNetworkOptions): Promise<DevnetNetworks> {
  if (o.kind === "in-process") {
    const shared = new InProcessNetwork();
    return {
      bidder: shared,
      providers: o.providerKeys.map(() => shared),
      renew: () => shared,
      bootnodeAddrs: () => [],
      settle: async () => {},
      stop: async () => {},
    };
  }
  const listen = (port: number) => [`/ip4/${o.host}/tcp/${port}`];
  const bootnode = new Libp2pNetwork({
    nodeKey: o.bootnodeKey,
    peerType: "bootnode",
    listen: listen(o.bootnodePort),
    isStaked: o.isStaked,
    rules: o.rules,
  });
  await bootnode.start();
  const bootnodes = bootnode.multiaddrs();
  const node = (nodeKey: `0x${string}`, peerType: "bidder" | "provider", port: number) =>
    new Libp2pNetwork({
      nodeKey,
      peerType,
      listen: listen(port),
      bootnodes,
      isStaked: o.isStaked,
      bootstrapIntervalMs: 1000,
      rules: o.rules,
    });
  let bidder = node(o.bidderKey, "bidder", o.bidderPort);
  const providers = o.providerKeys.map((k, i) => node(k, "provider", o.providerPorts[i] ?? 0));
  /** `expected`: running providers the others must see; stopped ones nobody may see (the rest: no requirement). */
  const meshed = (expected: boolean[], running: boolean[]): boolean =>
    meshSettled(
      meshViewOf(bidder),
      providers.map((p, i) => ({
        address: p.address,
        expected: expected[i] === true,
        running: running[i] === true,
        view: meshViewOf(p),
      })),
    );
  return {
    get bidder() {
      return bidder;
    },
    providers,
    renew(n) {
      if (n.role === "bidder") return (bidder = node(o.bidderKey, "bidder", o.bidderPort));
      return (providers[n.index] = node(o.providerKeys[n.index]!, "provider", o.providerPorts[n.index] ?? 0));
    },
    bootnodeAddrs: () => bootnode.multiaddrs(),
    async settle(running, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      // A running provider the registry no longer counts (its unstake was requested, its stake slashed below the
      // minimum) is refused in every handshake: it runs, but nobody will ever see it, so nobody is waited for.
      const expected = await Promise.all(
        providers.map(async (p, i) => running[i] === true && (await o.isStaked(p.address))),
      );
      while (!meshed(expected, running)) {
        if (Date.now() > until)
          throw new MeshTimeoutError(`nodes did not find each other over libp2p within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      await Promise.all([bidder, ...providers, bootnode].map((n) => n.stop()));
    },
  };
}
